// `mkb draw`: writes one draw's inputs and the anchor's outputs, as the worker makes them.
#include <fmt/format.h>

#include <filesystem>

#include "cli/commands.hpp"
#include "cli/not_found.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "dsl/dsl.hpp"
#include "eval/worker_client.hpp"
#include "spec/suite.hpp"

namespace mkb::cli {

namespace {

struct draw_options {
  std::string problem, suite, out;
  uint64_t seed = 0;
  int gpu = 0;
};

int draw(const draw_options &o) {
  try {
    suite problems = suite::load(o.suite.empty() ? std::nullopt : std::optional<std::filesystem::path>(o.suite));
    const problem *p = problems.find(o.problem);
    if (!p) return report_not_found("mkb draw", "problem", o.problem, problem_ids(o.suite), suite_called(problems.origin()));
    prepared_submission anchor = find_dsl("cuda")->prepare(p->anchor_source, *p, plan_role::anchor);
    anchor.module.name = p->folder + "/anchor.cu";
    std::filesystem::create_directories(o.out);
    std::string out_dir = std::filesystem::canonical(o.out).string();

    worker_client worker(find_worker_executable(""), o.gpu);
    draw_request request{instance_of(*p), {anchor.module, anchor.plan}, o.seed, out_dir, default_cache_dir().string()};
    worker_reply reply = worker.request(std::move(request), std::chrono::minutes(10));
    if (reply.status != worker_reply::answered) fail(MKB_ERR_WORKER, "the worker {}", reply.how_it_ended);
    if (const worker_failure *f = std::get_if<worker_failure>(&reply.answer)) fail(MKB_ERR_WORKER, "{}", f->message);
    const draw_answer *written = std::get_if<draw_answer>(&reply.answer);
    if (!written) fail(MKB_ERR_WORKER, "the worker answered with the wrong message");
    for (const std::string &file : written->files) fmt::print("{}\n", file);
    return exit_ok;
  } catch (const error &e) {
    fmt::print(stderr, "mkb draw: {}\n", e.what());
    return e.status() == MKB_ERR_WORKER ? exit_environment : exit_failed;
  } catch (const std::filesystem::filesystem_error &e) {
    fmt::print(stderr, "mkb draw: {}\n", e.what());
    return exit_failed;
  }
}

} // namespace

void add_draw(CLI::App &mkb, int &exit_code) {
  CLI::App *command = mkb.add_subcommand(
      "draw", "write one draw's inputs and the anchor's outputs as raw arrays, with index.json. Exit 3 without a GPU "
              "or worker");
  auto o = std::make_shared<draw_options>();
  command->add_option("--problem", o->problem, "the problem's id (`mkb problems` lists them)")->type_name("ID")->required();
  command->add_option("--seed", o->seed, "the draw's seed, as a report gives it (decimal or 0x hex)")->type_name("S")->required();
  command->add_option("--out", o->out, "the folder to write into (created)")->type_name("DIR")->required();
  command->add_option("--suite", o->suite, "the suite folder (default: the built-in suite)")->type_name("DIR")
      ->check(CLI::ExistingDirectory.description(""));
  command->add_option("--gpu", o->gpu, "the GPU's ordinal")->type_name("N")->check(CLI::NonNegativeNumber);
  command->callback([o, &exit_code] { exit_code = draw(*o); });
}

} // namespace mkb::cli
