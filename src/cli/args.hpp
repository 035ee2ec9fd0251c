// A small command-line parser: subcommand, then --name value / --flag options and positionals.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mkb.h"

namespace mkb::cli {

struct arguments {
  std::map<std::string, std::string> values; // --name value
  std::set<std::string> flags;               // --flag
  std::vector<std::string> positional;

  std::optional<std::string> get(const std::string &name) const {
    auto it = values.find(name);
    return it == values.end() ? std::nullopt : std::optional(it->second);
  }
  bool has(const std::string &flag) const { return flags.count(flag) > 0; }
};

// `value_options` take a value; every other --option is a flag. Throws std::invalid_argument with a
// message for an unknown option or a missing value.
arguments parse_arguments(int argc, char **argv, int first, const std::set<std::string> &value_options,
                          const std::set<std::string> &flag_options);

// The session options of the commands that evaluate: --suite DIR, --gpus LIST, --gpu-lock-dir DIR,
// --compile-only, --no-sandbox. The options point into this object: keep it alive while they are used.
class session_arguments {
public:
  explicit session_arguments(const arguments &a);
  session_arguments(const session_arguments &) = delete;
  session_arguments &operator=(const session_arguments &) = delete;
  const mkb_open_options *options() const { return &options_; }

private:
  std::string suite_, gpus_, gpu_lock_dir_;
  mkb_open_options options_;
};

} // namespace mkb::cli
