// An independent check that text is well-formed UTF-8 (RFC 3629), for tests of what the library emits.
#pragma once

#include <cstdint>
#include <string_view>

namespace mkb::testing {

inline bool is_valid_utf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
    uint8_t lead = byte(i);
    size_t extra = lead < 0x80 ? 0 : (lead >> 5) == 0x6 ? 1 : (lead >> 4) == 0xe ? 2 : (lead >> 3) == 0x1e ? 3 : 9;
    if (extra == 9 || text.size() - i <= extra) return false; // not a lead byte, or truncated
    uint32_t code = extra == 0 ? lead : lead & (0x3f >> extra);
    for (size_t k = 1; k <= extra; ++k) {
      if ((byte(i + k) & 0xc0) != 0x80) return false;
      code = code << 6 | (byte(i + k) & 0x3f);
    }
    static constexpr uint32_t smallest[] = {0, 0x80, 0x800, 0x10000};
    if (code < smallest[extra] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return false;
    i += extra + 1;
  }
  return true;
}

} // namespace mkb::testing
