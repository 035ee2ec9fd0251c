// A content-addressed, on-disk cache of NVRTC results, shared by every process on the machine.
// The key is XXH3-128 of (source or PTX units, headers, include folders, locked options, NVRTC
// version, arch). Entries are written
// whole with an atomic rename and carry a checksum; a torn or foreign file reads as a miss.
#pragma once

#include <filesystem>
#include <optional>

#include "core/hash.hpp"
#include "cuda/nvrtc_compiler.hpp"

namespace mkb {

// One module's code: CUDA C++ for NVRTC (with the configured include folders), or, when `ptx` is not
// empty, PTX units for nvJitLink.
struct module_code {
  std::string name; // for compiler messages
  std::string source;
  std::vector<std::string> include_dirs;
  std::vector<std::string> ptx;
};

struct cached_compile {
  compile_output output;
  bool cache_hit = false;
  hash128 key;
};

class compile_cache {
public:
  // An empty folder disables the cache.
  explicit compile_cache(std::filesystem::path folder) : folder_(std::move(folder)) {}

  static hash128 key_for(const module_code &code, const std::string &arch, const std::vector<extra_header> &headers);

  std::optional<compile_output> load(const hash128 &key) const;
  void store(const hash128 &key, const compile_output &output) const; // best effort

  // Looks up, and on a miss compiles and stores.
  cached_compile compile(const module_code &code, const std::string &arch,
                         const std::vector<extra_header> &headers = {}) const;
  cached_compile compile(std::string_view source, const std::string &name, const std::string &arch,
                         const std::vector<extra_header> &headers = {}) const {
    return compile(module_code{name, std::string(source), {}, {}}, arch, headers);
  }

  std::filesystem::path path_for(const hash128 &key) const;

private:
  std::filesystem::path folder_;
};

} // namespace mkb
