// Facts about this build, recorded as provenance (docs/PROTOCOL.md, The ledger).
#pragma once

namespace mkb {

// The git commit the library was built from, with "-dirty" for uncommitted changes; "" when it was
// not built from a checkout. Refreshed at every build (cmake/git_revision_script.cmake).
const char *build_git_revision();

} // namespace mkb
