// mkb-worker-double: a TEST DOUBLE of mkb-worker at the GPU boundary. It is the real worker (the same
// request loop, the same NVRTC compilation and plan checks against PTX) with the GPU part replaced:
// instead of running kernels it answers from directives written in the submission's source, so CI
// exercises everything above the GPU on machines without one. Never used outside tests.
//
// Directives, anywhere in the submission text:
//   mkb-double: verdict=NAME      answer this verdict (default "passed")
//   mkb-double: time_us=X         the submission's median time (default 50)
//   mkb-double: baseline_us=Y     the baseline's median time (default 100)
//   mkb-double: crash             abort while "running" (the worker dies)
//   mkb-double: hang              never answer (the library's deadline must kill it)
//   mkb-double: lose-context      answer, then exit as after a fault
//   mkb-double: sleep_ms=N        take N milliseconds on the "GPU" (an evaluation that outlasts a
//                                 deadline, or holds the host's GPU lock that long)
//   mkb-double: print=N           print N numbered lines on stdout and N on stderr while "running"
//                                 (as a kernel's device printf does)
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>

#include "core/names.hpp"
#include "mkb.h"
#include "worker/failure.hpp"
#include "worker/gpu_sharing.hpp"
#include "worker/worker_loop.hpp"

namespace {

using mkb::device_info;
using mkb::evaluation_result;
using mkb::timing_stats;

// The value of `key` in a "mkb-double: key=value other" line of `source`; "yes" for a bare key.
std::string directive(const std::string &source, const std::string &key) {
  for (size_t pos = source.find("mkb-double:"); pos != std::string::npos; pos = source.find("mkb-double:", pos + 1)) {
    size_t end = source.find('\n', pos);
    std::istringstream words(source.substr(pos + 11, end == std::string::npos ? std::string::npos : end - pos - 11));
    for (std::string word; words >> word;) {
      if (word == key) return "yes";
      if (word.rfind(key + "=", 0) == 0) return word.substr(key.size() + 1);
    }
  }
  return {};
}

timing_stats timing(double median) {
  timing_stats t;
  t.samples = 50;
  t.median_us = t.mean_us = median;
  t.min_us = median * 0.99;
  t.max_us = median * 1.02;
  t.q1_us = median * 0.995;
  t.q3_us = median * 1.005;
  t.cv = 0.005;
  return t;
}

class double_loop final : public mkb::worker::worker_loop {
public:
  using worker_loop::worker_loop;

protected:
  std::vector<device_info> devices(int *driver_version) override {
    *driver_version = 13000;
    device_info d;
    d.name = "mkb test double (no GPU)";
    d.ordinal = ordinal(); // the one GPU it pretends to serve, whichever ordinal it was given
    d.uuid = "GPU-00000000-0000-0000-0000-000000000000";
    d.major = 9;
    d.minor = 0;
    d.sm_count = 132;
    d.l2_bytes = 60 << 20;
    d.memory_bytes = 1ull << 37;
    d.sm_clock_khz = 1980000;
    d.memory_clock_khz = 2619000;
    d.memory_bus_bits = 6144;
    return {d};
  }

  evaluation_result evaluate(const mkb::evaluation_request &request,
                             const mkb::worker::progress_callback &progress) override {
    // The real compile-only path: NVRTC, the plan against the PTX. A compile-only request (a compile
    // check) gets its answer, as from the real worker: directives are for runs alone.
    evaluation_result result = mkb::worker::evaluate(nullptr, nullptr, request, progress);
    if (result.verdict != MKB_VERDICT_COMPILED || request.settings.compile_only) return result;
    const std::string &source = request.submission.module.source;
    int driver_version = 0;
    const device_info device = devices(&driver_version).front();
    // The real host-wide GPU lock, held while "running", as the real worker holds it.
    mkb::queue_lock turn;
    progress("queued");
    try {
      turn = mkb::worker::take_gpu_turn(request.settings.gpu_lock_dir, device.uuid);
    } catch (const mkb::worker::evaluation_failure &f) {
      result.verdict = f.verdict();
      result.detail = f.what();
      result.infrastructure_error = true;
      return result;
    }
    result.gpu_wait_ms = turn.waited().count();
    progress("correctness");
    if (std::string lines = directive(source, "print"); !lines.empty())
      for (int i = 0, n = std::atoi(lines.c_str()); i < n; ++i) {
        std::printf("mkb-noise stdout line %d\n", i);
        std::fprintf(stderr, "mkb-noise stderr line %d\n", i);
      }
    if (!directive(source, "crash").empty()) std::abort();
    if (std::string sleep = directive(source, "sleep_ms"); !sleep.empty())
      std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(sleep.c_str())));
    if (!directive(source, "hang").empty())
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    std::string verdict = directive(source, "verdict");
    result.verdict = verdict.empty() ? MKB_VERDICT_PASSED : mkb::verdict_from_name(verdict).value_or(MKB_VERDICT_PASSED);
    result.detail = "answered by the worker test double";
    result.infrastructure_error = result.verdict == MKB_VERDICT_REFUSED;
    result.worker_must_exit = !directive(source, "lose-context").empty();
    result.device = device;
    if (result.verdict == MKB_VERDICT_PASSED) {
      progress("timing");
      std::string time = directive(source, "time_us"), baseline = directive(source, "baseline_us");
      result.submission_time = timing(time.empty() ? 50.0 : std::atof(time.c_str()));
      result.baseline_time = timing(baseline.empty() ? 100.0 : std::atof(baseline.c_str()));
    }
    return result;
  }
};

} // namespace

int main(int argc, char **argv) {
  int ordinal = argc > 2 && std::strcmp(argv[1], "--device") == 0 ? std::atoi(argv[2]) : 0;
  if (fcntl(3, F_GETFD) < 0) {
    std::fprintf(stderr, "mkb-worker-double: no channel on file descriptor 3\n");
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IONBF, 0); // as mkb-worker does
  return double_loop(ordinal).serve();
}
