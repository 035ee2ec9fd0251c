// What the worker needs of a problem: every shape resolved, no expressions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "spec/problem.hpp"

namespace mkb {

struct problem_instance {
  std::string id;
  std::vector<tensor_spec> inputs;
  std::vector<tensor_spec> outputs;
  std::string generators; // CUDA source, empty if none
  double flops = 0;
  double bytes = 0;
  spec::ComputeKind compute = spec::ComputeKind::fp32;

  const tensor_spec *find_input(std::string_view name) const;
};

problem_instance instance_of(const problem &p);

} // namespace mkb
