#include "model/problem_instance.hpp"

namespace mkb {

const tensor_spec *problem_instance::find_input(std::string_view name) const {
  for (const tensor_spec &t : inputs)
    if (t.name == name) return &t;
  return nullptr;
}

problem_instance instance_of(const problem &p) {
  return {p.id, p.inputs, p.outputs, p.generators_source, p.flops, p.bytes, p.compute};
}

} // namespace mkb
