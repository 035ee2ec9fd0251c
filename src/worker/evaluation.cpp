#include "worker/evaluation.hpp"

#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <optional>

#include "core/error.hpp"
#include "core/queue_lock.hpp"
#include "core/random.hpp"
#include "cuda/compile_cache.hpp"
#include "cuda/arch_limits.hpp"
#include "cuda/ptx_entries.hpp"
#include "worker/device_headers.hpp"
#include "worker/draw_runner.hpp"
#include "worker/failure.hpp"
#include "worker/gpu_sharing.hpp"
#include "worker/input_generator.hpp"
#include "worker/loaded_plan.hpp"
#include "worker/problem_audit.hpp"
#include "worker/timing.hpp"

namespace mkb::worker {

namespace {

using clock_type = std::chrono::steady_clock;

double milliseconds_since(clock_type::time_point start) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
}

const char *const role_names[3] = {"submission", "baseline", "anchor"};

class evaluation_run {
public:
  evaluation_run(gpu *g, harness_kernels *harness, const evaluation_request &request, const progress_callback &progress)
      : g_(g), harness_(harness), request_(request), settings_(request.settings), progress_(progress),
        cache_(settings_.cache_dir), codes_{&request.submission, &request.baseline, &request.anchor} {
    result_.seed = request.seed;
    if (g_) result_.device = g_->facts();
  }

  evaluation_result run() {
    auto start = clock_type::now();
    try {
      compile_all();
      if (!g_ || settings_.compile_only) {
        check_plans_against_ptx();
      } else {
        wait_for_gpu();
        load_all();
        stage("allocate");
        runner_.emplace(*g_, *harness_, request_.problem, loaded_, generator_, mix64(request_.seed ^ 0x6c61796f7574ull),
                        timeout(), result_);
        correctness();
        time_submission(*runner_, settings_, request_.seed, result_, [this] { stage("timing"); });
        result_.verdict = MKB_VERDICT_PASSED;
        result_.detail = "correct on every draw";
        if (settings_.audit) {
          stage("audit");
          audit_problem(*runner_, request_.problem, request_.seed,
                        static_cast<int>(request_.baseline.plan.launches.size()), result_);
        }
      }
    } catch (const evaluation_failure &f) {
      result_.verdict = f.verdict();
      result_.detail = f.what();
      result_.infrastructure_error = f.verdict() == MKB_VERDICT_REFUSED;
      result_.worker_must_exit = f.context_lost();
    } catch (const error &e) {
      result_.verdict = e.status() == MKB_ERR_NO_MEMORY ? MKB_VERDICT_OUT_OF_MEMORY : MKB_VERDICT_REFUSED;
      result_.detail = e.what();
      result_.infrastructure_error = result_.verdict == MKB_VERDICT_REFUSED;
    }
    result_.phases.total_ms = milliseconds_since(start);
    return std::move(result_);
  }

private:
  void stage(const std::string &name) {
    result_.stage = name;
    if (progress_) progress_(name);
  }

  std::chrono::milliseconds timeout() const { return std::chrono::milliseconds(settings_.launch_timeout_ms); }

  // The library's choice (the device's, or the configured compile-only target), else the device's own.
  std::string arch() const {
    if (!settings_.arch.empty()) return settings_.arch;
    if (g_) return arch_for_compute_capability(g_->facts().major, g_->facts().minor);
    throw infrastructure_failure("a compile-only evaluation must name the architecture to compile for");
  }

  // Everything that touches the GPU runs while this worker holds the host's lock on it, so that no
  // other libmkb evaluation, in any process, shares the GPU with what is measured (CONTRACT.md).
  void wait_for_gpu() {
    stage("queued");
    const device_facts &d = g_->facts();
    turn_ = take_gpu_turn(settings_.gpu_lock_dir, d.uuid.empty() ? fmt::format("gpu-{}", d.ordinal) : d.uuid);
    result_.gpu_wait_ms = turn_.waited().count();
  }

