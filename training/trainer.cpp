// The training loop. One epoch: for each batch, forward + loss, backward, optimizer step, each a
// profiled stage; running metrics stay on the device and are read twice a second for the progress
// line. After the epoch: evaluation, the report, the JSON line and the checkpoint.
#include "kiln/training/trainer.h"

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <ostream>
#include <thread>

#include "kiln/core/cuda_graph.h"
#include "kiln/core/gpu_monitor.h"
#include "kiln/core/memory.h"
#include "kiln/core/ops.h"
#include "kiln/core/parallel.h"
#include "kiln/core/cpu_compute.h"
#include "kiln/core/precision.h"
#include "kiln/data/data_loader.h"
#include "kiln/data/data_spec.h"
#include "kiln/layers/cross_entropy_loss.h"
#include "kiln/layers/dropout.h"
#include "kiln/layers/metrics.h"
#include "kiln/training/checkpoint.h"
#include "kiln/dist/data_parallel.h"
#include "kiln/training/diagnosis.h"
#include "kiln/models/model_spec.h"
#include "kiln/training/report_format.h"
#include "kiln/training/train_checks.h"
#include "kiln/dist/gradient_reducer.h"
#include "kiln/optim/lr_schedule.h"
#include "kiln/optim/make_optimizer.h"
#include "kiln/optim/step_scalars.h"

namespace kiln {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// More loader threads than this is a typing mistake, not a setting (and ends in EAGAIN).
constexpr int kMaxWorkers = 256;

void check_options(const TrainOptions& o) {
  KILN_CHECK(o.epochs >= 1, "--epochs must be at least 1, found {}", o.epochs);
  KILN_CHECK(o.batch_size >= 1, "--batch-size must be at least 1, found {}", o.batch_size);
  KILN_CHECK(o.samples >= 0, "--samples must be >= 0 (0: all samples), found {}", o.samples);
  KILN_CHECK(o.lr > 0.0f && std::isfinite(o.lr), "--lr must be positive, found {}", o.lr);
  KILN_CHECK(o.workers >= 0 && o.workers <= kMaxWorkers,
             "--workers must be in [0, {}], found {}; this machine has {} cores, and more workers "
             "than cores rarely helps",
             kMaxWorkers, o.workers, std::thread::hardware_concurrency());
  const int most_threads = static_cast<int>(std::max(256u, std::thread::hardware_concurrency()));
  KILN_CHECK(o.threads >= 0 && o.threads <= most_threads,
             "--threads must be in [0, {}] (0: all cores), found {}", most_threads, o.threads);
  KILN_CHECK(o.weight_decay >= 0.0f && std::isfinite(o.weight_decay),
             "--weight-decay must be >= 0, found {}", o.weight_decay);
  KILN_CHECK(o.bucket_mb > 0 && o.bucket_mb <= 1048576,
             "--bucket-mb must be in (0, 1048576] MiB, found {}", o.bucket_mb);
  KILN_CHECK(o.keep_checkpoints >= 1, "--keep-checkpoints must be at least 1, found {}",
             o.keep_checkpoints);
  KILN_CHECK(!o.resume || !o.checkpoint_dir.empty(), "--resume needs --checkpoint DIR");
  KILN_CHECK(o.dist_timeout_s >= 0, "--dist-timeout must be >= 0 seconds (0: no watchdog), found {}",
             o.dist_timeout_s);
}

// --cuda-graph: the whole step of a full batch (forward, loss, metrics, zero_grad, backward and
// the optimizer update) recorded once and replayed with one launch. The graph reads the batch
// from x and y (each batch is copied there first) and writes the modules' own buffers, so
// anything that may reallocate them (a short batch, evaluation) resets it; the next full batch
// then runs eagerly at the full shapes and the one after is recorded. The recorded update reads
// its learning rate (and Adam's bias corrections) from `scalars`, rows prepared at the recording
// for the rest of the epoch.
struct GraphedStep {
  CudaGraph graph;
  StepScalars scalars;
  Tensor x, y;  // the inputs the graph reads
  Tensor loss;  // the buffer it writes the loss to
  bool warm = false;  // a full batch ran eagerly since the last reset

