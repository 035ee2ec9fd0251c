#include "worker/event_pool.hpp"

namespace mkb::worker {

event &event_pool::record(const gpu &g) {
  if (used_ == events_.size()) events_.push_back(event::create());
  event &e = events_[used_++];
  check_gpu(g.cu().cuEventRecord(e.get(), g.stream()), "recording an event");
  return e;
}

float elapsed_ms(const gpu &g, const event &from, const event &to) {
  float ms = 0;
  check_gpu(g.cu().cuEventElapsedTime(&ms, from.get(), to.get()), "reading an event");
  return ms;
}

} // namespace mkb::worker
