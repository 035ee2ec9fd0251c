#include "worker/evaluation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "core/embedded_files.hpp"
#include "core/error.hpp"
#include "core/random.hpp"
#include "core/statistics.hpp"
#include "cuda/nvml_api.hpp"
#include "cuda/ptx_entries.hpp"
#include "worker/buffers.hpp"
#include "worker/gpu_sharing.hpp"
#include "worker/failure.hpp"
#include "worker/input_generator.hpp"
#include "worker/loaded_plan.hpp"

namespace mkb::worker {

namespace {

using clock_type = std::chrono::steady_clock;

double milliseconds_since(clock_type::time_point start) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
}

// The shift range that moves every buffer to a new address each draw.
constexpr size_t address_shift = 64 << 10;
constexpr int rotating_slots = 3;
// Timing extends in batches of this many draws while the medians are not yet precise enough.
constexpr int timing_batch = 25;

struct role_plan {
  std::string role;
  wire::module_source module;
  resolved_plan plan;
};

// Where a name in a plan points for one role.
struct binding {
  enum kind_t { input, output, scratch } kind;
  size_t index;
};

class evaluation_run {
public:
  evaluation_run(gpu *g, harness_kernels *harness, const wire::Evaluate &request, const progress_callback &progress)
      : g_(g), harness_(harness), progress_(progress),
        settings_(request.settings() ? *request.settings() : default_settings()),
        cache_(settings_.cache_dir() ? settings_.cache_dir()->str() : std::string()),
        problem_(wire::decode(*request.problem())), seed_(request.seed()), random_(mix64(request.seed() ^ 0x6c61796f7574ull)) {
    plans_[0] = {"submission", wire::decode_module(request.submission()->code()), wire::decode(*request.submission())};
    plans_[1] = {"baseline", wire::decode_module(request.baseline()->code()), wire::decode(*request.baseline())};
    plans_[2] = {"anchor", wire::decode_module(request.anchor()->code()), wire::decode(*request.anchor())};
    result_.seed = seed_;
    if (g_) result_.device = g_->facts();
  }

  wire::evaluation_result run() {
    auto start = clock_type::now();
    try {
      compile_all();
      if (!g_ || settings_.compile_only()) {
        check_plans_against_ptx();
      } else {
        wait_for_gpu();
        load_all();
        allocate();
        correctness();
        timing();
        result_.verdict = MKB_VERDICT_PASSED;
        result_.detail = "correct on every draw";
        if (settings_.audit()) audit();
      }
    } catch (const evaluation_failure &f) {
      result_.verdict = f.verdict();
      result_.detail = f.what();
      result_.infrastructure_error = f.verdict() == MKB_VERDICT_REFUSED;
      result_.worker_must_exit = f.context_lost();
    } catch (const error &e) {
      result_.verdict = e.status() == MKB_ERR_NO_MEMORY ? MKB_VERDICT_OUT_OF_MEMORY : MKB_VERDICT_REFUSED;
      result_.detail = e.what();
      result_.infrastructure_error = result_.verdict == MKB_VERDICT_REFUSED;
    }
    result_.phases.total_ms = milliseconds_since(start);
    return std::move(result_);
  }

private:
  static const wire::EvaluateSettings &default_settings() {
    static flatbuffers::FlatBufferBuilder b;
    static const wire::EvaluateSettings *s = [] {
      b.Finish(wire::CreateEvaluateSettings(b));
      return flatbuffers::GetRoot<wire::EvaluateSettings>(b.GetBufferPointer());
    }();
    return *s;
  }

  void stage(const std::string &name) {
    result_.stage = name;
    if (progress_) progress_(name);
  }

  std::chrono::milliseconds timeout() const { return std::chrono::milliseconds(settings_.launch_timeout_ms()); }

  // The library's choice (the device's, or the configured compile-only target), else the device's own.
  std::string arch() const {
    if (settings_.arch() && settings_.arch()->size()) return settings_.arch()->str();
    if (g_) return arch_for_compute_capability(g_->facts().major, g_->facts().minor);
    throw infrastructure_failure("a compile-only evaluation must name the architecture to compile for");
  }

  // ---- The GPU's turn -------------------------------------------------------------------------------

  // Everything that touches the GPU runs while this worker holds the host's lock on it, so that no
  // other libmkb evaluation, in any process, shares the GPU with what is measured (CONTRACT.md).
  void wait_for_gpu() {
    stage("queued");
    turn_ = take_gpu_turn(settings_, g_->facts().uuid.empty() ? fmt::format("gpu-{}", g_->facts().ordinal) : g_->facts().uuid);
    result_.gpu_wait_ms = turn_.waited().count();
  }

  // ---- Compile and load ---------------------------------------------------------------------------

  void compile_all() {
    stage("compile");
    auto start = clock_type::now();
    const std::string target = arch();
    for (int r = 0; r < 3; ++r) {
      const role_plan &p = plans_[r];
      bool ours = r != 0; // the problem's own code may use the harness headers
      module_code code{p.module.name, p.module.source, p.module.include_dirs, p.module.ptx};
      cached_compile c = cache_.compile(code, target, ours ? problem_headers() : std::vector<extra_header>{});
      result_.compiles.push_back({p.role, c.cache_hit, c.output.milliseconds, c.output.log});
      if (!c.output.ok) {
        if (r == 0) throw evaluation_failure(MKB_VERDICT_COMPILE_ERROR, "the submission does not compile:\n" + c.output.log);
        throw infrastructure_failure(fmt::format("the problem's {} does not compile:\n{}", p.role, c.output.log));
      }
      compiled_[r] = std::move(c.output);
    }
    generator_ = input_generator(g_, harness_, problem_, cache_, target, result_.compiles);
    result_.phases.compile_ms = milliseconds_since(start);
  }

