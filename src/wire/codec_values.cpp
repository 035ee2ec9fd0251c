#include "wire/codec_values.hpp"

namespace mkb::wire {

namespace {

flatbuffers::Offset<Tensor> encode_tensor(flatbuffers::FlatBufferBuilder &b, const tensor_spec &t) {
  auto name = b.CreateString(t.name);
  auto shape = b.CreateVector(t.shape);
  auto generator = b.CreateString(t.dist.generator);
  auto dist = spec::CreateDistribution(b, t.dist.kind, t.dist.mean, t.dist.stddev, t.dist.low, t.dist.high, generator);
  auto aliases = b.CreateString(t.aliases);
  auto equals_input = b.CreateString(t.equals_input);
  return CreateTensor(b, name, t.type, shape, t.writable, dist, t.comparison, aliases, equals_input);
}

tensor_spec decode_tensor(const Tensor &t) {
  tensor_spec s;
  s.name = str(t.name());
  s.type = t.dtype();
  if (t.shape())
    for (int64_t extent : copy_scalars(t.shape())) {
      s.shape.push_back(extent);
      s.count *= static_cast<uint64_t>(extent);
    }
  s.writable = t.writable();
  if (const spec::Distribution *d = t.distribution()) {
    s.dist.kind = d->kind();
    s.dist.mean = d->mean();
    s.dist.stddev = d->stddev();
    s.dist.low = d->low();
    s.dist.high = d->high();
    s.dist.generator = str(d->generator());
  }
  s.comparison = t.comparison();
  s.aliases = str(t.aliases());
  s.equals_input = str(t.equals_input());
  return s;
}

} // namespace

flatbuffers::Offset<ProblemInstance> encode(flatbuffers::FlatBufferBuilder &b, const problem_instance &p) {
  std::vector<flatbuffers::Offset<Tensor>> inputs, outputs;
  for (const tensor_spec &t : p.inputs) inputs.push_back(encode_tensor(b, t));
  for (const tensor_spec &t : p.outputs) outputs.push_back(encode_tensor(b, t));
  auto id = b.CreateString(p.id);
  auto in = b.CreateVector(inputs);
  auto out = b.CreateVector(outputs);
  flatbuffers::Offset<Module> generators;
  if (!p.generators.empty()) generators = CreateModule(b, b.CreateString("generators.cu"), b.CreateString(p.generators));
  return CreateProblemInstance(b, id, in, out, generators, p.flops, p.bytes, p.compute);
}

problem_instance decode(const ProblemInstance &p) {
  problem_instance out;
  out.id = str(p.id());
  if (p.inputs())
    for (const Tensor *t : *p.inputs()) out.inputs.push_back(decode_tensor(*t));
  if (p.outputs())
    for (const Tensor *t : *p.outputs()) out.outputs.push_back(decode_tensor(*t));
  if (p.generators()) out.generators = str(p.generators()->source());
  out.flops = p.flops();
  out.bytes = p.bytes();
  out.compute = p.compute();
  return out;
}

flatbuffers::Offset<Module> encode(flatbuffers::FlatBufferBuilder &b, const module_source &module) {
  return CreateModule(b, b.CreateString(module.name), b.CreateString(module.source),
                      b.CreateVectorOfStrings(module.include_dirs), b.CreateVectorOfStrings(module.ptx));
}

flatbuffers::Offset<Plan> encode(flatbuffers::FlatBufferBuilder &b, plan_role role, const role_code &code) {
  const resolved_plan &plan = code.plan;
  std::vector<flatbuffers::Offset<Scratch>> scratch;
  for (const resolved_scratch &s : plan.scratch)
    scratch.push_back(CreateScratch(b, b.CreateString(s.name), s.bytes, s.zeroed, s.type));
  std::vector<flatbuffers::Offset<Launch>> launches;
  for (const resolved_launch &l : plan.launches) {
    std::vector<flatbuffers::Offset<Arg>> args;
    for (const resolved_arg &a : l.args)
      args.push_back(CreateArg(b, static_cast<ArgKind>(a.kind), b.CreateString(a.buffer), a.integer, a.real,
                               b.CreateString(a.text)));
    std::vector<uint32_t> cluster;
    if (l.cluster[0] != 0) cluster.assign(l.cluster.begin(), l.cluster.end());
    flatbuffers::Offset<Matmul> matmul;
    if (const auto &mm = l.matmul)
      matmul = CreateMatmul(b, b.CreateString(mm->c), b.CreateString(mm->a), b.CreateString(mm->b),
                            mm->operand_type, mm->result_type, mm->m,
                            mm->n, mm->k, mm->batch, mm->transpose_a, mm->transpose_b, mm->accumulate);
    launches.push_back(CreateLaunch(b, b.CreateString(l.entry), b.CreateVector(l.grid.data(), 3),
                                    b.CreateVector(l.block.data(), 3), b.CreateVector(cluster), l.shared_bytes,
                                    b.CreateVector(args), l.line, matmul));
  }
  return CreatePlan(b, b.CreateString(plan_role_name(role)), encode(b, code.module), b.CreateVector(scratch),
                    b.CreateVector(launches));
}

role_code decode(const Plan &plan) {
  role_code code{decode_module(plan.code()), {}};
  resolved_plan &out = code.plan;
  if (plan.scratch())
    for (const Scratch *s : *plan.scratch())
      out.scratch.push_back({str(s->name()), s->dtype(), s->bytes(), s->zeroed()});
  if (plan.launches())
    for (const Launch *l : *plan.launches()) {
      resolved_launch rl;
      rl.entry = str(l->entry());
      auto copy3 = [](const flatbuffers::Vector<uint32_t> *v, std::array<uint32_t, 3> &to) {
        if (v && v->size() == 3)
          for (int i = 0; i < 3; ++i) to[i] = v->Get(i);
      };
      copy3(l->grid(), rl.grid);
      copy3(l->block(), rl.block);
      copy3(l->cluster(), rl.cluster);
      rl.shared_bytes = l->shared_bytes();
      rl.line = l->line();
      if (const Matmul *mm = l->matmul())
        rl.matmul = resolved_matmul{str(mm->c()), str(mm->a()), str(mm->b()), mm->operand_type(),
                                    mm->result_type(), mm->m(), mm->n(), mm->k(), mm->batch(),
                                    mm->transpose_a(), mm->transpose_b(), mm->accumulate()};
      if (l->args())
        for (const Arg *a : *l->args())
          rl.args.push_back({static_cast<arg_kind>(a->kind()), str(a->buffer()), a->int_value(), a->float_value(),
                             str(a->text())});
      out.launches.push_back(std::move(rl));
    }
  return code;
}

module_source decode_module(const Module *module) {
  if (!module) return {};
  module_source out{str(module->name()), str(module->source()), {}, {}};
  if (module->include_dirs())
    for (const flatbuffers::String *dir : *module->include_dirs()) out.include_dirs.push_back(dir->str());
  if (module->ptx())
    for (const flatbuffers::String *unit : *module->ptx()) out.ptx.push_back(unit->str());
  return out;
}

flatbuffers::Offset<DeviceInfo> encode(flatbuffers::FlatBufferBuilder &b, const device_info &d) {
  return CreateDeviceInfo(b, d.ordinal, b.CreateString(d.name), b.CreateString(d.uuid), d.major, d.minor,
                          d.memory_bytes, d.sm_count, d.l2_bytes, d.sm_clock_khz, d.memory_clock_khz,
                          d.memory_bus_bits, d.max_shared_per_block_optin);
}

device_info decode(const DeviceInfo *d) {
  device_info out;
  if (!d) return out;
  out.ordinal = d->ordinal();
  out.name = str(d->name());
  out.uuid = str(d->uuid());
  out.major = d->major();
  out.minor = d->minor();
  out.memory_bytes = d->memory_bytes();
  out.sm_count = d->sm_count();
  out.l2_bytes = d->l2_bytes();
  out.sm_clock_khz = d->sm_clock_khz();
  out.memory_clock_khz = d->memory_clock_khz();
  out.memory_bus_bits = d->memory_bus_bits();
  out.max_shared_per_block_optin = d->max_shared_per_block_optin();
  return out;
}

namespace {

flatbuffers::Offset<TimingStats> encode_timing(flatbuffers::FlatBufferBuilder &b, const timing_stats &t) {
  return CreateTimingStats(b, t.samples, t.median_us, t.min_us, t.max_us, t.q1_us, t.q3_us, t.mean_us, t.cv,
                           b.CreateVector(t.times_us));
}

timing_stats decode_timing(const TimingStats *t) {
  timing_stats out;
  if (!t) return out;
  out.samples = t->samples();
  out.median_us = t->median_us();
  out.min_us = t->min_us();
  out.max_us = t->max_us();
  out.q1_us = t->q1_us();
  out.q3_us = t->q3_us();
  out.mean_us = t->mean_us();
  out.cv = t->cv();
  if (t->times_us()) out.times_us.assign(t->times_us()->begin(), t->times_us()->end());
  return out;
}

} // namespace

flatbuffers::Offset<EvaluateResult> encode(flatbuffers::FlatBufferBuilder &b, const evaluation_result &r) {
  flatbuffers::Offset<Mismatch> mismatch;
  if (r.mismatch.present) {
    const mismatch_info &m = r.mismatch;
    mismatch = CreateMismatch(b, b.CreateString(m.output), m.draw, m.timed_draw, b.CreateString(m.kind), m.flat_index,
                              b.CreateVector(m.coords), m.value, m.anchor, m.allowance, m.excess);
  }
  std::vector<flatbuffers::Offset<OutputCheck>> checks;
  for (const output_check &c : r.checks)
    checks.push_back(CreateOutputCheck(b, b.CreateString(c.name), c.max_error, c.allowance, c.reference_error,
                                       c.anchor_max, c.passed));
  std::vector<flatbuffers::Offset<CompileInfo>> compiles;
  for (const compile_info &c : r.compiles)
    compiles.push_back(CreateCompileInfo(b, b.CreateString(c.role), c.cache_hit, c.milliseconds, b.CreateString(c.log)));
  const clock_info &k = r.clocks;
  auto clocks = CreateClocks(b, k.sm_mhz_before, k.sm_mhz_after, k.memory_mhz, k.throttle_reasons, k.temperature_c,
                             k.available);
  const phase_times &p = r.phases;
  auto phases = CreatePhaseTimes(b, p.compile_ms, p.load_ms, p.correctness_ms, p.timing_ms, p.total_ms, p.gpu_busy_ms,
                                 p.generation_ms);
  flatbuffers::Offset<Audit> audit;
  if (r.audit.present) {
    std::vector<flatbuffers::Offset<DegenerateCheck>> degenerate;
    for (const degenerate_check &d : r.audit.degenerate)
      degenerate.push_back(CreateDegenerateCheck(b, b.CreateString(d.output), b.CreateString(d.kind), d.error,
                                                 d.allowance, d.failed));
    std::vector<flatbuffers::Offset<SensitivityCheck>> sensitivity;
    for (const sensitivity_check &c : r.audit.sensitivity)
      sensitivity.push_back(CreateSensitivityCheck(b, b.CreateString(c.output), c.draws_differ, b.CreateVector(c.constant_axes)));
    audit = CreateAudit(b, b.CreateVector(degenerate), b.CreateVector(sensitivity), r.audit.empty_launch_us,
                        r.audit.baseline_launches);
  }
  const contention_info &c = r.contention;
  std::vector<flatbuffers::Offset<flatbuffers::String>> busy;
  for (const std::string &seen : c.busy) busy.push_back(b.CreateString(seen));
  auto contention = CreateContention(b, c.checked, b.CreateString(c.unavailable), c.contended, c.discarded_timings,
                                     b.CreateVector(busy));
  return CreateEvaluateResult(b, r.verdict, b.CreateString(r.detail), b.CreateString(r.stage), mismatch,
                              b.CreateVector(checks), encode_timing(b, r.submission_time),
                              encode_timing(b, r.baseline_time), r.seed, b.CreateVector(r.draw_seeds),
                              b.CreateVector(r.reverified), clocks, phases, b.CreateVector(compiles),
                              encode(b, r.device), r.infrastructure_error, r.worker_must_exit, audit, r.gpu_wait_ms,
                              contention);
}

evaluation_result decode(const EvaluateResult &r) {
  evaluation_result out;
  out.verdict = r.verdict();
  out.detail = str(r.detail());
  out.stage = str(r.stage());
  if (const Mismatch *m = r.mismatch()) {
    out.mismatch.present = true;
    out.mismatch.output = str(m->output());
    out.mismatch.draw = m->draw();
    out.mismatch.timed_draw = m->timed_draw();
    out.mismatch.kind = str(m->kind());
    out.mismatch.flat_index = m->flat_index();
    out.mismatch.coords = copy_scalars(m->coords());
    out.mismatch.value = m->value();
    out.mismatch.anchor = m->anchor();
    out.mismatch.allowance = m->allowance();
    out.mismatch.excess = m->excess();
  }
  if (r.checks())
    for (const OutputCheck *c : *r.checks())
      out.checks.push_back({str(c->name()), c->max_error(), c->allowance(), c->reference_error(), c->anchor_max(), c->passed()});
  out.submission_time = decode_timing(r.submission_time());
  out.baseline_time = decode_timing(r.baseline_time());
  out.seed = r.seed();
  out.draw_seeds = copy_scalars(r.draw_seeds());
  if (r.reverified()) out.reverified.assign(r.reverified()->begin(), r.reverified()->end());
  if (const Clocks *k = r.clocks())
    out.clocks = {k->available(), k->sm_mhz_before(), k->sm_mhz_after(), k->memory_mhz(), k->temperature_c(),
                  k->throttle_reasons()};
  if (const PhaseTimes *p = r.phases())
    out.phases = {p->compile_ms(), p->load_ms(),  p->correctness_ms(), p->timing_ms(),
                  p->total_ms(),   p->gpu_busy_ms(), p->generation_ms()};
  if (r.compiles())
    for (const CompileInfo *c : *r.compiles())
      out.compiles.push_back({str(c->role()), c->cache_hit(), c->milliseconds(), str(c->log())});
  out.device = decode(r.device());
  out.infrastructure_error = r.infrastructure_error();
  out.worker_must_exit = r.worker_must_exit();
  if (const Audit *a = r.audit()) {
    out.audit.present = true;
    if (a->degenerate())
      for (const DegenerateCheck *d : *a->degenerate())
        out.audit.degenerate.push_back({str(d->output()), str(d->kind()), d->error(), d->allowance(), d->failed()});
    if (a->sensitivity())
      for (const SensitivityCheck *c : *a->sensitivity()) {
        sensitivity_check check{str(c->output()), c->draws_differ(), {}};
        if (c->constant_axes()) check.constant_axes.assign(c->constant_axes()->begin(), c->constant_axes()->end());
        out.audit.sensitivity.push_back(std::move(check));
      }
    out.audit.empty_launch_us = a->empty_launch_us();
    out.audit.baseline_launches = a->baseline_launches();
  }
  out.gpu_wait_ms = r.gpu_wait_ms();
  if (const Contention *c = r.contention()) {
    out.contention = {c->checked(), str(c->unavailable()), c->contended(), c->discarded_timings(), {}};
    if (c->busy())
      for (const flatbuffers::String *seen : *c->busy()) out.contention.busy.push_back(seen->str());
  }
  return out;
}

flatbuffers::Offset<EvaluateSettings> encode(flatbuffers::FlatBufferBuilder &b, const run_settings &s) {
  const draw_counts &d = s.draws;
  return CreateEvaluateSettings(b, d.correctness_draws, d.warmup_draws, d.timed_draws, d.max_timed_draws,
                                d.reverify_draws, d.target_rel_spread, s.time_baseline, s.compile_only,
                                s.launch_timeout_ms, b.CreateString(s.cache_dir), b.CreateString(s.arch), s.audit,
                                b.CreateString(s.gpu_lock_dir), s.contention_retries);
}

run_settings decode(const EvaluateSettings *s) {
  // An absent table reads as the schema's defaults, which run_settings repeats.
  flatbuffers::FlatBufferBuilder b;
  if (!s) {
    b.Finish(CreateEvaluateSettings(b));
    s = flatbuffers::GetRoot<EvaluateSettings>(b.GetBufferPointer());
  }
  run_settings out;
  out.draws.correctness_draws = s->correctness_draws();
  out.draws.warmup_draws = s->warmup_draws();
  out.draws.timed_draws = s->timed_draws();
  out.draws.max_timed_draws = s->max_timed_draws();
  out.draws.reverify_draws = s->reverify_draws();
  out.draws.target_rel_spread = s->target_rel_spread();
  out.time_baseline = s->time_baseline();
  out.compile_only = s->compile_only();
  out.launch_timeout_ms = s->launch_timeout_ms();
  out.cache_dir = str(s->cache_dir());
  out.arch = str(s->arch());
  out.audit = s->audit();
  out.gpu_lock_dir = str(s->gpu_lock_dir());
  out.contention_retries = s->contention_retries();
  return out;
}

static_assert(static_cast<int>(ArgKind::f64) == static_cast<int>(arg_kind::f64) &&
              static_cast<int>(ArgKind::pointer) == static_cast<int>(arg_kind::pointer));

} // namespace mkb::wire
