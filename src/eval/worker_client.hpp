// The library's side of one GPU worker process: starts it on first use, sends a request, waits for
// the answer under a deadline (reading progress messages meanwhile), and replaces the process when it
// dies, hangs past the deadline, or reports that its CUDA context is lost. The worker's stdout and
// stderr come to the client, never to the embedding program's own descriptors.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/process.hpp"
#include "model/worker_messages.hpp"

namespace mkb {

// Where mkb-worker is: `configured`, $MKB_WORKER, then next to the binary holding libmkb
// (../libexec, ../bin, same folder). Throws mkb::error(MKB_ERR_WORKER) listing the places tried.
std::string find_worker_executable(const std::string &configured);

struct worker_reply {
  enum status_t { answered, timed_out, died } status = answered;
  response_body answer;            // the final answer when answered
  std::string last_stage;          // the last progress stage reported
  std::string how_it_ended;        // "killed by signal 9", ... when timed_out or died
  std::string output;              // what the worker printed meanwhile (device printf included), its
                                   // last 64 KiB as valid UTF-8; "" when nothing
};

class worker_client {
public:
  // `device` is the GPU ordinal the worker serves.
  worker_client(std::string executable, int device);
  worker_client(const worker_client &) = delete;
  worker_client &operator=(const worker_client &) = delete;

  // How long a stage may take, from the moment the worker reported it ("" before any report).
  using stage_budget = std::function<std::chrono::milliseconds(const std::string &stage)>;

  // One request at a time per worker (callers serialize through the pool). The worker is killed when
  // a stage overruns its budget. Throws mkb::error(MKB_ERR_WORKER) only when it cannot be started.
  worker_reply request(request_body body, const stage_budget &budget);
  worker_reply request(request_body body, std::chrono::milliseconds deadline) {
    return request(std::move(body), [deadline](const std::string &) { return deadline; });
  }

  worker_status ping(std::chrono::milliseconds deadline = std::chrono::seconds(60));
  int device() const { return device_; }
  // Kills the process; the next request starts a new one.
  void stop();
  int restarts() const { return restarts_; }

private:
  void ensure_started();
  worker_reply exchange(const std::vector<uint8_t> &frame, const stage_budget &budget);

  std::string executable_;
  int device_;
  child_process child_;
  uint64_t next_id_ = 0;
  int restarts_ = 0;
  bool started_once_ = false;
};

} // namespace mkb
