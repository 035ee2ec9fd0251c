#include "cli/listings.hpp"

#include "core/error.hpp"
#include "mkb.h"

namespace mkb::cli {

namespace {

using listing = mkb_status (*)(const mkb_open_options *, char **, char **);

std::string owned_answer(listing list, const mkb_open_options &options) {
  char *json = nullptr, *why = nullptr;
  mkb_status s = list(&options, &json, &why);
  std::string text = json ? json : "", reason = why ? why : mkb_status_name(s);
  mkb_free(json);
  mkb_free(why);
  if (s != MKB_OK) fail(s, "{}", reason);
  return text;
}

} // namespace

std::string list_problems_json(const std::string &suite_path) {
  mkb_open_options options;
  mkb_open_options_init(&options, sizeof options);
  if (!suite_path.empty()) options.suite_path = suite_path.c_str();
  return owned_answer(mkb_list_problems, options);
}

std::string list_dsls_json(bool no_sandbox) {
  mkb_open_options options;
  mkb_open_options_init(&options, sizeof options);
  if (no_sandbox) options.flags |= MKB_OPEN_NO_SANDBOX;
  return owned_answer(mkb_list_dsls, options);
}

} // namespace mkb::cli
