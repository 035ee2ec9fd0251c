// `mkb version`: the library, ABI and NVRTC versions.
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/json_writer.hpp"
#include "cuda/nvrtc_compiler.hpp"
#include "mkb.h"

namespace mkb::cli {

void add_version(CLI::App &mkb, int &exit_code) {
  CLI::App *command = mkb.add_subcommand("version", "library, ABI and NVRTC versions");
  auto json = std::make_shared<bool>(false);
  command->add_flag("--json", *json, "print one JSON object: {\"version\", \"abi\", \"nvrtc\"}");
  command->callback([json, &exit_code] {
    if (*json) {
      json_writer w;
      w.begin_object().field("version", mkb_version()).field("abi", mkb_abi_version()).field("nvrtc", nvrtc_version());
      fmt::print("{}\n", w.end_object().str());
    } else {
      fmt::print("mkb {} (ABI {}), NVRTC {}\n", mkb_version(), mkb_abi_version(), nvrtc_version());
    }
    exit_code = exit_ok;
  });
}

} // namespace mkb::cli
