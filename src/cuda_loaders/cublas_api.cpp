#include "cuda_loaders/cublas_api.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <vector>

#include "core/error.hpp"

namespace mkb {

namespace {

std::vector<std::string> candidate_files() {
  std::string soname = fmt::format("libcublas.so.{}", CUBLAS_VER_MAJOR);
  std::vector<std::string> files{soname};
  if (const char *home = std::getenv("CUDA_HOME")) files.push_back(fmt::format("{}/lib64/{}", home, soname));
  files.push_back("/usr/local/cuda/lib64/" + soname);
  return files;
}

cublas_api load() {
  cublas_api api;
  std::string tried;
  void *library = nullptr;
  for (const std::string &file : candidate_files()) {
    library = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library) {
      api.library = file;
      break;
    }
    tried += fmt::format("\n  {}: {}", file, dlerror());
  }
  if (!library) fail(MKB_ERR_WORKER, "cuBLAS is needed for the problem's matmul steps but could not be loaded:{}", tried);
#define MKB_CUBLAS_LOAD(name)                                                                             \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(library, #name));                                 \
  if (!api.name) fail(MKB_ERR_WORKER, "{} has no symbol {}", api.library, #name);
  MKB_CUBLAS_FUNCTIONS(MKB_CUBLAS_LOAD)
#undef MKB_CUBLAS_LOAD
  return api;
}

} // namespace

const cublas_api &load_cublas() {
  static const cublas_api api = load();
  return api;
}

} // namespace mkb
