// What a task tells its agent: rendered from the problem, the DSL's notes and guide's path, the contract
// and the budget (src/protocol/instruction*.md), so that adding a DSL or a problem changes no template.
#pragma once

#include <cstdint>
#include <string>

namespace mkb {

struct problem;
class dsl;

struct budget_limits {
  uint32_t seconds = 2400;
  uint32_t submissions = 10;
  uint32_t source_bytes = 300000;
  uint32_t skill_bytes = 65536;
};

// Every arm's instruction: a skill arm's is this text followed by skill_section() and nothing else, so
// that the transferred skill is the only difference between arms (as in the original benchmark).
// guide_path: where the session wrote the DSL's guide, pointed to from the text; empty: no pointer.
std::string render_instruction(const problem &p, const dsl &d, const budget_limits &budget,
                               const std::string &guide_path);

// The one section a skill arm's instruction adds: the source solo's skill, said to come from an earlier
// attempt at this problem in a different kernel DSL (which DSL is not said).
std::string skill_section(const std::string &skill);

} // namespace mkb
