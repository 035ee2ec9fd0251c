// A DSL's guide: one built-in file per DSL, found by the DSL's name (docs/DSLS.md, Guides).
#include "core/embedded_files.hpp"
#include "dsl/dsl.hpp"

namespace mkb {

std::string_view dsl::guide() const {
  const embedded_file *file = find_embedded(embedded::resources(), "dsl/guides/" + name() + ".md");
  return file ? file->data : std::string_view();
}

} // namespace mkb
