// Units are numbered, so a new one never takes the name of one a reader may still be opening;
// leftovers are recognised by name: ".ckpt-N.tmp" (a unit being written), units numbered past
// `latest` (written but never published), "*.tmp" links and files of an interrupted rename.
#include "kiln/checkpoint/checkpoint_folder.h"

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "kiln/core/error.h"
#include "kiln/core/excerpt.h"
#include "kiln/io/durable_file.h"

namespace fs = std::filesystem;

namespace kiln {

namespace {

constexpr std::string_view kUnitPrefix = "ckpt-";
// What an interrupted link replacement (replace_link) or a writer of the first layout leaves.
constexpr std::string_view kTemporaryNames[] = {"latest.tmp", "model.safetensors.tmp",
                                                "optimizer.safetensors.tmp", "state.json.tmp"};

// Runs f, turning a std::filesystem error (a loop of links, a name too long, no permission) into
// a kiln::Error naming the checkpoint folder and the path the file system refused.
template <typename F> auto naming_the_path(const std::string& dir, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const fs::filesystem_error& e) {
    KILN_THROW("checkpoint folder '{}': cannot use '{}': {}", dir, e.path1().string(),
               e.code().message());
  }
}

// The number of a unit's name ("ckpt-000007" -> 7), or -1 for any other name.
long long unit_number(std::string_view name) {
  if (!name.starts_with(kUnitPrefix) || name.size() == kUnitPrefix.size()) return -1;
  name.remove_prefix(kUnitPrefix.size());
  long long n = -1;
  const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), n);
  return ec == std::errc() && end == name.data() + name.size() && n >= 0 ? n : -1;
}

std::string unit_name(long long n) { return fmt::format("{}{:06}", kUnitPrefix, n); }

// The number of the unit `latest` names, -1 when there is no `latest`.
long long latest_number(const fs::path& dir) {
  const fs::path latest = dir / "latest";
  if (!fs::is_symlink(latest)) return -1;
  const std::string target = fs::read_symlink(latest).string();
  const long long n = unit_number(target);
  KILN_CHECK(n >= 0, "'{}' points to {}, which is not a checkpoint unit of this folder (ckpt-N)",
             latest.string(), excerpt(target));
  return n;
}

// Points `link` at `target` with one rename over whatever `link` was.
void replace_link(const fs::path& link, const std::string& target) {
  const fs::path temporary = link.string() + ".tmp";
  std::error_code ec;
  fs::remove(temporary, ec);
  fs::create_symlink(target, temporary, ec);
  KILN_CHECK(!ec, "cannot create the link '{}': {}", temporary.string(), ec.message());
  fs::rename(temporary, link, ec);
  KILN_CHECK(!ec, "cannot rename '{}' to '{}': {}", temporary.string(), link.string(),
             ec.message());
}

// `dir`, created if missing; checked before the lock file is made in it.
const std::string& checked_folder(const std::string& dir, int keep) {
  KILN_CHECK(keep >= 1, "{} must be at least 1, found {}", Setting::keep_checkpoints, keep);
  KILN_CHECK(!fs::exists(dir) || fs::is_directory(dir),
             "{} '{}' is a file, not a folder: give a folder (it is created if missing)",
             Setting::checkpoint_dir, dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  KILN_CHECK(!ec, "cannot create checkpoint folder '{}': {}", dir, ec.message());
  return dir;
}

// The names kiln keeps as links in the folder: `latest`, and each piece of a unit through it.
constexpr std::string_view kLinkNames[] = {"latest", "model.safetensors", "optimizer.safetensors",
                                           "state.json"};

// A file of the user's where kiln keeps a link would be replaced at the first save, without a
// word: refused before training. A state.json that is a regular file marks the first layout
// (kiln's own files, in the folder itself), which a save replaces by design.
void check_no_user_files(const fs::path& dir) {
  if (fs::is_regular_file(fs::symlink_status(dir / "state.json"))) return;
  for (const std::string_view name : kLinkNames) {
    const fs::path path = dir / name;
    const fs::file_status status = fs::symlink_status(path);
    KILN_CHECK(!fs::exists(status) || fs::is_symlink(status),
               "checkpoint folder '{}' holds '{}', a {} of its own where kiln keeps a link to "
               "{}: a save would replace it; move it out of the folder, or give another {}",
               dir.string(), std::string(name), fs::is_directory(status) ? "folder" : "file",
               name == "latest" ? std::string("ckpt-N") : "latest/" + std::string(name),
               Setting::checkpoint_dir);
  }
}

const std::string& created_folder(const std::string& dir, int keep) {
  return naming_the_path(dir, [&]() -> const std::string& { return checked_folder(dir, keep); });
}

}  // namespace

