#!/usr/bin/env bash
# The README's second command: set up, build, and run the whole test suite
# (lit + gtest, all through ctest, then the fuzzers' short run). Prints a closing `N passed, N failed`
# line that counts lit tests and unit tests one by one.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PHASEC_BUILD_DIR:-$root/build}
"$root/.ci/build.sh" || { echo "tests: 0 passed, 1 failed"; exit 1; }

cd "$build"
ctest --output-on-failure -j "${PHASEC_JOBS:-2}" 2>&1 | tee ctest.log
status=${PIPESTATUS[0]}

# lit runs as one ctest test; count its tests individually from its summary.
log=Testing/Temporary/LastTest.log
litcount() { # sum of lit's summary counts for the given categories
  sed -nE "s/^ *($1): *([0-9]+).*/\2/p" "$log" 2>/dev/null | awk '{s+=$1} END {print s+0}'
}
lit_pass=$(litcount 'Passed|Expectedly Failed')
lit_fail=$(litcount 'Failed|Unexpectedly Passed|Timed Out|Unresolved')
lit_skip=$(litcount 'Unsupported|Excluded')
ct_total=$(grep -oE 'tests failed out of [0-9]+' ctest.log | grep -oE '[0-9]+$' || echo 0)
ct_fail=$(grep -oE '[0-9]+ tests failed out of' ctest.log | grep -oE '^[0-9]+' || echo 0)
# ctest counts lit as one test: replace it by lit's own counts.
unit_total=$((ct_total - 1)); [ "$unit_total" -lt 0 ] && unit_total=0
lit_failed_ctest=0
grep -qE '^[0-9/ ]*Test *#[0-9]+: lit .*Passed' ctest.log || lit_failed_ctest=1
unit_fail=$((ct_fail - lit_failed_ctest)); [ "$unit_fail" -lt 0 ] && unit_fail=0
passed=$(( lit_pass + unit_total - unit_fail ))
failed=$(( lit_fail + unit_fail ))
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi

# The fuzzers' short run (.ci/fuzz.sh: its own clang build with ASan and
# UBSan); each fuzzer counts as one test.
"$root/.ci/fuzz.sh" 2>&1 | tee fuzz.log
fuzz_pass=$(grep -c '^fuzz: .* passed' fuzz.log)
fuzz_fail=$(grep -c '^fuzz: .* failed' fuzz.log)
passed=$((passed + fuzz_pass))
failed=$((failed + fuzz_fail))
[ "$fuzz_fail" -ne 0 ] && status=1
echo "tests: ${passed} passed, ${failed} failed, ${lit_skip} skipped"
exit "$status"
