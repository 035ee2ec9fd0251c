#include "worker/draw.hpp"

#include <filesystem>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/json_writer.hpp"
#include "cuda/compile_cache.hpp"
#include "worker/device_headers.hpp"
#include "worker/draw_workspace.hpp"
#include "worker/failure.hpp"
#include "worker/input_generator.hpp"

namespace mkb::worker {

std::vector<std::string> write_draw(gpu &g, harness_kernels &harness, const draw_request &request) {
  namespace fs = std::filesystem;
  const problem_instance &problem = request.problem;
  const compile_cache cache(request.cache_dir);
  const std::string arch = arch_for_compute_capability(g.facts().major, g.facts().minor);
  const module_source &source = request.anchor.module;

  cached_compile compiled = cache.compile(source.source, source.name, arch, problem_headers());
  if (!compiled.output.ok) throw infrastructure_failure("the anchor does not compile:\n" + compiled.output.log);
  loaded_plan anchor(g, compiled.output.cubin, request.anchor.plan, "anchor");
  std::vector<compile_info> compiles;
  input_generator generator(&g, &harness, problem, cache, arch, compiles);
  generator.load(g);

  // The evaluation's own buffers and name binding, for the anchor alone, at fixed addresses.
  draw_workspace workspace(problem, {nullptr, nullptr, &anchor.plan()}, 1, 0);
  splitmix64 unused(0);
  workspace.new_layouts(unused);
  generator.generate(workspace.input_layout(), request.seed, false);
  workspace.prepare_outputs(g, anchor_role);
  anchor.enqueue(g, [&](const std::string &name) { return workspace.address(anchor_role, name); });
  g.synchronize(std::chrono::seconds(60), "the anchor");

  const fs::path dir = request.out_dir;
  std::vector<std::string> files;
  json_writer index;
  index.begin_object().field("problem", problem.id).field("seed", request.seed).key("tensors").begin_array();
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
    save("input", t.name, workspace.input(i), t.bytes(), dtype_name(t.type), t.shape);
  }
  for (size_t o = 0; o < problem.outputs.size(); ++o) {
    const tensor_spec &t = problem.outputs[o];
    save("anchor", t.name, workspace.anchor_output(o), workspace.anchor_bytes(o), dtype_name(anchor_type(t)), t.shape);
  }
  index.end_array().end_object();
  write_file_atomic(dir / "index.json", index.str() + "\n");
  files.push_back((dir / "index.json").string());
  return files;
}

} // namespace mkb::worker
