// The DSL registry. A DSL turns a submission's text into code the worker compiles plus a resolved
// launch plan; everything after that is the same for every DSL. docs/DSLS.md says how to add one.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "plan/launch_plan.hpp"
#include "wire/codec.hpp"

namespace mkb {

struct problem;

struct prepared_submission {
  wire::module_source module;
  resolved_plan plan;
};

// A submission the frontend cannot turn into code and plan: refused before evaluation, not counted.
class submission_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class dsl {
public:
  virtual ~dsl() = default;
  virtual std::string name() const = 0;         // "cuda"
  virtual std::string display_name() const = 0; // "CUDA C++ (NVRTC)"
  // What an agent needs to know to write a submission: format, plan, environment, versions.
  virtual std::string notes() const = 0;
  // Whether the toolchain works here, and if not, why.
  virtual bool usable(std::string *why) const = 0;
  // Throws submission_error naming what is wrong (with the line where there is one).
  virtual prepared_submission prepare(std::string_view source, const problem &p, plan_role role) const = 0;
};

// nullptr if no DSL has that name.
const dsl *find_dsl(std::string_view name);
std::vector<const dsl *> all_dsls();

} // namespace mkb