  void check_plans_against_ptx() {
    stage("check plans");
    for (int r = 0; r < 3; ++r) {
      auto entries = ptx_entry_parameters(compiled_[r].ptx);
      for (const resolved_launch &l : plans_[r].plan.launches) {
        if (l.matmul) continue; // a library step, checked when resolved
        auto it = entries.find(l.entry);
        std::string problem;
        if (it == entries.end())
          problem = fmt::format("line {}: the code has no kernel '{}' (declare it extern \"C\" __global__)", l.line, l.entry);
        else
          problem = check_parameter_sizes(l, it->second);
        if (problem.empty()) continue;
        if (r == 0) throw evaluation_failure(MKB_VERDICT_LAUNCH_ERROR, "submission plan, " + problem);
        throw infrastructure_failure(fmt::format("the problem's {} plan, {}", plans_[r].role, problem));
      }
    }
    result_.verdict = MKB_VERDICT_COMPILED;
    result_.detail = fmt::format("compiled for {} and the plan matches the code; not run (no GPU)", arch());
  }

  void load_all() {
    stage("load");
    auto start = clock_type::now();
    for (int r = 0; r < 3; ++r) {
      try {
        loaded_[r] = loaded_plan(*g_, compiled_[r].cubin, plans_[r].plan, plans_[r].role);
      } catch (const evaluation_failure &f) {
        if (r == 0) throw;
        throw infrastructure_failure(fmt::format("the problem's {}: {}", plans_[r].role, f.what()), f.context_lost());
      }
    }
    generator_.load(*g_);
    result_.phases.load_ms = milliseconds_since(start);
  }

  // ---- Buffers ------------------------------------------------------------------------------------

  void allocate() {
    stage("allocate");
    std::vector<std::string> input_names, output_names, all_output_names;
    std::vector<uint64_t> input_sizes, output_sizes, anchor_sizes;
    for (size_t i = 0; i < problem_.inputs.size(); ++i) {
      const tensor_spec &t = problem_.inputs[i];
      input_names.push_back(t.name);
      input_sizes.push_back(t.bytes());
      for (int r = 0; r < 3; ++r) names_[r][t.name] = {binding::input, i};
    }
    for (size_t o = 0; o < problem_.outputs.size(); ++o) {
      const tensor_spec &t = problem_.outputs[o];
      all_output_names.push_back(t.name);
      anchor_sizes.push_back(t.count * (dtype_is_floating(t.type) ? 8 : dtype_bytes(t.type)));
      names_[2][t.name] = {binding::output, o};
      if (!t.aliases.empty()) {
        size_t input = static_cast<size_t>(problem_.find_input(t.aliases) - problem_.inputs.data());
        names_[0][t.name] = names_[1][t.name] = {binding::input, input};
        holds_.emplace(o, std::array<device_memory, 2>{device_memory(t.bytes()), device_memory(t.bytes())});
      } else {
        output_slot_[o] = output_names.size();
        names_[0][t.name] = names_[1][t.name] = {binding::output, output_names.size()};
        output_names.push_back(t.name);
        output_sizes.push_back(t.bytes());
      }
      if (t.comparison == spec::Comparison::exact_sorted) {
        if (static_cast<uint64_t>(t.shape.back()) > harness_kernels::max_sorted_row)
          throw infrastructure_failure(fmt::format("output '{}': exact_sorted rows longer than {} are not supported",
                                                   t.name, harness_kernels::max_sorted_row));
        sorted_.emplace(o, std::array<device_memory, 2>{device_memory(t.bytes()), device_memory(t.bytes())});
      }
    }
    inputs_ = rotating_arena(input_names, input_sizes, rotating_slots, address_shift);
    outputs_[0] = rotating_arena(output_names, output_sizes, rotating_slots, address_shift);
    outputs_[1] = rotating_arena(output_names, output_sizes, rotating_slots, address_shift);
    outputs_[2] = rotating_arena(all_output_names, anchor_sizes, 1, 0);
    for (int r = 0; r < 3; ++r) {
      std::vector<std::string> names;
      std::vector<uint64_t> sizes;
      for (size_t s = 0; s < plans_[r].plan.scratch.size(); ++s) {
        names.push_back(plans_[r].plan.scratch[s].name);
        sizes.push_back(plans_[r].plan.scratch[s].bytes);
        names_[r][plans_[r].plan.scratch[s].name] = {binding::scratch, s};
      }
      try {
        scratch_[r] = rotating_arena(names, sizes, 1, r == 0 ? address_shift : 0);
      } catch (const error &e) {
        if (r == 0 && e.status() == MKB_ERR_NO_MEMORY)
          throw evaluation_failure(MKB_VERDICT_OUT_OF_MEMORY, std::string("the plan's scratch buffers: ") + e.what());
        throw;
      }
    }
    for (size_t i = 0; i < problem_.inputs.size(); ++i)
      if (!problem_.inputs[i].writable) {
        uint64_t chunks = harness_kernels::digest_count(problem_.inputs[i].bytes());
        digests_.emplace(i, std::array<device_memory, 2>{device_memory(chunks * 8), device_memory(chunks * 8)});
      }
    // Writing twice the L2 evicts everything a previous draw left there.
    flush_ = device_memory(std::max<size_t>(size_t(2) * g_->facts().l2_bytes, 8 << 20));
    stat_guards_ = problem_.outputs.size();
    stat_inputs_ = stat_guards_ + 1;
    harness_->reserve_stats(stat_inputs_ + problem_.inputs.size());
  }

