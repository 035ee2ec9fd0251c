// `mkb suite validate`: proves each problem of a suite sound (docs/PROBLEMS.md, Validation). Without
// a GPU it checks what needs none (specs, compilation, plans) and says what it skipped. The details go
// to stdout (to stderr with --json, where stdout is the result), progress to stderr.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <vector>

#include "api/open_options.hpp"
#include "cli/commands.hpp"
#include "cli/not_found.hpp"
#include "cli/progress_line.hpp"
#include "cli/session_options.hpp"
#include "core/error.hpp"
#include "core/json_writer.hpp"
#include "core/text.hpp"
#include "dsl/dsl.hpp"
#include "protocol/session.hpp"
#include "spec/suite_data.hpp"

namespace mkb::cli {

namespace {

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

// What one validation run shares between its problems.
struct validation_run {
  session &s;
  const suite_data &data;
  dsl_availability &dsls;
  std::vector<std::string> only_dsls; // --dsl: empty for all
  std::FILE *detail;                  // where the per-problem lines go
  progress_line *progress = nullptr;

  bool selected(const std::string &dsl_name) const {
    return only_dsls.empty() || std::find(only_dsls.begin(), only_dsls.end(), dsl_name) != only_dsls.end();
  }
};

void check_audit(const evaluation_report &r, const problem &p, problem_outcome &out, std::FILE *detail) {
  const audit_result &a = r.result.audit;
  for (const output_check &c : r.result.checks) {
    const tensor_spec *t = p.find_output(c.name);
    if (!t || t->comparison != spec::Comparison::anchor) continue;
    double ratio = c.reference_error / (dtype_epsilon(t->type) * c.anchor_max);
    bool ok = c.reference_error <= t->baseline_vs_anchor_eps * dtype_epsilon(t->type) * c.anchor_max;
    bool declared = t->baseline_vs_anchor_eps != default_baseline_vs_anchor_eps(t->type);
    fmt::print(detail, "    baseline vs anchor, '{}': max error {:.3g} = {:.2f} eps x max|anchor| ({:.3g}); limit {:.0f} eps{}{}\n",
               c.name, c.reference_error, ratio, c.anchor_max, t->baseline_vs_anchor_eps, declared ? " (declared)" : "",
               ok ? "" : "  FAILED");
    if (!ok) out.failures.push_back(fmt::format("the baseline's '{}' is {:.1f} eps from the anchor", c.name, ratio));
  }
  if (!a.present) {
    out.failures.push_back("no audit came back");
    return;
  }
  size_t rejected = 0;
  for (const degenerate_check &d : a.degenerate) {
    if (d.failed) ++rejected;
    else out.failures.push_back(fmt::format("degenerate '{}' as '{}' passes the rule", d.kind, d.output));
    fmt::print(detail, "    degenerate {:<44} -> {:<8} error {:.3g} vs allowance {:.3g}\n", fmt::format("'{}' = {}", d.output, d.kind),
               d.failed ? "rejected" : "PASSES", d.error, d.allowance);
  }
  for (const sensitivity_check &s : a.sensitivity) {
    bool ok = s.draws_differ && s.constant_axes.empty();
    fmt::print(detail, "    sensitivity '{}': {}{}\n", s.output, s.draws_differ ? "differs between draws" : "SAME in two draws",
               s.constant_axes.empty() ? ", varies along every axis"
                                       : fmt::format(", CONSTANT along axes {}", fmt::join(s.constant_axes, ", ")));
    if (!ok) out.failures.push_back(fmt::format("output '{}' is insensitive to its inputs", s.output));
  }
  double ratio = r.baseline_us / a.empty_launch_us;
  fmt::print(detail, "    launch overhead: baseline {:.1f} us ({} steps) = {:.0f}x one empty launch ({:.2f} us){}\n", r.baseline_us,
             a.baseline_launches, ratio, a.empty_launch_us, ratio >= launch_overhead_ratio ? "" : "  FAILED");
  if (!(ratio >= launch_overhead_ratio))
    out.failures.push_back(fmt::format("the baseline is only {:.0f}x the launch overhead", ratio));
  fmt::print(detail, "    degenerate outputs rejected: {} of {}\n", rejected, a.degenerate.size());
}

// A problem that takes one of the original benchmark's numbers claims to reproduce it: it must name the
// original's file (`origin`) and keep the eager computation the original times (eager.py), which
// .ci/gpu-validate checks against the anchor and times (docs/PROBLEMS.md, "Fidelity to the original").
void check_origin(const validation_run &run, const problem &p, problem_outcome &out) {
  if (p.number == 0) return;
  if (!p.origin) {
    out.failures.push_back(fmt::format("number {} without an origin naming the original's file", p.number));
    return;
  }
  try {
    if (!std::filesystem::exists(run.data.problem_folder(p) / "eager.py"))
      out.failures.push_back("no eager.py, the computation the original times");
  } catch (const error &) { // the solutions' check has said where it looked
  }
}

problem_outcome validate_problem(validation_run &run, const problem &p) {
  session &s = run.s;
  std::FILE *detail = run.detail;
  problem_outcome out;
  out.id = p.id;
  out.outputs = p.outputs.size();
  fmt::print(detail, "{} ({}):\n", p.id, p.folder);
  if (p.solutions.empty()) out.failures.push_back("no solution");
  bool declared_to_beat =
      std::any_of(p.solutions.begin(), p.solutions.end(), [](const stored_solution &declared) { return declared.beats_baseline; });
  if (!declared_to_beat && p.unbeaten_baseline.empty())
    out.failures.push_back("no solution is declared to beat the baseline (nor the baseline declared unbeaten)");
  if (!p.unbeaten_baseline.empty()) fmt::print(detail, "  declared unbeaten baseline: {}\n", p.unbeaten_baseline);
  try {
    if (!p.solutions.empty()) run.data.problem_folder(p);
  } catch (const error &e) { // once for the problem rather than once per solution
    fmt::print(detail, "  {}\n", e.what());
    out.failures.push_back("its stored solutions are not found");
    return out;
  }
  bool audited = false;
  for (const stored_solution &solution : p.solutions) {
    const auto &[dsl_name, file, beats_baseline] = solution;
    if (!run.selected(dsl_name)) continue;
    if (const auto &[usable, why] = run.dsls.of(dsl_name); !usable) {
      fmt::print(detail, "  solution in {}: SKIPPED, the DSL is not usable here: {}\n", dsl_name, why);
      out.skipped.push_back(dsl_name);
      continue;
    }
    std::string source;
    try {
      source = run.data.solution(p, solution);
    } catch (const error &e) {
      fmt::print(detail, "  solution in {}: {}\n", dsl_name, e.what());
      out.failures.push_back(fmt::format("the {} solution: not found", dsl_name));
      continue;
    }
    std::fflush(detail); // what was said so far, before the progress line
    run.progress->begin(fmt::format("{} {} in {}", s.compile_only() ? "compiling" : "running", p.id, dsl_name));
    evaluation_report r = s.compile_only() || audited ? s.evaluate(p.id, dsl_name, source) : s.audit(p.id, dsl_name, source);
    run.progress->end();
    bool ok = r.verdict == (s.compile_only() ? MKB_VERDICT_COMPILED : MKB_VERDICT_PASSED);
    fmt::print(detail, "  solution in {}: {}\n", dsl_name, ok ? mkb_verdict_name(r.verdict) : r.message);
    if (!ok) {
      out.failures.push_back(fmt::format("the {} solution: {}", dsl_name, mkb_verdict_name(r.verdict)));
      continue;
    }
    if (s.compile_only()) continue;
    fmt::print(detail, "    {:.2f} us vs baseline {:.2f} us: {:.2f}x, {:.0f}% of speed-of-light ({})\n", r.time_us, r.baseline_us,
               r.speedup, 100 * r.fraction_of_light, r.light_bound);
    if (beats_baseline && !(r.speedup > 1))
      out.failures.push_back(fmt::format("the {} solution does not beat the baseline", dsl_name));
    if (!beats_baseline) fmt::print(detail, "    (declared slower than the baseline: a port kept to show the DSL)\n");
    if (audited) continue; // one audit per problem, with its first solution
    audited = true;
    out.baseline_us = r.baseline_us;
    out.solution_us = r.time_us;
    out.speedup = r.speedup;
    out.fraction_of_light = r.fraction_of_light;
    check_audit(r, p, out, detail);
  }
  check_origin(run, p, out);
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

void print_json(const std::vector<problem_outcome> &outcomes, const session &s, bool sound) {
  json_writer w;
  w.begin_object().field("suite", s.problems().origin()).field("compile_only", s.compile_only()).field("sound", sound);
  w.key("problems").begin_array();
  for (const problem_outcome &o : outcomes) {
    w.begin_object().field("id", o.id).field("outputs", static_cast<uint64_t>(o.outputs));
    w.field("baseline_us", o.baseline_us).field("solution_us", o.solution_us).field("speedup", o.speedup);
    w.field("fraction_of_light", o.fraction_of_light);
    w.field("verdict", o.failures.empty() ? (s.compile_only() ? "compiles" : "sound") : "failed");
    w.key("failures").begin_array();
    for (const std::string &f : o.failures) w.value(f);
    w.end_array().key("skipped").begin_array();
    for (const std::string &d : o.skipped) w.value(d);
    w.end_array().end_object();
  }
  fmt::print("{}\n", w.end_array().end_object().str());
}

struct validate_options {
  session_options session;
  std::string problem, dsls;
  bool json = false;
};

// The evaluations the run will make: each selected solution whose DSL is usable here.
size_t planned_steps(const std::vector<const problem *> &selected, const validation_run &run) {
  size_t steps = 0;
  for (const problem *p : selected)
    for (const stored_solution &solution : p->solutions)
      if (run.selected(solution.dsl) && run.dsls.of(solution.dsl).first) ++steps;
  return steps;
}

int validate(const validate_options &o) {
  std::vector<std::string> only_dsls = split(o.dsls, ','), known = dsl_names();
  for (const std::string &name : only_dsls)
    if (std::find(known.begin(), known.end(), name) == known.end())
      return report_not_found("mkb suite validate", "DSL", name, known, "this build");
  std::unique_ptr<session> s;
  try {
    mkb_open_options options = o.session.open_options();
    session_config config = config_from_options(&options);
    config.families = suite::load(config.suite_path).families(); // the extra problems too
    config.compile_limit = std::chrono::seconds(600); // the suite's own kernels: sound, not quick to compile
    s = std::make_unique<session>(config);
  } catch (const error &e) {
    fmt::print(stderr, "mkb suite validate: {}: {}\n", mkb_status_name(e.status()), e.what());
    return e.status() == MKB_ERR_WORKER ? exit_environment : exit_failed;
  }
  // Ids or shell globs, comma-separated, matched as mkb_open_options.problems is (suite::select), over
  // every family: the extra problems that sessions leave out by default are validated too.
  std::vector<const problem *> selected;
  try {
    selected = s->problems().select(split(o.problem, ','), s->config().families);
  } catch (const error &) { // a pattern that matches nothing
    return report_not_found("mkb suite validate", "problem", o.problem, problem_ids(o.session.suite),
                            suite_called(s->problems().origin()));
  }
  // A suite given as a folder holds its solutions; the built-in one has none (spec/suite_data.hpp).
  const std::optional<std::string> &folder = s->config().suite_path;
  const suite_data data = suite_data::locate(folder ? std::optional<std::filesystem::path>(*folder) : std::nullopt);
  frontend_environment env;
  env.python = s->config().python;
  env.sandbox = s->config().sandbox;
  dsl_availability dsls(env);
  validation_run run{*s, data, dsls, only_dsls, o.json ? stderr : stdout};
  std::vector<std::string> places;
  for (const std::filesystem::path &place : data.candidates()) places.push_back(place.string());
  fmt::print(run.detail, "Validating {} problem(s) of {} {}\nStored solutions: from the first of {} that holds the problem\n\n",
             selected.size(), s->problems().origin(),
             s->compile_only() ? "without a GPU: specs, compilation and plans only" : "on the GPU",
             fmt::join(places, ", "));
  progress_line progress(planned_steps(selected, run));
  run.progress = &progress;
  std::vector<problem_outcome> outcomes;
  for (const problem *p : selected) {
    try {
      outcomes.push_back(validate_problem(run, *p));
    } catch (const error &e) {
      progress.end();
      outcomes.push_back({p->id, p->outputs.size(), NAN, NAN, NAN, NAN, {e.what()}, {}});
    }
    std::fflush(run.detail); // piped, each problem's lines arrive as it is done
  }
  bool sound = std::all_of(outcomes.begin(), outcomes.end(), [](const problem_outcome &x) { return x.failures.empty(); });
  if (o.json) {
    print_json(outcomes, *s, sound);
    return sound ? exit_ok : exit_failed;
  }
  print_table(outcomes, s->compile_only());
  if (s->compile_only())
    fmt::print("\nSkipped without a GPU: correctness of the solutions, the baseline-anchor agreement, the "
               "degenerate-output audit, the sensitivity checks and every timing.\n");
  return sound ? exit_ok : exit_failed;
}

} // namespace

void add_suite(CLI::App &mkb, int &exit_code) {
  CLI::App *suite = mkb.add_subcommand("suite", "check the suite itself");
  suite->require_subcommand(1);
  CLI::App *command = suite->add_subcommand(
      "validate", "prove each problem sound: solutions pass and beat the baseline, degenerate outputs fail, outputs "
                  "depend on the inputs. Without a GPU: specs, compilation and plans. Exit 0: every problem is sound; "
                  "1: one is not");
  auto o = std::make_shared<validate_options>();
  command->add_option("--problem", o->problem,
                      "validate only these problems: ids or shell globs, comma-separated (`mkb problems` lists them)")
      ->type_name("GLOBS");
  command->add_option("--dsl", o->dsls, "validate the solutions in these DSLs only, comma-separated (`mkb dsls` lists "
                                        "them)")->type_name("LIST");
  command->add_flag("--json", o->json, "print the result as JSON on stdout (the details go to stderr)");
  o->session.add_to(*command);
  command->callback([o, &exit_code] { exit_code = validate(*o); });
}

} // namespace mkb::cli
