// The `cuda` DSL: CUDA C++ device code with a `/* mkb:plan ... */` block, compiled by NVRTC as is.
#include <fmt/format.h>

#include "core/embedded_files.hpp"
#include "cuda/nvrtc_compiler.hpp"
#include "dsl/dsl.hpp"
#include "spec/problem.hpp"

namespace mkb {

namespace {

class cuda_dsl final : public dsl {
public:
  std::string name() const override { return "cuda"; }
  std::string display_name() const override { return "CUDA C++ (NVRTC)"; }

  std::string notes() const override {
    const embedded_file *notes = find_embedded(embedded::resources(), "dsl/cuda_notes.md");
    return fmt::format("{}\nCompiler: NVRTC {}; options (fixed): {}\n", notes ? notes->data : "", nvrtc_version(),
                       fmt::join(locked_compile_options("sm_90a"), " "));
  }

  bool usable(std::string *why) const override {
    if (why) *why = "NVRTC " + nvrtc_version();
    return true;
  }

  prepared_submission prepare(std::string_view source, const problem &p, plan_role role) const override {
    try {
      launch_plan plan = parse_launch_plan(source);
      std::string file = role == plan_role::submission ? "submission.cu" : std::string(plan_role_name(role)) + ".cu";
      return {{file, std::string(source)}, resolve_launch_plan(plan, p, role)};
    } catch (const plan_error &e) {
      throw submission_error(fmt::format("launch plan, line {}: {}", e.line(), e.what()));
    }
  }
};

} // namespace

const dsl *cuda_frontend() {
  static const cuda_dsl instance;
  return &instance;
}

} // namespace mkb