  CUdeviceptr address(int r, const std::string &name) const {
    auto it = names_[r].find(name);
    if (it == names_[r].end()) fail(MKB_ERR_INTERNAL, "plan names unknown buffer '{}'", name);
    switch (it->second.kind) {
    case binding::input: return layout_inputs_.addresses[it->second.index];
    case binding::output: return layout_outputs_[r].addresses[it->second.index];
    case binding::scratch: return layout_scratch_[r].addresses[it->second.index];
    }
    return 0;
  }

  // Where the output `o` of role r (0 or 1) can be read after its run.
  CUdeviceptr result_of(int r, size_t o) const {
    auto hold = holds_.find(o);
    if (hold != holds_.end()) return hold->second[r].get();
    return layout_outputs_[r].addresses[output_slot_.at(o)];
  }

  void check(CUresult rc, const char *what) const {
    if (rc != CUDA_SUCCESS) throw_cuda_failure(rc, what);
  }

  // ---- The steps of a draw --------------------------------------------------------------------------

  void new_layouts() {
    layout_inputs_ = inputs_.next(random_);
    for (int r = 0; r < 3; ++r) {
      layout_outputs_[r] = outputs_[r].next(random_);
      layout_scratch_[r] = scratch_[r].next(random_);
    }
  }

  void generate_inputs(uint64_t seed, bool writable_only) { generator_.generate(layout_inputs_, seed, writable_only); }

  void prepare_outputs(int r) {
    const driver_api &cu = g_->cu();
    const std::vector<CUdeviceptr> &addresses = layout_outputs_[r].addresses;
    size_t slot = 0;
    for (size_t o = 0; o < problem_.outputs.size(); ++o) {
      const tensor_spec &t = problem_.outputs[o];
      if (r != 2 && !t.aliases.empty()) continue;
      size_t bytes = r == 2 && dtype_is_floating(t.type) ? t.count * 8 : t.bytes();
      unsigned char poison = r == 2 && dtype_is_floating(t.type) ? 0xff : poison_byte(t.type);
      check(cu.cuMemsetD8Async(addresses[r == 2 ? o : slot], poison, bytes, g_->stream()), "poisoning outputs");
      ++slot;
    }
    const std::vector<resolved_scratch> &scratch = plans_[r].plan.scratch;
    for (size_t s = 0; s < scratch.size(); ++s)
      check(cu.cuMemsetD8Async(layout_scratch_[r].addresses[s], scratch[s].zeroed ? 0 : 0xff, scratch[s].bytes, g_->stream()),
            "preparing scratch");
  }

  void hash_inputs(int which, uint64_t hash_seed) {
    for (auto &[i, buffers] : digests_)
      harness_->hash_chunks(layout_inputs_.addresses[i], problem_.inputs[i].bytes(), hash_seed, buffers[which].get());
  }

  void copy_in_place_results(int r) {
    for (auto &[o, buffers] : holds_) {
      const tensor_spec &t = problem_.outputs[o];
      size_t input = static_cast<size_t>(problem_.find_input(t.aliases) - problem_.inputs.data());
      check(g_->cu().cuMemcpyDtoDAsync(buffers[r].get(), layout_inputs_.addresses[input], t.bytes(), g_->stream()),
            "saving an in-place output");
    }
  }

  void flush_l2() {
    check(g_->cu().cuMemsetD32Async(flush_.get(), 0x5a5a5a5au, flush_.size() / 4, g_->stream()), "flushing L2");
  }

  event &next_event() {
    if (event_cursor_ == timing_events_.size()) timing_events_.push_back(event::create());
    return timing_events_[event_cursor_++];
  }

