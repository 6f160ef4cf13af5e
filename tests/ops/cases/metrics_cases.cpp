// Cases of count_correct (it had no CPU-vs-GPU comparison before the harness): odd (N, C),
// labels hitting and missing, ties (the first maximum counts), NaN rows, and "+=" on a count
// that starts non-zero, called twice; int32 counts must match exactly.
#include <cmath>

#include "kiln/core/ops.h"
#include "tests/ops/cases/harness.h"
#include "tests/support/tensor_testing.h"

namespace kiln::ops_testing {
namespace {

const Shape kShapes[] = {Shape{1, 1},    Shape{7, 10},    Shape{33, 1000}, Shape{1000, 33},
                         Shape{5, 1025}, Shape{40000, 7}, Shape{0, 4}};

OpCase count_case(std::string what, std::function<Tensor()> logits, std::int64_t rows,
                  std::int32_t classes, std::uint32_t seed) {
  return {"count_correct", "Metrics", std::move(what),
          [=](Device d) -> Outputs {
            // Labels equal to the reference's argmax on about half the rows: hits and misses.
            const Tensor x = logits();
            Tensor best = Tensor::empty({rows}, DType::i32);
            argmax(x, 1, best);
            std::vector<std::int32_t> labels = best.to_vector<std::int32_t>();
            const std::vector<std::int32_t> other =
                testing::random_labels(rows, classes, seed).to_vector<std::int32_t>();
            for (std::size_t i = 1; i < labels.size(); i += 2) labels[i] = other[i];
            const Tensor labels_d = Tensor::from_vector(labels, Shape{rows}).to(d);
            Tensor correct = Tensor::from_vector(std::vector<std::int32_t>{5}, Shape{1}).to(d);
            const Tensor x_d = x.to(d);
            count_correct(x_d, labels_d, correct);
            count_correct(x_d, labels_d, correct);
            return {{"correct", correct}};
          },
          kExact};
}

std::vector<OpCase> cases() {
  std::vector<OpCase> out;
  std::uint32_t seed = 2100;
  for (const Shape& shape : kShapes) {
    const std::uint32_t s = seed;
    seed += 2;
    out.push_back(count_case(
        shape.str(), [=] { return input(shape, s); }, shape[0], static_cast<std::int32_t>(shape[1]),
        s + 1));
  }
  out.push_back(count_case(
      "ties (300, 17)",
      [] {
        std::vector<float> v = testing::random_values(300 * 17, 2150, 0.0f, 3.0f);
        for (float& x : v) x = std::floor(x);
        return Tensor::from_vector(v, Shape{300, 17});
      },
      300, 17, 2151));
  out.push_back(count_case(
      "NaN/inf sentinels (40, 9)",
      [] {
        return with_sentinels(input({40, 9}, 2160));
      },
      40, 9, 2161));
  return out;
}

const AddCases kCases(cases());

}  // namespace
}  // namespace kiln::ops_testing
