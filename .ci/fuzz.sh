#!/usr/bin/env bash
# The fuzzers' short run in the test command (docs/fuzzing.md): builds the
# libFuzzer targets with clang, AddressSanitizer and UndefinedBehaviorSanitizer
# in a build directory of their own, then runs each from its corpus with a
# fixed seed and a fixed number of new inputs:
#   sched-fuzzer     the .sched front end, from examples/ and test/Lang/;
#   schedule-fuzzer  random machines and collectives through the scheduling
#                    library, the verifier as the oracle, from
#                    test/Fuzz/schedule-corpus/.
# Prints "fuzz: NAME passed|failed" per fuzzer; a crash, a sanitizer report,
# a leak, a timeout or a finding fails it (its input is kept in the work
# directory the line names). Exit status: the number of failed fuzzers.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PHASEC_FUZZ_BUILD_DIR:-$root/build-fuzz}
# New inputs per fuzzer (a schedule input runs Z3; a .sched one is cheap).
sched_runs=${PHASEC_FUZZ_SCHED_RUNS:-10000}
schedule_runs=${PHASEC_FUZZ_SCHEDULE_RUNS:-2000}
mkdir -p "$build"
if ! { CC=clang-19 CXX=clang++-19 cmake -G Ninja -S "$root" -B "$build" \
         -DCMAKE_BUILD_TYPE=Release -DPHASEC_ENABLE_FUZZER=ON \
         -DPHASEC_ENABLE_TESTS=OFF > "$build/cmake.log" 2>&1 &&
       ninja -C "$build" -j "${PHASEC_JOBS:-2}" sched-fuzzer schedule-fuzzer \
         > "$build/ninja.log" 2>&1; }; then
  tail -20 "$build/cmake.log" "$build/ninja.log" 2>/dev/null
  echo "fuzz: sched-fuzzer failed (build)"
  echo "fuzz: schedule-fuzzer failed (build)"
  exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/phasec-fuzz.XXXXXX")
failed=0
run() { # name, runs, then the fuzzer's arguments
  local name=$1 runs=$2; shift 2
  mkdir -p "$work/$name/new" "$work/$name/artifacts"
  if "$build/bin/$name" -seed=1 -runs="$runs" -rss_limit_mb=4096 \
       -artifact_prefix="$work/$name/artifacts/" "$@" > "$work/$name/log" 2>&1; then
    echo "fuzz: $name passed ($(grep -oE 'Done [0-9]+ runs in [0-9]+ second' "$work/$name/log"))"
  else
    failed=$((failed + 1))
    grep -E 'ERROR|runtime error|schedule-fuzzer:|SUMMARY|Test unit written' "$work/$name/log" | head -20
    echo "fuzz: $name failed (log and input in $work/$name)"
  fi
}
run sched-fuzzer "$sched_runs" -timeout=20 -dict="$root/lang/fuzz/sched.dict" \
  "$work/sched-fuzzer/new" "$root/examples" "$root/test/Lang"
run schedule-fuzzer "$schedule_runs" -timeout=30 -max_len=256 -len_control=0 \
  "$work/schedule-fuzzer/new" "$root/test/Fuzz/schedule-corpus"
[ "$failed" -eq 0 ] && rm -rf "$work"
exit "$failed"
