// A child process connected to its parent by one socket (the child sees it as file descriptor 3).
// The parent owns the child: destroying the handle kills and reaps it. The child inherits nothing
// else of the parent's: its stdin is /dev/null, and its stdout and stderr are either the parent's or
// one pipe the parent keeps the tail of (output_tail).
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/output_tail.hpp"

namespace mkb {

struct spawn_options {
  // stdout and stderr into one pipe whose tail child_process::output() keeps; else the parent's.
  bool capture_output = false;
  // setrlimit(resource, {value, value}) in the child before it starts `executable`.
  std::vector<std::pair<int, rlim_t>> limits;
  // "NAME=value" entries; nullopt: the parent's environment.
  std::optional<std::vector<std::string>> environment;
};

class child_process {
public:
  // Starts `executable` (a path, or a bare name looked up in PATH) with `arguments` (argv[1..]).
  // Throws mkb::error(MKB_ERR_WORKER) if it cannot.
  static child_process spawn(const std::string &executable, const std::vector<std::string> &arguments,
                             const spawn_options &options = {});

  child_process() = default;
  child_process(child_process &&other) noexcept;
  child_process &operator=(child_process &&other) noexcept;
  child_process(const child_process &) = delete;
  child_process &operator=(const child_process &) = delete;
  ~child_process();

  pid_t pid() const { return pid_; }
  int socket() const { return socket_; } // the parent's end
  bool running() const { return pid_ > 0; }
  // The child's stdout and stderr with capture_output; nullptr otherwise. Outlives the process
  // itself, so that what it wrote before it died can still be taken.
  output_tail *output() const { return output_.get(); }

  // Sends SIGKILL and reaps. Returns a description of how the child ended.
  std::string kill();
  // Reaps the child if it has exited; the description of how it ended, or nullopt if it still runs.
  std::optional<std::string> try_reap();

private:
  void close_socket();
  pid_t pid_ = -1;
  int socket_ = -1;
  std::unique_ptr<output_tail> output_;
};

// "exited with status 3", "killed by signal 9 (Killed)", ...
std::string describe_wait_status(int status);

} // namespace mkb
