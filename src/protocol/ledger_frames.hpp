// The ledger's framing on disk (docs/PROTOCOL.md, The ledger): a file magic, then records, each
//   "MKBR" | u32 payload length | u64 XXH3-64 of the payload | u64 XXH3-64 of the 16 bytes before
// followed by the payload, a flatbuffer (ledger.fbs). All integers are little-endian.
// The per-record marker and header checksum let a reader find the next intact record after damage,
// so one flipped bit costs one record, never the rest of the file; and they let it tell the torn
// tail a crash leaves (an incomplete last record, nothing valid after it) from damage in the middle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mkb::ledger_frames {

inline constexpr std::string_view file_magic = "MKBLEDG2";
inline constexpr size_t header_size = 24;
inline constexpr size_t max_payload = 64u << 20;

// The payload in its frame, ready to append.
std::string frame(std::string_view payload);

struct intact_record {
  size_t offset; // of its header
  std::string_view payload;
};

// A payload copied to where flatbuffers may read it: its verifier checks alignment relative to the
// buffer's start only, and a record found after damage can start at any byte of the file.
class aligned_payload {
public:
  explicit aligned_payload(std::string_view payload) : words_((payload.size() + 7) / 8) {
    if (!payload.empty()) std::memcpy(words_.data(), payload.data(), payload.size());
  }
  const uint8_t *data() const { return reinterpret_cast<const uint8_t *>(words_.data()); }

private:
  std::vector<uint64_t> words_;
};

// Bytes a reader skipped: [offset, offset + bytes).
struct skipped_bytes {
  size_t offset = 0;
  size_t bytes = 0;
  std::string why;
};

struct file_layout {
  std::vector<intact_record> records; // in file order
  std::vector<skipped_bytes> damage;  // anything that is neither an intact record nor the torn tail
  std::optional<skipped_bytes> torn_tail;
  bool empty_file = false;            // zero bytes: not even the magic
};

// Finds every intact record of `data`, the contents of file `name`; the payloads point into `data`.
// Throws mkb::error(MKB_ERR_LEDGER) if `data` is not a ledger of this format (naming the format it is
// if it knows it). Never throws for damage: that is listed.
file_layout scan(std::string_view data, const std::string &name);

// "84 bytes at byte 4321 (a record header fails its checksum)", and "; N more" for the rest.
std::string describe(const std::vector<skipped_bytes> &damage);

} // namespace mkb::ledger_frames