  // Submission run with every check around it. Returns the timed sample (microseconds) when `timed`.
  // Throws evaluation_failure for a failed check; `where` names the draw in messages.
  std::optional<double> checked_draw(uint64_t seed, bool timed, int draw, int timed_draw) {
    const driver_api &cu = g_->cu();
    uint64_t hash_seed = mix64(seed ^ 0x68617368ull);
    event &begin = next_event();
    check(cu.cuEventRecord(begin.get(), g_->stream()), "recording an event");
    new_layouts();
    generate_inputs(seed, false);
    hash_inputs(0, hash_seed);
    prepare_outputs(0);
    fill_guards(*g_, layout_inputs_);
    fill_guards(*g_, layout_outputs_[0]);
    fill_guards(*g_, layout_scratch_[0]);
    event *start = nullptr, *end = nullptr;
    if (timed) {
      flush_l2();
      start = &next_event();
      check(cu.cuEventRecord(start->get(), g_->stream()), "recording an event");
    }
    loaded_[0].enqueue(*g_, [&](const std::string &n) { return address(0, n); });
    if (timed) {
      end = &next_event();
      check(cu.cuEventRecord(end->get(), g_->stream()), "recording an event");
    }
    // Waiting here pins a fault or a hang on the submission rather than on the checks queued after it.
    g_->synchronize(timeout(), timed ? fmt::format("the submission in timed draw {}", timed_draw)
                                     : fmt::format("the submission in draw {}", draw));
    // Checks on what the submission did.
    harness_->reset_stats(stat_guards_);
    harness_->check_guards(submission_guards(), stat_guards_);
    hash_inputs(1, hash_seed);
    for (auto &[i, buffers] : digests_) {
      harness_->reset_stats(stat_inputs_ + i);
      harness_->compare_digests(buffers[0].get(), buffers[1].get(),
                                harness_kernels::digest_count(problem_.inputs[i].bytes()), stat_inputs_ + i);
    }
    copy_in_place_results(0);
    queue_reference_and_anchor(seed);
    for (size_t o = 0; o < problem_.outputs.size(); ++o) compare_output(o);
    event &finish = next_event();
    check(cu.cuEventRecord(finish.get(), g_->stream()), "recording an event");
    const std::vector<stat_block> stats =
        harness_->read_stats(timeout(), timed ? fmt::format("timed draw {}", timed_draw) : fmt::format("draw {}", draw));
    result_.phases.gpu_busy_ms += elapsed_ms(begin, finish);
    judge(stats, seed, draw, timed_draw);
    if (!timed) return std::nullopt;
    return 1000.0 * elapsed_ms(*start, *end);
  }

  // Queues the reference at the inputs' own dtypes, then the float64 anchor, each on pristine inputs
  // (the writable ones regenerated from `seed`).
  void queue_reference_and_anchor(uint64_t seed) {
    generate_inputs(seed, true);
    prepare_outputs(1);
    loaded_[1].enqueue(*g_, [&](const std::string &n) { return address(1, n); });
    copy_in_place_results(1);
    generate_inputs(seed, true);
    prepare_outputs(2);
    loaded_[2].enqueue(*g_, [&](const std::string &n) { return address(2, n); });
  }

  // Queues the comparison of the submission's output `o` with the anchor (and the reference) into
  // statistics block `o`.
  void compare_output(size_t o) {
    const tensor_spec &t = problem_.outputs[o];
    harness_->reset_stats(o);
    CUdeviceptr anchor = layout_outputs_[2].addresses[o];
    if (t.comparison == spec::Comparison::anchor) {
      harness_->compare_anchor(result_of(0, o), result_of(1, o), anchor, t, o);
    } else if (t.comparison == spec::Comparison::exact) {
      harness_->compare_exact(result_of(0, o), anchor, t, o);
    } else {
      const driver_api &cu = g_->cu();
      const auto &copies = sorted_.at(o);
      check(cu.cuMemcpyDtoDAsync(copies[0].get(), result_of(0, o), t.bytes(), g_->stream()), "copying for sorting");
      check(cu.cuMemcpyDtoDAsync(copies[1].get(), anchor, t.bytes(), g_->stream()), "copying for sorting");
      harness_->sort_rows(copies[0].get(), t);
      harness_->sort_rows(copies[1].get(), t);
      harness_->compare_exact(copies[0].get(), copies[1].get(), t, o);
    }
  }

  // Every guard region around what the submission can reach.
  std::vector<const guard_region *> submission_guards() const {
    std::vector<const guard_region *> regions;
    for (const buffer_layout *layout : {&layout_inputs_, &layout_outputs_[0], &layout_scratch_[0]})
      for (const guard_region &g : layout->guards) regions.push_back(&g);
    return regions;
  }

  float elapsed_ms(const event &a, const event &b) const {
    float ms = 0;
    check(g_->cu().cuEventElapsedTime(&ms, a.get(), b.get()), "reading an event");
    return ms;
  }

  // The anchor rule's allowance for output `t` (docs/CONTRACT.md): three times the larger of the
  // reference's error and one machine epsilon of the anchor's largest magnitude.
  static double allowance_of(const stat_block &s, const tensor_spec &t) {
    return 3.0 * std::max(stat_as_double(s[reference_error]), dtype_epsilon(t.type) * stat_as_double(s[anchor_max]));
  }

