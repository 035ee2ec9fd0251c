// `mkb skills export`: every distilled skill of the ledgers as an Agent Skills folder (the open
// format coding agents load skills from: agentskills.io): <name>/SKILL.md, YAML front matter with
// the two required fields (name, description) and the skill's text as its body, and
// <name>/provenance.json saying which attempt wrote it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "protocol/trial.hpp"

namespace mkb::report {

struct exported_skill {
  std::string name; // the folder's name and the front matter's `name`
  const trial_result *source;
};

// The skills to export, one per trial with a non-empty skill (its latest record), in ledger order,
// with names as the format requires them: 1-64 of [a-z0-9-], no leading, trailing or doubled hyphen,
// unique. "<problem>-<dsl>-r<replicate>", the model's name first when the trials come from several
// models; a longer name is cut and ends with 8 hex digits of a hash of the whole, so it stays unique.
std::vector<exported_skill> skills_to_export(const std::vector<trial_result> &results);

// Writes each skill's folder under `dir` (made if missing; an existing folder of the same name is
// replaced). Throws mkb::error (MKB_ERR_IO) naming the file that could not be written.
void export_skills(const std::filesystem::path &dir, const std::vector<exported_skill> &skills);

// The texts of one skill's two files.
std::string skill_markdown(const exported_skill &skill);
std::string skill_provenance_json(const exported_skill &skill);

} // namespace mkb::report
