#include "cli/progress_line.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

namespace mkb::cli {

progress_line::progress_line(size_t total, std::FILE *to) : to_(to), live_(::isatty(::fileno(to)) == 1), total_(total) {
  if (live_) redrawer_ = std::jthread([this](std::stop_token stop) { redraw_every_second(stop); });
}

progress_line::~progress_line() {
  if (redrawer_.joinable()) {
    redrawer_.request_stop();
    wake_.notify_all();
    redrawer_.join();
  }
  end();
}

void progress_line::begin(const std::string &what) {
  std::lock_guard lock(mutex_);
  ++done_;
  step_start_ = std::chrono::steady_clock::now();
  what_ = what;
  running_ = true;
  draw();
}

void progress_line::end() {
  std::lock_guard lock(mutex_);
  if (running_ && live_) {
    std::fputs("\r\033[K", to_);
    std::fflush(to_);
  }
  running_ = false;
}

std::string progress_line::time_left(std::chrono::steady_clock::time_point now) const {
  size_t ended = done_ - 1; // the steps before the one running
  if (ended == 0 || done_ > total_) return "";
  double per_step = std::chrono::duration<double>(step_start_ - start_).count() / double(ended);
  double left = per_step * double(total_ - ended) - std::chrono::duration<double>(now - step_start_).count();
  left = std::max(left, 0.0);
  return left < 90 ? fmt::format(", about {:.0f} s left", left) : fmt::format(", about {:.0f} min left", left / 60);
}

void progress_line::draw() {
  auto now = std::chrono::steady_clock::now();
  double elapsed = std::chrono::duration<double>(now - start_).count();
  std::string line = fmt::format("[{}/{}] {} ({:.1f} s{})", done_, total_, what_, elapsed, time_left(now));
  if (live_) fmt::print(to_, "\r\033[K{}", line);
  else fmt::print(to_, "{}\n", line);
  std::fflush(to_);
}

void progress_line::redraw_every_second(std::stop_token stop) {
  std::unique_lock lock(mutex_);
  while (!stop.stop_requested()) {
    wake_.wait_for(lock, stop, std::chrono::seconds(1), [] { return false; });
    if (running_ && !stop.stop_requested()) draw();
  }
}

} // namespace mkb::cli
