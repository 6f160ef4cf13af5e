// The settings the library's messages and advice name, as values rather than words: a message is
// written with Setting::keep_checkpoints in it ("{} must be at least 1, found {}"), and whoever
// prints it chooses the words (SettingWords): the library names its API
// ("TrainerOptions::keep_checkpoints must be at least 1"), an app its flags ("--keep-checkpoints").
// No sentence is rewritten: each setting is put in words once per vocabulary.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

namespace kiln {

// Each setting with its name in the library's API (api_setting_words()).
enum class Setting : unsigned char {
  loader_workers,               // DataLoaderOptions::num_workers
  pin_memory,                   // DataLoaderOptions::pin_memory
  precision,                    // TrainerOptions::precision (value: "bf16")
  batch_size,                   // DataLoaderOptions::batch_size (value empty: "a larger one")
  measure_bf16,                 // how to measure what bf16 gives on this CPU
  measure_batch,                // how to measure the largest batch that fits
  epochs,                       // the epochs fit() trains in all
  openmp_wait_policy,           // how OpenMP's threads wait: passively (core/openmp_wait_policy.h)
  checkpoint_dir,               // TrainerOptions::checkpoint_dir
  keep_checkpoints,             // TrainerOptions::keep_checkpoints
  bucket_mb,                    // TrainerOptions::bucket_mb
  cuda_graph,                   // TrainerOptions::cuda_graph
  loader_tuning,                // TrainerOptions::loader_tuning
  log_json,                     // TrainerOptions::log_json
  steps,                        // TrainerOptions::steps
  eval_interval,                // TrainerOptions::eval_interval
  eval_iters,                   // TrainerOptions::eval_iters
  max_steps,                    // TrainerOptions::max_steps
  clip_grad_norm,               // TrainerOptions::clip_grad_norm
  gpu_device,                   // TrainerOptions::device on a GPU
  cpu_device,                   // Device::cpu()
  cpu_device_under_mpi,         // Device::cpu(), and how gradients go between processes then
  same_settings_on_every_rank,  // how every rank of a job is given the same settings
  nccl_communicators,           // how NCCL communicators are made
  communicator_timeout,         // CommunicatorOptions::timeout_s
  resume,                       // Trainer::resume()
  learning_rate,                // the optimizer's learning rate
  tensorboard,                  // TensorBoardLogger (its folder)
  tensorboard_histograms,       // TensorBoardLoggerOptions::histogram_every
  run_report,                   // RunReport (its folder)
  mse_loss,                     // MSELoss, the loss
  cross_entropy_loss,           // CrossEntropyLoss, the loss
  generate_tokens,              // GenerateOptions::tokens
  generate_temperature,         // GenerateOptions::temperature
  generate_top_k,               // GenerateOptions::top_k
  model_structure,              // the model's structure (its parameters' names and shapes)
  run_batch_size,               // TrainerOptions::run.batch_size, and each field of run below
  run_beta1,
  run_beta2,
  run_data,
  run_eps,
  run_loss,
  run_lr,
  run_model,
  run_momentum,
  run_nesterov,
  run_shuffle,
  run_optimizer,
  run_samples,
  run_schedule,
  run_seed,
  run_test_data,
  run_test_share,
  run_weight_decay,
  run_weight_decay_groups,
  data_spec,           // a data spec ("data spec csv:...")
  context,             // DataSpecOptions::context
  context_from_model,  // DataSpecOptions::context, and where a model gives its own
  samples,             // DataSpecOptions::samples
  test_share,          // DataSpecOptions::test_share
  test_data,           // DataSpecOptions::test_data
  optimizer_spec,      // an optimizer spec's name ("not optimizer sgd")
  momentum,            // OptimizerSettings::momentum, and each field below
  nesterov,
  beta1,
  beta2,
  eps,
  weight_decay,
};
inline constexpr int kSettingCount = static_cast<int>(Setting::weight_decay) + 1;

// A setting with a value: advice ("DataLoaderOptions::num_workers = 8", "--workers 8") or a
// value a message names ("TrainerOptions::precision = MatmulPrecision::tf32", "--precision tf32").
struct SettingValue {
  Setting setting;
  std::string value;
};
// A setting as a message tells how to give it: "TrainerOptions::checkpoint_dir", "--checkpoint
// DIR".
struct SettingUsage {
  Setting setting;
};

// How settings are put in words. The base class gives the library's own words: the fields and
// values of its API; an app overrides it with its flags.
class SettingWords {
 public:
  virtual ~SettingWords() = default;
  virtual std::string name(Setting setting) const;  // "TrainerOptions::keep_checkpoints"
  virtual std::string phrase(
      const SettingValue& value) const;              // "DataLoaderOptions::num_workers = 8"
  virtual std::string usage(Setting setting) const;  // name(setting)
  virtual std::string join(const std::vector<std::string>& phrases) const;  // "a and b"
};
// The library's own words: fields and values of its API.
const SettingWords& api_setting_words();

// `text` with each setting that fmt formatted into it (below) put in `words`. A message keeps its
// settings as values from fmt::format to the one who prints it (kiln::Error carries them so).
std::string in_words(std::string_view text, const SettingWords& words);

namespace detail {
// A setting in a formatted text: control bytes around its kind and number, which in_words
// replaces; no printable text contains them.
std::string setting_marker(char kind, Setting setting, std::string_view value = {});
}  // namespace detail

}  // namespace kiln

template <> struct fmt::formatter<kiln::Setting> : fmt::formatter<std::string_view> {
  auto format(kiln::Setting s, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(kiln::detail::setting_marker('n', s), ctx);
  }
};
template <> struct fmt::formatter<kiln::SettingValue> : fmt::formatter<std::string_view> {
  auto format(const kiln::SettingValue& s, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(
        kiln::detail::setting_marker('v', s.setting, s.value), ctx);
  }
};
template <> struct fmt::formatter<kiln::SettingUsage> : fmt::formatter<std::string_view> {
  auto format(const kiln::SettingUsage& s, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(kiln::detail::setting_marker('u', s.setting),
                                                    ctx);
  }
};
