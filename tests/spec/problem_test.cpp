#include "spec/problem.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.hpp"
#include "spec/file_source.hpp"
#include "spec/suite.hpp"
#include "support/temp_dir.hpp"

namespace mkb {
namespace {

using testing::temp_dir;
using testing::tiny_spec;
using testing::write_problem;

// The message of the MKB_ERR_SPEC that loading `spec` fails with.
std::string spec_error(const std::string &spec, std::map<std::string, std::string> files = {},
                       const std::string &folder = "test/tiny") {
  temp_dir dir;
  write_problem(dir, folder.substr(0, folder.find('/')), folder.substr(folder.find('/') + 1), spec, std::move(files));
  try {
    load_problem(directory_source(dir.path()), folder);
  } catch (const error &e) {
    EXPECT_EQ(e.status(), MKB_ERR_SPEC);
    return e.what();
  }
  ADD_FAILURE() << "the spec loaded";
  return {};
}

TEST(Problem, ValidSpecResolvesShapesAndCosts) {
  temp_dir dir;
  write_problem(dir, "test", "tiny", tiny_spec());
  problem p = load_problem(directory_source(dir.path()), "test/tiny");
  EXPECT_EQ(p.id, "tiny");
  ASSERT_EQ(p.inputs.size(), 1u);
  EXPECT_EQ(p.inputs[0].count, 1000u);
  EXPECT_EQ(p.inputs[0].bytes(), 4000u);
  EXPECT_EQ(p.inputs[0].dist.kind, spec::DistributionKind::normal);
  EXPECT_DOUBLE_EQ(p.bytes, 8000);
  EXPECT_EQ(p.lookup()("n")->integer, 1000);
}

TEST(Problem, ErrorsNameFileFieldAndProblem) {
  std::string e = spec_error(tiny_spec("tiny", "test", R"(, { "name": "z", "dtype": "fp32", "shape": ["n * m"] })"));
  EXPECT_NE(e.find("spec.json"), std::string::npos) << e;
  EXPECT_NE(e.find("problem 'tiny'"), std::string::npos) << e;
  EXPECT_NE(e.find("inputs[1].shape[0]"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown name 'm'"), std::string::npos) << e;
}

TEST(Problem, SchemaViolationsAreReported) {
  EXPECT_NE(spec_error(R"({ "id": "tiny", "family": "test", "description": "d", "bogus": 1 })").find("bogus"), std::string::npos);
  EXPECT_NE(spec_error(R"({ "family": "test", "description": "d" })").find("id"), std::string::npos);
  EXPECT_NE(spec_error(R"({ "id": "tiny", "family": "test", "description": "d", "inputs": [ { "name": "x", "dtype": "fp31" } ] })").find("fp31"),
            std::string::npos);
  EXPECT_NE(spec_error("{ not json").find("spec.json"), std::string::npos);
}

TEST(Problem, SemanticRules) {
  EXPECT_NE(spec_error(tiny_spec("other")).find("folder must be 'test/other'"), std::string::npos);
  EXPECT_NE(spec_error(tiny_spec("tiny", "test", R"(, { "name": "x", "dtype": "fp32", "shape": ["n"] })")).find("used twice"),
            std::string::npos);
  EXPECT_NE(spec_error(tiny_spec("tiny", "test", "", R"({ "name": "y", "dtype": "int32", "shape": ["n"] })"))
                .find("compare exact"),
            std::string::npos);
  EXPECT_NE(spec_error(tiny_spec("tiny", "test", "", R"({ "name": "y", "dtype": "fp32", "shape": ["n"], "aliases": "x" })"))
                .find("not writable"),
            std::string::npos);
  EXPECT_NE(spec_error(tiny_spec("tiny", "test", "", R"({ "name": "y", "dtype": "fp32", "shape": ["n"], "equals_input": "q" })"))
                .find("outputs[0].equals_input: no input is named 'q'"),
            std::string::npos);
  EXPECT_NE(spec_error(tiny_spec("tiny", "test", "", R"({ "name": "y", "dtype": "bf16", "shape": ["n"], "equals_input": "x" })"))
                .find("another dtype or shape"),
            std::string::npos);
  EXPECT_NE(spec_error(tiny_spec("tiny", "test", R"(, { "name": "z", "dtype": "fp32", "shape": ["n - 1000"] })")).find("positive"),
            std::string::npos);
  EXPECT_NE(spec_error(tiny_spec("tiny", "test", R"(, { "name": "p", "dtype": "fp32", "shape": ["n"], "distribution": { "kind": "permutation" } })"))
                .find("integer dtype"),
            std::string::npos);
  EXPECT_NE(spec_error(tiny_spec(), {{"baseline.cu", ""}}).find("baseline"), std::string::npos);
}

// Regression: specs with numbers in place of enum names, or with "inf", were accepted, and an unknown
// dtype took fp32's facts (tests/fuzz/regressions/spec_loader holds these inputs).
TEST(Problem, EveryEnumAndNumberIsChecked) {
  auto input = [](const std::string &fields) {
    return tiny_spec("tiny", "test", R"(, { "name": "z", "shape": ["n"], )" + fields + " }");
  };
  auto output = [](const std::string &fields) {
    return tiny_spec("tiny", "test", "", R"({ "name": "y", "shape": ["n"], )" + fields + " }");
  };
  auto expect = [](const std::string &spec, const std::string &part) {
    std::string e = spec_error(spec);
    EXPECT_NE(e.find(part), std::string::npos) << e;
  };
  expect(input(R"("dtype": 99)"), "inputs[1].dtype: 99 is not a dtype (bf16, fp16, fp32, fp64, int8, uint8, int32, int64, bool,");
  expect(output(R"("dtype": 11)"), "outputs[0].dtype: 11 is not a dtype");
  expect(input(R"("dtype": "fp32", "distribution": { "kind": 9 })"), "inputs[1].distribution.kind: 9 is not a distribution (normal,");
  expect(output(R"("dtype": "fp32", "comparison": 7)"), "outputs[0].comparison: 7 is not a comparison (anchor, exact, exact_sorted)");
  expect(input(R"("dtype": "fp32", "distribution": { "kind": "normal", "mean": "inf" })"),
         "inputs[1].distribution.mean: inf is not a finite number");
  expect(input(R"("dtype": "fp32", "distribution": { "kind": "normal", "stddev": "nan" })"),
         "inputs[1].distribution.stddev: nan is not a finite number");
  expect(input(R"("dtype": "fp32", "distribution": { "kind": "uniform", "low": "-inf", "high": 1 })"),
         "inputs[1].distribution.low: -inf is not a finite number");
  expect(input(R"("dtype": "int8", "distribution": { "kind": "integer_range", "low": 0, "high": 1000 })"),
         "inputs[1].distribution: [0, 1000] does not fit int8");
  expect(input(R"("dtype": "int64", "distribution": { "kind": "integer_range", "low": 0, "high": 1e300 })"),
         "does not fit int64");
  expect(input(R"("dtype": "int8", "distribution": { "kind": "permutation" })"), "a permutation of 1000 values does not fit int8");

  std::string spec = tiny_spec();
  expect(std::string(spec).insert(spec.rfind('}'), R"(, "compute": 42)"), "compute: 42 is not a compute kind (fp32,");
  expect(std::string(spec).insert(spec.rfind('}'), R"(, "number": -3)"), "number: -3 is negative");
  std::string infinite_cost = spec;
  infinite_cost.replace(infinite_cost.find(R"("flops": "n")"), 12, R"("flops": "1e308 * 10")");
  expect(infinite_cost, "flops: '1e308 * 10' is not finite");
}

// JSON nested 100,000 arrays deep, and a shape nested 15,000 parentheses deep: refused, not a crash.
TEST(Problem, DeepNestingIsRefused) {
  std::string spec = tiny_spec();
  std::string nested_json = std::string(spec).insert(spec.rfind('}'), R"(, "notes": )" + std::string(100000, '[') +
                                                                          std::string(100000, ']'));
  EXPECT_NE(spec_error(nested_json).find("spec.json"), std::string::npos);
  std::string nested_shape = tiny_spec("tiny", "test", R"(, { "name": "z", "dtype": "fp32", "shape": [")" +
                                                           std::string(15000, '(') + "n" + std::string(15000, ')') + R"("] })");
  std::string e = spec_error(nested_shape);
  EXPECT_NE(e.find("nests deeper than 256 levels"), std::string::npos) << e.substr(0, 400);
}

TEST(Problem, MissingFileIsNamed) {
  temp_dir dir;
  write_problem(dir, "test", "tiny", tiny_spec());
  std::filesystem::remove(dir.path() / "test/tiny/anchor.cu");
  try {
    load_problem(directory_source(dir.path()), "test/tiny");
    FAIL();
  } catch (const error &e) {
    EXPECT_NE(std::string(e.what()).find("anchor.cu"), std::string::npos) << e.what();
  }
}

// Solutions are declared, never read: a session has no use for them, and what it loads an agent can
// read (the files stay on disk, spec/suite_data.hpp).
TEST(Problem, SolutionsAreDeclaredWithWhetherTheyBeatTheBaselineAndNotRead) {
  temp_dir dir;
  std::string spec = tiny_spec();
  spec.insert(spec.rfind('}'), R"(, "solutions": [ { "dsl": "cuda", "file": "solutions/cuda.cu" },
      { "dsl": "tirx", "file": "solutions/tirx.py", "beats_baseline": false } ])");
  write_problem(dir, "test", "tiny", spec); // no solution files: loading must not need them
  problem p = load_problem(directory_source(dir.path()), "test/tiny");
  ASSERT_EQ(p.solutions.size(), 2u);
  EXPECT_EQ(p.solutions[0].dsl, "cuda");
  EXPECT_EQ(p.solutions[0].file, "solutions/cuda.cu");
  EXPECT_TRUE(p.solutions[0].beats_baseline);
  EXPECT_FALSE(p.solutions[1].beats_baseline);
  ASSERT_NE(p.solution_for("tirx"), nullptr);
  EXPECT_EQ(p.solution_for("tirx")->file, "solutions/tirx.py");
  EXPECT_EQ(p.solution_for("triton"), nullptr);
}

