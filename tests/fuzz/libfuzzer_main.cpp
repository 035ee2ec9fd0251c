// libFuzzer's entry point for one target, chosen at build time (tests/fuzz/CMakeLists.txt).
#include "fuzz_targets.hpp"

#ifndef MKB_FUZZ_TARGET
#error "define MKB_FUZZ_TARGET as one of the functions in fuzz_targets.hpp"
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mkb::fuzz::MKB_FUZZ_TARGET(mkb::fuzz::bytes(data, size));
  return 0;
}
