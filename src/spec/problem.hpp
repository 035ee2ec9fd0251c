// A problem of the suite, parsed from its spec.json and checked: every shape, cost and distribution
// resolved against the problem's symbols, every file it names read. docs/PROBLEMS.md is the format.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/expression.hpp"
#include "spec/dtype.hpp"
#include "spec/eager_times.hpp"

namespace mkb {

class file_source;

struct distribution {
  spec::DistributionKind kind = spec::DistributionKind::normal;
  double mean = 0, stddev = 1, low = 0, high = 1;
  std::string generator;
};

struct tensor_spec {
  std::string name;
  dtype type = dtype::fp32;
  std::vector<std::string> shape_text;
  std::vector<int64_t> shape;
  uint64_t count = 1; // elements
  std::string doc;
  // inputs
  distribution dist;
  bool writable = false;
  // outputs
  spec::Comparison comparison = spec::Comparison::anchor;
  std::string aliases; // the writable input this output is written into
  // An input this output equals by the problem's semantics (the original returns a clone of it): the
  // audit does not require a copy of it to fail (docs/PROBLEMS.md).
  std::string equals_input;
  // How far the baseline may be from the anchor, in eps(dtype) x max|anchor|: the default limit, or the
  // spec's declared `baseline_vs_anchor` (docs/PROBLEMS.md, Validation). Not sent to the worker.
  double baseline_vs_anchor_eps = 0;
  uint64_t bytes() const { return count * dtype_bytes(type); }
};

// A solution kept with the problem: it must pass, and beat the baseline unless declared otherwise.
// Only its declaration is loaded: the file stays out of libmkb.so, where an agent could read it, and
// the tools that need it read it from disk (spec/suite_data.hpp).
struct stored_solution {
  std::string dsl;
  std::string file; // relative to the problem folder
  bool beats_baseline = true;
};

// The original benchmark's file this problem reproduces (spec.json's `origin`).
struct problem_origin {
  std::string repository, commit, path;
  spec::OriginKind kind = spec::OriginKind::public_reference;
};

struct problem {
  std::string id;
  int number = 0;
  std::string family;
  std::string folder; // relative to the suite root: "<family>/<id>"
  std::string description;
  std::string source_model;
  std::string notes;
  std::vector<std::pair<std::string, int64_t>> symbols;
  std::vector<std::pair<std::string, double>> constants;
  std::vector<tensor_spec> inputs;
  std::vector<tensor_spec> outputs;
  std::vector<std::string> invariants;
  double flops = 0;
  double bytes = 0;
  spec::ComputeKind compute = spec::ComputeKind::fp32;
  std::string reference; // readable reference for agents (Markdown)
  std::string baseline_source;
  std::string anchor_source;
  std::string generators_source; // empty if none
  std::string spec_text;         // spec.json as written, for fingerprints
  std::vector<stored_solution> solutions;
  std::optional<problem_origin> origin; // empty: not one of the original's problems
  // Declared baseline/eager-graph time ratio where it is outside [0.9, 1.1] (.ci/gpu-validate checks it).
  std::optional<double> baseline_vs_eager_graph;
  // Why no stored solution beats the baseline, with figures; empty: one must (mkb suite validate).
  std::string unbeaten_baseline;
  // eager_times.json: eager PyTorch's time per GPU model, none without the file. Outside spec_text and
  // so outside the fingerprints: a new measurement is no new version of the problem.
  std::vector<eager_time> eager_times;

  // Symbols (integers) and constants (floats) by name, for plan expressions.
  expr_lookup lookup() const;
  const tensor_spec *find_input(std::string_view name) const;
  const tensor_spec *find_output(std::string_view name) const;
  const stored_solution *solution_for(std::string_view dsl) const;
  // The eager time recorded for `gpu` (the driver's device name), or nullptr.
  const eager_time *eager_time_for(std::string_view gpu) const { return find_eager_time(eager_times, gpu); }
};

// The baseline's default distance from the anchor, in eps(dtype) x max|anchor|: 8 machine epsilons,
// and never below 2^-16 of the magnitude (the rounding noise of an eager fp32 program whose reductions
// run over ~10^4 terms, 50 to 100 epsilons). A baseline computing other semantics is off by far more.
double default_baseline_vs_anchor_eps(dtype type);
// The most a spec may declare instead: 2^-10 of the magnitude, far below what other semantics give.
double max_baseline_vs_anchor_eps(dtype type);

// Parses and checks `<folder>/spec.json` of `files`. Throws mkb::error(MKB_ERR_SPEC) whose text
// names the file, the field and what is wrong.
problem load_problem(const file_source &files, const std::string &folder);

} // namespace mkb
