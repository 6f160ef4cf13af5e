// Cases of the multi-tensor optimizer ops: SGD in its forms, Adam and AdamW, per-step scalar rows
// with their cursor, the global sum of squares, clipping by the global norm and clamping with NaN
// kept, over lists at odd sizes and of many tensors.
#include <cmath>
#include <limits>

#include "kiln/core/ops.h"
#include "tests/ops/cases/harness.h"

namespace kiln::ops_testing {
namespace {

const std::vector<std::int64_t> kSizes = {1, 7, 33, 1000, 4099, 70000};

std::vector<std::int64_t> many_sizes() {  // 150 tensors: three launches of up to 64
  const std::int64_t cycle[] = {1, 7, 33, 1000, 4099, 0};
  std::vector<std::int64_t> sizes;
  for (int i = 0; i < 150; ++i) sizes.push_back(cycle[i % 6]);
  return sizes;
}

// A list of tensors of `sizes` on `device`, from seeds base, base + 1, ...
struct List {
  std::vector<Tensor> tensors;
  std::vector<Tensor*> pointers;
  List(const std::vector<std::int64_t>& sizes, std::uint32_t base, Device d, float low = -1.0f,
       float high = 1.0f) {
    for (std::size_t i = 0; i < sizes.size(); ++i)
      tensors.push_back(input({sizes[i]}, base + static_cast<std::uint32_t>(i), low, high).to(d));
    for (Tensor& t : tensors) pointers.push_back(&t);
  }
  std::vector<const Tensor*> constant() const { return {pointers.begin(), pointers.end()}; }
  void add_to(Outputs& out, const std::string& name) const {
    for (std::size_t i = 0; i < tensors.size(); ++i)
      out.push_back({name + "[" + std::to_string(i) + "]", tensors[i]});
  }
};

// Values near zero after an update cancel; 1e-6 absolute covers that at magnitudes around 1.
constexpr Tolerance kUpdate{1e-5f, 1e-6f};

OpCase sgd_case(std::string what, std::vector<std::int64_t> sizes, SgdConfig config, int steps,
                bool per_step = false) {
  return {
      "sgd_step", "Optimizer", std::move(what),
      [=](Device d) -> Outputs {
        List params(sizes, 4000, d), buffers(sizes, 5000, d);
        const bool momentum = config.momentum != 0.0f;
        Tensor rows =
            Tensor::from_vector(std::vector<float>{0.05f, 0.02f, 0.01f, 0.005f}, Shape{4, 1}).to(d);
        Tensor cursor = Tensor::from_vector(std::vector<std::int32_t>{0}, Shape{1}).to(d);
        const StepScalarRows scalars{&rows, &cursor};
        for (int step = 0; step < steps; ++step) {
          const List grads(sizes, 6000 + 100 * static_cast<std::uint32_t>(step), d);
          sgd_step(
              params.pointers, grads.constant(),
              momentum ? std::span<Tensor* const>(buffers.pointers) : std::span<Tensor* const>(),
              config, step == 0, per_step ? &scalars : nullptr);
        }
        Outputs out;
        params.add_to(out, "param");
        if (momentum) buffers.add_to(out, "momentum");
        if (per_step) out.push_back({"cursor", cursor});
        return out;
      },
      kUpdate};
}

// decayed: empty, or a weight-decay flag per tensor (two parameter groups in one launch).
OpCase adam_case(std::string what, std::vector<std::int64_t> sizes, AdamConfig config, int steps,
                 bool per_step = false, std::vector<std::uint8_t> decayed = {}) {
  return {"adam_step", "Optimizer", std::move(what),
          [=](Device d) -> Outputs {
            List params(sizes, 4100, d);
            List m(sizes, 0, d), v(sizes, 0, d);
            for (Tensor& t : m.tensors) fill(t, 0.0f);
            for (Tensor& t : v.tensors) fill(t, 0.0f);
            // Rows of AdamScalars for steps 1..4, as the optimizer prepares them.
            std::vector<float> values(4 * 5);
            for (int s = 0; s < 4; ++s)
              adam_scalars_to_row(adam_scalars(config, s + 1), &values[s * 5]);
            Tensor rows = Tensor::from_vector(values, Shape{4, 5}).to(d);
            Tensor cursor = Tensor::from_vector(std::vector<std::int32_t>{0}, Shape{1}).to(d);
            const StepScalarRows scalars{&rows, &cursor};
            for (int step = 0; step < steps; ++step) {
              const List grads(sizes, 6100 + 100 * static_cast<std::uint32_t>(step), d);
              adam_step(params.pointers, grads.constant(), m.pointers, v.pointers, config, step + 1,
                        per_step ? &scalars : nullptr, {}, decayed);
            }
            Outputs out;
            params.add_to(out, "param");
            m.add_to(out, "exp_avg");
            v.add_to(out, "exp_avg_sq");
            if (per_step) out.push_back({"cursor", cursor});
            return out;
          },
          kUpdate};
}

// Lists at odd sizes (1 .. 70000: one and many chunks per tensor) and of 150 tensors (several
// launches of 64, empty tensors among them): SGD plain, with momentum, Nesterov, dampening and
// weight decay, Adam and AdamW over several steps (parameters and state compared), AdamW with two
// weight-decay groups, per-step scalar rows with their cursor, the global sum of squares (and of no
// elements), clipping by the global norm (clipped and left alone, with and without the norm written
// back) and clamping with NaN kept.
std::vector<OpCase> cases() {
  std::vector<OpCase> out;
  out.push_back(sgd_case("plain, weight decay", kSizes, {.lr = 0.01f, .weight_decay = 0.01f}, 5));
  out.push_back(
      sgd_case("momentum", kSizes, {.lr = 0.01f, .momentum = 0.9f, .weight_decay = 0.01f}, 5));
  out.push_back(sgd_case("nesterov", kSizes,
                         {.lr = 0.01f, .momentum = 0.9f, .weight_decay = 0.01f, .nesterov = true},
                         5));
  out.push_back(sgd_case("dampening", kSizes,
                         {.lr = 0.05f, .momentum = 0.9f, .dampening = 0.3f, .weight_decay = 0.05f},
                         4));
  out.push_back(
      sgd_case("momentum, 150 tensors", many_sizes(), {.lr = 0.01f, .momentum = 0.9f}, 3));
  out.push_back(
      sgd_case("momentum, per-step rows", kSizes, {.lr = 0.01f, .momentum = 0.9f}, 3, true));
  out.push_back(sgd_case("no tensors", {}, {.lr = 0.01f}, 1));
  out.push_back(adam_case("adam, weight decay", kSizes, {.lr = 0.01f, .weight_decay = 0.01f}, 5));
  out.push_back(
      adam_case("adamw", kSizes, {.lr = 0.01f, .weight_decay = 0.01f, .decoupled = true}, 5));
  out.push_back(adam_case("adamw, 150 tensors", many_sizes(),
                          {.lr = 0.01f, .weight_decay = 0.01f, .decoupled = true}, 3));
  out.push_back(adam_case("adam, per-step rows", kSizes, {.lr = 0.01f}, 3, true));
  // Groups: every other tensor undecayed; across launches of 64 and with the per-step rows.
  std::vector<std::uint8_t> alternate(many_sizes().size());
  for (std::size_t i = 0; i < alternate.size(); ++i) alternate[i] = i % 2;
  out.push_back(adam_case("adamw, two groups, 150 tensors", many_sizes(),
                          {.lr = 0.05f, .weight_decay = 0.1f, .decoupled = true}, 3, false,
                          alternate));
  out.push_back(adam_case("adamw, two groups, per-step rows", kSizes,
                          {.lr = 0.05f, .weight_decay = 0.1f, .decoupled = true}, 3, true,
                          {1, 0, 0, 1, 0, 1}));

  for (const auto& [what, sizes] :
       {std::pair{std::string("odd sizes"), kSizes},
        std::pair{std::string("150 tensors"), many_sizes()},
        std::pair{std::string("one of 2^20 + 3"), std::vector<std::int64_t>{(1 << 20) + 3}},
        std::pair{std::string("no elements"), std::vector<std::int64_t>{0}}}) {
    // Summed in double in an order fixed by the sizes: close to the reference, and the same bits
    // on every run (the harness runs each case twice).
    out.push_back({"multi_sum_squares",
                   "Optimizer",
                   what,
                   [sizes](Device d) -> Outputs {
                     const List xs(sizes, 4200, d);
                     Tensor sum = Tensor::full({1}, 3.0f, d);  // "=": overwritten
                     multi_sum_squares(xs.constant(), sum);
                     return {{"out", sum}};
                   },
                   {1e-5f, 0.0f}});
    for (float max_norm : {0.3f, 1e30f})  // clipped, and left alone
      for (bool write_norm : {true, false})
        out.push_back(
            {"clip_by_global_norm",
             "Optimizer",
             what + " max_norm " + std::to_string(max_norm) + (write_norm ? " norm out" : ""),
             [=](Device d) -> Outputs {
               List xs(sizes, 4300, d);
               Tensor norm_sq = Tensor::empty({1}, DType::f32, d);
               multi_sum_squares(xs.constant(), norm_sq);
               Tensor norm = Tensor::empty({1}, DType::f32, d);
               clip_by_global_norm(xs.pointers, norm_sq, max_norm, write_norm ? &norm : nullptr);
               Outputs o;
               xs.add_to(o, "x");
               if (write_norm) o.push_back({"norm", norm});
               return o;
             },
             {1e-5f, 1e-7f}});
    out.push_back({"clamp_", "Optimizer", what + " to [-0.01, 0.01], NaN kept",
                   [sizes](Device d) -> Outputs {
                     List xs(sizes, 4400, d);
                     for (Tensor& t : xs.tensors) {
                       Tensor host_t = with_sentinels(host(t));
                       t = host_t.to(d);
                     }
                     clamp_(xs.pointers, -0.01f, 0.01f);
                     Outputs o;
                     xs.add_to(o, "x");
                     return o;
                   },
                   kExact});
  }
  return out;
}

const AddCases kCases(cases());

}  // namespace
}  // namespace kiln::ops_testing
