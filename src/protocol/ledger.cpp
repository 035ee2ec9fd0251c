#include "protocol/ledger.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <flatbuffers/idl.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "core/embedded_files.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/names.hpp"
#include "ledger_generated.h"
#include "mkb.h"

namespace mkb {

namespace {

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string str(const flatbuffers::String *s) { return s ? s->str() : std::string(); }

flatbuffers::Offset<records::Trial> encode_trial(flatbuffers::FlatBufferBuilder &b, const trial_key &k) {
  return records::CreateTrial(b, b.CreateString(k.model), b.CreateString(k.problem), b.CreateString(k.family),
                             b.CreateString(k.dsl), k.arm, k.replicate);
}

trial_key decode_trial(const records::Trial *t) {
  trial_key k;
  if (!t) return k;
  k.model = str(t->model());
  k.problem = str(t->problem());
  k.family = str(t->family());
  k.dsl = str(t->dsl());
  k.arm = t->arm();
  k.replicate = t->replicate();
  return k;
}

flatbuffers::Offset<records::Fingerprints> encode_prints(flatbuffers::FlatBufferBuilder &b, const fingerprints &f) {
  return records::CreateFingerprints(b, b.CreateString(f.problem), b.CreateString(f.dsl), b.CreateString(f.contract));
}

fingerprints decode_prints(const records::Fingerprints *f) {
  if (!f) return {};
  return {str(f->problem()), str(f->dsl()), str(f->contract())};
}

std::vector<uint8_t> finish(flatbuffers::FlatBufferBuilder &b, records::Body type, flatbuffers::Offset<void> body) {
  b.Finish(records::CreateRecord(b, type, body));
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

void collect(const uint8_t *buffer, ledger_contents &c) {
  const records::Record &r = *flatbuffers::GetRoot<records::Record>(buffer);
  ++c.records;
  switch (r.body_type()) {
  case records::Body::TrialStarted: {
    trial_key k = decode_trial(r.body_as_TrialStarted()->trial());
    c.started.insert(k);
    c.started_prints[k] = decode_prints(r.body_as_TrialStarted()->fingerprints());
    break;
  }
  case records::Body::SessionOpened: {
    const records::SessionOpened *o = r.body_as_SessionOpened();
    c.current.clear(); // the latest session's plan is the current one
    if (o->current())
      for (const records::PlannedPrints *p : *o->current())
        c.current[{str(p->problem()), str(p->dsl())}] = decode_prints(p->fingerprints());
    c.provenance = str(o->provenance());
    break;
  }
  case records::Body::TrialFinished: {
    const records::TrialFinished *f = r.body_as_TrialFinished();
    trial_result t;
    t.key = decode_trial(f->trial());
    t.prints = decode_prints(f->fingerprints());
    t.verdict = f->verdict();
    t.time_us = f->time_us();
    t.baseline_us = f->baseline_us();
    t.speedup = f->speedup();
    t.eager_us = f->eager_us();
    t.skipped = f->skipped();
    t.skill = str(f->skill());
    t.submissions_used = f->submissions_used();
    t.seconds_used = f->seconds_used();
    t.input_tokens = f->input_tokens();
    t.cached_input_tokens = f->cached_input_tokens();
    t.final_kernel = str(f->final_kernel());
    t.output_tokens = f->output_tokens();
    t.cost_usd = f->cost_usd();
    t.final_source_hash = str(f->final_source_hash());
    t.final_report_json = str(f->final_report_json());
    t.ended_by = str(f->ended_by());
    t.unix_time = f->unix_time();
    t.gpu_wait_ms = f->gpu_wait_ms();
    t.contended = f->contended();
    t.compile_checks = f->compile_checks();
    c.finished.push_back(std::move(t));
    break;
  }
  case records::Body::CompileChecked: {
    const records::CompileChecked *k = r.body_as_CompileChecked();
    c.compile_checks.push_back({decode_trial(k->trial()), k->index(), k->verdict(), str(k->source_hash()),
                                k->wall_seconds(), k->unix_time()});
    break;
  }
  default: break;
  }
}

// The length of a bare NaN or infinity at `at` that ends a value, else 0.
size_t nonfinite_word_at(const std::string &text, size_t at) {
  for (std::string_view word : {"-nan", "nan", "-inf", "inf"}) {
    size_t end = at + word.size();
    if (text.compare(at, word.size(), word) == 0 && end < text.size() && (text[end] == ',' || text[end] == '}'))
      return word.size();
  }
  return 0;
}

// flatbuffers' text needs two fixes to be JSON: it prints NaN and infinities as bare words (made null
// here), and a byte that is not UTF-8 as \xHH (made \u00HH, as json_writer does).
std::string strict_json(const std::string &text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (size_t i = 0; i < text.size();) {
    if (in_string && text[i] == '\\') {
      bool byte = text[i + 1] == 'x' && i + 4 <= text.size();
      out += byte ? "\\u00" + text.substr(i + 2, 2) : text.substr(i, 2);
      i += byte ? 4 : 2;
    } else if (size_t word = in_string || text.compare(i, 2, ": ") != 0 ? 0 : nonfinite_word_at(text, i + 2)) {
      out += ": null";
      i += 2 + word;
    } else {
      if (text[i] == '"') in_string = !in_string;
      out += text[i++];
    }
  }
  return out;
}

// The ledger stores verdicts and arms as numbers (mkb_verdict, mkb_arm); a dump names them, as the
// reports do: "verdict": "wrong_answer", "arm": "a2b_skill".
std::string named_enumerations(const std::string &json) {
  static constexpr std::pair<std::string_view, const char *(*)(int32_t)> named[] = {{"\"verdict\": ", verdict_name},
                                                                                    {"\"arm\": ", arm_name}};
  std::string out;
  out.reserve(json.size());
  bool in_string = false;
  for (size_t i = 0; i < json.size();) {
    bool replaced = false;
    for (const auto &[key, name] : named) {
      if (in_string || json.compare(i, key.size(), key) != 0) continue;
      size_t start = i + key.size(), end = start;
      if (end < json.size() && json[end] == '-') ++end;
      while (end < json.size() && std::isdigit(static_cast<unsigned char>(json[end]))) ++end;
      if (end == start || !std::isdigit(static_cast<unsigned char>(json[end - 1]))) continue;
      out += fmt::format("{}\"{}\"", key, name(std::stoi(json.substr(start, end - start))));
      i = end;
      replaced = true;
      break;
    }
    if (replaced) continue;
    if (in_string && json[i] == '\\') {
      out.append(json, i, 2);
      i += 2;
      continue;
    }
    if (json[i] == '"') in_string = !in_string;
    out += json[i++];
  }
  return out;
}

ledger_contents collect_all(const ledger_frames::file_layout &layout) {
  ledger_contents c;
  for (const ledger_frames::intact_record &r : layout.records) collect(ledger_frames::aligned_payload(r.payload).data(), c);
  c.gaps = {layout.torn_tail, layout.damage, layout.empty_file};
  return c;
}

[[noreturn]] void refuse_damaged(const std::filesystem::path &path, const std::vector<ledger_frames::skipped_bytes> &damage) {
  fail(MKB_ERR_LEDGER,
       "ledger '{}' is damaged before its end: {}. The file was left as it is; `mkb ledger repair {} NEW` "
       "copies its intact records to NEW, a ledger that can be opened and scored",
       path.string(), ledger_frames::describe(damage), path.string());
}

// Before the first append: cuts a torn tail off, or writes the magic into a new (or torn) file.
void make_appendable(int fd, const std::filesystem::path &path, size_t keep, size_t size) {
  if (keep == size && size > 0) return;
  const std::string_view magic = ledger_frames::file_magic;
  bool done = ::ftruncate(fd, static_cast<off_t>(keep)) == 0;
  if (done && keep == 0) done = ::pwrite(fd, magic.data(), magic.size(), 0) == static_cast<ssize_t>(magic.size());
  if (!done || ::fsync(fd) != 0)
    fail(MKB_ERR_IO, "cannot prepare ledger '{}' for appending: {}", path.string(), std::strerror(errno));
}

} // namespace

std::unique_ptr<ledger> ledger::open(const std::filesystem::path &path) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) fail(MKB_ERR_IO, "cannot open ledger '{}': {}", path.string(), std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    fail(MKB_ERR_LEDGER, "ledger '{}' is in use by another session", path.string());
  }
  std::unique_ptr<ledger> l(new ledger(path, fd));
  std::string data = read_file(path);
  ledger_frames::file_layout layout = ledger_frames::scan(data, path.string());
  if (!layout.damage.empty()) refuse_damaged(path, layout.damage);
  l->loaded_ = collect_all(layout);
  make_appendable(fd, path, layout.torn_tail ? layout.torn_tail->offset : data.size(), data.size());
  ::lseek(fd, 0, SEEK_END);
  return l;
}

