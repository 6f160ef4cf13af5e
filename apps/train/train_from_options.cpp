// train_replica(): the train app's flags turned into objects — data, model, optimizer, schedule,
// loaders — and handed to kiln::Trainer, which does the training. What is left here is what only
// a run from flags has: the flag checks, the header lines and --init. The library's messages
// reach the user in train's flags (apps/train/flag_words.h).
#include <algorithm>
#include <charconv>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "apps/train/fault_injection.h"
#include "apps/train/file_checks.h"
#include "apps/train/flag_words.h"
#include "apps/train/train_checks.h"
#include "apps/train/train_options.h"
#include "apps/train/weight_decay_groups.h"
#include "apps/train/workers_flag.h"
#include "kiln/checkpoint/checkpoint.h"
#include "kiln/core/cpu_compute.h"
#include "kiln/core/parallel.h"
#include "kiln/data/data_loader.h"
#include "kiln/data/subset_dataset.h"
#include "kiln/distributed/data_parallel.h"
#include "kiln/distributed/launch_environment.h"
#include "kiln/layers/loss.h"
#include "kiln/spec/data_spec.h"
#include "kiln/spec/model_spec.h"
#include "kiln/spec/optimizer_spec.h"
#include "kiln/spec/schedule_spec.h"
#include "kiln/training/run_report.h"
#include "kiln/training/tensorboard_logger.h"
#include "kiln/training/trainer.h"

