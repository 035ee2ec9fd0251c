#include "protocol/instruction.hpp"

#include <fmt/format.h>

#include "core/embedded_files.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "dsl/dsl.hpp"
#include "mkb.h"
#include "spec/problem.hpp"

namespace mkb {

namespace {

std::string resource(const char *name) {
  const embedded_file *f = find_embedded(embedded::resources(), name);
  if (!f) fail(MKB_ERR_INTERNAL, "{} is not built in", name);
  return std::string(f->data);
}

std::string describe_distribution(const tensor_spec &t) {
  switch (t.dist.kind) {
  case spec::DistributionKind::normal: return fmt::format("N({}, {})", t.dist.mean, t.dist.stddev);
  case spec::DistributionKind::uniform: return fmt::format("uniform [{}, {})", t.dist.low, t.dist.high);
  case spec::DistributionKind::integer_range: return fmt::format("integers in [{}, {}]", t.dist.low, t.dist.high);
  case spec::DistributionKind::permutation: return "each row a permutation of 0..n-1";
  case spec::DistributionKind::generator: return "structured (see the reference)";
  }
  return "";
}

std::string tensor_table(const problem &p) {
  std::string out = "| name | role | dtype | shape | values / notes |\n| --- | --- | --- | --- | --- |\n";
  auto shape = [](const tensor_spec &t) {
    std::vector<std::string> axes;
    for (size_t i = 0; i < t.shape.size(); ++i)
      axes.push_back(t.shape_text[i] == std::to_string(t.shape[i]) ? t.shape_text[i]
                                                                    : fmt::format("{} = {}", t.shape_text[i], t.shape[i]));
    return "[" + fmt::format("{}", fmt::join(axes, ", ")) + "]";
  };
  for (const tensor_spec &t : p.inputs)
    out += fmt::format("| `{}` | input{} | {} | {} | {}{} |\n", t.name, t.writable ? " (writable)" : "", dtype_name(t.type),
                       shape(t), describe_distribution(t), t.doc.empty() ? "" : "; " + t.doc);
  for (const tensor_spec &t : p.outputs)
    out += fmt::format("| `{}` | output{} | {} | {} | {}{} |\n", t.name, t.aliases.empty() ? "" : " in place of `" + t.aliases + "`",
                       dtype_name(t.type), shape(t),
                       t.comparison == spec::Comparison::anchor ? "anchor rule"
                       : t.comparison == spec::Comparison::exact ? "exact"
                                                                 : "exact after sorting rows",
                       t.doc.empty() ? "" : "; " + t.doc);
  std::vector<std::string> symbols;
  for (const auto &[name, value] : p.symbols) symbols.push_back(fmt::format("`{}` = {}", name, value));
  for (const auto &[name, value] : p.constants) symbols.push_back(fmt::format("`{}` = {}", name, value));
  out += "\nSymbols and constants usable in the launch plan: " + fmt::format("{}", fmt::join(symbols, ", ")) + ".\n";
  return out;
}

} // namespace

std::string skill_for_transfer(const std::string &skill, const std::string &source_dsl) {
  return fmt::format("> Skill written during an earlier attempt at this problem in {}.\n\n{}", source_dsl, skill);
}

std::string render_instruction(const problem &p, const dsl &d, int arm, const budget_limits &budget,
                               const std::string &source_skill, const std::string &source_dsl) {
  std::string invariants;
  for (const std::string &i : p.invariants) invariants += "- " + i + "\n";
  if (invariants.empty()) invariants = "- Nothing beyond the shapes, dtypes and distributions above.\n";
  std::string budget_text = fmt::format(
      "- {} minutes of wall clock from when this task was handed out.\n"
      "- {} submissions that enter evaluation; a submission refused before evaluation (too large, "
      "unparsable launch plan, infrastructure failure) is explained and not counted.\n"
      "- At most {} bytes per submission; at most {} bytes of skill.\n",
      budget.seconds / 60.0, budget.submissions, budget.source_bytes, budget.skill_bytes);
  bool skill_arm = arm == MKB_ARM_A2B_SKILL || arm == MKB_ARM_B2A_SKILL;
  std::string skill_section = skill_arm ? fill_template(resource("protocol/instruction_skill_given.md"),
                                                        {{"source_dsl", source_dsl}, {"source_skill", source_skill}})
                                        : resource("protocol/instruction_skill_solo.md");
  return fill_template(resource("protocol/instruction.md"), {{"problem", p.id},
                                                              {"dsl_display", d.display_name()},
                                                              {"description", p.description},
                                                              {"source_model", p.source_model},
                                                              {"reference", std::string(trim(p.reference))},
                                                              {"tensors", tensor_table(p)},
                                                              {"invariants", invariants},
                                                              {"dsl_notes", d.notes()},
                                                              {"budget", budget_text},
                                                              {"skill_section", skill_section}});
}

} // namespace mkb
