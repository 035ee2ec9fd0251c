#include "core/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "core/error.hpp"
#include "core/files.hpp"

extern char **environ;

namespace mkb {

namespace {

constexpr int reap_patience_ms = 30000;

// The file `executable` names: itself when it holds a slash, else the first match in PATH.
std::string resolve_executable(const std::string &executable) {
  if (executable.find('/') != std::string::npos) return executable;
  std::string path = environment("PATH").value_or("/usr/bin:/bin");
  for (size_t start = 0; start <= path.size();) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = end > start ? path.substr(start, end - start) : ".";
    std::string candidate = dir + "/" + executable;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return {};
}

// Descriptors closed on any path out of spawn().
struct descriptors {
  std::vector<int> fds;
  int add(int fd) {
    fds.push_back(fd);
    return fd;
  }
  ~descriptors() {
    for (int fd : fds)
      if (fd >= 0) ::close(fd);
  }
};

// In the forked child: tells the parent why the program could not start.
[[noreturn]] void exit_reporting(int report, int code) {
  (void)!::write(report, &code, sizeof code);
  ::_exit(127);
}

// In the forked child: only async-signal-safe calls from here to exec. Writes errno to `report` and
// exits when it cannot start the program.
[[noreturn]] void become_child(int socket, int input, int output, int report, const char *path, char *const argv[],
                               char *const envp[], const std::vector<std::pair<int, rlim_t>> &limits) {
  auto fail_with = [&report](int code) { exit_reporting(report, code); };
  // Move every source above the targets first, so that no dup2 overwrites one still needed.
  int high_socket = ::fcntl(socket, F_DUPFD_CLOEXEC, 10);
  int high_input = ::fcntl(input, F_DUPFD_CLOEXEC, 10);
  int high_output = output >= 0 ? ::fcntl(output, F_DUPFD_CLOEXEC, 10) : -1;
  int high_report = ::fcntl(report, F_DUPFD_CLOEXEC, 10);
  if (high_socket < 0 || high_input < 0 || high_report < 0 || (output >= 0 && high_output < 0)) fail_with(errno);
  report = high_report;
  if (::dup2(high_input, 0) < 0 || ::dup2(high_socket, 3) < 0) fail_with(errno);
  if (high_output >= 0 && (::dup2(high_output, 1) < 0 || ::dup2(high_output, 2) < 0)) fail_with(errno);
  // Everything above 3 goes: the reporting pipe at exec, the rest (the embedding program's) now.
  if (::dup2(report, 4) < 0 || ::fcntl(4, F_SETFD, FD_CLOEXEC) < 0) fail_with(errno);
  report = 4;
  if (::close_range(5, ~0U, 0) != 0)
    for (int fd = 5; fd < 65536; ++fd) ::close(fd);
  for (const auto &[resource, value] : limits) {
    rlimit limit{value, value};
    if (::setrlimit(resource, &limit) != 0) fail_with(errno);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr); // the embedding program's blocked signals are its own
  ::execve(path, argv, envp);
  exit_reporting(report, errno);
}

} // namespace

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  return fmt::format("ended with wait status {}", status);
}

child_process child_process::spawn(const std::string &executable, const std::vector<std::string> &arguments,
                                   const spawn_options &options) {
  std::string path = resolve_executable(executable);
  if (path.empty()) fail(MKB_ERR_WORKER, "cannot start '{}': not found in PATH", executable);

  descriptors to_close;
  int sockets[2], output[2] = {-1, -1}, report[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0)
    fail(MKB_ERR_WORKER, "cannot create a socket pair: {}", std::strerror(errno));
  to_close.add(sockets[0]);
  to_close.add(sockets[1]);
  int input = to_close.add(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (input < 0) fail(MKB_ERR_WORKER, "cannot open /dev/null: {}", std::strerror(errno));
  if (options.capture_output) {
    if (::pipe2(output, O_CLOEXEC) != 0) fail(MKB_ERR_WORKER, "cannot create a pipe: {}", std::strerror(errno));
    to_close.add(output[0]);
    to_close.add(output[1]);
  }
  if (::pipe2(report, O_CLOEXEC) != 0) fail(MKB_ERR_WORKER, "cannot create a pipe: {}", std::strerror(errno));
  to_close.add(report[0]);
  to_close.add(report[1]);

  // Everything the child needs is built before fork: after it, the child may not allocate.
  std::vector<char *> argv;
  argv.push_back(const_cast<char *>(executable.c_str()));
  for (const std::string &a : arguments) argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char *> envp;
  if (options.environment) {
    for (const std::string &e : *options.environment) envp.push_back(const_cast<char *>(e.c_str()));
    envp.push_back(nullptr);
  }
  char *const *child_environment = options.environment ? envp.data() : environ;
  // A limit lowers, never raises: an unprivileged process may not go above its hard limit.
  std::vector<std::pair<int, rlim_t>> limits;
  for (const auto &[resource, value] : options.limits) {
    rlimit current{};
    ::getrlimit(resource, &current);
    limits.emplace_back(resource, current.rlim_max == RLIM_INFINITY ? value : std::min(value, current.rlim_max));
  }

  pid_t pid = ::fork();
  if (pid < 0) fail(MKB_ERR_WORKER, "cannot start '{}': {}", executable, std::strerror(errno));
  if (pid == 0)
    become_child(sockets[1], input, output[1], report[1], path.c_str(), argv.data(), child_environment, limits);

  ::close(std::exchange(report[1], -1));
  to_close.fds = {sockets[1], input, output[1], report[0]}; // the parent's ends survive
  int code = 0;
  ssize_t got;
  while ((got = ::read(report[0], &code, sizeof code)) < 0 && errno == EINTR) {}
  if (got > 0) { // exec failed: the child has exited
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    ::close(sockets[0]);
    if (output[0] >= 0) ::close(output[0]);
    fail(MKB_ERR_WORKER, "cannot start '{}': {}", executable, std::strerror(code));
  }
  child_process child;
  child.pid_ = pid;
  child.socket_ = sockets[0];
  if (output[0] >= 0) child.output_ = std::make_unique<output_tail>(output[0]);
  return child;
}

child_process::child_process(child_process &&other) noexcept
    : pid_(std::exchange(other.pid_, -1)), socket_(std::exchange(other.socket_, -1)), output_(std::move(other.output_)) {}

child_process &child_process::operator=(child_process &&other) noexcept {
  if (this != &other) {
    kill();
    pid_ = std::exchange(other.pid_, -1);
    socket_ = std::exchange(other.socket_, -1);
    output_ = std::move(other.output_);
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