namespace kiln {

namespace {

void check_options(const TrainAppOptions& o) {
  KILN_CHECK(o.epochs >= 1, "--epochs must be at least 1, found {}", o.epochs);
  KILN_CHECK(o.steps >= 0 && o.eval_interval >= 0 && o.eval_iters >= 0,
             "--steps ({}), --eval-interval ({}) and --eval-iters ({}) must be >= 0", o.steps,
             o.eval_interval, o.eval_iters);
  KILN_CHECK(o.steps > 0 || (o.eval_interval == 0 && o.eval_iters == 0),
             "--eval-interval and --eval-iters belong to a run counted in steps: give --steps N");
  KILN_CHECK(o.batch_size >= 1, "--batch-size must be at least 1, found {}", o.batch_size);
  KILN_CHECK(o.samples >= 0, "--samples must be >= 0 (0: all samples), found {}", o.samples);
  KILN_CHECK(o.lr > 0.0f && std::isfinite(o.lr), "--lr must be positive, found {}", o.lr);
  // The loader's own rule, before any data is read (its messages are worded as flags).
  check_data_loader_options({.batch_size = o.batch_size, .num_workers = o.workers});
  KILN_CHECK(o.threads >= 0 && o.threads <= max_cpu_threads(),
             "--threads must be in [0, {}] (0: all cores), found {}", max_cpu_threads(), o.threads);
  KILN_CHECK(!o.weight_decay || (*o.weight_decay >= 0.0f && std::isfinite(*o.weight_decay)),
             "--weight-decay must be >= 0, found {}", o.weight_decay.value_or(0.0f));
  // --bucket-mb, --keep-checkpoints, --precision and --cuda-graph: the Trainer checks them.
  KILN_CHECK(!o.resume || !o.checkpoint_dir.empty(), "--resume needs --checkpoint DIR");
  KILN_CHECK(o.tensorboard_histograms == 0 || !o.tensorboard_dir.empty(),
             "--tensorboard-histograms {} needs --tensorboard DIR to write them to",
             o.tensorboard_histograms);
  KILN_CHECK(o.dist_timeout_s >= 0,
             "--dist-timeout must be >= 0 seconds (0: no watchdog), found {}", o.dist_timeout_s);
}

void print_header(const TrainAppOptions& o, std::ostream& out, Device device,
                  const DataSplits& data, const Module& net, Communicator& comm,
                  const DataLoader& train, const Optimizer& optimizer) {
  out << fmt::format("kiln train: {} on {} ({}), {}\n", o.model, device.str(), device_name(device),
                     data.train->describe());
  out << fmt::format("  test: {}\n", data.test ? data.test->describe()
                                               : "none (--test-share 0): nothing is evaluated");
  out << fmt::format(
      "  {} parameters; batch {}, {} lr {} ({}), {} workers{}, {} CPU threads, {} matrix "
      "products\n",
      net.parameter_count(), o.batch_size, o.optimizer, o.lr, o.schedule,
      o.workers_auto ? std::string("auto") : std::to_string(o.workers),
      o.pin_memory ? " pinned" : "", num_threads(), o.precision);
  out << weight_decay_line(o, optimizer);
  if (device.is_cpu()) out << fmt::format("  CPU compute: {}\n", cpu_compute_description());
  if (device.is_cpu() && parse_matmul_precision(o.precision) == MatmulPrecision::bf16 &&
      !cpu_has_bf16_instructions())
    out << "  bf16 on this CPU: inputs rounded to bf16 as on one with bf16 instructions, but no "
           "faster "
           "(it has neither AVX-512 bf16 nor AMX); --precision fp32 is as fast and exact\n";
  if (comm.world_size() > 1) {
    const std::optional<MpiLaunch> launch = mpi_launch_from_environment();
    const std::string started =
        !launch ? std::string()
                : fmt::format(", started by {}{}", launch->launcher,
                              launch->nodes.empty() ? "" : " on " + launch->nodes);
    out << fmt::format("  data parallel: {} ranks ({}{}), {} samples per rank per step\n",
                       comm.world_size(), comm.describe(), started, train.options().batch_size);
  }
}

// The observers of --tensorboard and --report, made before the Trainer (as --log-json's file is
// opened by it), so a bad folder fails before any training.
std::vector<std::shared_ptr<TrainingObserver>> run_outputs(const TrainAppOptions& o,
                                                           const Module& model) {
  std::vector<std::shared_ptr<TrainingObserver>> outputs;
  if (!o.tensorboard_dir.empty())
    outputs.push_back(std::make_shared<TensorBoardLogger>(
        o.tensorboard_dir, TensorBoardLoggerOptions{o.tensorboard_histograms, &model}));
  if (!o.report_dir.empty())
    outputs.push_back(std::make_shared<RunReport>(
        o.report_dir, RunReportOptions{fmt::format("kiln train: {} on {}", o.model, o.data),
                                       &train_flag_words()}));
  return outputs;
}

}  // namespace

namespace {

TrainResult train_replica_in_api_words(const TrainAppOptions& options, std::ostream& out,
                                       const std::atomic<bool>* stop, Communicator& comm) {
  TrainAppOptions o = options;
  if (comm.rank() != 0) {  // rank 0 speaks for the job
    o.quiet = true;
    o.log_json.clear();
    o.tensorboard_dir.clear();
    o.tensorboard_histograms = 0;
    o.report_dir.clear();
  }
  check_options(o);
  check_file_flags_are_used(o);
  check_outputs_are_no_inputs(o);
  const int world = comm.world_size();
  KILN_CHECK(
      o.batch_size % world == 0,
      "--batch-size {} is the global batch and must split evenly over the {} ranks; use a multiple "
      "of {}",
      o.batch_size, world, world);
  if (o.threads > 0) set_num_threads(o.threads);
  const Device device = comm.device().is_cuda() ? comm.device() : Device::parse(o.device);
  if (device.is_cuda())
    KILN_CHECK(cuda_available(),
               "--device={} asks for a GPU, but none can be used: {}; use --device=cpu", o.device,
               cuda_unavailable_reason());
  check_same_options_on_every_rank(o, comm);

  TrainerOptions t;
  t.device = device;
  t.precision = parse_matmul_precision(o.precision);
  t.cuda_graph = o.cuda_graph;
  t.checkpoint_dir = o.checkpoint_dir;
  t.keep_checkpoints = o.keep_checkpoints;
  t.run = run_description(o);
  t.legacy_settings = legacy_run_settings(o);
  t.setting_words = &train_flag_words();
  t.log_json = o.log_json;
  t.out = o.quiet ? nullptr : &out;
  t.comm = &comm;
  t.bucket_mb = o.bucket_mb;
  t.clip_grad_norm = o.clip_grad_norm;
  t.max_steps = o.max_steps;
  t.loader_tuning = loader_tuning_of(o, device);
  t.steps = o.steps;
  t.eval_interval = o.eval_interval;
  t.eval_iters = o.eval_iters;
  t.stop = stop;
  const auto faults = std::make_shared<FaultInjection>();  // a bad KILN_INJECT_FAULT fails here

  Generator gen(o.seed);
  const DataSplits data =
      open_data(o.data, {o.samples, o.seed, o.test_share, o.test_data, model_context(o.model)});
  t.vocabulary = data.vocabulary;
  // Token windows: a label per position, so cross-entropy over the sequence.
  const bool sequence_labels =
      data.train->has_class_labels() && data.train->target_shape().rank() >= 1;
  const std::unique_ptr<Loss> loss = make_loss(o.loss, sequence_labels);
  check_loss_fits_targets(*loss, data.train->has_class_labels(), data.train->describe());
  OptimizerSettings optimizer_settings{
      o.momentum, o.nesterov, o.beta1, o.beta2, o.eps, effective_weight_decay(o), {}};
  // Refused with the figures before seconds of allocation, when it cannot fit (a batch larger
  // than the data is check_batch_fits' to refuse, below).
  check_model_fits(o.model, data.train->sample_shape(), output_width(*data.train),
                   std::max<std::int64_t>(1, std::min(o.batch_size / world, data.train->size())),
                   optimizer_state_tensors(o.optimizer, optimizer_settings), device);
  Model model =
      build_model(o.model, data.train->sample_shape(), output_width(*data.train), gen, stop);
  t.input_shape = model.input_shape;
  check_batch_fits(o, *data.train, world);
  if (!o.init.empty()) load_weights(o.init, *model.net);
  model.net->to(device);

  DataLoaderOptions lo;
  lo.batch_size = o.batch_size / world;
  lo.shuffle = o.shuffle;
  lo.seed = o.seed;
  lo.num_workers = o.workers;
  lo.pin_memory = o.pin_memory;
  lo.device = device;
  lo.rank = comm.rank();
  lo.world_size = world;
  DataLoader train_loader(data.train, lo);
  // A step-counted run evaluates a few batches: shuffled once (the evaluation keeps epoch 0),
  // they are spread over the whole test split and the same at every evaluation.
  lo.shuffle = o.steps > 0 && o.eval_iters > 0;
  lo.rank = 0;  // each rank evaluates its own contiguous shard, every sample once over all ranks
  lo.world_size = 1;
  std::unique_ptr<DataLoader> test_loader;  // none without a test split (--test-share 0)
  if (data.test)
    test_loader = std::make_unique<DataLoader>(evaluation_shard(data.test, comm.rank(), world), lo);

  optimizer_settings.decays = weight_decay_groups(o, *model.net);
  const std::unique_ptr<Optimizer> optimizer =
      make_optimizer(o.optimizer, model.net->parameters(), o.lr, optimizer_settings);
  const std::vector<std::shared_ptr<TrainingObserver>> outputs = run_outputs(o, *model.net);
  Trainer trainer(*model.net, *optimizer, *loss, t);
  trainer.add_observer(faults);
  for (const auto& output : outputs) trainer.add_observer(output);
  const std::int64_t run_steps =
      o.steps > 0 ? o.steps : trainer.steps_per_epoch(train_loader) * o.epochs;
  trainer.set_schedule(parse_schedule(o.schedule, o.lr, run_steps));
  if (o.resume)
    KILN_CHECK(trainer.resume(),
               "--resume: '{}' holds no checkpoint (no latest, no state.json); to start fresh, run "
               "without --resume",
               o.checkpoint_dir);
  if (!o.quiet) print_header(o, out, device, data, *model.net, comm, train_loader, *optimizer);

  DataLoader* test = o.evaluate ? test_loader.get() : nullptr;
  const FitResult fit = o.steps > 0 ? trainer.fit_steps(train_loader, test)
                                    : trainer.fit(train_loader, o.epochs, test);
  TrainResult result;
  result.epochs = fit.epochs;
  result.diagnosis = fit.diagnosis;
  result.interrupted = fit.interrupted;
  result.world_size = world;
  return result;
}

}  // namespace

TrainResult train_replica(const TrainAppOptions& options, std::ostream& out,
                          const std::atomic<bool>* stop, Communicator& comm) {
  try {
    return train_replica_in_api_words(options, out, stop, comm);
  } catch (...) {
    rethrow_in_flag_words();
  }
}

}  // namespace kiln
