// check_environment: every KILN_* variable the library reads is checked at once, and a bad value
// is an error naming the variable (and escaping the value); unset and good values pass.
#include "kiln/core/environment.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "kiln/core/cpu_compute.h"
#include "tests/support/error_testing.h"

using kiln::testing::error_message;

namespace {

// Sets `name` to `value` for the scope, restoring what it was.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    if (old != nullptr) old_ = old;
    had_ = old != nullptr;
    ::setenv(name, value, 1);
  }
  ~ScopedVariable() {
    if (had_)
      ::setenv(name_, old_.c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

}  // namespace

TEST(Environment, ListsEveryVariableTheLibraryReads) {
  std::string names;
  for (const kiln::EnvironmentVariable& v : kiln::environment_variables())
    names += std::string(v.name) + " ";
  EXPECT_EQ(names,
            "KILN_CPU_COMPUTE KILN_CPU_DESCRIPTION KILN_RELU_EPILOGUE KILN_LOG_LEVEL "
            "KILN_DEVICE_ALLOCATOR ");
}

TEST(Environment, ABadValueIsNamedWithItsVariable) {
  for (const auto& [name, expected] :
       {std::pair{"KILN_CPU_COMPUTE",
                  "KILN_CPU_COMPUTE='garbage\\x1b[2J': expected onednn or reference"},
        std::pair{"KILN_CPU_DESCRIPTION",
                  "KILN_CPU_DESCRIPTION='garbage\\x1b[2J': expected NAME or NAME:cores=N"},
        std::pair{"KILN_RELU_EPILOGUE",
                  "KILN_RELU_EPILOGUE='garbage\\x1b[2J': expected fused or separate"},
        std::pair{"KILN_LOG_LEVEL", "KILN_LOG_LEVEL='garbage\\x1b[2J': expected trace, debug"},
        std::pair{"KILN_DEVICE_ALLOCATOR",
                  "KILN_DEVICE_ALLOCATOR='garbage\\x1b[2J': expected caching or exact"}}) {
    const ScopedVariable bad(name, "garbage\x1b[2J");
    const std::string message = error_message([] { kiln::check_environment(); });
    EXPECT_NE(message.find(expected), std::string::npos) << message;
  }
}

TEST(Environment, GoodAndEmptyValuesPass) {
  const ScopedVariable compute("KILN_CPU_COMPUTE", "reference");
  const ScopedVariable epilogue("KILN_RELU_EPILOGUE", "fused");
  const ScopedVariable level("KILN_LOG_LEVEL", "off");
  const ScopedVariable cpu("KILN_CPU_DESCRIPTION", "zen4:cores=8");
  const ScopedVariable allocator("KILN_DEVICE_ALLOCATOR", "exact");
  EXPECT_EQ(error_message([] { kiln::check_environment(); }), "");
  const ScopedVariable empty("KILN_LOG_LEVEL", "");
  EXPECT_EQ(error_message([] { kiln::check_environment(); }), "");
  EXPECT_EQ(kiln::cpu_compute_from_environment(), kiln::CpuCompute::reference);
}

TEST(Environment, AnAppsOwnVariablesAreCheckedToo) {
  static bool checked = false;
  const kiln::EnvironmentVariable own[] = {
      {"KILN_TEST_OWN_VARIABLE", "anything", [](const char*) { checked = true; }}};
  kiln::check_environment(own);
  EXPECT_FALSE(checked) << "unset: not checked";
  const ScopedVariable set("KILN_TEST_OWN_VARIABLE", "x");
  kiln::check_environment(own);
  EXPECT_TRUE(checked);
}
