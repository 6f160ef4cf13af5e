// The library's words for each setting (core/setting.h), and the markers that keep a setting a
// value inside a formatted message until in_words puts it in someone's words.
#include "kiln/core/setting.h"

#include <charconv>

namespace kiln {

namespace {

// Start of text, end of text, and a value separator: control bytes no message holds, and none of
// those that other kiln code separates with (rank_agreement.cpp sends names between \x1e/\x1f).
constexpr char kOpen = '\x02', kValue = '\x01', kClose = '\x03';

std::string with_value(const std::string& name, std::string_view prefix, const std::string& value) {
  return value.empty() ? name : fmt::format("{} = {}{}", name, prefix, value);
}

}  // namespace

std::string SettingWords::name(Setting setting) const {
  switch (setting) {
    case Setting::loader_workers: return "DataLoaderOptions::num_workers";
    case Setting::pin_memory: return "DataLoaderOptions::pin_memory";
    case Setting::precision: return "TrainerOptions::precision";
    case Setting::batch_size: return "DataLoaderOptions::batch_size";
    case Setting::measure_bf16: return "a short run with it against one without";
    case Setting::measure_batch: return "a run at that batch size";
    case Setting::epochs: return "fit's epochs";
    case Setting::openmp_wait_policy:
      return "OMP_WAIT_POLICY=PASSIVE in the environment, or "
             "kiln::prefer_passive_openmp_waiting(argv) first in main()";
    case Setting::checkpoint_dir: return "TrainerOptions::checkpoint_dir";
    case Setting::keep_checkpoints: return "TrainerOptions::keep_checkpoints";
    case Setting::bucket_mb: return "TrainerOptions::bucket_mb";
    case Setting::cuda_graph: return "TrainerOptions::cuda_graph";
    case Setting::loader_tuning: return "TrainerOptions::loader_tuning";
    case Setting::log_json: return "TrainerOptions::log_json";
    case Setting::steps: return "TrainerOptions::steps";
    case Setting::eval_interval: return "TrainerOptions::eval_interval";
    case Setting::eval_iters: return "TrainerOptions::eval_iters";
    case Setting::max_steps: return "TrainerOptions::max_steps";
    case Setting::clip_grad_norm: return "TrainerOptions::clip_grad_norm";
    case Setting::gpu_device: return "TrainerOptions::device on a GPU";
    case Setting::cpu_device: return "Device::cpu()";
    case Setting::cpu_device_under_mpi:
      return "Device::cpu() (under MPI, gradients then go through MpiCommunicator)";
    case Setting::same_settings_on_every_rank: return "give every rank the same TrainerOptions";
    case Setting::nccl_communicators:
      return "make_nccl_communicators, or make_nccl_communicator under MPI";
    case Setting::communicator_timeout: return "CommunicatorOptions::timeout_s";
    case Setting::resume: return "Trainer::resume()";
    case Setting::learning_rate: return "the optimizer's learning rate";
    case Setting::tensorboard: return "TensorBoardLogger's";
    case Setting::tensorboard_histograms: return "TensorBoardLoggerOptions::histogram_every";
    case Setting::run_report: return "RunReport's";
    case Setting::mse_loss: return "MSELoss";
    case Setting::cross_entropy_loss: return "CrossEntropyLoss";
    case Setting::generate_tokens: return "GenerateOptions::tokens";
    case Setting::generate_temperature: return "GenerateOptions::temperature";
    case Setting::generate_top_k: return "GenerateOptions::top_k";
    case Setting::model_structure: return "the model's structure";
    case Setting::run_batch_size: return "TrainerOptions::run.batch_size";
    case Setting::run_beta1: return "TrainerOptions::run.beta1";
    case Setting::run_beta2: return "TrainerOptions::run.beta2";
    case Setting::run_data: return "TrainerOptions::run.data";
    case Setting::run_eps: return "TrainerOptions::run.eps";
    case Setting::run_loss: return "TrainerOptions::run.loss";
    case Setting::run_lr: return "TrainerOptions::run.lr";
    case Setting::run_model: return "TrainerOptions::run.model";
    case Setting::run_momentum: return "TrainerOptions::run.momentum";
    case Setting::run_nesterov: return "TrainerOptions::run.nesterov";
    case Setting::run_shuffle: return "TrainerOptions::run.shuffle";
    case Setting::run_optimizer: return "TrainerOptions::run.optimizer";
    case Setting::run_samples: return "TrainerOptions::run.samples";
    case Setting::run_schedule: return "TrainerOptions::run.schedule";
    case Setting::run_seed: return "TrainerOptions::run.seed";
    case Setting::run_test_data: return "TrainerOptions::run.test_data";
    case Setting::run_test_share: return "TrainerOptions::run.test_share";
    case Setting::run_weight_decay: return "TrainerOptions::run.weight_decay";
    case Setting::run_weight_decay_groups: return "TrainerOptions::run.weight_decay_groups";
    case Setting::data_spec: return "data spec";
    case Setting::context: return "DataSpecOptions::context";
    case Setting::context_from_model:
      return "DataSpecOptions::context (a model with a context gives its own)";
    case Setting::samples: return "DataSpecOptions::samples";
    case Setting::test_share: return "DataSpecOptions::test_share";
    case Setting::test_data: return "DataSpecOptions::test_data";
    case Setting::optimizer_spec: return "optimizer";
    case Setting::momentum: return "OptimizerSettings::momentum";
    case Setting::nesterov: return "OptimizerSettings::nesterov";
    case Setting::beta1: return "OptimizerSettings::beta1";
    case Setting::beta2: return "OptimizerSettings::beta2";
    case Setting::eps: return "OptimizerSettings::eps";
    case Setting::weight_decay: return "OptimizerSettings::weight_decay";
  }
  return "?";
}

std::string SettingWords::phrase(const SettingValue& a) const {
  switch (a.setting) {
    case Setting::precision: return with_value(name(a.setting), "MatmulPrecision::", a.value);
    case Setting::epochs: return with_value("the epochs of Trainer::fit", "", a.value);
    default: return with_value(name(a.setting), "", a.value);
  }
}

std::string SettingWords::usage(Setting setting) const { return name(setting); }

std::string SettingWords::join(const std::vector<std::string>& phrases) const {
  return fmt::format("{}", fmt::join(phrases, " and "));
}

const SettingWords& api_setting_words() {
  static const SettingWords words;
  return words;
}

std::string in_words(std::string_view text, const SettingWords& words) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t open = text.find(kOpen, at);
    const std::size_t close = open == std::string_view::npos ? open : text.find(kClose, open);
    if (close == std::string_view::npos) {
      out.append(text.substr(at));
      break;
    }
    out.append(text.substr(at, open - at));
    const std::string_view marker =
        text.substr(open + 1, close - open - 1);  // kind, number[, value]
    const std::size_t value_at = marker.find(kValue);
    const std::string_view number =
        marker.substr(1, value_at == std::string_view::npos ? value_at : value_at - 1);
    int id = -1;
    std::from_chars(number.data(), number.data() + number.size(), id);
    if (marker.empty() || id < 0 || id >= kSettingCount) {  // not a marker of ours: kept as it is
      out.append(text.substr(open, close + 1 - open));
    } else {
      const auto setting = static_cast<Setting>(id);
      switch (marker[0]) {
        case 'v':
          out += words.phrase({setting, value_at == std::string_view::npos
                                            ? std::string()
                                            : std::string(marker.substr(value_at + 1))});
          break;
        case 'u': out += words.usage(setting); break;
        default: out += words.name(setting); break;
      }
    }
    at = close + 1;
  }
  return out;
}

namespace detail {

std::string setting_marker(char kind, Setting setting, std::string_view value) {
  std::string marker = fmt::format("{}{}{}", kOpen, kind, static_cast<int>(setting));
  if (!value.empty()) (marker += kValue) += value;
  return marker += kClose;
}

}  // namespace detail

}  // namespace kiln
