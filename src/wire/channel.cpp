#include "wire/channel.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace mkb::wire {

namespace {

void send_all(int fd, const uint8_t *data, size_t size) {
  while (size > 0) {
    ssize_t sent = ::send(fd, data, size, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) fail(MKB_ERR_WORKER, "cannot send to the worker: {}", std::strerror(errno));
    data += sent;
    size -= static_cast<size_t>(sent);
  }
}

// Reads exactly `size` bytes; false if the peer closed or the deadline passed (sets *timed_out).
bool receive_all(int fd, uint8_t *data, size_t size, deadline until, bool *timed_out) {
  while (size > 0) {
    int wait_ms = -1;
    if (until) {
      auto left = std::chrono::ceil<std::chrono::milliseconds>(*until - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        *timed_out = true;
        return false;
      }
      wait_ms = static_cast<int>(std::min<int64_t>(left.count(), 1 << 30));
    }
    pollfd p{fd, POLLIN, 0};
    int ready = ::poll(&p, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return false;
    if (ready == 0) continue; // the loop re-checks the deadline
    ssize_t got = ::recv(fd, data, size, 0);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) return false;
    data += got;
    size -= static_cast<size_t>(got);
  }
  return true;
}

} // namespace

void send_frame(int fd, std::span<const uint8_t> frame) {
  if (frame.size() > max_frame_bytes) fail(MKB_ERR_INTERNAL, "message of {} bytes is too large", frame.size());
  uint32_t size = static_cast<uint32_t>(frame.size());
  uint8_t header[4] = {static_cast<uint8_t>(size), static_cast<uint8_t>(size >> 8),
                       static_cast<uint8_t>(size >> 16), static_cast<uint8_t>(size >> 24)};
  send_all(fd, header, sizeof header);
  send_all(fd, frame.data(), frame.size());
}

receive_status receive_frame(int fd, std::vector<uint8_t> &frame, deadline until) {
  uint8_t header[4];
  bool timed_out = false;
  if (!receive_all(fd, header, sizeof header, until, &timed_out))
    return timed_out ? receive_status::timed_out : receive_status::closed;
  uint32_t size = header[0] | header[1] << 8 | header[2] << 16 | static_cast<uint32_t>(header[3]) << 24;
  if (size > max_frame_bytes) return receive_status::closed;
  frame.resize(size);
  if (!receive_all(fd, frame.data(), size, until, &timed_out))
    return timed_out ? receive_status::timed_out : receive_status::closed;
  return receive_status::ok;
}

} // namespace mkb::wire
