#include "wire/codec.hpp"

#include "wire/codec_values.hpp"

namespace mkb::wire {

namespace {

template <typename Root> const Root *verified_root(const std::vector<uint8_t> &frame) {
  flatbuffers::Verifier verifier(frame.data(), frame.size());
  if (!verifier.VerifyBuffer<Root>(nullptr)) return nullptr;
  return flatbuffers::GetRoot<Root>(frame.data());
}

std::vector<uint8_t> finished(const flatbuffers::FlatBufferBuilder &b) {
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

// Each request body's table.
struct request_encoder {
  flatbuffers::FlatBufferBuilder &b;

  std::pair<RequestBody, flatbuffers::Offset<void>> operator()(const unknown_request &) const {
    return {RequestBody::NONE, 0};
  }
  std::pair<RequestBody, flatbuffers::Offset<void>> operator()(const ping_request &) const {
    return {RequestBody::Ping, CreatePing(b).Union()};
  }
  std::pair<RequestBody, flatbuffers::Offset<void>> operator()(const evaluation_request &r) const {
    auto problem = encode(b, r.problem);
    auto submission = encode(b, plan_role::submission, r.submission);
    auto baseline = encode(b, plan_role::baseline, r.baseline);
    auto anchor = encode(b, plan_role::anchor, r.anchor);
    auto settings = encode(b, r.settings);
    return {RequestBody::Evaluate, CreateEvaluate(b, problem, submission, baseline, anchor, settings, r.seed).Union()};
  }
  std::pair<RequestBody, flatbuffers::Offset<void>> operator()(const draw_request &r) const {
    auto problem = encode(b, r.problem);
    auto anchor = encode(b, plan_role::anchor, r.anchor);
    return {RequestBody::Draw, CreateDraw(b, problem, anchor, r.seed, b.CreateString(r.out_dir),
                                          b.CreateString(r.cache_dir)).Union()};
  }
  std::pair<RequestBody, flatbuffers::Offset<void>> operator()(const compile_request &r) const {
    auto code = encode(b, r.code);
    return {RequestBody::Compile, CreateCompile(b, code, b.CreateString(r.arch), b.CreateString(r.cache_dir)).Union()};
  }
};

struct response_encoder {
  flatbuffers::FlatBufferBuilder &b;

  std::pair<ResponseBody, flatbuffers::Offset<void>> operator()(const unknown_answer &) const {
    return {ResponseBody::NONE, 0};
  }
  std::pair<ResponseBody, flatbuffers::Offset<void>> operator()(const worker_status &s) const {
    std::vector<flatbuffers::Offset<DeviceInfo>> devices;
    for (const device_info &d : s.devices) devices.push_back(encode(b, d));
    return {ResponseBody::Pong,
            CreatePong(b, b.CreateString(s.worker_version), s.pid, s.driver_loaded, b.CreateString(s.driver_error),
                       s.driver_version, b.CreateString(s.nvrtc_version), b.CreateVector(devices)).Union()};
  }
  std::pair<ResponseBody, flatbuffers::Offset<void>> operator()(const evaluation_result &r) const {
    return {ResponseBody::EvaluateResult, encode(b, r).Union()};
  }
  std::pair<ResponseBody, flatbuffers::Offset<void>> operator()(const draw_answer &d) const {
    return {ResponseBody::DrawResult,
            CreateDrawResult(b, b.CreateVectorOfStrings(d.files), b.CreateString(""), true).Union()};
  }
  std::pair<ResponseBody, flatbuffers::Offset<void>> operator()(const compile_answer &c) const {
    return {ResponseBody::CompileResult, CreateCompileResult(b, c.ok, c.cache_hit, b.CreateString(c.log), c.cubin_bytes,
                                                             c.ptx_bytes, c.milliseconds, b.CreateString(c.key)).Union()};
  }
  std::pair<ResponseBody, flatbuffers::Offset<void>> operator()(const stage_report &p) const {
    return {ResponseBody::Progress, CreateProgress(b, b.CreateString(p.stage)).Union()};
  }
  std::pair<ResponseBody, flatbuffers::Offset<void>> operator()(const worker_failure &f) const {
    return {ResponseBody::Failure, CreateFailure(b, b.CreateString(f.message)).Union()};
  }
};

std::vector<std::string> strings(const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>> *v) {
  std::vector<std::string> out;
  if (v)
    for (const flatbuffers::String *s : *v) out.push_back(s->str());
  return out;
}

} // namespace

std::vector<uint8_t> encode_request(const worker_request &request) {
  flatbuffers::FlatBufferBuilder b(1 << 16);
  auto [type, body] = std::visit(request_encoder{b}, request.body);
  b.Finish(CreateRequest(b, request.id, type, body));
  return finished(b);
}

std::vector<uint8_t> encode_response(const worker_response &response) {
  flatbuffers::FlatBufferBuilder b(1 << 12);
  auto [type, body] = std::visit(response_encoder{b}, response.body);
  b.Finish(CreateResponse(b, response.id, type, body));
  return finished(b);
}

std::optional<worker_request> decode_request(const std::vector<uint8_t> &frame) {
  const Request *r = verified_root<Request>(frame);
  if (!r) return std::nullopt;
  worker_request out;
  out.id = r->id();
  if (r->body_as_Ping()) {
    out.body = ping_request{};
  } else if (const Evaluate *e = r->body_as_Evaluate()) {
    evaluation_request q;
    if (e->problem()) q.problem = decode(*e->problem());
    if (e->submission()) q.submission = decode(*e->submission());
    if (e->baseline()) q.baseline = decode(*e->baseline());
    if (e->anchor()) q.anchor = decode(*e->anchor());
    q.settings = decode(e->settings());
    q.seed = e->seed();
    out.body = std::move(q);
  } else if (const Draw *d = r->body_as_Draw()) {
    draw_request q;
    if (d->problem()) q.problem = decode(*d->problem());
    if (d->anchor()) q.anchor = decode(*d->anchor());
    q.seed = d->seed();
    q.out_dir = str(d->out_dir());
    q.cache_dir = str(d->cache_dir());
    out.body = std::move(q);
  } else if (const Compile *c = r->body_as_Compile()) {
    out.body = compile_request{decode_module(c->code()), str(c->arch()), str(c->cache_dir())};
  }
  return out;
}

std::optional<worker_response> decode_response(const std::vector<uint8_t> &frame) {
  const Response *r = verified_root<Response>(frame);
  if (!r) return std::nullopt;
  worker_response out;
  out.id = r->id();
  if (const Pong *p = r->body_as_Pong()) {
    worker_status s;
    s.worker_version = str(p->worker_version());
    s.pid = p->pid();
    s.driver_loaded = p->driver_loaded();
    s.driver_error = str(p->driver_error());
    s.driver_version = p->driver_version();
    s.nvrtc_version = str(p->nvrtc_version());
    if (p->devices())
      for (const DeviceInfo *d : *p->devices()) s.devices.push_back(decode(d));
    out.body = std::move(s);
  } else if (const EvaluateResult *e = r->body_as_EvaluateResult()) {
    out.body = decode(*e);
  } else if (const DrawResult *d = r->body_as_DrawResult()) {
    out.body = draw_answer{strings(d->files())};
  } else if (const CompileResult *c = r->body_as_CompileResult()) {
    out.body = compile_answer{c->ok(), c->cache_hit(), str(c->log()), c->cubin_bytes(), c->ptx_bytes(),
                              c->milliseconds(), str(c->key())};
  } else if (const Progress *progress = r->body_as_Progress()) {
    out.body = stage_report{str(progress->stage())};
  } else if (const Failure *f = r->body_as_Failure()) {
    out.body = worker_failure{str(f->message())};
  }
  return out;
}

} // namespace mkb::wire
