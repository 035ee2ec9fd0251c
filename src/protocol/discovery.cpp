#include "protocol/discovery.hpp"

#include <fmt/format.h>

#include "core/json_writer.hpp"
#include "dsl/dsl.hpp"
#include "dsl/sandbox.hpp"
#include "protocol/plan_setup.hpp"

namespace mkb {

namespace {

void sandbox_state(const session_config &config, toolchain_survey &out) {
  if (!config.sandbox || sandbox_disabled_by_environment()) {
    out.sandbox_usable = true;
    out.sandbox_detail = fmt::format("{}: Python DSL submissions run unconfined",
                                     config.sandbox ? "MKB_NO_SANDBOX is set" : "MKB_OPEN_NO_SANDBOX");
    return;
  }
  const python_sandbox &box = python_sandbox_for(config.python);
  out.sandbox_usable = out.sandbox_confined = box.usable();
  if (box.usable())
    out.sandbox_detail = fmt::format("{} confines {} (no network, no home, a private /tmp)", box.bwrap, box.interpreter);
  else if (!box.sandbox_error.empty())
    out.sandbox_detail = fmt::format("{}; Python DSL submissions are refused (MKB_NO_SANDBOX=1 or --no-sandbox runs "
                                     "them unconfined)", box.sandbox_error);
  else
    out.sandbox_detail = box.interpreter_error;
}

void write_tensors(json_writer &json, std::string_view name, const std::vector<tensor_spec> &tensors) {
  json.key(name).begin_array();
  for (const tensor_spec &t : tensors) {
    json.begin_object().field("name", t.name).field("dtype", dtype_name(t.type)).key("shape").begin_array();
    for (int64_t extent : t.shape) json.value(extent);
    json.end_array().end_object();
  }
  json.end_array();
}

} // namespace

std::vector<std::string> toolchain_survey::pair_problems() const {
  std::vector<std::string> problems;
  for (const dsl_availability &d : dsls)
    if (!d.usable && (d.name == selected_pair.first || d.name == selected_pair.second))
      problems.push_back(fmt::format("{}: {}", d.name, d.detail));
  return problems;
}

toolchain_survey survey_toolchains(const session_config &config) {
  toolchain_survey out;
  out.python = config.python;
  out.default_pair = [] {
    auto [a, b] = resolve_dsl_pair(session_config{});
    return std::pair{a->name(), b->name()};
  }();
  auto [a, b] = resolve_dsl_pair(config);
  out.selected_pair = {a->name(), b->name()};
  sandbox_state(config, out);
  frontend_environment env;
  env.python = config.python;
  env.sandbox = config.sandbox;
  for (const dsl *d : all_dsls()) {
    dsl_availability &entry = out.dsls.emplace_back();
    entry.name = d->name();
    entry.display_name = d->display_name();
    entry.usable = d->usable(env, &entry.detail);
  }
  return out;
}

std::string toolchains_json(const toolchain_survey &survey) {
  json_writer json;
  json.begin_object().field("python", survey.python);
  json.key("default_pair").begin_array().value(survey.default_pair.first).value(survey.default_pair.second).end_array();
  json.key("pair").begin_array().value(survey.selected_pair.first).value(survey.selected_pair.second).end_array();
  json.field("pair_usable", survey.pair_problems().empty());
  json.key("sandbox").begin_object().field("usable", survey.sandbox_usable).field("confined", survey.sandbox_confined).field("detail", survey.sandbox_detail).end_object();
  json.key("dsls").begin_array();
  for (const dsl_availability &d : survey.dsls)
    json.begin_object()
        .field("name", d.name)
        .field("display_name", d.display_name)
        .field("usable", d.usable)
        .field("detail", d.detail)
        .end_object();
  return json.end_array().end_object().take();
}

std::string problems_json(const suite &problems) {
  json_writer json;
  json.begin_object().field("suite", problems.origin()).key("problems").begin_array();
  for (const problem &p : problems.problems()) {
    json.begin_object().field("id", p.id).field("family", p.family).field("description", p.description);
    write_tensors(json, "inputs", p.inputs);
    write_tensors(json, "outputs", p.outputs);
    json.end_object();
  }
  return json.end_array().end_object().take();
}

} // namespace mkb