TEST(Problem, SolutionDeclarationsAreChecked) {
  auto with = [](const std::string &solutions) {
    std::string spec = tiny_spec();
    return spec.insert(spec.rfind('}'), R"(, "solutions": )" + solutions);
  };
  std::string outside = spec_error(with(R"([ { "dsl": "cuda", "file": "../other/cuda.cu" } ])"));
  EXPECT_NE(outside.find("solutions[0].file: '../other/cuda.cu' must be a file inside the problem folder"), std::string::npos)
      << outside;
  std::string twice = spec_error(with(R"([ { "dsl": "cuda", "file": "a.cu" }, { "dsl": "cuda", "file": "b.cu" } ])"));
  EXPECT_NE(twice.find("solutions[1].dsl: 'cuda' has a solution already"), std::string::npos) << twice;
  std::string unnamed = spec_error(with(R"([ { "dsl": "", "file": "a.cu" } ])"));
  EXPECT_NE(unnamed.find("solutions[0].dsl: must not be empty"), std::string::npos) << unnamed;
}

TEST(Problem, OriginNamesTheOriginalsFileAtACommit) {
  auto with = [](const std::string &origin) {
    std::string spec = tiny_spec();
    return spec.insert(spec.rfind('}'), R"(, "origin": )" + origin);
  };
  const std::string commit = "d90ba286164c2fa8e64afd75db5813002ede2ddd";
  temp_dir dir;
  write_problem(dir, "test", "tiny",
                with(R"({ "repository": "YIGE24/MetaKernelBench", "commit": ")" + commit +
                     R"(", "path": "problems/x/01_tiny.py", "kind": "reconstructed" })"));
  problem p = load_problem(directory_source(dir.path()), "test/tiny");
  ASSERT_TRUE(p.origin.has_value());
  EXPECT_EQ(p.origin->commit, commit);
  EXPECT_EQ(p.origin->path, "problems/x/01_tiny.py");
  EXPECT_EQ(p.origin->kind, spec::OriginKind::reconstructed);
  temp_dir plain;
  write_problem(plain, "test", "tiny", tiny_spec());
  EXPECT_FALSE(load_problem(directory_source(plain.path()), "test/tiny").origin.has_value());

  std::string short_commit = spec_error(with(R"({ "repository": "a/b", "commit": "d90ba28", "path": "p.py" })"));
  EXPECT_NE(short_commit.find("origin.commit: 'd90ba28' is not a 40-digit lowercase hex commit"), std::string::npos)
      << short_commit;
  std::string no_path = spec_error(with(R"({ "repository": "a/b", "commit": ")" + commit + R"(", "path": "" })"));
  EXPECT_NE(no_path.find("origin.path: must not be empty"), std::string::npos) << no_path;
  std::string kind = spec_error(with(R"({ "repository": "a/b", "commit": ")" + commit + R"(", "path": "p", "kind": "masked" })"));
  EXPECT_NE(kind.find("masked"), std::string::npos) << kind;
}

