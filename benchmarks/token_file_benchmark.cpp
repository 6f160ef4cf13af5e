// kiln_token_file_benchmark: what a token file's size costs before the first training step. For
// each size it writes a synthetic nanoGPT train.bin under /tmp, opens it in a fresh child process
// as the train app does and takes a first batch, and one deep inside the epoch (as resuming does),
// printing the times and the memory as the table docs/performance.md keeps.
//   kiln_token_file_benchmark --sizes 10M,100M,1G --context 1024 --batch-size 12
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <kiln/core/error.h>
#include <kiln/data/data_loader.h>
#include <kiln/data/token_file.h>
#include <kiln/data/token_window_dataset.h>

namespace {

struct Options {
  std::vector<std::int64_t> sizes{10 << 20, 100 << 20, std::int64_t{1} << 30};
  std::int64_t context = 1024;
  std::int64_t batch_size = 12;
  std::int64_t resume_batch = 100000;  // the batch a resumed run starts at
  int workers = 2;
  std::string folder = "/tmp";
};

// "10M" -> 10 MiB, "1G" -> 1 GiB, "4096" -> 4096 bytes.
std::int64_t parse_size(const std::string& text) {
  std::size_t used = 0;
  const double value = std::stod(text, &used);
  const std::string unit = text.substr(used);
  const double scale = unit == "K"   ? 1024.0
                       : unit == "M" ? 1048576.0
                       : unit == "G" ? 1073741824.0
                                     : 1.0;
  KILN_CHECK(unit.empty() || scale > 1.0, "size {}: expected a number with K, M or G", text);
  return static_cast<std::int64_t>(value * scale) / 2 * 2;  // whole uint16 tokens
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--sizes") {
      o.sizes.clear();
      std::stringstream in(value);
      for (std::string item; std::getline(in, item, ',');) o.sizes.push_back(parse_size(item));
    } else if (key == "--context") {
      o.context = std::atoll(value.c_str());
    } else if (key == "--batch-size") {
      o.batch_size = std::atoll(value.c_str());
    } else if (key == "--resume-batch") {
      o.resume_batch = std::atoll(value.c_str());
    } else if (key == "--workers") {
      o.workers = std::atoi(value.c_str());
    } else if (key == "--folder") {
      o.folder = value;
    } else {
      KILN_THROW(
          "unknown option {}: expected --sizes, --context, --batch-size, --resume-batch, "
          "--workers or --folder",
          key);
    }
  }
  return o;
}

// A raw uint16 file of `bytes` bytes of ids below 50257, written 1 MiB at a time.
void write_tokens(const std::string& path, std::int64_t bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  std::vector<std::uint16_t> chunk(1 << 19);
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  for (std::int64_t left = bytes / 2; left > 0;) {
    const auto n = static_cast<std::size_t>(std::min<std::int64_t>(left, std::ssize(chunk)));
    for (std::size_t i = 0; i < n; ++i) {
      state ^= state << 13, state ^= state >> 7, state ^= state << 17;  // xorshift64
      chunk[i] = static_cast<std::uint16_t>(state % 50257);
    }
    out.write(reinterpret_cast<const char*>(chunk.data()), static_cast<std::streamsize>(2 * n));
    left -= static_cast<std::int64_t>(n);
  }
  KILN_CHECK(out.good(), "writing {} failed", path);
}

// A field of /proc/self/status in MiB ("VmHWM", "RssAnon", "RssFile").
double status_mib(const std::string& field) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(field + ":", 0) == 0) return std::atof(line.c_str() + field.size() + 1) / 1024.0;
  return -1.0;
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// One row, measured in this (child) process from its own start: the file opened as the train app
// does (tokens:PATH:u16, GPT-2's padded vocabulary, random windows of --context tokens), a
// shuffled DataLoader, its first batch and a first batch deep inside the epoch; the times, the
// peak resident memory (VmHWM) and, at the first batch, the anonymous memory (RssAnon) and the
// mapped file's resident pages (RssFile).
void measure(const std::string& path, std::int64_t bytes, const Options& o) {
  std::ofstream("/proc/self/clear_refs") << "5";  // VmHWM restarts from the current RSS
  const double floor_mib = status_mib("VmHWM");
  const auto start = std::chrono::steady_clock::now();
  auto tokens = std::make_shared<const kiln::TokenSequence>(
      path, kiln::TokenFileOptions{.encoding = kiln::TokenEncoding::u16, .vocab_size = 50304});
  const double open_ms = ms_since(start);
  auto windows = std::make_shared<kiln::TokenWindowDataset>(
      tokens, kiln::TokenWindowOptions{.context = o.context, .seed = 1});
  kiln::DataLoader loader(
      windows,
      kiln::DataLoaderOptions{.batch_size = o.batch_size, .seed = 1, .num_workers = o.workers});
  const auto first = loader.begin();
  const double first_ms = ms_since(start);
  const double anon = status_mib("RssAnon"), file = status_mib("RssFile");
  const std::int64_t resume = std::min(o.resume_batch, loader.batches_per_epoch() - 1);
  const auto resume_start = std::chrono::steady_clock::now();
  loader.set_epoch(0);
  const auto resumed = loader.begin_at(resume);
  const double resume_ms = ms_since(resume_start);
  std::printf("| %.0f MiB | %lld | %.1f | %.1f | %.2f (batch %lld) | %.1f | %.1f | %.1f |\n",
              static_cast<double>(bytes) / 1048576.0, static_cast<long long>(windows->size()),
              open_ms, first_ms, resume_ms, static_cast<long long>(resume),
              status_mib("VmHWM") - floor_mib, anon, file);
  std::fflush(stdout);
}

}  // namespace

// Each file is written here, measured in a fresh child and removed afterwards.
int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    std::printf("context %lld, batch %lld, %d workers, uint16 ids (vocabulary 50304)\n\n",
                static_cast<long long>(o.context), static_cast<long long>(o.batch_size), o.workers);
    std::printf(
        "| file | windows | open (ms) | first batch (ms, from open) | resume at a deep "
        "batch (ms) | peak RSS above the floor (MiB) | RssAnon at first batch (MiB) | "
        "RssFile at first batch (MiB) |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n");
    std::fflush(stdout);
    for (const std::int64_t bytes : o.sizes) {
      const std::string path = o.folder + "/kiln-token-bench-" + std::to_string(getpid()) + "-" +
                               std::to_string(bytes) + ".bin";
      write_tokens(path, bytes);
      const pid_t child = fork();
      if (child == 0) {
        int rc = 0;
        try {
          measure(path, bytes, o);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "kiln_token_file_benchmark: %s\n", e.what());
          rc = 1;
        }
        std::fflush(stdout);
        _exit(rc);
      }
      int status = 0;
      waitpid(child, &status, 0);
      std::remove(path.c_str());
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kiln_token_file_benchmark: %s\n", e.what());
    return 1;
  }
}
