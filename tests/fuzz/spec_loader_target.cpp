#include "core/error.hpp"
#include "fuzz_targets.hpp"
#include "spec/file_source.hpp"
#include "spec/problem.hpp"

namespace mkb::fuzz {

namespace {

// The fuzzed bytes as fuzz/target/spec.json; any other file the spec names holds a small kernel, so
// that loading goes as deep as the spec allows.
class one_problem_source final : public file_source {
public:
  explicit one_problem_source(std::string spec) : spec_(std::move(spec)) {}
  std::optional<std::string> read(const std::string &relative) const override {
    if (relative == "fuzz/target/spec.json") return spec_;
    if (relative.starts_with("fuzz/target/")) return "extern \"C\" __global__ void k() {}\n";
    return std::nullopt;
  }
  std::vector<std::string> problem_folders() const override { return {"fuzz/target"}; }
  std::string describe(const std::string &relative) const override { return relative; }

private:
  std::string spec_;
};

} // namespace

void spec_loader(bytes data) {
  try {
    load_problem(one_problem_source(std::string(as_text(data))), "fuzz/target");
  } catch (const error &) {
  }
}

} // namespace mkb::fuzz
