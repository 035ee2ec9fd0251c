#include "protocol/ledger.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <flatbuffers/idl.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>

#include "core/embedded_files.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/hash.hpp"
#include "ledger_generated.h"
#include "mkb.h"

namespace mkb {

namespace {

constexpr char file_magic[8] = {'M', 'K', 'B', 'L', 'E', 'D', 'G', '1'};
constexpr size_t frame_header = 12; // u32 length, u64 checksum
constexpr uint32_t max_record = 64u << 20;

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

uint32_t get_u32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24; }
uint64_t get_u64(const uint8_t *p) { return get_u32(p) | static_cast<uint64_t>(get_u32(p + 4)) << 32; }

// Walks the records of `data`; returns the offset after the last whole record. Throws on damage
// anywhere but in the last record.
// `visit` receives each whole, verified record's buffer.
size_t scan(const std::string &data, const std::string &name, const std::function<void(const uint8_t *)> &visit) {
  if (data.empty()) return 0;
  if (data.size() < sizeof file_magic || std::memcmp(data.data(), file_magic, sizeof file_magic) != 0)
    fail(MKB_ERR_LEDGER, "'{}' is not an mkb ledger (it does not start with MKBLEDG1)", name);
  size_t offset = sizeof file_magic;
  const auto *bytes = reinterpret_cast<const uint8_t *>(data.data());
  while (offset < data.size()) {
    size_t left = data.size() - offset;
    if (left < frame_header) return offset; // torn header
    uint32_t length = get_u32(bytes + offset);
    uint64_t checksum = get_u64(bytes + offset + 4);
    if (length > max_record) fail(MKB_ERR_LEDGER, "'{}': record at byte {} claims {} bytes", name, offset, length);
    if (left - frame_header < length) return offset; // torn payload
    std::string_view payload(data.data() + offset + frame_header, length);
    bool last = offset + frame_header + length == data.size();
    if (xxh3_64(payload) != checksum) {
      if (last) return offset; // torn while being written
      fail(MKB_ERR_LEDGER, "'{}': record at byte {} fails its checksum, and records follow it", name, offset);
    }
    flatbuffers::Verifier verifier(bytes + offset + frame_header, length);
    if (!verifier.VerifyBuffer<records::Record>(nullptr))
      fail(MKB_ERR_LEDGER, "'{}': record at byte {} is not a ledger record (newer format?)", name, offset);
    visit(bytes + offset + frame_header);
    offset += frame_header + length;
  }
  return offset;
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
  case records::Body::TrialFinished: {
    const records::TrialFinished *f = r.body_as_TrialFinished();
    trial_result t;
    t.key = decode_trial(f->trial());
    t.prints = decode_prints(f->fingerprints());
    t.verdict = f->verdict();
    t.time_us = f->time_us();
    t.baseline_us = f->baseline_us();
    t.speedup = f->speedup();
    t.skipped = f->skipped();
    t.skill = str(f->skill());
    t.submissions_used = f->submissions_used();
    t.seconds_used = f->seconds_used();
    t.input_tokens = f->input_tokens();
    t.output_tokens = f->output_tokens();
    t.cost_usd = f->cost_usd();
    t.final_source_hash = str(f->final_source_hash());
    t.final_report_json = str(f->final_report_json());
    t.ended_by = str(f->ended_by());
    t.unix_time = f->unix_time();
    t.gpu_wait_ms = f->gpu_wait_ms();
    t.contended = f->contended();
    c.finished.push_back(std::move(t));
    break;
  }
  default: break;
  }
}

// flatbuffers prints NaN and infinities as bare words, which JSON does not have.
std::string json_nonfinite_to_null(const std::string &json) {
  std::string out;
  out.reserve(json.size());
  for (size_t i = 0; i < json.size();) {
    bool replaced = false;
    if (json[i] == ':' && i + 1 < json.size() && json[i + 1] == ' ')
      for (std::string_view word : {"-nan", "nan", "-inf", "inf"}) {
        size_t end = i + 2 + word.size();
        if (json.compare(i + 2, word.size(), word) == 0 && end < json.size() && (json[end] == ',' || json[end] == '}')) {
          out += ": null";
          i = end;
          replaced = true;
          break;
        }
      }
    if (!replaced) out += json[i++];
  }
  return out;
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
  size_t good = scan(data, path.string(), [&](const uint8_t *record) { collect(record, l->loaded_); });
  if (data.empty()) {
    if (::write(fd, file_magic, sizeof file_magic) != sizeof file_magic || ::fsync(fd) != 0)
      fail(MKB_ERR_IO, "cannot write ledger '{}': {}", path.string(), std::strerror(errno));
  } else if (good < data.size()) {
    l->loaded_.dropped_torn_tail = true;
    if (::ftruncate(fd, static_cast<off_t>(good)) != 0 || ::fsync(fd) != 0)
      fail(MKB_ERR_IO, "cannot cut the torn tail of ledger '{}': {}", path.string(), std::strerror(errno));
  }
  ::lseek(fd, 0, SEEK_END);
  return l;
}

