// Until the C functions land: the same JSON from the library's internals.
#include "cli/listings.hpp"

#include <filesystem>

#include "core/files.hpp"
#include "core/json_writer.hpp"
#include "dsl/dsl.hpp"
#include "dsl/sandbox.hpp"
#include "spec/dtype.hpp"
#include "spec/suite.hpp"

namespace mkb::cli {

namespace {

void tensors(json_writer &w, const char *name, const std::vector<tensor_spec> &list) {
  w.key(name).begin_array();
  for (const tensor_spec &t : list) {
    w.begin_object().field("name", t.name).field("dtype", std::string(dtype_name(t.type))).key("shape").begin_array();
    for (int64_t extent : t.shape) w.value(extent);
    w.end_array().end_object();
  }
  w.end_array();
}

} // namespace

std::string list_problems_json(const std::string &suite_path) {
  suite problems = suite::load(suite_path.empty() ? std::nullopt : std::optional<std::filesystem::path>(suite_path));
  json_writer w;
  w.begin_object().field("suite", problems.origin()).key("problems").begin_array();
  for (const problem &p : problems.problems()) {
    w.begin_object().field("id", p.id).field("family", p.family).field("description", p.description);
    tensors(w, "inputs", p.inputs);
    tensors(w, "outputs", p.outputs);
    w.end_object();
  }
  return w.end_array().end_object().take();
}

std::string list_dsls_json(bool no_sandbox) {
  frontend_environment env;
  if (auto python = environment("MKB_PYTHON")) env.python = *python;
  env.sandbox = !no_sandbox;
  const python_sandbox &box = python_sandbox_for(env.python);
  json_writer w;
  w.begin_object().field("python", env.python);
  w.key("default_pair").begin_array();
  bool original = find_dsl("cute-dsl") && find_dsl("tirx");
  w.value(original ? "cute-dsl" : "cuda").value(original ? "tirx" : "cuda").end_array();
  w.key("sandbox").begin_object().field("usable", box.usable())
      .field("detail", box.usable() ? box.bwrap : box.sandbox_error.empty() ? box.interpreter_error : box.sandbox_error)
      .end_object();
  w.key("dsls").begin_array();
  for (const dsl *d : all_dsls()) {
    std::string why;
    bool usable = d->usable(env, &why);
    w.begin_object().field("name", d->name()).field("display_name", d->display_name()).field("usable", usable)
        .field("detail", why).end_object();
  }
  return w.end_array().end_object().take();
}

} // namespace mkb::cli
