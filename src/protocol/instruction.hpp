// What a task tells its agent: rendered from the problem, the DSL's notes, the contract and the budget
// (src/protocol/instruction*.md), so that adding a DSL or a problem changes no template.
#pragma once

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

// The skill a skill arm receives: a header naming where it comes from, then the text.
std::string skill_for_transfer(const std::string &skill, const std::string &source_dsl);

// `source_skill` is empty for solo arms.
std::string render_instruction(const problem &p, const dsl &d, int arm, const budget_limits &budget,
                               const std::string &source_skill, const std::string &source_dsl);

} // namespace mkb
