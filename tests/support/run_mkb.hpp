// Runs the built `mkb` tool as a user does, for the tests of src/cli/.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/files.hpp"
#include "support/paths.hpp"
#include "support/temp_dir.hpp"

namespace mkb::testing {

struct mkb_outcome {
  int exit_code = -1;
  std::string out, err;
};

// `mkb ARGUMENTS...`, with `environment` ("NAME=value" words) before it; its output goes through `dir`.
inline mkb_outcome run_mkb(const temp_dir &dir, const std::vector<std::string> &arguments,
                           const std::vector<std::string> &environment = {}) {
  auto quoted = [](const std::string &s) { return "'" + s + "'"; }; // test paths hold no quotes
  std::string command = "env";
  for (const std::string &e : environment) command += " " + quoted(e);
  command += " " + quoted((test_binary_dir() / "mkb").string());
  for (const std::string &a : arguments) command += " " + quoted(a);
  auto out = dir.path() / "stdout", err = dir.path() / "stderr";
  int status = std::system((command + " >" + quoted(out.string()) + " 2>" + quoted(err.string())).c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out), read_file(err)};
}

// `mkb ARGUMENTS...` with its stdout and stderr into one pipe that the test reads while it runs, line
// by line, as a program downstream of `mkb ... 2>&1 |` would.
class piped_mkb {
public:
  explicit piped_mkb(const std::vector<std::string> &arguments, const std::vector<std::string> &environment = {}) {
    int ends[2];
    if (::pipe2(ends, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    std::string program = (test_binary_dir() / "mkb").string();
    std::vector<std::string> words = {"env"};
    words.insert(words.end(), environment.begin(), environment.end());
    words.push_back(program);
    words.insert(words.end(), arguments.begin(), arguments.end());
    std::vector<char *> argv; // built before fork(): the child only calls async-signal-safe functions
    for (std::string &w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(ends[1], 1);
      ::dup2(ends[1], 2);
      ::execvp("env", argv.data());
      ::_exit(127);
    }
    ::close(ends[1]);
    out_ = ::fdopen(ends[0], "r");
  }
  ~piped_mkb() {
    if (out_) std::fclose(out_);
    if (pid_ > 0 && !exit_code_) ::waitpid(pid_, nullptr, 0);
  }
  piped_mkb(const piped_mkb &) = delete;
  piped_mkb &operator=(const piped_mkb &) = delete;

  // The next line as soon as it is written; nullopt at the end of the output.
  std::optional<std::string> next_line() {
    char *line = nullptr;
    size_t capacity = 0;
    ssize_t n = ::getline(&line, &capacity, out_);
    std::optional<std::string> text;
    if (n >= 0) text = std::string(line, static_cast<size_t>(n));
    std::free(line);
    return text;
  }
  // Whether the process has exited (reaping it if so).
  bool exited() {
    if (exit_code_) return true;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) != pid_) return false;
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return true;
  }
  int wait() {
    while (next_line()) {
    }
    if (!exit_code_) {
      int status = 0;
      ::waitpid(pid_, &status, 0);
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    return *exit_code_;
  }

private:
  pid_t pid_ = -1;
  std::FILE *out_ = nullptr;
  std::optional<int> exit_code_;
};

} // namespace mkb::testing
