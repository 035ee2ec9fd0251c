// Reads the per-function error lists of include/mkb.h (its Conventions give the format): for every
// function that returns an mkb_status, the statuses on the "Errors:" line of the comment above it.
#pragma once

#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace mkb::testing {

struct header_errors {
  std::map<std::string, std::set<std::string>> listed; // function -> "MKB_ERR_..." names
  std::vector<std::string> problems;                   // what does not follow the format
};

inline header_errors parse_header_errors(const std::string &header) {
  header_errors out;
  static const std::regex declaration(R"(MKB_API\s+mkb_status\s+(\w+)\s*\()");
  static const std::regex errors_line(R"(^\s*\*?\s*Errors(?: \((\w+)\))?:(.*)$)");
  static const std::regex explained(R"(^\s*\*\s+(MKB_ERR_\w+)\s)");
  static const std::regex status_name(R"(^MKB_ERR_[A-Z_]+$)");
  for (auto it = std::sregex_iterator(header.begin(), header.end(), declaration); it != std::sregex_iterator(); ++it) {
    const std::string function = (*it)[1];
    // The comment governing a declaration is the last one before it (shared by adjacent declarations).
    size_t at = static_cast<size_t>(it->position(0));
    size_t end = header.rfind("*/", at), begin = end == std::string::npos ? end : header.rfind("/*", end);
    if (begin == std::string::npos) {
      out.problems.push_back(function + ": no comment above it");
      continue;
    }
    std::vector<std::string> lines;
    for (size_t p = begin; p < end;) {
      size_t nl = header.find('\n', p);
      if (nl == std::string::npos || nl > end) nl = end;
      lines.push_back(header.substr(p, nl - p));
      p = nl + 1;
    }
    bool found = false;
    std::set<std::string> listed_in_block;
    for (size_t i = 0; i < lines.size(); ++i) {
      std::smatch m;
      if (!std::regex_match(lines[i], m, errors_line)) continue;
      std::string list = m[2];
      // The list runs on over continuation lines until its period.
      for (size_t j = i + 1; list.find('.') == std::string::npos && j < lines.size(); ++j) {
        std::string next = lines[j];
        next.erase(0, next.find_first_not_of(" *"));
        list += " " + next;
      }
      if (list.find('.') == std::string::npos) out.problems.push_back(function + ": an Errors: list without its period");
      list = list.substr(0, list.find('.'));
      std::set<std::string> names;
      size_t start = 0;
      for (;;) {
        size_t comma = list.find(',', start);
        std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        name.erase(0, name.find_first_not_of(' '));
        name.erase(name.find_last_not_of(' ') + 1);
        if (!std::regex_match(name, status_name)) out.problems.push_back(function + ": '" + name + "' in an Errors: list");
        else names.insert(name);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      listed_in_block.insert(names.begin(), names.end());
      if (m[1].matched && m[1] != function) continue; // the line names another function of the block
      if (found) out.problems.push_back(function + ": two Errors: lines apply to it");
      found = true;
      out.listed[function] = names;
    }
    if (!found) out.problems.push_back(function + ": no Errors: line in the comment above it");
    // Every status explained under a list must be on one (a stale explanation is an untrue header).
    for (const std::string &line : lines) {
      std::smatch m;
      if (std::regex_search(line, m, explained) && !listed_in_block.count(m[1]))
        out.problems.push_back(function + ": " + std::string(m[1]) + " is explained but on no Errors: line");
    }
  }
  return out;
}

} // namespace mkb::testing
