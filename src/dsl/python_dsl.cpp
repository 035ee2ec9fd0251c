// The Python DSLs: `triton`, `cute-dsl` (NVIDIA CuTe DSL) and `tirx` (Apache TVM TIRx). A submission
// is a Python file holding the kernels and, in a string, the same `/* mkb:plan ... */` block as a
// `cuda` submission. The plan is parsed and resolved here; the kernels it launches are compiled by
// mkb_frontend.py in a child process for the target architecture (no GPU needed), which answers with
// PTX units (Triton, CuTe DSL) or CUDA C++ (TIRx) and the entry points. docs/DSLS.md.
#include <fmt/format.h>

#include <map>

#include "core/embedded_files.hpp"
#include "core/output_tail.hpp"
#include "core/json_writer.hpp"
#include "dsl/dsl.hpp"
#include "dsl/frontend_cache.hpp"
#include "dsl/python_frontend.hpp"
#include "spec/problem.hpp"

namespace mkb {

namespace {

struct python_dsl_facts {
  const char *name;
  const char *display_name;
  const char *notes_file;
  const char *pinned; // "triton 3.6.0": the distribution and version this build is tested with
};

class python_dsl final : public dsl {
public:
  explicit python_dsl(python_dsl_facts facts) : facts_(facts) {}

  std::string name() const override { return facts_.name; }
  std::string display_name() const override { return facts_.display_name; }

  std::string notes() const override {
    const embedded_file *notes = find_embedded(embedded::resources(), facts_.notes_file);
    return fmt::format("{}\nPinned package: {} (pip install {}).\n", notes ? notes->data : "", facts_.pinned,
                       pip_requirement());
  }

  bool usable(const frontend_environment &env, std::string *why) const override {
    json_writer request;
    request.begin_object().field("dsl", facts_.name).field("probe", true).end_object();
    try {
      frontend_answer answer = run_python_frontend(env, request.str());
      const frontend::Response *r = answer.response();
      if (r->error()) {
        if (why) *why = fmt::format("{} (with {})", r->error()->str(), env.python);
        return false;
      }
      std::string found = r->versions() ? r->versions()->str() : "";
      if (found != facts_.pinned) {
        if (why) *why = fmt::format("{} has {}; this build is tested with {}", env.python, found, facts_.pinned);
        return false;
      }
      if (why) *why = fmt::format("{} with {}", found, env.python);
      return true;
    } catch (const std::runtime_error &e) { // submission_error, or compile_failure when it took too long
      if (why) *why = e.what();
      return false;
    }
  }

  prepared_submission prepare(std::string_view source, const problem &p, plan_role role,
                              const frontend_environment &env) const override {
    resolved_plan plan;
    try {
      plan = resolve_launch_plan(parse_launch_plan(source), p, role);
    } catch (const plan_error &e) {
      throw submission_error(fmt::format("launch plan, line {}: {}", e.line(), e.what()));
    }
    const kernel_request request = request_for(source, p, plan, env.arch);
    frontend_answer answer = run_python_frontend_cached(env, facts_.pinned, request.json);
    const frontend::Response *r = answer.response();
    if (r->error()) {
      std::string message = r->error()->str();
      if (!answer.output.empty()) message += "\nThe frontend's output:\n" + last_bytes_of(answer.output, 4096);
      switch (r->error_kind()) {
      case frontend::ErrorKind::syntax:
        throw submission_error("the submission is not valid Python:\n" + message);
      case frontend::ErrorKind::infrastructure:
        throw submission_error(fmt::format("infrastructure failure: {} cannot compile here: {}", facts_.name, message));
      default:
        throw compile_failure(fmt::format("{} could not compile the submission:\n{}", facts_.name, message));
      }
    }

    prepared_submission out;
    out.module.name = "submission.py";
    if (r->ptx()) {
      out.module.source = std::string(source); // kept for the record; the PTX units are what runs
      for (const flatbuffers::String *unit : *r->ptx()) out.module.ptx.push_back(unit->str());
    } else if (r->cuda()) {
      out.module.name = "submission.generated.cu";
      out.module.source = r->cuda()->str();
    } else {
      throw submission_error(fmt::format("the {} frontend answered with no code", facts_.name));
    }
    // The frontend answers one entry per request item, in order.
    const size_t answered = r->entries() ? r->entries()->size() : 0;
    for (size_t i = 0; i < plan.launches.size(); ++i) {
      resolved_launch &l = plan.launches[i];
      const size_t item = request.item_of_launch[i];
      const frontend::Entry *e = item < answered ? r->entries()->Get(static_cast<flatbuffers::uoffset_t>(item)) : nullptr;
      if (!e || !e->name() || e->name()->string_view() != l.entry)
        throw compile_failure(fmt::format("the {} frontend compiled no '{}'", facts_.name, l.entry));
      if (e->block() && e->block()->size() == 3) {
        std::array<uint32_t, 3> block{e->block()->Get(0), e->block()->Get(1), e->block()->Get(2)};
        if (block != l.block)
          throw compile_failure(fmt::format("launch plan, line {}: '{}' was compiled for block({}, {}, {}), but the "
                                             "plan launches block({}, {}, {})",
                                             l.line, l.entry, block[0], block[1], block[2], l.block[0], l.block[1], l.block[2]));
      }
      if (const auto *order = e->arg_order(); order && order->size()) {
        std::vector<resolved_arg> reordered;
        std::vector<bool> used(l.args.size(), false);
        for (int index : *order) {
          if (index < 0 || static_cast<size_t>(index) >= l.args.size() || used[static_cast<size_t>(index)])
            throw compile_failure(fmt::format("the {} frontend gave a bad parameter order for '{}'", facts_.name, l.entry));
          used[static_cast<size_t>(index)] = true;
          reordered.push_back(l.args[static_cast<size_t>(index)]);
        }
        if (reordered.size() != l.args.size())
          throw compile_failure(fmt::format("the {} frontend gave a bad parameter order for '{}'", facts_.name, l.entry));
        l.args = std::move(reordered);
      }
      if (e->shared_bytes() > static_cast<int>(l.shared_bytes)) l.shared_bytes = static_cast<uint32_t>(e->shared_bytes());
      if (e->extra_u64_args() < 0 || e->extra_u64_args() > 8)
        throw compile_failure(fmt::format("the {} frontend reported {} appended parameters for '{}'", facts_.name,
                                           e->extra_u64_args(), l.entry));
      for (int extra = 0; extra < e->extra_u64_args(); ++extra) l.args.push_back({arg_kind::u64, "", 0, 0, "0 (compiler's scratch)"});
      l.entry = e->entry()->str();
    }
    out.plan = std::move(plan);
    return out;
  }

private:
  std::string pip_requirement() const {
    std::string pinned = facts_.pinned;
    size_t space = pinned.find(' ');
    return pinned.substr(0, space) + "==" + pinned.substr(space + 1);
  }

