// What a command says when a name on its command line (a problem, a DSL, a subcommand) names nothing:
// the closest name, if one is a plausible misspelling, and every name that exists.
#pragma once

#include <string>
#include <vector>

namespace mkb::cli {

// Prints to stderr "<command>: no <kind> '<wanted>'[ in <where>]; did you mean '<closest>'?" and the
// list of `names`. Returns exit_usage: a name that names nothing is a bad command line.
int report_not_found(const std::string &command, const std::string &kind, const std::string &wanted,
                     const std::vector<std::string> &names, const std::string &where = "");

// The names of the problems of the suite at `suite_path` ("": the built-in one), and of the DSLs
// registered in this build.
std::vector<std::string> problem_ids(const std::string &suite_path);
// "the built-in suite" or "suite <folder>", from suite::origin().
std::string suite_called(const std::string &origin);
std::vector<std::string> dsl_names();

} // namespace mkb::cli
