/* A C99 program linked against libmkb.so: the runtime version matches the header it was built with. */
#include <stdio.h>
#include <string.h>

#include "mkb.h"

int main(void) {
  if (mkb_abi_version() != MKB_ABI_VERSION || mkb_version_number() != MKB_VERSION_NUMBER ||
      strcmp(mkb_version(), MKB_VERSION_STRING) != 0) {
    fprintf(stderr, "version mismatch: %s\n", mkb_version());
    return 1;
  }
  printf("libmkb %s, ABI %u\n", mkb_version(), mkb_abi_version());
  return 0;
}
