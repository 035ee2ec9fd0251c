#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

#include "fuzz_targets.hpp"
#include "wire/channel.hpp"
#include "wire/codec.hpp"

namespace mkb::fuzz {

namespace {

// What the library does with a verified response, and the worker with a verified request.
void decode_response(const wire::Response &r) {
  if (const auto *result = r.body_as_EvaluateResult()) wire::decode(*result);
  if (const auto *pong = r.body_as_Pong(); pong && pong->devices())
    for (const wire::DeviceInfo *d : *pong->devices()) wire::decode(d);
}

void decode_request(const wire::Request &r) {
  auto plan = [](const wire::Plan *p) {
    if (!p) return;
    wire::decode(*p);
    wire::decode_module(p->code());
  };
  if (const auto *e = r.body_as_Evaluate()) {
    if (e->problem()) wire::decode(*e->problem());
    plan(e->submission());
    plan(e->baseline());
    plan(e->anchor());
  }
  if (const auto *d = r.body_as_Draw()) {
    if (d->problem()) wire::decode(*d->problem());
    plan(d->anchor());
  }
  if (const auto *c = r.body_as_Compile()) wire::decode_module(c->code());
}

} // namespace

// The bytes arrive on a socket as a peer would send them (a stream of length-prefixed frames),
// then the peer closes. Every whole frame is verified as both message roots and decoded if it verifies.
void frame_decoder(bytes data) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) throw std::runtime_error("socketpair failed");
  // Inputs larger than the socket's buffer are cut short rather than blocking the writer.
  ::fcntl(fds[1], F_SETFL, O_NONBLOCK);
  size_t written = 0;
  while (written < data.size()) {
    ssize_t n = ::send(fds[1], data.data() + written, data.size() - written, MSG_NOSIGNAL);
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  ::close(fds[1]);
  std::vector<uint8_t> frame;
  while (wire::receive_frame(fds[0], frame) == wire::receive_status::ok) {
    if (const auto *response = wire::verified_root<wire::Response>(frame)) decode_response(*response);
    if (const auto *request = wire::verified_root<wire::Request>(frame)) decode_request(*request);
  }
  ::close(fds[0]);
}

} // namespace mkb::fuzz