CheckpointFolder::CheckpointFolder(const std::string& dir, int keep)
    : dir_(dir), keep_(keep), lock_(created_folder(dir, keep), "checkpoint folder") {
  naming_the_path(dir_, [&] {
    check_no_user_files(dir_);
    remove_leftovers();
  });
}

void CheckpointFolder::remove_leftovers() const {
  const long long latest = latest_number(dir_);
  std::vector<std::pair<long long, fs::path>> published;
  for (const fs::directory_entry& e : fs::directory_iterator(dir_)) {
    const std::string name = e.path().filename().string();
    const long long n = unit_number(name);
    const bool temporary = (name.starts_with(".ckpt-") && name.ends_with(".tmp")) ||
                           std::find(std::begin(kTemporaryNames), std::end(kTemporaryNames),
                                     name) != std::end(kTemporaryNames);
    std::error_code ec;
    if (temporary || (n >= 0 && n > latest))
      fs::remove_all(e.path(), ec);
    else if (n >= 0)
      published.emplace_back(n, e.path());
  }
  std::sort(published.rbegin(), published.rend());
  for (std::size_t i = static_cast<std::size_t>(keep_); i < published.size(); ++i) {
    std::error_code ec;
    fs::remove_all(published[i].second, ec);
  }
}

void CheckpointFolder::publish(const std::vector<std::pair<std::string, std::string>>& pieces) {
  naming_the_path(dir_, [&] { publish_unit(pieces); });
}

void CheckpointFolder::publish_unit(
    const std::vector<std::pair<std::string, std::string>>& pieces) {
  long long next = std::max(1LL, latest_number(dir_) + 1);  // units count from ckpt-000001
  for (const fs::directory_entry& e : fs::directory_iterator(dir_))
    next = std::max(next, unit_number(e.path().filename().string()) + 1);
  const std::string name = unit_name(next);
  const fs::path temporary = fs::path(dir_) / ("." + name + ".tmp");
  std::error_code ec;
  fs::remove_all(temporary, ec);
  fs::create_directory(temporary, ec);
  KILN_CHECK(!ec, "cannot create '{}': {}", temporary.string(), ec.message());
  for (const auto& [file, bytes] : pieces) write_file_durably((temporary / file).string(), bytes);
  sync_folder(temporary.string());
  fs::rename(temporary, fs::path(dir_) / name, ec);
  KILN_CHECK(!ec, "cannot rename '{}' to '{}': {}", temporary.string(), name, ec.message());
  sync_folder(dir_);
  replace_link(fs::path(dir_) / "latest", name);  // the moment the new checkpoint counts
  for (const auto& [file, bytes] : pieces) {
    const fs::path link = fs::path(dir_) / file;
    const std::string target = "latest/" + file;
    if (!fs::is_symlink(link) || fs::read_symlink(link) != target) replace_link(link, target);
  }
  sync_folder(dir_);
  remove_leftovers();
}

namespace {

std::optional<std::string> find_unit(const std::string& dir) {
  const long long latest = latest_number(dir);
  if (latest >= 0) {
    const fs::path unit = fs::path(dir) / fs::read_symlink(fs::path(dir) / "latest");
    KILN_CHECK(fs::is_directory(unit),
               "'{}/latest' names the checkpoint {}, which is missing: was it deleted? Point "
               "'latest' at another ckpt-N folder, or start fresh without {}",
               dir, unit.string(), Setting::resume);
    return unit.string();
  }
  if (fs::is_regular_file(fs::path(dir) / "state.json")) return dir;  // the first layout
  return std::nullopt;
}

}  // namespace

std::optional<std::string> find_checkpoint(const std::string& dir) {
  return naming_the_path(dir, [&] { return find_unit(dir); });
}

}  // namespace kiln
