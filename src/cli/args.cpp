#include "cli/args.hpp"

#include <stdexcept>

namespace mkb::cli {

arguments parse_arguments(int argc, char **argv, int first, const std::set<std::string> &value_options,
                          const std::set<std::string> &flag_options) {
  arguments a;
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0 || arg == "--") {
      a.positional.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::string value;
    bool inline_value = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      inline_value = true;
    }
    if (value_options.count(name)) {
      if (!inline_value) {
        if (i + 1 >= argc) throw std::invalid_argument("--" + name + " needs a value");
        value = argv[++i];
      }
      a.values[name] = value;
    } else if (flag_options.count(name) && !inline_value) {
      a.flags.insert(name);
    } else {
      throw std::invalid_argument("unknown option --" + name);
    }
  }
  return a;
}

session_arguments::session_arguments(const arguments &a)
    : suite_(a.get("suite").value_or("")), gpus_(a.get("gpus").value_or("")),
      gpu_lock_dir_(a.get("gpu-lock-dir").value_or("")) {
  mkb_open_options_init(&options_, sizeof options_);
  if (!suite_.empty()) options_.suite_path = suite_.c_str();
  if (!gpus_.empty()) options_.gpus = gpus_.c_str();
  if (a.get("gpu-lock-dir")) options_.gpu_lock_dir = gpu_lock_dir_.c_str();
  if (a.has("compile-only")) options_.flags |= MKB_OPEN_COMPILE_ONLY;
  if (a.has("no-sandbox")) options_.flags |= MKB_OPEN_NO_SANDBOX;
}

} // namespace mkb::cli
