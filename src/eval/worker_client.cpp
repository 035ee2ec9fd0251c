#include "eval/worker_client.hpp"

#include <unistd.h>

#include <filesystem>

#include "core/error.hpp"
#include "core/files.hpp"
#include "wire/channel.hpp"
#include "wire/codec.hpp"

namespace mkb {

std::string find_worker_executable(const std::string &configured) {
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates;
  if (!configured.empty()) candidates.push_back(configured);
  else if (auto env = environment("MKB_WORKER")) candidates.push_back(*env);
  else {
    fs::path here = own_binary_dir();
    candidates = {here / ".." / "libexec" / "mkb-worker", here / ".." / "bin" / "mkb-worker", here / "mkb-worker"};
  }
  std::string tried;
  for (const fs::path &c : candidates) {
    if (::access(c.c_str(), X_OK) == 0) return fs::weakly_canonical(c).string();
    tried += (tried.empty() ? "" : ", ") + c.string();
  }
  fail(MKB_ERR_WORKER, "cannot find the mkb-worker executable (tried {}); set MKB_WORKER or worker_path", tried);
}

worker_client::worker_client(std::string executable, int device) : executable_(std::move(executable)), device_(device) {}

void worker_client::ensure_started() {
  if (child_.running()) {
    if (!child_.try_reap()) return; // still running
  }
  if (started_once_) ++restarts_;
  spawn_options options;
  options.capture_output = true;
  child_ = child_process::spawn(executable_, {"--device", std::to_string(device_)}, options);
  started_once_ = true;
}

void worker_client::stop() { child_.kill(); }

worker_reply worker_client::request(request_body body, const stage_budget &budget) {
  const std::vector<uint8_t> frame = wire::encode_request({++next_id_, std::move(body)});
  ensure_started();
  child_.output()->take(); // printed between requests: part of no evaluation
  worker_reply reply = exchange(frame, budget);
  if (output_tail *output = child_.output()) reply.output = output->take(); // kept after a kill, too
  return reply;
}

worker_reply worker_client::exchange(const std::vector<uint8_t> &frame, const stage_budget &budget) {
  worker_reply reply;
  auto until = std::chrono::steady_clock::now() + budget("");
  try {
    wire::send_frame(child_.socket(), frame);
  } catch (const error &) {
    // The worker died since its last answer: start a new one and try once more.
    child_.kill();
    ensure_started();
    wire::send_frame(child_.socket(), frame);
  }
  std::vector<uint8_t> received;
  for (;;) {
    wire::receive_status status = wire::receive_frame(child_.socket(), received, until);
    if (status == wire::receive_status::timed_out) {
      reply.status = worker_reply::timed_out;
      reply.how_it_ended = child_.kill();
      return reply;
    }
    if (status == wire::receive_status::closed) {
      reply.status = worker_reply::died;
      // Give the process a moment to be reaped so its exit status can be reported.
      for (int i = 0; i < 100; ++i) {
        if (auto ended = child_.try_reap()) {
          reply.how_it_ended = *ended;
          return reply;
        }
        usleep(10000);
      }
      reply.how_it_ended = child_.kill();
      return reply;
    }
    std::optional<worker_response> response = wire::decode_response(received);
    if (!response) {
      reply.status = worker_reply::died;
      reply.how_it_ended = "sent a malformed message and was stopped (" + child_.kill() + ")";
      return reply;
    }
    if (const stage_report *progress = std::get_if<stage_report>(&response->body)) {
      reply.last_stage = progress->stage;
      until = std::chrono::steady_clock::now() + budget(reply.last_stage);
      continue;
    }
    reply.answer = std::move(response->body);
    return reply;
  }
}

worker_status worker_client::ping(std::chrono::milliseconds deadline) {
  worker_reply reply = request(ping_request{}, deadline);
  worker_status *status = std::get_if<worker_status>(&reply.answer);
  if (reply.status != worker_reply::answered || !status)
    fail(MKB_ERR_WORKER, "the worker '{}' did not answer a ping ({})", executable_,
         reply.how_it_ended.empty() ? "unexpected answer" : reply.how_it_ended);
  return std::move(*status);
}

} // namespace mkb
