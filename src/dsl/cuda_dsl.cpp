// The `cuda` DSL: CUDA C++ device code with a `/* mkb:plan ... */` block, compiled by NVRTC as is;
// and `cute`: the same with CUTLASS's header-only CuTe on the include path.
#include <fmt/format.h>

#include "core/embedded_files.hpp"
#include "cuda/nvrtc_compiler.hpp"
#include "dsl/dsl.hpp"
#include "dsl/python_frontend.hpp"
#include "spec/problem.hpp"

namespace mkb {

namespace {

class cuda_dsl final : public dsl {
public:
  explicit cuda_dsl(bool with_cutlass) : with_cutlass_(with_cutlass) {}

  std::string name() const override { return with_cutlass_ ? "cute" : "cuda"; }
  std::string display_name() const override {
    return with_cutlass_ ? "CuTe C++ (CUTLASS headers, NVRTC)" : "CUDA C++ (NVRTC)";
  }

  std::string notes() const override {
    const embedded_file *notes = find_embedded(embedded::resources(), "dsl/cuda_notes.md");
    const embedded_file *cute = find_embedded(embedded::resources(), "dsl/cute_notes.md");
    return fmt::format("{}{}\nCompiler: NVRTC {}; options (fixed): {}{}\n<arch> is the architecture of the GPU that "
                       "runs the submission: sm_90a on H100 and H200, sm_100a on B200.\n",
                       with_cutlass_ && cute ? cute->data : "", notes ? notes->data : "", nvrtc_version(),
                       fmt::join(locked_compile_options("<arch>"), " "), with_cutlass_ ? " -I<CUTLASS include>" : "");
  }

  bool usable(const frontend_environment &env, std::string *why) const override {
    std::string headers;
    if (with_cutlass_) {
      auto dir = cutlass_include_dir(env, why);
      if (!dir) return false;
      headers = ", CUTLASS headers in " + *dir;
    }
    if (why) *why = "NVRTC " + nvrtc_version() + headers;
    return true;
  }

  prepared_submission prepare(std::string_view source, const problem &p, plan_role role,
                              const frontend_environment &env) const override {
    prepared_submission out;
    try {
      // Resolved before anything else is built: GCC 12 destroys the parts of a brace-initialized
      // aggregate twice when a later part throws.
      out.plan = resolve_launch_plan(parse_launch_plan(source), p, role);
    } catch (const plan_error &e) {
      throw submission_error(fmt::format("launch plan, line {}: {}", e.line(), e.what()));
    }
    out.module.name = role == plan_role::submission ? "submission.cu" : std::string(plan_role_name(role)) + ".cu";
    out.module.source = std::string(source);
    if (with_cutlass_) {
      std::string why;
      auto dir = cutlass_include_dir(env, &why);
      if (!dir) throw submission_error("CUTLASS's headers are not available here: " + why);
      out.module.include_dirs.push_back(*dir);
    }
    return out;
  }

private:
  bool with_cutlass_;
};

} // namespace

const dsl *cuda_frontend() {
  static const cuda_dsl instance(false);
  return &instance;
}

const dsl *cute_frontend() {
  static const cuda_dsl instance(true);
  return &instance;
}

} // namespace mkb
