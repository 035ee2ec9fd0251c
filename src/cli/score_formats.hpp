// The scores as a Markdown table or CSV: one row per direction and group (all pairs, the pairs whose
// skill arm received a skill, each family, the source passed or failed). The JSON has every figure.
#pragma once

#include <string>

#include "protocol/scoring.hpp"

namespace mkb::cli {

std::string scores_markdown(const score_report &report);
std::string scores_csv(const score_report &report);

} // namespace mkb::cli
