#include "dsl/dsl.hpp"

namespace mkb {

const dsl *cuda_frontend();

std::vector<const dsl *> all_dsls() { return {cuda_frontend()}; }

const dsl *find_dsl(std::string_view name) {
  for (const dsl *d : all_dsls())
    if (d->name() == name) return d;
  return nullptr;
}

} // namespace mkb
