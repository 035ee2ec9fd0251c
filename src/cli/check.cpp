// `mkb check`: one full evaluation of a kernel file and its report.
#include <fmt/format.h>

#include <algorithm>

#include "cli/commands.hpp"
#include "cli/not_found.hpp"
#include "cli/session_options.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "mkb.h"

namespace mkb::cli {

namespace {

struct check_options {
  session_options session;
  std::string problem, dsl, file, target_arch;
  bool json = false;
};

// A name on the command line that names nothing is a bad command line (exit 2), said with the list.
int unknown_name(const check_options &o) {
  std::vector<std::string> problems = problem_ids(o.session.suite), dsls = dsl_names();
  if (std::find(problems.begin(), problems.end(), o.problem) == problems.end())
    return report_not_found("mkb check", "problem", o.problem, problems, suite_called(o.session.suite.empty() ? "built-in" : o.session.suite));
  if (std::find(dsls.begin(), dsls.end(), o.dsl) == dsls.end())
    return report_not_found("mkb check", "DSL", o.dsl, dsls, "this build");
  return exit_ok;
}

// A refusal is the harness's failure (exit 3) only when the report says so; a submission refused for
// itself (invalid Python, a bad launch plan, too large) is a negative answer like a compile error.
int exit_code_of(const mkb_report *report) {
  int verdict = mkb_report_verdict(report);
  if (verdict == MKB_VERDICT_PASSED || verdict == MKB_VERDICT_COMPILED) return exit_ok;
  if (verdict != MKB_VERDICT_REFUSED) return exit_failed;
  std::string_view json = mkb_report_json(report), message = mkb_report_message(report);
  bool infrastructure = json.find("\"infrastructure_failure\":true") != std::string_view::npos ||
                        message.find("infrastructure failure") != std::string_view::npos;
  return infrastructure ? exit_environment : exit_failed;
}

int check(const check_options &o) {
  if (int code = unknown_name(o)) return code;
  std::string source = read_file(o.file);
  mkb_open_options options = o.session.open_options();
  if (!o.target_arch.empty()) options.target_arch = o.target_arch.c_str();
  // The session selects the problem checked, by its id: an extra one too, even in a suite of extras.
  options.problems = o.problem.c_str();
  mkb_session *session = nullptr;
  if (mkb_status s = mkb_open(&options, &session); s != MKB_OK) {
    fmt::print(stderr, "mkb check: {}: {}\n", mkb_status_name(s), mkb_session_errmsg(session));
    mkb_close(session);
    return s == MKB_ERR_WORKER ? exit_environment : exit_usage;
  }
  mkb_report *report = nullptr;
  mkb_status s = mkb_evaluate(session, o.problem.c_str(), o.dsl.c_str(), source.data(), source.size(), &report);
  if (s != MKB_OK) {
    fmt::print(stderr, "mkb check: {}: {}\n", mkb_status_name(s), mkb_session_errmsg(session));
    mkb_close(session);
    return s == MKB_ERR_NOT_FOUND || s == MKB_ERR_INVALID_ARGUMENT ? exit_usage : exit_environment;
  }
  if (o.json) fmt::print("{}\n", mkb_report_json(report));
  else fmt::print("{}", mkb_report_message(report));
  int code = exit_code_of(report);
  mkb_report_free(report);
  mkb_close(session);
  return code;
}

} // namespace

void add_check(CLI::App &mkb, int &exit_code) {
  CLI::App *command = mkb.add_subcommand(
      "check", "evaluate one kernel and print its report. Exit 0: passed (compiled, with --compile-only); 1: a failing "
               "verdict (a compile error included); 3: refused by an infrastructure failure");
  auto o = std::make_shared<check_options>();
  command->add_option("--problem", o->problem, "the problem's id (`mkb problems` lists them)")->type_name("ID")->required();
  command->add_option("--dsl", o->dsl, "the DSL FILE is written in (`mkb dsls` lists them)")->type_name("DSL")->required();
  command->add_option("FILE", o->file, "the kernel's source, with its launch plan")->required()->check(CLI::ExistingFile.description(""));
  command->add_flag("--json", o->json, "print the whole report as JSON");
  o->session.add_to(*command);
  command->add_option("--target-arch", o->target_arch, "what a compile-only check compiles for, such as sm_100a "
                                                       "(default: MKB_TARGET_ARCH, then sm_90a)")->type_name("ARCH");
  command->callback([o, &exit_code] { exit_code = check(*o); });
}

} // namespace mkb::cli
