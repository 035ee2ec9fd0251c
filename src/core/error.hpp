// The one exception type inside libmkb. Every failure carries the public status it maps to, so the
// C boundary (src/api) turns any error into a status and a text without guessing.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>

#include "mkb.h"

namespace mkb {

class error : public std::runtime_error {
public:
  error(mkb_status status, const std::string &message) : std::runtime_error(message), status_(status) {}
  mkb_status status() const noexcept { return status_; }

private:
  mkb_status status_;
};

template <typename... Args>
[[noreturn]] void fail(mkb_status status, fmt::format_string<Args...> format, Args &&...args) {
  throw error(status, fmt::format(format, std::forward<Args>(args)...));
}

} // namespace mkb