  void reset() {
    graph.reset();
    warm = false;
  }
};

// Everything one run holds, built from the options.
struct Run {
  const TrainOptions& o;
  std::ostream& out;
  Device device;
  Communicator& comm;
  bool root = comm.rank() == 0;  // prints, logs and writes checkpoints
  std::unique_ptr<GradientReducer> reducer;  // data-parallel runs only
  FaultInjection faults;
  DataSplits data;
  Model model;
  CrossEntropyLoss loss;
  std::unique_ptr<Optimizer> optimizer;
  std::unique_ptr<LrSchedule> schedule;
  std::unique_ptr<DataLoader> train_loader, test_loader;
  StepProfiler profiler;
  RunningMetrics metrics;
  std::unique_ptr<GraphedStep> graphed;  // --cuda-graph only
  std::unique_ptr<CheckpointFolder> checkpoints;  // rank 0 with --checkpoint only
  TrainingState state;
  bool tty = isatty(STDOUT_FILENO) != 0;

  Run(const TrainOptions& options, std::ostream& stream, Device d, Communicator& c, Generator& gen)
      : o(options), out(stream), device(d), comm(c),
        data(open_data(o.data, {o.samples, o.seed})),
        model(build_model(o.model, data.train->sample_shape(), data.train->num_classes(), gen)),
        profiler(d), metrics(d) {}
};

// Forward, loss, the metrics' device ops, zero_grad and backward. While it is recorded into a CUDA
// graph (`eager` false) nothing is timed, since events cannot time inside a graph, and the
// metrics' host-side sample count is left to each replay. Returns the loss tensor (on the device).
Tensor forward_backward(Run& r, const Tensor& batch_x, const Tensor& y, bool eager) {
  const Tensor x = r.model.as_input(batch_x);
  if (eager) r.profiler.start(Stage::forward);
  const Tensor& logits = r.model.net->forward(x);
  Tensor loss = r.loss.forward(logits, y);
  r.metrics.accumulate(logits, y, loss);
  if (eager) {
    r.metrics.count(batch_x.size(0));
    r.profiler.stop(Stage::forward);
    r.profiler.start(Stage::backward);
  }
  r.optimizer->zero_grad();
  r.model.net->backward(r.loss.backward());
  if (eager) r.profiler.stop(Stage::backward);
  return loss;
}

// Forward, loss, backward and update for one batch, each stage timed; returns the loss tensor
// (on the device).
Tensor eager_step(Run& r, const Batch& batch) {
  const Tensor loss = forward_backward(r, batch.x, batch.y, true);
  if (r.reducer) {  // on a GPU this times only the wait for what backward did not hide
    r.profiler.start(Stage::allreduce);
    r.reducer->finish();
    r.profiler.stop(Stage::allreduce);
  }
  r.profiler.start(Stage::optimizer);
  r.optimizer->step();
  r.profiler.stop(Stage::optimizer);
  return loss;
}

// The step through the run's CUDA graph: eagerly for a short batch (and the graph is reset) or
// for the first full batch since a reset, recorded on the next, replayed after. `steps_left`:
// the steps left in the epoch, this one included (the rows the recorded update may need).
Tensor graphed_step(Run& r, const Batch& batch, std::int64_t step, std::int64_t steps_left) {
  GraphedStep& g = *r.graphed;
  const bool full = batch.x.size(0) == r.train_loader->options().batch_size;
  if (g.graph.captured() && g.scalars.remaining() == 0) g.reset();  // rows used up: record anew
  if (!full || !g.warm) {
    if (!full) g.reset();
    g.warm = full;
    return eager_step(r, batch);
  }
  const Stream stream = Stream::current(r.device);
  if (!g.graph.captured()) {
    if (!g.x.defined() || g.x.shape() != batch.x.shape()) {
      g.x = Tensor::empty(batch.x.shape(), batch.x.dtype(), r.device);
      g.y = Tensor::empty(batch.y.shape(), batch.y.dtype(), r.device);
    }
    g.scalars.prepare(*r.optimizer, *r.schedule, step, steps_left);
    try {
      g.graph.capture(r.device, [&] {
        g.loss = forward_backward(r, g.x, g.y, false);
        r.optimizer->record_step(g.scalars.rows());
      });
    } catch (const Error& e) {
      KILN_THROW("--cuda-graph: recording the training step failed: {}; train without --cuda-graph", e.what());
    }
  }
  r.profiler.start(Stage::graph);
  copy_async(batch.x, g.x, stream);
  copy_async(batch.y, g.y, stream);
  g.graph.replay();
  r.metrics.count(batch.x.size(0));
  r.optimizer->replayed();
  g.scalars.replayed();
  r.profiler.stop(Stage::graph);
  return g.loss;
}

// One training step on one batch; returns the loss tensor (on the device).
Tensor train_step(Run& r, const Batch& batch, std::int64_t step, std::int64_t steps_left) {
  r.faults.at_step(r.comm.rank(), step);
  r.optimizer->set_lr(r.schedule->lr_at(step));  // a replayed update reads the same from its rows
  return r.graphed ? graphed_step(r, batch, step, steps_left) : eager_step(r, batch);
}

void check_finite(float loss, std::int64_t epoch, std::int64_t step, std::int64_t last_checked) {
  if (std::isfinite(loss)) return;
  KILN_THROW("the loss became {} in epoch {} at step {}{}; lower --lr (now too large for this "
             "model) or check the data for NaN values",
             loss, epoch, step,
             step - last_checked > 1 ? fmt::format(" (checked every few steps: after step {})", last_checked) : "");
}

// Test loss and accuracy of the current weights.
RunningMetrics::Values evaluate(Run& r) {
  if (r.reducer) broadcast_buffers_from_rank0(*r.model.net, r.comm);
  r.model.net->eval();
  RunningMetrics metrics(r.device);
  CrossEntropyLoss loss;
  for (const Batch& batch : *r.test_loader) {
    const Tensor& logits = r.model.net->forward(r.model.as_input(batch.x));
    metrics.update(logits, batch.y, loss.forward(logits, batch.y));
  }
  r.model.net->train();
  return sum_over_ranks(metrics.read(), r.comm);
}

void fill_resources(Run& r, EpochReport& report, double cpu_seconds, GpuMonitor& monitor) {
  const LoaderStats loader = r.train_loader->stats();
  report.stages[Stage::data_wait] += loader.wait_ms;
  report.stages[Stage::copy] += loader.copy_ms;  // on the copy stream, beside the compute stages
  report.queue_occupancy = loader.mean_queue_occupancy;
  report.queue_capacity = loader.queue_capacity;
  double busy = 0.0;
  for (double ms : loader.worker_busy_ms) busy += ms;
  const double wall_ms = report.wall_s * 1000.0;
  const int workers = std::max(1, r.o.workers);
  report.loader_busy_percent = wall_ms > 0 ? 100.0 * busy / (wall_ms * workers) : 0.0;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  report.process_cpu_percent = report.wall_s > 0 ? 100.0 * cpu_seconds / (report.wall_s * cores) : 0.0;
  report.gpu_utilization_percent = monitor.stop();
  if (r.device.is_cuda()) {
    const MemoryStats m = memory_stats(r.device);
    const DeviceMemoryInfo info = device_memory_info(r.device);
    report.gpu_memory_in_use_mib = static_cast<double>(m.reserved) / 1048576.0;
    report.gpu_memory_peak_mib = static_cast<double>(m.peak_reserved) / 1048576.0;
    report.gpu_memory_total_mib = static_cast<double>(info.total) / 1048576.0;
  }
}

void print_progress(Run& r, std::int64_t epoch, std::int64_t done, std::int64_t total,
                    Clock::time_point start) {
  const double elapsed = seconds_since(start);
  const double rate = static_cast<double>(done) * static_cast<double>(r.o.batch_size) / std::max(elapsed, 1e-9);
  const double eta = done > 0 ? elapsed * static_cast<double>(total - done) / static_cast<double>(done) : 0.0;
  r.out << fmt::format("\repoch {}/{}  batch {}/{}  {:.0f} samples/s  loss {:.4f}  ETA {:.0f} s   ", epoch,
                       r.o.epochs, done, total, rate, r.metrics.read().mean_loss, eta)
        << std::flush;
}

EpochReport run_epoch(Run& r, std::int64_t epoch, const std::atomic<bool>* stop, bool& interrupted) {
  EpochReport report;
  report.epoch = epoch + 1;
  report.device = r.device.str();
  report.on_gpu = r.device.is_cuda();
  report.batch_size = r.o.batch_size;
  report.workers = r.o.workers;
  report.pin_memory = r.o.pin_memory;
  report.cpu_threads = num_threads();
  report.precision = matmul_precision_name(matmul_precision());
  report.cpu_bf16_instructions = cpu_has_bf16_instructions();

  r.train_loader->set_epoch(epoch);
  r.train_loader->reset_stats();
  r.profiler.read_and_reset();
  r.metrics.reset();
  if (r.graphed) r.graphed->reset();  // evaluation and the reset may have moved buffers
  if (r.device.is_cuda()) reset_peak_memory_stats(r.device);
  GpuMonitor monitor(r.device);
  monitor.start();
  const double cpu_start = process_cpu_seconds();
  const Clock::time_point start = Clock::now();
  auto last_print = start;
  const std::int64_t total = r.train_loader->batches_per_epoch();
  const std::int64_t check_every = r.device.is_cpu() ? 1 : 50;  // a GPU read is a sync
  const std::int64_t skip = epoch == r.state.epoch ? r.state.batches_done : 0;
  std::int64_t done = 0, last_checked = 0;
  for (const Batch& batch : *r.train_loader) {
    if (done < skip) {  // resuming inside an epoch: the order is the same, so skip what was trained
      ++done;
      continue;
    }
    const Tensor loss = train_step(r, batch, r.state.global_step, total - done);
    ++r.state.global_step;
    ++done;
    report.samples += batch.x.size(0) * r.comm.world_size();
    if (done % check_every == 0 || done == total) {
      check_finite(loss.item(), epoch + 1, done, last_checked);
      last_checked = done;
    }
    if (!r.o.quiet && r.tty && seconds_since(last_print) > 0.5) {
      print_progress(r, epoch + 1, done, total, start);
      last_print = Clock::now();
    }
    // Ranks must stop at the same step: with several, they agree every check_every steps.
    bool stopping = stop && stop->load();
    if (r.comm.world_size() > 1)
      stopping = (done % std::max<std::int64_t>(check_every, 10) == 0 || done == total) &&
                 any_rank_stopping(stopping, r.comm);
    if (stopping || (r.o.max_steps > 0 && done >= r.o.max_steps)) {
      interrupted = stopping;
      break;
    }
  }
  report.batches = done - skip;
  report.epoch_samples = r.train_loader->samples_per_epoch() * r.comm.world_size();
  r.state.batches_done = done;
  if (!r.o.quiet && r.tty) r.out << "\r" << std::string(100, ' ') << "\r";
  report.stages = r.profiler.read_and_reset();  // waits for the last GPU step
  report.wall_s = seconds_since(start);
  report.samples_per_s = static_cast<double>(report.samples) / std::max(report.wall_s, 1e-9);
  report.lr = r.optimizer->lr();
  const auto train_values = sum_over_ranks(r.metrics.read(), r.comm);
  report.train_loss = train_values.mean_loss;
  report.train_accuracy = train_values.accuracy;
  fill_resources(r, report, process_cpu_seconds() - cpu_start, monitor);
  return report;
}

void append_json_line(const std::string& path, const EpochReport& report) {
  std::ofstream log(path, std::ios::app);
  KILN_CHECK(log.good(), "cannot append to --log-json file '{}'", path);
  log << to_json(report).dump() << "\n" << std::flush;
  KILN_CHECK(log.good(), "writing to --log-json file '{}' failed (disk full?)", path);
}

}  // namespace

