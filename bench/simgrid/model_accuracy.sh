#!/bin/bash
#===- bench/simgrid/model_accuracy.sh - the cost model against SimGrid -----===#
#
# Usage: bench/simgrid/model_accuracy.sh BUILD_DIR OUT_DIR
#
# Issue 12's check of the cost model: every operation of every example in
# examples/ simulated in SimGrid 3.32 (`phasec EX --target=sim`,
# docs/simulator.md), each line `OP: simulated/model = R (D%)` compared with
# the model's machine time (docs/machine-model.md). OUT/NAME.txt holds each
# example's run, OUT/NAME.log its log; model_accuracy_summary.py OUT_DIR
# prints the table of docs/performance.md.
#
# Environment: EXAMPLES (default: every examples/*.sched), TIMEOUT (seconds
# per example, default 1800; an example that runs out is a row "timed out").
#
#===----------------------------------------------------------------------===#
set -uo pipefail
. "$(dirname "$0")/bench_dirs.sh"
bench_dirs model_accuracy.sh "${1:-}" "${2:-}"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
EXAMPLES=${EXAMPLES:-$(cd "$ROOT/examples" && ls *.sched)}
TIMEOUT=${TIMEOUT:-1800}

for ex in $EXAMPLES; do
  name=${ex%.sched}
  echo "[model] $name" >&2
  rm -rf "$OUT/$name.sim"
  timeout "$TIMEOUT" "$PHASEC" "$ROOT/examples/$ex" --target=sim \
    -o "$OUT/$name.sim" > "$OUT/$name.txt" 2> "$OUT/$name.log"
  rc=$?
  [ $rc -eq 124 ] && echo "TIMEOUT $TIMEOUT" >> "$OUT/$name.txt"
  [ $rc -ne 0 ] && [ $rc -ne 124 ] && echo "FAILED $rc" >> "$OUT/$name.txt"
done
exit 0
