// kiln_loader_benchmark: batches per second of the DataLoader over an image folder (PNG decoding is
// the bottleneck), for several worker counts, with pinned host memory off and, where CUDA works,
// on, printed as the markdown table docs/performance.md keeps.
//   kiln-export-images --out /tmp/fmnist-png --split train
//   kiln_loader_benchmark --folder /tmp/fmnist-png/train --workers 0,1,2,4,8
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <kiln/core/device.h>
#include <kiln/core/error.h>
#include <kiln/core/stream.h>
#include <kiln/data/data_loader.h>
#include <kiln/data/image_folder_dataset.h>

namespace {

struct Options {
  std::string folder = "/tmp/fmnist-png/train";
  std::int64_t batch_size = 256;
  std::int64_t batches = 100;  // per configuration (0: a whole epoch)
  std::vector<int> workers{0, 1, 2, 4, 8};
  std::string device = "cpu";  // "gpu" copies each batch to the device, as training would
};

std::vector<int> parse_list(const char* text) {
  std::vector<int> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stoi(item));
  return out;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--folder")
      o.folder = argv[i + 1];
    else if (key == "--batch-size")
      o.batch_size = std::atoll(argv[i + 1]);
    else if (key == "--batches")
      o.batches = std::atoll(argv[i + 1]);
    else if (key == "--workers")
      o.workers = parse_list(argv[i + 1]);
    else if (key == "--device")
      o.device = argv[i + 1];
    else
      KILN_THROW(
          "unknown option {}: expected --folder, --batch-size, --batches, --workers or --device",
          key);
  }
  return o;
}

void run(const Options& o, const std::shared_ptr<const kiln::Dataset>& data, int workers,
         bool pin) {
  kiln::DataLoaderOptions lo{.batch_size = o.batch_size,
                             .seed = 1,
                             .drop_last = true,
                             .num_workers = workers,
                             .pin_memory = pin,
                             .device = kiln::Device::parse(o.device)};
  kiln::DataLoader loader(data, lo);
  const std::int64_t target =
      o.batches > 0 ? std::min(o.batches, loader.batches_per_epoch()) : loader.batches_per_epoch();
  std::int64_t seen = 0;
  const auto start = std::chrono::steady_clock::now();
  for (const kiln::Batch& b : loader) {
    (void)b;
    if (++seen == target) break;
  }
  if (lo.device.is_cuda()) kiln::Stream::current(lo.device).synchronize();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const kiln::LoaderStats s = loader.stats();
  double busy = 0.0;
  for (double ms : s.worker_busy_ms) busy += ms;
  std::printf("| %7d | %-3s | %9.1f | %10.0f | %14.2f | %9.2f / %-3lld | %12.0f |\n", workers,
              pin ? "on" : "off", static_cast<double>(seen) / seconds,
              static_cast<double>(seen * o.batch_size) / seconds,
              s.wait_ms / static_cast<double>(std::max<std::int64_t>(1, s.batches)),
              s.mean_queue_occupancy, static_cast<long long>(s.queue_capacity),
              busy / (seconds * 10.0));
  std::fflush(stdout);
}

}  // namespace

// A plain timed program rather than Google Benchmark: one row per configuration, each a full pass
// over the same batches.
int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    auto data = std::make_shared<kiln::ImageFolderDataset>(
        o.folder, kiln::ImageFolderOptions{.mean = {0.2860f}, .stddev = {0.3530f}});
    std::printf("%s; batch %lld, %lld batches per row, %u hardware threads, delivered to %s\n",
                data->describe().c_str(), static_cast<long long>(o.batch_size),
                static_cast<long long>(o.batches), std::thread::hardware_concurrency(),
                o.device.c_str());
    std::printf(
        "| workers | pin | batches/s | samples/s | wait ms/batch | occupancy / cap | worker busy "
        "%% |\n");
    std::printf(
        "| ------: | --- | --------: | --------: | ------------: | --------------: | -----------: "
        "|\n");
    for (bool pin : {false, true}) {
      if (pin && !kiln::cuda_available()) {
        std::printf("(pin_memory on skipped: %s)\n", kiln::cuda_unavailable_reason().c_str());
        continue;
      }
      for (int w : o.workers) run(o, data, w, pin);
    }
    return 0;
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "kiln_loader_benchmark: %s\n", e.what());
    if (std::strstr(e.what(), "does not exist") != nullptr)
      std::fprintf(
          stderr,
          "make the folder first: kiln-export-images --out /tmp/fmnist-png --split train\n");
    return 1;
  }
}
