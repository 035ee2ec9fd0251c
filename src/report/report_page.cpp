#include "report/report_page.hpp"

#include <fmt/format.h>

#include "core/files.hpp"
#include "report/figures.hpp"
#include "report/report_data.hpp"
#include "report/svg.hpp"

namespace mkb::report {

namespace {

constexpr const char *style = R"(body{font-family:sans-serif;max-width:1400px;margin:1.5em auto;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:12px;margin:.5em 0}th,td{border:1px solid #ddd;padding:2px 6px;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f4f4f4}
.panels{display:flex;flex-wrap:wrap;gap:8px}.panels svg{border:1px solid #eee}
.note{background:#f6f8fa;border-left:4px solid #4e79a7;padding:.5em 1em}
.flag{background:#fff4e5;border-left:4px solid #f28e2b;padding:.5em 1em}
figcaption{font-size:13px;color:#444;margin:.3em 0}.files a{margin-right:.8em}
)";

std::string interval(const table &t, size_t r, const char *value, const char *low, const char *high) {
  return fmt::format("{} [{}, {}]", format_for_reading(t.at(r, value).number), format_for_reading(t.at(r, low).number),
                     format_for_reading(t.at(r, high).number));
}

// Table 1 as the paper prints it; every column is in summary.csv.
std::string table_one(const table &t) {
  std::string out = "<table>\n<thead><tr><th>model</th><th>direction</th><th>speedup vs</th><th>pairs</th><th>S skill</th>"
                    "<th>S base</th><th>lift S [95%]</th><th>help T [95%]</th><th>harm H [95%]</th>"
                    "<th>paired lift [95%]</th></tr></thead>\n<tbody>\n";
  for (size_t r = 0; r < t.size(); ++r) {
    out += fmt::format("<tr><td>{}</td><td>{} -> {}</td><td>{}</td><td class=\"n\">{}</td>", xml_escape(t.at(r, "model").text),
                       xml_escape(t.at(r, "source_dsl").text), xml_escape(t.at(r, "target_dsl").text),
                       xml_escape(t.at(r, "speedup_vs").text), format_for_reading(t.at(r, "pairs").number));
    if (!t.at(r, "scored").is_true()) {
      out += "<td colspan=\"6\">not scored: " + xml_escape(t.at(r, "why_absent").text) + "</td></tr>\n";
      continue;
    }
    out += fmt::format("<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
                       "<td class=\"n\">{}</td><td class=\"n\">{}</td></tr>\n",
                       format_for_reading(t.at(r, "S_skill").number), format_for_reading(t.at(r, "S_base").number),
                       interval(t, r, "lift_S", "lift_S_ci_low", "lift_S_ci_high"),
                       interval(t, r, "help_rate", "help_ci_low", "help_ci_high"),
                       interval(t, r, "harm_rate", "harm_ci_low", "harm_ci_high"),
                       interval(t, r, "paired_lift", "paired_lift_ci_low", "paired_lift_ci_high"));
  }
  return out + "</tbody>\n</table>\n";
}

std::string file_links(const std::string &name) {
  return fmt::format("<span class=\"files\"><a href=\"{0}.csv\">{0}.csv</a><a href=\"{0}.json\">{0}.json</a></span>",
                     xml_escape(name));
}

std::string figure_html(const figure &f) {
  std::string out = fmt::format("<figure id=\"{}\" data-table=\"{}\">\n<h2>{}</h2>\n<figcaption>{} {}</figcaption>\n",
                                xml_escape(f.id), xml_escape(f.id), xml_escape(f.title), xml_escape(f.caption), file_links(f.id));
  if (f.panels.empty()) out += "<p>Nothing to draw: no trial of the ledgers gives this figure a value yet.</p>\n";
  out += "<div class=\"panels\">\n";
  for (const std::string &panel : f.panels) out += panel;
  return out + "</div>\n</figure>\n";
}

std::string flags_html(const report_tables &t, const score_report &s) {
  size_t stale = 0, contended = 0;
  for (size_t r = 0; r < t.flagged.size(); ++r) {
    stale += t.flagged.at(r, "stale").is_true();
    contended += t.flagged.at(r, "contended").is_true();
  }
  if (stale + contended == 0) return "";
  return fmt::format("<p class=\"flag\">{} stale trials ({}), {} contended trials (their final timing shared the GPU "
                     "with another process): listed in <a href=\"#flagged\">Flagged trials</a>.</p>\n",
                     stale, s.settings.include_stale ? "scored, as asked" : "left out of every figure", contended);
}

} // namespace

std::string report_html(const report_input &in) { return report_html(in, build_tables(in.scores, in.results)); }

std::string report_html(const report_input &in, const report_tables &t) {
  std::string ledgers;
  for (const std::string &l : in.ledgers) ledgers += (ledgers.empty() ? "" : ", ") + ("<code>" + xml_escape(l) + "</code>");
  std::string out = fmt::format("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                                "<title>MetaKernelBench report</title>\n<style>{}</style>\n</head>\n<body>\n"
                                "<h1>MetaKernelBench report</h1>\n<p>{} trials from {}. Failure floor {}, tie tolerance {}, "
                                "{} bootstrap resamples (docs/SCORING.md).</p>\n",
                                style, in.results.size(), ledgers, in.scores.settings.failure_floor,
                                in.scores.settings.tie_tolerance, in.scores.settings.bootstrap_samples);
  out += "<p class=\"note\">Every figure is given twice: with speedups against eager PyTorch (<code>eager</code>, the "
         "original benchmark's denominator, comparable with the paper's only on the same GPU model) and against the "
         "suite's <code>baseline.cu</code> (<code>baseline</code>, ours, timed beside each submission).</p>\n";
  out += flags_html(t, in.scores);
  out += "<h2 id=\"summary\">Table 1: per model and direction</h2>\n<p>" + file_links("summary") +
         " (every column), <a href=\"scores.json\">scores.json</a> (every figure of <code>mkb score --json</code>)</p>\n";
  out += table_one(t.summary);
  for (const figure &f : draw_figures(t)) out += figure_html(f);
  out += "<h2 id=\"tables\">Tables</h2>\n";
  for (const table *table : t.all())
    out += fmt::format("<details id=\"{}\"><summary>{}: {} rows {}</summary>\n{}</details>\n",
                       table == &t.flagged ? "flagged" : "table-" + table->name(), xml_escape(table->title()),
                       table->size(), file_links(table->name()), table->html());
  return out + "</body>\n</html>\n";
}

std::vector<std::filesystem::path> write_report(const std::filesystem::path &dir, const report_input &in) {
  std::vector<std::filesystem::path> written = {dir / "index.html", dir / "scores.json"};
  report_tables t = build_tables(in.scores, in.results);
  write_file_atomic(written[0], report_html(in, t), false);
  write_file_atomic(written[1], scores_json(in.scores) + "\n", false);
  for (const table *table : t.all()) {
    written.push_back(dir / (table->name() + ".csv"));
    write_file_atomic(written.back(), table->csv(), false);
    written.push_back(dir / (table->name() + ".json"));
    write_file_atomic(written.back(), table->json(), false);
  }
  return written;
}

} // namespace mkb::report
