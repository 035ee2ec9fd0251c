// Whether this machine has a GPU the tests can use, and why not. GPU tests call
// MKB_REQUIRE_GPU() first: without a GPU they are skipped, visibly, with the reason.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "cuda_loaders/driver_api.hpp"

namespace mkb::testing {

inline std::string gpu_absence_reason() {
  try {
    const driver_api &cu = load_driver();
    int count = 0;
    if (cu.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) return "the CUDA driver sees no GPU";
    return {};
  } catch (const std::exception &e) {
    return e.what();
  }
}

} // namespace mkb::testing

#define MKB_REQUIRE_GPU()                                                                                    \
  do {                                                                                                       \
    static const std::string reason = ::mkb::testing::gpu_absence_reason();                                  \
    if (!reason.empty()) GTEST_SKIP() << "no GPU here (" << reason << "); GPU tests run with .ci/gpu-tests"; \
  } while (0)
