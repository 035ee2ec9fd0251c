#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz) with clang, ASan and UBSan in build-fuzz/, then runs each
# target for SECONDS (default 60) from its seed corpus and regression inputs. Fails on the first crash,
# leak, sanitizer report or slow input; libFuzzer keeps that input as build-fuzz/fuzz/<target>/crash-*
# (or leak-*, timeout-*, slow-unit-*). Inputs found along the way stay in build-fuzz/fuzz/<target>/corpus.
#
#   tests/fuzz/run.sh [SECONDS] [TARGET...]      TARGET: expression plan_parser spec_loader ledger_reader frame_decoder
#
# Environment: CC/CXX (default clang/clang++), MKB_FUZZ_JOBS (build jobs, default 2).
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(expression plan_parser spec_loader ledger_reader frame_decoder)

cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="${CC:-clang}" -DCMAKE_CXX_COMPILER="${CXX:-clang++}" \
  -DMKB_FUZZ=ON -DMKB_BUILD_TESTS=OFF -DMKB_BUILD_BENCH=OFF >/dev/null
cmake --build build-fuzz --target mkb_fuzzers -j "${MKB_FUZZ_JOBS:-2}"

status=0
summary=""
for target in "${targets[@]}"; do
  work=build-fuzz/fuzz/$target
  mkdir -p "$work/corpus"
  inputs=("$work/corpus" "tests/fuzz/corpus/$target")
  [ -d "tests/fuzz/regressions/$target" ] && inputs+=("tests/fuzz/regressions/$target")
  echo "== $target: ${seconds} s"
  # -timeout: an input that takes 10 s is a finding (a hang in the agent's process), as is a crash.
  if ! ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    "build-fuzz/bin/mkb-fuzz-$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
      -print_final_stats=1 -artifact_prefix="$work/" "${inputs[@]}" >"$work/log" 2>&1; then
    status=1
    echo "$target: FAILED; the log is $work/log, the input in $work/" >&2
    tail -n 40 "$work/log" >&2
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
  cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$work/log" | tail -n 1)
  summary+=$(printf '%-14s %12s executions  %s  corpus %s files' "$target" "${runs:-?}" "${cov:-cov: ?}" \
    "$(find "$work/corpus" -type f | wc -l)")$'\n'
done
printf '\n%s' "$summary"
exit $status
