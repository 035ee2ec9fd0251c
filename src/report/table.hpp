// A table of the report: named columns and rows of cells, each text or a number. The page, the CSV and
// the JSON beside it are all written from the same table, so they cannot disagree.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace mkb::report {

// A text, a number or a flag (text "true" or "false", a JSON boolean).
struct cell {
  std::string text;
  double number = NAN;
  bool numeric = false, flag = false;

  cell(std::string t) : text(std::move(t)) {}
  cell(const char *t) : text(t) {}
  cell(double n) : number(n), numeric(true) {}
  cell(uint64_t n) : number(static_cast<double>(n)), numeric(true) {}
  cell(int n) : number(n), numeric(true) {}
  cell(bool b) : text(b ? "true" : "false"), flag(true) {}
  bool is_true() const { return flag && text == "true"; }
};

class table {
public:
  table(std::string name, std::string title, std::vector<std::string> columns);

  void add(std::vector<cell> row); // one cell per column
  const std::string &name() const { return name_; }   // file name stem: <name>.csv, <name>.json
  const std::string &title() const { return title_; }
  const std::vector<std::string> &columns() const { return columns_; }
  size_t size() const { return rows_.size(); }
  const cell &at(size_t row, const std::string &column) const; // the column must exist

  // RFC 4180: a header line, then a line per row; a number in its shortest exact form, NaN as an empty
  // field. A text that a spreadsheet would run as a formula (starting with = + - @) gets a leading '.
  std::string csv() const;
  // An array of one object per row, numbers as numbers (NaN as null).
  std::string json() const;
  // An HTML table, numbers rounded for reading.
  std::string html() const;

private:
  std::string name_, title_;
  std::vector<std::string> columns_;
  std::vector<std::vector<cell>> rows_;
};

std::string format_for_reading(double number); // "0.667", "1235", "-" for NaN

} // namespace mkb::report
