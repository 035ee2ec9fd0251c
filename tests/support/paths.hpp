// Where the tests find the programs and files they use. Everything is located from the test binary
// (build/bin) so that a build folder copied to another machine still works; the source tree comes
// from $MKB_SOURCE_DIR when set, else from where it was at build time.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace mkb::testing {

inline std::filesystem::path test_binary_dir() { return std::filesystem::canonical("/proc/self/exe").parent_path(); }

// The real worker, as installed in the build tree.
inline std::string real_worker() { return (test_binary_dir() / ".." / "libexec" / "mkb-worker").string(); }

// The worker TEST DOUBLE (tests/doubles/worker_double.cpp).
inline std::string worker_double() { return (test_binary_dir() / "mkb-worker-double").string(); }

inline std::string source_dir() {
  const char *dir = std::getenv("MKB_SOURCE_DIR");
  return dir && *dir ? dir : MKB_TEST_SOURCE_DIR;
}

} // namespace mkb::testing
