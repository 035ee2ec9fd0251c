#include "cuda/ptx_entries.hpp"

#include <cctype>
#include <charconv>

namespace mkb {

namespace {

size_t scalar_size(std::string_view type) {
  if (type.size() < 3) return 0;
  size_t bits = 0;
  std::from_chars(type.data() + 2, type.data() + type.size(), bits);
  return bits / 8;
}

// One parameter declaration: ".param .u64 name", ".param .align 8 .b8 name[40]", ".param .u64 .ptr ..."
size_t parameter_size(std::string_view decl) {
  size_t array_open = decl.find('[');
  std::string_view type;
  for (size_t pos = decl.find('.', 1); pos != std::string_view::npos; pos = decl.find('.', pos + 1)) {
    size_t end = pos + 1;
    while (end < decl.size() && std::isalnum(static_cast<unsigned char>(decl[end]))) ++end;
    std::string_view word = decl.substr(pos, end - pos);
    if (word.size() >= 3 && (word[1] == 'u' || word[1] == 's' || word[1] == 'b' || word[1] == 'f') &&
        std::isdigit(static_cast<unsigned char>(word[2]))) {
      type = word;
      break;
    }
  }
  size_t element = scalar_size(type);
  if (array_open == std::string_view::npos) return element;
  size_t count = 0;
  std::from_chars(decl.data() + array_open + 1, decl.data() + decl.size(), count);
  return element * count;
}

} // namespace

std::map<std::string, std::vector<size_t>> ptx_entry_parameters(std::string_view ptx) {
  std::map<std::string, std::vector<size_t>> entries;
  constexpr std::string_view marker = ".entry ";
  for (size_t pos = ptx.find(marker); pos != std::string_view::npos; pos = ptx.find(marker, pos + 1)) {
    size_t name_start = pos + marker.size();
    size_t name_end = name_start;
    while (name_end < ptx.size() && !std::isspace(static_cast<unsigned char>(ptx[name_end])) && ptx[name_end] != '(')
      ++name_end;
    std::string name(ptx.substr(name_start, name_end - name_start));
    std::vector<size_t> sizes;
    size_t open = ptx.find('(', name_end);
    size_t brace = ptx.find('{', name_end);
    if (open != std::string_view::npos && (brace == std::string_view::npos || open < brace)) {
      size_t close = ptx.find(')', open);
      std::string_view list = ptx.substr(open + 1, close - open - 1);
      size_t start = 0;
      while (start < list.size()) {
        size_t comma = list.find(',', start);
        if (comma == std::string_view::npos) comma = list.size();
        std::string_view decl = list.substr(start, comma - start);
        size_t param = decl.find(".param");
        if (param != std::string_view::npos) sizes.push_back(parameter_size(decl.substr(param)));
        start = comma + 1;
      }
    }
    entries[name] = std::move(sizes);
  }
  return entries;
}

} // namespace mkb
