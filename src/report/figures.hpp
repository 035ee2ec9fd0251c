// The report's figures, each drawn from one table (report_data.hpp) as small multiples: one SVG panel
// per group of rows. Every row of the table is drawn by at least one mark (class="mark", data-row),
// and every mark names a row, so the page shows exactly what the CSV beside it holds.
#pragma once

#include <string>
#include <vector>

#include "report/report_data.hpp"

namespace mkb::report {

struct figure {
  std::string id;    // the page anchor; also the name of the table it draws
  std::string title, caption;
  std::vector<std::string> panels; // one SVG each
};

// In the page's order: the ladder, the intervals, the paired ratios, the tiers, the families, usage,
// verdicts. A table without rows gives a figure without panels (the page says there is nothing to draw).
std::vector<figure> draw_figures(const report_tables &tables);

// Each figure alone (figures.cpp, figures_breakdown.cpp).
figure ladder_figure(const table &ladder);
figure intervals_figure(const table &intervals);
figure paired_figure(const table &paired);
figure tiers_figure(const table &tiers);
figure families_figure(const table &families);
figure usage_figure(const table &usage);
figure verdicts_figure(const table &verdicts);

} // namespace mkb::report