TEST(Problem, AnUnbeatenBaselineIsDeclaredWithWhy) {
  auto with = [](const std::string &declaration) {
    std::string spec = tiny_spec();
    return spec.insert(spec.rfind('}'), R"(, "unbeaten_baseline": )" + declaration);
  };
  temp_dir dir;
  write_problem(dir, "test", "tiny", with(R"({ "why": "cuBLAS-bound: 1.00x measured" })"));
  EXPECT_EQ(load_problem(directory_source(dir.path()), "test/tiny").unbeaten_baseline, "cuBLAS-bound: 1.00x measured");
  write_problem(dir, "test", "tiny", tiny_spec());
  EXPECT_EQ(load_problem(directory_source(dir.path()), "test/tiny").unbeaten_baseline, "");
  std::string silent = spec_error(with(R"({ "why": "" })"));
  EXPECT_NE(silent.find("unbeaten_baseline.why: must not be empty"), std::string::npos) << silent;
}

TEST(Problem, ABaselineDepartingFromEagerDeclaresTheRatioAndWhy) {
  auto with = [](const std::string &departure) {
    std::string spec = tiny_spec();
    return spec.insert(spec.rfind('}'), R"(, "baseline_vs_eager_graph": )" + departure);
  };
  temp_dir dir;
  write_problem(dir, "test", "tiny", with(R"({ "ratio": 1.8, "why": "eager calls a fused kernel" })"));
  EXPECT_DOUBLE_EQ(load_problem(directory_source(dir.path()), "test/tiny").baseline_vs_eager_graph.value_or(0), 1.8);
  std::string negative = spec_error(with(R"({ "ratio": -1, "why": "x" })"));
  EXPECT_NE(negative.find("baseline_vs_eager_graph.ratio: -1 must be a positive number"), std::string::npos) << negative;
  std::string silent = spec_error(with(R"({ "ratio": 2, "why": "" })"));
  EXPECT_NE(silent.find("baseline_vs_eager_graph.why: must not be empty"), std::string::npos) << silent;
}

