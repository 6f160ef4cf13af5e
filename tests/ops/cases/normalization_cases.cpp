// Cases of the normalisations, batch norm and layer norm, forward and backward on every backend,
// at odd sizes with NaN/inf sentinels, "=" and "+=" checked; dgamma and dbeta are also compared
// bit for bit on the GPU: its kernel sums the CPU's terms in the CPU's order. Finite differences
// check both backwards.
#include <limits>

#include "kiln/core/ops.h"
#include "tests/ops/cases/harness.h"
#include "tests/support/gradient_check.h"

namespace kiln::ops_testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
const Shape kShapes[] = {Shape{2, 1},      Shape{7, 33},    Shape{1000, 7},   Shape{4099, 33},
                         Shape{256, 1024}, Shape{3, 5, 17}, Shape{2, 4, 1000}};

// The reference's training forward: y, save_mean, save_invstd (backward's inputs).
struct Saved {
  Tensor y, mean, invstd;
};
Saved train_on_cpu(const Tensor& x, const Tensor& gamma, const Tensor& beta) {
  const std::int64_t c = x.size(1);
  Tensor rm = Tensor::zeros({c}), rv = Tensor::full({c}, 1.0f);
  Saved s{Tensor::empty(x.shape()), Tensor::empty({c}), Tensor::empty({c})};
  batch_norm_forward_train(x, gamma, beta, rm, rv, s.y, s.mean, s.invstd, 0.1f, 1e-5f);
  return s;
}

// x: (..., C) -> y, save_mean, save_invstd; y starts as NaN ("=").
OpCase layer_norm_forward_case(const Shape& shape, std::uint32_t s, bool sentinels) {
  const std::int64_t c = shape[shape.rank() - 1], rows = shape.numel() / c;
  return {"layer_norm_forward",
          "Normalization",
          shape.str() + (sentinels ? " NaN/inf" : ""),
          [=](Device d) -> Outputs {
            Tensor x = input(shape, s, -3.0f, 5.0f);
            if (sentinels) x = with_sentinels(x);
            Tensor y = Tensor::full(shape, kNaN, d);
            Tensor mean = Tensor::empty({rows}, DType::f32, d),
                   invstd = Tensor::empty({rows}, DType::f32, d);
            layer_norm_forward(x.to(d), input({c}, s + 1, 0.5f, 1.5f).to(d),
                               input({c}, s + 2).to(d), y, mean, invstd, 1e-5f);
            return {{"y", y}, {"save_mean", mean}, {"save_invstd", invstd}};
          },
          {1e-4f, 1e-5f}};
}

// The backward from the reference's saved statistics on every backend: dx "=" over NaN, dgamma
// and dbeta "+=" from random values.
OpCase layer_norm_backward_case(const Shape& shape, std::uint32_t s) {
  const std::int64_t c = shape[shape.rank() - 1], rows = shape.numel() / c;
  OpCase out{"layer_norm_backward",
             "Normalization",
             shape.str(),
             [=](Device d) -> Outputs {
               const Tensor x = input(shape, s, -3.0f, 5.0f), gamma = input({c}, s + 1, 0.5f, 1.5f);
               Tensor y = Tensor::empty(shape), mean = Tensor::empty({rows}),
                      invstd = Tensor::empty({rows});
               layer_norm_forward(x, gamma, input({c}, s + 2), y, mean, invstd, 1e-5f);
               Tensor dx = Tensor::full(shape, kNaN, d);
               Tensor dgamma = input({c}, s + 3).to(d), dbeta = input({c}, s + 4).to(d);
               layer_norm_backward(input(shape, s + 5).to(d), x.to(d), gamma.to(d), mean.to(d),
                                   invstd.to(d), dx, dgamma, dbeta);
               return {{"dx", dx}, {"dgamma", dgamma}, {"dbeta", dbeta}};
             },
             {1e-4f, 1e-5f}};
  // oneDNN sums each row in float where the reference sums in double; rows of a few close
  // features (C = 3: invstd up to ~1e2) amplify the difference.
  out.cpu = Tolerance{1e-3f, 1e-4f};
  return out;
}

