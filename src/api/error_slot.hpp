// The error text of a C API handle, one text per calling thread (mkb.h, Conventions): concurrent callers
// of one session each read the text of their own last call.
//
// Threads are told apart by a number given to each thread on its first use, never reused (a
// std::thread::id may be reused once its thread has ended, and would hand a new thread the text of a
// dead one). A thread's texts are removed when the thread exits, so a handle holds at most one text
// per live thread whose last call on it failed.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace mkb::api {

class error_slot {
public:
  void set(std::string text) noexcept; // never throws: it runs where exceptions become statuses
  // The calling thread's text, "" if none; valid until that thread's next set() or clear() on this slot.
  const char *get() const;
  void clear();

  // Shared with the threads that wrote here, so that an exiting thread can remove its text from a
  // slot that still exists, and skip one that is gone.
  struct texts {
    std::mutex mutex;
    std::map<uint64_t, std::string> by_thread;
  };

private:
  std::shared_ptr<texts> texts_ = std::make_shared<texts>();
};

} // namespace mkb::api
