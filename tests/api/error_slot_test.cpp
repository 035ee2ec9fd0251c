// Error text per handle and per thread (src/api/error_slot.cpp), as mkb.h's Conventions promise it:
// threads sharing a session each read their own last error, and a thread started later never reads
// the text of one that has ended.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "mkb.h"
#include "support/paths.hpp"

namespace {

struct session_scope {
  mkb_session *s = nullptr;
  session_scope() {
    mkb_open_options o;
    mkb_open_options_init(&o, sizeof o);
    std::string worker = mkb::testing::worker_double();
    o.worker_path = worker.c_str();
    o.dsl_a = o.dsl_b = "cuda";
    o.problems = "topk_softmax_routing_mixtral_8x7b_bf16";
    EXPECT_EQ(mkb_open(&o, &s), MKB_OK) << mkb_session_errmsg(s);
  }
  ~session_scope() { mkb_close(s); }
};

// A failing call whose text names `name`.
mkb_status fail_naming(mkb_session *s, const std::string &name) {
  mkb_report *r = nullptr;
  return mkb_evaluate(s, name.c_str(), "cuda", "x", 1, &r);
}

TEST(ErrorSlot, EachThreadReadsItsOwnLastError) {
  session_scope scope;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 16; ++i)
    threads.emplace_back([&, i] {
      for (int round = 0; round < 200; ++round) {
        std::string name = "no_such_problem_" + std::to_string(i) + "_" + std::to_string(round);
        if (fail_naming(scope.s, name) != MKB_ERR_NOT_FOUND) ++wrong;
        if (std::string(mkb_session_errmsg(scope.s)).find("'" + name + "'") == std::string::npos) ++wrong;
      }
    });
  for (auto &t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(ErrorSlot, ASuccessClearsOnlyTheCallersText) {
  session_scope scope;
  ASSERT_EQ(fail_naming(scope.s, "mine"), MKB_ERR_NOT_FOUND);
  std::thread([&] {
    char *text = nullptr;
    EXPECT_EQ(mkb_score(scope.s, MKB_SCORE_JSON, &text), MKB_OK);
    mkb_free(text);
    EXPECT_STREQ(mkb_session_errmsg(scope.s), "");
  }).join();
  EXPECT_NE(std::string(mkb_session_errmsg(scope.s)).find("'mine'"), std::string::npos);
}

// Regression: texts were keyed by std::thread::id, which the C library hands to the next thread once
// one has ended, so a new thread read the last error of a dead one.
TEST(ErrorSlot, ALaterThreadNeverReadsTheTextOfAnEndedOne) {
  session_scope scope;
  for (int i = 0; i < 50; ++i) {
    std::thread([&] { EXPECT_EQ(fail_naming(scope.s, "ended_thread"), MKB_ERR_NOT_FOUND); }).join();
    std::thread([&] { EXPECT_STREQ(mkb_session_errmsg(scope.s), "") << "round " << i; }).join();
  }
}

} // namespace
