#include "protocol/provenance.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

#include "core/build_info.hpp"
#include "core/json_writer.hpp"
#include "dsl/dsl.hpp"
#include "eval/worker_client.hpp"
#include "mkb.h"

namespace mkb {

std::string provenance_json(const run_facts &run) {
  json_writer j;
  j.begin_object().field("library_version", MKB_VERSION_STRING).field("git_revision", build_git_revision());
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  j.field("host", host).field("model", run.config.model).field("compile_only", run.compile_only);
  j.key("dsls").begin_array();
  for (const dsl *d : {&run.dsl_a, &run.dsl_b}) {
    std::string found;
    frontend_environment env = run.settings.frontends;
    bool usable = d->usable(env, &found);
    j.begin_object().field("name", d->name()).field("usable", usable).field("toolchain", found).end_object();
  }
  j.end_array();
  j.key("gpus").begin_array();
  if (!run.compile_only) {
    worker_status status = worker_client(find_worker_executable(run.config.worker_path), 0).ping();
    for (const device_info &d : status.devices) {
      if (std::find(run.gpus.begin(), run.gpus.end(), d.ordinal) == run.gpus.end()) continue;
      j.begin_object().field("ordinal", d.ordinal).field("name", d.name).field("uuid", d.uuid);
      j.field("compute_capability", fmt::format("{}.{}", d.major, d.minor)).field("sm_clock_mhz", d.sm_clock_khz / 1000);
      j.field("memory_clock_mhz", d.memory_clock_khz / 1000).field("driver_version", status.driver_version);
      j.field("nvrtc_version", status.nvrtc_version).end_object();
    }
  }
  j.end_array();
  const evaluation_settings &e = run.settings;
  j.key("contract").begin_object().field("budget_seconds", run.config.budget_seconds);
  j.field("budget_submissions", run.config.budget_submissions).field("budget_source_bytes", run.config.budget_source_bytes);
  j.field("skill_max_bytes", run.config.skill_max_bytes).field("correctness_draws", e.draws.correctness_draws);
  j.field("warmup_draws", e.draws.warmup_draws).field("timed_draws", e.draws.timed_draws).field("max_timed_draws", e.draws.max_timed_draws);
  j.field("reverify_draws", e.draws.reverify_draws).end_object();
  j.key("selection").begin_object().field("suite", run.problems.origin()).field("replicates", run.config.replicates);
  for (const auto &[name, list] : {std::pair{"problems", &run.config.problem_patterns}, std::pair{"families", &run.config.families},
                                   std::pair{"trials", &run.config.trial_patterns}, std::pair{"directions", &run.config.directions}}) {
    j.key(name).begin_array();
    for (const std::string &item : *list) j.value(item);
    j.end_array();
  }
  j.end_object().end_object();
  return j.take();
}

} // namespace mkb
