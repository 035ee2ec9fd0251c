#include "spec/eager_times.hpp"

#include <cmath>

#include "core/error.hpp"
#include "eager_times_generated.h"
#include "spec/file_source.hpp"
#include "spec/schema_json.hpp"

namespace mkb {

namespace {

std::string str(const flatbuffers::String *s) { return s ? s->str() : std::string(); }

} // namespace

std::vector<eager_time> load_eager_times(const file_source &files, const std::string &folder,
                                         const std::string &problem_id) {
  const std::string path = folder + "/eager_times.json";
  std::optional<std::string> json = files.read(path);
  if (!json) return {};
  const std::string file = files.describe(path);
  auto error = [&](const std::string &field, const std::string &what) {
    fail(MKB_ERR_SPEC, "{}: problem '{}': {}: {}", file, problem_id, field, what);
  };

  // Fields the schema lacks are passed over: the measuring script may record more than the library reads.
  std::vector<uint8_t> binary = parse_with_schema("spec/eager_times.fbs", *json, file, true);
  flatbuffers::Verifier verifier(binary.data(), binary.size());
  if (!spec::VerifyEagerTimesBuffer(verifier)) fail(MKB_ERR_INTERNAL, "{}: parsed eager times fail verification", file);
  const spec::EagerTimes *fb = spec::GetEagerTimes(binary.data());
  if (!fb->records()) error("records", "is required (a list, empty when nothing is measured)");

  std::vector<eager_time> out;
  for (size_t i = 0; i < fb->records()->size(); ++i) {
    const spec::EagerRecord *r = fb->records()->Get(static_cast<flatbuffers::uoffset_t>(i));
    const std::string field = fmt::format("records[{}]", i);
    eager_time t;
    t.gpu = str(r->gpu());
    if (t.gpu.empty()) error(field + ".gpu", "is required (the device name as the driver reports it)");
    if (find_eager_time(out, t.gpu)) error(field + ".gpu", fmt::format("'{}' has a record already", t.gpu));
    if (!r->eager_us()) error(field + ".eager_us", "is required (microseconds)");
    t.eager_us = *r->eager_us();
    if (!std::isfinite(t.eager_us) || t.eager_us <= 0)
      error(field + ".eager_us", fmt::format("{} must be a positive number of microseconds", t.eager_us));
    auto positive = [&](flatbuffers::Optional<double> v, const char *name, bool zero_ok) -> std::optional<double> {
      if (!v) return std::nullopt;
      if (!std::isfinite(*v) || *v < 0 || (*v == 0 && !zero_ok))
        error(field + "." + name, fmt::format("{} must be a {} number", *v, zero_ok ? "non-negative" : "positive"));
      return *v;
    };
    t.eager_min_us = positive(r->eager_min_us(), "eager_min_us", false);
    t.eager_max_us = positive(r->eager_max_us(), "eager_max_us", false);
    t.spread_pct = positive(r->spread_pct(), "spread_pct", true);
    t.graph_us = positive(r->graph_us(), "graph_us", false);
    t.baseline_us = positive(r->baseline_us(), "baseline_us", false);
    if (t.eager_min_us && *t.eager_min_us > t.eager_us)
      error(field + ".eager_min_us", fmt::format("{} is above eager_us ({})", *t.eager_min_us, t.eager_us));
    if (t.eager_max_us && *t.eager_max_us < t.eager_us)
      error(field + ".eager_max_us", fmt::format("{} is below eager_us ({})", *t.eager_max_us, t.eager_us));
    if (r->timed_calls()) {
      if (*r->timed_calls() <= 0) error(field + ".timed_calls", fmt::format("{} must be positive", *r->timed_calls()));
      t.timed_calls = *r->timed_calls();
    }
    t.date = str(r->date());
    t.torch = str(r->torch());
    t.method = str(r->method());
    out.push_back(std::move(t));
  }
  return out;
}

const eager_time *find_eager_time(const std::vector<eager_time> &times, std::string_view gpu) {
  for (const eager_time &t : times)
    if (t.gpu == gpu) return &t;
  return nullptr;
}

} // namespace mkb
