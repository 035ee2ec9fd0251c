// A child process connected to its parent by one socket (the child sees it as file descriptor 3).
// The parent owns the child: destroying the handle kills and reaps it.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace mkb {

class child_process {
public:
  // Starts `executable` (a path, or a bare name looked up in PATH) with `arguments` (argv[1..]).
  // Throws mkb::error(MKB_ERR_WORKER) if it cannot.
  static child_process spawn(const std::string &executable, const std::vector<std::string> &arguments);

  child_process() = default;
  child_process(child_process &&other) noexcept;
  child_process &operator=(child_process &&other) noexcept;
  child_process(const child_process &) = delete;
  child_process &operator=(const child_process &) = delete;
  ~child_process();

  pid_t pid() const { return pid_; }
  int socket() const { return socket_; } // the parent's end
  bool running() const { return pid_ > 0; }

  // Sends SIGKILL and reaps. Returns a description of how the child ended.
  std::string kill();
  // Reaps the child if it has exited; the description of how it ended, or nullopt if it still runs.
  std::optional<std::string> try_reap();

private:
  void close_socket();
  pid_t pid_ = -1;
  int socket_ = -1;
};

// "exited with status 3", "killed by signal 9 (Killed)", ...
std::string describe_wait_status(int status);

} // namespace mkb
