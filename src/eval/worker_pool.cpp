#include "eval/worker_pool.hpp"

namespace mkb {

worker_pool::worker_pool(const std::string &executable, const std::vector<int> &devices) {
  if (devices.empty()) workers_.push_back(std::make_unique<worker_client>(executable, 0));
  for (int d : devices) workers_.push_back(std::make_unique<worker_client>(executable, d));
  for (auto &w : workers_) idle_.push_back(w.get());
}

worker_pool::lease::~lease() {
  if (!pool_) return;
  {
    std::lock_guard lock(pool_->mutex_);
    pool_->idle_.push_back(client_);
  }
  pool_->available_.notify_one();
}

worker_pool::lease worker_pool::acquire() {
  std::unique_lock lock(mutex_);
  available_.wait(lock, [&] { return !idle_.empty(); });
  worker_client *client = idle_.back();
  idle_.pop_back();
  return lease(*this, *client);
}

void worker_pool::stop_all() {
  std::unique_lock lock(mutex_);
  available_.wait(lock, [&] { return idle_.size() == workers_.size(); });
  for (auto &w : workers_) w->stop();
}

} // namespace mkb
