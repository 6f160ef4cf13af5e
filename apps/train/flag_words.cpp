// The advice words and the API-name -> flag table of apps/train/flag_words.h.
#include "kiln/apps/train/flag_words.h"

#include <fmt/format.h>

#include "kiln/core/error.h"
#include "kiln/core/memory.h"
#include "kiln/distributed/rank_agreement.h"

#include <string_view>
#include <utility>

namespace kiln {

namespace {

// Longer names first where one holds another.
constexpr std::pair<std::string_view, std::string_view> kFlagOf[] = {
    {"TrainerOptions::precision = MatmulPrecision::", "--precision "},
    {"TrainerOptions::precision", "--precision"},
    {"(TrainerOptions::checkpoint_dir)", "(--checkpoint DIR)"},
    {"TrainerOptions::checkpoint_dir", "--checkpoint"},
    {"TrainerOptions::keep_checkpoints", "--keep-checkpoints"},
    {"TrainerOptions::bucket_mb", "--bucket-mb"},
    {"TrainerOptions::cuda_graph", "--cuda-graph"},
    {"TrainerOptions::loader_tuning", "--workers auto"},
    {"TrainerOptions::log_json", "--log-json"},
    {"TensorBoardLoggerOptions::histogram_every", "--tensorboard-histograms"},
    {"TensorBoardLogger's", "the --tensorboard"},
    {"RunReport's", "the --report"},
    {"TrainerOptions::steps", "--steps"},
    {"TrainerOptions::eval_interval", "--eval-interval"},
    {"TrainerOptions::eval_iters", "--eval-iters"},
    {"DataSpecOptions::context (a model with a context gives its own)",
     "the model's context (a gpt:L-H-W-C model gives its own)"},
    {"DataSpecOptions::context", "the model's context"},
    {"TrainerOptions::device on a GPU", "--device=gpu"},
    {"TrainerOptions::run.batch_size", "--batch-size"},
    {"DataLoaderOptions::num_workers", "--workers"},
    {"DataLoaderOptions::batch_size", "--batch-size"},
    {"TrainerOptions::run.data", "--data"},
    {"TrainerOptions::run.model", "--model"},
    {"TrainerOptions::run.optimizer", "--optimizer"},
    {"TrainerOptions::run.seed", "--seed"},
    {"TrainerOptions::run.samples", "--samples"},
    {"TrainerOptions::run.lr", "--lr"},
    {"TrainerOptions::run.weight_decay_groups",
     "the weight-decay groups (--no-weight-decay-groups)"},
    {"TrainerOptions::run.weight_decay", "--weight-decay"},
    {"TrainerOptions::run.momentum", "--momentum"},
    {"TrainerOptions::run.nesterov", "--nesterov"},
    {"TrainerOptions::run.beta1", "--beta1"},
    {"TrainerOptions::run.beta2", "--beta2"},
    {"TrainerOptions::run.eps", "--eps"},
    {"TrainerOptions::run.schedule", "--schedule"},
    {"TrainerOptions::run.loss", "--loss"},
    {"TrainerOptions::run.shuffle", "shuffling (--no-shuffle)"},
    {"TrainerOptions::run.test_share", "--test-share"},
    {"TrainerOptions::run.test_data", "--test-data"},
    {"give every rank the same TrainerOptions", "start every rank with the same command line"},
    {"lower the optimizer's learning rate", "lower --lr"},
    {"fit's epochs", "--epochs"},
    {"without Trainer::resume()", "without --resume"},
    {"use MSELoss", "use --loss mse"},
    {"use CrossEntropyLoss", "use --loss cross-entropy"},
    {"(use DataSpecOptions::samples)", "(use --samples N)"},
    {"DataSpecOptions::samples", "--samples"},
    {"DataSpecOptions::test_share", "--test-share"},
    {"DataSpecOptions::test_data", "--test-data"},
    {"data spec ", "--data "},
    {"OptimizerSettings::momentum", "--momentum"},
    {"OptimizerSettings::nesterov", "--nesterov"},
    {"OptimizerSettings::beta1", "--beta1"},
    {"OptimizerSettings::beta2", "--beta2"},
    {"OptimizerSettings::eps", "--eps"},
    {"OptimizerSettings::weight_decay", "--weight-decay"},
    {"TrainerOptions::clip_grad_norm", "--clip-grad-norm"},
    {"not optimizer ", "not --optimizer "},
    {"NCCL communicators (make_nccl_communicators, or make_nccl_communicator under MPI)",
     "NCCL communicators (--gpus, or --device=gpu under mpirun)"},
    {"use Device::cpu() (under MPI, gradients then go through MpiCommunicator)",
     "use --device=cpu (under mpirun, gradients then go through MPI)"},
    {"use Device::cpu()", "use --device=cpu"},
    {"(CommunicatorOptions::timeout_s)", "(--dist-timeout)"},
};

}  // namespace

std::string TrainFlagWords::phrase(const Advice& a) const {
  switch (a.setting) {
    case Setting::loader_workers: return "--workers " + a.value;
    case Setting::pin_memory: return "--pin-memory";
    case Setting::precision: return "--precision " + a.value;
    case Setting::batch_size: return a.value.empty() ? "--batch-size" : "--batch-size " + a.value;
    case Setting::measure_bf16: return "bench --device=cpu --precision bf16";
    case Setting::measure_batch: return "--find-batch-size";
    case Setting::epochs: return "--epochs";
    case Setting::openmp_wait_policy:
      return "OMP_WAIT_POLICY=PASSIVE (train's own default: unset it)";
  }
  return SettingWords::phrase(a);
}

std::string TrainFlagWords::join(const std::vector<std::string>& phrases) const {
  return fmt::format("{}", fmt::join(phrases, " "));
}

const TrainFlagWords& train_flag_words() {
  static const TrainFlagWords words;
  return words;
}

std::string in_flag_words(std::string message) {
  for (const auto& [name, flag] : kFlagOf)
    for (std::size_t at = message.find(name); at != std::string::npos;
         at = message.find(name, at + flag.size()))
      message.replace(at, name.size(), flag);
  return message;
}

void rethrow_in_flag_words() {
  try {
    throw;
  } catch (const OutOfMemory&) {
    throw;
  } catch (const Interrupted&) {  // a stop request, which train ends as such
    throw;
  } catch (const RanksDisagree& e) {
    throw RanksDisagree(in_flag_words(e.what()), e.where(), e.rank());
  } catch (const Error& e) {
    throw Error(in_flag_words(e.what()), e.where());
  }
}

}  // namespace kiln
