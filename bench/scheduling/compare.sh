#!/usr/bin/env bash
#===- bench/scheduling/compare.sh - Two builds' scheduler, interleaved ----===#
#
# Usage: bench/scheduling/compare.sh OLD_BUILD_DIR NEW_BUILD_DIR [ROUNDS]
#
# Runs phasec-sched-bench of two builds alternately (old, new, old, new...)
# on a sample of the targets table of bench/scheduling/run.sh, ROUNDS times
# (default 3), and prints per case the best wall-clock seconds of each build
# (schedule + verify, from the bench's JSON) and the phase counts, so that a
# change can show it made the scheduler no slower and its schedules no
# different. The machine is noisy: compare best against best.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
OLD=${1:?usage: compare.sh OLD_BUILD_DIR NEW_BUILD_DIR [ROUNDS]}
NEW=${2:?usage: compare.sh OLD_BUILD_DIR NEW_BUILD_DIR [ROUNDS]}
ROUNDS=${3:-3}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

cases=(
  "T3D alltoall|torus:8x4x8x2;injection=link|alltoall|auto"
  "torus 16x16|torus:16x16|alltoall|auto"
  "torus 12x12x12|torus:12x12x12|alltoall|auto"
  "torus 10x6|torus:10x6|alltoall|auto"
  "PERCS 32 x 8|percs:supernodes=1,drawers=4,nodes=8;ranks=8|alltoall|auto"
  "T3D random permutation|torus:8x4x8x2;injection=link|permute|auto"
  "T3D gather|torus:8x4x8x2|gather|auto"
  "mesh 8x8 greedy|mesh:8x8|alltoall|greedy-priority"
)
for round in $(seq "$ROUNDS"); do
  for c in "${cases[@]}"; do
    IFS='|' read -r label topo coll alg <<<"$c"
    for side in old new; do
      dir=$OLD
      [ "$side" = new ] && dir=$NEW
      # A fresh ring-core cache per run: both sides pay the same solver work.
      cache=$(mktemp -d -p "$TMP")
      "$dir/bin/phasec-sched-bench" --topology "$topo" --collective "$coll" \
        --algorithms "$alg" --cache "$cache" --label "$label" --format json \
        >> "$TMP/$side.jsonl"
    done
  done
done
"$PY" - "$TMP/old.jsonl" "$TMP/new.jsonl" <<'PYEOF'
import json, sys
def load(path):
    best = {}
    for line in open(path):
        r = json.loads(line)
        key = r["case"]
        secs = r["schedule_s"] + r["verify_s"]
        prev = best.get(key)
        if prev is None or secs < prev[0]:
            best[key] = (secs, r["phases"], r["time_over_bound"])
    return best
old, new = load(sys.argv[1]), load(sys.argv[2])
print("| case | old s (best) | new s (best) | new/old | old phases | new phases | old t/b | new t/b |")
print("|---|---|---|---|---|---|---|---|")
for key in old:
    o, n = old[key], new[key]
    print(f"| {key} | {o[0]:.2f} | {n[0]:.2f} | {n[0] / max(o[0], 1e-9):.2f} | {o[1]} | {n[1]} | {o[2]:.4f} | {n[2]:.4f} |")
PYEOF