ledger::~ledger() {
  if (fd_ >= 0) ::close(fd_); // also releases the lock
}

void ledger::append(const std::vector<uint8_t> &record) {
  std::string frame(frame_header, '\0');
  uint32_t length = static_cast<uint32_t>(record.size());
  uint64_t checksum = xxh3_64(std::string_view(reinterpret_cast<const char *>(record.data()), record.size()));
  for (int i = 0; i < 4; ++i) frame[i] = static_cast<char>(length >> (8 * i));
  for (int i = 0; i < 8; ++i) frame[4 + i] = static_cast<char>(checksum >> (8 * i));
  frame.append(reinterpret_cast<const char *>(record.data()), record.size());
  std::lock_guard lock(mutex_);
  const char *cursor = frame.data();
  size_t left = frame.size();
  while (left > 0) {
    ssize_t written = ::write(fd_, cursor, left);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) fail(MKB_ERR_IO, "cannot append to ledger '{}': {}", path_.string(), std::strerror(errno));
    cursor += written;
    left -= static_cast<size_t>(written);
  }
  if (::fdatasync(fd_) != 0) fail(MKB_ERR_IO, "cannot sync ledger '{}': {}", path_.string(), std::strerror(errno));
}

void ledger::session_opened(const std::string &dsl_a, const std::string &dsl_b) {
  flatbuffers::FlatBufferBuilder b;
  auto body = records::CreateSessionOpened(b, b.CreateString(MKB_VERSION_STRING), unix_now(), b.CreateString(dsl_a),
                                          b.CreateString(dsl_b));
  append(finish(b, records::Body::SessionOpened, body.Union()));
}

void ledger::trial_started(const trial_key &key, const fingerprints &prints) {
  flatbuffers::FlatBufferBuilder b;
  auto body = records::CreateTrialStarted(b, encode_trial(b, key), encode_prints(b, prints), unix_now());
  append(finish(b, records::Body::TrialStarted, body.Union()));
}

void ledger::submission_made(const trial_key &key, int index, bool counted, int verdict, double time_us,
                             double baseline_us, double speedup, const std::string &source_hash,
                             const std::string &source, const std::string &report_json, uint64_t input_tokens,
                             uint64_t output_tokens, double cost_usd) {
  flatbuffers::FlatBufferBuilder b(source.size() + report_json.size() + 1024);
  auto body = records::CreateSubmissionMade(b, encode_trial(b, key), index, counted, verdict, time_us, baseline_us, speedup,
                                           b.CreateString(source_hash), b.CreateString(source),
                                           b.CreateString(report_json), input_tokens, output_tokens, cost_usd);
  append(finish(b, records::Body::SubmissionMade, body.Union()));
}

void ledger::skill_updated(const trial_key &key, const std::string &text) {
  flatbuffers::FlatBufferBuilder b(text.size() + 256);
  auto body = records::CreateSkillUpdated(b, encode_trial(b, key), b.CreateString(text));
  append(finish(b, records::Body::SkillUpdated, body.Union()));
}

void ledger::trial_finished(const trial_result &t) {
  flatbuffers::FlatBufferBuilder b(t.skill.size() + t.final_report_json.size() + 1024);
  auto body = records::CreateTrialFinished(
      b, encode_trial(b, t.key), encode_prints(b, t.prints), t.verdict, t.time_us, t.baseline_us, t.speedup, t.skipped,
      b.CreateString(t.skill), t.submissions_used, t.seconds_used, t.input_tokens, t.output_tokens, t.cost_usd,
      b.CreateString(t.final_source_hash), b.CreateString(t.final_report_json), b.CreateString(t.ended_by),
      t.unix_time ? t.unix_time : unix_now(), t.gpu_wait_ms, t.contended);
  append(finish(b, records::Body::TrialFinished, body.Union()));
  std::lock_guard lock(mutex_);
  loaded_.finished.push_back(t);
}

ledger_contents ledger::read(const std::filesystem::path &path) {
  ledger_contents c;
  std::string data = read_file(path);
  size_t good = scan(data, path.string(), [&](const uint8_t *record) { collect(record, c); });
  c.dropped_torn_tail = good < data.size();
  return c;
}

std::vector<std::string> ledger::dump_json(const std::filesystem::path &path) {
  const embedded_file *schema = find_embedded(embedded::resources(), "protocol/ledger.fbs");
  if (!schema) fail(MKB_ERR_INTERNAL, "the ledger schema is not built in");
  flatbuffers::IDLOptions options;
  options.indent_step = -1;
  options.strict_json = true;
  flatbuffers::Parser parser(options);
  if (!parser.Parse(std::string(schema->data).c_str())) fail(MKB_ERR_INTERNAL, "ledger schema: {}", parser.error_);
  std::vector<std::string> lines;
  std::string data = read_file(path);
  scan(data, path.string(), [&](const uint8_t *record) {
    std::string json;
    if (!flatbuffers::GenerateText(parser, record, &json)) fail(MKB_ERR_INTERNAL, "cannot print a ledger record as JSON");
    lines.push_back(json_nonfinite_to_null(json));
  });
  return lines;
}

} // namespace mkb
