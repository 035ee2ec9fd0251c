#include "eval/worker_pool.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "cuda/nvrtc_compiler.hpp"

namespace mkb {

worker_pool::worker_pool(const std::string &executable, const std::vector<int> &devices) {
  if (devices.empty()) workers_.push_back(std::make_unique<worker_client>(executable, 0));
  for (int d : devices) {
    workers_.push_back(std::make_unique<worker_client>(executable, d));
    compilers_.push_back(std::make_unique<worker_client>(executable, d)); // never opens device d
  }
  for (auto &w : workers_) idle_.push_back(w.get());
  for (auto &c : compilers_) idle_compilers_.push_back(c.get());
}

worker_pool::lease::~lease() {
  if (!pool_) return;
  {
    std::lock_guard lock(pool_->mutex_);
    home_->push_back(client_);
  }
  // Every waiter looks: the one woken might want another architecture.
  pool_->available_.notify_all();
}

worker_pool::lease worker_pool::acquire(const std::string &arch) {
  std::unique_lock lock(mutex_);
  auto fits = [&](const worker_client *c) { return arch.empty() || arch_.at(c) == arch; };
  std::vector<worker_client *>::reverse_iterator found;
  available_.wait(lock, [&] {
    found = std::find_if(idle_.rbegin(), idle_.rend(), fits);
    return found != idle_.rend();
  });
  worker_client *client = *found;
  idle_.erase(std::next(found).base());
  return lease(*this, *client, idle_);
}

worker_pool::lease worker_pool::acquire_compiler() {
  if (compilers_.empty()) return acquire(); // compile-only: its one worker never opens a GPU
  std::unique_lock lock(mutex_);
  available_.wait(lock, [&] { return !idle_compilers_.empty(); });
  worker_client *client = idle_compilers_.back();
  idle_compilers_.pop_back();
  return lease(*this, *client, idle_compilers_);
}

void worker_pool::stop_all() {
  std::unique_lock lock(mutex_);
  available_.wait(lock, [&] { return idle_.size() == workers_.size() && idle_compilers_.size() == compilers_.size(); });
  for (auto &w : workers_) w->stop();
  for (auto &c : compilers_) c->stop();
}

std::string worker_pool::gpu_arch() {
  learn_architectures();
  std::lock_guard lock(mutex_);
  return arch_.at(idle_.empty() ? workers_.front().get() : idle_.back());
}

void worker_pool::learn_architectures() {
  std::lock_guard learning(learning_);
  {
    std::lock_guard lock(mutex_);
    if (arch_.size() == workers_.size()) return;
  }
  // Every worker is taken while they are asked, since a worker answers one request at a time.
  std::vector<lease> taken;
  for (size_t i = 0; i < workers_.size(); ++i) taken.push_back(acquire());
  std::map<const worker_client *, std::string> found;
  for (const lease &worker : taken) {
    worker_status status = worker->ping();
    auto device = std::find_if(status.devices.begin(), status.devices.end(),
                               [&](const device_info &d) { return d.ordinal == worker->device(); });
    if (device == status.devices.end())
      fail(MKB_ERR_WORKER, "the worker for GPU {} cannot see it{}", worker->device(),
           status.driver_error.empty() ? "" : ": " + status.driver_error);
    found[&*worker] = arch_for_compute_capability(device->major, device->minor);
  }
  std::lock_guard lock(mutex_);
  arch_ = std::move(found);
}

} // namespace mkb
