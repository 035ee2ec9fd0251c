#include "spec/eager_times.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "spec/file_source.hpp"
#include "spec/problem.hpp"
#include "support/paths.hpp"
#include "support/temp_dir.hpp"

namespace mkb {
namespace {

using testing::temp_dir;
using testing::tiny_spec;
using testing::write_problem;

// The message of the MKB_ERR_SPEC that loading test/tiny with `eager_times` fails with.
std::string eager_error(const std::string &eager_times) {
  temp_dir dir;
  write_problem(dir, "test", "tiny", tiny_spec(), {{"eager_times.json", eager_times}});
  try {
    load_problem(directory_source(dir.path()), "test/tiny");
  } catch (const error &e) {
    EXPECT_EQ(e.status(), MKB_ERR_SPEC);
    return e.what();
  }
  ADD_FAILURE() << "the eager times loaded";
  return {};
}

std::string record(const std::string &fields) { return R"({ "records": [ { )" + fields + " } ] }"; }

TEST(EagerTimes, ReadFromTheProblemFolderOnDisk) {
  problem p = load_problem(directory_source(std::filesystem::path(testing::source_dir()) / "tests/spec/data/eager_suite"), "test/tiny");
  ASSERT_EQ(p.eager_times.size(), 2u);
  const eager_time *h200 = p.eager_time_for("NVIDIA H200");
  ASSERT_TRUE(h200);
  EXPECT_DOUBLE_EQ(h200->eager_us, 1123.4);
  EXPECT_DOUBLE_EQ(h200->eager_min_us.value_or(0), 1122.0);
  EXPECT_DOUBLE_EQ(h200->eager_max_us.value_or(0), 1125.8);
  EXPECT_DOUBLE_EQ(h200->spread_pct.value_or(0), 0.3);
  EXPECT_DOUBLE_EQ(h200->graph_us.value_or(0), 1111.0);
  EXPECT_DOUBLE_EQ(h200->baseline_us.value_or(0), 1120.5);
  EXPECT_EQ(h200->timed_calls.value_or(0), 20);
  EXPECT_EQ(h200->torch, "2.11.0+cu130");
  EXPECT_EQ(h200->date, "2026-12-04");
  // null is absent
  const eager_time *other = p.eager_time_for("mkb test double (no GPU)");
  ASSERT_TRUE(other);
  EXPECT_DOUBLE_EQ(other->eager_us, 30.0);
  EXPECT_FALSE(other->graph_us);
  EXPECT_FALSE(other->baseline_us);
  EXPECT_FALSE(other->timed_calls);
}

// The lookup is by the driver's name exactly: another model, or another spelling, has no record.
TEST(EagerTimes, LookupIsByTheExactDeviceName) {
  problem p = load_problem(directory_source(std::filesystem::path(testing::source_dir()) / "tests/spec/data/eager_suite"), "test/tiny");
  EXPECT_FALSE(p.eager_time_for("NVIDIA H100 80GB HBM3"));
  EXPECT_FALSE(p.eager_time_for("nvidia h200"));
  EXPECT_FALSE(p.eager_time_for(""));
}

TEST(EagerTimes, OptionalAndOutsideTheFingerprintedSpec) {
  temp_dir dir;
  write_problem(dir, "test", "tiny", tiny_spec());
  problem without = load_problem(directory_source(dir.path()), "test/tiny");
  EXPECT_TRUE(without.eager_times.empty());
  EXPECT_FALSE(without.eager_time_for("NVIDIA H200"));
  dir.write("test/tiny/eager_times.json", record(R"("gpu": "NVIDIA H200", "eager_us": 5)"));
  problem with = load_problem(directory_source(dir.path()), "test/tiny");
  EXPECT_EQ(with.eager_times.size(), 1u);
  EXPECT_EQ(with.spec_text, without.spec_text);
  // An empty list is a measured nothing, not an error.
  dir.write("test/tiny/eager_times.json", R"({ "records": [] })");
  EXPECT_TRUE(load_problem(directory_source(dir.path()), "test/tiny").eager_times.empty());
}

// The built-in suite reads it through the same file_source: an embedded eager_times.json is loaded.
TEST(EagerTimes, ReadFromAnEmbeddedSuite) {
  const std::string spec = tiny_spec(), reference = "# reference\n";
  const std::string baseline = "extern \"C\" __global__ void k(const float *x, float *y, int n) {}\n"
                               "/* mkb:plan\nlaunch k grid(1) block(1) args(x, y, i32(n))\n*/\n";
  const std::string anchor = "extern \"C\" __global__ void k(const float *x, double *y, int n) {}\n"
                             "/* mkb:plan\nlaunch k grid(1) block(1) args(x, y, i32(n))\n*/\n";
  const std::string eager = record(R"("gpu": "NVIDIA H200", "eager_us": 7.5)");
  const embedded_file files[] = {{"test/tiny/spec.json", spec},
                                 {"test/tiny/reference.md", reference},
                                 {"test/tiny/baseline.cu", baseline},
                                 {"test/tiny/anchor.cu", anchor},
                                 {"test/tiny/eager_times.json", eager}};
  problem p = load_problem(embedded_source(files), "test/tiny");
  ASSERT_TRUE(p.eager_time_for("NVIDIA H200"));
  EXPECT_DOUBLE_EQ(p.eager_time_for("NVIDIA H200")->eager_us, 7.5);
}

TEST(EagerTimes, ErrorsNameFileProblemAndField) {
  std::string e = eager_error(record(R"("gpu": "NVIDIA H200", "eager_us": -3)"));
  EXPECT_NE(e.find("eager_times.json"), std::string::npos) << e;
  EXPECT_NE(e.find("problem 'tiny'"), std::string::npos) << e;
  EXPECT_NE(e.find("records[0].eager_us: -3 must be a positive number"), std::string::npos) << e;
  EXPECT_NE(eager_error(record(R"("eager_us": 3)")).find("records[0].gpu: is required"), std::string::npos);
  EXPECT_NE(eager_error(record(R"("gpu": "", "eager_us": 3)")).find("records[0].gpu: is required"), std::string::npos);
  EXPECT_NE(eager_error(record(R"("gpu": "NVIDIA H200")")).find("records[0].eager_us: is required"), std::string::npos);
  EXPECT_NE(eager_error(record(R"("gpu": "NVIDIA H200", "eager_us": null)")).find("records[0].eager_us: is required"),
            std::string::npos);
  EXPECT_NE(eager_error("{}").find("records: is required"), std::string::npos);
  std::string twice = eager_error(R"({ "records": [ { "gpu": "A", "eager_us": 1 }, { "gpu": "A", "eager_us": 2 } ] })");
  EXPECT_NE(twice.find("records[1].gpu: 'A' has a record already"), std::string::npos) << twice;
}

TEST(EagerTimes, OptionalFieldsAreChecked) {
  const std::string h200 = R"("gpu": "NVIDIA H200", "eager_us": 10, )";
  EXPECT_NE(eager_error(record(h200 + R"("graph_us": 0)")).find("records[0].graph_us: 0 must be a positive number"),
            std::string::npos);
  EXPECT_NE(eager_error(record(h200 + R"("baseline_us": -1)")).find("records[0].baseline_us"), std::string::npos);
  EXPECT_NE(eager_error(record(h200 + R"("spread_pct": -0.5)")).find("records[0].spread_pct"), std::string::npos);
  EXPECT_NE(eager_error(record(h200 + R"("timed_calls": 0)")).find("records[0].timed_calls: 0 must be positive"),
            std::string::npos);
  EXPECT_NE(eager_error(record(h200 + R"("eager_min_us": 11)")).find("records[0].eager_min_us: 11 is above eager_us"),
            std::string::npos);
  EXPECT_NE(eager_error(record(h200 + R"("eager_max_us": 9)")).find("records[0].eager_max_us: 9 is below eager_us"),
            std::string::npos);
  // Zero spread is a measurement, not an error.
  temp_dir dir;
  write_problem(dir, "test", "tiny", tiny_spec(), {{"eager_times.json", record(h200 + R"("spread_pct": 0)")}});
  EXPECT_DOUBLE_EQ(load_problem(directory_source(dir.path()), "test/tiny").eager_times[0].spread_pct.value_or(-1), 0);
}

// Types are the schema's: a value of the wrong type is an error naming the file, the place and the field.
TEST(EagerTimes, WrongTypesNameTheField) {
  std::string number = eager_error(record(R"("gpu": "NVIDIA H200", "eager_us": "fast")"));
  EXPECT_NE(number.find("eager_times.json"), std::string::npos) << number;
  EXPECT_NE(number.find("field 'eager_us'"), std::string::npos) << number;
  std::string name = eager_error(record(R"("gpu": 200, "eager_us": 1)"));
  EXPECT_NE(name.find("field 'gpu'"), std::string::npos) << name;
  std::string date = eager_error(record(R"("gpu": "NVIDIA H200", "eager_us": 1, "date": 20261204)"));
  EXPECT_NE(date.find("field 'date'"), std::string::npos) << date;
  std::string calls = eager_error(record(R"("gpu": "NVIDIA H200", "eager_us": 1, "timed_calls": "many")"));
  EXPECT_NE(calls.find("field 'timed_calls'"), std::string::npos) << calls;
  EXPECT_NE(eager_error("{ not json").find("eager_times.json"), std::string::npos);
}

// Leniency: fields the library does not read are passed over, so the measuring script may add some.
TEST(EagerTimes, UnknownFieldsArePassedOver) {
  temp_dir dir;
  write_problem(dir, "test", "tiny", tiny_spec(),
                {{"eager_times.json", record(R"("gpu": "NVIDIA H200", "eager_us": 3, "host": "node-7", "clocks": [1, 2])")}});
  EXPECT_EQ(load_problem(directory_source(dir.path()), "test/tiny").eager_times.size(), 1u);
}

} // namespace
} // namespace mkb