  // Turns the statistics of a checked draw into a verdict (or nothing when it passed).
  void judge(const std::vector<stat_block> &stats, uint64_t seed, int draw, int timed_draw) {
    std::string where = timed_draw >= 0 ? fmt::format("timed draw {} (re-verified)", timed_draw) : fmt::format("draw {}", draw);
    int wrong = timed_draw >= 0 ? MKB_VERDICT_INCONSISTENT : MKB_VERDICT_WRONG_ANSWER;
    if (uint64_t first = stats[stat_guards_][first_index]; first != no_index) {
      const guard_region &r = *submission_guards()[first >> 32];
      throw evaluation_failure(MKB_VERDICT_OUT_OF_BOUNDS, fmt::format("{}: the submission wrote into the guard region {} "
                                                                      "(byte {} of it)",
                                                                      where, r.description, (first & 0xffffffffu) * 4));
    }
    for (auto &[i, buffers] : digests_)
      if (uint64_t chunk = stats[stat_inputs_ + i][first_index]; chunk != no_index)
        throw evaluation_failure(MKB_VERDICT_INPUT_MODIFIED,
                                 fmt::format("{}: the submission changed input '{}', which is not writable (first change "
                                             "in bytes {}..{})",
                                             where, problem_.inputs[i].name, chunk * 4096, chunk * 4096 + 4095));
    for (size_t o = 0; o < problem_.outputs.size(); ++o) {
      const tensor_spec &t = problem_.outputs[o];
      const stat_block &s = stats[o];
      wire::output_check &summary = output_check_for(t.name);
      if (t.comparison == spec::Comparison::anchor) {
        if (s[anchor_nonfinite])
          throw infrastructure_failure(fmt::format("the anchor produced {} non-finite values in '{}'", s[anchor_nonfinite], t.name));
        if (s[reference_nan])
          throw infrastructure_failure(fmt::format("the baseline produced {} NaN values in '{}'", s[reference_nan], t.name));
        double error = stat_as_double(s[max_error]);
        double reference = stat_as_double(s[reference_error]);
        double magnitude = stat_as_double(s[anchor_max]);
        double allowance = allowance_of(s, t);
        summary.max_error = std::max(summary.max_error, s[output_nan] ? NAN : error);
        summary.allowance = summary.allowance == 0 ? allowance : std::min(summary.allowance, allowance);
        summary.reference_error = std::max(summary.reference_error, reference);
        summary.anchor_max = std::max(summary.anchor_max, magnitude);
        if (s[output_nan] == 0 && error <= allowance) continue;
        summary.passed = false;
        report_mismatch(o, allowance, draw, timed_draw, seed, wrong, where);
      } else if (s[mismatches]) {
        summary.passed = false;
        describe_exact_mismatch(o, s, draw, timed_draw, wrong, where);
      }
    }
  }

  wire::output_check &output_check_for(const std::string &name) {
    for (wire::output_check &c : result_.checks)
      if (c.name == name) return c;
    result_.checks.push_back({name, 0, 0, 0, 0, true});
    return result_.checks.back();
  }

  std::vector<int64_t> coordinates(const tensor_spec &t, uint64_t flat) const {
    std::vector<int64_t> coords(t.shape.size());
    for (size_t axis = t.shape.size(); axis-- > 0;) {
      coords[axis] = static_cast<int64_t>(flat % static_cast<uint64_t>(t.shape[axis]));
      flat /= static_cast<uint64_t>(t.shape[axis]);
    }
    return coords;
  }

  double read_element(CUdeviceptr base, uint64_t index, dtype type) {
    unsigned char bytes[8] = {};
    size_t size = dtype_bytes(type);
    check(g_->cu().cuMemcpyDtoHAsync(bytes, base + index * size, size, g_->stream()), "reading a mismatch");
    g_->synchronize(timeout(), "reading a mismatch");
    return decode_element(type, bytes);
  }

  [[noreturn]] void report_mismatch(size_t o, double allowance, int draw, int timed_draw, uint64_t seed, int verdict,
                                    const std::string &where) {
    const tensor_spec &t = problem_.outputs[o];
    size_t block = o;
    harness_->reset_stats(block);
    harness_->find_mismatch(result_of(0, o), layout_outputs_[2].addresses[o], t, allowance, block);
    const stat_block s = harness_->read_stats(timeout(), "locating a mismatch")[block];
    wire::mismatch_info &m = result_.mismatch;
    m.present = true;
    m.output = t.name;
    m.draw = draw;
    m.timed_draw = timed_draw;
    m.flat_index = s[first_index] == no_index ? 0 : s[first_index];
    m.coords = coordinates(t, m.flat_index);
    m.value = read_element(result_of(0, o), m.flat_index, t.type);
    m.anchor = read_element(layout_outputs_[2].addresses[o], m.flat_index, dtype::fp64);
    m.allowance = allowance;
    m.excess = std::fabs(m.value - m.anchor) - allowance;
    m.kind = std::isnan(m.value) ? "nan" : "value";
    std::string value_text = std::isnan(m.value) ? "NaN (outputs are NaN before each run: was it written?)"
                                                  : fmt::format("{:.6g}", m.value);
    throw evaluation_failure(verdict, fmt::format("{} (seed {:#x}): output '{}' at index {} {}: {} but the anchor is "
                                                  "{:.6g} (allowance {:.3g}{}); {} of {} elements fail",
                                                  where, seed, t.name, m.flat_index, format_coords(m.coords), value_text,
                                                  m.anchor, allowance,
                                                  std::isnan(m.value) ? "" : fmt::format(", off by {:.3g}", std::fabs(m.value - m.anchor)),
                                                  s[mismatches], t.count));
  }

  [[noreturn]] void describe_exact_mismatch(size_t o, const stat_block &s, int draw, int timed_draw, int verdict,
                                            const std::string &where) {
    const tensor_spec &t = problem_.outputs[o];
    bool sorted = t.comparison == spec::Comparison::exact_sorted;
    CUdeviceptr out = sorted ? sorted_.at(o)[0].get() : result_of(0, o);
    CUdeviceptr anchor = sorted ? sorted_.at(o)[1].get() : layout_outputs_[2].addresses[o];
    wire::mismatch_info &m = result_.mismatch;
    m.present = true;
    m.output = t.name;
    m.draw = draw;
    m.timed_draw = timed_draw;
    m.kind = "integer";
    m.flat_index = s[first_index];
    m.coords = coordinates(t, m.flat_index);
    m.value = read_element(out, m.flat_index, t.type);
    m.anchor = read_element(anchor, m.flat_index, t.type);
    throw evaluation_failure(verdict, fmt::format("{}: output '{}'{} at index {} {}: {} but the anchor is {} ({} of {} "
                                                  "elements differ; integers must match exactly)",
                                                  where, t.name, sorted ? " (rows sorted)" : "", m.flat_index,
                                                  format_coords(m.coords), m.value, m.anchor, s[mismatches], t.count));
  }

