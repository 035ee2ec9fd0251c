// The Python frontends' sandbox (src/dsl/sandbox.cpp) against the hostile Triton submission of issue
// 14 (tests/dsl/hostile/escape_triton.py): each of its five steps is checked from outside, in the
// sandbox (every one fails) and, to show the checks can see an escape, unconfined (they succeed).
// Without a usable sandbox, Python DSL submissions are refused unless the user opts out.
#include "dsl/sandbox.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "core/files.hpp"
#include "core/text.hpp"
#include "dsl/dsl.hpp"
#include "spec/file_source.hpp"
#include "spec/problem.hpp"
#include "support/paths.hpp"
#include "support/scoped_environment.hpp"
#include "support/temp_dir.hpp"
#include "support/triton_scale.hpp"

namespace mkb {
namespace {

using testing::triton_scale;

namespace fs = std::filesystem;

using testing::scoped_environment;

// A TCP listener on 127.0.0.1 that never blocks: whether anyone connected.
class listener {
public:
  listener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    if (::bind(fd_, reinterpret_cast<sockaddr *>(&address), size) != 0 || ::listen(fd_, 8) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr *>(&address), &size) != 0)
      ADD_FAILURE() << "cannot listen on 127.0.0.1";
    port_ = ntohs(address.sin_port);
  }
  ~listener() { ::close(fd_); }
  int port() const { return port_; }
  bool someone_connected() {
    int connection = ::accept(fd_, nullptr, nullptr);
    if (connection < 0) return false;
    ::close(connection);
    return true;
  }

private:
  int fd_ = -1;
  int port_ = 0;
};

// The pid of a process running `sleep <seconds>` (or `setsid sleep <seconds>`, about to), or 0.
pid_t find_sleeper(const std::string &seconds) {
  const std::string tail = "sleep" + std::string(1, '\0') + seconds + std::string(1, '\0');
  for (const fs::directory_entry &e : fs::directory_iterator("/proc")) {
    std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::optional<std::string> command = try_read_file(e.path() / "cmdline");
    if (command && command->size() >= tail.size() && command->ends_with(tail)) return std::stoi(name);
  }
  return 0;
}

class Sandbox : public ::testing::Test {
protected:
  void SetUp() override {
    testing::write_problem(dir_, "test", "tiny", testing::tiny_spec());
    problem_ = load_problem(directory_source(dir_.path()), "test/tiny");
    triton_ = find_dsl("triton");
    ASSERT_NE(triton_, nullptr);
    std::string why;
    if (!triton_->usable(&why)) GTEST_SKIP() << "triton is not usable here: " << why;
  }

  // The message of the `failure` (submission_error: refused; compile_failure: counted) that preparing
  // `source` fails with.
  template <class failure = submission_error>
  std::string failure_of(const std::string &source, const frontend_environment &env = {}) {
    try {
      triton_->prepare(source, problem_, plan_role::submission, env);
    } catch (const failure &e) {
      return e.what();
    }
    ADD_FAILURE() << "prepared: " << source;
    return {};
  }

  // What each of the hostile submission's five steps did, seen from outside.
  struct escapes {
    std::string message; // its compile error, with the submission's own account of each step
    bool tmp_written = false, home_read = false, connected = false, sleeper_survived = false, ledger_changed = false;
  };

  escapes run_hostile(const frontend_environment &env) {
    testing::temp_dir outside;
    std::string secret = "home secret " + std::to_string(::getpid());
    fs::path home = outside.write("home/.bashrc", secret + "\n").parent_path();
    fs::path ledger = outside.write("session.mkbl", "intact records\n");
    fs::path tmp_marker = fs::temp_directory_path() / ("mkb-hostile-" + std::to_string(::getpid()));
    fs::remove(tmp_marker);
    std::string sleep_seconds = std::to_string(290 + ::getpid() % 97);
    listener tcp;
    // The session's ledger, held open as an embedding program would, and not even close-on-exec.
    int ledger_fd = ::open(ledger.c_str(), O_WRONLY | O_APPEND);
    scoped_environment fake_home("HOME", home.string());

    std::string source = fill_template(read_file(testing::source_dir() + "/tests/dsl/hostile/escape_triton.py"),
                                       {{"TMP_MARKER", tmp_marker.string()},
                                        {"HOME_FILE", (home / ".bashrc").string()},
                                        {"PORT", std::to_string(tcp.port())},
                                        {"SLEEP_SECONDS", sleep_seconds},
                                        {"LIBRARY_PID", std::to_string(::getpid())},
                                        {"LEDGER", ledger.string()}});
    escapes seen;
    seen.message = failure_of<compile_failure>(source, env); // it raises at the end, to tell
    ::close(ledger_fd);

    seen.tmp_written = fs::exists(tmp_marker);
    fs::remove(tmp_marker);
    seen.home_read = seen.message.find(secret) != std::string::npos;
    seen.connected = tcp.someone_connected();
    // The frontend has answered: its process tree must be gone within moments (the sleeper, unconfined,
    // lives for minutes). Settle first: `setsid` forks before the sleeper starts.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    pid_t sleeper = find_sleeper(sleep_seconds);
    for (int i = 0; i < 250 && sleeper; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      sleeper = find_sleeper(sleep_seconds);
    }
    seen.sleeper_survived = sleeper != 0;
    if (sleeper) ::kill(sleeper, SIGKILL);
    seen.ledger_changed = read_file(ledger) != "intact records\n";
    return seen;
  }

