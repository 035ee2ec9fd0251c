// The events of one evaluation's timed spans. Queued draws keep pointers to their events until they
// are read, so events live in a deque (stable addresses) and are made only when none is left.
#pragma once

#include <deque>

#include "worker/gpu.hpp"

namespace mkb::worker {

class event_pool {
public:
  // Records a new event on `g`'s stream and returns it; it stays valid as long as the pool.
  event &record(const gpu &g);

private:
  std::deque<event> events_;
  size_t used_ = 0;
};

// Milliseconds between two completed events.
float elapsed_ms(const gpu &g, const event &from, const event &to);

} // namespace mkb::worker
