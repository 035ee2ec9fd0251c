// mkb-worker: the process that owns one GPU for libmkb. It reads requests from file descriptor 3
// (a socket the library created), answers each with one response (after any progress messages),
// and exits when the library closes the socket, or after an answer that left the CUDA context
// unusable (a fault or a hang), so that the library starts a fresh one.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "core/files.hpp"
#include "cuda/compile_cache.hpp"
#include "cuda/nvrtc_compiler.hpp"
#include "wire/channel.hpp"
#include "wire/codec.hpp"
#include "worker/evaluation.hpp"
#include "worker/failure.hpp"

namespace mkb::worker {
namespace {

constexpr int channel_fd = 3;
constexpr int exit_context_lost = 3;

class worker_loop {
public:
  explicit worker_loop(int ordinal) : ordinal_(ordinal) {}

  int serve() {
    std::vector<uint8_t> frame;
    for (;;) {
      if (wire::receive_frame(channel_fd, frame) != wire::receive_status::ok) return 0;
      const wire::Request *request = wire::verified_root<wire::Request>(frame);
      if (!request) return fail_exit("a malformed request");
      id_ = request->id();
      try {
        switch (request->body_type()) {
        case wire::RequestBody::Ping: ping(); break;
        case wire::RequestBody::Compile: compile(*request->body_as_Compile()); break;
        case wire::RequestBody::Evaluate:
          if (!evaluate(*request->body_as_Evaluate())) return exit_context_lost;
          break;
        case wire::RequestBody::Draw: draw(*request->body_as_Draw()); break;
        default: answer_failure("unknown request"); break;
        }
      } catch (const evaluation_failure &f) {
        answer_failure(f.what());
        if (f.context_lost()) return exit_context_lost;
      } catch (const std::exception &e) {
        answer_failure(e.what());
      }
    }
  }

private:
  int fail_exit(const char *what) {
    std::fprintf(stderr, "mkb-worker: %s\n", what);
    return 2;
  }

  void send(const std::vector<uint8_t> &frame) { wire::send_frame(channel_fd, frame); }

  void answer_failure(const std::string &message) {
    flatbuffers::FlatBufferBuilder b;
    send(wire::finish_response(b, id_, wire::CreateFailure(b, b.CreateString(message))));
  }

  void ping() {
    flatbuffers::FlatBufferBuilder b;
    std::vector<flatbuffers::Offset<wire::DeviceInfo>> devices;
    std::string driver_error;
    int driver_version = 0;
    bool loaded = false;
    try {
      const driver_api &cu = load_driver();
      loaded = true;
      driver_version = cu.driver_version;
      int count = 0;
      check_cuda(cu.cuDeviceGetCount(&count), "cuDeviceGetCount");
      for (int i = 0; i < count; ++i) devices.push_back(wire::encode(b, query_device(cu, i)));
    } catch (const std::exception &e) {
      driver_error = e.what();
    }
    auto pong = wire::CreatePong(b, b.CreateString(MKB_VERSION_STRING), static_cast<int>(getpid()), loaded,
                                 b.CreateString(driver_error), driver_version, b.CreateString(nvrtc_version()),
                                 b.CreateVector(devices));
    send(wire::finish_response(b, id_, pong));
  }

  void compile(const wire::Compile &request) {
    wire::module_source module = wire::decode_module(request.code());
    std::string arch = request.arch() && request.arch()->size() ? request.arch()->str() : device_arch();
    compile_cache cache(request.cache_dir() ? request.cache_dir()->str() : std::string());
    cached_compile c = cache.compile(module.source, module.name, arch);
    flatbuffers::FlatBufferBuilder b;
    auto result = wire::CreateCompileResult(b, c.output.ok, c.cache_hit, b.CreateString(c.output.log), c.output.cubin.size(),
                                            c.output.ptx.size(), c.output.milliseconds, b.CreateString(c.key.hex()));
    send(wire::finish_response(b, id_, result));
  }

  // False when the context is lost and the worker must exit.
  bool evaluate(const wire::Evaluate &request) {
    bool compile_only = request.settings() && request.settings()->compile_only();
    gpu *g = nullptr;
    harness_kernels *h = nullptr;
    wire::evaluation_result result;
    if (!compile_only) {
      try {
        open_gpu(request.settings() && request.settings()->cache_dir() ? request.settings()->cache_dir()->str() : "");
        g = gpu_.get();
        h = harness_.get();
      } catch (const std::exception &e) {
        result.verdict = MKB_VERDICT_REFUSED;
        result.infrastructure_error = true;
        result.detail = std::string("no usable GPU: ") + e.what();
      }
    }
    if (compile_only || g) {
      result = mkb::worker::evaluate(g, h, request, [this](const std::string &stage) {
        flatbuffers::FlatBufferBuilder b;
        send(wire::finish_response(b, id_, wire::CreateProgress(b, b.CreateString(stage))));
      });
    }
    flatbuffers::FlatBufferBuilder b;
    send(wire::finish_response(b, id_, wire::encode(b, result)));
    return !result.worker_must_exit;
  }

  void draw(const wire::Draw &request) {
    open_gpu(request.cache_dir() ? request.cache_dir()->str() : "");
    std::vector<std::string> files = write_draw(*gpu_, *harness_, request);
    flatbuffers::FlatBufferBuilder b;
    std::vector<flatbuffers::Offset<flatbuffers::String>> names;
    for (const std::string &f : files) names.push_back(b.CreateString(f));
    send(wire::finish_response(b, id_, wire::CreateDrawResult(b, b.CreateVector(names), b.CreateString(""), true)));
  }

  void open_gpu(const std::string &cache_dir) {
    if (gpu_) return;
    gpu_ = std::make_unique<gpu>(ordinal_);
    harness_ = std::make_unique<harness_kernels>(*gpu_, compile_cache(cache_dir), device_arch());
  }

  std::string device_arch() {
    try {
      const driver_api &cu = load_driver();
      wire::device_info d = query_device(cu, ordinal_);
      return arch_for_compute_capability(d.major, d.minor);
    } catch (const std::exception &) {
      return "sm_90a";
    }
  }

  int ordinal_;
  uint64_t id_ = 0;
  std::unique_ptr<gpu> gpu_;
  std::unique_ptr<harness_kernels> harness_;
};

} // namespace
} // namespace mkb::worker

int main(int argc, char **argv) {
  int ordinal = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--device") == 0 && i + 1 < argc) ordinal = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--version") == 0) {
      std::printf("mkb-worker %s\n", MKB_VERSION_STRING);
      return 0;
    } else {
      std::fprintf(stderr, "usage: mkb-worker [--device N]  (started by libmkb, which talks to it on fd 3)\n");
      return 2;
    }
  }
  if (fcntl(3, F_GETFD) < 0) {
    std::fprintf(stderr, "mkb-worker: no channel on file descriptor 3; libmkb starts this program\n");
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  try {
    return mkb::worker::worker_loop(ordinal).serve();
  } catch (const std::exception &e) {
    std::fprintf(stderr, "mkb-worker: %s\n", e.what());
    return 1;
  }
}
