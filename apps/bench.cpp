// bench: the article's CPU-vs-GPU table on the hardware at hand. For each device (the CPU at each
// thread count asked, then every GPU) it trains the article workload for one measured epoch and
// prints the epoch time beside the article's figures; the table is also written as Markdown, CSV
// and an SVG chart. bench --loader runs the article's data-loading sweep instead.
#include <CLI/CLI.hpp>

#include "apps/support/number_flags.h"

#include <fcntl.h>

#include <filesystem>
#include <iostream>
#include <sstream>

#include <kiln/core/environment.h>
#include <kiln/core/openmp_wait_policy.h>
#include <kiln/core/output_file.h>
#include <kiln/kiln.h>
#include "apps/reporting/scaling_table.h"
#include "apps/reporting/speedup_table.h"
#include "apps/reporting/tuning.h"
#include "apps/train/train_options.h"

namespace {

struct BenchOptions {
  std::int64_t samples = 160000;
  std::int64_t batch_size = 256;
  std::vector<int> threads;  // empty: the default thread count only
  bool cpu = true;
  bool gpu = true;
  int workers = 2;
  std::string out_dir = "bench-results";
  std::string precision = "fp32";  // of every row (tf32: the GPU rows; the CPU ones stay fp32)
  bool cuda_graph = false;         // of the GPU rows
  bool loader = false;
  std::string images = "fmnist-images";  // kiln-export-images --out writes it
  kiln::LoaderSweep sweep;
};

// The article workload: the 5-layer network on the 160,000-sample article set.
kiln::TrainAppOptions article_workload(const BenchOptions& b, const std::string& device) {
  kiln::TrainAppOptions o;
  o.device = device;
  o.model = "article";
  o.data = "article";
  o.samples = b.samples;
  o.epochs = 1;
  o.batch_size = b.batch_size;
  o.optimizer = "momentum";
  o.schedule = "constant";
  o.workers = b.workers;
  o.pin_memory = device != "cpu";
  o.precision = device == "cpu" && b.precision == "tf32" ? "fp32" : b.precision;
  o.cuda_graph = device != "cpu" && b.cuda_graph;
  o.evaluate = false;
  o.quiet = true;
  return o;
}

// Seconds per 160,000-sample epoch, after a warm-up of a few steps.
kiln::SpeedupRow measure(const BenchOptions& b, const std::string& device,
                         const std::string& label) {
  kiln::TrainAppOptions o = article_workload(b, device);
  std::ostringstream silent;
  kiln::TrainAppOptions warm = o;
  warm.max_steps = 5;
  kiln::train(warm, silent);
  const kiln::EpochReport r = kiln::train(o, silent).epochs.at(0);
  const double per_epoch = r.wall_s * 160000.0 / static_cast<double>(r.samples);
  std::string note =
      r.samples == 160000 ? "measured" : fmt::format("scaled from {} samples", r.samples);
  note += fmt::format(", batch {}, data wait {:.1f} %", b.batch_size,
                      r.stage_percent(kiln::Stage::data_wait));
  std::cout << fmt::format("  {:<34} {:8.1f} s per epoch ({:.0f} samples/s)\n", label, per_epoch,
                           r.samples_per_s)
            << std::flush;
  return {label, per_epoch, false, note};
}

void write(const std::string& path, const std::string& text) {
  kiln::write_output_file(path, text, "the --out");
}

// The article's data-loading sweep (workers x pinned memory x batch size) on Fashion-MNIST written
// as an image folder, where decoding makes the loader matter.
int run_loader_sweep(const BenchOptions& b) {
  const std::filesystem::path train_dir = std::filesystem::path(b.images) / "train";
  KILN_CHECK(std::filesystem::is_directory(train_dir),
             "bench --loader reads Fashion-MNIST as an image folder and '{}' does not exist; write "
             "it first "
             "with: build/apps/kiln-export-images --out {} (60,000 + 10,000 PNGs, about a minute), "
             "or name "
             "another folder with --images DIR",
             train_dir.string(), b.images);
  kiln::TrainAppOptions o =
      article_workload(b, b.gpu && kiln::cuda_device_count() > 0 ? "gpu" : "cpu");
  o.data = "images:" + b.images;
  o.samples = 0;
  kiln::loader_sweep(o, b.sweep, std::cout);
  return 0;
}

// --out is created and proved writable before anything is measured, so a bad path costs nothing.
void prepare_out_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  KILN_CHECK(!ec && std::filesystem::is_directory(dir), "cannot create the --out folder '{}': {}",
             dir, ec ? ec.message() : "a file of that name exists");
  const std::string probe = dir + "/speedup.md";
  kiln::OutputFile(probe, O_WRONLY | O_APPEND | O_CREAT, "the --out");
}

