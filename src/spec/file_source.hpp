// Where a suite's files come from: a folder on disk, or the suite compiled into the library.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/embedded_files.hpp"

namespace mkb {

class file_source {
public:
  virtual ~file_source() = default;
  // The file at `relative` ('/'-separated), or nullopt if absent.
  virtual std::optional<std::string> read(const std::string &relative) const = 0;
  // Folders (relative) that hold a spec.json, sorted.
  virtual std::vector<std::string> problem_folders() const = 0;
  // How to name `relative` in messages.
  virtual std::string describe(const std::string &relative) const = 0;
};

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
