#include "worker/worker_loop.hpp"

#include <unistd.h>

#include <cstdio>

#include "core/error.hpp"
#include "cuda/compile_cache.hpp"
#include "cuda/nvrtc_compiler.hpp"
#include "wire/channel.hpp"
#include "wire/codec.hpp"
#include "worker/draw.hpp"
#include "worker/failure.hpp"

namespace mkb::worker {

worker_loop::~worker_loop() = default;

int worker_loop::serve() {
  std::vector<uint8_t> frame;
  for (;;) {
    if (wire::receive_frame(channel_fd_, frame) != wire::receive_status::ok) return 0;
    std::optional<worker_request> request = wire::decode_request(frame);
    if (!request) {
      std::fprintf(stderr, "mkb-worker: a malformed request\n");
      return 2;
    }
    id_ = request->id;
    try {
      std::visit([this](const auto &body) { answer(body); }, request->body);
    } catch (const evaluation_failure &f) {
      send(worker_failure{f.what()});
      if (f.context_lost()) end_after_lost_context();
    } catch (const std::exception &e) {
      send(worker_failure{e.what()});
    }
  }
}

void worker_loop::end_after_lost_context() {
  // Any CUDA call now (freeing memory, destroying the context) could wait on a kernel that never ends.
  // Exiting without destructors lets the driver tear the context down with the process.
  _exit(exit_context_lost);
}

void worker_loop::send(response_body body) {
  try {
    wire::send_frame(channel_fd_, wire::encode_response({id_, std::move(body)}));
  } catch (const error &e) {
    if (e.status() != MKB_ERR_WORKER) throw;
    // The library is gone: nobody is left to answer or to read a message. Exit at once, quietly and
    // without destructors, as after a lost context (a CUDA call may be in flight).
    _exit(0);
  }
}

void worker_loop::answer(const unknown_request &) { send(worker_failure{"unknown request"}); }

std::vector<device_info> worker_loop::devices(int *driver_version) {
  const driver_api &cu = load_driver();
  *driver_version = cu.driver_version;
  int count = 0;
  check_cuda(cu.cuDeviceGetCount(&count), "cuDeviceGetCount");
  std::vector<device_info> found;
  for (int i = 0; i < count; ++i) found.push_back(query_device(cu, i));
  return found;
}

void worker_loop::answer(const ping_request &) {
  worker_status status;
  status.worker_version = MKB_VERSION_STRING;
  status.pid = static_cast<int>(getpid());
  status.nvrtc_version = nvrtc_version();
  try {
    status.devices = devices(&status.driver_version);
    status.driver_loaded = true;
  } catch (const std::exception &e) {
    status.driver_error = e.what();
  }
  send(std::move(status));
}

void worker_loop::answer(const compile_request &request) {
  std::string arch = request.arch.empty() ? device_arch() : request.arch;
  compile_cache cache(request.cache_dir);
  const module_source &m = request.code;
  cached_compile c = cache.compile(module_code{m.name, m.source, m.include_dirs, m.ptx}, arch);
  send(compile_answer{c.output.ok, c.cache_hit, c.output.log, c.output.cubin.size(), c.output.ptx.size(),
                      c.output.milliseconds, c.key.hex()});
}

evaluation_result worker_loop::evaluate(const evaluation_request &request, const progress_callback &progress) {
  if (request.settings.compile_only) return mkb::worker::evaluate(nullptr, nullptr, request, progress);
  try {
    open_gpu(request.settings.cache_dir);
  } catch (const std::exception &e) {
    evaluation_result result;
    result.verdict = MKB_VERDICT_REFUSED;
    result.infrastructure_error = true;
    result.detail = std::string("no usable GPU: ") + e.what();
    return result;
  }
  return mkb::worker::evaluate(gpu_.get(), harness_.get(), request, progress);
}

void worker_loop::answer(const evaluation_request &request) {
  evaluation_result result = evaluate(request, [this](const std::string &stage) { send(stage_report{stage}); });
  const bool context_lost = result.worker_must_exit;
  send(std::move(result));
  if (context_lost) end_after_lost_context();
}

void worker_loop::answer(const draw_request &request) {
  open_gpu(request.cache_dir);
  send(draw_answer{write_draw(*gpu_, *harness_, request)});
}

void worker_loop::open_gpu(const std::string &cache_dir) {
  if (gpu_) return;
  gpu_ = std::make_unique<gpu>(ordinal_);
  harness_ = std::make_unique<harness_kernels>(*gpu_, compile_cache(cache_dir), device_arch());
}

// Without a device there is no architecture to guess: a request that needs one fails, naming why.
std::string worker_loop::device_arch() {
  const driver_api &cu = load_driver();
  device_info d = query_device(cu, ordinal_);
  return arch_for_compute_capability(d.major, d.minor);
}

} // namespace mkb::worker
