#include "worker/timing.hpp"

#include <chrono>
#include <cmath>
#include <set>

#include "core/random.hpp"
#include "core/statistics.hpp"
#include "cuda_loaders/nvml_api.hpp"
#include "worker/gpu_sharing.hpp"

namespace mkb::worker {

bool stopping_criterion::precise(const std::vector<double> &samples) const {
  sample_summary s = summarize(samples);
  if (s.count < 2 || s.median <= 0) return true;
  double sigma = (s.q3 - s.q1) / 1.349;
  double standard_error = 1.2533 * sigma / std::sqrt(static_cast<double>(s.count));
  return standard_error / s.median <= target_rel_spread_ / 5;
}

bool stopping_criterion::extend(const std::vector<std::vector<double> *> &samples) {
  if (target_ >= maximum_) return false;
  for (const std::vector<double> *s : samples)
    if (!precise(*s)) {
      target_ = std::min(maximum_, target_ + batch);
      return true;
    }
  return false;
}

namespace {

using clock_type = std::chrono::steady_clock;

timing_stats summarize_samples(const std::vector<double> &samples) {
  sample_summary s = summarize(samples);
  timing_stats t;
  t.samples = static_cast<int>(s.count);
  t.median_us = s.median;
  t.min_us = s.min;
  t.max_us = s.max;
  t.q1_us = s.q1;
  t.q3_us = s.q3;
  t.mean_us = s.mean;
  t.cv = s.cv;
  t.times_us.assign(samples.begin(), samples.end());
  return t;
}

// One timing of the submission and the baseline. Draw seeds continue across repeated timings.
class timing_pass {
public:
  timing_pass(draw_runner &runner, const run_settings &settings, uint64_t seed, uint64_t &seeds_used,
              evaluation_result &result)
      : runner_(runner), settings_(settings), seed_(seed), seeds_used_(seeds_used), result_(result) {}

  void run() {
    auto start = clock_type::now();
    auto nvml = nvml_device::open(runner_.device().facts().uuid);
    if (nvml)
      if (auto c = nvml->read()) {
        result_.clocks.available = true;
        result_.clocks.sm_mhz_before = c->sm_mhz;
      }
    const int planned = settings_.draws.timed_draws;
    // Which timed draws of the submission are verified again: secret, fixed before any runs.
    splitmix64 choose(mix64(seed_ ^ 0x7265766572696679ull));
    std::set<int> reverify;
    while (static_cast<int>(reverify.size()) < std::min(settings_.draws.reverify_draws, planned))
      reverify.insert(static_cast<int>(choose.below(static_cast<uint64_t>(planned))));
    result_.reverified.assign(reverify.begin(), reverify.end());

    // Alternate which runs first so that neither always follows the other's flush and clock state.
    auto order = [](int i, int k) { return (i + k) % 2; };
    for (int i = 0; i < settings_.draws.warmup_draws; ++i)
      for (int k = 0; k < 2; ++k)
        if (int r = order(i, k); r == submission_role || settings_.time_baseline) queue_timed(r);
    runner_.device().synchronize(runner_.timeout(), "the warm-up draws");
    pending_[0].clear();
    pending_[1].clear();

    stopping_criterion stop(planned, settings_.draws.max_timed_draws, settings_.draws.target_rel_spread);
    for (int i = 0; i < stop.target(); ++i) {
      for (int k = 0; k < 2; ++k) {
        int r = order(i, k);
        if (r == baseline_role && !settings_.time_baseline) continue;
        if (r == submission_role && reverify.count(i)) {
          drain_all();
          samples_[0].push_back(*runner_.checked({-1, i, next_seed()}, true));
          continue;
        }
        queue_timed(r);
      }
      if (i + 1 == stop.target()) {
        drain_all();
        std::vector<std::vector<double> *> judged{&samples_[0]};
        if (settings_.time_baseline) judged.push_back(&samples_[1]);
        stop.extend(judged);
      }
    }
    result_.phases.gpu_busy_ms += runner_.take_busy_ms();
    result_.phases.generation_ms += runner_.take_generation_ms();
    result_.submission_time = summarize_samples(samples_[0]);
    if (settings_.time_baseline) result_.baseline_time = summarize_samples(samples_[1]);
    if (nvml)
      if (auto c = nvml->read()) {
        result_.clocks.sm_mhz_after = c->sm_mhz;
        result_.clocks.memory_mhz = c->memory_mhz;
        result_.clocks.temperature_c = c->temperature_c;
        result_.clocks.throttle_reasons = c->throttle_reasons;
      }
    result_.phases.timing_ms += std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
  }

private:
  uint64_t next_seed() { return derive_seed(seed_, 1000 + seeds_used_++); }

  void queue_timed(int role) {
    std::vector<timed_span> &pending = pending_[role];
    pending.push_back(runner_.timed(role, next_seed()));
    // Keep at most two draws queued: the GPU never waits for the host, and a hang is noticed early.
    if (pending.size() >= 3)
      runner_.device().wait(pending[pending.size() - 3].second->get(), runner_.timeout(),
                            role == submission_role ? "a timed draw" : "a timed baseline draw");
  }

  // Waits for every queued timed draw and records its sample.
  void drain_all() {
    for (int role : {submission_role, baseline_role}) {
      for (auto &[start, end] : pending_[role]) {
        runner_.device().wait(end->get(), runner_.timeout(), "a timed draw");
        samples_[role].push_back(1000.0 * elapsed_ms(runner_.device(), *start, *end));
      }
      pending_[role].clear();
    }
  }

  draw_runner &runner_;
  const run_settings &settings_;
  uint64_t seed_;
  uint64_t &seeds_used_;
  evaluation_result &result_;
  std::vector<double> samples_[2];
  std::vector<timed_span> pending_[2];
};

} // namespace

void time_submission(draw_runner &runner, const run_settings &settings, uint64_t seed, evaluation_result &result,
                     const std::function<void()> &starting) {
  contention_watch watch(runner.device().facts().uuid);
  uint64_t seeds_used = 0;
  for (int discarded = 0;; ++discarded) {
    if (starting) starting();
    watch.begin();
    timing_pass(runner, settings, seed, seeds_used, result).run();
    contention_seen seen = watch.finish();
    result.contention = {seen.checked, seen.unavailable, seen.contended(), discarded, seen.busy};
    if (!seen.contended() || discarded >= settings.contention_retries) break;
  }
}

} // namespace mkb::worker
