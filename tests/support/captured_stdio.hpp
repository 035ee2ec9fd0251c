// Redirects this process's own stdout and stderr (the descriptors, so children that inherit them are
// caught too) into a file for the life of the object: a test shows what reached the caller's stdio.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "core/files.hpp"
#include "support/temp_dir.hpp"

namespace mkb::testing {

class captured_stdio {
public:
  captured_stdio() {
    std::fflush(stdout);
    std::fflush(stderr);
    int file = ::open(path().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    saved_out_ = ::dup(1);
    saved_err_ = ::dup(2);
    ::dup2(file, 1);
    ::dup2(file, 2);
    ::close(file);
  }
  ~captured_stdio() { restore(); }
  captured_stdio(const captured_stdio &) = delete;
  captured_stdio &operator=(const captured_stdio &) = delete;

  // Ends the capture; what arrived meanwhile.
  std::string text() {
    restore();
    return read_file(path());
  }

private:
  std::string path() const { return (dir_.path() / "stdio.txt").string(); }
  void restore() {
    if (saved_out_ < 0) return;
    std::fflush(stdout);
    std::fflush(stderr);
    ::dup2(saved_out_, 1);
    ::dup2(saved_err_, 2);
    ::close(saved_out_);
    ::close(saved_err_);
    saved_out_ = saved_err_ = -1;
  }

  temp_dir dir_;
  int saved_out_ = -1, saved_err_ = -1;
};

} // namespace mkb::testing
