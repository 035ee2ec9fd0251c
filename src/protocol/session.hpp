// A session: the suite, the DSL pair, the GPU workers and the evaluator, plus (src/protocol) the
// four-arm plan, budgets, ledger and scores. The C API's mkb_session wraps one.
#pragma once

#include <memory>
#include <string>

#include "eval/evaluator.hpp"
#include "eval/worker_pool.hpp"
#include "protocol/session_config.hpp"
#include "spec/suite.hpp"

namespace mkb {

class session {
public:
  explicit session(session_config config);
  ~session();

  const session_config &config() const { return config_; }
  const suite &problems() const { return suite_; }
  bool compile_only() const { return compile_only_; }
  const std::vector<int> &gpus() const { return gpus_; }

  // Evaluates outside any task (mkb_evaluate). Throws MKB_ERR_NOT_FOUND for unknown names.
  evaluation_report evaluate(const std::string &problem_id, const std::string &dsl_name, std::string_view source);

private:
  session_config config_;
  suite suite_;
  std::vector<int> gpus_;
  bool compile_only_ = false;
  std::unique_ptr<worker_pool> workers_;
  std::unique_ptr<evaluator> evaluator_;
};

} // namespace mkb
