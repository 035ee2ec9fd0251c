// The fuzz targets: each takes arbitrary bytes and must return or throw the error its parser
// documents (mkb::error, plan_error, expression_error), never crash, hang or leak. libfuzzer_main.cpp
// runs one under libFuzzer with ASan and UBSan (tests/fuzz/run.sh); corpus_test.cpp runs each over its
// seed corpus and its regression inputs in the ordinary test suite, so a build without clang checks
// them too. tests/fuzz/README.md says how to run and extend them.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace mkb::fuzz {

using bytes = std::span<const uint8_t>;

void expression(bytes data);    // core/expression: one expression over a few symbols
void plan_parser(bytes data);   // plan/: a cuda submission's plan block, parsed and resolved
void spec_loader(bytes data);   // spec/problem: a problem's spec.json
void ledger_reader(bytes data); // protocol/ledger: ledger::read over a file holding the bytes
void frame_decoder(bytes data); // wire/: frames received from a socket, verified and decoded

struct target {
  std::string_view name; // also the folder of its corpus and regression inputs
  void (*run)(bytes data);
};

inline constexpr target targets[] = {
    {"expression", expression},       {"plan_parser", plan_parser},     {"spec_loader", spec_loader},
    {"ledger_reader", ledger_reader}, {"frame_decoder", frame_decoder},
};

inline std::string_view as_text(bytes data) { return {reinterpret_cast<const char *>(data.data()), data.size()}; }

} // namespace mkb::fuzz
