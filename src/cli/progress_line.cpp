#include "cli/progress_line.hpp"

#include <fmt/format.h>
#include <unistd.h>

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

void progress_line::draw() {
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string line = fmt::format("[{}/{}] {} ({:.1f} s)", done_, total_, what_, elapsed);
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
