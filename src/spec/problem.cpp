#include "spec/problem.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "core/error.hpp"
#include "spec/file_source.hpp"
#include "spec/schema_json.hpp"

namespace mkb {

namespace {

constexpr uint64_t max_tensor_elements = uint64_t(1) << 36;

bool is_identifier(std::string_view name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::string str(const flatbuffers::String *s) { return s ? s->str() : std::string(); }

// An expression as quoted in an error: a spec's expression may be as long as the file.
std::string excerpt(std::string_view text) {
  constexpr size_t max_chars = 80;
  if (text.size() <= max_chars) return std::string(text);
  return fmt::format("{}...", text.substr(0, max_chars - 3));
}

// flatbuffers' JSON parser takes an enum's number as readily as its name, out of range too; every
// enum read from a spec is checked, or an unknown value would take the facts of another.
template <typename Enum> bool enum_in_range(Enum value) { return !flatbuffers::IsOutRange(value, Enum::MIN, Enum::MAX); }

// "bf16, fp16, ...": every value of the enum, as `name_of` spells it.
template <typename Enum, typename NameOf> std::string enum_names(NameOf name_of) {
  std::string out;
  for (int v = static_cast<int>(Enum::MIN); v <= static_cast<int>(Enum::MAX); ++v)
    out += fmt::format("{}{}", out.empty() ? "" : ", ", name_of(static_cast<Enum>(v)));
  return out;
}

// The integers an integer dtype holds: int64 only up to 2^53, where doubles (the spec's numbers)
// stop being exact.
std::pair<double, double> integer_limits(dtype type) {
  switch (type) {
  case dtype::int8: return {-128, 127};
  case dtype::uint8: return {0, 255};
  case dtype::int32: return {-2147483648.0, 2147483647.0};
  case dtype::bool_: return {0, 1};
  default: return {-0x1p53, 0x1p53};
  }
}

// Accumulates the context of checks so every error names file and field.
class checker {
public:
  checker(std::string file, std::string problem_id) : file_(std::move(file)), id_(std::move(problem_id)) {}

  template <typename... Args>
  [[noreturn]] void error(const std::string &field, fmt::format_string<Args...> format, Args &&...args) const {
    fail(MKB_ERR_SPEC, "{}: problem '{}': {}: {}", file_, id_, field,
         fmt::format(format, std::forward<Args>(args)...));
  }

private:
  std::string file_;
  std::string id_;
};

} // namespace

double default_baseline_vs_anchor_eps(dtype type) {
  return std::max(8.0, std::ldexp(1.0, -16) / dtype_epsilon(type));
}

double max_baseline_vs_anchor_eps(dtype type) { return std::ldexp(1.0, -10) / dtype_epsilon(type); }

expr_lookup problem::lookup() const {
  return [this](std::string_view name) -> std::optional<expr_value> {
    for (const auto &[n, v] : symbols)
      if (n == name) return expr_value::of(v);
    for (const auto &[n, v] : constants)
      if (n == name) return expr_value::of_real(v);
    return std::nullopt;
  };
}

const tensor_spec *problem::find_input(std::string_view name) const {
  for (const tensor_spec &t : inputs)
    if (t.name == name) return &t;
  return nullptr;
}

const tensor_spec *problem::find_output(std::string_view name) const {
  for (const tensor_spec &t : outputs)
    if (t.name == name) return &t;
  return nullptr;
}

const stored_solution *problem::solution_for(std::string_view dsl) const {
  for (const stored_solution &s : solutions)
    if (s.dsl == dsl) return &s;
  return nullptr;
}

problem load_problem(const file_source &files, const std::string &folder) {
  const std::string spec_path = folder + "/spec.json";
  const std::string file = files.describe(spec_path);
  auto json = files.read(spec_path);
  if (!json) fail(MKB_ERR_SPEC, "{}: cannot read the spec", file);

  std::vector<uint8_t> binary = parse_with_schema("spec/problem.fbs", *json, file);
  flatbuffers::Verifier verifier(binary.data(), binary.size());
  if (!spec::VerifyProblemBuffer(verifier)) fail(MKB_ERR_INTERNAL, "{}: parsed spec fails verification", file);
  const spec::Problem *fb = spec::GetProblem(binary.data());

  problem p;
  p.id = str(fb->id());
  checker check(file, p.id);
  p.number = fb->number();
  p.family = str(fb->family());
  p.folder = folder;
  p.description = str(fb->description());
  p.source_model = str(fb->source_model());
  p.notes = str(fb->notes());
  p.spec_text = *json;
  p.compute = fb->compute();

  std::string expected_folder = p.family + "/" + p.id;
  if (folder != expected_folder)
    check.error("id", "the folder must be '{}' (family/id), not '{}'", expected_folder, folder);
  if (!is_identifier(p.id)) check.error("id", "'{}' is not an identifier", p.id);
  if (p.description.empty()) check.error("description", "must not be empty");
  if (p.number < 0) check.error("number", "{} is negative", p.number);
  if (!enum_in_range(p.compute))
    check.error("compute", "{} is not a compute kind ({})", static_cast<int>(p.compute),
                enum_names<spec::ComputeKind>(spec::EnumNameComputeKind));

  std::set<std::string> names;
  auto claim_name = [&](const std::string &name, const std::string &field) {
    if (!is_identifier(name)) check.error(field, "'{}' is not an identifier", name);
    if (!names.insert(name).second) check.error(field, "the name '{}' is used twice", name);
  };

  if (fb->symbols())
    for (size_t i = 0; i < fb->symbols()->size(); ++i) {
      const spec::Symbol *s = fb->symbols()->Get(static_cast<flatbuffers::uoffset_t>(i));
      std::string field = fmt::format("symbols[{}]", i);
      claim_name(s->name()->str(), field + ".name");
      if (s->value() <= 0) check.error(field + ".value", "{} must be positive", s->value());
      p.symbols.emplace_back(s->name()->str(), s->value());
    }
  if (fb->constants())
    for (size_t i = 0; i < fb->constants()->size(); ++i) {
      const spec::Constant *c = fb->constants()->Get(static_cast<flatbuffers::uoffset_t>(i));
      std::string field = fmt::format("constants[{}]", i);
      claim_name(c->name()->str(), field + ".name");
      if (!std::isfinite(c->value())) check.error(field + ".value", "must be finite");
      p.constants.emplace_back(c->name()->str(), c->value());
    }
  expr_lookup lookup = p.lookup();

  auto resolve_shape = [&](const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>> *shape,
                           tensor_spec &t, const std::string &field) {
    if (shape)
      for (size_t axis = 0; axis < shape->size(); ++axis) {
        std::string text = shape->Get(static_cast<flatbuffers::uoffset_t>(axis))->str();
        std::string axis_field = fmt::format("{}.shape[{}]", field, axis);
        int64_t extent = 0;
        try {
          extent = evaluate_integer(text, lookup);
        } catch (const expression_error &e) {
          check.error(axis_field, "'{}': {} (column {})", excerpt(text), e.what(), e.column());
        }
        if (extent <= 0) check.error(axis_field, "'{}' is {}; extents must be positive", text, extent);
        t.shape_text.push_back(text);
        t.shape.push_back(extent);
        if (__builtin_mul_overflow(t.count, static_cast<uint64_t>(extent), &t.count) || t.count > max_tensor_elements)
          check.error(field + ".shape", "more than 2^36 elements");
      }
  };

  if (!fb->inputs() || fb->inputs()->size() == 0) check.error("inputs", "a problem needs at least one input");
  for (size_t i = 0; i < fb->inputs()->size(); ++i) {
    const spec::Input *in = fb->inputs()->Get(static_cast<flatbuffers::uoffset_t>(i));
    std::string field = fmt::format("inputs[{}]", i);
    tensor_spec t;
    t.name = in->name()->str();
    claim_name(t.name, field + ".name");
    t.type = in->dtype();
    if (!enum_in_range(t.type))
      check.error(field + ".dtype", "{} is not a dtype ({})", static_cast<int>(t.type), enum_names<dtype>(dtype_name));
    t.writable = in->writable();
    t.doc = str(in->doc());
    resolve_shape(in->shape(), t, field);
    if (const spec::Distribution *d = in->distribution()) {
      t.dist.kind = d->kind();
      t.dist.mean = d->mean();
      t.dist.stddev = d->stddev();
      t.dist.low = d->low();
      t.dist.high = d->high();
      t.dist.generator = str(d->generator());
    }
    const std::string dist_field = field + ".distribution";
    if (!enum_in_range(t.dist.kind))
      check.error(dist_field + ".kind", "{} is not a distribution ({})", static_cast<int>(t.dist.kind),
                  enum_names<spec::DistributionKind>(spec::EnumNameDistributionKind));
    for (const auto &[name, value] : {std::pair{"mean", t.dist.mean}, std::pair{"stddev", t.dist.stddev},
                                      std::pair{"low", t.dist.low}, std::pair{"high", t.dist.high}})
      if (!std::isfinite(value)) check.error(dist_field + "." + name, "{} is not a finite number", value);
    switch (t.dist.kind) {
    case spec::DistributionKind::normal:
      if (!(t.dist.stddev > 0)) check.error(dist_field + ".stddev", "must be positive");
      if (!dtype_is_floating(t.type)) check.error(dist_field, "normal needs a floating dtype, not {}", dtype_name(t.type));
      break;
    case spec::DistributionKind::uniform:
      if (!(t.dist.low < t.dist.high)) check.error(dist_field, "uniform needs low < high");
      if (!dtype_is_floating(t.type)) check.error(dist_field, "uniform needs a floating dtype; use integer_range");
      break;
    case spec::DistributionKind::integer_range:
      if (!(t.dist.low <= t.dist.high) || t.dist.low != std::floor(t.dist.low) || t.dist.high != std::floor(t.dist.high))
        check.error(dist_field, "integer_range needs integer low <= high");
      if (t.type == dtype::bool_ && (t.dist.low < 0 || t.dist.high > 1)) check.error(dist_field, "bool takes 0 or 1");
      if (!dtype_is_floating(t.type)) {
        auto [lowest, highest] = integer_limits(t.type);
        if (t.dist.low < lowest || t.dist.high > highest)
          check.error(dist_field, "[{}, {}] does not fit {} (it holds [{}, {}])", t.dist.low, t.dist.high,
                      dtype_name(t.type), lowest, highest);
      }
      break;
    case spec::DistributionKind::permutation:
      if (dtype_is_floating(t.type) || t.type == dtype::bool_)
        check.error(dist_field, "permutation needs an integer dtype");
      if (t.shape.empty()) check.error(dist_field, "permutation needs at least one axis");
      if (static_cast<double>(t.shape.back() - 1) > integer_limits(t.type).second)
        check.error(dist_field, "a permutation of {} values does not fit {}", t.shape.back(), dtype_name(t.type));
      break;
    case spec::DistributionKind::generator:
      if (t.dist.generator.empty()) check.error(dist_field + ".generator", "names no kernel");
      if (!fb->generators() && !files.read(folder + "/generators.cu"))
        check.error(dist_field, "uses a generator but the problem has no generators file");
      break;
    }
    p.inputs.push_back(std::move(t));
  }

  if (!fb->outputs() || fb->outputs()->size() == 0) check.error("outputs", "a problem needs at least one output");
  for (size_t i = 0; i < fb->outputs()->size(); ++i) {
    const spec::Output *out = fb->outputs()->Get(static_cast<flatbuffers::uoffset_t>(i));
    std::string field = fmt::format("outputs[{}]", i);
    tensor_spec t;
    t.name = out->name()->str();
    claim_name(t.name, field + ".name");
    t.type = out->dtype();
    if (!enum_in_range(t.type))
      check.error(field + ".dtype", "{} is not a dtype ({})", static_cast<int>(t.type), enum_names<dtype>(dtype_name));
    t.comparison = out->comparison();
    if (!enum_in_range(t.comparison))
      check.error(field + ".comparison", "{} is not a comparison ({})", static_cast<int>(t.comparison),
                  enum_names<spec::Comparison>(spec::EnumNameComparison));
    t.aliases = str(out->aliases());
    t.equals_input = str(out->equals_input());
    t.doc = str(out->doc());
    resolve_shape(out->shape(), t, field);
    if (dtype_is_floating(t.type)) t.baseline_vs_anchor_eps = default_baseline_vs_anchor_eps(t.type);
    if (const spec::AnchorDeparture *d = out->baseline_vs_anchor()) {
      if (t.comparison != spec::Comparison::anchor)
        check.error(field + ".baseline_vs_anchor", "only an output compared by the anchor rule has one");
      double low = t.baseline_vs_anchor_eps, high = max_baseline_vs_anchor_eps(t.type);
      if (!(d->eps() > low && d->eps() <= high))
        check.error(field + ".baseline_vs_anchor.eps", "{} must be above the default {:g} and at most {:g} ({} eps)", d->eps(), low,
                    high, dtype_name(t.type));
      if (d->why()->size() == 0) check.error(field + ".baseline_vs_anchor.why", "must not be empty");
      t.baseline_vs_anchor_eps = d->eps();
    }
    if (t.comparison == spec::Comparison::anchor && !dtype_is_floating(t.type))
      check.error(field + ".comparison", "{} outputs compare exact, not by the anchor rule", dtype_name(t.type));
    if (t.comparison == spec::Comparison::exact_sorted && (dtype_is_floating(t.type) || t.shape.empty()))
      check.error(field + ".comparison", "exact_sorted needs an integer output with at least one axis");
    if (!t.aliases.empty()) {
      const tensor_spec *in = p.find_input(t.aliases);
      if (!in) check.error(field + ".aliases", "no input is named '{}'", t.aliases);
      if (!in->writable) check.error(field + ".aliases", "input '{}' is not writable", t.aliases);
      if (in->type != t.type || in->shape != t.shape)
        check.error(field + ".aliases", "input '{}' has another dtype or shape", t.aliases);
      for (const tensor_spec &other : p.outputs)
        if (other.aliases == t.aliases) check.error(field + ".aliases", "'{}' is aliased twice", t.aliases);
    }
    if (!t.equals_input.empty()) {
      const tensor_spec *in = p.find_input(t.equals_input);
      if (!in) check.error(field + ".equals_input", "no input is named '{}'", t.equals_input);
      if (in->type != t.type || in->shape != t.shape)
        check.error(field + ".equals_input", "input '{}' has another dtype or shape", t.equals_input);
    }
    p.outputs.push_back(std::move(t));
  }

  if (fb->invariants())
    for (const flatbuffers::String *s : *fb->invariants()) p.invariants.push_back(s->str());

  auto cost = [&](const flatbuffers::String *text, const char *field) -> double {
    if (!text) check.error(field, "is required (an expression over the symbols)");
    try {
      double v = evaluate_expression(text->str(), lookup).as_double();
      if (!std::isfinite(v)) check.error(field, "'{}' is not finite", text->str());
      if (v < 0) check.error(field, "'{}' is negative", text->str());
      return v;
    } catch (const expression_error &e) {
      check.error(field, "'{}': {} (column {})", excerpt(text->str()), e.what(), e.column());
    }
  };
  p.flops = cost(fb->flops(), "flops");
  p.bytes = cost(fb->bytes(), "bytes");

  auto check_inside = [&](const std::string &relative, const std::string &field) {
    if (relative.find("..") != std::string::npos || relative.starts_with('/'))
      check.error(field, "'{}' must be a file inside the problem folder", relative);
  };
  auto read_named = [&](const flatbuffers::String *name, const char *fallback, const char *field,
                        bool required) -> std::string {
    std::string relative = name ? name->str() : std::string(fallback);
    if (relative.empty()) return {};
    check_inside(relative, field);
    auto content = files.read(folder + "/" + relative);
    if (!content) {
      if (required) check.error(field, "cannot read '{}'", files.describe(folder + "/" + relative));
      return {};
    }
    if (required && content->empty()) check.error(field, "'{}' is empty", files.describe(folder + "/" + relative));
    return std::move(*content);
  };
  p.reference = read_named(fb->reference(), "reference.md", "reference", true);
  p.baseline_source = read_named(fb->baseline(), "baseline.cu", "baseline", true);
  p.anchor_source = read_named(fb->anchor(), "anchor.cu", "anchor", true);
  p.generators_source = read_named(fb->generators(), "generators.cu", "generators", fb->generators() != nullptr);
  if (fb->solutions())
    for (size_t i = 0; i < fb->solutions()->size(); ++i) {
      const spec::Solution *s = fb->solutions()->Get(static_cast<flatbuffers::uoffset_t>(i));
      std::string field = fmt::format("solutions[{}]", i);
      if (s->dsl()->size() == 0) check.error(field + ".dsl", "must not be empty");
      if (s->file()->size() == 0) check.error(field + ".file", "must not be empty");
      check_inside(s->file()->str(), field + ".file");
      if (p.solution_for(s->dsl()->str())) check.error(field + ".dsl", "'{}' has a solution already", s->dsl()->str());
      p.solutions.push_back({s->dsl()->str(), s->file()->str(), s->beats_baseline()});
    }
  if (const spec::Origin *o = fb->origin()) {
    p.origin = problem_origin{o->repository()->str(), o->commit()->str(), o->path()->str(), o->kind()};
    if (p.origin->commit.size() != 40 ||
        p.origin->commit.find_first_not_of("0123456789abcdef") != std::string::npos)
      check.error("origin.commit", "'{}' is not a 40-digit lowercase hex commit", excerpt(p.origin->commit));
    if (p.origin->path.empty()) check.error("origin.path", "must not be empty");
    if (!enum_in_range(p.origin->kind))
      check.error("origin.kind", "{} is not an origin kind ({})", static_cast<int>(p.origin->kind),
                  enum_names<spec::OriginKind>(spec::EnumNameOriginKind));
  }
  if (const spec::BaselineDeparture *d = fb->baseline_vs_eager_graph()) {
    if (!std::isfinite(d->ratio()) || d->ratio() <= 0)
      check.error("baseline_vs_eager_graph.ratio", "{} must be a positive number", d->ratio());
    if (d->why()->size() == 0) check.error("baseline_vs_eager_graph.why", "must not be empty");
    p.baseline_vs_eager_graph = d->ratio();
  }
  if (const spec::UnbeatenBaseline *u = fb->unbeaten_baseline()) {
    if (u->why()->size() == 0) check.error("unbeaten_baseline.why", "must not be empty");
    p.unbeaten_baseline = u->why()->str();
  }
  p.eager_times = load_eager_times(files, folder, p.id);
  return p;
}

} // namespace mkb
