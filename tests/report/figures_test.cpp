// The figures: every row of a figure's table is drawn by a mark, every mark names a row of it, and the
// panels split the rows as the figure says (per model, denominator and direction).
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "report/figures.hpp"
#include "sample_results.hpp"

namespace mkb::report {
namespace {

std::multiset<size_t> marked_rows(const figure &f) {
  std::multiset<size_t> rows;
  static const std::regex mark("class=\"mark\" data-row=\"([0-9]+)\"");
  for (const std::string &panel : f.panels)
    for (std::sregex_iterator it(panel.begin(), panel.end(), mark), end; it != end; ++it)
      rows.insert(std::stoul((*it)[1]));
  return rows;
}

TEST(Figures, EveryRowIsDrawnAndEveryMarkNamesARow) {
  std::vector<trial_result> results = testing::sample_results();
  report_tables tables = build_tables(compute_scores(results), results);
  std::vector<figure> figures = draw_figures(tables);
  ASSERT_EQ(figures.size(), 7u);
  for (const figure &f : figures) {
    const table *t = nullptr;
    for (const table *candidate : tables.all())
      if (candidate->name() == f.id) t = candidate;
    ASSERT_NE(t, nullptr) << f.id << " draws no table";
    ASSERT_GT(t->size(), 0u) << f.id;
    std::multiset<size_t> rows = marked_rows(f);
    std::set<size_t> distinct(rows.begin(), rows.end());
    EXPECT_EQ(distinct.size(), t->size()) << f.id;
    EXPECT_LT(*distinct.rbegin(), t->size()) << f.id;
    size_t per_row = f.id == "usage" ? 2 : 1; // usage draws time and cost
    EXPECT_EQ(rows.size(), t->size() * per_row) << f.id;
  }
}

TEST(Figures, PanelsSplitByModelDenominatorAndDirection) {
  std::vector<trial_result> results = testing::sample_results();
  report_tables tables = build_tables(compute_scores(results), results);
  EXPECT_EQ(paired_figure(tables.paired).panels.size(), 8u) << "2 models x 2 denominators x 2 directions";
  EXPECT_EQ(ladder_figure(tables.ladder).panels.size(), 4u) << "2 models x 2 denominators";
  EXPECT_EQ(intervals_figure(tables.intervals).panels.size(), 6u) << "2 denominators x 3 measures";
  EXPECT_EQ(usage_figure(tables.usage).panels.size(), 2u);
  std::string ladder;
  for (const std::string &panel : ladder_figure(tables.ladder).panels) ladder += panel;
  EXPECT_NE(ladder.find("<polygon"), std::string::npos) << "the confidence band";
  EXPECT_NE(ladder.find(">model-x · eager"), std::string::npos) << ladder;
  EXPECT_NE(ladder.find(">model &lt;y&gt; · baseline"), std::string::npos) << "names escaped: " << ladder;
}

TEST(Figures, ATableWithoutRowsGivesAFigureWithoutPanels) {
  report_tables tables = build_tables(compute_scores({}), {});
  for (const figure &f : draw_figures(tables)) EXPECT_TRUE(f.panels.empty()) << f.id;
}

} // namespace
} // namespace mkb::report
