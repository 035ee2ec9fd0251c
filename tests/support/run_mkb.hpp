// Runs the built `mkb` tool as a user does, for the tests of src/cli/.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "core/files.hpp"
#include "support/paths.hpp"
#include "support/temp_dir.hpp"

namespace mkb::testing {

struct mkb_outcome {
  int exit_code = -1;
  std::string out, err;
};

// `mkb ARGUMENTS...`, with `environment` ("NAME=value" words) before it; its output goes through `dir`.
inline mkb_outcome run_mkb(const temp_dir &dir, const std::vector<std::string> &arguments,
                           const std::vector<std::string> &environment = {}) {
  auto quoted = [](const std::string &s) { return "'" + s + "'"; }; // test paths hold no quotes
  std::string command = "env";
  for (const std::string &e : environment) command += " " + quoted(e);
  command += " " + quoted((test_binary_dir() / "mkb").string());
  for (const std::string &a : arguments) command += " " + quoted(a);
  auto out = dir.path() / "stdout", err = dir.path() / "stderr";
  int status = std::system((command + " >" + quoted(out.string()) + " 2>" + quoted(err.string())).c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out), read_file(err)};
}

} // namespace mkb::testing
