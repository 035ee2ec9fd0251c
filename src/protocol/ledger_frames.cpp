#include "protocol/ledger_frames.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "ledger_generated.h"

namespace mkb::ledger_frames {

namespace {

constexpr std::string_view record_marker = "MKBR";
constexpr size_t checked_header = 16; // marker, length, payload checksum: what the header checksum covers

uint64_t get_le(std::string_view bytes, size_t at, int width) {
  uint64_t v = 0;
  for (int i = width - 1; i >= 0; --i) v = v << 8 | static_cast<uint8_t>(bytes[at + i]);
  return v;
}

void put_le(std::string &out, uint64_t v, int width) {
  for (int i = 0; i < width; ++i) out += static_cast<char>(v >> (8 * i));
}

enum class state { intact, no_header, bad_header, runs_past_end, bad_payload, not_a_record };

struct probe {
  state what = state::no_header;
  size_t end = 0; // where the record ends, when its header is valid
  bool header_valid() const { return what != state::no_header && what != state::bad_header; }
};

probe inspect(std::string_view data, size_t offset) {
  probe p;
  if (data.size() - offset < header_size || data.substr(offset, record_marker.size()) != record_marker) return p;
  uint64_t length = get_le(data, offset + 4, 4);
  uint64_t payload_checksum = get_le(data, offset + 8, 8);
  if (xxh3_64(data.substr(offset, checked_header)) != get_le(data, offset + checked_header, 8) || length > max_payload) {
    p.what = state::bad_header;
    return p;
  }
  p.end = offset + header_size + length;
  if (p.end > data.size()) {
    p.what = state::runs_past_end;
    return p;
  }
  std::string_view payload = data.substr(offset + header_size, length);
  if (xxh3_64(payload) != payload_checksum) {
    p.what = state::bad_payload;
    return p;
  }
  aligned_payload aligned(payload);
  flatbuffers::Verifier verifier(aligned.data(), payload.size());
  p.what = verifier.VerifyBuffer<records::Record>(nullptr) ? state::intact : state::not_a_record;
  return p;
}

std::string why(state s) {
  switch (s) {
  case state::no_header: return "bytes that are not a record";
  case state::bad_header: return "a record header that fails its checksum";
  case state::runs_past_end: return "a record that claims to run past the end of the file";
  case state::bad_payload: return "a record whose payload fails its checksum";
  case state::not_a_record: return "a record that passes its checksums but is not a ledger record";
  case state::intact: break;
  }
  return "an intact record";
}

// The next place at or after `from` where reading can resume: an intact record, or a valid header
// whose record reaches the end of the file (a torn tail candidate).
std::optional<size_t> find_resumption(std::string_view data, size_t from, bool intact_only) {
  for (size_t at = data.find(record_marker, from); at != std::string_view::npos;
       at = data.find(record_marker, at + 1)) {
    probe p = inspect(data, at);
    if (p.what == state::intact || (!intact_only && p.header_valid() && p.end >= data.size())) return at;
  }
  return std::nullopt;
}

// What a crash while appending leaves: part of one record and nothing valid after it. The file may
// also have grown before its data reached the disk, which reads as zeros.
bool is_torn_tail(std::string_view data, size_t offset, const probe &p) {
  std::string_view rest = data.substr(offset);
  bool partial = rest.size() < header_size || (p.header_valid() && p.end >= data.size()) ||
                 std::all_of(rest.begin(), rest.end(), [](char c) { return c == 0; });
  return partial && !find_resumption(data, offset + 1, true);
}

void refuse_other_formats(std::string_view data, const std::string &name) {
  std::string_view family = file_magic.substr(0, file_magic.size() - 1);
  if (data.substr(0, family.size()) != family)
    fail(MKB_ERR_LEDGER, "'{}' is not an mkb ledger (it does not start with {})", name, file_magic);
  char version = data.size() > family.size() ? data[family.size()] : '?';
  fail(MKB_ERR_LEDGER,
       "'{}' is an mkb ledger of format {} ({}{}); this library reads format {} only (format 2 gave each "
       "record a marker and a header checksum). Score it with the libmkb that wrote it",
       name, version, family, version, file_magic.back());
}

} // namespace

std::string frame(std::string_view payload) {
  std::string out;
  out.reserve(header_size + payload.size());
  out += record_marker;
  put_le(out, payload.size(), 4);
  put_le(out, xxh3_64(payload), 8);
  put_le(out, xxh3_64(out), 8);
  out += payload;
  return out;
}

file_layout scan(std::string_view data, const std::string &name) {
  file_layout layout;
  if (data.empty()) {
    layout.empty_file = true;
    return layout;
  }
  if (data.size() < file_magic.size() && file_magic.substr(0, data.size()) == data) {
    layout.torn_tail = skipped_bytes{0, data.size(), "an incomplete file magic"}; // a crash right after creating it
    return layout;
  }
  if (data.substr(0, file_magic.size()) != file_magic) refuse_other_formats(data, name);
  size_t offset = file_magic.size();
  while (offset < data.size()) {
    probe p = inspect(data, offset);
    if (p.what == state::intact) {
      layout.records.push_back({offset, data.substr(offset + header_size, p.end - offset - header_size)});
      offset = p.end;
      continue;
    }
    if (is_torn_tail(data, offset, p)) {
      layout.torn_tail = skipped_bytes{offset, data.size() - offset, "an incomplete last record"};
      break;
    }
    // A record whose header holds is skipped whole, so a record forged inside its payload is never read.
    size_t from = p.header_valid() && p.end <= data.size() ? p.end : offset + 1;
    size_t next = find_resumption(data, from, false).value_or(data.size());
    layout.damage.push_back({offset, next - offset, why(p.what)});
    offset = next;
  }
  return layout;
}

std::string describe(const std::vector<skipped_bytes> &damage) {
  if (damage.empty()) return "no damage";
  const skipped_bytes &first = damage.front();
  std::string text = fmt::format("{} bytes at byte {} ({})", first.bytes, first.offset, first.why);
  if (damage.size() > 1) text += fmt::format(", and {} more damaged spans", damage.size() - 1);
  return text;
}

} // namespace mkb::ledger_frames