// dgamma and dbeta alone, bit for bit against the reference on a GPU (the same terms added in
// the same order, core/cuda/layer_norm.cu); oneDNN sums in float, at the backward's tolerance.
OpCase layer_norm_parameter_gradients_case(const Shape& shape, std::uint32_t s) {
  OpCase out = layer_norm_backward_case(shape, s);
  out.name += " dgamma, dbeta bit for bit";
  const auto full = out.run;
  out.run = [full](Device d) -> Outputs {
    Outputs all = full(d);
    return {all[1], all[2]};
  };
  out.fp32 = kExact;
  return out;
}

// Batch norm for (N, C) and (N, C, L) at odd sizes: the training forward (output, saved
// statistics, running statistics updated from random values), the evaluation forward, and the
// backward from the reference's saved statistics on every backend (dx overwritten over NaN,
// dgamma/dbeta accumulated). Layer norm over the last axis at odd widths (one row, rows of 1
// feature, 3-D x, an empty batch, NaN/inf sentinels, a size past L2), its backward likewise, and
// a GPT-sized one (16k tokens of 384 features).
std::vector<OpCase> cases() {
  std::vector<OpCase> out;
  std::uint32_t seed = 3500;
  for (const Shape& shape : kShapes) {
    const std::uint32_t s = seed;
    seed += 10;
    const std::int64_t c = shape[1];
    const auto x = [=] { return input(shape, s, -3.0f, 5.0f); };
    const auto gamma = [=] { return input({c}, s + 1, 0.5f, 1.5f); };
    const auto beta = [=] { return input({c}, s + 2); };
    out.push_back({"batch_norm_forward_train",
                   "Normalization",
                   shape.str(),
                   [=](Device d) -> Outputs {
                     Tensor rm = input({c}, s + 3).to(d), rv = input({c}, s + 4, 0.5f, 2.0f).to(d);
                     Tensor y = Tensor::full(shape, kNaN, d);
                     Tensor mean = Tensor::empty({c}, DType::f32, d),
                            invstd = Tensor::empty({c}, DType::f32, d);
                     batch_norm_forward_train(x().to(d), gamma().to(d), beta().to(d), rm, rv, y,
                                              mean, invstd, 0.1f, 1e-5f);
                     return {{"y", y},
                             {"save_mean", mean},
                             {"save_invstd", invstd},
                             {"running_mean", rm},
                             {"running_var", rv}};
                   },
                   {1e-4f, 1e-5f}});
    out.push_back(
        {"batch_norm_forward_eval",
         "Normalization",
         shape.str(),
         [=](Device d) -> Outputs {
           const Tensor rm = input({c}, s + 3).to(d), rv = input({c}, s + 4, 0.1f, 3.0f).to(d);
           Tensor y = Tensor::empty(shape, DType::f32, d);
           batch_norm_forward_eval(x().to(d), gamma().to(d), beta().to(d), rm, rv, y, 1e-3f);
           return {{"y", y}};
         },
         {1e-5f, 1e-6f}});
    out.push_back({"batch_norm_backward",
                   "Normalization",
                   shape.str(),
                   [=](Device d) -> Outputs {
                     const Saved saved = train_on_cpu(x(), gamma(), beta());
                     Tensor dx = Tensor::full(shape, kNaN, d);
                     Tensor dgamma = input({c}, s + 5).to(d), dbeta = input({c}, s + 6).to(d);
                     batch_norm_backward(input(shape, s + 7).to(d), x().to(d), gamma().to(d),
                                         saved.mean.to(d), saved.invstd.to(d), dx, dgamma, dbeta);
                     return {{"dx", dx}, {"dgamma", dgamma}, {"dbeta", dbeta}};
                   },
                   {1e-4f, 1e-5f}});
  }
  std::uint32_t ln_seed = 3900;
  for (const Shape& shape :
       {Shape{1, 1}, Shape{7, 1}, Shape{1, 33}, Shape{7, 33}, Shape{1000, 7}, Shape{33, 1000},
        Shape{3, 5, 17}, Shape{0, 9}, Shape{40000, 3}, Shape{4, 4099}}) {
    const std::uint32_t s = ln_seed;
    ln_seed += 6;
    out.push_back(layer_norm_forward_case(shape, s, false));
    out.push_back(layer_norm_backward_case(shape, s));
  }
  // Many row tiles of one column strip, many strips, partial tiles and strips.
  std::uint32_t exact_seed = 3970;
  for (const Shape& shape : {Shape{40000, 3}, Shape{33, 1000}, Shape{129, 17}, Shape{3, 5, 17}}) {
    out.push_back(layer_norm_parameter_gradients_case(shape, exact_seed));
    exact_seed += 6;
  }
  // GPT-sized: 16k tokens (a batch of 32 windows of 512) of 384 features, past the L2 cache.
  for (OpCase gpt : {layer_norm_backward_case(Shape{32, 512, 384}, 3985),
                     layer_norm_parameter_gradients_case(Shape{32, 512, 384}, 3985)}) {
    gpt.large = true;
    out.push_back(std::move(gpt));
  }
  out.push_back(layer_norm_forward_case(Shape{5, 33}, 3990, true));
  OpCase big = layer_norm_forward_case(Shape{1024, 4096}, 3995, false);
  big.large = true;
  out.push_back(std::move(big));
  return out;
}