  static std::string format_coords(const std::vector<int64_t> &coords) {
    return fmt::format("[{}]", fmt::join(coords, ", "));
  }

  // ---- The problem's audit (mkb suite validate, docs/PROBLEMS.md) ---------------------------------

  static dtype anchor_type(const tensor_spec &t) { return dtype_is_floating(t.type) ? dtype::fp64 : t.type; }

  std::vector<unsigned char> download(CUdeviceptr from, size_t bytes, const char *what) {
    std::vector<unsigned char> host(bytes);
    check(g_->cu().cuMemcpyDtoHAsync(host.data(), from, bytes, g_->stream()), what);
    g_->synchronize(timeout(), what);
    return host;
  }

  // The baseline and the anchor of one draw, finished; returns the anchor's outputs.
  std::vector<std::vector<unsigned char>> reference_and_anchor(uint64_t seed) {
    new_layouts();
    generate_inputs(seed, false);
    queue_reference_and_anchor(seed);
    std::vector<std::vector<unsigned char>> anchors;
    for (size_t o = 0; o < problem_.outputs.size(); ++o) {
      const tensor_spec &t = problem_.outputs[o];
      anchors.push_back(download(layout_outputs_[2].addresses[o], t.count * dtype_bytes(anchor_type(t)),
                                 "reading the anchor for the audit"));
    }
    return anchors;
  }

  // Writes `fill` (t.count elements of t's dtype) as the submission's output `o`, compares it, and
  // records whether the rule rejects it, as it must.
  void judge_degenerate(size_t o, const std::string &kind, const std::vector<unsigned char> &fill) {
    const tensor_spec &t = problem_.outputs[o];
    check(g_->cu().cuMemcpyHtoDAsync(result_of(0, o), fill.data(), fill.size(), g_->stream()), "writing a degenerate output");
    compare_output(o);
    const stat_block s = harness_->read_stats(timeout(), "comparing a degenerate output")[o];
    wire::degenerate_check c{t.name, kind, 0, 0, false};
    if (t.comparison == spec::Comparison::anchor) {
      c.error = s[output_nan] ? NAN : stat_as_double(s[max_error]);
      c.allowance = allowance_of(s, t);
      c.failed = s[output_nan] > 0 || c.error > c.allowance;
    } else {
      c.error = static_cast<double>(s[mismatches]);
      c.failed = s[mismatches] > 0;
    }
    result_.audit.degenerate.push_back(std::move(c));
  }

  // `count` elements of `type` converted from `source` (elements of `from`), repeated as needed.
  static std::vector<unsigned char> converted(const std::vector<unsigned char> &source, dtype from, dtype type,
                                              uint64_t count) {
    const size_t in_size = dtype_bytes(from), out_size = dtype_bytes(type);
    const uint64_t in_count = source.size() / in_size;
    std::vector<unsigned char> out(count * out_size);
    for (uint64_t i = 0; i < count; ++i)
      encode_element(type, decode_element(from, &source[(i % in_count) * in_size]), &out[i * out_size]);
    return out;
  }

  void audit_degenerate_outputs(const std::vector<std::vector<unsigned char>> &anchors) {
    std::vector<std::vector<unsigned char>> inputs;
    for (size_t i = 0; i < problem_.inputs.size(); ++i)
      inputs.push_back(download(layout_inputs_.addresses[i], problem_.inputs[i].bytes(), "reading an input for the audit"));
    for (size_t o = 0; o < problem_.outputs.size(); ++o) {
      const tensor_spec &t = problem_.outputs[o];
      const dtype at = anchor_type(t);
      judge_degenerate(o, "zeros", std::vector<unsigned char>(t.bytes(), 0));
      if (t.aliases.empty()) judge_degenerate(o, "unwritten", std::vector<unsigned char>(t.bytes(), poison_byte(t.type)));
      double sum = 0;
      for (uint64_t e = 0; e < t.count; ++e) sum += decode_element(at, &anchors[o][e * dtype_bytes(at)]);
      std::vector<unsigned char> mean(dtype_bytes(t.type));
      encode_element(t.type, sum / static_cast<double>(t.count), mean.data());
      judge_degenerate(o, "anchor mean", converted(mean, t.type, t.type, t.count));
      for (size_t i = 0; i < problem_.inputs.size(); ++i) {
        const tensor_spec &in = problem_.inputs[i];
        std::string kind = "copy of " + in.name;
        if (t.aliases == in.name) kind += " (left unwritten in place)";
        judge_degenerate(o, kind, converted(inputs[i], in.type, t.type, t.count));
      }
    }
  }

