// Discovery (mkb_list_problems, mkb_list_dsls, `mkb problems`, `mkb dsls`, `mkb doctor`): what the
// suite holds and which DSLs can run here, so that a framework can build its menus before it opens a
// session.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "protocol/session_config.hpp"
#include "spec/suite.hpp"

namespace mkb {

struct dsl_availability {
  std::string name;         // "cute-dsl"
  std::string display_name; // "CuTe DSL (CUTLASS Python)"
  bool usable = false;
  std::string detail; // why not, or what it uses when it is usable
};

struct toolchain_survey {
  std::string python;                                // the Python DSLs' interpreter
  std::pair<std::string, std::string> default_pair;  // what a session without dsl_a/dsl_b uses
  std::pair<std::string, std::string> selected_pair; // what `config` selects (the default pair if none)
  bool sandbox_usable = false;                       // Python DSL submissions can run (confined, or opted out)
  bool sandbox_confined = false;                     // ... and run inside the sandbox
  std::string sandbox_detail;
  std::vector<dsl_availability> dsls; // every registered DSL, in registry order
  // The DSLs of the selected pair that cannot run here, each with why ("tirx: ..."); empty: both can.
  std::vector<std::string> pair_problems() const;
};

// Asks each registered DSL whether its toolchain works with config.python and config.sandbox (as
// MKB_NO_SANDBOX also does). Runs the interpreter; takes a second or two the first time.
toolchain_survey survey_toolchains(const session_config &config);

// The JSON documented at mkb_list_dsls() and mkb_list_problems() in mkb.h.
std::string toolchains_json(const toolchain_survey &survey);
std::string problems_json(const suite &problems);

} // namespace mkb
