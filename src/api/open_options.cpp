#include "api/open_options.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstring>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/text.hpp"

namespace mkb {

namespace {

// The size of the struct up to and including `member`: a field is present if struct_size covers it.
#define MKB_FIELD_END(member) (offsetof(mkb_open_options, member) + sizeof(mkb_open_options::member))

constexpr size_t first_version_size = MKB_FIELD_END(python);

// A GPU lock folder named by the user is checked now, so that a typo fails the open, not an evaluation.
std::string checked_lock_dir(const std::string &folder, const char *source) {
  if (folder.empty()) fail(MKB_ERR_CONFIG, "{}: expected a folder, got an empty string", source);
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    fail(MKB_ERR_CONFIG, "{}: the GPU lock folder '{}' must exist and be writable: {}", source, folder, std::strerror(errno));
  return folder;
}

// A comma-separated selection: NULL selects everything, so an empty string or an empty item is a
// mistake (a variable that was never set), not a wish for everything.
std::vector<std::string> selection(const char *field, const char *text) {
  std::vector<std::string> items = split(text, ',', false);
  for (const std::string &item : items)
    if (item.empty())
      fail(MKB_ERR_CONFIG, "{}: \"{}\" has an empty item; give comma-separated names, or NULL for all", field, text);
  return items;
}

// The architecture compile-only sessions compile for: the option, MKB_TARGET_ARCH, then the default.
std::string target_arch_from(const char *option) {
  std::optional<std::string> env = environment("MKB_TARGET_ARCH");
  const char *source = option ? "target_arch" : "MKB_TARGET_ARCH";
  std::string arch = option ? option : env.value_or(default_target_arch);
  if (std::string problem = target_arch_problem(arch); !problem.empty()) fail(MKB_ERR_CONFIG, "{}: {}", source, problem);
  return arch;
}

} // namespace

session_config config_from_options(const mkb_open_options *options) {
  session_config c;
  if (auto env = environment("MKB_GPU_LOCK_DIR")) c.gpu_lock_dir = checked_lock_dir(*env, "MKB_GPU_LOCK_DIR");
  if (!options) {
    c.cache_dir = default_cache_dir().string();
    c.target_arch = target_arch_from(nullptr);
    return c;
  }
  const size_t size = options->struct_size;
  if (size < first_version_size)
    fail(MKB_ERR_VERSION, "mkb_open_options.struct_size is {}; this library needs at least {} (call mkb_open_options_init)",
         size, first_version_size);
  auto text = [](const char *s) { return s ? std::optional<std::string>(s) : std::nullopt; };
  if (options->suite_path) {
    if (!*options->suite_path) fail(MKB_ERR_CONFIG, "suite_path: expected a folder, got an empty string (NULL for the built-in suite)");
    c.suite_path = options->suite_path;
  }
  c.dsl_a = text(options->dsl_a).value_or("");
  c.dsl_b = text(options->dsl_b).value_or("");
  if (options->problems) c.problem_patterns = selection("problems", options->problems);
  if (options->families) c.families = selection("families", options->families);
  if (options->replicates) c.replicates = options->replicates;
  if (c.replicates > 1000) fail(MKB_ERR_CONFIG, "replicates: expected 1 to 1000, got {}", c.replicates);
  if (options->budget_seconds) c.budget_seconds = options->budget_seconds;
  if (options->budget_submissions) c.budget_submissions = options->budget_submissions;
  if (options->budget_source_bytes) c.budget_source_bytes = options->budget_source_bytes;
  if (options->skill_max_bytes) c.skill_max_bytes = options->skill_max_bytes;
  if (c.budget_source_bytes > (64u << 20))
    fail(MKB_ERR_CONFIG, "budget_source_bytes: expected at most {} bytes, got {}", 64u << 20, c.budget_source_bytes);
  if (c.skill_max_bytes > (16u << 20))
    fail(MKB_ERR_CONFIG, "skill_max_bytes: expected at most {} bytes, got {}", 16u << 20, c.skill_max_bytes);
  if (options->model) {
    c.model = options->model;
    if (c.model.empty()) fail(MKB_ERR_CONFIG, "model: expected a label, got an empty string");
  }
  if (options->ledger_path) {
    if (!*options->ledger_path) fail(MKB_ERR_CONFIG, "ledger_path: expected a file name, got an empty string");
    c.ledger_path = options->ledger_path;
  }
  if (options->gpus) {
    std::vector<int> ordinals;
    for (const std::string &part : split(options->gpus, ',')) {
      int v = -1;
      auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
      if (ec != std::errc() || end != part.data() + part.size() || v < 0)
        fail(MKB_ERR_CONFIG, "gpus: expected comma-separated device ordinals such as \"0,1\", got \"{}\"", options->gpus);
      ordinals.push_back(v);
    }
    c.gpus = ordinals;
  }
  c.seed = options->seed;
  constexpr uint32_t known_flags = MKB_OPEN_COMPILE_ONLY | MKB_OPEN_RERUN_STALE | MKB_OPEN_NO_SANDBOX;
  if (options->flags & ~known_flags) fail(MKB_ERR_CONFIG, "flags: unknown bits {:#x}", options->flags & ~known_flags);
  c.compile_only = options->flags & MKB_OPEN_COMPILE_ONLY;
  c.rerun_stale = options->flags & MKB_OPEN_RERUN_STALE;
  c.sandbox = !(options->flags & MKB_OPEN_NO_SANDBOX); // MKB_NO_SANDBOX is read where frontends run
  c.worker_path = text(options->worker_path).value_or("");
  c.cache_dir = options->cache_dir ? options->cache_dir : default_cache_dir().string();
  if (options->python) c.python = options->python; // else the recorded one, session_config's default
  if (size >= MKB_FIELD_END(gpu_lock_dir) && options->gpu_lock_dir)
    c.gpu_lock_dir = checked_lock_dir(options->gpu_lock_dir, "gpu_lock_dir");
  if (size >= MKB_FIELD_END(trials) && options->trials) c.trial_patterns = selection("trials", options->trials);
  if (size >= MKB_FIELD_END(directions) && options->directions) {
    c.directions = selection("directions", options->directions);
    for (const std::string &d : c.directions)
      if (d != "a_to_b" && d != "b_to_a")
        fail(MKB_ERR_CONFIG, "directions: expected \"a_to_b\" or \"b_to_a\", got \"{}\"", d);
  }
  c.target_arch = target_arch_from(size >= MKB_FIELD_END(target_arch) ? options->target_arch : nullptr);
  if (size >= MKB_FIELD_END(shard_count)) {
    c.shard_count = std::max<uint32_t>(options->shard_count, 1);
    c.shard_index = options->shard_index;
    if (c.shard_index >= c.shard_count)
      fail(MKB_ERR_CONFIG, "shard_index: expected a shard below shard_count {} (shards count from 0), got {}",
           options->shard_count, c.shard_index);
  }
  return c;
}

} // namespace mkb
