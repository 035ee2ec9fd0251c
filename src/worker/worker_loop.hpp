// The worker's request loop: reads requests from the channel, answers each with one response (after
// any progress messages), and stops when the library closes the channel or after an answer that left
// the CUDA context unusable. The GPU side is virtual so that tests can stand in for it (the test
// double in tests/doubles replaces only evaluate() and devices()).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "wire/codec.hpp"
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
  virtual wire::evaluation_result evaluate(const wire::Evaluate &request, const progress_callback &progress);
  // The devices this worker can see; throws with the reason when the driver is missing.
  virtual std::vector<wire::device_info> devices(int *driver_version);
  int ordinal() const { return ordinal_; }

private:
  [[noreturn]] void end_after_lost_context();
  void send(const std::vector<uint8_t> &frame);
  void answer_failure(const std::string &message);
  void ping();
  void compile(const wire::Compile &request);
  bool answer_evaluate(const wire::Evaluate &request);
  void draw(const wire::Draw &request);
  void open_gpu(const std::string &cache_dir);
  std::string device_arch();

  int ordinal_;
  int channel_fd_;
  uint64_t id_ = 0;
  std::unique_ptr<gpu> gpu_;
  std::unique_ptr<harness_kernels> harness_;
};

} // namespace mkb::worker
