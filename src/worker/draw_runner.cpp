#include "worker/draw_runner.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace mkb::worker {

namespace {

// The inputs, and the submission's and baseline's outputs, rotate over this many layouts (fewer where
// they would not fit: slots_that_fit), and every buffer the submission can reach shifts within this many
// bytes: no buffer keeps its address.
constexpr int rotating_slots = 3;
constexpr size_t address_shift = 64 << 10;

int slots_for(const gpu &g, const problem_instance &problem, std::array<const resolved_plan *, 3> plans) {
  size_t free_bytes = 0, total_bytes = 0;
  check_gpu(g.cu().cuMemGetInfo(&free_bytes, &total_bytes), "reading the free device memory");
  const workspace_footprint footprint = footprint_of(problem, plans);
  require_room_for_the_problem(footprint, total_bytes);
  return slots_that_fit(footprint, free_bytes, rotating_slots);
}

} // namespace

draw_runner::draw_runner(gpu &g, harness_kernels &harness, const problem_instance &problem,
                         const std::array<loaded_plan, 3> &loaded, const input_generator &generator, uint64_t layout_seed,
                         std::chrono::milliseconds timeout, evaluation_result &result)
    : g_(&g), harness_(&harness), problem_(&problem), loaded_(&loaded), generator_(&generator), timeout_(timeout),
      result_(&result), layout_random_(layout_seed),
      workspace_(problem, {&loaded[0].plan(), &loaded[1].plan(), &loaded[2].plan()},
                 slots_for(g, problem, {&loaded[0].plan(), &loaded[1].plan(), &loaded[2].plan()}), address_shift),
      judge_(g, harness, problem, workspace_, timeout, result),
      flush_(std::max<size_t>(size_t(2) * g.facts().l2_bytes, 8 << 20)) {
  harness.reserve_stats(judge_.block_count());
}

void draw_runner::flush_l2() const {
  check_gpu(g_->cu().cuMemsetD32Async(flush_.get(), 0x5a5a5a5au, flush_.size() / 4, g_->stream()), "flushing L2");
}

void draw_runner::generate_inputs(uint64_t seed, bool writable_only) {
  generator_->generate(workspace_.input_layout(), seed, writable_only);
}

void draw_runner::hash_inputs(int which, uint64_t hash_seed) {
  for (auto &[i, buffers] : workspace_.digests())
    harness_->hash_chunks(workspace_.input(i), problem_->inputs[i].bytes(), hash_seed, buffers[which].get());
}

void draw_runner::run(int role) {
  (*loaded_)[role].enqueue(*g_, [&](const std::string &name) { return workspace_.address(role, name); });
}

std::optional<double> draw_runner::checked(const draw_label &label, bool timed) {
  const uint64_t hash_seed = mix64(label.seed ^ 0x68617368ull);
  const event &begin = events_.record(*g_);
  workspace_.new_layouts(layout_random_);
  generate_inputs(label.seed, false);
  hash_inputs(0, hash_seed);
  workspace_.prepare_outputs(*g_, submission_role);
  workspace_.fill_submission_guards(*g_);
  const event *start = nullptr, *end = nullptr;
  if (timed) {
    flush_l2();
    start = &events_.record(*g_);
  }
  run(submission_role);
  if (timed) end = &events_.record(*g_);
  // Waiting here pins a fault or a hang on the submission rather than on the checks queued after it.
  g_->synchronize(timeout_, timed ? fmt::format("the submission in timed draw {}", label.timed_draw)
                                  : fmt::format("the submission in draw {}", label.draw));
  // Checks on what the submission did.
  harness_->reset_stats(judge_.guard_block());
  harness_->check_guards(workspace_.submission_guards(), judge_.guard_block());
  hash_inputs(1, hash_seed);
  for (auto &[i, buffers] : workspace_.digests()) {
    harness_->reset_stats(judge_.input_block(i));
    harness_->compare_digests(buffers[0].get(), buffers[1].get(),
                              harness_kernels::digest_count(problem_->inputs[i].bytes()), judge_.input_block(i));
  }
  workspace_.copy_in_place_results(*g_, submission_role);
  queue_reference_and_anchor(label.seed);
  for (size_t o = 0; o < problem_->outputs.size(); ++o) judge_.compare_output(o);
  const event &finish = events_.record(*g_);
  // A copy: judging may read the statistics again to locate a mismatch.
  const std::vector<stat_block> stats = harness_->read_stats(
      timeout_, timed ? fmt::format("timed draw {}", label.timed_draw) : fmt::format("draw {}", label.draw));
  result_->phases.gpu_busy_ms += elapsed_ms(*g_, begin, finish);
  judge_.judge(stats, label);
  if (!timed) return std::nullopt;
  return 1000.0 * elapsed_ms(*g_, *start, *end);
}

// The baseline at the inputs' own dtypes, then the float64 anchor, each on pristine inputs (the
// writable ones generated again from `seed`).
void draw_runner::queue_reference_and_anchor(uint64_t seed) {
  generate_inputs(seed, true);
  workspace_.prepare_outputs(*g_, baseline_role);
  run(baseline_role);
  workspace_.copy_in_place_results(*g_, baseline_role);
  generate_inputs(seed, true);
  workspace_.prepare_outputs(*g_, anchor_role);
  run(anchor_role);
}

void draw_runner::reference_and_anchor(uint64_t seed) {
  workspace_.new_layouts(layout_random_);
  generate_inputs(seed, false);
  queue_reference_and_anchor(seed);
}

timed_span draw_runner::timed(int role, uint64_t seed) {
  const event &begin = events_.record(*g_);
  workspace_.new_layouts(layout_random_);
  generate_inputs(seed, false);
  const event &generated = events_.record(*g_);
  workspace_.prepare_outputs(*g_, role);
  flush_l2();
  const event &start = events_.record(*g_);
  run(role);
  const event &end = events_.record(*g_);
  busy_spans_.push_back({&begin, &end});
  generation_spans_.push_back({&begin, &generated});
  return {&start, &end};
}

double draw_runner::take_busy_ms() {
  double total = 0;
  for (auto &[from, to] : busy_spans_) total += elapsed_ms(*g_, *from, *to);
  busy_spans_.clear();
  return total;
}

double draw_runner::take_generation_ms() {
  double total = 0;
  for (auto &[from, to] : generation_spans_) total += elapsed_ms(*g_, *from, *to);
  generation_spans_.clear();
  return total;
}

} // namespace mkb::worker
