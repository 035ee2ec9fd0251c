// How the worker ends an evaluation early: a verdict for the submission, or an infrastructure
// failure that is the harness's fault (the submission is then not counted).
#pragma once

#include <stdexcept>
#include <string>

#include "mkb.h"

namespace mkb::worker {

class evaluation_failure : public std::runtime_error {
public:
  evaluation_failure(int verdict, const std::string &detail, bool context_lost = false)
      : std::runtime_error(detail), verdict_(verdict), context_lost_(context_lost) {}
  int verdict() const { return verdict_; }
  // The CUDA context can no longer be used: the worker answers, then exits to be replaced.
  bool context_lost() const { return context_lost_; }

private:
  int verdict_;
  bool context_lost_;
};

// How the refusal of a problem larger than the GPU's whole memory begins (draw_workspace.hpp), so that
// a caller can tell it from other infrastructure failures.
inline constexpr const char *gpu_too_small = "this GPU cannot hold the problem";

// An infrastructure failure: the harness could not do its part (REFUSED, not counted).
inline evaluation_failure infrastructure_failure(const std::string &detail, bool context_lost = false) {
  return evaluation_failure(MKB_VERDICT_REFUSED, detail, context_lost);
}

} // namespace mkb::worker
