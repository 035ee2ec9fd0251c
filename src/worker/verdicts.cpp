#include "worker/verdicts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "worker/failure.hpp"

namespace mkb::worker {

namespace {

std::vector<int64_t> coordinates(const tensor_spec &t, uint64_t flat) {
  std::vector<int64_t> coords(t.shape.size());
  for (size_t axis = t.shape.size(); axis-- > 0;) {
    coords[axis] = static_cast<int64_t>(flat % static_cast<uint64_t>(t.shape[axis]));
    flat /= static_cast<uint64_t>(t.shape[axis]);
  }
  return coords;
}

std::string format_coords(const std::vector<int64_t> &coords) { return fmt::format("[{}]", fmt::join(coords, ", ")); }

// A wrong value in a correctness draw is WRONG_ANSWER; in a timed draw verified again, INCONSISTENT.
int wrong_verdict(const draw_label &label) {
  return label.reverified() ? MKB_VERDICT_INCONSISTENT : MKB_VERDICT_WRONG_ANSWER;
}

} // namespace

std::string draw_label::text() const {
  return reverified() ? fmt::format("timed draw {} (re-verified)", timed_draw) : fmt::format("draw {}", draw);
}

double allowance_of(const stat_block &s, const tensor_spec &t) {
  return 3.0 * std::max(stat_as_double(s[reference_error]), dtype_epsilon(t.type) * stat_as_double(s[anchor_max]));
}

output_judge::output_judge(gpu &g, harness_kernels &harness, const problem_instance &problem,
                           const draw_workspace &workspace, std::chrono::milliseconds timeout, evaluation_result &result)
    : g_(&g), harness_(&harness), problem_(&problem), workspace_(&workspace), timeout_(timeout), result_(&result) {}

void output_judge::compare_output(size_t o) const {
  const tensor_spec &t = problem_->outputs[o];
  harness_->reset_stats(o);
  CUdeviceptr anchor = workspace_->anchor_output(o);
  CUdeviceptr submitted = workspace_->result_of(submission_role, o);
  if (t.comparison == spec::Comparison::anchor) {
    harness_->compare_anchor(submitted, workspace_->result_of(baseline_role, o), anchor, t, o);
  } else if (t.comparison == spec::Comparison::exact) {
    harness_->compare_exact(submitted, anchor, t, o);
  } else {
    const driver_api &cu = g_->cu();
    const auto &copies = workspace_->sort_buffers(o);
    check_gpu(cu.cuMemcpyDtoDAsync(copies[0].get(), submitted, t.bytes(), g_->stream()), "copying for sorting");
    check_gpu(cu.cuMemcpyDtoDAsync(copies[1].get(), anchor, t.bytes(), g_->stream()), "copying for sorting");
    harness_->sort_rows(copies[0].get(), t);
    harness_->sort_rows(copies[1].get(), t);
    harness_->compare_exact(copies[0].get(), copies[1].get(), t, o);
  }
}

void output_judge::judge(const std::vector<stat_block> &stats, const draw_label &label) {
  const std::string where = label.text();
  if (uint64_t first = stats[guard_block()][first_index]; first != no_index) {
    const guard_region &r = *workspace_->submission_guards()[first >> 32];
    throw evaluation_failure(MKB_VERDICT_OUT_OF_BOUNDS,
                             fmt::format("{}: the submission wrote into the guard region {} (byte {} of it)", where,
                                         r.description, (first & 0xffffffffu) * 4));
  }
  for (auto &[i, buffers] : workspace_->digests())
    if (uint64_t chunk = stats[input_block(i)][first_index]; chunk != no_index)
      throw evaluation_failure(MKB_VERDICT_INPUT_MODIFIED,
                               fmt::format("{}: the submission changed input '{}', which is not writable (first change "
                                           "in bytes {}..{})",
                                           where, problem_->inputs[i].name, chunk * 4096, chunk * 4096 + 4095));
  for (size_t o = 0; o < problem_->outputs.size(); ++o) {
    const tensor_spec &t = problem_->outputs[o];
    const stat_block &s = stats[o];
    output_check &summary = check_for(t.name);
    if (t.comparison == spec::Comparison::anchor) {
      if (s[anchor_nonfinite])
        throw infrastructure_failure(fmt::format("the anchor produced {} non-finite values in '{}'", s[anchor_nonfinite], t.name));
      if (s[reference_nan])
        throw infrastructure_failure(fmt::format("the baseline produced {} NaN values in '{}'", s[reference_nan], t.name));
      double error = stat_as_double(s[max_error]);
      double allowance = allowance_of(s, t);
      summary.max_error = std::max(summary.max_error, s[output_nan] ? NAN : error);
      summary.allowance = summary.allowance == 0 ? allowance : std::min(summary.allowance, allowance);
      summary.reference_error = std::max(summary.reference_error, stat_as_double(s[reference_error]));
      summary.anchor_max = std::max(summary.anchor_max, stat_as_double(s[anchor_max]));
      if (s[output_nan] == 0 && error <= allowance) continue;
      summary.passed = false;
      report_mismatch(o, allowance, label);
    } else if (s[mismatches]) {
      summary.passed = false;
      report_exact_mismatch(o, s, label);
    }
  }
}

output_check &output_judge::check_for(const std::string &name) {
  for (output_check &c : result_->checks)
    if (c.name == name) return c;
  result_->checks.push_back({name, 0, 0, 0, 0, true});
  return result_->checks.back();
}

double output_judge::read_element(CUdeviceptr base, uint64_t index, dtype type) const {
  unsigned char bytes[8] = {};
  size_t size = dtype_bytes(type);
  check_gpu(g_->cu().cuMemcpyDtoHAsync(bytes, base + index * size, size, g_->stream()), "reading a mismatch");
  g_->synchronize(timeout_, "reading a mismatch");
  return decode_element(type, bytes);
}

void output_judge::record_mismatch(size_t o, const draw_label &label, uint64_t flat_index) {
  mismatch_info &m = result_->mismatch;
  m.present = true;
  m.output = problem_->outputs[o].name;
  m.draw = label.draw;
  m.timed_draw = label.timed_draw;
  m.flat_index = flat_index;
  m.coords = coordinates(problem_->outputs[o], flat_index);
}

void output_judge::report_mismatch(size_t o, double allowance, const draw_label &label) {
  const tensor_spec &t = problem_->outputs[o];
  harness_->reset_stats(o);
  harness_->find_mismatch(workspace_->result_of(submission_role, o), workspace_->anchor_output(o), t, allowance, o);
  const stat_block s = harness_->read_stats(timeout_, "locating a mismatch")[o];
  record_mismatch(o, label, s[first_index] == no_index ? 0 : s[first_index]);
  mismatch_info &m = result_->mismatch;
  m.value = read_element(workspace_->result_of(submission_role, o), m.flat_index, t.type);
  m.anchor = read_element(workspace_->anchor_output(o), m.flat_index, dtype::fp64);
  m.allowance = allowance;
  m.excess = std::fabs(m.value - m.anchor) - allowance;
  m.kind = std::isnan(m.value) ? "nan" : "value";
  std::string value_text = std::isnan(m.value) ? "NaN (outputs are NaN before each run: was it written?)"
                                                : fmt::format("{:.6g}", m.value);
  throw evaluation_failure(wrong_verdict(label),
                           fmt::format("{} (seed {:#x}): output '{}' at index {} {}: {} but the anchor is {:.6g} "
                                       "(allowance {:.3g}{}); {} of {} elements fail",
                                       label.text(), label.seed, t.name, m.flat_index, format_coords(m.coords),
                                       value_text, m.anchor, allowance,
                                       std::isnan(m.value) ? "" : fmt::format(", off by {:.3g}", std::fabs(m.value - m.anchor)),
                                       s[mismatches], t.count));
}

void output_judge::report_exact_mismatch(size_t o, const stat_block &s, const draw_label &label) {
  const tensor_spec &t = problem_->outputs[o];
  const bool sorted = t.comparison == spec::Comparison::exact_sorted;
  CUdeviceptr out = sorted ? workspace_->sort_buffers(o)[0].get() : workspace_->result_of(submission_role, o);
  CUdeviceptr anchor = sorted ? workspace_->sort_buffers(o)[1].get() : workspace_->anchor_output(o);
  record_mismatch(o, label, s[first_index]);
  mismatch_info &m = result_->mismatch;
  m.kind = "integer";
  m.value = read_element(out, m.flat_index, t.type);
  m.anchor = read_element(anchor, m.flat_index, t.type);
  throw evaluation_failure(wrong_verdict(label),
                           fmt::format("{}: output '{}'{} at index {} {}: {} but the anchor is {} ({} of {} elements "
                                       "differ; integers must match exactly)",
                                       label.text(), t.name, sorted ? " (rows sorted)" : "", m.flat_index,
                                       format_coords(m.coords), m.value, m.anchor, s[mismatches], t.count));
}

} // namespace mkb::worker
