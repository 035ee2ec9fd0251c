#include "core/files.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/random.hpp"

namespace mkb {

std::optional<std::string> try_read_file(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return std::move(content).str();
}

std::string read_file(const std::filesystem::path &path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    fail(MKB_ERR_IO, "cannot read '{}': {}", path.string(),
         std::filesystem::exists(path, ec) ? "not a regular file" : "no such file");
  auto content = try_read_file(path);
  if (!content) fail(MKB_ERR_IO, "cannot read '{}': {}", path.string(), std::strerror(errno));
  return std::move(*content);
}

void write_file_atomic(const std::filesystem::path &path, std::string_view data, bool durable) {
  std::filesystem::path folder = path.parent_path();
  std::error_code ec;
  if (!folder.empty()) std::filesystem::create_directories(folder, ec);
  std::string temporary = fmt::format("{}.tmp.{}.{:x}", path.string(), getpid(), os_random_u64());
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) fail(MKB_ERR_IO, "cannot create '{}': {}", temporary, std::strerror(errno));
  const char *cursor = data.data();
  size_t left = data.size();
  while (left > 0) {
    ssize_t written = ::write(fd, cursor, left);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      int saved = errno;
      ::close(fd);
      ::unlink(temporary.c_str());
      fail(MKB_ERR_IO, "cannot write '{}': {}", temporary, std::strerror(saved));
    }
    cursor += written;
    left -= static_cast<size_t>(written);
  }
  if ((durable && ::fsync(fd) != 0) || ::close(fd) != 0) {
    int saved = errno;
    ::unlink(temporary.c_str());
    fail(MKB_ERR_IO, "cannot sync '{}': {}", temporary, std::strerror(saved));
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    int saved = errno;
    ::unlink(temporary.c_str());
    fail(MKB_ERR_IO, "cannot rename '{}' to '{}': {}", temporary, path.string(), std::strerror(saved));
  }
}

std::optional<std::string> environment(const char *name) {
  const char *value = std::getenv(name);
  if (!value || !*value) return std::nullopt;
  return std::string(value);
}

std::filesystem::path default_cache_dir() {
  if (auto dir = environment("MKB_CACHE_DIR")) return *dir;
  if (auto dir = environment("XDG_CACHE_HOME")) return std::filesystem::path(*dir) / "mkb";
  if (auto home = environment("HOME")) return std::filesystem::path(*home) / ".cache" / "mkb";
  return "/tmp/mkb-cache";
}

std::filesystem::path own_binary_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void *>(&own_binary_dir), &info) && info.dli_fname) {
    std::error_code ec;
    auto path = std::filesystem::canonical(info.dli_fname, ec);
    if (!ec) return path.parent_path();
  }
  std::error_code ec;
  return std::filesystem::canonical("/proc/self/exe", ec).parent_path();
}

} // namespace mkb
