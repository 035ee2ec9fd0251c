#include "dsl/python_frontend.hpp"

#include <flatbuffers/idl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include "core/embedded_files.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/json_writer.hpp"
#include "core/output_tail.hpp"
#include "core/process.hpp"
#include "dsl/sandbox.hpp"

namespace mkb {

// The folder itself, without the memory of earlier answers.
static std::optional<std::string> find_cutlass_include(const frontend_environment &env, std::string *why);

namespace {

// A private folder for one run: the driver script, and the submission it writes next to it.
class scratch_folder {
public:
  scratch_folder() {
    std::error_code ec;
    std::filesystem::path temp = std::filesystem::temp_directory_path(ec);
    if (ec) fail(MKB_ERR_WORKER, "cannot create a folder for the DSL frontend: no temporary folder ({})", ec.message());
    std::string pattern = (temp / "mkb-frontend-XXXXXX").string();
    if (!mkdtemp(pattern.data()))
      fail(MKB_ERR_WORKER, "cannot create a folder for the DSL frontend in {}: {}", temp.string(), std::strerror(errno));
    path_ = pattern;
  }
  ~scratch_folder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path &path() const { return path_; }

private:
  std::filesystem::path path_;
};

void send_all(int socket, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(socket, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) throw submission_error("the DSL frontend stopped reading its request");
    data.remove_prefix(static_cast<size_t>(n));
  }
  ::shutdown(socket, SHUT_WR);
}

// How much of the frontend's own output an error message quotes (the rest is the DSL's chatter).
constexpr size_t max_output_in_message = 4096;

// An answer is code and a few facts: far below this. A submission that writes more is refused.
constexpr size_t max_answer_bytes = size_t(64) << 20;

// Everything the child writes until it closes the socket, or nullopt when the deadline passes.
std::optional<std::string> receive_all(int socket, std::chrono::steady_clock::time_point deadline) {
  std::string data;
  char buffer[1 << 16];
  for (;;) {
    if (data.size() > max_answer_bytes)
      throw submission_error(fmt::format("the DSL frontend's answer exceeds {} MiB", max_answer_bytes >> 20));
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd p{socket, POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (ready <= 0) continue;
    ssize_t n = ::recv(socket, buffer, sizeof buffer, 0);
    if (n <= 0) return data;
    data.append(buffer, static_cast<size_t>(n));
  }
}

std::vector<uint8_t> parse_answer(const std::string &json) {
  const embedded_file *schema = find_embedded(embedded::resources(), "dsl/frontend.fbs");
  if (!schema) fail(MKB_ERR_INTERNAL, "the frontend schema is not built in");
  flatbuffers::IDLOptions options;
  options.strict_json = true;
  flatbuffers::Parser parser(options);
  std::string schema_text(schema->data);
  if (!parser.Parse(schema_text.c_str())) fail(MKB_ERR_INTERNAL, "frontend schema: {}", parser.error_);
  if (!parser.Parse(json.c_str()))
    throw submission_error(fmt::format("the DSL frontend's answer does not parse: {}", parser.error_));
  const uint8_t *data = parser.builder_.GetBufferPointer();
  std::vector<uint8_t> buffer(data, data + parser.builder_.GetSize());
  flatbuffers::Verifier verifier(buffer.data(), buffer.size());
  if (!frontend::VerifyResponseBuffer(verifier)) throw submission_error("the DSL frontend's answer fails verification");
  return buffer;
}

} // namespace

frontend_answer run_python_frontend(const frontend_environment &env, const std::string &request_json) {
  const embedded_file *script = find_embedded(embedded::resources(), "dsl/frontends/mkb_frontend.py");
  if (!script) fail(MKB_ERR_INTERNAL, "the DSL frontend script is not built in");
  scratch_folder folder;
  std::filesystem::path driver = folder.path() / "mkb_frontend.py";
  write_file_atomic(driver, script->data, false);

  spawn_options options;
  options.capture_output = true;
  options.limits = frontend_limits(env.time_limit);
  std::string executable = env.python;
  std::vector<std::string> arguments = {driver.string()};
  if (env.sandbox && !sandbox_disabled_by_environment()) {
    const python_sandbox &box = python_sandbox_for(env.python);
    if (!box.interpreter_error.empty()) throw submission_error(box.interpreter_error);
    if (!box.sandbox_error.empty())
      throw submission_error(fmt::format("Python DSL submissions run in a sandbox, and none is usable here: {}. To run "
                                         "them unconfined instead, at your own risk: set MKB_NO_SANDBOX=1, or pass "
                                         "MKB_OPEN_NO_SANDBOX to mkb_open, or --no-sandbox to mkb",
                                         box.sandbox_error));
    sandboxed_command command = sandboxed_python(box, driver.string());
    executable = command.executable;
    arguments = std::move(command.arguments);
    options.environment = std::move(command.environment);
  }
  child_process child;
  try {
    child = child_process::spawn(executable, arguments, options);
  } catch (const error &e) {
    throw submission_error(fmt::format("the Python interpreter '{}' cannot run: {}", env.python, e.what()));
  }
  // Whatever goes wrong, what the frontend printed (the DSL's native parts included) says why.
  auto with_output = [&child](std::string message) {
    std::string output = child.output()->take();
    if (!output.empty()) message += "\nThe frontend's output:\n" + last_bytes_of(output, max_output_in_message);
    return message;
  };
  auto deadline = std::chrono::steady_clock::now() + env.time_limit;
  std::optional<std::string> answer;
  try {
    send_all(child.socket(), request_json);
    answer = receive_all(child.socket(), deadline);
  } catch (const submission_error &e) {
    child.kill();
    throw submission_error(with_output(e.what()));
  }
  if (!answer) {
    // As NVRTC's compile deadline: the submission's code runs and compiles there, so it is its time.
    child.kill();
    throw compile_failure(with_output(fmt::format("compiling took longer than {} s and was stopped", env.time_limit.count())));
  }
  if (answer->empty()) {
    // Give it a moment to end, so that how it ended can be told.
    std::optional<std::string> ended;
    auto patience = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (!(ended = child.try_reap()) && std::chrono::steady_clock::now() < patience)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::string how = ended ? *ended : "did not end: " + child.kill();
    throw submission_error(with_output(fmt::format("the DSL frontend ({}) answered nothing: it {}", env.python, how)));
  }
  // It has answered: whatever it left running goes now (in the sandbox, its whole process tree).
  child.kill();
  try {
    return {parse_answer(*answer), child.output()->take()};
  } catch (const submission_error &e) {
    throw submission_error(with_output(e.what()));
  }
}

std::optional<std::string> cutlass_include_dir(const frontend_environment &env, std::string *why) {
  // Asking the interpreter costs a process start: remember each answer.
  static std::mutex mutex;
  static std::map<std::string, std::pair<std::optional<std::string>, std::string>> known;
  std::string key = env.python + '\n' + env.cutlass_include;
  {
    std::lock_guard lock(mutex);
    if (auto it = known.find(key); it != known.end()) {
      if (why) *why = it->second.second;
      return it->second.first;
    }
  }
  std::string reason;
  std::optional<std::string> found = find_cutlass_include(env, &reason);
  std::lock_guard lock(mutex);
  known.emplace(key, std::pair{found, reason});
  if (why) *why = reason;
  return found;
}

static std::optional<std::string> find_cutlass_include(const frontend_environment &env, std::string *why) {
  auto holds_cute = [](const std::string &dir) {
    std::error_code ec;
    return std::filesystem::exists(std::filesystem::path(dir) / "cute" / "tensor.hpp", ec);
  };
  std::string from;
  if (!env.cutlass_include.empty()) from = env.cutlass_include;
  else if (auto dir = environment("MKB_CUTLASS_INCLUDE")) from = *dir;
  if (!from.empty()) {
    if (holds_cute(from)) return from;
    if (why) *why = fmt::format("'{}' holds no cute/tensor.hpp", from);
    return std::nullopt;
  }
  json_writer request;
  request.begin_object().field("dsl", "cute").field("probe", true).end_object();
  try {
    // Only the library's own probe runs, no submission code: `cute` needs no sandbox.
    frontend_environment unconfined = env;
    unconfined.sandbox = false;
    frontend_answer answer = run_python_frontend(unconfined, request.str());
    const frontend::Response *r = answer.response();
    if (r->error()) {
      if (why) *why = r->error()->str();
      return std::nullopt;
    }
    std::string dir = r->path() ? r->path()->str() : "";
    if (holds_cute(dir)) return dir;
    if (why) *why = fmt::format("the nvidia-cutlass package's folder '{}' holds no cute/tensor.hpp", dir);
  } catch (const std::runtime_error &e) { // submission_error, or compile_failure when it took too long
    if (why) *why = e.what();
  }
  return std::nullopt;
}

} // namespace mkb
