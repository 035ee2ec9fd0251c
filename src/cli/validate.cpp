// `mkb suite validate`: proves each problem of a suite sound (docs/PROBLEMS.md, Validation). Without
// a GPU it checks what needs none (specs, compilation, plans) and says what it skipped.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <vector>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "dsl/dsl.hpp"
#include "protocol/session.hpp"
#include "spec/suite_data.hpp"

namespace mkb::cli {

namespace {

// How far the baseline may be from the anchor, as a fraction of the output's largest magnitude: 8
// machine epsilons of the output's dtype, and never below 2^-16 (the rounding noise of an eager fp32
// program whose reductions run over ~10^4 terms, 50 to 100 epsilons). A baseline computing other
// semantics than the anchor is off by far more.
double baseline_error_limit(dtype type) { return std::max(8 * dtype_epsilon(type), std::ldexp(1.0, -16)); }
// The baseline's median must be this many times one empty launch, so that launch overhead is under a
// tenth of what is timed.
constexpr double launch_overhead_ratio = 10;

struct problem_outcome {
  std::string id;
  size_t outputs = 0;
  double baseline_us = NAN, solution_us = NAN, speedup = NAN, fraction_of_light = NAN;
  std::vector<std::string> failures; // empty: sound
  std::vector<std::string> skipped;  // DSLs whose toolchain is missing here
};

// Whether each DSL's toolchain works here, asked once per run.
class dsl_availability {
public:
  explicit dsl_availability(frontend_environment env) : env_(std::move(env)) {}
  const std::pair<bool, std::string> &of(const std::string &name) {
    auto it = known_.find(name);
    if (it != known_.end()) return it->second;
    std::string why = "not registered in this build";
    const dsl *d = find_dsl(name);
    bool usable = d && d->usable(env_, &why);
    return known_.emplace(name, std::pair{usable, why}).first->second;
  }

private:
  frontend_environment env_;
  std::map<std::string, std::pair<bool, std::string>> known_;
};

void check_audit(const evaluation_report &r, const problem &p, problem_outcome &out) {
  const wire::audit_result &a = r.result.audit;
  for (const wire::output_check &c : r.result.checks) {
    const tensor_spec *t = p.find_output(c.name);
    if (!t || t->comparison != spec::Comparison::anchor) continue;
    double ratio = c.reference_error / (dtype_epsilon(t->type) * c.anchor_max);
    bool ok = c.reference_error <= baseline_error_limit(t->type) * c.anchor_max;
    fmt::print("    baseline vs anchor, '{}': max error {:.3g} = {:.2f} eps x max|anchor| ({:.3g}); limit {:.0f} eps{}\n",
               c.name, c.reference_error, ratio, c.anchor_max, baseline_error_limit(t->type) / dtype_epsilon(t->type),
               ok ? "" : "  FAILED");
    if (!ok) out.failures.push_back(fmt::format("the baseline's '{}' is {:.1f} eps from the anchor", c.name, ratio));
  }
  if (!a.present) {
    out.failures.push_back("no audit came back");
    return;
  }
  size_t rejected = 0;
  for (const wire::degenerate_check &d : a.degenerate) {
    if (d.failed) ++rejected;
    else out.failures.push_back(fmt::format("degenerate '{}' as '{}' passes the rule", d.kind, d.output));
    fmt::print("    degenerate {:<44} -> {:<8} error {:.3g} vs allowance {:.3g}\n", fmt::format("'{}' = {}", d.output, d.kind),
               d.failed ? "rejected" : "PASSES", d.error, d.allowance);
  }
  for (const wire::sensitivity_check &s : a.sensitivity) {
    bool ok = s.draws_differ && s.constant_axes.empty();
    fmt::print("    sensitivity '{}': {}{}\n", s.output, s.draws_differ ? "differs between draws" : "SAME in two draws",
               s.constant_axes.empty() ? ", varies along every axis"
                                       : fmt::format(", CONSTANT along axes {}", fmt::join(s.constant_axes, ", ")));
    if (!ok) out.failures.push_back(fmt::format("output '{}' is insensitive to its inputs", s.output));
  }
  double ratio = r.baseline_us / a.empty_launch_us;
  fmt::print("    launch overhead: baseline {:.1f} us ({} steps) = {:.0f}x one empty launch ({:.2f} us){}\n", r.baseline_us,
             a.baseline_launches, ratio, a.empty_launch_us, ratio >= launch_overhead_ratio ? "" : "  FAILED");
  if (!(ratio >= launch_overhead_ratio))
    out.failures.push_back(fmt::format("the baseline is only {:.0f}x the launch overhead", ratio));
  fmt::print("    degenerate outputs rejected: {} of {}\n", rejected, a.degenerate.size());
}

problem_outcome validate_problem(session &s, const problem &p, const suite_data &data, dsl_availability &dsls) {
  problem_outcome out;
  out.id = p.id;
  out.outputs = p.outputs.size();
  fmt::print("{} ({}):\n", p.id, p.folder);
  if (p.solutions.empty()) out.failures.push_back("no solution");
  if (std::none_of(p.solutions.begin(), p.solutions.end(), [](const stored_solution &declared) { return declared.beats_baseline; }))
    out.failures.push_back("no solution is declared to beat the baseline");
  try {
    if (!p.solutions.empty()) data.problem_folder(p);
  } catch (const error &e) { // once for the problem rather than once per solution
    fmt::print("  {}\n", e.what());
    out.failures.push_back("its stored solutions are not found");
    return out;
  }
  bool audited = false;
  for (const stored_solution &solution : p.solutions) {
    const auto &[dsl_name, file, beats_baseline] = solution;
    if (const auto &[usable, why] = dsls.of(dsl_name); !usable) {
      fmt::print("  solution in {}: SKIPPED, the DSL is not usable here: {}\n", dsl_name, why);
      out.skipped.push_back(dsl_name);
      continue;
    }
    std::string source;
    try {
      source = data.solution(p, solution);
    } catch (const error &e) {
      fmt::print("  solution in {}: {}\n", dsl_name, e.what());
      out.failures.push_back(fmt::format("the {} solution: not found", dsl_name));
      continue;
    }
    evaluation_report r = s.compile_only() || audited ? s.evaluate(p.id, dsl_name, source) : s.audit(p.id, dsl_name, source);
    bool ok = r.verdict == (s.compile_only() ? MKB_VERDICT_COMPILED : MKB_VERDICT_PASSED);
    fmt::print("  solution in {}: {}\n", dsl_name, ok ? mkb_verdict_name(r.verdict) : r.message);
    if (!ok) {
      out.failures.push_back(fmt::format("the {} solution: {}", dsl_name, mkb_verdict_name(r.verdict)));
      continue;
    }
    if (s.compile_only()) continue;
    fmt::print("    {:.2f} us vs baseline {:.2f} us: {:.2f}x, {:.0f}% of speed-of-light ({})\n", r.time_us, r.baseline_us,
               r.speedup, 100 * r.fraction_of_light, r.light_bound);
    if (beats_baseline && !(r.speedup > 1))
      out.failures.push_back(fmt::format("the {} solution does not beat the baseline", dsl_name));
    if (!beats_baseline) fmt::print("    (declared slower than the baseline: a port kept to show the DSL)\n");
    if (audited) continue; // one audit per problem, with its first solution
    audited = true;
    out.baseline_us = r.baseline_us;
    out.solution_us = r.time_us;
    out.speedup = r.speedup;
    out.fraction_of_light = r.fraction_of_light;
    check_audit(r, p, out);
  }
  return out;
}

std::string verdict_of(const problem_outcome &o, bool compile_only) {
  std::string verdict = o.failures.empty() ? (compile_only ? "compiles" : "sound")
                                           : fmt::format("FAILED: {}", fmt::join(o.failures, "; "));
  if (!o.skipped.empty()) verdict += fmt::format(" (skipped: {})", fmt::join(o.skipped, ", "));
  return verdict;
}

void print_table(const std::vector<problem_outcome> &outcomes, bool compile_only) {
  fmt::print("\n{:<56} {:>7} {:>12} {:>12} {:>8} {:>6}  {}\n", "problem", "outputs", "baseline us", "solution us",
             "speedup", "SOL", "verdict");
  for (const problem_outcome &o : outcomes) {
    auto number = [&](double v, const char *format) { return std::isfinite(v) ? fmt::format(fmt::runtime(format), v) : "-"; };
    fmt::print("{:<56} {:>7} {:>12} {:>12} {:>8} {:>6}  {}\n", o.id, o.outputs, number(o.baseline_us, "{:.1f}"),
               number(o.solution_us, "{:.1f}"), number(o.speedup, "{:.2f}x"), number(100 * o.fraction_of_light, "{:.0f}%"),
               verdict_of(o, compile_only));
  }
}

} // namespace

int run_suite(int argc, char **argv) {
  arguments a;
  try {
    a = parse_arguments(argc, argv, 2, {"problem", "suite", "gpus", "gpu-lock-dir"}, {"compile-only", "no-sandbox"});
    if (a.positional.size() != 1 || a.positional[0] != "validate")
      throw std::invalid_argument("usage: mkb suite validate [--problem ID] [--suite DIR] [--gpus LIST] [--compile-only] [--no-sandbox]");
  } catch (const std::exception &e) {
    fmt::print(stderr, "mkb suite: {}\n", e.what());
    return exit_usage;
  }
  std::unique_ptr<session> s;
  try {
    session_arguments options(a);
    session_config config = config_from_options(options.options());
    config.compile_limit = std::chrono::seconds(600); // the suite's own kernels: sound, not quick to compile
    s = std::make_unique<session>(config);
  } catch (const error &e) {
    fmt::print(stderr, "mkb suite validate: {}: {}\n", mkb_status_name(e.status()), e.what());
    return e.status() == MKB_ERR_WORKER ? exit_environment : exit_failed;
  }
  std::vector<const problem *> selected;
  for (const problem &p : s->problems().problems())
    if (!a.get("problem") || p.id == *a.get("problem")) selected.push_back(&p);
  if (selected.empty()) {
    fmt::print(stderr, "mkb suite validate: no problem '{}' in {}\n", a.get("problem").value_or(""), s->problems().origin());
    return exit_usage;
  }
  // A suite given as a folder holds its solutions; the built-in one has none (spec/suite_data.hpp).
  const std::optional<std::string> &folder = s->config().suite_path;
  const suite_data data = suite_data::locate(folder ? std::optional<std::filesystem::path>(*folder) : std::nullopt);
  std::vector<std::string> places;
  for (const std::filesystem::path &place : data.candidates()) places.push_back(place.string());
  fmt::print("Validating {} problem(s) of {} {}\nStored solutions: from the first of {} that holds the problem\n\n",
             selected.size(), s->problems().origin(),
             s->compile_only() ? "without a GPU: specs, compilation and plans only" : "on the GPU",
             fmt::join(places, ", "));
  frontend_environment env;
  env.python = s->config().python;
  env.sandbox = s->config().sandbox;
  dsl_availability dsls(env);
  std::vector<problem_outcome> outcomes;
  for (const problem *p : selected) {
    try {
      outcomes.push_back(validate_problem(*s, *p, data, dsls));
    } catch (const error &e) {
      outcomes.push_back({p->id, p->outputs.size(), NAN, NAN, NAN, NAN, {e.what()}, {}});
    }
  }
  print_table(outcomes, s->compile_only());
  if (s->compile_only())
    fmt::print("\nSkipped without a GPU: correctness of the solutions, the baseline-anchor agreement, the "
               "degenerate-output audit, the sensitivity checks and every timing.\n");
  bool sound = std::all_of(outcomes.begin(), outcomes.end(), [](const problem_outcome &o) { return o.failures.empty(); });
  return sound ? exit_ok : exit_failed;
}

} // namespace mkb::cli
