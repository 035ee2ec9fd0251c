#include "spec/suite_data.hpp"

#include "core/error.hpp"
#include "core/files.hpp"

// Set by src/CMakeLists.txt for the mkb_suite_data target alone.
#if !defined(MKB_SOURCE_SUITE_DIR) || !defined(MKB_INSTALLED_SUITE_DIR_FROM_BIN)
#error "build suite_data.cpp through its CMake target, which says where the suite's data lies"
#endif

namespace mkb {

namespace fs = std::filesystem;

suite_data suite_data::locate(const std::optional<fs::path> &given) {
  if (given) return suite_data({*given});
  if (auto env = environment("MKB_SUITE_DATA_DIR")) return suite_data({*env});
  // The programs that link this live in <prefix>/bin, or in the build tree's bin/.
  return suite_data({MKB_SOURCE_SUITE_DIR, (own_binary_dir() / MKB_INSTALLED_SUITE_DIR_FROM_BIN).lexically_normal()});
}

fs::path suite_data::problem_folder(const problem &p) const {
  std::string tried;
  for (const fs::path &root : candidates_) {
    fs::path folder = root / p.folder;
    std::optional<std::string> spec = try_read_file(folder / "spec.json");
    if (spec == p.spec_text) return folder;
    tried += fmt::format("\n  {}: {}", root.string(),
                         !fs::is_directory(root) ? "no such folder"
                         : !spec                 ? fmt::format("no {}/spec.json", p.folder)
                                                 : fmt::format("its {}/spec.json differs from the suite's", p.folder));
  }
  fail(MKB_ERR_NOT_FOUND,
       "the stored solutions of problem '{}' are not built into libmkb and none of these folders holds them:{}\n"
       "name the suite's problems/ folder with --suite DIR or MKB_SUITE_DATA_DIR",
       p.id, tried);
}

std::string suite_data::solution(const problem &p, const stored_solution &s) const {
  fs::path file = problem_folder(p) / s.file;
  std::optional<std::string> source = try_read_file(file);
  if (!source) fail(MKB_ERR_NOT_FOUND, "the {} solution of problem '{}': cannot read {}", s.dsl, p.id, file.string());
  if (source->empty()) fail(MKB_ERR_NOT_FOUND, "the {} solution of problem '{}': {} is empty", s.dsl, p.id, file.string());
  return std::move(*source);
}

} // namespace mkb