TEST(Problem, AnOutputMayDeclareALooserBaselineLimitUpToACap) {
  auto output = [](const std::string &departure, const std::string &dtype = "fp32") {
    return tiny_spec("tiny", "test", "",
                     R"({ "name": "y", "dtype": ")" + dtype + R"(", "shape": ["n"], "baseline_vs_anchor": )" + departure + " }");
  };
  temp_dir dir;
  write_problem(dir, "test", "tiny", tiny_spec());
  // fp32's default is 2^-16 of the magnitude, 128 of its epsilons; bf16's is 8 of its own.
  EXPECT_DOUBLE_EQ(load_problem(directory_source(dir.path()), "test/tiny").outputs[0].baseline_vs_anchor_eps, 128);
  write_problem(dir, "test", "tiny", output(R"({ "eps": 1024, "why": "a long fp32 recurrence" })"));
  EXPECT_DOUBLE_EQ(load_problem(directory_source(dir.path()), "test/tiny").outputs[0].baseline_vs_anchor_eps, 1024);
  std::string tighter = spec_error(output(R"({ "eps": 64, "why": "x" })"));
  EXPECT_NE(tighter.find("outputs[0].baseline_vs_anchor.eps: 64 must be above the default 128 and at most 8192 (fp32 eps)"),
            std::string::npos)
      << tighter;
  std::string loose = spec_error(output(R"({ "eps": 8193, "why": "x" })"));
  EXPECT_NE(loose.find("baseline_vs_anchor.eps: 8193 must be above"), std::string::npos) << loose;
  // 2^-10 of the magnitude is below bf16's default of 8 eps (2^-4): a bf16 output can declare nothing.
  std::string bf16 = spec_error(output(R"({ "eps": 9, "why": "x" })", "bf16"));
  EXPECT_NE(bf16.find("9 must be above the default 8 and at most 0.125 (bf16 eps)"), std::string::npos) << bf16;
  std::string silent = spec_error(output(R"({ "eps": 1024, "why": "" })"));
  EXPECT_NE(silent.find("outputs[0].baseline_vs_anchor.why: must not be empty"), std::string::npos) << silent;
}

