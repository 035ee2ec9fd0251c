// A small command-line parser: subcommand, then --name value / --flag options and positionals.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

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

} // namespace mkb::cli
