// train's word for each setting the library names, and the advice and messages in those words.
#include "apps/train/flag_words.h"

#include <fmt/format.h>

#include "kiln/core/error.h"
#include "kiln/core/memory.h"
#include "kiln/distributed/rank_agreement.h"

namespace kiln {

// Every case returns a word of train's: a setting added to the library without one here is
// caught by the compiler (-Wswitch) and by tests/apps/flag_words_test.cpp.
std::string TrainFlagWords::name(Setting setting) const {
  switch (setting) {
    case Setting::loader_workers: return "--workers";
    case Setting::pin_memory: return "--pin-memory";
    case Setting::precision: return "--precision";
    case Setting::batch_size: return "--batch-size";
    case Setting::measure_bf16: return "bench --device=cpu --precision bf16";
    case Setting::measure_batch: return "--find-batch-size";
    case Setting::epochs: return "--epochs";
    case Setting::openmp_wait_policy:
      return "OMP_WAIT_POLICY=PASSIVE (train's own default: unset it)";
    case Setting::checkpoint_dir: return "--checkpoint";
    case Setting::keep_checkpoints: return "--keep-checkpoints";
    case Setting::bucket_mb: return "--bucket-mb";
    case Setting::cuda_graph: return "--cuda-graph";
    case Setting::loader_tuning: return "--workers auto";
    case Setting::log_json: return "--log-json";
    case Setting::steps: return "--steps";
    case Setting::eval_interval: return "--eval-interval";
    case Setting::eval_iters: return "--eval-iters";
    case Setting::max_steps:
      return "the step limit of --find-batch-size's and --tune-loader's trial runs";
    case Setting::clip_grad_norm: return "--clip-grad-norm";
    case Setting::gpu_device: return "--device=gpu";
    case Setting::cpu_device: return "--device=cpu";
    case Setting::cpu_device_under_mpi:
      return "--device=cpu (under mpirun, gradients then go through MPI)";
    case Setting::same_settings_on_every_rank: return "start every rank with the same command line";
    case Setting::nccl_communicators: return "--gpus, or --device=gpu under mpirun";
    case Setting::communicator_timeout: return "--dist-timeout";
    case Setting::resume: return "--resume";
    case Setting::learning_rate: return "--lr";
    case Setting::tensorboard: return "the --tensorboard";
    case Setting::tensorboard_histograms: return "--tensorboard-histograms";
    case Setting::run_report: return "the --report";
    case Setting::mse_loss: return "--loss mse";
    case Setting::cross_entropy_loss: return "--loss cross-entropy";
    case Setting::generate_tokens: return "kiln-generate --tokens";  // not train's: kiln-generate's
    case Setting::generate_temperature: return "kiln-generate --temperature";
    case Setting::generate_top_k: return "kiln-generate --top-k";
    case Setting::model_structure: return "the model's structure";
    case Setting::run_batch_size: return "--batch-size";
    case Setting::run_beta1: return "--beta1";
    case Setting::run_beta2: return "--beta2";
    case Setting::run_data: return "--data";
    case Setting::run_eps: return "--eps";
    case Setting::run_loss: return "--loss";
    case Setting::run_lr: return "--lr";
    case Setting::run_model: return "--model";
    case Setting::run_momentum: return "--momentum";
    case Setting::run_nesterov: return "--nesterov";
    case Setting::run_shuffle: return "shuffling (--no-shuffle)";
    case Setting::run_optimizer: return "--optimizer";
    case Setting::run_samples: return "--samples";
    case Setting::run_schedule: return "--schedule";
    case Setting::run_seed: return "--seed";
    case Setting::run_test_data: return "--test-data";
    case Setting::run_test_share: return "--test-share";
    case Setting::run_weight_decay: return "--weight-decay";
    case Setting::run_weight_decay_groups:
      return "the weight-decay groups (--no-weight-decay-groups)";
    case Setting::data_spec: return "--data";
    case Setting::context: return "the model's context";
    case Setting::context_from_model:
      return "the model's context (a gpt:L-H-W-C model gives its own)";
    case Setting::samples: return "--samples";
    case Setting::test_share: return "--test-share";
    case Setting::test_data: return "--test-data";
    case Setting::optimizer_spec: return "--optimizer";
    case Setting::momentum: return "--momentum";
    case Setting::nesterov: return "--nesterov";
    case Setting::beta1: return "--beta1";
    case Setting::beta2: return "--beta2";
    case Setting::eps: return "--eps";
    case Setting::weight_decay: return "--weight-decay";
  }
  return "";
}

std::string TrainFlagWords::phrase(const SettingValue& a) const {
  // A switch flag's advised value is the flag itself; --epochs is advised without its number.
  if (a.setting == Setting::pin_memory || a.setting == Setting::epochs || a.value.empty())
    return name(a.setting);
  return fmt::format("{} {}", name(a.setting), a.value);
}

std::string TrainFlagWords::usage(Setting setting) const {
  switch (setting) {
    case Setting::checkpoint_dir: return "--checkpoint DIR";
    case Setting::samples: return "--samples N";
    default: return name(setting);
  }
}

std::string TrainFlagWords::join(const std::vector<std::string>& phrases) const {
  return fmt::format("{}", fmt::join(phrases, " "));
}

const TrainFlagWords& train_flag_words() {
  static const TrainFlagWords words;
  return words;
}

void rethrow_in_flag_words() {
  try {
    throw;
  } catch (const OutOfMemory&) {
    throw;
  } catch (const Interrupted&) {  // a stop request, which train ends as such
    throw;
  } catch (const RanksDisagree& e) {
    throw RanksDisagree(e.message(train_flag_words()), e.where(), e.rank());
  } catch (const Error& e) {
    throw Error(e.message(train_flag_words()), e.where());
  }
}

}  // namespace kiln
