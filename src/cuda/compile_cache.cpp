#include "cuda/compile_cache.hpp"

#include <chrono>
#include <cstring>

#include "core/cache_entry.hpp"
#include "cuda/ptx_linker.hpp"

namespace mkb {

namespace {

constexpr std::string_view magic = "MKBNVRTC2";

void put_blob(std::string &out, std::string_view blob) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>(uint64_t(blob.size()) >> (8 * i));
  out += blob;
}

bool get_blob(std::string_view &in, std::string *out) {
  if (in.size() < 8) return false;
  uint64_t size = 0;
  for (int i = 0; i < 8; ++i) size |= uint64_t(static_cast<unsigned char>(in[i])) << (8 * i);
  in.remove_prefix(8);
  if (size > in.size()) return false;
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

std::filesystem::path compile_cache::path_for(const hash128 &key) const { return cache_entry_path(folder_, "nvrtc", key); }

std::optional<compile_output> compile_cache::load(const hash128 &key) const {
  if (folder_.empty()) return std::nullopt;
  auto payload = read_cache_entry(path_for(key), magic);
  if (!payload) return std::nullopt;
  std::string_view body(*payload);
  compile_output out;
  std::string ok;
  if (!get_blob(body, &ok) || !get_blob(body, &out.cubin) || !get_blob(body, &out.ptx) || !get_blob(body, &out.log))
    return std::nullopt;
  out.ok = ok == "1";
  return out;
}

void compile_cache::store(const hash128 &key, const compile_output &output) const {
  if (folder_.empty()) return;
  std::string payload;
  for (std::string_view blob : {std::string_view(output.ok ? "1" : "0"), std::string_view(output.cubin),
                                std::string_view(output.ptx), std::string_view(output.log)})
    put_blob(payload, blob);
  write_cache_entry(path_for(key), magic, payload);
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
