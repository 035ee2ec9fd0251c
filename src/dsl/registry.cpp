#include "dsl/dsl.hpp"

namespace mkb {

const dsl *cuda_frontend();
const dsl *cute_frontend();
const dsl *triton_frontend();
const dsl *cute_dsl_frontend();
const dsl *tirx_frontend();

std::vector<const dsl *> all_dsls() {
  return {cuda_frontend(), cute_dsl_frontend(), tirx_frontend(), triton_frontend(), cute_frontend()};
}

const dsl *find_dsl(std::string_view name) {
  for (const dsl *d : all_dsls())
    if (d->name() == name) return d;
  return nullptr;
}

} // namespace mkb
