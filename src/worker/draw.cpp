#include <fmt/format.h>

#include <filesystem>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/json_writer.hpp"
#include "worker/evaluation.hpp"
#include "worker/failure.hpp"
#include "worker/input_generator.hpp"

namespace mkb::worker {

std::vector<std::string> write_draw(gpu &g, harness_kernels &harness, const wire::Draw &request) {
  namespace fs = std::filesystem;
  const wire::problem_instance problem = wire::decode(*request.problem());
  const compile_cache cache(request.cache_dir() ? request.cache_dir()->str() : std::string());
  const std::string arch = arch_for_compute_capability(g.facts().major, g.facts().minor);
  const wire::module_source anchor_source = wire::decode_module(request.anchor()->code());

  cached_compile compiled = cache.compile(anchor_source.source, anchor_source.name, arch, problem_headers());
  if (!compiled.output.ok) throw infrastructure_failure("the anchor does not compile:\n" + compiled.output.log);
  loaded_plan anchor(g, compiled.output.cubin, wire::decode(*request.anchor()), "anchor");
  std::vector<wire::compile_info> compiles;
  input_generator generator(&g, &harness, problem, cache, arch, compiles);
  generator.load(g);

  std::vector<std::string> input_names, output_names, scratch_names;
  std::vector<uint64_t> input_sizes, output_sizes, scratch_sizes;
  for (const tensor_spec &t : problem.inputs) {
    input_names.push_back(t.name);
    input_sizes.push_back(t.bytes());
  }
  for (const tensor_spec &t : problem.outputs) {
    output_names.push_back(t.name);
    output_sizes.push_back(t.count * (dtype_is_floating(t.type) ? 8 : dtype_bytes(t.type)));
  }
  for (const resolved_scratch &s : anchor.plan().scratch) {
    scratch_names.push_back(s.name);
    scratch_sizes.push_back(s.bytes);
  }
  rotating_arena inputs(input_names, input_sizes, 1, 0), outputs(output_names, output_sizes, 1, 0),
      scratch(scratch_names, scratch_sizes, 1, 0);
  splitmix64 unused(0);
  buffer_layout in = inputs.next(unused), out = outputs.next(unused), tmp = scratch.next(unused);

  generator.generate(in, request.seed(), false);
  for (size_t o = 0; o < problem.outputs.size(); ++o)
    check_cuda(g.cu().cuMemsetD8Async(out.addresses[o], 0xff, output_sizes[o], g.stream()), "poisoning outputs");
  for (size_t s = 0; s < scratch_sizes.size(); ++s)
    check_cuda(g.cu().cuMemsetD8Async(tmp.addresses[s], anchor.plan().scratch[s].zeroed ? 0 : 0xff, scratch_sizes[s], g.stream()),
               "preparing scratch");
  anchor.enqueue(g, [&](const std::string &name) -> CUdeviceptr {
    for (size_t i = 0; i < input_names.size(); ++i)
      if (input_names[i] == name) return in.addresses[i];
    for (size_t o = 0; o < output_names.size(); ++o)
      if (output_names[o] == name) return out.addresses[o];
    for (size_t s = 0; s < scratch_names.size(); ++s)
      if (scratch_names[s] == name) return tmp.addresses[s];
    fail(MKB_ERR_INTERNAL, "anchor names unknown buffer '{}'", name);
  });
  g.synchronize(std::chrono::seconds(60), "the anchor");

  const fs::path dir = request.out_dir()->str();
  std::vector<std::string> files;
  json_writer index;
  index.begin_object().field("problem", problem.id).field("seed", request.seed()).key("tensors").begin_array();
  auto save = [&](const std::string &role, const std::string &name, CUdeviceptr address, uint64_t bytes,
                  std::string_view type, const std::vector<int64_t> &shape) {
    std::string data(bytes, '\0');
    check_cuda(g.cu().cuMemcpyDtoHAsync(data.data(), address, bytes, g.stream()), "copying a draw to the host");
    g.synchronize(std::chrono::seconds(60), "copying a draw to the host");
    std::string file = role + "." + name + ".bin";
    write_file_atomic(dir / file, data);
    files.push_back((dir / file).string());
    index.begin_object().field("role", role).field("name", name).field("dtype", type).field("file", file);
    index.key("shape").begin_array();
    for (int64_t e : shape) index.value(e);
    index.end_array().end_object();
  };
  for (size_t i = 0; i < problem.inputs.size(); ++i) {
    const tensor_spec &t = problem.inputs[i];
    save("input", t.name, in.addresses[i], t.bytes(), dtype_name(t.type), t.shape);
  }
  for (size_t o = 0; o < problem.outputs.size(); ++o) {
    const tensor_spec &t = problem.outputs[o];
    save("anchor", t.name, out.addresses[o], output_sizes[o], dtype_is_floating(t.type) ? "fp64" : dtype_name(t.type), t.shape);
  }
  index.end_array().end_object();
  write_file_atomic(dir / "index.json", index.str() + "\n");
  files.push_back((dir / "index.json").string());
  return files;
}

} // namespace mkb::worker
