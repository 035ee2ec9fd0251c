#include "dsl/sandbox.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/text.hpp"

namespace mkb {

namespace {

namespace fs = std::filesystem;

constexpr std::chrono::seconds probe_time_limit{60};
constexpr rlim_t tmp_bytes = rlim_t(1) << 30; // the private /tmp is memory: bounded
constexpr rlim_t address_space_bytes = rlim_t(16) << 30; // LLVM, MLIR and TVM reserve a few GiB
constexpr rlim_t file_bytes = rlim_t(1) << 30;
constexpr rlim_t processes = 8192; // counted per user, threads included: a bound on a fork bomb
constexpr rlim_t open_files = 4096;

// Where the interpreter lives, written to fd 3 as NUL-separated paths: sys.executable, then every
// folder it reads modules from. Relative sys.path entries are the working folder, which in the
// sandbox is the private /tmp.
constexpr const char *where_python_lives = R"(import os, sys
folders = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, os.path.dirname(sys.executable)]
folders += [p for p in sys.path if os.path.isabs(p) and os.path.exists(p)]
os.write(3, "\0".join([sys.executable] + folders).encode())
)";

// The few files of /etc that loading programs and libraries needs; not the rest (credentials).
constexpr const char *etc_files[] = {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
                                     "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/localtime"};

struct finished_run {
  std::string answer;       // what it wrote on its channel
  std::string output;       // its stdout and stderr
  std::string how_it_ended; // "exited with status 0", ...
};

// Runs a short command to its end under `limit`.
finished_run run_to_end(const std::string &executable, const std::vector<std::string> &arguments, spawn_options options,
                        std::chrono::seconds limit) {
  options.capture_output = true;
  child_process child = child_process::spawn(executable, arguments, options);
  ::shutdown(child.socket(), SHUT_WR);
  auto deadline = std::chrono::steady_clock::now() + limit;
  finished_run run;
  char buffer[1 << 14];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      run.how_it_ended = fmt::format("took longer than {} s and was stopped", limit.count());
      child.kill();
      run.output = child.output()->take();
      return run;
    }
    pollfd p{child.socket(), POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000))) <= 0) continue;
    ssize_t n = ::recv(child.socket(), buffer, sizeof buffer, 0);
    if (n <= 0) break;
    run.answer.append(buffer, static_cast<size_t>(n));
  }
  std::optional<std::string> ended;
  while (!(ended = child.try_reap()) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  run.how_it_ended = ended ? *ended : child.kill();
  run.output = child.output()->take();
  return run;
}

std::string describe_failure(const finished_run &run) {
  std::string output(trim(run.output));
  return output.empty() ? run.how_it_ended : fmt::format("{}: {}", run.how_it_ended, last_bytes_of(output, 1000));
}

