#!/usr/bin/env bash
# Writes what phasec emits for every example and every test input into one
# directory, so that two builds can be compared file by file (a refactoring
# must leave them byte-identical except where it fixes something):
#
#   tools/snapshot-outputs.sh BUILD_DIR OUT_DIR
#   diff -r OUT_BEFORE OUT_AFTER
#
# Each input gets schedule-json, schedule-stats, mpi and shmem, and the
# simgrid and ns3 directories (with --allow-unsupported, so that operations
# phasec skips are skipped alike);
# an input phasec rejects gets its diagnostics and exit code instead. A run
# over SNAPSHOT_TIMEOUT seconds (default 120) is recorded as exit 124, so
# that slow inputs cost the same on both sides; outputs already in OUT_DIR
# are kept (an interrupted snapshot resumes).
set -uo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR OUT_DIR" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
phasec="$1/bin/phasec"
out=$2
mkdir -p "$out"
[ -x "$phasec" ] || { echo "no phasec at $phasec" >&2; exit 2; }

cd "$root"
inputs=$(git ls-files 'examples/*.sched' 'test/*.sched' | sort)
for input in $inputs; do
  name=$(echo "$input" | tr '/' '_')
  for emit in schedule-json schedule-stats mpi shmem simgrid ns3; do
    file="$out/$name.$emit"
    [ -f "$file.stderr" ] && continue
    # Inputs with RUN lines are test cases whose own flags matter less than
    # being compiled the same way twice; a time limit keeps the sweep short.
    timeout "${SNAPSHOT_TIMEOUT:-120}" "$phasec" "$input" --emit="$emit" --allow-unsupported \
      -o "$file" 2>"$file.stderr"
    status=$?
    echo "exit $status" >>"$file.stderr"
  done
done
echo "snapshot of $(echo "$inputs" | wc -w) inputs in $out"