  // What the frontend compiles: one item per distinct launch of the plan (the kernel, its parameters'
  // kinds and pointer dtypes, whether each integer is a multiple of 16, its shape). A DSL compiles a
  // launch's specialization (Triton assumes the divisibility it was shown, CuTe DSL bakes the block
  // shape into the kernel), so two launches of one kernel that differ get a compilation each; alike
  // ones share one.
  struct kernel_request {
    std::string json;
    std::vector<size_t> item_of_launch; // plan.launches[i] runs item item_of_launch[i]
  };

  kernel_request request_for(std::string_view source, const problem &p, const resolved_plan &plan,
                             const std::string &arch) const {
    std::map<std::string, dtype> buffer_types;
    for (const tensor_spec &t : p.inputs) buffer_types[t.name] = t.type;
    for (const tensor_spec &t : p.outputs) buffer_types[t.name] = t.type;
    for (const resolved_scratch &s : plan.scratch) buffer_types[s.name] = s.type;

    json_writer w;
    w.begin_object().field("dsl", facts_.name).field("arch", arch).field("source", source);
    w.key("kernels").begin_array();
    std::map<std::string, std::string> signatures; // a kernel must be launched with one signature
    std::map<std::string, size_t> items;           // an item's JSON -> its index
    kernel_request out;
    for (const resolved_launch &l : plan.launches) {
      std::string signature;
      json_writer params;
      params.begin_array();
      for (const resolved_arg &a : l.args) {
        params.begin_object().field("kind", arg_kind_name(a.kind));
        if (a.kind == arg_kind::pointer) params.field("dtype", dtype_name(buffer_types.at(a.buffer)));
        else params.field("multiple_of_16", a.kind != arg_kind::f32 && a.kind != arg_kind::f64 && a.integer % 16 == 0);
        params.end_object();
        signature += fmt::format("{}{},", arg_kind_name(a.kind),
                                 a.kind == arg_kind::pointer ? dtype_name(buffer_types.at(a.buffer)) : "");
      }
      params.end_array();
      auto [it, fresh] = signatures.emplace(l.entry, signature);
      if (!fresh && it->second != signature)
        throw compile_failure(fmt::format("launch plan, line {}: '{}' is launched again with other argument types; "
                                           "each kernel takes one signature",
                                           l.line, l.entry));
      auto dims = [&](const std::array<uint32_t, 3> &d) {
        json_writer j;
        j.begin_array().value(d[0]).value(d[1]).value(d[2]).end_array();
        return j.take();
      };
      json_writer item;
      item.begin_object().field("name", l.entry).key("params").raw(params.str()).key("grid").raw(dims(l.grid));
      item.key("block").raw(dims(l.block)).field("shared", l.shared_bytes).key("cluster").raw(dims(l.cluster)).end_object();
      auto [known, added] = items.emplace(item.str(), items.size());
      if (added) w.raw(known->first);
      out.item_of_launch.push_back(known->second);
    }
    w.end_array().end_object();
    out.json = w.take();
    return out;
  }

  python_dsl_facts facts_;
};

} // namespace

const dsl *triton_frontend() {
  static const python_dsl instance({"triton", "Triton", "dsl/triton_notes.md", "triton 3.6.0"});
  return &instance;
}

const dsl *cute_dsl_frontend() {
  static const python_dsl instance({"cute-dsl", "CuTe DSL (NVIDIA CUTLASS Python DSL)", "dsl/cute_dsl_notes.md",
                                    "nvidia-cutlass-dsl 4.8.1"});
  return &instance;
}

const dsl *tirx_frontend() {
  static const python_dsl instance({"tirx", "TIRx (Apache TVM)", "dsl/tirx_notes.md", "apache-tvm 0.27.0.post1"});
  return &instance;
}

} // namespace mkb