// $MKB_BWRAP, then bwrap in PATH; "" with `why` when there is none.
std::string find_bwrap(std::string *why) {
  if (auto configured = environment("MKB_BWRAP")) {
    if (::access(configured->c_str(), X_OK) == 0) return *configured;
    *why = fmt::format("MKB_BWRAP names '{}', which is not an executable file", *configured);
    return {};
  }
  for (const std::string &dir : split(environment("PATH").value_or("/usr/bin:/bin"), ':')) {
    std::string candidate = dir + "/bwrap";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  *why = "bubblewrap (bwrap) is not installed: install the 'bubblewrap' package, or set MKB_BWRAP to its path";
  return {};
}

// Whether `folder` must not be shown to a submission: the root, the user's home or a folder holding it.
bool too_wide(const std::string &folder, const std::string &home) {
  if (folder == "/" || folder.empty()) return true;
  return !home.empty() && (home == folder || home.rfind(folder + "/", 0) == 0);
}

// The folders to bind, without the ones /usr already shows, without nesting, parents first.
std::vector<std::string> folders_to_bind(std::vector<std::string> folders) {
  std::string home = environment("HOME").value_or("");
  for (std::string &f : folders) f = fs::path(f).lexically_normal().string();
  for (std::string &f : folders)
    while (f.size() > 1 && f.back() == '/') f.pop_back();
  std::sort(folders.begin(), folders.end());
  std::vector<std::string> kept;
  for (const std::string &f : folders) {
    if (too_wide(f, home) || f == "/usr" || f.rfind("/usr/", 0) == 0) continue;
    if (!kept.empty() && (f == kept.back() || f.rfind(kept.back() + "/", 0) == 0)) continue;
    kept.push_back(f);
  }
  return kept;
}

// bwrap's arguments up to the program: namespaces, the read-only system, the private /tmp.
std::vector<std::string> sandbox_arguments(const python_sandbox &box) {
  std::vector<std::string> a = {"--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
                                "--ro-bind", "/usr", "/usr"};
  // Merged-/usr systems make these links into /usr; elsewhere they are folders of their own.
  for (const char *top : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
    std::error_code ec;
    if (fs::is_symlink(top, ec)) a.insert(a.end(), {"--symlink", fs::read_symlink(top, ec).string(), top});
    else if (fs::is_directory(top, ec)) a.insert(a.end(), {"--ro-bind", top, top});
  }
  for (const char *file : etc_files) a.insert(a.end(), {"--ro-bind-try", file, file});
  a.insert(a.end(), {"--dev", "/dev", "--proc", "/proc", "--size", std::to_string(tmp_bytes), "--tmpfs", "/tmp"});
  for (const std::string &folder : box.read_only) a.insert(a.end(), {"--ro-bind", folder, folder});
  return a;
}

// The environment inside: the caller's search path and locale, a home and caches in the private /tmp.
std::vector<std::string> sandbox_environment() {
  std::vector<std::string> env = {"HOME=/tmp", "TMPDIR=/tmp", "XDG_CACHE_HOME=/tmp/.cache", "PYTHONDONTWRITEBYTECODE=1"};
  for (const char *name : {"PATH", "LANG", "LC_ALL", "LC_CTYPE", "PYTHONPATH", "CUDA_HOME", "CUDA_PATH"})
    if (auto value = environment(name)) env.push_back(fmt::format("{}={}", name, *value));
  return env;
}

python_sandbox find_python_sandbox(const std::string &python) {
  python_sandbox box;
  finished_run where;
  try {
    where = run_to_end(python, {"-c", where_python_lives}, {}, probe_time_limit);
  } catch (const error &e) {
    box.interpreter_error = fmt::format("the Python interpreter '{}' cannot run: {}", python, e.what());
    return box;
  }
  std::vector<std::string> facts = split(where.answer, '\0');
  if (facts.size() < 2 || facts[0].empty()) {
    box.interpreter_error = fmt::format("the Python interpreter '{}' did not say where it lives: it {}", python,
                                        describe_failure(where));
    return box;
  }
  box.interpreter = facts[0];
  facts.erase(facts.begin());
  for (const char *toolkit : {"CUDA_HOME", "CUDA_PATH"})
    if (auto dir = environment(toolkit)) facts.push_back(*dir);
  box.read_only = folders_to_bind(std::move(facts));

  box.bwrap = find_bwrap(&box.sandbox_error);
  if (box.bwrap.empty()) return box;
  // The sandbox as every run will have it, with the interpreter starting inside.
  std::vector<std::string> arguments = sandbox_arguments(box);
  arguments.insert(arguments.end(), {"--chdir", "/tmp", "--", box.interpreter, "-c", "import os; os.write(3, b'ok')"});
  spawn_options options;
  options.limits = frontend_limits(probe_time_limit);
  options.environment = sandbox_environment();
  finished_run trial;
  try {
    trial = run_to_end(box.bwrap, arguments, options, probe_time_limit);
  } catch (const error &e) {
    box.sandbox_error = fmt::format("bubblewrap ('{}') cannot run: {}", box.bwrap, e.what());
    return box;
  }
  if (trial.answer != "ok")
    box.sandbox_error = fmt::format("bubblewrap ('{}') cannot confine {} here: it {}", box.bwrap, box.interpreter,
                                    describe_failure(trial));
  return box;
}

} // namespace

bool sandbox_disabled_by_environment() {
  std::optional<std::string> value = environment("MKB_NO_SANDBOX");
  return value && *value != "0";
}

const python_sandbox &python_sandbox_for(const std::string &python) {
  static std::mutex mutex;
  static std::map<std::string, python_sandbox> known;
  std::string key = python + '\n' + environment("MKB_BWRAP").value_or("");
  {
    std::lock_guard lock(mutex);
    if (auto it = known.find(key); it != known.end()) return it->second;
  }
  python_sandbox found = find_python_sandbox(python); // outside the lock: it takes a while
  std::lock_guard lock(mutex);
  return known.emplace(key, std::move(found)).first->second; // a racing thread's answer is as good
}

std::vector<std::pair<int, rlim_t>> frontend_limits(std::chrono::seconds time_limit) {
  rlim_t cpu_seconds = static_cast<rlim_t>(std::max<int64_t>(time_limit.count(), 1)) * 4;
  return {{RLIMIT_CPU, cpu_seconds},    {RLIMIT_AS, address_space_bytes}, {RLIMIT_FSIZE, file_bytes},
          {RLIMIT_NPROC, processes},    {RLIMIT_NOFILE, open_files},       {RLIMIT_CORE, 0}};
}

sandboxed_command sandboxed_python(const python_sandbox &box, const std::string &script) {
  std::string inside = "/tmp/" + fs::path(script).filename().string();
  sandboxed_command command;
  command.executable = box.bwrap;
  command.arguments = sandbox_arguments(box);
  command.arguments.insert(command.arguments.end(),
                           {"--ro-bind", script, inside, "--chdir", "/tmp", "--", box.interpreter, inside});
  command.environment = sandbox_environment();
  return command;
}

} // namespace mkb
