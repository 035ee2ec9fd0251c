#include "core/random.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace mkb {

uint64_t os_random_u64() {
  uint64_t value = 0;
  ssize_t got;
  do {
    got = getrandom(&value, sizeof value, 0);
  } while (got < 0 && errno == EINTR);
  if (got != sizeof value) fail(MKB_ERR_INTERNAL, "getrandom failed: {}", std::strerror(errno));
  return value;
}

} // namespace mkb
