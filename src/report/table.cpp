#include "report/table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "core/json_writer.hpp"
#include "report/svg.hpp"

namespace mkb::report {

table::table(std::string name, std::string title, std::vector<std::string> columns)
    : name_(std::move(name)), title_(std::move(title)), columns_(std::move(columns)) {}

void table::add(std::vector<cell> row) {
  if (row.size() != columns_.size())
    throw std::logic_error(fmt::format("table {}: a row of {} cells for {} columns", name_, row.size(), columns_.size()));
  rows_.push_back(std::move(row));
}

const cell &table::at(size_t row, const std::string &column) const {
  auto found = std::find(columns_.begin(), columns_.end(), column);
  if (found == columns_.end()) throw std::logic_error(fmt::format("table {} has no column {}", name_, column));
  return rows_.at(row)[found - columns_.begin()];
}

static std::string csv_field(const cell &c) {
  if (c.numeric) return std::isfinite(c.number) ? fmt::format("{}", c.number) : "";
  std::string text;
  if (!c.text.empty() && std::string_view("=+-@").find(c.text[0]) != std::string_view::npos) text = '\'';
  text += c.text;
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char ch : text) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

std::string table::csv() const {
  std::string out;
  auto line = [&out](const std::vector<cell> &cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i) out += ',';
      out += csv_field(cells[i]);
    }
    out += "\r\n";
  };
  line(std::vector<cell>(columns_.begin(), columns_.end()));
  for (const auto &row : rows_) line(row);
  return out;
}

std::string table::json() const {
  json_writer j;
  j.begin_array();
  for (const auto &row : rows_) {
    j.begin_object();
    for (size_t i = 0; i < row.size(); ++i) {
      j.key(columns_[i]);
      if (row[i].numeric)
        j.value(row[i].number);
      else if (row[i].flag)
        j.value(row[i].is_true());
      else
        j.value(row[i].text);
    }
    j.end_object();
  }
  j.end_array();
  return j.take() + "\n";
}

std::string format_for_reading(double number) {
  if (!std::isfinite(number)) return "-";
  if (number == std::floor(number) && std::fabs(number) < 1e15) return fmt::format("{:.0f}", number);
  if (std::fabs(number) >= 1000) return fmt::format("{:.0f}", number);
  return fmt::format("{:.3g}", number);
}

std::string table::html() const {
  std::string out = "<table>\n<thead><tr>";
  for (const std::string &c : columns_) out += "<th>" + xml_escape(c) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const auto &row : rows_) {
    out += "<tr>";
    for (const cell &c : row)
      out += c.numeric ? "<td class=\"n\">" + format_for_reading(c.number) + "</td>" : "<td>" + xml_escape(c.text) + "</td>";
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

} // namespace mkb::report
