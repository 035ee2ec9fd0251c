// A temporary folder removed at the end of a test, and a helper that writes a small problem suite.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>

#include "core/files.hpp"
#include "core/random.hpp"

namespace mkb::testing {

class temp_dir {
public:
  temp_dir() : path_(std::filesystem::temp_directory_path() /
                     ("mkb-test-" + std::to_string(::getpid()) + "-" + std::to_string(os_random_u64() % 1000000))) {
    std::filesystem::create_directories(path_);
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  temp_dir(const temp_dir &) = delete;
  temp_dir &operator=(const temp_dir &) = delete;
  const std::filesystem::path &path() const { return path_; }
  std::filesystem::path write(const std::string &relative, const std::string &content) const {
    write_file_atomic(path_ / relative, content);
    return path_ / relative;
  }

private:
  std::filesystem::path path_;
};

// A valid one-input, one-output problem in `family/id`, with files overridable by name.
inline void write_problem(const temp_dir &dir, const std::string &family, const std::string &id,
                          const std::string &spec_json, std::map<std::string, std::string> files = {}) {
  std::string folder = family + "/" + id + "/";
  dir.write(folder + "spec.json", spec_json);
  std::map<std::string, std::string> defaults = {
      {"reference.md", "# reference\n"},
      {"baseline.cu", "extern \"C\" __global__ void k(const float *x, float *y, int n) {}\n/* mkb:plan\nlaunch k grid(1) block(1) args(x, y, i32(n))\n*/\n"},
      {"anchor.cu", "extern \"C\" __global__ void k(const float *x, double *y, int n) {}\n/* mkb:plan\nlaunch k grid(1) block(1) args(x, y, i32(n))\n*/\n"},
  };
  for (auto &[name, content] : files) defaults[name] = content;
  for (auto &[name, content] : defaults) dir.write(folder + name, content);
}

inline std::string tiny_spec(const std::string &id = "tiny", const std::string &family = "test",
                             const std::string &extra_inputs = "", const std::string &outputs = "") {
  return R"({ "id": ")" + id + R"(", "family": ")" + family + R"(", "description": "a tiny problem",
  "symbols": [ { "name": "n", "value": 1000 } ],
  "inputs": [ { "name": "x", "dtype": "fp32", "shape": ["n"] })" + extra_inputs + R"( ],
  "outputs": [ )" + (outputs.empty() ? R"({ "name": "y", "dtype": "fp32", "shape": ["n"] })" : outputs) + R"( ],
  "flops": "n", "bytes": "n * 8" })";
}

} // namespace mkb::testing