  void compile_all() {
    stage("compile");
    auto start = clock_type::now();
    const std::string target = arch();
    for (int r = 0; r < 3; ++r) {
      const module_source &m = codes_[r]->module;
      const bool ours = r != submission_role; // the problem's own code may use the harness headers
      cached_compile c = cache_.compile(module_code{m.name, m.source, m.include_dirs, m.ptx}, target,
                                        ours ? problem_headers() : std::vector<extra_header>{});
      result_.compiles.push_back({role_names[r], c.cache_hit, c.output.milliseconds, c.output.log});
      if (!c.output.ok) {
        if (!ours) throw evaluation_failure(MKB_VERDICT_COMPILE_ERROR, "the submission does not compile:\n" + c.output.log);
        throw infrastructure_failure(fmt::format("the problem's {} does not compile:\n{}", role_names[r], c.output.log));
      }
      compiled_[r] = std::move(c.output);
    }
    generator_ = input_generator(g_, harness_, request_.problem, cache_, target, result_.compiles);
    result_.phases.compile_ms = milliseconds_since(start);
  }

  void check_plans_against_ptx() {
    stage("check plans");
    for (int r = 0; r < 3; ++r) {
      auto entries = ptx_entry_parameters(compiled_[r].ptx);
      for (const resolved_launch &l : codes_[r]->plan.launches) {
        if (l.matmul) continue; // a library step, checked when resolved
        auto it = entries.find(l.entry);
        std::string problem;
        if (it == entries.end())
          problem = fmt::format("line {}: the code has no kernel '{}' (declare it extern \"C\" __global__)", l.line, l.entry);
        else
          problem = check_parameter_sizes(l, it->second);
        // Only the dynamic part is known from the plan and the DSL: static shared memory is the GPU's to check.
        if (const int limit = max_shared_per_block_optin(arch());
            problem.empty() && limit > 0 && l.shared_bytes > static_cast<uint32_t>(limit))
          problem = fmt::format("line {}: '{}' asks for {} bytes of dynamic shared memory; {} allows a block at most {}",
                                l.line, l.entry, l.shared_bytes, arch(), limit);
        if (problem.empty()) continue;
        if (r == submission_role) throw evaluation_failure(MKB_VERDICT_LAUNCH_ERROR, "submission plan, " + problem);
        throw infrastructure_failure(fmt::format("the problem's {} plan, {}", role_names[r], problem));
      }
    }
    result_.verdict = MKB_VERDICT_COMPILED;
    result_.detail = fmt::format("compiled for {} and the plan matches the code; not run (no GPU)", arch());
  }

  void load_all() {
    stage("load");
    auto start = clock_type::now();
    for (int r = 0; r < 3; ++r) {
      try {
        loaded_[r] = loaded_plan(*g_, compiled_[r].cubin, codes_[r]->plan, role_names[r]);
      } catch (const evaluation_failure &f) {
        if (r == submission_role) throw;
        throw infrastructure_failure(fmt::format("the problem's {}: {}", role_names[r], f.what()), f.context_lost());
      }
    }
    generator_.load(*g_);
    result_.phases.load_ms = milliseconds_since(start);
  }

  void correctness() {
    stage("correctness");
    auto start = clock_type::now();
    check_gpu(g_->cu().cuCtxResetPersistingL2Cache(), "resetting persisting L2 lines");
    for (int d = 0; d < settings_.draws.correctness_draws; ++d) {
      uint64_t seed = derive_seed(request_.seed, static_cast<uint64_t>(d));
      result_.draw_seeds.push_back(seed);
      runner_->checked({d, -1, seed}, false);
    }
    result_.phases.correctness_ms = milliseconds_since(start);
  }

  gpu *g_;
  harness_kernels *harness_;
  const evaluation_request &request_;
  const run_settings &settings_;
  const progress_callback &progress_;
  compile_cache cache_;
  const role_code *codes_[3];
  compile_output compiled_[3];
  std::array<loaded_plan, 3> loaded_;
  input_generator generator_;
  std::optional<draw_runner> runner_;
  queue_lock turn_; // held from loading to the end of the evaluation
  evaluation_result result_;
};

} // namespace

evaluation_result evaluate(gpu *g, harness_kernels *harness, const evaluation_request &request,
                           const progress_callback &progress) {
  auto run = std::make_unique<evaluation_run>(g, harness, request, progress);
  evaluation_result result = run->run();
  // With the context lost (a kernel still running, or a fault), freeing device memory or unloading a
  // module would wait for the GPU forever. The process is about to end: leave everything to it.
  if (result.worker_must_exit) (void)run.release();
  return result;
}

} // namespace mkb::worker
