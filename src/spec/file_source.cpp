#include "spec/file_source.hpp"

#include <algorithm>

#include "core/files.hpp"

namespace mkb {

bool is_set_aside(std::string_view folder) {
  for (size_t start = 0; start <= folder.size();) {
    size_t end = std::min(folder.find('/', start), folder.size());
    if (end > start && folder[start] == '_') return true;
    start = end + 1;
  }
  return false;
}

directory_source::directory_source(std::filesystem::path root) : root_(std::move(root)) {}

std::optional<std::string> directory_source::read(const std::string &relative) const {
  return try_read_file(root_ / relative);
}

std::vector<std::string> directory_source::problem_folders() const {
  std::vector<std::string> folders;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(root_, std::filesystem::directory_options::follow_directory_symlink, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    // <family>/<id>/spec.json: nothing deeper, which also keeps linked folders from looping.
    if (it->is_directory() && it.depth() >= 2) it.disable_recursion_pending();
    if (!it->is_regular_file() || it->path().filename() != "spec.json") continue;
    std::string folder = it->path().parent_path().lexically_relative(root_).generic_string();
    if (!is_set_aside(folder)) folders.push_back(std::move(folder));
  }
  std::sort(folders.begin(), folders.end());
  return folders;
}

std::string directory_source::describe(const std::string &relative) const {
  return (root_ / relative).string();
}

std::optional<std::string> embedded_source::read(const std::string &relative) const {
  if (const embedded_file *file = find_embedded(files_, relative)) return std::string(file->data);
  return std::nullopt;
}

std::vector<std::string> embedded_source::problem_folders() const {
  std::vector<std::string> folders;
  constexpr std::string_view suffix = "/spec.json";
  for (const embedded_file &file : files_)
    if (file.path.ends_with(suffix)) {
      std::string_view folder = file.path.substr(0, file.path.size() - suffix.size());
      if (!is_set_aside(folder)) folders.emplace_back(folder);
    }
  std::sort(folders.begin(), folders.end());
  return folders;
}

std::string embedded_source::describe(const std::string &relative) const {
  return "built-in suite: problems/" + relative;
}

} // namespace mkb
