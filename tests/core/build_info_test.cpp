// The build's facts: the Python DSLs' default interpreter.
#include "core/build_info.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/scoped_environment.hpp"

namespace mkb {
namespace {

TEST(BuildInfo, DefaultPythonIsTheEnvironmentsThenTheRecordedOneThenPython3) {
  {
    testing::scoped_environment named("MKB_PYTHON", "/opt/elsewhere/python3");
    EXPECT_EQ(default_python(), "/opt/elsewhere/python3");
  }
  testing::scoped_environment unset("MKB_PYTHON", nullptr);
  std::string fallback = default_python();
  // The recorded interpreter (scripts/setup's .venv, or CMake's MKB_PYTHON) is used only while it exists.
  EXPECT_TRUE(fallback == "python3" || std::filesystem::exists(fallback)) << fallback;
}

} // namespace
} // namespace mkb
