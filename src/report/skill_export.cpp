#include "report/skill_export.hpp"

#include <fmt/format.h>

#include <set>
#include <system_error>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/hash.hpp"
#include "core/json_writer.hpp"
#include "core/names.hpp"
#include "report/report_data.hpp"

namespace mkb::report {

namespace {

constexpr size_t max_name = 64, max_description = 1024;

// Lower case letters and digits kept, every other run of bytes one hyphen, none at either end.
std::string slug(std::string_view text) {
  std::string out;
  for (char c : text) {
    char lower = (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
    if ((lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9'))
      out += lower;
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string with_hash(std::string base, const std::string &whole) {
  std::string suffix = fmt::format("-{:08x}", xxh3_64(whole) & 0xffffffffu);
  base.resize(std::min(base.size(), max_name - suffix.size()));
  while (!base.empty() && base.back() == '-') base.pop_back();
  return base + suffix;
}

// A YAML double-quoted scalar: backslash, quote and control characters escaped; one line.
std::string yaml_quoted(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '\\' || c == '"')
      out += {'\\', char(c)};
    else if (c < 0x20 || c == 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += char(c);
  }
  return out + "\"";
}

std::string cut(std::string_view text, size_t most) {
  if (text.size() <= most) return std::string(text);
  size_t end = most; // never inside a UTF-8 sequence
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xc0) == 0x80) --end;
  return std::string(text.substr(0, end)) + "...";
}

std::string speedup_text(double x) { return std::isfinite(x) ? fmt::format("{:.2f}x", x) : "none"; }

} // namespace

std::vector<exported_skill> skills_to_export(const std::vector<trial_result> &results) {
  std::vector<const trial_result *> latest = latest_records(results);
  std::set<std::string> models;
  for (const trial_result *r : latest) models.insert(r->key.model);
  std::vector<exported_skill> out;
  std::set<std::string> taken;
  for (const trial_result *r : latest) {
    const trial_key &k = r->key;
    if (r->skill.empty()) continue;
    std::string whole = (models.size() > 1 ? k.model + "-" : "") + k.problem + "-" + k.dsl + "-r" + std::to_string(k.replicate);
    std::string name = slug(whole);
    if (name.empty() || name.size() > max_name || name.find("--") != std::string::npos || taken.count(name))
      name = with_hash(name.empty() ? "skill" : name, k.model + "\n" + k.id());
    taken.insert(name);
    out.push_back({name, r});
  }
  return out;
}

std::string skill_markdown(const exported_skill &s) {
  const trial_key &k = s.source->key;
  std::string description = cut(
      fmt::format("What {} learned writing a {} kernel for the MetaKernelBench problem {} ({} family): its attempt "
                  "ended {} at {} the baseline. Use when writing {} GPU kernels for similar problems.",
                  cut(k.model, 120), cut(k.dsl, 40), cut(k.problem, 120), cut(k.family, 40),
                  verdict_name(s.source->verdict), speedup_text(s.source->speedup), cut(k.dsl, 40)),
      max_description - 3);
  return fmt::format("---\nname: {}\ndescription: {}\n---\n\n{}{}", s.name, yaml_quoted(description), s.source->skill,
                     s.source->skill.ends_with('\n') ? "" : "\n");
}

std::string skill_provenance_json(const exported_skill &s) {
  const trial_result &r = *s.source;
  json_writer j;
  j.begin_object().field("name", s.name).field("model", r.key.model).field("problem", r.key.problem);
  j.field("family", r.key.family).field("dsl", r.key.dsl).field("arm", arm_name(r.key.arm));
  j.field("replicate", r.key.replicate).field("verdict", verdict_name(r.verdict)).field("speedup", r.speedup);
  j.field("speedup_vs_eager", r.speedup_vs_eager()).field("time_us", r.time_us).field("stale", r.stale);
  j.field("final_kernel", r.final_kernel).field("final_source_hash", r.final_source_hash).end_object();
  return j.take() + "\n";
}

void export_skills(const std::filesystem::path &dir, const std::vector<exported_skill> &skills) {
  for (const exported_skill &s : skills) {
    std::filesystem::path folder = dir / s.name;
    std::error_code ec;
    std::filesystem::remove_all(folder, ec); // a folder of the same name from an earlier export
    if (ec) fail(MKB_ERR_IO, "cannot replace {}: {}", folder.string(), ec.message());
    write_file_atomic(folder / "SKILL.md", skill_markdown(s), false);
    write_file_atomic(folder / "provenance.json", skill_provenance_json(s), false);
  }
}

} // namespace mkb::report
