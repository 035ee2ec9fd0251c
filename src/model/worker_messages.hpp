// Everything the library and the worker say to each other, as plain values: one request, answered by
// any number of stage reports and then one answer. wire/codec turns them into frames and back.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "model/device_info.hpp"
#include "model/evaluation_request.hpp"
#include "model/evaluation_result.hpp"

namespace mkb {

struct ping_request {};

// One draw's inputs and the anchor's outputs, written as files under out_dir (mkb draw).
struct draw_request {
  problem_instance problem;
  role_code anchor;
  uint64_t seed = 0;
  std::string out_dir;
  std::string cache_dir;
};

struct compile_request {
  module_source code;
  std::string arch; // empty: the device's own
  std::string cache_dir;
};

// A request whose body this side does not know (a newer peer); verified, so its id can be answered.
struct unknown_request {};

using request_body = std::variant<unknown_request, ping_request, evaluation_request, draw_request, compile_request>;

struct worker_request {
  uint64_t id = 0;
  request_body body;
};

struct worker_status {
  bool driver_loaded = false;
  std::string driver_error;
  int driver_version = 0;
  std::string nvrtc_version;
  std::string worker_version;
  int pid = 0;
  std::vector<device_info> devices;
};

struct draw_answer {
  std::vector<std::string> files;
};

struct compile_answer {
  bool ok = false;
  bool cache_hit = false;
  std::string log;
  uint64_t cubin_bytes = 0, ptx_bytes = 0;
  double milliseconds = 0;
  std::string key;
};

struct stage_report {
  std::string stage;
};

// The worker could not carry out the request (not a verdict: the request itself failed).
struct worker_failure {
  std::string message;
};

struct unknown_answer {};

using response_body =
    std::variant<unknown_answer, worker_status, evaluation_result, draw_answer, compile_answer, stage_report, worker_failure>;

struct worker_response {
  uint64_t id = 0;
  response_body body;
};

} // namespace mkb
