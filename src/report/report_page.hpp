// `mkb report`: one self-contained HTML page (inline CSS and SVG, nothing fetched when it is viewed)
// with the figures and Table 1, and beside it every table as CSV and JSON and the scores' JSON.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "protocol/scoring.hpp"
#include "protocol/trial.hpp"
#include "report/report_data.hpp"

namespace mkb::report {

struct report_input {
  std::vector<std::string> ledgers; // as named on the command line, for the page's heading
  std::vector<trial_result> results; // the ledgers' trials, latest records, staleness set
  score_report scores;               // compute_scores over `results`
};

// index.html, scores.json, and <table>.csv and <table>.json for each table, into `dir` (made if
// missing; files of the same names are replaced). Returns the files written, index.html first.
// Throws mkb::error (MKB_ERR_IO) naming the file that could not be written.
std::vector<std::filesystem::path> write_report(const std::filesystem::path &dir, const report_input &input);

// The page alone; from tables already built (build_tables over the same input).
std::string report_html(const report_input &input);
std::string report_html(const report_input &input, const report_tables &tables);

} // namespace mkb::report
