#include "spec/suite.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"
#include "spec/file_source.hpp"

namespace mkb {

namespace {

// "; did you mean 'x'?" when one of `names` is a plausible misspelling of `wanted`, else "".
std::string suggestion(std::string_view wanted, const std::set<std::string> &names) {
  std::optional<std::string> best = closest_name(wanted, {names.begin(), names.end()});
  return best ? fmt::format("; did you mean '{}'?", *best) : std::string();
}

bool matches(const std::string &pattern, const std::string &id) { return ::fnmatch(pattern.c_str(), id.c_str(), 0) == 0; }

} // namespace

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
  if (s.problems_.empty())
    fail(MKB_ERR_NOT_FOUND, "suite '{}' holds no problem (no */*/spec.json outside folders named _*)", s.origin_);
  return s;
}

const problem *suite::find(std::string_view id) const {
  for (const problem &p : problems_)
    if (p.id == id) return &p;
  return nullptr;
}

std::vector<std::string> suite::families() const {
  std::vector<std::string> out;
  for (const problem &p : problems_)
    if (std::find(out.begin(), out.end(), p.family) == out.end()) out.push_back(p.family);
  return out;
}

std::vector<const problem *> suite::select(const std::vector<std::string> &patterns,
                                           const std::vector<std::string> &families) const {
  std::set<std::string> ids, family_names;
  for (const problem &p : problems_) {
    ids.insert(p.id);
    family_names.insert(p.family);
  }
  for (const std::string &family : families)
    if (!family_names.count(family))
      fail(MKB_ERR_NOT_FOUND, "families: suite {} has no family '{}'{}", origin_, family, suggestion(family, family_names));

  // Without families, the extra problems are out unless asked for by id: an agent that names one
  // gets it, a glob such as "*" stays within the original benchmark's problems.
  auto left_out = [&](const problem &p) {
    return families.empty() && p.family == extra_family && std::find(patterns.begin(), patterns.end(), p.id) == patterns.end();
  };
  const std::string why_left_out =
      fmt::format("problems of family '{0}' are left out unless a problem pattern is their exact id or families holds '{0}'",
                  extra_family);
  for (const std::string &pattern : patterns) {
    bool matched = false, kept = false;
    for (const problem &p : problems_)
      if (matches(pattern, p.id)) {
        matched = true;
        kept = kept || !left_out(p);
      }
    if (!matched)
      fail(MKB_ERR_NOT_FOUND, "problems: nothing in suite {} is named '{}'{}", origin_, pattern, suggestion(pattern, ids));
    if (!kept) fail(MKB_ERR_CONFIG, "problems: '{}' matches only extra problems in suite {}: {}", pattern, origin_, why_left_out);
  }

  std::vector<const problem *> selected;
  for (const problem &p : problems_) {
    bool family_ok = families.empty() || std::find(families.begin(), families.end(), p.family) != families.end();
    bool id_ok = patterns.empty() ||
                 std::any_of(patterns.begin(), patterns.end(), [&](const std::string &pattern) { return matches(pattern, p.id); });
    if (family_ok && id_ok && !left_out(p)) selected.push_back(&p);
  }
  if (selected.empty() && families.empty()) // no patterns either: every problem is extra
    fail(MKB_ERR_CONFIG, "suite {} holds only extra problems: {}", origin_, why_left_out);
  if (selected.empty())
    fail(MKB_ERR_CONFIG, "problems/families: no problem of suite {} is both in problems \"{}\" and in families \"{}\"",
         origin_, fmt::join(patterns, ","), fmt::join(families, ","));
  return selected;
}

} // namespace mkb
