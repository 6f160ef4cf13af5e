// Shared by the optimizer suites: a small fixed problem (parameters of odd sizes whose gradients
// at each step are fixed seeded values, a quadratic loss with fixed gradients) and helpers that
// move values between kiln tensors and double-precision reference vectors.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kiln/core/ops.h"
#include "kiln/layers/module.h"
#include "tests/support/tensor_testing.h"

namespace kiln::testing {

// Parameters "p0", "p1", ... of the given sizes with seeded values in [-1, 1), zero gradients.
class FixedProblem {
 public:
  explicit FixedProblem(std::vector<std::int64_t> sizes, std::uint32_t seed = 7,
                        Device device = Device::cpu())
      : sizes_(std::move(sizes)), seed_(seed), device_(device) {
    for (std::size_t i = 0; i < sizes_.size(); ++i) {
      const Shape shape{sizes_[i]};
      params_.push_back(std::make_unique<Parameter>(Parameter{
          "p" + std::to_string(i),
          random_tensor(shape, seed + 100 + static_cast<std::uint32_t>(i), -1.0f, 1.0f, device),
          Tensor::zeros(shape, DType::f32, device),
          {}}));
    }
  }

  std::vector<Parameter*> parameters() {
    std::vector<Parameter*> out;
    for (auto& p : params_) out.push_back(p.get());
    return out;
  }
  std::size_t size() const { return sizes_.size(); }

  // The gradient of parameter i at step `step`: seeded, independent of the parameter values.
  std::vector<float> gradient(std::size_t i, std::int64_t step) const {
    return random_values(sizes_[i], seed_ + 1000 * static_cast<std::uint32_t>(step + 1) +
                                        static_cast<std::uint32_t>(i));
  }
  // Writes step `step`'s gradients into every parameter's grad (on its device).
  void set_gradients(std::int64_t step) {
    for (std::size_t i = 0; i < params_.size(); ++i) {
      Tensor g = Tensor::from_vector(gradient(i, step), Shape{sizes_[i]});
      copy(g, params_[i]->grad);
    }
  }
  std::vector<double> values(std::size_t i) const {
    const auto v = params_[i]->value.to_vector<float>();
    return {v.begin(), v.end()};
  }
  const Tensor& value(std::size_t i) const { return params_[i]->value; }

 private:
  std::vector<std::int64_t> sizes_;
  std::uint32_t seed_;
  Device device_;
  std::vector<std::unique_ptr<Parameter>> params_;
};

inline std::vector<float> to_float(const std::vector<double>& v) { return {v.begin(), v.end()}; }

}  // namespace kiln::testing
