// `mkb skills export LEDGER... --out DIR`: every distilled skill as an Agent Skills folder that a
// coding agent loads directly (docs/REPORT.md, Skills).
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/ledger_gaps.hpp"
#include "core/error.hpp"
#include "report/skill_export.hpp"

namespace mkb::cli {

namespace {

struct export_options {
  std::vector<std::string> ledgers;
  std::string out;
};

int export_skills(const export_options &o) {
  try {
    bool damaged = false;
    std::vector<trial_result> results = read_finished_trials(stderr, "mkb skills export: ", o.ledgers, damaged);
    std::vector<report::exported_skill> skills = report::skills_to_export(results);
    report::export_skills(o.out, skills);
    for (const report::exported_skill &s : skills) fmt::print("{}/{}/SKILL.md\n", o.out, s.name);
    fmt::print("{} skills exported to {}\n", skills.size(), o.out);
    return damaged ? exit_failed : exit_ok;
  } catch (const error &e) {
    fmt::print(stderr, "mkb skills export: {}\n", e.what());
    return exit_failed;
  }
}

} // namespace

void add_skills(CLI::App &mkb, int &exit_code) {
  CLI::App *skills = mkb.add_subcommand("skills", "the skills distilled in ledgers");
  skills->require_subcommand(1);
  CLI::App *command = skills->add_subcommand(
      "export", "every skill of the ledgers as an Agent Skills folder: <name>/SKILL.md and <name>/provenance.json. "
                "Exit 1 when a ledger is damaged (its intact records are still exported)");
  auto o = std::make_shared<export_options>();
  command->add_option("LEDGER", o->ledgers, "the ledgers")->required()->check(CLI::ExistingFile.description(""));
  command->add_option("--out", o->out, "the folder to write into (made if missing)")->required()->type_name("DIR");
  command->callback([o, &exit_code] { exit_code = export_skills(*o); });
}

} // namespace mkb::cli
