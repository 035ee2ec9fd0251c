#include "spec/suite.hpp"

#include "core/error.hpp"
#include "spec/file_source.hpp"

namespace mkb {

suite suite::load(const std::optional<std::filesystem::path> &root) {
  std::unique_ptr<file_source> files;
  suite s;
  if (root) {
    std::error_code ec;
    if (!std::filesystem::is_directory(*root, ec)) fail(MKB_ERR_NOT_FOUND, "suite folder '{}' does not exist", root->string());
    files = std::make_unique<directory_source>(*root);
    s.origin_ = root->string();
  } else {
    files = std::make_unique<embedded_source>(embedded::builtin_suite());
    s.origin_ = "built-in";
  }
  for (const std::string &folder : files->problem_folders()) {
    problem p = load_problem(*files, folder);
    if (s.find(p.id)) fail(MKB_ERR_SPEC, "{}: problem id '{}' appears twice", files->describe(folder), p.id);
    s.problems_.push_back(std::move(p));
  }
  if (s.problems_.empty()) fail(MKB_ERR_NOT_FOUND, "suite '{}' holds no problem (no */*/spec.json)", s.origin_);
  return s;
}

const problem *suite::find(std::string_view id) const {
  for (const problem &p : problems_)
    if (p.id == id) return &p;
  return nullptr;
}

} // namespace mkb
