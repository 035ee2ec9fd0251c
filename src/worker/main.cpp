// mkb-worker: the process that owns one GPU for libmkb (docs/ARCHITECTURE.md). The library starts
// it with a socket on file descriptor 3; worker_loop serves the requests that arrive there.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "mkb.h"
#include "worker/worker_loop.hpp"

int main(int argc, char **argv) {
  int ordinal = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
      ordinal = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--version") == 0) {
      std::printf("mkb-worker %s\n", MKB_VERSION_STRING);
      return 0;
    } else {
      std::fprintf(stderr, "usage: mkb-worker [--device N]  (started by libmkb, which talks to it on fd 3)\n");
      return 2;
    }
  }
  if (fcntl(3, F_GETFD) < 0) {
    std::fprintf(stderr, "mkb-worker: no channel on file descriptor 3; libmkb starts this program\n");
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  // stdout and stderr are a pipe the library keeps the tail of (device printf included): unbuffered,
  // so that what an evaluation printed is there by the time its answer is.
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  try {
    return mkb::worker::worker_loop(ordinal).serve();
  } catch (const std::exception &e) {
    pollfd channel{3, 0, 0};
    if (poll(&channel, 1, 0) == 1 && (channel.revents & (POLLHUP | POLLERR | POLLNVAL))) return 0; // the library is gone
    std::fprintf(stderr, "mkb-worker: %s\n", e.what());
    return 1;
  }
}
