#!/usr/bin/env bash
#===- bench/scheduling/run.sh - The scheduler targets table of issue 3 ----===#
#
# Usage: bench/scheduling/run.sh BUILD_DIR [OUT.md]
#
# Runs phasec-sched-bench (built in BUILD_DIR/bin) over the cases of the
# targets table of issue 3, beside the baselines (linear shift, XOR where the
# rank count is a power of two, greedy first-fit), and writes one markdown
# table (default: BUILD_DIR/bench-scheduling.md). Every schedule is checked
# by Problem::verify inside the driver; a few are also written as JSON and
# checked by ../shared/tools/verify_schedule.py. Wall-clock seconds are
# scheduling + verification on whatever machine runs this (noisy on a shared
# machine); peak RSS comes from /usr/bin/time -v.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
BUILD=${1:?usage: run.sh BUILD_DIR [OUT.md]}
OUT=${2:-$BUILD/bench-scheduling.md}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
SHARED=${PHASEC_SHARED_DIR:-$REPO/../shared}
BENCH=$BUILD/bin/phasec-sched-bench
[ -x "$BENCH" ] || { echo "error: $BENCH not built (ninja phasec-sched-bench)" >&2; exit 2; }
CACHE=$(mktemp -d)
TMP=$(mktemp -d)
trap 'rm -rf "$CACHE" "$TMP"' EXIT
PY=${PYTHON:-python3}

{
echo "# phasec scheduler benchmark"
echo
echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "Columns: phases; lower bound in blocks (0 where sizes differ); schedule time / bound;"
echo "efficiency = bound / time; verified by Problem::verify; seconds = schedule + verify."
echo
echo "| case | algorithm | phases | bound | time/bound | efficiency | verified | seconds | |"
echo "|---|---|---|---|---|---|---|---|---|"
} > "$OUT"

row() { # label topology collective algorithms [extra args...]
  local label=$1 topo=$2 coll=$3 algs=$4
  shift 4
  "$BENCH" --topology "$topo" --collective "$coll" --algorithms "$algs" \
    --cache "$CACHE" --label "$label" "$@" | tee -a "$OUT"
}
ext() { # label topology collective flags [extra]: JSON + the independent checker
  local label=$1 topo=$2 coll=$3 flags=$4
  shift 4
  "$BENCH" --topology "$topo" --collective "$coll" --algorithms auto \
    --cache "$CACHE" --json-out "$TMP/s.json" --format json "$@" > /dev/null
  echo "- $label: \`verify_schedule.py\` $("$PY" "$SHARED/tools/verify_schedule.py" "$TMP/s.json" $flags | head -c 400)" >> "$TMP/ext.md"
}

BASE=auto,linear_shift,xor,greedy
BASE_NOXOR=auto,linear_shift,greedy

# T3D (one-port: injection bandwidth = one link's).
row "T3D 8x4x8x2 alltoall" "torus:8x4x8x2;injection=link" alltoall $BASE
# Compile + verify from a cold start and from the on-disk ring-core cache.
rm -rf "$CACHE"/*
row "T3D 8x4x8x2 alltoall (cold cache)" "torus:8x4x8x2;injection=link" alltoall auto
row "T3D 8x4x8x2 alltoall (warm cache)" "torus:8x4x8x2;injection=link" alltoall auto

# Tori with every extent <= 8, one-port.
for t in 4x4x4 6x6 8x8x8 2x2x2x2x2x2 5x7 8x8; do
  case $t in 6x6|5x7) a=$BASE_NOXOR ;; *) a=$BASE ;; esac
  row "torus $t (one-port)" "torus:$t;injection=link" alltoall $a
done

# Hypercubes, one-port.
for n in 2 4 6 8 10; do
  if [ "$n" -le 8 ]; then a=$BASE; else a=auto,xor; fi
  row "hypercube 2^$n (one-port)" "hypercube:$n;injection=link" alltoall $a
done

# Meshes.
for t in 8x8 16x16 4x4x4 8x8x8; do
  case $t in 8x8x8) a=auto,greedy ;; *) a=$BASE ;; esac
  row "mesh $t" "mesh:$t" alltoall $a
done

# Tori with an extent > 8.
row "torus 16x16" "torus:16x16" alltoall $BASE
row "torus 12x12x12" "torus:12x12x12" alltoall auto
row "torus 10x6" "torus:10x6" alltoall $BASE_NOXOR

# PERCS supernode (4 drawers x 8 nodes; LL 24 GB/s, LR 5 GB/s).
row "PERCS 32 nodes x 32 ranks" "percs:supernodes=1,drawers=4,nodes=8;ranks=32" alltoall auto,greedy
row "PERCS 32 nodes x 8 ranks" "percs:supernodes=1,drawers=4,nodes=8;ranks=8" alltoall $BASE

# General transfer sets on the T3D.
row "T3D random permutation" "torus:8x4x8x2;injection=link" permute $BASE --seed 1
row "T3D alltoallv (1..16 blocks)" "torus:8x4x8x2;injection=link" alltoallv auto,greedy --seed 1
row "T3D gather (root 0)" "torus:8x4x8x2" gather auto,greedy

# Scale: 16x16x16 torus, 16.7 M transfers, with peak memory.
/usr/bin/time -v "$BENCH" --topology torus:16x16x16 --collective alltoall \
  --algorithms auto --cache "$CACHE" --label "torus 16x16x16 (scale)" \
  2> "$TMP/time.txt" | tee -a "$OUT"
RSS=$(awk -F: '/Maximum resident/ {gsub(/ /,"",$2); printf "%.2f GiB", $2/1048576}' "$TMP/time.txt")
WALL=$(awk -F': ' '/Elapsed/ {print $2}' "$TMP/time.txt")

# The independent checker on a few JSON schedules.
: > "$TMP/ext.md"
ext "T3D alltoall" "torus:8x4x8x2;injection=link" alltoall --one-port
ext "torus 4x4x4 alltoall (one-port)" "torus:4x4x4;injection=link" alltoall --one-port
ext "hypercube 2^6 alltoall (one-port)" "hypercube:6;injection=link" alltoall --one-port
ext "mesh 8x8 alltoall" "mesh:8x8" alltoall ""
ext "torus 16x16 alltoall" "torus:16x16" alltoall ""
ext "PERCS 32 x 8" "percs:supernodes=1,drawers=4,nodes=8;ranks=8" alltoall ""
ext "T3D random permutation" "torus:8x4x8x2;injection=link" permute --one-port --seed 1
ext "torus 12x12x12 alltoall" "torus:12x12x12" alltoall ""
ext "T3D alltoallv (1..16 blocks, split)" "torus:8x4x8x2;injection=link" alltoallv --one-port --seed 1
{
  echo
  echo "Scale run (torus 16x16x16, whole process incl. building 16.7 M demands): wall $WALL, peak RSS $RSS."
  echo
  echo "Independent checker (../shared/tools/verify_schedule.py; --one-port on the one-port machines):"
  echo
  cat "$TMP/ext.md"
} >> "$OUT"
echo "wrote $OUT" >&2
