// Facts about this build, recorded as provenance (docs/PROTOCOL.md, The ledger).
#pragma once

#include <string>

namespace mkb {

// The git commit the library was built from, with "-dirty" for uncommitted changes; "" when it was
// not built from a checkout. Refreshed at every build (cmake/git_revision_script.cmake).
const char *build_git_revision();

// The Python DSLs' interpreter when the caller names none: MKB_PYTHON, else the one the build was
// configured with (CMake's MKB_PYTHON, by default the virtual environment scripts/setup makes) while
// it exists, else "python3" from PATH.
std::string default_python();

} // namespace mkb
