/* The public header compiles alone as C99 with -Wall -Wextra -pedantic -Werror. */
#include "mkb.h"

int mkb_header_c99_check(void);
int mkb_header_c99_check(void) {
  mkb_open_options options;
  options.struct_size = sizeof options;
  return (int)options.struct_size + MKB_VERSION_NUMBER + MKB_ABI_VERSION + MKB_ERR_INTERNAL + MKB_VERDICT_COMPILED;
}
