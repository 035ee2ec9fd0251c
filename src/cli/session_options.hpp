// The options of the commands that open a session: --suite DIR, --gpus LIST, --gpu-lock-dir DIR,
// --compile-only, --no-sandbox.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "mkb.h"

namespace mkb::cli {

struct session_options {
  std::string suite, gpus, gpu_lock_dir;
  bool compile_only = false, no_sandbox = false;

  // Adds the options to `command`, bound to this object (which must outlive the parse).
  void add_to(CLI::App &command);
  // mkb_open_options pointing into this object: keep it alive while they are used.
  mkb_open_options open_options() const;
};

} // namespace mkb::cli
