// The session's workers, one per GPU, and its compile workers. Evaluations borrow a worker for their
// duration, so several agents can evaluate at once on several GPUs, and queue when all are busy.
// Compile checks (mkb_task_compile) borrow a compile worker: a worker process that is only ever sent
// compile-only requests, so a check neither waits behind an evaluation nor touches a GPU.
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "eval/worker_client.hpp"

namespace mkb {

class worker_pool {
public:
  // One worker per device ordinal, and as many compile workers (started on first use). With no
  // devices (compile-only), one worker that never opens a GPU, which is also the compile worker.
  worker_pool(const std::string &executable, const std::vector<int> &devices);

  class lease {
  public:
    lease(worker_pool &pool, worker_client &client, std::vector<worker_client *> &home)
        : pool_(&pool), client_(&client), home_(&home) {}
    lease(lease &&o) noexcept : pool_(std::exchange(o.pool_, nullptr)), client_(o.client_), home_(o.home_) {}
    lease(const lease &) = delete;
    lease &operator=(const lease &) = delete;
    ~lease();
    worker_client &operator*() const { return *client_; }
    worker_client *operator->() const { return client_; }

  private:
    worker_pool *pool_;
    worker_client *client_;
    std::vector<worker_client *> *home_; // the idle list it goes back to
  };

  // Waits until a worker is free; with `arch`, one whose GPU has that architecture (gpu_arch()).
  lease acquire(const std::string &arch = "");
  // Waits until a compile worker is free. Send it compile-only requests alone.
  lease acquire_compiler();
  size_t size() const { return workers_.size(); }
  void stop_all();

  // The architecture ("sm_90a", "sm_100a") to compile for so that a worker can run the code soon: an
  // idle worker's GPU's, else any's. Code is compiled before a worker is taken (a Python DSL takes up
  // to a minute), so the architectures are asked of the workers' devices once, up front. Throws
  // mkb::error(MKB_ERR_WORKER) when a worker cannot tell (no driver, the GPU is not there).
  std::string gpu_arch();

private:
  void learn_architectures();

  std::vector<std::unique_ptr<worker_client>> workers_, compilers_; // compilers_: empty when compile-only
  std::vector<worker_client *> idle_, idle_compilers_;
  std::map<const worker_client *, std::string> arch_; // learned once, then read only
  std::mutex learning_;                               // held while the architectures are learned
  std::mutex mutex_;
  std::condition_variable available_;
};

} // namespace mkb
