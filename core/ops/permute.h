// permute: a tensor's axes reordered, written contiguously (checks in core/ops/permute.cpp;
// kernels in core/cpu/permute.cpp and core/cuda/permute.cpp). Attention splits its QKV product
// into heads and merges them back with it.
#pragma once

#include <vector>

#include "kiln/core/ops/permute_record.h"
#include "kiln/core/tensor.h"

namespace kiln {

// x: (d_0, ..., d_{r-1}) with r <= 6, perm a permutation of 0 .. r-1, y: (d_perm[0], ...,
// d_perm[r-1]) -> y[i_0, ..., i_{r-1}] = x[j] with j_perm[a] = i_a ("=", as torch.permute then
// contiguous). y must not alias x.
void permute(const Tensor& x, const std::vector<int>& perm, Tensor& y);
// The permutation that undoes `perm` (permute by it to go back).
std::vector<int> inverse_permutation(const std::vector<int>& perm);
// The shape of x permuted by perm.
Shape permuted_shape(const Shape& shape, const std::vector<int>& perm);

namespace op {

inline constexpr int kMaxPermuteRank = rec::kMaxPermuteRank;

struct Permute {
  static constexpr const char* kName = "permute";
  const Tensor& x;
  const std::vector<int>& perm;
  Tensor& y;
  rec::Permute record{};
  void check();
  Device device() const { return x.device(); }
};

}  // namespace op
}  // namespace kiln