int run(BenchOptions b) {
  if (b.loader) return run_loader_sweep(b);
  KILN_CHECK(b.samples > 0 && b.batch_size > 0, "--samples and --batch-size must be positive");
  prepare_out_dir(b.out_dir);
  KILN_CHECK(b.cpu || kiln::cuda_device_count() > 0,
             "--gpu-only (--device=gpu) needs a GPU, and none can be used: {}; "
             "measure the CPU with --device=cpu",
             kiln::cuda_unavailable_reason());
  std::cout << fmt::format(
      "kiln bench: the article workload (784-1024-1024-1024-1024-10 MLP, {} samples "
      "per measured epoch, batch {})\n",
      b.samples, b.batch_size);
  std::vector<kiln::SpeedupRow> rows = kiln::article_rows();
  if (b.cpu) {
    if (b.threads.empty()) b.threads.push_back(kiln::num_threads());
    for (int t : b.threads) {
      kiln::set_num_threads(t);
      const std::string precision = b.precision == "tf32" ? "fp32" : b.precision;
      rows.push_back(measure(
          b, "cpu",
          fmt::format("CPU, {} thread{} (this machine, {})", t, t == 1 ? "" : "s", precision)));
    }
  }
  if (b.gpu) {
    for (int i = 0; i < kiln::cuda_device_count(); ++i) {
      const kiln::Device d = kiln::Device::cuda(i);
      const std::string label =
          fmt::format("{} ({}, {})", kiln::device_name(d), d.str(), b.precision);
      rows.push_back(measure(b, d.str(), label));
    }
    if (kiln::cuda_device_count() == 0)
      std::cout << "  no GPU: " << kiln::cuda_unavailable_reason() << "\n";
  }
  const std::string markdown = kiln::speedup_markdown(rows);
  std::cout << "\n" << markdown;
  std::filesystem::create_directories(b.out_dir);
  write(b.out_dir + "/speedup.md", markdown);
  write(b.out_dir + "/speedup.csv", kiln::speedup_csv(rows));
  write(b.out_dir + "/speedup.svg", kiln::speedup_svg(rows));
  write(b.out_dir + "/speedup.html", kiln::speedup_html(rows));
  std::cout << fmt::format(
      "\nwrote {0}/speedup.md, {0}/speedup.csv, {0}/speedup.svg and {0}/speedup.html\n", b.out_dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  kiln::prefer_passive_openmp_waiting(argv);  // core/openmp_wait_policy.h: why
  BenchOptions b;
  bool cpu_only = false, gpu_only = false;
  CLI::App app{"kiln bench: the article's CPU-vs-GPU epoch-time table on this machine"};
  kiln::add_number_flag(app, "--samples", b.samples,
                        "samples per measured epoch (times are scaled to 160,000)", {.least = 1})
      ->capture_default_str();
  kiln::add_number_flag(app, "--batch-size", b.batch_size, "batch size", {.least = 1})
      ->capture_default_str();
  kiln::add_number_flag(app, "--threads", b.threads,
                        "CPU thread counts to measure, e.g. --threads 1 2", {.least = 1});
  kiln::add_number_flag(app, "--workers", b.workers, "loader workers", {.least = 0})
      ->capture_default_str();
  app.add_flag("--cpu-only", cpu_only, "measure the CPU only");
  app.add_flag("--gpu-only", gpu_only, "measure the GPUs only");
  std::string device;
  app.add_option("--device", device, "cpu or gpu: the same as --cpu-only or --gpu-only")
      ->check(CLI::IsMember({"cpu", "gpu"}))
      ->excludes("--cpu-only", "--gpu-only");
  app.add_option("--out", b.out_dir,
                 "folder for speedup.md, speedup.csv, speedup.svg and speedup.html")
      ->capture_default_str();
  app.add_option("--precision", b.precision,
                 "matrix products: fp32, tf32 (GPU rows) or bf16 (core/precision.h)")
      ->capture_default_str();
  app.add_flag("--cuda-graph", b.cuda_graph,
               "GPU rows: each step (forward, backward, update) as one CUDA graph");
  app.add_flag(
      "--loader", b.loader,
      "instead of the speedup table: the data-loading sweep, workers x pinned memory x batch size");
  app.add_option("--images", b.images,
                 "--loader: Fashion-MNIST image folder (kiln-export-images --out DIR)")
      ->capture_default_str();
  kiln::add_number_flag(app, "--loader-workers", b.sweep.workers, "--loader: worker counts to try",
                        {.least = 0})
      ->capture_default_str();
  kiln::add_number_flag(app, "--loader-batch-sizes", b.sweep.batch_sizes,
                        "--loader: batch sizes to try", {.least = 1})
      ->capture_default_str();
  kiln::add_number_flag(app, "--loader-steps", b.sweep.steps,
                        "--loader: training steps per setting (0: a whole epoch)",
                        {.least = 0, .note = "0: a whole epoch"})
      ->capture_default_str();
  std::vector<int> scaling;
  kiln::add_number_flag(app, "--scaling", scaling,
                        "instead: samples/s on the CPU as 1, 2, ... MPI ranks, e.g. --scaling 1,2",
                        {.least = 1})
      ->delimiter(',');
  std::string mpirun_args;
  app.add_option(
      "--mpirun-args", mpirun_args,
      "--scaling: more words for mpirun, e.g. --mpirun-args='-H node1,node2 --mca btl tcp,self' "
      "for one rank per host");
  if (const auto status = kiln::parse_command_line(app, argc, argv, "bench")) return *status;
  cpu_only = cpu_only || device == "cpu";
  gpu_only = gpu_only || device == "gpu";
  b.cpu = !gpu_only;
  b.gpu = !cpu_only;
  try {
    kiln::check_environment();  // the KILN_* variables, before anything is measured
    if (!scaling.empty()) {     // each size is an `mpirun -np k train ...` beside this program
      prepare_out_dir(b.out_dir);
      const auto train = std::filesystem::canonical("/proc/self/exe").parent_path() / "train";
      kiln::ScalingJob job =
          kiln::article_scaling_job(train.string(), b.samples, b.batch_size, b.workers,
                                    b.threads.empty() ? 1 : b.threads.front(), b.out_dir);
      std::istringstream words(mpirun_args);  // split on white space, as a shell would unquoted
      for (std::string word; words >> word;) job.mpirun_args.push_back(word);
      kiln::run_scaling_bench(job, scaling, std::cout);
      return 0;
    }
    return run(b);
  } catch (const kiln::Error& e) {
    std::cerr << "bench: " << e.what() << "\n";
    return 1;
  }
}
