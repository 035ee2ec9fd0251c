#include "cli/session_options.hpp"

namespace mkb::cli {

void session_options::add_to(CLI::App &command) {
  command.add_option("--suite", suite, "the suite folder (default: the built-in suite)")->type_name("DIR")
      ->check(CLI::ExistingDirectory.description(""));
  command.add_option("--gpus", gpus, "the GPUs to use, as ordinals: \"0,2\" (default: all)")->type_name("LIST");
  command.add_option("--gpu-lock-dir", gpu_lock_dir, "the host's GPU lock folder (docs/CONTRACT.md, Shared GPUs)")
      ->type_name("DIR");
  command.add_flag("--compile-only", compile_only, "compile and check plans only; run nothing on a GPU");
  command.add_flag("--no-sandbox", no_sandbox, "run Python DSL submissions unconfined (docs/DSLS.md, The sandbox)");
}

mkb_open_options session_options::open_options() const {
  mkb_open_options o;
  mkb_open_options_init(&o, sizeof o);
  if (!suite.empty()) o.suite_path = suite.c_str();
  if (!gpus.empty()) o.gpus = gpus.c_str();
  if (!gpu_lock_dir.empty()) o.gpu_lock_dir = gpu_lock_dir.c_str();
  if (compile_only) o.flags |= MKB_OPEN_COMPILE_ONLY;
  if (no_sandbox) o.flags |= MKB_OPEN_NO_SANDBOX;
  return o;
}

} // namespace mkb::cli
