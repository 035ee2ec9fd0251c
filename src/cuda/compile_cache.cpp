#include "cuda/compile_cache.hpp"

#include <chrono>
#include <cstring>

#include "core/files.hpp"
#include "cuda/ptx_linker.hpp"

namespace mkb {

namespace {

constexpr std::string_view magic = "MKBNVRTC1";

void put_u64(std::string &out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>(v >> (8 * i));
}

bool get_u64(std::string_view &in, uint64_t *v) {
  if (in.size() < 8) return false;
  *v = 0;
  for (int i = 0; i < 8; ++i) *v |= uint64_t(static_cast<unsigned char>(in[i])) << (8 * i);
  in.remove_prefix(8);
  return true;
}

bool get_blob(std::string_view &in, std::string *out) {
  uint64_t size = 0;
  if (!get_u64(in, &size) || size > in.size()) return false;
  out->assign(in.substr(0, size));
  in.remove_prefix(size);
  return true;
}

} // namespace

hash128 compile_cache::key_for(const module_code &code, const std::string &arch, const std::vector<extra_header> &headers) {
  hasher128 h;
  h.add(magic).add(code.source).add(code.name).add(arch).add(nvrtc_version());
  for (const std::string &option : locked_compile_options(arch)) h.add(option);
  for (const extra_header &header : headers) h.add(header.name).add(header.content);
  h.add("include dirs");
  for (const std::string &dir : code.include_dirs) h.add(dir);
  h.add("ptx units");
  for (const std::string &unit : code.ptx) h.add(unit);
  return h.digest();
}

std::filesystem::path compile_cache::path_for(const hash128 &key) const {
  std::string hex = key.hex();
  return folder_ / "nvrtc" / hex.substr(0, 2) / (hex + ".bin");
}

std::optional<compile_output> compile_cache::load(const hash128 &key) const {
  if (folder_.empty()) return std::nullopt;
  auto content = try_read_file(path_for(key));
  if (!content || content->size() < magic.size() + 8) return std::nullopt;
  std::string_view body(content->data(), content->size() - 8);
  std::string_view tail(content->data() + body.size(), 8);
  uint64_t checksum = 0;
  if (!get_u64(tail, &checksum) || checksum != xxh3_64(body)) return std::nullopt;
  if (!body.starts_with(magic)) return std::nullopt;
  body.remove_prefix(magic.size());
  compile_output out;
  uint64_t ok = 0;
  if (!get_u64(body, &ok) || !get_blob(body, &out.cubin) || !get_blob(body, &out.ptx) || !get_blob(body, &out.log))
    return std::nullopt;
  out.ok = ok != 0;
  return out;
}

void compile_cache::store(const hash128 &key, const compile_output &output) const {
  if (folder_.empty()) return;
  std::string data(magic);
  put_u64(data, output.ok ? 1 : 0);
  for (const std::string *blob : {&output.cubin, &output.ptx, &output.log}) {
    put_u64(data, blob->size());
    data += *blob;
  }
  put_u64(data, xxh3_64(data));
  try {
    write_file_atomic(path_for(key), data, /*durable=*/false); // a torn entry fails its checksum: a miss
  } catch (const std::exception &) {
    // A cache that cannot be written only costs time.
  }
}

cached_compile compile_cache::compile(const module_code &code, const std::string &arch,
                                      const std::vector<extra_header> &headers) const {
  auto start = std::chrono::steady_clock::now();
  cached_compile result;
  result.key = key_for(code, arch, headers);
  if (auto hit = load(result.key)) {
    result.output = std::move(*hit);
    result.cache_hit = true;
    result.output.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return result;
  }
  result.output = code.ptx.empty() ? compile_cuda(code.source, code.name, arch, headers, code.include_dirs)
                                   : link_ptx(code.ptx, arch);
  store(result.key, result.output);
  result.output.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

} // namespace mkb
