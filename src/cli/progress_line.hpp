// Progress of a long command on stderr: "[k/N] <what> (<elapsed> s, about <left> left)", the time left
// estimated from the mean of the steps done so far (none before the first ends). Piped, each step is a line,
// flushed as it starts; on a terminal, one live line redrawn in place (every second while a step
// runs) and erased when the step ends, so that the command's own output prints clean.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace mkb::cli {

class progress_line {
public:
  explicit progress_line(size_t total, std::FILE *to = stderr);
  ~progress_line();
  progress_line(const progress_line &) = delete;
  progress_line &operator=(const progress_line &) = delete;

  void begin(const std::string &what); // step k+1 of total
  void end();                          // the step is over (erases the live line)

private:
  void draw(); // with mutex_ held
  std::string time_left(std::chrono::steady_clock::time_point now) const; // "" before a step has ended
  void redraw_every_second(std::stop_token stop);

  std::FILE *to_;
  bool live_;
  size_t total_, done_ = 0;
  std::string what_;
  bool running_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), step_start_ = start_;
  std::mutex mutex_;
  std::condition_variable_any wake_;
  std::jthread redrawer_;
};

} // namespace mkb::cli
