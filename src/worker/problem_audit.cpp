#include "worker/problem_audit.hpp"

#include <cmath>
#include <cstring>

#include "core/random.hpp"
#include "core/statistics.hpp"

namespace mkb::worker {

namespace {

using bytes = std::vector<unsigned char>;

// `count` elements of `type` converted from `source` (elements of `from`), repeated as needed.
bytes converted(const bytes &source, dtype from, dtype type, uint64_t count) {
  const size_t in_size = dtype_bytes(from), out_size = dtype_bytes(type);
  const uint64_t in_count = source.size() / in_size;
  bytes out(count * out_size);
  for (uint64_t i = 0; i < count; ++i)
    encode_element(type, decode_element(from, &source[(i % in_count) * in_size]), &out[i * out_size]);
  return out;
}

// Axes along which `data` (the anchor's output `t`) never changes.
std::vector<int> constant_axes(const tensor_spec &t, const bytes &data) {
  std::vector<int> axes;
  const size_t size = dtype_bytes(anchor_type(t));
  uint64_t stride = t.count;
  for (size_t axis = 0; axis < t.shape.size(); ++axis) {
    const uint64_t extent = static_cast<uint64_t>(t.shape[axis]);
    stride /= extent;
    if (extent < 2) continue;
    bool constant = true;
    for (uint64_t e = 0; e + stride < t.count && constant; ++e)
      if ((e / stride) % extent != extent - 1) constant = std::memcmp(&data[e * size], &data[(e + stride) * size], size) == 0;
    if (constant) axes.push_back(static_cast<int>(axis));
  }
  return axes;
}

class problem_audit {
public:
  problem_audit(draw_runner &runner, const problem_instance &problem, audit_result &audit)
      : runner_(runner), g_(runner.device()), problem_(problem), audit_(audit) {}

  // The baseline and the anchor of one draw, finished; returns the anchor's outputs.
  std::vector<bytes> anchor_outputs(uint64_t seed) {
    runner_.reference_and_anchor(seed);
    std::vector<bytes> anchors;
    for (size_t o = 0; o < problem_.outputs.size(); ++o)
      anchors.push_back(download(runner_.workspace().anchor_output(o), runner_.workspace().anchor_bytes(o),
                                 "reading the anchor for the audit"));
    return anchors;
  }

  void degenerate_outputs(const std::vector<bytes> &anchors) {
    std::vector<bytes> inputs;
    for (size_t i = 0; i < problem_.inputs.size(); ++i)
      inputs.push_back(download(runner_.workspace().input(i), problem_.inputs[i].bytes(), "reading an input for the audit"));
    for (size_t o = 0; o < problem_.outputs.size(); ++o) {
      const tensor_spec &t = problem_.outputs[o];
      const dtype at = anchor_type(t);
      judge_degenerate(o, "zeros", bytes(t.bytes(), 0));
      if (t.aliases.empty()) judge_degenerate(o, "unwritten", bytes(t.bytes(), poison_byte(t.type)));
      double sum = 0;
      for (uint64_t e = 0; e < t.count; ++e) sum += decode_element(at, &anchors[o][e * dtype_bytes(at)]);
      bytes mean(dtype_bytes(t.type));
      encode_element(t.type, sum / static_cast<double>(t.count), mean.data());
      judge_degenerate(o, "anchor mean", converted(mean, t.type, t.type, t.count));
      for (size_t i = 0; i < problem_.inputs.size(); ++i) {
        const tensor_spec &in = problem_.inputs[i];
        if (t.equals_input == in.name) continue; // a copy is the right answer (the spec says so)
        std::string kind = "copy of " + in.name;
        if (t.aliases == in.name) kind += " (left unwritten in place)";
        judge_degenerate(o, kind, converted(inputs[i], in.type, t.type, t.count));
      }
    }
  }

  double empty_launch_us() {
    std::vector<double> samples;
    for (int i = 0; i < 60; ++i) {
      runner_.flush_l2();
      const event &start = runner_.events().record(g_);
      runner_.harness().launch_empty();
      const event &end = runner_.events().record(g_);
      g_.wait(end.get(), runner_.timeout(), "an empty launch");
      if (i >= 10) samples.push_back(1000.0 * elapsed_ms(g_, start, end));
    }
    return summarize(samples).median;
  }

private:
  bytes download(CUdeviceptr from, size_t size, const char *what) {
    bytes host(size);
    check_gpu(g_.cu().cuMemcpyDtoHAsync(host.data(), from, size, g_.stream()), what);
    g_.synchronize(runner_.timeout(), what);
    return host;
  }

  // Writes `fill` (t.count elements of t's dtype) as the submission's output `o`, compares it, and
  // records whether the rule rejects it, as it must.
  void judge_degenerate(size_t o, const std::string &kind, const bytes &fill) {
    const tensor_spec &t = problem_.outputs[o];
    check_gpu(g_.cu().cuMemcpyHtoDAsync(runner_.workspace().result_of(submission_role, o), fill.data(), fill.size(),
                                        g_.stream()),
              "writing a degenerate output");
    runner_.judge().compare_output(o);
    const stat_block s = runner_.harness().read_stats(runner_.timeout(), "comparing a degenerate output")[o];
    degenerate_check c{t.name, kind, 0, 0, false};
    if (t.comparison == spec::Comparison::anchor) {
      c.error = s[output_nan] ? NAN : stat_as_double(s[max_error]);
      c.allowance = allowance_of(s, t);
      c.failed = s[output_nan] > 0 || c.error > c.allowance;
    } else {
      c.error = static_cast<double>(s[mismatches]);
      c.failed = s[mismatches] > 0;
    }
    audit_.degenerate.push_back(std::move(c));
  }

  draw_runner &runner_;
  gpu &g_;
  const problem_instance &problem_;
  audit_result &audit_;
};

} // namespace

void audit_problem(draw_runner &runner, const problem_instance &problem, uint64_t seed, int baseline_launches,
                   evaluation_result &result) {
  audit_result &a = result.audit;
  a.present = true;
  a.baseline_launches = baseline_launches;
  problem_audit audit(runner, problem, a);
  std::vector<bytes> first = audit.anchor_outputs(derive_seed(seed, 3000));
  audit.degenerate_outputs(first);
  std::vector<bytes> second = audit.anchor_outputs(derive_seed(seed, 3001));
  for (size_t o = 0; o < problem.outputs.size(); ++o)
    a.sensitivity.push_back({problem.outputs[o].name, first[o] != second[o], constant_axes(problem.outputs[o], first[o])});
  a.empty_launch_us = audit.empty_launch_us();
}

} // namespace mkb::worker