ledger::~ledger() {
  if (fd_ >= 0) ::close(fd_); // also releases the lock
}

void ledger::append(const std::vector<uint8_t> &record) {
  std::string_view payload(reinterpret_cast<const char *>(record.data()), record.size());
  if (payload.size() > ledger_frames::max_payload)
    fail(MKB_ERR_INTERNAL, "a ledger record of {} bytes exceeds the limit of {}", payload.size(), ledger_frames::max_payload);
  std::string frame = ledger_frames::frame(payload);
  std::lock_guard lock(mutex_);
  const off_t end = ::lseek(fd_, 0, SEEK_END);
  // A record the file did not take whole is cut off again: left there, it would be damage in the
  // middle of the ledger once the next record follows it, and the ledger could no longer be opened.
  auto refuse = [&](const char *what) {
    int saved = errno;
    if (end >= 0 && ::ftruncate(fd_, end) == 0) ::lseek(fd_, end, SEEK_SET);
    fail(MKB_ERR_IO, "cannot {} ledger '{}': {}", what, path_.string(), std::strerror(saved));
  };
  const char *cursor = frame.data();
  size_t left = frame.size();
  while (left > 0) {
    ssize_t written = ::write(fd_, cursor, left);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) refuse("append to");
    cursor += written;
    left -= static_cast<size_t>(written);
  }
  if (::fdatasync(fd_) != 0) refuse("sync");
}

