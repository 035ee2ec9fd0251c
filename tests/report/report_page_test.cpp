// The page and the files beside it: every figure and table, Table 1 with its intervals, the flags,
// nothing fetched from the network, and what write_report leaves on disk.
#include <gtest/gtest.h>

#include "core/files.hpp"
#include "report/report_page.hpp"
#include "sample_results.hpp"
#include "support/temp_dir.hpp"

namespace mkb::report {
namespace {

report_input sample_input() {
  report_input in;
  in.ledgers = {"runs/a.ledger"};
  in.results = testing::sample_results();
  in.scores = compute_scores(in.results);
  return in;
}

TEST(ReportPage, HoldsEveryFigureTableOneAndTheFlags) {
  std::string html = report_html(sample_input());
  for (const char *id : {"ladder", "intervals", "paired", "tiers", "families", "usage", "verdicts"})
    EXPECT_NE(html.find(std::string("<figure id=\"") + id + "\""), std::string::npos) << id;
  EXPECT_NE(html.find("<h2 id=\"summary\">Table 1"), std::string::npos);
  EXPECT_NE(html.find("model &lt;y&gt;"), std::string::npos) << "a model's name is escaped";
  EXPECT_EQ(html.find("model <y>"), std::string::npos);
  EXPECT_NE(html.find("1 stale trials (left out of every figure), 2 contended trials"), std::string::npos);
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos) << "a static page";
}

TEST(ReportPage, WritesThePageTheScoresAndEveryTableTwice) {
  mkb::testing::temp_dir dir;
  std::vector<std::filesystem::path> written = write_report(dir.path() / "new", sample_input());
  ASSERT_EQ(written.size(), 2 + 9 * 2u);
  EXPECT_EQ(written[0].filename(), "index.html");
  for (const auto &path : written) EXPECT_TRUE(std::filesystem::is_regular_file(path)) << path;
  EXPECT_EQ(read_file(dir.path() / "new/scores.json"), scores_json(sample_input().scores) + "\n");
  EXPECT_EQ(read_file(dir.path() / "new/summary.csv").substr(0, 38), "model,speedup_vs,direction,source_dsl,");
}

TEST(ReportPage, AnEmptyLedgerGivesAPageThatSaysThereIsNothingToDraw) {
  report_input in;
  in.scores = compute_scores({});
  std::string html = report_html(in);
  EXPECT_NE(html.find("Nothing to draw"), std::string::npos);
}

} // namespace
} // namespace mkb::report
