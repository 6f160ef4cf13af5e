// Builds kiln::Error messages; the message leads, the location follows on its own.
#include "kiln/core/error.h"

namespace kiln {

Error::Error(std::string message, std::string where)
    : std::runtime_error(in_words(message, api_setting_words())), where_(std::move(where)),
      text_(std::move(message)) {}

namespace detail {

namespace {
const char* base_name(const char* path) {
  const char* base = path;
  for (const char* p = path; *p != '\0'; ++p)
    if (*p == '/') base = p + 1;
  return base;
}
}  // namespace

void throw_error(const char* file, int line, std::string message) {
  throw Error(std::move(message), fmt::format("{}:{}", base_name(file), line));
}

void throw_check_failed(const char* file, int line, const char* condition, std::string message) {
  throw Error(std::move(message),
              fmt::format("{}:{} (check '{}')", base_name(file), line, condition));
}

void throw_built_without_cuda(const char* what) {
  throw Error(fmt::format("{} needs CUDA, but this kiln was built without CUDA; rebuild with the "
                          "CUDA toolkit installed (-DKILN_CUDA=ON) or use {}",
                          what, Setting::cpu_device),
              "kiln");
}

}  // namespace detail
}  // namespace kiln
