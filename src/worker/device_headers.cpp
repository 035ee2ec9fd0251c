#include "worker/device_headers.hpp"

#include "core/embedded_files.hpp"

namespace mkb::worker {

std::vector<extra_header> problem_headers() {
  std::vector<extra_header> headers;
  for (const embedded_file &f : embedded::device_sources())
    if (f.path.ends_with(".cuh")) headers.push_back({std::string(f.path), std::string(f.data)});
  return headers;
}

} // namespace mkb::worker