TrainResult train_replica(const TrainOptions& options, std::ostream& out, const std::atomic<bool>* stop,
                          Communicator& comm) {
  TrainOptions o = options;
  if (comm.rank() != 0) {  // rank 0 speaks for the job
    o.quiet = true;
    o.log_json.clear();
  }
  check_options(o);
  const int world = comm.world_size();
  KILN_CHECK(o.batch_size % world == 0,
             "--batch-size {} is the global batch and must split evenly over the {} ranks; use a multiple "
             "of {}",
             o.batch_size, world, world);
  if (o.threads > 0) set_num_threads(o.threads);
  const Device device = comm.device().is_cuda() ? comm.device() : Device::parse(o.device);
  if (device.is_cuda())
    KILN_CHECK(cuda_available(), "--device={} asks for a GPU, but none can be used: {}; use --device=cpu",
               o.device, cuda_unavailable_reason());
  KILN_CHECK(comm.device() == device || comm.is_single_process(),
             "--device={} does not match the communicator ({}), which works on {}", o.device, comm.describe(),
             comm.device().str());
  const MatmulPrecision precision = parse_matmul_precision(o.precision);
  KILN_CHECK(precision != MatmulPrecision::tf32 || device.is_cuda(),
             "--precision tf32 is a GPU tensor-core format the CPU does not have; use --precision fp32 or "
             "bf16");
  set_matmul_precision(precision);
  KILN_CHECK(!o.cuda_graph || device.is_cuda(),
             "--cuda-graph records GPU work and the CPU runs each op as it comes; use it with --device=gpu");
  KILN_CHECK(!o.cuda_graph || comm.is_single_process(),
             "--cuda-graph trains in one process on one GPU, and data-parallel gradients are exchanged "
             "from inside backward; drop --cuda-graph or the other ranks");
  check_same_options_on_every_rank(o, comm);
  std::unique_ptr<CheckpointFolder> checkpoints = comm.rank() == 0 ? open_outputs(o) : nullptr;
  Generator gen(o.seed);
  Run r(o, out, device, comm, gen);
  r.checkpoints = std::move(checkpoints);
  check_batch_fits(o, *r.data.train, world);
  if (!o.init.empty()) load_weights(o.init, *r.model.net);
  r.model.net->to(device);
  r.model.net->set_input_grad_wanted(false);  // the input is data: no gradient of it to make
  if (o.cuda_graph) {
    for (std::size_t i = 0; i < r.model.net->size(); ++i)  // a replay would reuse one mask forever
      KILN_CHECK(dynamic_cast<const Dropout*>(&(*r.model.net)[i]) == nullptr,
                 "--cuda-graph cannot replay {}: its mask must change every step; drop --cuda-graph",
                 (*r.model.net)[i].describe());
    r.graphed = std::make_unique<GraphedStep>();
  }

  DataLoaderOptions lo;
  lo.batch_size = o.batch_size / world;
  lo.shuffle = o.shuffle;
  lo.seed = o.seed;
  lo.num_workers = o.workers;
  lo.pin_memory = o.pin_memory;
  lo.device = device;
  lo.rank = comm.rank();
  lo.world_size = world;
  r.train_loader = std::make_unique<DataLoader>(r.data.train, lo);
  lo.shuffle = false;
  lo.rank = 0;  // each rank evaluates its own contiguous shard, every sample once over all ranks
  lo.world_size = 1;
  r.test_loader = std::make_unique<DataLoader>(evaluation_shard(r.data.test, comm.rank(), world), lo);
  const std::int64_t steps_per_epoch = o.max_steps > 0 ? std::min(o.max_steps, r.train_loader->batches_per_epoch())
                                                       : r.train_loader->batches_per_epoch();
  r.optimizer = make_optimizer(o.optimizer, r.model.net->parameters(), o.lr, o.weight_decay);
  r.schedule = parse_schedule(o.schedule, o.lr, steps_per_epoch * o.epochs);
  r.state.seed = o.seed;
  r.state.model = o.model;
  r.state.data = o.data;
  r.state.batch_size = o.batch_size;
  r.state.optimizer = o.optimizer;
  r.state.settings = run_settings(o);

  if (o.resume) {
    const std::optional<SavedCheckpoint> saved = read_checkpoint(o.checkpoint_dir);
    KILN_CHECK(saved.has_value(),
               "--resume: '{}' holds no checkpoint (no latest, no state.json); to start fresh, run "
               "without --resume",
               o.checkpoint_dir);
    check_resumable(o, saved->state);
    KILN_CHECK(saved->state.batches_done <= steps_per_epoch,
               "'{}/state.json': {} batches of epoch {} done, but an epoch here has {} steps: was "
               "the checkpoint made with other data?",
               saved->folder, saved->state.batches_done, saved->state.epoch + 1, steps_per_epoch);
    restore_checkpoint(*saved, *r.model.net, *r.optimizer);
    r.state.epoch = saved->state.epoch;
    r.state.batches_done = saved->state.batches_done;
    r.state.global_step = saved->state.global_step;
    r.state.generator_offset = saved->state.generator_offset;
    if (r.state.batches_done >= steps_per_epoch) {  // that epoch was complete
      ++r.state.epoch;
      r.state.batches_done = 0;
    }
    if (!o.quiet)
      out << fmt::format("resuming from '{}': epoch {}, step {}\n", saved->folder,
                         r.state.epoch + 1, r.state.global_step);
    if (!o.quiet && r.state.epoch >= o.epochs)
      out << fmt::format("nothing to train: the checkpoint holds all {} epochs (raise --epochs)\n",
                         r.state.epoch);
  }
  if (!comm.is_single_process()) {
    broadcast_from_rank0(*r.model.net, comm);  // identical replicas, whatever each loaded
    const auto bucket_bytes = static_cast<std::size_t>(o.bucket_mb * 1024.0 * 1024.0);
    r.reducer = std::make_unique<GradientReducer>(r.model.net->parameters(), comm, bucket_bytes);
    if (comm.overlaps_compute())  // start each bucket as soon as backward has produced it
      r.model.net->set_backward_hook([&reducer = *r.reducer](Module& layer) {
        const std::vector<Parameter*> produced = layer.parameters();
        reducer.ready(produced);
      });
  }
  if (!o.quiet) {
    out << fmt::format("kiln train: {} on {} ({}), {}\n", o.model, device.str(), device_name(device),
                       r.data.train->describe());
    out << fmt::format("  test: {}\n", r.data.test->describe());
    out << fmt::format("  {} parameters; batch {}, {} lr {} ({}), {} workers{}, {} CPU threads{}\n",
                       r.model.net->parameter_count(), o.batch_size, o.optimizer, o.lr, o.schedule,
                       o.workers, o.pin_memory ? " pinned" : "", num_threads(),
                       fmt::format(", {} matrix products", o.precision));
    if (device.is_cpu()) out << fmt::format("  CPU compute: {}\n", cpu_compute_description());
    if (device.is_cpu() && precision == MatmulPrecision::bf16 && !cpu_has_bf16_instructions())
      out << "  bf16 on this CPU: inputs rounded to bf16 as on one with bf16 instructions, but no faster "
             "(it has neither AVX-512 bf16 nor AMX); --precision fp32 is as fast and exact\n";
    if (r.reducer)
      out << fmt::format("  data parallel: {} ranks ({}), {} samples per rank per step, {} gradient bucket{}\n",
                         world, comm.describe(), o.batch_size / world, r.reducer->bucket_count(),
                         r.reducer->bucket_count() == 1 ? "" : "s");
  }

  TrainResult result;
  result.world_size = world;
  for (std::int64_t epoch = r.state.epoch; epoch < o.epochs; ++epoch) {
    EpochReport report = run_epoch(r, epoch, stop, result.interrupted);
    if (o.evaluate && !result.interrupted) {
      const auto test = evaluate(r);
      report.test_loss = test.mean_loss;
      report.test_accuracy = test.accuracy;
    }
    r.state.epoch = epoch;
    if (!result.interrupted) {
      r.state.epoch = epoch + 1;
      r.state.batches_done = 0;
    }
    // Saved before the lines that announce the epoch: a run killed in between loses no work.
    if (r.checkpoints) save_checkpoint(*r.checkpoints, *r.model.net, *r.optimizer, r.state);
    if (!o.quiet)
      out << format_epoch_summary(report, o.epochs) << "\n"
          << format_stage_table(report) << std::flush;
    if (!o.log_json.empty()) append_json_line(o.log_json, report);
    result.epochs.push_back(report);
    if (result.interrupted) break;
  }
  if (!result.epochs.empty()) {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    result.diagnosis = diagnose(result.epochs.back(), cores);
    if (!o.quiet) {
      out << "diagnosis:\n";
      for (const auto& line : result.diagnosis) out << "  " << line << "\n";
    }
  }
  return result;
}

}  // namespace kiln
