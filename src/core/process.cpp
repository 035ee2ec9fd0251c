#include "core/process.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "core/error.hpp"

extern char **environ;

namespace mkb {

namespace {
constexpr int reap_patience_ms = 30000;
} // namespace

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  return fmt::format("ended with wait status {}", status);
}

child_process child_process::spawn(const std::string &executable, const std::vector<std::string> &arguments) {
  int sockets[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0)
    fail(MKB_ERR_WORKER, "cannot create a socket pair: {}", std::strerror(errno));

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // dup2 onto 3 clears close-on-exec there; every other descriptor of ours is close-on-exec.
  posix_spawn_file_actions_adddup2(&actions, sockets[1], 3);
#ifdef __GLIBC__
  posix_spawn_file_actions_addclosefrom_np(&actions, 4); // descriptors the embedding program leaked
#endif
  std::vector<char *> argv;
  argv.push_back(const_cast<char *>(executable.c_str()));
  for (const std::string &a : arguments) argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);

  pid_t pid = -1;
  int rc = posix_spawnp(&pid, executable.c_str(), &actions, nullptr, argv.data(), environ); // a bare name: PATH
  posix_spawn_file_actions_destroy(&actions);
  ::close(sockets[1]);
  if (rc != 0) {
    ::close(sockets[0]);
    fail(MKB_ERR_WORKER, "cannot start '{}': {}", executable, std::strerror(rc));
  }
  child_process child;
  child.pid_ = pid;
  child.socket_ = sockets[0];
  return child;
}

child_process::child_process(child_process &&other) noexcept
    : pid_(std::exchange(other.pid_, -1)), socket_(std::exchange(other.socket_, -1)) {}

child_process &child_process::operator=(child_process &&other) noexcept {
  if (this != &other) {
    kill();
    pid_ = std::exchange(other.pid_, -1);
    socket_ = std::exchange(other.socket_, -1);
  }
  return *this;
}

child_process::~child_process() { kill(); }

void child_process::close_socket() {
  if (socket_ >= 0) ::close(socket_);
  socket_ = -1;
}

std::string child_process::kill() {
  close_socket();
  if (pid_ <= 0) return "not running";
  ::kill(pid_, SIGKILL);
  // A process stuck in the GPU driver can take a while to die; the caller must not hang with it.
  for (int waited_ms = 0; waited_ms < reap_patience_ms; waited_ms += 10) {
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_ || (r < 0 && errno != EINTR)) {
      pid_ = -1;
      return r < 0 ? std::string("lost") : describe_wait_status(status);
    }
    ::usleep(10000);
  }
  std::string note = fmt::format("still running {} s after SIGKILL (pid {}); left behind", reap_patience_ms / 1000, pid_);
  pid_ = -1;
  return note;
}

std::optional<std::string> child_process::try_reap() {
  if (pid_ <= 0) return "not running";
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == 0) return std::nullopt;
  pid_ = -1;
  close_socket();
  return r < 0 ? std::string("lost") : describe_wait_status(status);
}

} // namespace mkb
