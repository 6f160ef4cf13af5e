// train: trains a model on one device and reports where the time goes — the article's
// measurement — ending with a diagnosis of the bottleneck. With only --device it trains the
// article's network on Fashion-MNIST. Data parallel over GPUs with --gpus 0,1,2, or as the ranks
// of `mpirun -np N train ...`; a failing rank ends the whole job.
#include <CLI/CLI.hpp>

#include <iostream>
#include <optional>

#include <kiln/core/openmp_wait_policy.h>
#include <kiln/distributed/mpi_communicator.h>
#include <kiln/distributed/rank_agreement.h>
#include <kiln/kiln.h>
#include <kiln/spec/model_spec.h>
#include "apps/reporting/tuning.h"
#include "apps/support/number_flags.h"
#include "apps/train/fault_injection.h"
#include "apps/train/stop_signals.h"
#include "apps/train/train_options.h"
#include "apps/train/workers_flag.h"

namespace {

// `workers` receives --workers as given (a number or auto), read by kiln::set_workers_flag;
// `dropout` receives --dropout, which with_dropout writes into the model's spec.
void add_options(CLI::App& app, kiln::TrainAppOptions& o, std::string& workers,
                 std::optional<float>& dropout) {
  app.add_option("--device", o.device, "cpu, gpu or gpu:N")->capture_default_str();
  app.add_option(
         "--model", o.model,
         "article, lenet5, cnn, mlp:784-512-256-10, gpt:LAYERS-HEADS-WIDTH-CONTEXT[:vocab=N] "
         "(e.g. gpt:4-4-128-64) or gpt2 (GPT-2 small, 124M parameters)")
      ->capture_default_str();
  app.add_option(
         "--data", o.data,
         "fashion-mnist[:DIR], article, csv:PATH[:label=COLUMN][:target=class|float], "
         "npy:FEATURES[,LABELS], images:DIR or tokens:PATH[:chars|:u16][:vocab=N][:context=T]")
      ->capture_default_str();
  app.add_option("--test-data", o.test_data,
                 "a separate test source (same forms as --data): all of its samples are tested, "
                 "and none of --data's is held out");
  kiln::add_number_flag(
      app, "--test-share", o.test_share,
      "the share of the data held out for testing where it has no test split (default 0.1, "
      "every tenth sample; 0: none, no evaluation)",
      {.least = 0, .most = 1, .most_open = true});
  app.add_option("--loss", o.loss, "cross-entropy (class labels) or mse (float targets)")
      ->capture_default_str();
  kiln::add_number_flag(app, "--samples", o.samples,
                        "train samples to use (0: all; the size of the article set)",
                        {.least = 0, .note = "0: all samples"})
      ->capture_default_str();
  kiln::add_number_flag(app, "--epochs", o.epochs, "epochs", {.least = 1})->capture_default_str();
  kiln::add_number_flag(app, "--batch-size", o.batch_size, "samples per step", {.least = 1})
      ->capture_default_str();
  kiln::add_number_flag(app, "--lr", o.lr, "base learning rate", {.least = 0, .least_open = true})
      ->capture_default_str();
  app.add_option("--optimizer", o.optimizer, "sgd, momentum, nesterov, adam or adamw")
      ->capture_default_str();
  kiln::add_number_flag(
      app, "--weight-decay", o.weight_decay,
      "weight decay (default: 0.1 for gpt: models under adamw, as nanoGPT; else 0)", {.least = 0});
  kiln::add_number_flag(app, "--dropout", dropout,
                        "gpt models: the dropout of the embeddings, attention and residuals (the "
                        "same as :dropout=P on the spec; default 0)",
                        {.least = 0, .most = 1, .most_open = true});
  app.add_flag("--no-weight-decay-groups{false}", o.weight_decay_groups,
               "gpt: models under adam/adamw: decay every parameter, not only the matrices");
  kiln::add_number_flag(
      app, "--clip-grad-norm", o.clip_grad_norm,
      "scale the gradients to this global L2 norm at most before each update (0: off; "
      "nanoGPT: 1)",
      {.least = 0, .note = "0: no clipping"})
      ->capture_default_str();
  kiln::add_number_flag(
      app, "--momentum", o.momentum,
      "SGD momentum in [0, 1) (default: 0.9 for momentum and nesterov, 0 for sgd)",
      {.least = 0, .most = 1, .most_open = true});
  app.add_flag("--nesterov", o.nesterov, "Nesterov momentum for --optimizer sgd or momentum");
  kiln::add_number_flag(app, "--beta1", o.beta1, "Adam's first-moment decay in [0, 1)",
                        {.least = 0, .most = 1, .most_open = true})
      ->capture_default_str();
  kiln::add_number_flag(app, "--beta2", o.beta2, "Adam's second-moment decay in [0, 1)",
                        {.least = 0, .most = 1, .most_open = true})
      ->capture_default_str();
  kiln::add_number_flag(app, "--eps", o.eps, "Adam's epsilon, > 0",
                        {.least = 0, .least_open = true})
      ->capture_default_str();
  app.add_option(
         "--schedule", o.schedule,
         "constant, step:N:G, multistep:A,B:G, exp:G, cosine[:MIN_LR[:DECAY_STEPS]] (nanoGPT's "
         "min_lr and lr_decay_iters), or warmup:N+<schedule>")
      ->capture_default_str();
  workers = std::to_string(o.workers);
  app.add_option("--workers", workers,
                 "loader worker threads (0: load in the training thread), or auto: try 0, 1, 2, 4, "
                 "... up to the "
                 "cores (and pinned memory on a GPU) in the first seconds and keep the fastest")
      ->capture_default_str();
  app.add_flag("--pin-memory", o.pin_memory, "page-locked host batches for fast GPU copies");
  app.add_flag("--no-shuffle{false}", o.shuffle, "keep the data in file order");
  kiln::add_number_flag(app, "--threads", o.threads, "CPU compute threads (0: all cores)",
                        {.least = 0, .note = "0: all cores"})
      ->capture_default_str();
  kiln::add_number_flag(app, "--seed", o.seed, "random seed (weights, order, generated data)", {})
      ->capture_default_str();
  app.add_option("--precision", o.precision,
                 "matrix products: fp32 (exact), tf32 (GPU tensor cores) or bf16 (bf16 inputs, "
                 "fp32 sums and master weights; GPU tensor cores, CPU bf16 instructions)")
      ->capture_default_str();
  app.add_option("--checkpoint", o.checkpoint_dir,
                 "folder for checkpoints, written after each epoch");
  app.add_flag(
      "--cuda-graph", o.cuda_graph,
      "GPU: replay each full batch's whole step (forward, backward, update) as one CUDA graph");
  kiln::add_number_flag(app, "--keep-checkpoints", o.keep_checkpoints,
                        "the newest checkpoints kept in --checkpoint", {.least = 1})
      ->capture_default_str();
  app.add_flag(
      "--resume", o.resume,
      "continue from the checkpoint in --checkpoint, which must hold one (to start fresh, drop "
      "--resume or give an empty folder)");
  app.add_option("--init", o.init, "start from the weights of a safetensors file");
  app.add_option("--log-json", o.log_json, "append one JSON line per epoch to this file");
  app.add_option("--tensorboard", o.tensorboard_dir,
                 "write TensorBoard event files (scalars per epoch) into this folder");
  kiln::add_number_flag(
      app, "--tensorboard-histograms", o.tensorboard_histograms,
      "with --tensorboard: weight and gradient histograms every N epochs (0: none)",
      {.least = 0, .note = "0: none"})
      ->capture_default_str();
  app.add_option(
      "--report", o.report_dir,
      "write report.html into this folder, rewritten after each epoch (open it in a browser)");
  app.add_flag("--quiet", o.quiet, "print nothing but errors");
  kiln::add_number_flag(app, "--gpus", o.gpus,
                        "data-parallel over these GPUs from one process, e.g. --gpus 0,1,2 (NCCL)",
                        {.least = 0})
      ->delimiter(',');
  app.add_option("--distributed", o.distributed, "auto (MPI when started by mpirun), none or mpi")
      ->capture_default_str();
  kiln::add_number_flag(app, "--dist-timeout", o.dist_timeout_s,
                        "seconds a collective may wait before the job ends (0: never)",
                        {.least = 0, .note = "0: no watchdog"})
      ->capture_default_str();
  kiln::add_number_flag(app, "--bucket-mb", o.bucket_mb, "gradient all-reduce bucket size in MiB",
                        {.least = 0, .most = 1048576, .least_open = true})
      ->capture_default_str();
  // A run counted in steps (token data, where an epoch of random windows means little).
  auto* steps = kiln::add_number_flag(app, "--steps", o.steps,
                                      "train this many steps in all, instead of --epochs",
                                      {.least = 1, .note = "to train by epochs, drop --steps"});
  kiln::add_number_flag(
      app, "--eval-interval", o.eval_interval,
      "with --steps: evaluate and report every N steps (default: once, at the end)",
      {.least = 0, .note = "0: once, at the end"});
  kiln::add_number_flag(app, "--eval-iters", o.eval_iters,
                        "with --steps: test batches per evaluation (default: all)",
                        {.least = 0, .note = "0: all test batches"});
  steps->excludes(app.get_option("--epochs"));
}

// --dropout P as the GPT spec's :dropout=P, so the run records it with the model (state.json's
// "run"), and resume compares it so.
void with_dropout(kiln::TrainAppOptions& o, std::optional<float> dropout) {
  if (!dropout) return;
  KILN_CHECK(kiln::is_gpt_spec(o.model),
             "--dropout applies to gpt models (gpt:... or gpt2), not to '{}' (cnn has its own "
             "Dropout of 0.3)",
             o.model);
  KILN_CHECK(o.model.find(":dropout=") == std::string::npos,
             "--dropout {} and the spec's own :dropout= in '{}': give one of them", *dropout,
             o.model);
  o.model += fmt::format(":dropout={}", *dropout);
}

// "rank 1 of 4: " under mpirun, so the message says which process failed.
std::string rank_prefix() {
  const auto launch = kiln::mpi_launch_from_environment();
  return launch && launch->world_size > 1 ? "rank " + std::to_string(launch->rank) + " of " +
                                                std::to_string(launch->world_size) + ": "
                                          : std::string();
}

}  // namespace