void ledger::session_opened(const std::string &dsl_a, const std::string &dsl_b, const planned_prints &current,
                            const std::string &provenance_json) {
  flatbuffers::FlatBufferBuilder b(provenance_json.size() + current.size() * 256 + 1024);
  std::vector<flatbuffers::Offset<records::PlannedPrints>> planned;
  for (const auto &[where, prints] : current)
    planned.push_back(records::CreatePlannedPrints(b, b.CreateString(where.first), b.CreateString(where.second),
                                                   encode_prints(b, prints)));
  auto body = records::CreateSessionOpened(b, b.CreateString(MKB_VERSION_STRING), unix_now(), b.CreateString(dsl_a),
                                          b.CreateString(dsl_b), b.CreateVector(planned), b.CreateString(provenance_json));
  append(finish(b, records::Body::SessionOpened, body.Union()));
}

void ledger::trial_started(const trial_key &key, const fingerprints &prints) {
  flatbuffers::FlatBufferBuilder b;
  auto body = records::CreateTrialStarted(b, encode_trial(b, key), encode_prints(b, prints), unix_now());
  append(finish(b, records::Body::TrialStarted, body.Union()));
}

void ledger::submission_made(const trial_key &key, const evaluation_report &r, const std::string &source,
                             const usage_totals &usage) {
  flatbuffers::FlatBufferBuilder b(source.size() + r.json.size() + 1024);
  auto body = records::CreateSubmissionMade(
      b, encode_trial(b, key), static_cast<int>(r.submission), r.counted, r.verdict, r.time_us, r.baseline_us, r.speedup,
      b.CreateString(r.source_hash), b.CreateString(source), b.CreateString(r.json), usage.input_tokens,
      usage.output_tokens, usage.cost_usd, unix_now(), usage.cached_input_tokens, r.submissions_left, r.seconds_left,
      r.eager_us);
  append(finish(b, records::Body::SubmissionMade, body.Union()));
}

void ledger::compile_checked(const trial_key &key, const evaluation_report &r, int index, double wall_seconds) {
  flatbuffers::FlatBufferBuilder b(512);
  auto body = records::CreateCompileChecked(b, encode_trial(b, key), index, r.verdict, b.CreateString(r.source_hash),
                                            wall_seconds, unix_now(), r.submissions_left, r.seconds_left);
  append(finish(b, records::Body::CompileChecked, body.Union()));
}

void ledger::skill_updated(const trial_key &key, const std::string &text) {
  flatbuffers::FlatBufferBuilder b(text.size() + 256);
  auto body = records::CreateSkillUpdated(b, encode_trial(b, key), b.CreateString(text), unix_now());
  append(finish(b, records::Body::SkillUpdated, body.Union()));
}

void ledger::trial_finished(const trial_result &t) {
  flatbuffers::FlatBufferBuilder b(t.skill.size() + t.final_report_json.size() + 1024);
  auto body = records::CreateTrialFinished(
      b, encode_trial(b, t.key), encode_prints(b, t.prints), t.verdict, t.time_us, t.baseline_us, t.speedup, t.skipped,
      b.CreateString(t.skill), t.submissions_used, t.seconds_used, t.input_tokens, t.output_tokens, t.cost_usd,
      b.CreateString(t.final_source_hash), b.CreateString(t.final_report_json), b.CreateString(t.ended_by),
      t.unix_time ? t.unix_time : unix_now(), t.gpu_wait_ms, t.contended, t.cached_input_tokens,
      b.CreateString(t.final_kernel), t.eager_us, t.compile_checks);
  append(finish(b, records::Body::TrialFinished, body.Union()));
  std::lock_guard lock(mutex_);
  loaded_.finished.push_back(t);
}

