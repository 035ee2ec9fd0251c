#include "core/queue_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/random.hpp"

namespace mkb {

namespace fs = std::filesystem;

namespace {

using clock_type = std::chrono::steady_clock;

// flock that resumes after a signal: waiting in the queue may take minutes.
int flock_retrying(int fd, int operation) {
  int rc;
  do rc = ::flock(fd, operation);
  while (rc != 0 && errno == EINTR);
  return rc;
}

[[noreturn]] void fail_folder(const fs::path &folder, const std::string &what, int error_number) {
  fail(MKB_ERR_IO, "the GPU lock folder '{}' cannot be used: {}: {}", folder.string(), what, std::strerror(error_number));
}

void require_folder(const fs::path &folder) {
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) fail_folder(folder, "it cannot be read", errno);
  if (!S_ISDIR(st.st_mode)) fail_folder(folder, "it is not a folder", ENOTDIR);
  if (::access(folder.c_str(), W_OK | X_OK) != 0) fail_folder(folder, "it is not writable", errno);
}

// A folder every user of the host can add to, as /tmp: created if missing.
void make_shared_folder(const fs::path &folder) {
  if (::mkdir(folder.c_str(), 01777) == 0) ::chmod(folder.c_str(), 01777); // past the umask
  else if (errno != EEXIST) fail_folder(folder, "it cannot be created", errno);
}

// Ticket names sort by arrival: wall-clock nanoseconds (the one clock all processes share), then the
// process id and a random tail so that no two are ever equal.
std::string new_ticket_name() {
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  uint64_t ns = static_cast<uint64_t>(now.tv_sec) * 1000000000ull + static_cast<uint64_t>(now.tv_nsec);
  return fmt::format("{:020}-{:010}-{:016x}", ns, static_cast<long>(::getpid()), os_random_u64());
}

std::vector<std::string> tickets_before(const fs::path &queue, const std::string &mine) {
  std::vector<std::string> earlier;
  std::error_code ec;
  for (const fs::directory_entry &e : fs::directory_iterator(queue, ec)) {
    std::string name = e.path().filename().string();
    if (!name.empty() && name[0] != '.' && name < mine) earlier.push_back(std::move(name));
  }
  std::sort(earlier.begin(), earlier.end());
  return earlier;
}

// Blocks until the owner of `ticket` releases it. A ticket still present once its lock is free
// belongs to a process that died: it is removed (where the folder allows) and never waited on again.
void wait_for(const fs::path &ticket) {
  int fd = ::open(ticket.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return; // gone already
  flock_retrying(fd, LOCK_SH);
  struct stat by_fd {}, by_name {};
  bool still_there = ::fstat(fd, &by_fd) == 0 && ::stat(ticket.c_str(), &by_name) == 0 && by_fd.st_ino == by_name.st_ino;
  if (still_there) ::unlink(ticket.c_str());
  ::close(fd);
}

} // namespace

fs::path builtin_gpu_lock_dir() {
  fs::path folder = "/tmp/mkb-gpu-locks";
  make_shared_folder(folder);
  return folder;
}

queue_lock queue_lock::acquire(const fs::path &folder, const std::string &name) {
  if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") !=
                          std::string::npos)
    fail(MKB_ERR_INVALID_ARGUMENT, "'{}' is not a lock name", name);
  require_folder(folder);
  fs::path queue = folder / (name + ".queue");
  make_shared_folder(queue);
  require_folder(queue);

  auto start = clock_type::now();
  queue_lock held;
  // The ticket is locked before it gets its visible name, so that no waiter mistakes it for a dead one.
  std::string mine = new_ticket_name();
  fs::path draft = queue / ("." + mine);
  held.ticket_fd_ = ::open(draft.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (held.ticket_fd_ < 0) fail_folder(queue, "a ticket cannot be created", errno);
  if (flock_retrying(held.ticket_fd_, LOCK_EX) != 0 || ::rename(draft.c_str(), (queue / mine).c_str()) != 0) {
    int e = errno;
    ::unlink(draft.c_str());
    fail_folder(queue, "a ticket cannot be placed", e);
  }
  held.ticket_ = queue / mine;

  // Wait for the ticket just ahead until none is left ahead: arrival order.
  for (std::vector<std::string> ahead = tickets_before(queue, mine); !ahead.empty(); ahead = tickets_before(queue, mine))
    wait_for(queue / ahead.back());

  fs::path lock_path = folder / (name + ".lock");
  held.lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (held.lock_fd_ < 0) fail_folder(folder, fmt::format("'{}' cannot be opened", lock_path.filename().string()), errno);
  ::fchmod(held.lock_fd_, 0666); // other users' processes open it too; fails harmlessly if not ours
  if (flock_retrying(held.lock_fd_, LOCK_EX) != 0) fail_folder(folder, "the lock cannot be taken", errno);
  held.waited_ = clock_type::now() - start;
  return held;
}

queue_lock::queue_lock(queue_lock &&other) noexcept
    : lock_fd_(std::exchange(other.lock_fd_, -1)), ticket_fd_(std::exchange(other.ticket_fd_, -1)),
      ticket_(std::move(other.ticket_)), waited_(other.waited_) {}

queue_lock &queue_lock::operator=(queue_lock &&other) noexcept {
  if (this != &other) {
    release();
    lock_fd_ = std::exchange(other.lock_fd_, -1);
    ticket_fd_ = std::exchange(other.ticket_fd_, -1);
    ticket_ = std::move(other.ticket_);
    waited_ = other.waited_;
  }
  return *this;
}

queue_lock::~queue_lock() { release(); }

void queue_lock::release() {
  // The ticket goes first: the next waiter wakes when its lock drops and must find it gone.
  if (!ticket_.empty()) ::unlink(ticket_.c_str());
  ticket_.clear();
  if (ticket_fd_ >= 0) ::close(ticket_fd_);
  if (lock_fd_ >= 0) ::close(lock_fd_);
  ticket_fd_ = lock_fd_ = -1;
}

} // namespace mkb