  // Axes along which `data` (the anchor's output `t`) never changes.
  static std::vector<int> constant_axes(const tensor_spec &t, const std::vector<unsigned char> &data) {
    std::vector<int> axes;
    const size_t size = dtype_bytes(anchor_type(t));
    uint64_t stride = t.count;
    for (size_t axis = 0; axis < t.shape.size(); ++axis) {
      const uint64_t extent = static_cast<uint64_t>(t.shape[axis]);
      stride /= extent;
      if (extent < 2) continue;
      bool constant = true;
      for (uint64_t e = 0; e + stride < t.count && constant; ++e)
        if ((e / stride) % extent != extent - 1)
          constant = std::memcmp(&data[e * size], &data[(e + stride) * size], size) == 0;
      if (constant) axes.push_back(static_cast<int>(axis));
    }
    return axes;
  }

  double empty_launch_us() {
    const driver_api &cu = g_->cu();
    std::vector<double> samples;
    for (int i = 0; i < 60; ++i) {
      flush_l2();
      event &start = next_event(), &end = next_event();
      check(cu.cuEventRecord(start.get(), g_->stream()), "recording an event");
      harness_->launch_empty();
      check(cu.cuEventRecord(end.get(), g_->stream()), "recording an event");
      g_->wait(end.get(), timeout(), "an empty launch");
      if (i >= 10) samples.push_back(1000.0 * elapsed_ms(start, end));
    }
    return summarize(samples).median;
  }

  void audit() {
    stage("audit");
    wire::audit_result &a = result_.audit;
    a.present = true;
    a.baseline_launches = static_cast<int>(plans_[1].plan.launches.size());
    std::vector<std::vector<unsigned char>> first = reference_and_anchor(derive_seed(seed_, 3000));
    audit_degenerate_outputs(first);
    std::vector<std::vector<unsigned char>> second = reference_and_anchor(derive_seed(seed_, 3001));
    for (size_t o = 0; o < problem_.outputs.size(); ++o)
      a.sensitivity.push_back({problem_.outputs[o].name, first[o] != second[o], constant_axes(problem_.outputs[o], first[o])});
    a.empty_launch_us = empty_launch_us();
  }

  // ---- Phases ---------------------------------------------------------------------------------------

  void correctness() {
    stage("correctness");
    auto start = clock_type::now();
    check(g_->cu().cuCtxResetPersistingL2Cache(), "resetting persisting L2 lines");
    for (int d = 0; d < settings_.correctness_draws(); ++d) {
      uint64_t seed = derive_seed(seed_, static_cast<uint64_t>(d));
      result_.draw_seeds.push_back(seed);
      checked_draw(seed, false, d, -1);
    }
    result_.phases.correctness_ms = milliseconds_since(start);
  }

  // A timed run without checks: fresh inputs, poisoned outputs, flushed L2, events around the plan.
  void timed_draw(int r, uint64_t seed, std::vector<std::pair<event *, event *>> &pending) {
    const driver_api &cu = g_->cu();
    event &begin = next_event();
    check(cu.cuEventRecord(begin.get(), g_->stream()), "recording an event");
    new_layouts();
    generate_inputs(seed, false);
    event &generated = next_event();
    check(cu.cuEventRecord(generated.get(), g_->stream()), "recording an event");
    prepare_outputs(r);
    flush_l2();
    event &start = next_event();
    check(cu.cuEventRecord(start.get(), g_->stream()), "recording an event");
    loaded_[r].enqueue(*g_, [&](const std::string &n) { return address(r, n); });
    event &end = next_event();
    check(cu.cuEventRecord(end.get(), g_->stream()), "recording an event");
    pending.push_back({&start, &end});
    busy_spans_.push_back({&begin, &end});
    generation_spans_.push_back({&begin, &generated});
    // Keep at most two draws queued: the GPU never waits for the host, and a hang is noticed early.
    if (pending.size() >= 3) g_->wait(pending[pending.size() - 3].second->get(), timeout(), r == 0 ? "a timed draw" : "a timed baseline draw");
  }

  // Times, and times again (a bounded number of times) while another process's kernels shared the GPU.
  void timing() {
    contention_watch watch(g_->facts().uuid);
    for (int discarded = 0;; ++discarded) {
      watch.begin();
      time_once();
      contention_seen seen = watch.finish();
      result_.contention = {seen.checked, seen.unavailable, seen.contended(), discarded, seen.busy};
      if (!seen.contended() || discarded >= settings_.contention_retries()) break;
    }
  }