ledger_contents ledger::read(const std::filesystem::path &path) {
  ledger_contents c = read_intact(path);
  if (!c.gaps.damage.empty()) refuse_damaged(path, c.gaps.damage);
  return c;
}

ledger_contents ledger::read_intact(const std::filesystem::path &path) {
  std::string data = read_file(path);
  return collect_all(ledger_frames::scan(data, path.string()));
}

ledger_dump ledger::dump_json(const std::filesystem::path &path) {
  const embedded_file *schema = find_embedded(embedded::resources(), "protocol/ledger.fbs");
  if (!schema) fail(MKB_ERR_INTERNAL, "the ledger schema is not built in");
  flatbuffers::IDLOptions options;
  options.indent_step = -1;
  options.strict_json = true;
  options.output_default_scalars_in_json = true; // a passed trial of arm solo_a shows both
  options.allow_non_utf8 = true; // skills and sources are stored as given; strict_json() escapes them
  flatbuffers::Parser parser(options);
  if (!parser.Parse(std::string(schema->data).c_str())) fail(MKB_ERR_INTERNAL, "ledger schema: {}", parser.error_);
  std::string data = read_file(path);
  ledger_frames::file_layout layout = ledger_frames::scan(data, path.string());
  ledger_dump dump;
  dump.gaps = {layout.torn_tail, layout.damage, layout.empty_file};
  for (const ledger_frames::intact_record &r : layout.records) {
    printed_record printed{dump.records.size() + 1, r.offset, {}, {}};
    std::string text;
    if (flatbuffers::GenerateText(parser, ledger_frames::aligned_payload(r.payload).data(), &text))
      printed.json = named_enumerations(strict_json(text));
    else printed.why_not = "its contents do not match the ledger schema (a newer format?)";
    dump.records.push_back(std::move(printed));
  }
  return dump;
}

namespace {

// Writes `data` to `path`, a new file: whole beside it, then linked into place (link() never replaces a
// file). `why` says in the error why an existing file is not replaced.
void write_new_file(const std::filesystem::path &path, const std::string &data, const char *why) {
  std::filesystem::path temporary = path;
  temporary += fmt::format(".new.{}", ::getpid());
  write_file_atomic(temporary, data);
  int linked = ::link(temporary.c_str(), path.c_str());
  int saved = errno;
  ::unlink(temporary.c_str());
  if (linked != 0)
    fail(MKB_ERR_IO, "cannot create '{}': {}{}", path.string(), std::strerror(saved), saved == EEXIST ? why : "");
}

} // namespace

ledger_repair ledger::repair(const std::filesystem::path &damaged, const std::filesystem::path &repaired) {
  std::string data = read_file(damaged);
  ledger_frames::file_layout layout = ledger_frames::scan(data, damaged.string());
  std::string copy(ledger_frames::file_magic);
  for (const ledger_frames::intact_record &r : layout.records) copy += ledger_frames::frame(r.payload);
  write_new_file(repaired, copy, " (repair writes a new file and never replaces one)");
  return {layout.records.size(), copy.size(), {layout.torn_tail, layout.damage, layout.empty_file}};
}

ledger_merge ledger::merge(const std::vector<std::filesystem::path> &inputs, const std::filesystem::path &merged) {
  ledger_merge out;
  std::string copy(ledger_frames::file_magic);
  std::optional<std::pair<std::filesystem::path, planned_prints>> first_planned;
  for (const std::filesystem::path &input : inputs) {
    std::string data = read_file(input);
    ledger_frames::file_layout layout = ledger_frames::scan(data, input.string());
    ledger_contents contents = collect_all(layout);
    if (!contents.current.empty()) {
      if (!first_planned) {
        first_planned = {input, contents.current};
      } else if (contents.current != first_planned->second) {
        auto differing = std::mismatch(contents.current.begin(), contents.current.end(), first_planned->second.begin(),
                                       first_planned->second.end());
        auto named = differing.first != contents.current.end() ? differing.first->first : differing.second->first;
        fail(MKB_ERR_CONFIG, "'{}' and '{}' were planned with different fingerprints ({} in {}, among others): they are "
                             "not shards of one run, and a merged ledger would judge one of them stale",
             first_planned->first.string(), input.string(), named.first, named.second);
      }
    }
    for (const ledger_frames::intact_record &r : layout.records) copy += ledger_frames::frame(r.payload);
    out.kept_records += layout.records.size();
    out.inputs.push_back({layout.records.size(), {layout.torn_tail, layout.damage, layout.empty_file}});
  }
  write_new_file(merged, copy, " (merge writes a new file and never replaces one)");
  out.kept_bytes = copy.size();
  return out;
}

} // namespace mkb