TEST(Suite, BuiltInSuiteHoldsTheProblemsOfThisRepository) {
  suite s = suite::load(std::nullopt);
  EXPECT_EQ(s.origin(), "built-in");
  const problem *rms = s.find("fused_add_rmsnorm_h4096_llama31_8b_bf16");
  ASSERT_NE(rms, nullptr);
  EXPECT_EQ(rms->family, "mlp_norm");
  EXPECT_EQ(rms->inputs[0].name, "hidden_states");
  EXPECT_EQ(rms->inputs[0].count, 14509u * 4096u);
  ASSERT_EQ(rms->outputs.size(), 1u); // y alone: the residual is read only, as the original's reference
  // The original's problems return new tensors: no output of the built-in suite is written in place
  // (aliasing is tested on specs of the tests' own, ProblemTest and the evaluation tests).
  for (const problem &p : s.problems())
    for (const tensor_spec &out : p.outputs) EXPECT_EQ(out.aliases, "") << p.id << "." << out.name;
  ASSERT_NE(rms->solution_for("cuda"), nullptr);
  const problem *routing = s.find("topk_softmax_routing_mixtral_8x7b_bf16");
  ASSERT_NE(routing, nullptr);
  EXPECT_EQ(routing->outputs[0].comparison, spec::Comparison::exact);
}

TEST(Suite, LinkedProblemFoldersAreFoundUnderTheirLinkName) {
  temp_dir elsewhere, dir;
  write_problem(elsewhere, "test", "tiny", tiny_spec());
  std::filesystem::create_directories(dir.path() / "test");
  std::filesystem::create_directory_symlink(elsewhere.path() / "test" / "tiny", dir.path() / "test" / "tiny");
  suite s = suite::load(dir.path());
  ASSERT_EQ(s.problems().size(), 1u);
  EXPECT_EQ(s.problems()[0].folder, "test/tiny");
}

TEST(Problem, GeneratorsFileIsFoundWithoutNamingIt) {
  temp_dir dir;
  std::string spec = tiny_spec("tiny", "test", R"(, { "name": "ids", "dtype": "int32", "shape": ["n"],
      "distribution": { "kind": "generator", "generator": "zipf" } })");
  EXPECT_THROW(load_problem(directory_source(dir.path()), (write_problem(dir, "test", "tiny", spec), "test/tiny")), error);
  write_problem(dir, "test", "tiny", spec, {{"generators.cu", "// zipf\n"}});
  EXPECT_EQ(load_problem(directory_source(dir.path()), "test/tiny").generators_source, "// zipf\n");
}

TEST(Suite, FolderSuiteAndErrors) {
  temp_dir dir;
  write_problem(dir, "test", "tiny", tiny_spec());
  EXPECT_EQ(suite::load(dir.path()).problems().size(), 1u);
  try {
    suite::load(dir.path() / "missing");
    FAIL();
  } catch (const error &e) {
    EXPECT_EQ(e.status(), MKB_ERR_NOT_FOUND);
  }
}

} // namespace
} // namespace mkb