// Errors print one message and exit 1; Ctrl-C, SIGTERM and SIGHUP finish the step, save a
// checkpoint (with --checkpoint) and exit 128 + the signal's number (130, 143, 129:
// apps/train/stop_signals.h).
int main(int argc, char** argv) {
  kiln::prefer_passive_openmp_waiting(argv);  // core/openmp_wait_policy.h: why
  kiln::TrainAppOptions options;
  std::string workers;
  bool find_batch = false, tune = false;
  CLI::App app{"kiln train: train a network and find out where the time goes"};
  std::optional<float> dropout;
  add_options(app, options, workers, dropout);
  app.add_flag("--find-batch-size", find_batch,
               "find the largest batch that fits and the fastest one");
  app.add_flag("--tune-loader", tune, "try workers x pinned memory and print the best setting");
  if (const auto status = kiln::parse_command_line(app, argc, argv, "train")) return *status;
  if (!options.gpus.empty() && app.count("--device") == 0) options.device = "gpu";
  kiln::install_stop_signals();
  try {
    kiln::check_environment(kiln::train_environment_variables());  // before any data is read
    kiln::set_workers_flag(workers, options);
    with_dropout(options, dropout);
    if (tune) {
      kiln::tune_loader(options, std::cout);
      return 0;
    }
    if (find_batch) {
      const bool gpu = kiln::Device::parse(options.device).is_cuda();
      kiln::find_batch_size(options, std::cout, 32, gpu ? 65536 : 4096);
      return 0;
    }
    const kiln::TrainResult result = kiln::train(options, std::cout, kiln::stop_requested());
    if (result.interrupted) {
      std::cout << "interrupted by " << kiln::stop_signal_name()
                << (options.checkpoint_dir.empty()
                        ? "; no --checkpoint folder, so nothing was saved\n"
                        : "; checkpoint saved in " + options.checkpoint_dir +
                              " (continue with --resume)\n");
      return kiln::stop_exit_status();
    }
    return 0;
  } catch (const kiln::Interrupted& e) {  // a stop signal before training began: nothing saved
    if (!options.quiet)
      std::cout << "interrupted by " << kiln::stop_signal_name() << " (" << e.what()
                << "); nothing was trained or saved\n";
    return kiln::stop_exit_status();
  } catch (const kiln::RanksDisagree& e) {
    // Every rank threw it at the same check: rank 0 speaks for the job, and as no rank waits on
    // another, each ends on its own (an abort could kill rank 0 before it has printed).
    const auto launch = kiln::mpi_launch_from_environment();
    if (!launch || launch->rank == 0) std::cerr << "train: " << e.what() << "\n";
    return 1;
  } catch (const kiln::Error& e) {
    std::cerr << "train: " << rank_prefix() << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "train: " << rank_prefix() << "unexpected error: " << e.what() << "\n";
  }
  kiln::abort_mpi_job_if_running(1);  // the other ranks would wait for this one forever
  return 1;
}
