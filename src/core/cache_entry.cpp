#include "core/cache_entry.hpp"

#include "core/files.hpp"

namespace mkb {

namespace {

void put_u64(std::string &out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>(v >> (8 * i));
}

uint64_t get_u64(std::string_view in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(static_cast<unsigned char>(in[i])) << (8 * i);
  return v;
}

} // namespace

std::filesystem::path cache_entry_path(const std::filesystem::path &folder, std::string_view kind, const hash128 &key) {
  std::string hex = key.hex();
  return folder / kind / hex.substr(0, 2) / (hex + ".bin");
}

std::optional<std::string> read_cache_entry(const std::filesystem::path &path, std::string_view magic) {
  auto content = try_read_file(path);
  if (!content || content->size() < magic.size() + 8) return std::nullopt;
  std::string_view body(content->data(), content->size() - 8);
  if (get_u64(std::string_view(*content).substr(body.size())) != xxh3_64(body) || !body.starts_with(magic))
    return std::nullopt;
  return std::string(body.substr(magic.size()));
}

void write_cache_entry(const std::filesystem::path &path, std::string_view magic, std::string_view payload) {
  std::string data(magic);
  data += payload;
  put_u64(data, xxh3_64(data));
  try {
    write_file_atomic(path, data, /*durable=*/false); // a torn entry fails its checksum: a miss
  } catch (const std::exception &) {
  }
}

} // namespace mkb
