#include "protocol/session.hpp"

#include "core/error.hpp"
#include "dsl/dsl.hpp"

namespace mkb {

session::session(session_config config) : config_(std::move(config)), suite_(suite::load(config_.suite_path)) {
  for (const std::string *name : {&config_.dsl_a, &config_.dsl_b})
    if (!name->empty() && !find_dsl(*name)) fail(MKB_ERR_NOT_FOUND, "DSL '{}' is not registered in this build", *name);

  std::string worker = find_worker_executable(config_.worker_path);
  compile_only_ = config_.compile_only;
  if (!compile_only_) {
    if (config_.gpus) {
      gpus_ = *config_.gpus;
    } else {
      // Every visible GPU; with none, the session compiles and checks but runs nothing.
      worker_client probe(worker, 0);
      worker_status status = probe.ping();
      for (const wire::device_info &d : status.devices) gpus_.push_back(d.ordinal);
      compile_only_ = gpus_.empty();
    }
  }
  workers_ = std::make_unique<worker_pool>(worker, compile_only_ ? std::vector<int>{} : gpus_);
  evaluation_settings settings;
  settings.compile_only = compile_only_;
  settings.cache_dir = config_.cache_dir;
  settings.max_source_bytes = config_.budget_source_bytes;
  evaluator_ = std::make_unique<evaluator>(*workers_, settings);
}

session::~session() {
  if (workers_) workers_->stop_all();
}

evaluation_report session::evaluate(const std::string &problem_id, const std::string &dsl_name, std::string_view source) {
  const problem *p = suite_.find(problem_id);
  if (!p) fail(MKB_ERR_NOT_FOUND, "no problem '{}' in suite {}", problem_id, suite_.origin());
  const dsl *d = find_dsl(dsl_name);
  if (!d) fail(MKB_ERR_NOT_FOUND, "DSL '{}' is not registered in this build", dsl_name);
  return evaluator_->evaluate(*p, *d, source);
}

} // namespace mkb