std::vector<GradientCase> gradients() {
  return {{"batch_norm_backward", "(6, 3, 4)",
           [] {
             Tensor x = input({6, 3, 4}, 3750, -2.0f, 3.0f), gamma = input({3}, 3751, 0.5f, 1.5f),
                    beta = input({3}, 3752);
             const Tensor probe = input({6, 3, 4}, 3753);
             const Saved saved = train_on_cpu(x, gamma, beta);
             Tensor dx = Tensor::empty({6, 3, 4}), dgamma = Tensor::zeros({3}),
                    dbeta = Tensor::zeros({3});
             batch_norm_backward(probe, x, gamma, saved.mean, saved.invstd, dx, dgamma, dbeta);
             const auto loss = [&] { return weighted_sum(train_on_cpu(x, gamma, beta).y, probe); };
             ::testing::AssertionResult r =
                 testing::gradient_matches_finite_differences(loss, x, dx, "x");
             if (!r) return r;
             r = testing::gradient_matches_finite_differences(loss, gamma, dgamma, "gamma");
             if (!r) return r;
             return testing::gradient_matches_finite_differences(loss, beta, dbeta, "beta");
           }},
          {"layer_norm_backward", "(4, 3, 6)", [] {
             Tensor x = input({4, 3, 6}, 3760, -2.0f, 3.0f), gamma = input({6}, 3761, 0.5f, 1.5f),
                    beta = input({6}, 3762);
             const Tensor probe = input({4, 3, 6}, 3763);
             Tensor y = Tensor::empty({4, 3, 6}), mean = Tensor::empty({12}),
                    invstd = Tensor::empty({12});
             const auto forward = [&] {
               layer_norm_forward(x, gamma, beta, y, mean, invstd, 1e-5f);
               return weighted_sum(y, probe);
             };
             forward();
             Tensor dx = Tensor::empty({4, 3, 6}), dgamma = Tensor::zeros({6}),
                    dbeta = Tensor::zeros({6});
             layer_norm_backward(probe, x, gamma, mean, invstd, dx, dgamma, dbeta);
             ::testing::AssertionResult r =
                 testing::gradient_matches_finite_differences(forward, x, dx, "x");
             if (!r) return r;
             r = testing::gradient_matches_finite_differences(forward, gamma, dgamma, "gamma");
             if (!r) return r;
             return testing::gradient_matches_finite_differences(forward, beta, dbeta, "beta");
           }}};
}

const AddCases kCases(cases());
const AddCases kGradients(gradients());

}  // namespace
}  // namespace kiln::ops_testing
