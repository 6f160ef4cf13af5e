// Window2d: the sizes of a 2-D sliding-window op (convolution, pooling) on NCHW tensors, as the
// ops' check() hands them to every backend. Plain data with no kiln includes, so the CUDA sources
// can use it. Output sizes follow PyTorch's floor mode with dilation 1.
#pragma once

#include <cstdint>

namespace kiln {

struct Window2d {
  std::int64_t n = 0, c = 0, h = 0, w = 0;  // input (N, C, H, W)
  std::int64_t oc = 0;                      // output channels (= c for pooling)
  std::int64_t kh = 1, kw = 1;              // window
  std::int64_t sh = 1, sw = 1;              // stride
  std::int64_t ph = 0, pw = 0;              // zero padding on each side
  std::int64_t oh = 0, ow = 0;              // output (N, oc, oh, ow)
};

// (in + 2 pad - kernel) / stride + 1, rounded down; 0 or less when the padded input is
// smaller than the window (the caller turns that into an error naming the sizes).
constexpr std::int64_t window_output_size(std::int64_t in, std::int64_t kernel, std::int64_t stride,
                                          std::int64_t pad) {
  const std::int64_t span = in + 2 * pad - kernel;
  return span < 0 ? 0 : span / stride + 1;
}

}  // namespace kiln
