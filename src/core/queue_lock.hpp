// An exclusive lock shared by every process of one host, granted in arrival order: the GPU's turn.
//
// Each waiter puts a ticket (a file named by its arrival time, held with flock) into `<name>.queue/`
// in the lock folder and waits for the ticket just before its own to go; the head of the queue then
// takes `<name>.lock` with flock, which alone guarantees exclusion (two tickets drawn in the same
// instant still cannot both hold it). The kernel drops a dead process's flocks, so a killed holder
// or waiter never blocks the queue; its leftover ticket is recognised as unheld and removed.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

namespace mkb {

class queue_lock {
public:
  // Waits for the lock `name` (letters, digits, '-', '_' and '.') in `folder` and returns holding it.
  // The folder must exist and be writable: otherwise mkb::error(MKB_ERR_IO) naming it and why, at
  // once (a missing or read-only folder never makes a waiter hang).
  static queue_lock acquire(const std::filesystem::path &folder, const std::string &name);

  queue_lock() = default;
  queue_lock(queue_lock &&other) noexcept;
  queue_lock &operator=(queue_lock &&other) noexcept;
  queue_lock(const queue_lock &) = delete;
  queue_lock &operator=(const queue_lock &) = delete;
  ~queue_lock(); // releases

  bool held() const { return lock_fd_ >= 0; }
  // How long acquire() waited behind others.
  std::chrono::duration<double, std::milli> waited() const { return waited_; }
  void release();

private:
  int lock_fd_ = -1, ticket_fd_ = -1;
  std::filesystem::path ticket_;
  std::chrono::duration<double, std::milli> waited_{0};
};

// The built-in folder of GPU locks shared by every user of the host, /tmp/mkb-gpu-locks, created on
// first use with /tmp's own mode (1777). A folder the user names instead must already exist.
std::filesystem::path builtin_gpu_lock_dir();

} // namespace mkb
