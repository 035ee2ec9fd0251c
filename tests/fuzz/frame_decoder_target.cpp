#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>

#include "fuzz_targets.hpp"
#include "wire/channel.hpp"
#include "wire/codec.hpp"

namespace mkb::fuzz {

namespace {

// Whether some frame of `stream` announces far more bytes than follow it. receive_frame allocates the
// announced size (up to 256 MiB) before reading, which is correct but takes ASan a second; random
// length fields do it on most inputs, so such inputs are skipped (tests/wire/channel_test.cpp covers
// oversized and unfinished frames).
bool announces_far_more_than_it_holds(const std::vector<uint8_t> &stream) {
  size_t offset = 0;
  while (stream.size() - offset >= 4) {
    const uint8_t *h = stream.data() + offset;
    size_t size = h[0] | h[1] << 8 | h[2] << 16 | static_cast<size_t>(h[3]) << 24;
    if (size > stream.size() - offset - 4 + (size_t(1) << 20)) return true;
    offset += 4 + std::min(size, stream.size() - offset - 4);
  }
  return false;
}

} // namespace

// The first byte chooses what the rest is. 0: a stream of length-prefixed frames, as a peer would send
// them. Anything else: one frame body, sent behind its true length; random length fields mostly
// announce frames of many megabytes that never arrive (receive_frame sizes its buffer first), so this
// keeps the verifier and the decoders busy at full speed. The bytes arrive on a socket, then the peer
// closes; every whole frame is decoded as both a request and a response (each verified first).
void frame_decoder(bytes data) {
  if (data.empty()) return;
  std::vector<uint8_t> stream;
  if (data[0] == 0) {
    stream.assign(data.begin() + 1, data.end());
  } else {
    uint32_t size = static_cast<uint32_t>(data.size() - 1);
    stream = {static_cast<uint8_t>(size), static_cast<uint8_t>(size >> 8), static_cast<uint8_t>(size >> 16),
              static_cast<uint8_t>(size >> 24)};
    stream.insert(stream.end(), data.begin() + 1, data.end());
  }
  if (announces_far_more_than_it_holds(stream)) return;
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) throw std::runtime_error("socketpair failed");
  // Inputs larger than the socket's buffer are cut short rather than blocking the writer.
  ::fcntl(fds[1], F_SETFL, O_NONBLOCK);
  size_t written = 0;
  while (written < stream.size()) {
    ssize_t n = ::send(fds[1], stream.data() + written, stream.size() - written, MSG_NOSIGNAL);
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  ::close(fds[1]);
  std::vector<uint8_t> frame;
  while (wire::receive_frame(fds[0], frame) == wire::receive_status::ok) {
    // What the library does with a response, and the worker with a request: verify, then decode.
    (void)wire::decode_response(frame);
    (void)wire::decode_request(frame);
  }
  ::close(fds[0]);
}

} // namespace mkb::fuzz
