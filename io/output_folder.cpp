// create_output_folder (io/output_folder.h).
#include "kiln/io/output_folder.h"

#include <filesystem>
#include <system_error>

#include "kiln/core/error.h"

namespace kiln {

void create_output_folder(const std::string& dir, std::string_view what) {
  namespace fs = std::filesystem;
  KILN_CHECK(!dir.empty(), "{} folder is empty: give a folder (it is created if missing)", what);
  std::error_code ec;
  KILN_CHECK(!fs::exists(dir, ec) || fs::is_directory(dir, ec),
             "{} folder '{}' is a file, not a folder: give a folder (it is created if missing)",
             what, dir);
  fs::create_directories(dir, ec);
  KILN_CHECK(!ec, "cannot create {} folder '{}': {}", what, dir, ec.message());
}

}  // namespace kiln
