#include "protocol/instruction.hpp"

#include <fmt/format.h>

#include "core/embedded_files.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "dsl/dsl.hpp"
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

std::string skill_section(const std::string &skill) {
  return fill_template(resource("protocol/skill_transfer.md"), {{"skill", skill}});
}

std::string render_instruction(const problem &p, const dsl &d, const budget_limits &budget,
                               const std::string &guide_path) {
  std::string invariants;
  for (const std::string &i : p.invariants) invariants += "- " + i + "\n";
  if (invariants.empty()) invariants = "- Nothing beyond the shapes, dtypes and distributions above.\n";
  // The counting rule is the original benchmark's: only what cannot enter evaluation is free.
  std::string budget_text = fmt::format(
      "- {} minutes of wall clock from when this task was handed out.\n"
      "- {} submissions that enter evaluation. A submission that cannot enter evaluation (too large, a "
      "launch plan or Python that does not parse, an infrastructure failure) is explained and not counted; "
      "every other one counts, including one whose code fails to import, trace or compile.\n"
      "- At most {} bytes per submission; at most {} bytes of skill.\n",
      budget.seconds / 60.0, budget.submissions, budget.source_bytes, budget.skill_bytes);
  std::string guide;
  if (!guide_path.empty())
    guide = fmt::format("\nThe {} guide for this task: {}: programming model, API with signatures, tensor cores, "
                        "launch plan, pitfalls, tested examples.\n",
                        d.display_name(), guide_path);
  return fill_template(resource("protocol/instruction.md"), {{"problem", p.id},
                                                              {"dsl_display", d.display_name()},
                                                              {"description", p.description},
                                                              {"source_model", p.source_model},
                                                              {"reference", std::string(trim(p.reference))},
                                                              {"tensors", tensor_table(p)},
                                                              {"invariants", invariants},
                                                              {"dsl_notes", d.notes()},
                                                              {"guide", guide},
                                                              {"budget", budget_text}});
}

} // namespace mkb
