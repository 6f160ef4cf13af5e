// kiln-export-images: writes Fashion-MNIST as an image folder,
// <out>/<train|test>/<label>/<index>.png (index zero-padded, so name order is index order), so that
// the image-folder data set and the loader's decoding path run on real data. Labels are folder
// names 0-9, which sort as labels.
#include <CLI/CLI.hpp>

#include "apps/support/number_flags.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <vector>

#include <kiln/core/error.h>
#include <kiln/data/idx_dataset.h>
#include <kiln/data/image_io.h>

namespace {

struct Options {
  std::string data;  // folder of the IDX files; empty: Debian's
  std::string out;
  std::string split = "both";
  std::string format = "png";
  std::int64_t limit = 0;  // 0: all
  int threads = 0;         // 0: one per core
};

void export_split(const Options& o, kiln::Split split) {
  const auto data = kiln::fashion_mnist(split, o.data);
  const std::int64_t n = o.limit > 0 ? std::min(o.limit, data->size()) : data->size();
  const std::filesystem::path root = std::filesystem::path(o.out) / kiln::split_name(split);
  for (int c = 0; c < data->num_classes(); ++c)
    std::filesystem::create_directories(root / std::to_string(c));
  const kiln::Shape shape = data->sample_shape();  // (1, rows, cols)
  const int threads = o.threads > 0
                          ? o.threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<std::int64_t> next{0};
  std::vector<std::string> errors(static_cast<std::size_t>(threads));
  auto work = [&](int t) {
    try {
      kiln::Image8 image{shape[1], shape[2], 1, {}};
      for (std::int64_t i = next++; i < n; i = next++) {
        const std::uint8_t* bytes = data->image_bytes(i);
        image.pixels.assign(bytes, bytes + shape[1] * shape[2]);
        const auto path =
            root / std::to_string(data->label(i)) / fmt::format("{:05}.{}", i, o.format);
        if (o.format == "png")
          kiln::write_png(path.string(), image);
        else
          kiln::write_jpeg(path.string(), image);
      }
    } catch (const std::exception& e) {
      errors[static_cast<std::size_t>(t)] = e.what();
      next = n;  // stop the others too
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(work, t);
  for (std::thread& t : pool) t.join();
  for (const std::string& e : errors) KILN_CHECK(e.empty(), "{}", e);
  std::printf("%s: %lld images -> %s\n", data->describe().c_str(), static_cast<long long>(n),
              root.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"Export Fashion-MNIST as an image folder: <out>/<train|test>/<label>/<index>.png"};
  app.add_option(
      "--data", o.data,
      "folder with the Fashion-MNIST IDX files (default: /usr/share/datasets/fashion-mnist)");
  app.add_option("--out", o.out, "output folder")->required();
  app.add_option("--split", o.split, "train, test or both")
      ->check(CLI::IsMember({"train", "test", "both"}));
  app.add_option("--format", o.format, "png or jpg")->check(CLI::IsMember({"png", "jpg"}));
  kiln::add_number_flag(app, "--limit", o.limit,
                        "export only the first N images of each split (0: all)",
                        {.least = 0, .note = "0: all"});
  kiln::add_number_flag(app, "--threads", o.threads, "threads writing images (0: one per core)",
                        {.least = 0, .note = "0: one per core"});
  if (const auto status = kiln::parse_command_line(app, argc, argv, "kiln-export-images"))
    return *status;
  try {
    const auto start = std::chrono::steady_clock::now();
    if (o.split != "test") export_split(o, kiln::Split::train);
    if (o.split != "train") export_split(o, kiln::Split::test);
    std::printf("done in %.1f s\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return 0;
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "kiln-export-images: %s\n", e.what());
    return 1;
  }
}
