// Where a suite's files come from: a folder on disk, or the suite compiled into the library.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/embedded_files.hpp"

namespace mkb {

class file_source {
public:
  virtual ~file_source() = default;
  // The file at `relative` ('/'-separated), or nullopt if absent.
  virtual std::optional<std::string> read(const std::string &relative) const = 0;
  // Folders (relative, <family>/<id>) that hold a spec.json, sorted; never a set-aside one.
  virtual std::vector<std::string> problem_folders() const = 0;
  // How to name `relative` in messages.
  virtual std::string describe(const std::string &relative) const = 0;
};

// Whether a problem folder ('/'-separated, relative to the suite) is set aside: a family or id folder
// whose name starts with '_' (problems/_template) is no problem of the suite. Every place that lists
// the suite skips it (cmake/suite_files.cmake, the tests, install, the sdist, .ci); naming such a
// folder as the suite itself (`--suite problems/_template`) loads what is inside.
bool is_set_aside(std::string_view folder);

class directory_source final : public file_source {
public:
  explicit directory_source(std::filesystem::path root);
  std::optional<std::string> read(const std::string &relative) const override;
  std::vector<std::string> problem_folders() const override;
  std::string describe(const std::string &relative) const override;

private:
  std::filesystem::path root_;
};

class embedded_source final : public file_source {
public:
  explicit embedded_source(std::span<const embedded_file> files) : files_(files) {}
  std::optional<std::string> read(const std::string &relative) const override;
  std::vector<std::string> problem_folders() const override;
  std::string describe(const std::string &relative) const override;

private:
  std::span<const embedded_file> files_;
};

} // namespace mkb
