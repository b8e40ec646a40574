#!/bin/bash
#===- bench/radix_sort/run.sh - seed 000's radix sort, measured and modelled -===#
#
# Usage: bench/radix_sort/run.sh BUILD_DIR [ROUNDS] [KEYS]
#
# examples/radix_sort (docs/radix-sort.md) at 4 ranks, KEYS records per rank
# (default 2^20): 16-bit keys in 64-bit records and 32-bit keys with their
# 48-bit payloads in a second array, under phasec's MPI and OpenSHMEM code,
# interleaved, ROUNDS launches each (default 3), 3 timed sorts per launch
# (each after a warm-up sort; every launch checks its output against a
# serial stable sort). Prints the best sort per variant as keys/s and as
# MB/s per rank and radix step (seed 000's unit), then the copy-transfer
# model of the same step on seed 000's T3D (sort16.sched as written, at
# 512 ranks): the grouped permutation's rate from phasec's
# --emit=schedule-stats, with the seed's 21 MB/s for bucket counting.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
BUILD=$(cd "${1:?usage: run.sh BUILD_DIR [ROUNDS] [KEYS]}" && pwd)
ROUNDS=${2:-3}
KEYS=${3:-1048576}
HERE=$(cd "$(dirname "$0")" && pwd)
EX=$HERE/../../examples/radix_sort
NAME=radix_sort
. "$HERE/../common.sh"
PHASEC=$BUILD/bin/phasec
NP=4

for k in 16 32; do
  "$PHASEC" "$EX/sort$k.sched" --define P=$NP --define KEYS="$KEYS" --emit=mpi -o "$OUT/step${k}_mpi.c"
  "$PHASEC" "$EX/sort$k.sched" --define P=$NP --define KEYS="$KEYS" --emit=shmem -o "$OUT/step${k}_shmem.c"
  mpicc -O3 -DKEY_BITS=$k -DSTEP="\"$OUT/step${k}_mpi.c\"" "$EX/sort.c" $FLAGS -o "$OUT/sort${k}_mpi"
  oshcc -O3 -DSORT_SHMEM -DKEY_BITS=$k -DSTEP="\"$OUT/step${k}_shmem.c\"" "$EX/sort.c" $FLAGS -o "$OUT/sort${k}_shmem"
done

for r in $(seq 1 "$ROUNDS"); do
  for k in 16 32; do
    run "MPI $k-bit" $NP $MPIRUN -np $NP "$OUT/sort${k}_mpi" 3
    run "SHMEM $k-bit" $NP $OSHRUN -np $NP "$OUT/sort${k}_shmem" 3
  done
done
echo "raw log: $LOG"
# Best over the launches: the fastest sort, with its rates.
awk '
  /^== / { label = $2 " " $3 }
  /^sort best/ { t = $3 }
  /^keys\/s/ { keys = $2 }
  /^MB\/s per rank and step/ { mb = $6 }
  /^# OK/ { if (!(label in best) || t < best[label]) { best[label] = t; bk[label] = keys; bm[label] = mb } ok[label]++ }
  /^# FAILED|^FAILED/ { bad[label]++ }
  END {
    printf "%-14s %12s %14s %18s %8s\n", "variant", "best sort s", "keys/s total", "MB/s per rank+step", "checked"
    n = split("MPI 16-bit|SHMEM 16-bit|MPI 32-bit|SHMEM 32-bit", order, "|")
    for (i = 1; i <= n; ++i) { l = order[i]
      printf "%-14s %12.4f %14.4e %18s %5d ok%s\n", l, best[l], bk[l], bm[l], ok[l], (bad[l] ? ", " bad[l] " FAILED" : "") }
  }' "$LOG"

# The copy-transfer model of the step on seed 000's T3D.
"$PHASEC" "$EX/sort16.sched" --define P=512 --define KEYS="$KEYS" \
  --topology=torus:8x4x8x2 --emit=schedule-stats > "$OUT/t3d.stats"
rate=$(awk '/^operation grouped_permute/ { on = 1 }
            on && /copy-transfer rate, style packing/ { print $6; exit }' "$OUT/t3d.stats")
awk -v r="$rate" 'BEGIN {
  printf "model (T3D, 512 ranks): grouped permutation %.2f MB/s per processor (phasec, packing)\n", r
  printf "model (T3D): bucket counting 21 MB/s (seed 000) + grouped permutation: %.2f MB/s per processor and step\n", 1 / (1 / 21 + 1 / r)
  printf "seed 000 model: 1/(1/21 + 1/21 + 1/32) = %.2f MB/s (the seed prints 7.88); measured on the T3D: 3.99\n", 1 / (1 / 21 + 1 / 21 + 1 / 32)
}'

# The same model on this host's calibrated description (docs/calibration.md,
# run A; HOST_TOPOLOGY overrides it): the ranks share one node, so the
# permutation costs its copies alone.
HOST_TOPOLOGY=${HOST_TOPOLOGY:-"torus:1;ranks=$NP;bw=2.035e9;latency=6.299e-8;setup=4.308e-8;copy=7.379e9;copy_strided=8.274e8;copy_gather=4.993e8;barrier=1.39e-7"}
"$PHASEC" "$EX/sort16.sched" --define P=$NP --define KEYS="$KEYS" \
  "--topology=$HOST_TOPOLOGY" --emit=schedule-stats > "$OUT/host.stats"
awk '/^operation grouped_permute/ { on = 1 }
     on && /copy-transfer rate, style packing/ {
       printf "model (this host, %s): grouped permutation %s MB/s per processor (phasec, packing)\n", "docs/calibration.md run A", $6; exit }' "$OUT/host.stats"
