// The worker's request loop: reads requests from the channel, answers each with one response (after
// any progress messages), and stops when the library closes the channel or after an answer that left
// the CUDA context unusable. The GPU side is virtual so that tests can stand in for it (the test
// double in tests/doubles replaces only evaluate() and devices()).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/worker_messages.hpp"
#include "worker/evaluation.hpp"

namespace mkb::worker {

class worker_loop {
public:
  explicit worker_loop(int ordinal, int channel_fd = 3) : ordinal_(ordinal), channel_fd_(channel_fd) {}
  virtual ~worker_loop();

  // Serves until the channel closes (returns 0). After an answer that lost the CUDA context, ends the
  // process at once with exit_context_lost.
  int serve();
  static constexpr int exit_context_lost = 3;

protected:
  // One evaluation; `progress` sends a stage report to the library.
  virtual evaluation_result evaluate(const evaluation_request &request, const progress_callback &progress);
  // The devices this worker can see; throws with the reason when the driver is missing.
  virtual std::vector<device_info> devices(int *driver_version);
  int ordinal() const { return ordinal_; }

private:
  [[noreturn]] void end_after_lost_context();
  void send(response_body body);
  // Each answers the request with one response (after any progress reports).
  void answer(const unknown_request &request);
  void answer(const ping_request &request);
  void answer(const compile_request &request);
  void answer(const evaluation_request &request);
  void answer(const draw_request &request);
  void open_gpu(const std::string &cache_dir);
  std::string device_arch();

  int ordinal_;
  int channel_fd_;
  uint64_t id_ = 0;
  std::unique_ptr<gpu> gpu_;
  std::unique_ptr<harness_kernels> harness_;
};

} // namespace mkb::worker
