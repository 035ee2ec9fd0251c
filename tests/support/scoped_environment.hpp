// An environment variable set (or, with nullptr, cleared) for one scope, restored after it.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace mkb::testing {

class scoped_environment {
public:
  scoped_environment(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name)) old_ = old;
    value ? ::setenv(name, value, 1) : ::unsetenv(name);
  }
  scoped_environment(const char *name, const std::string &value) : scoped_environment(name, value.c_str()) {}
  ~scoped_environment() { old_ ? ::setenv(name_, old_->c_str(), 1) : ::unsetenv(name_); }
  scoped_environment(const scoped_environment &) = delete;
  scoped_environment &operator=(const scoped_environment &) = delete;

private:
  const char *name_;
  std::optional<std::string> old_;
};

} // namespace mkb::testing
