#include "worker/worker_loop.hpp"

#include <unistd.h>

#include <cstdio>

#include "core/error.hpp"
#include "cuda/compile_cache.hpp"
#include "cuda/nvrtc_compiler.hpp"
#include "wire/channel.hpp"
#include "worker/failure.hpp"

namespace mkb::worker {

worker_loop::~worker_loop() = default;

int worker_loop::serve() {
  std::vector<uint8_t> frame;
  for (;;) {
    if (wire::receive_frame(channel_fd_, frame) != wire::receive_status::ok) return 0;
    const wire::Request *request = wire::verified_root<wire::Request>(frame);
    if (!request) {
      std::fprintf(stderr, "mkb-worker: a malformed request\n");
      return 2;
    }
    id_ = request->id();
    try {
      switch (request->body_type()) {
      case wire::RequestBody::Ping: ping(); break;
      case wire::RequestBody::Compile: compile(*request->body_as_Compile()); break;
      case wire::RequestBody::Evaluate:
        if (!answer_evaluate(*request->body_as_Evaluate())) end_after_lost_context();
        break;
      case wire::RequestBody::Draw: draw(*request->body_as_Draw()); break;
      default: answer_failure("unknown request"); break;
      }
    } catch (const evaluation_failure &f) {
      answer_failure(f.what());
      if (f.context_lost()) end_after_lost_context();
    } catch (const std::exception &e) {
      answer_failure(e.what());
    }
  }
}

void worker_loop::end_after_lost_context() {
  // Any CUDA call now (freeing memory, destroying the context) could wait on a kernel that never ends.
  // Exiting without destructors lets the driver tear the context down with the process.
  _exit(exit_context_lost);
}

void worker_loop::send(const std::vector<uint8_t> &frame) {
  try {
    wire::send_frame(channel_fd_, frame);
  } catch (const error &e) {
    if (e.status() != MKB_ERR_WORKER) throw;
    // The library is gone: nobody is left to answer or to read a message. Exit at once, quietly and
    // without destructors, as after a lost context (a CUDA call may be in flight).
    _exit(0);
  }
}

void worker_loop::answer_failure(const std::string &message) {
  flatbuffers::FlatBufferBuilder b;
  send(wire::finish_response(b, id_, wire::CreateFailure(b, b.CreateString(message))));
}

std::vector<wire::device_info> worker_loop::devices(int *driver_version) {
  const driver_api &cu = load_driver();
  *driver_version = cu.driver_version;
  int count = 0;
  check_cuda(cu.cuDeviceGetCount(&count), "cuDeviceGetCount");
  std::vector<wire::device_info> found;
  for (int i = 0; i < count; ++i) found.push_back(query_device(cu, i));
  return found;
}

void worker_loop::ping() {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<wire::DeviceInfo>> encoded;
  std::string driver_error;
  int driver_version = 0;
  bool loaded = false;
  try {
    for (const wire::device_info &d : devices(&driver_version)) encoded.push_back(wire::encode(b, d));
    loaded = true;
  } catch (const std::exception &e) {
    driver_error = e.what();
  }
  auto pong = wire::CreatePong(b, b.CreateString(MKB_VERSION_STRING), static_cast<int>(getpid()), loaded,
                               b.CreateString(driver_error), driver_version, b.CreateString(nvrtc_version()),
                               b.CreateVector(encoded));
  send(wire::finish_response(b, id_, pong));
}

void worker_loop::compile(const wire::Compile &request) {
  wire::module_source module = wire::decode_module(request.code());
  std::string arch = request.arch() && request.arch()->size() ? request.arch()->str() : device_arch();
  compile_cache cache(request.cache_dir() ? request.cache_dir()->str() : std::string());
  cached_compile c = cache.compile(module_code{module.name, module.source, module.include_dirs, module.ptx}, arch);
  flatbuffers::FlatBufferBuilder b;
  auto result = wire::CreateCompileResult(b, c.output.ok, c.cache_hit, b.CreateString(c.output.log), c.output.cubin.size(),
                                          c.output.ptx.size(), c.output.milliseconds, b.CreateString(c.key.hex()));
  send(wire::finish_response(b, id_, result));
}

wire::evaluation_result worker_loop::evaluate(const wire::Evaluate &request, const progress_callback &progress) {
  bool compile_only = request.settings() && request.settings()->compile_only();
  if (compile_only) return mkb::worker::evaluate(nullptr, nullptr, request, progress);
  try {
    open_gpu(request.settings() && request.settings()->cache_dir() ? request.settings()->cache_dir()->str() : "");
  } catch (const std::exception &e) {
    wire::evaluation_result result;
    result.verdict = MKB_VERDICT_REFUSED;
    result.infrastructure_error = true;
    result.detail = std::string("no usable GPU: ") + e.what();
    return result;
  }
  return mkb::worker::evaluate(gpu_.get(), harness_.get(), request, progress);
}

// False when the context is lost and the worker must exit.
bool worker_loop::answer_evaluate(const wire::Evaluate &request) {
  wire::evaluation_result result = evaluate(request, [this](const std::string &stage) {
    flatbuffers::FlatBufferBuilder b;
    send(wire::finish_response(b, id_, wire::CreateProgress(b, b.CreateString(stage))));
  });
  flatbuffers::FlatBufferBuilder b;
  send(wire::finish_response(b, id_, wire::encode(b, result)));
  return !result.worker_must_exit;
}

void worker_loop::draw(const wire::Draw &request) {
  open_gpu(request.cache_dir() ? request.cache_dir()->str() : "");
  std::vector<std::string> files = write_draw(*gpu_, *harness_, request);
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<flatbuffers::String>> names;
  for (const std::string &f : files) names.push_back(b.CreateString(f));
  send(wire::finish_response(b, id_, wire::CreateDrawResult(b, b.CreateVector(names), b.CreateString(""), true)));
}

void worker_loop::open_gpu(const std::string &cache_dir) {
  if (gpu_) return;
  gpu_ = std::make_unique<gpu>(ordinal_);
  harness_ = std::make_unique<harness_kernels>(*gpu_, compile_cache(cache_dir), device_arch());
}

// Without a device there is no architecture to guess: a request that needs one fails, naming why.
std::string worker_loop::device_arch() {
  const driver_api &cu = load_driver();
  wire::device_info d = query_device(cu, ordinal_);
  return arch_for_compute_capability(d.major, d.minor);
}

} // namespace mkb::worker
