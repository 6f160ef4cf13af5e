// Cases of softmax, log_softmax and the fused softmax cross-entropy (forward and backward, with and
// without label smoothing); finite differences check the cross-entropy backward. The ignore-index
// form (a sequence's masked positions) enters the same two ops with every third label ignored.
#include "kiln/core/ops.h"
#include "tests/ops/cases/harness.h"
#include "tests/support/gradient_check.h"
#include "tests/support/tensor_testing.h"

namespace kiln::ops_testing {
namespace {

const Shape kShapes[] = {Shape{1, 1},    Shape{7, 10},   Shape{33, 1000}, Shape{3, 1024},
                         Shape{5, 1025}, Shape{3, 4099}, Shape{40000, 7}, Shape{1000, 33}};

// Random labels in [0, classes) with every third one -1, the ignore index.
Tensor labels_with_ignored(std::int64_t rows, std::int64_t classes, std::uint32_t seed) {
  std::vector<std::int32_t> labels =
      testing::random_labels(rows, static_cast<std::int32_t>(classes), seed)
          .to_vector<std::int32_t>();
  for (std::size_t i = 0; i < labels.size(); i += 3) labels[i] = -1;
  return Tensor::from_vector(labels, Shape{rows});
}

OpCase softmax_case(bool log, std::string what, std::function<Tensor()> make, Tolerance tol) {
  return {log ? "log_softmax" : "softmax", "Softmax", std::move(what),
          [=](Device d) -> Outputs {
            const Tensor x = make().to(d);
            Tensor y = Tensor::empty(x.shape(), DType::f32, d);
            if (log)
              log_softmax(x, y);
            else
              softmax(x, y);
            return {{"y", y}};
          },
          tol};
}

// Row lengths on both sides of the CUDA warp-per-row / block-per-row switch (C = 1024 / 1025), 3-D
// x, huge logits, NaN/inf sentinels; the backward starts from the reference's probs on every
// backend and must overwrite ("=") its dlogits.
std::vector<OpCase> cases() {
  std::vector<OpCase> out;
  std::uint32_t seed = 1700;
  std::vector<Shape> shapes(std::begin(kShapes), std::end(kShapes));
  shapes.push_back(Shape{2, 3, 7});
  shapes.push_back(Shape{0, 7});
  for (const Shape& shape : shapes)
    for (bool log : {false, true}) {
      const std::uint32_t s = seed++;
      out.push_back(softmax_case(log, shape.str(), [=] { return input(shape, s, -8.0f, 8.0f); },
                                 {1e-4f, 1e-7f}));
    }
  const auto huge = [] {
    return Tensor::from_vector(std::vector<float>{1e30f, -1e30f, 88.0f, 1e4f, 1e4f, -1e4f},
                               Shape{2, 3});
  };
  for (bool log : {false, true}) {
    out.push_back(softmax_case(log, "huge logits", huge, {1e-5f, 0.0f}));
    out.push_back(softmax_case(log, "NaN/inf sentinels (5, 33)",
                               [] {
                                 return with_sentinels(input({5, 33}, 1750));
                               },
                               {1e-4f, 1e-7f}));
  }

  std::uint32_t ce_seed = 1800;
  for (const Shape& shape : kShapes)
    for (float eps : {0.0f, 0.1f}) {
      const std::uint32_t s = ce_seed;
      ce_seed += 2;
      const std::int64_t rows = shape[0], cols = shape[1];
      const std::string what = shape.str() + " label smoothing " + std::to_string(eps);
      const auto labels = [=] {
        return testing::random_labels(rows, static_cast<std::int32_t>(cols), s + 1);
      };
      // A one-class row has loss 0 up to rounding of lse - x; hence the small absolute floor.
      out.push_back({"softmax_cross_entropy_forward",
                     "Softmax",
                     what,
                     [=](Device d) -> Outputs {
                       const Tensor logits = input(shape, s, -5.0f, 5.0f).to(d);
                       Tensor probs = Tensor::empty(shape, DType::f32, d);
                       Tensor losses = Tensor::empty({rows}, DType::f32, d);
                       softmax_cross_entropy_forward(logits, labels().to(d), probs, losses, eps);
                       return {{"probs", probs}, {"losses", losses}};
                     },
                     {1e-4f, 1e-6f}});
      // The same float expressions on every backend: elementwise work.
      out.push_back({"softmax_cross_entropy_backward",
                     "Softmax",
                     what,
                     [=](Device d) -> Outputs {
                       Tensor probs = Tensor::empty(shape), losses = Tensor::empty({rows});
                       softmax_cross_entropy_forward(input(shape, s, -5.0f, 5.0f), labels(), probs,
                                                     losses, eps);
                       Tensor dlogits = Tensor::full(shape, 123.0f, d);  // "=": overwritten
                       softmax_cross_entropy_backward(probs.to(d), labels().to(d), dlogits,
                                                      1.0f / static_cast<float>(rows), eps);
                       return {{"dlogits", dlogits}};
                     },
                     {1e-5f, 1e-8f}});
    }
  // The ignore index: every third row's label is -1 (loss 0, counted 0, gradient 0); the
  // backward divides by the device's count of counted rows.
  std::uint32_t ignore_seed = 1900;
  for (const Shape& shape : {Shape{7, 10}, Shape{33, 1000}, Shape{5, 1025}, Shape{1000, 33}}) {
    const std::uint32_t s = ignore_seed;
    ignore_seed += 2;
    const std::int64_t rows = shape[0], cols = shape[1];
    const auto labels = [=] { return labels_with_ignored(rows, cols, s + 1); };
    out.push_back({"softmax_cross_entropy_forward",
                   "Softmax",
                   shape.str() + " ignore index -1",
                   [=](Device d) -> Outputs {
                     const Tensor logits = input(shape, s, -5.0f, 5.0f).to(d);
                     Tensor probs = Tensor::empty(shape, DType::f32, d);
                     Tensor losses = Tensor::empty({rows}, DType::f32, d);
                     Tensor counted = Tensor::empty({rows}, DType::f32, d);
                     softmax_cross_entropy_forward_ignoring(logits, labels().to(d), -1, probs,
                                                            losses, counted);
                     return {{"probs", probs}, {"losses", losses}, {"counted", counted}};
                   },
                   {1e-4f, 1e-6f}});
    out.push_back({"softmax_cross_entropy_backward",
                   "Softmax",
                   shape.str() + " ignore index -1",
                   [=](Device d) -> Outputs {
                     Tensor probs = Tensor::empty(shape), losses = Tensor::empty({rows});
                     Tensor counted = Tensor::empty({rows}), count = Tensor::empty(Shape{});
                     softmax_cross_entropy_forward_ignoring(input(shape, s, -5.0f, 5.0f), labels(),
                                                            -1, probs, losses, counted);
                     reduce(ReduceOp::sum, counted, 0, count);
                     Tensor dlogits = Tensor::full(shape, 123.0f, d);  // "=": overwritten
                     softmax_cross_entropy_backward_ignoring(probs.to(d), labels().to(d), -1,
                                                             count.to(d), dlogits, 1.0f);
                     return {{"dlogits", dlogits}};
                   },
                   {1e-5f, 1e-8f}});
  }
  return out;
}

std::vector<GradientCase> gradients() {
  std::vector<GradientCase> out;
  for (float eps : {0.0f, 0.1f})
    out.push_back(
        {"softmax_cross_entropy_backward", "(6, 9), smoothing " + std::to_string(eps), [eps] {
           Tensor logits = input({6, 9}, 1950, -3.0f, 3.0f);
           const Tensor labels = testing::random_labels(6, 9, 1951);
           Tensor probs = Tensor::empty({6, 9}), losses = Tensor::empty({6});
           const auto loss = [&] {
             softmax_cross_entropy_forward(logits, labels, probs, losses, eps);
             double sum = 0.0;
             for (float l : losses.to_vector<float>()) sum += l;
             return sum;
           };
           loss();
           Tensor dlogits = Tensor::empty({6, 9});
           softmax_cross_entropy_backward(probs, labels, dlogits, 1.0f, eps);
           return testing::gradient_matches_finite_differences(loss, logits, dlogits, "logits");
         }});
  out.push_back(
      {"softmax_cross_entropy_backward", "(6, 9), ignore index -1", [] {
         Tensor logits = input({6, 9}, 1960, -3.0f, 3.0f);
         const Tensor labels = labels_with_ignored(6, 9, 1961);
         Tensor probs = Tensor::empty({6, 9}), losses = Tensor::empty({6});
         Tensor counted = Tensor::empty({6}), count = Tensor::full(Shape{}, 1.0f);
         const auto loss = [&] {
           softmax_cross_entropy_forward_ignoring(logits, labels, -1, probs, losses, counted);
           double sum = 0.0;
           for (float l : losses.to_vector<float>()) sum += l;
           return sum;
         };
         loss();
         Tensor dlogits = Tensor::empty({6, 9});
         softmax_cross_entropy_backward_ignoring(probs, labels, -1, count, dlogits, 1.0f);
         return testing::gradient_matches_finite_differences(loss, logits, dlogits, "logits");
       }});
  return out;
}

const AddCases kCases(cases());
const AddCases kGradients(gradients());

}  // namespace
}  // namespace kiln::ops_testing
