// The public header compiles alone as C++ with -Wall -Wextra -pedantic -Werror, and its functions
// are noexcept there.
#include "mkb.h"

static_assert(noexcept(mkb_version()), "C API functions are noexcept in C++");
static_assert(sizeof(mkb_status) == 4, "mkb_status is 32 bits");
static_assert(MKB_OK == 0 && MKB_ERR_INTERNAL == -13, "status values are pinned");

int mkb_header_cpp_check();
int mkb_header_cpp_check() { return MKB_VERSION_NUMBER; }
