// The bounded tail of what a child process writes on its stdout and stderr. A thread drains the pipe
// as it fills, so a child that prints without end never blocks on it, and only the most recent
// `capacity` bytes are kept: the library attaches them to a report or an error, never to its
// caller's own descriptors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace mkb {

class output_tail {
public:
  static constexpr size_t default_capacity = size_t(64) << 10;

  // Takes ownership of `read_end`, the parent's end of the child's output pipe.
  explicit output_tail(int read_end, size_t capacity = default_capacity);
  output_tail(const output_tail &) = delete;
  output_tail &operator=(const output_tail &) = delete;
  ~output_tail();

  // What arrived since the last call: at most `capacity` bytes (the most recent, after a line saying
  // how many were dropped), as valid UTF-8. Everything the child wrote before this call is included.
  std::string take();

private:
  void drain();                   // reads what the pipe holds now; the caller holds mutex_
  void keep(const char *data, size_t size);
  void run();

  int fd_;
  int wake_[2] = {-1, -1}; // written to stop the reader thread
  size_t capacity_;
  std::mutex mutex_;
  std::string text_;
  uint64_t dropped_ = 0;
  bool closed_ = false; // the child's end is gone: nothing more will arrive
  std::thread reader_;
};

// The last `bytes` bytes of `text` or fewer, starting on a UTF-8 character boundary, after "..." when
// something was cut.
std::string last_bytes_of(std::string_view text, size_t bytes);

} // namespace mkb
