#include "core/output_tail.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"
#include "core/text.hpp"

namespace mkb {

output_tail::output_tail(int read_end, size_t capacity) : fd_(read_end), capacity_(capacity) {
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK); // take() must never wait for the child
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) {
    ::close(fd_);
    fail(MKB_ERR_WORKER, "cannot create a pipe: {}", std::strerror(errno));
  }
  reader_ = std::thread([this] { run(); });
}

output_tail::~output_tail() {
  char stop = 0;
  (void)!::write(wake_[1], &stop, 1);
  reader_.join();
  ::close(wake_[0]);
  ::close(wake_[1]);
  ::close(fd_);
}

void output_tail::run() {
  for (;;) {
    pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents) return;
    std::lock_guard lock(mutex_);
    drain();
    if (closed_) return;
  }
}

void output_tail::drain() {
  // Bounded, so that a child that never stops printing cannot hold the lock (and take()) forever.
  char buffer[1 << 16];
  for (size_t read_now = 0; !closed_ && read_now < 16 * sizeof buffer; read_now += sizeof buffer) {
    ssize_t n = ::read(fd_, buffer, sizeof buffer);
    if (n > 0) keep(buffer, static_cast<size_t>(n));
    else if (n == 0) closed_ = true;
    else if (errno == EINTR) continue;
    else {
      if (errno != EAGAIN) closed_ = true;
      return;
    }
  }
}

void output_tail::keep(const char *data, size_t size) {
  text_.append(data, size);
  // Trim in steps of `capacity`, so a flood costs linear time.
  if (text_.size() > 2 * capacity_) {
    size_t excess = text_.size() - capacity_;
    dropped_ += excess;
    text_.erase(0, excess);
  }
}

std::string output_tail::take() {
  std::lock_guard lock(mutex_);
  drain();
  if (text_.size() > capacity_) {
    dropped_ += text_.size() - capacity_;
    text_.erase(0, text_.size() - capacity_);
  }
  std::string out;
  if (dropped_) out = fmt::format("[{} earlier bytes dropped]\n", dropped_);
  out += valid_utf8(text_);
  text_.clear();
  dropped_ = 0;
  return out;
}

std::string last_bytes_of(std::string_view text, size_t bytes) {
  if (text.size() <= bytes) return std::string(text);
  size_t start = text.size() - bytes;
  while (start < text.size() && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) ++start;
  return "..." + std::string(text.substr(start));
}


} // namespace mkb