  testing::temp_dir dir_;
  problem problem_;
  const dsl *triton_ = nullptr;
};

TEST_F(Sandbox, EachOfTheFiveEscapesFails) {
  escapes seen = run_hostile(frontend_environment{});
  ASSERT_NE(seen.message.find("MKB-HOSTILE-OUTCOMES"), std::string::npos) << "the hostile code did not run:\n" << seen.message;
  // Its own account (writing to /tmp and starting a process work, inside: the checks below say where).
  for (const char *step : {"read_home", "connect", "reach_ledger"})
    EXPECT_NE(seen.message.find(fmt::format("[{}] blocked", step)), std::string::npos) << step << ":\n" << seen.message;
  EXPECT_FALSE(seen.tmp_written) << "a file appeared in the host's /tmp";
  EXPECT_FALSE(seen.home_read) << "the home file's content came back";
  EXPECT_FALSE(seen.connected) << "a connection reached 127.0.0.1";
  EXPECT_FALSE(seen.sleeper_survived) << "a process started by the submission outlived the frontend";
  EXPECT_FALSE(seen.ledger_changed) << "the ledger was written";
}

TEST_F(Sandbox, UnconfinedTheSameChecksSeeEveryEscape) {
  // The control: it shows that each check above can fail.
  frontend_environment env;
  env.sandbox = false;
  escapes seen = run_hostile(env);
  ASSERT_NE(seen.message.find("MKB-HOSTILE-OUTCOMES"), std::string::npos) << seen.message;
  EXPECT_TRUE(seen.tmp_written) << seen.message;
  EXPECT_TRUE(seen.home_read) << seen.message;
  EXPECT_TRUE(seen.connected) << seen.message;
  EXPECT_TRUE(seen.sleeper_survived) << seen.message;
  EXPECT_TRUE(seen.ledger_changed) << seen.message;
}


TEST_F(Sandbox, WithoutOneSubmissionsAreRefusedUnlessTheUserOptsOut) {
  scoped_environment missing("MKB_BWRAP", "/nonexistent/bwrap");
  std::string message = failure_of(triton_scale);
  EXPECT_NE(message.find("'/nonexistent/bwrap'"), std::string::npos) << message;
  EXPECT_NE(message.find("MKB_NO_SANDBOX=1"), std::string::npos) << message;
  EXPECT_NE(message.find("--no-sandbox"), std::string::npos) << message;
  EXPECT_FALSE(python_sandbox_for("python3").usable());

  frontend_environment unconfined;
  unconfined.sandbox = false;
  EXPECT_EQ(triton_->prepare(triton_scale, problem_, plan_role::submission, unconfined).module.ptx.size(), 1u);
  scoped_environment opt_out("MKB_NO_SANDBOX", "1");
  EXPECT_TRUE(sandbox_disabled_by_environment());
  EXPECT_EQ(triton_->prepare(triton_scale, problem_, plan_role::submission).module.ptx.size(), 1u);
}

TEST_F(Sandbox, ShowsTheInterpreterItsPackagesButNotTheHome) {
  const python_sandbox &box = python_sandbox_for("python3");
  ASSERT_TRUE(box.usable()) << box.interpreter_error << box.sandbox_error;
  EXPECT_EQ(box.interpreter.front(), '/') << box.interpreter;
  std::string home = environment("HOME").value_or("/nonexistent");
  for (const std::string &folder : box.read_only) {
    EXPECT_NE(folder, "/");
    EXPECT_NE(folder, home);
    EXPECT_NE(home.rfind(folder + "/", 0), 0u) << folder << " holds the home " << home;
  }
}

} // namespace
} // namespace mkb