  void time_once() {
    stage("timing");
    auto start = clock_type::now();
    auto nvml = nvml_device::open(g_->facts().uuid);
    if (nvml)
      if (auto c = nvml->read()) {
        result_.clocks.available = true;
        result_.clocks.sm_mhz_before = c->sm_mhz;
      }
    const int warmup = settings_.warmup_draws();
    const int planned = settings_.timed_draws();
    const int maximum = std::max(planned, settings_.max_timed_draws());
    // Which timed draws of the submission are verified again: secret, fixed before any runs.
    splitmix64 choose(mix64(seed_ ^ 0x7265766572696679ull));
    std::set<int> reverify;
    while (static_cast<int>(reverify.size()) < std::min(settings_.reverify_draws(), planned))
      reverify.insert(static_cast<int>(choose.below(static_cast<uint64_t>(planned))));
    result_.reverified.assign(reverify.begin(), reverify.end());

    std::vector<double> samples[2];
    std::vector<std::pair<event *, event *>> pending[2];
    // Alternate which runs first so that neither always follows the other's flush and clock state.
    auto order = [](int i, int k) { return (i + k) % 2; };
    for (int i = 0; i < warmup; ++i)
      for (int k = 0; k < 2; ++k)
        if (int r = order(i, k); r == 0 || settings_.time_baseline()) timed_draw(r, next_seed(), pending[r]);
    g_->synchronize(timeout(), "the warm-up draws");
    pending[0].clear();
    pending[1].clear();

    int target = planned;
    for (int i = 0; i < target; ++i) {
      for (int k = 0; k < 2; ++k) {
        int r = order(i, k);
        if (r == 1 && !settings_.time_baseline()) continue;
        if (r == 0 && reverify.count(i)) {
          drain(pending[0], samples[0]);
          drain(pending[1], samples[1]);
          samples[0].push_back(*checked_draw(next_seed(), true, -1, i));
          continue;
        }
        timed_draw(r, next_seed(), pending[r]);
      }
      if (i + 1 == target) {
        drain(pending[0], samples[0]);
        drain(pending[1], samples[1]);
        if (target < maximum && (!precise(samples[0]) || (settings_.time_baseline() && !precise(samples[1]))))
          target = std::min(maximum, target + timing_batch);
      }
    }
    for (auto &[b, e] : busy_spans_) result_.phases.gpu_busy_ms += elapsed_ms(*b, *e);
    for (auto &[b, e] : generation_spans_) result_.phases.generation_ms += elapsed_ms(*b, *e);
    busy_spans_.clear();
    generation_spans_.clear();
    result_.submission_time = summarize_samples(samples[0]);
    if (settings_.time_baseline()) result_.baseline_time = summarize_samples(samples[1]);
    if (nvml)
      if (auto c = nvml->read()) {
        result_.clocks.sm_mhz_after = c->sm_mhz;
        result_.clocks.memory_mhz = c->memory_mhz;
        result_.clocks.temperature_c = c->temperature_c;
        result_.clocks.throttle_reasons = c->throttle_reasons;
      }
    result_.phases.timing_ms += milliseconds_since(start);
  }

  // Waits for every queued timed draw and records its sample.
  void drain(std::vector<std::pair<event *, event *>> &pending, std::vector<double> &samples) {
    for (auto &[start, end] : pending) {
      g_->wait(end->get(), timeout(), "a timed draw");
      samples.push_back(1000.0 * elapsed_ms(*start, *end));
    }
    pending.clear();
  }

  uint64_t next_seed() { return derive_seed(seed_, 1000 + timed_seeds_++); }

  // The median's relative standard error, estimated from the IQR, is within a fifth of the target
  // spread: the range of five independent medians is about 2.3 standard errors, and separate
  // processes add a little of their own.
  bool precise(const std::vector<double> &samples) const {
    sample_summary s = summarize(samples);
    if (s.count < 2 || s.median <= 0) return true;
    double sigma = (s.q3 - s.q1) / 1.349;
    double standard_error = 1.2533 * sigma / std::sqrt(static_cast<double>(s.count));
    return standard_error / s.median <= settings_.target_rel_spread() / 5;
  }

  static wire::timing_stats summarize_samples(const std::vector<double> &samples) {
    sample_summary s = summarize(samples);
    wire::timing_stats t;
    t.samples = static_cast<int>(s.count);
    t.median_us = s.median;
    t.min_us = s.min;
    t.max_us = s.max;
    t.q1_us = s.q1;
    t.q3_us = s.q3;
    t.mean_us = s.mean;
    t.cv = s.cv;
    t.times_us.assign(samples.begin(), samples.end());
    return t;
  }

  gpu *g_;
  harness_kernels *harness_;
  const progress_callback &progress_;
  const wire::EvaluateSettings &settings_;
  compile_cache cache_;
  wire::problem_instance problem_;
  uint64_t seed_;
  splitmix64 random_;
  role_plan plans_[3];
  compile_output compiled_[3];
  loaded_plan loaded_[3];
  input_generator generator_;
  std::map<std::string, binding> names_[3];
  std::map<size_t, size_t> output_slot_;                       // output -> index among non-aliased outputs
  std::map<size_t, std::array<device_memory, 2>> holds_;       // aliased output -> copies for roles 0, 1
  std::map<size_t, std::array<device_memory, 2>> sorted_;      // exact_sorted output -> sort buffers
  std::map<size_t, std::array<device_memory, 2>> digests_;     // read-only input -> before, after
  rotating_arena inputs_, outputs_[3], scratch_[3];
  buffer_layout layout_inputs_, layout_outputs_[3], layout_scratch_[3];
  device_memory flush_;
  size_t stat_guards_ = 0, stat_inputs_ = 0;
  std::deque<event> timing_events_; // stable addresses: pending draws point into it
  size_t event_cursor_ = 0;
  uint64_t timed_seeds_ = 0;
  std::vector<std::pair<event *, event *>> busy_spans_, generation_spans_;
  queue_lock turn_; // held from loading to the end of the evaluation
  wire::evaluation_result result_;
};

} // namespace

wire::evaluation_result evaluate(gpu *g, harness_kernels *harness, const wire::Evaluate &request,
                                 const progress_callback &progress) {
  auto run = std::make_unique<evaluation_run>(g, harness, request, progress);
  wire::evaluation_result result = run->run();
  // With the context lost (a kernel still running, or a fault), freeing device memory or unloading a
  // module would wait for the GPU forever. The process is about to end: leave everything to it.
  if (result.worker_must_exit) (void)run.release();
  return result;
}

} // namespace mkb::worker
