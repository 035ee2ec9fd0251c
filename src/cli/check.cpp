// `mkb check`, `mkb draw` and `mkb problems`.
#include <fmt/format.h>

#include <filesystem>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/random.hpp"
#include "dsl/dsl.hpp"
#include "eval/worker_client.hpp"
#include "mkb.h"
#include "spec/suite.hpp"

namespace mkb::cli {

int run_check(int argc, char **argv) {
  arguments a;
  try {
    a = parse_arguments(argc, argv, 2, {"problem", "dsl", "suite", "gpus", "gpu-lock-dir", "target-arch"},
                        {"json", "compile-only", "no-sandbox"});
    if (!a.get("problem") || !a.get("dsl") || a.positional.size() != 1)
      throw std::invalid_argument("usage: mkb check --problem ID --dsl DSL FILE [--json] [--suite DIR] [--gpus LIST] "
                                  "[--compile-only [--target-arch ARCH]] [--no-sandbox]");
  } catch (const std::exception &e) {
    fmt::print(stderr, "mkb check: {}\n", e.what());
    return exit_usage;
  }
  auto source = try_read_file(a.positional[0]);
  if (!source) {
    fmt::print(stderr, "mkb check: cannot read '{}'\n", a.positional[0]);
    return exit_usage;
  }
  session_arguments session_options(a);
  mkb_open_options options = *session_options.options();
  std::string target_arch = a.get("target-arch").value_or(""); // compile-only: what to compile for
  if (a.get("target-arch")) options.target_arch = target_arch.c_str();
  mkb_session *session = nullptr;
  if (mkb_status s = mkb_open(&options, &session); s != MKB_OK) {
    fmt::print(stderr, "mkb check: {}: {}\n", mkb_status_name(s), mkb_session_errmsg(session));
    mkb_close(session);
    return s == MKB_ERR_WORKER ? exit_environment : exit_usage;
  }
  mkb_report *report = nullptr;
  std::string problem = *a.get("problem"), dsl_name = *a.get("dsl");
  mkb_status s = mkb_evaluate(session, problem.c_str(), dsl_name.c_str(), source->data(), source->size(), &report);
  if (s != MKB_OK) {
    fmt::print(stderr, "mkb check: {}: {}\n", mkb_status_name(s), mkb_session_errmsg(session));
    mkb_close(session);
    return s == MKB_ERR_NOT_FOUND ? exit_usage : exit_environment;
  }
  if (a.has("json")) fmt::print("{}\n", mkb_report_json(report));
  else fmt::print("{}", mkb_report_message(report));
  int verdict = mkb_report_verdict(report);
  mkb_report_free(report);
  mkb_close(session);
  if (verdict == MKB_VERDICT_PASSED || verdict == MKB_VERDICT_COMPILED) return exit_ok;
  return verdict == MKB_VERDICT_REFUSED ? exit_environment : exit_failed;
}

int run_draw(int argc, char **argv) {
  arguments a;
  try {
    a = parse_arguments(argc, argv, 2, {"problem", "seed", "out", "suite", "gpu"}, {});
    if (!a.get("problem") || !a.get("seed") || !a.get("out"))
      throw std::invalid_argument("usage: mkb draw --problem ID --seed S --out DIR [--suite DIR] [--gpu N]");
  } catch (const std::exception &e) {
    fmt::print(stderr, "mkb draw: {}\n", e.what());
    return exit_usage;
  }
  try {
    std::optional<std::filesystem::path> root;
    if (auto s = a.get("suite")) root = *s;
    suite problems = suite::load(root);
    const problem *p = problems.find(*a.get("problem"));
    if (!p) fail(MKB_ERR_NOT_FOUND, "no problem '{}'", *a.get("problem"));
    uint64_t seed = std::stoull(*a.get("seed"), nullptr, 0);
    prepared_submission anchor = find_dsl("cuda")->prepare(p->anchor_source, *p, plan_role::anchor);
    anchor.module.name = p->folder + "/anchor.cu";
    std::filesystem::create_directories(*a.get("out"));
    std::string out_dir = std::filesystem::canonical(*a.get("out")).string();

    flatbuffers::FlatBufferBuilder b;
    worker_client worker(find_worker_executable(""), std::stoi(a.get("gpu").value_or("0")));
    auto instance = wire::encode(b, wire::instance_of(*p));
    auto plan = wire::encode(b, plan_role::anchor, anchor.module, anchor.plan);
    auto body = wire::CreateDraw(b, instance, plan, seed, b.CreateString(out_dir), b.CreateString(default_cache_dir().string()));
    worker_reply reply = worker.request(wire::finish_request(b, worker.next_id(), body), std::chrono::minutes(10));
    if (reply.status != worker_reply::answered) fail(MKB_ERR_WORKER, "the worker {}", reply.how_it_ended);
    const wire::Response *r = reply.response();
    if (r->body_type() == wire::ResponseBody::Failure) fail(MKB_ERR_WORKER, "{}", r->body_as_Failure()->message()->str());
    for (const flatbuffers::String *f : *r->body_as_DrawResult()->files()) fmt::print("{}\n", f->str());
    return exit_ok;
  } catch (const error &e) {
    fmt::print(stderr, "mkb draw: {}\n", e.what());
    return e.status() == MKB_ERR_WORKER ? exit_environment : exit_failed;
  } catch (const std::exception &e) {
    fmt::print(stderr, "mkb draw: {}\n", e.what());
    return exit_usage;
  }
}

int run_problems(int argc, char **argv) {
  try {
    arguments a = parse_arguments(argc, argv, 2, {"suite"}, {});
    std::optional<std::filesystem::path> root;
    if (auto s = a.get("suite")) root = *s;
    suite problems = suite::load(root);
    for (const problem &p : problems.problems())
      fmt::print("{:<18} {:<50} {}\n", p.family, p.id, p.description);
    return exit_ok;
  } catch (const error &e) {
    fmt::print(stderr, "mkb problems: {}\n", e.what());
    return exit_failed;
  } catch (const std::exception &e) {
    fmt::print(stderr, "mkb problems: {}\n", e.what());
    return exit_usage;
  }
}

} // namespace mkb::cli
