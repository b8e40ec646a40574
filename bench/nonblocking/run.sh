#!/usr/bin/env bash
#===- bench/nonblocking/run.sh - overlap of the nonblocking forms --------===#
#
# How much computation phasec's generated NAME_start/test/wait hide for an
# all-to-all, beside Open MPI's MPI_Ialltoall, on a ring of NP ranks at
# several block sizes (overlap.c). Usage:
#   bench/nonblocking/run.sh [BUILD] [ROUNDS]
# Prints one line per launch (rounds interleaved over sizes and rank
# counts); docs/performance.md records a run.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-$HERE/../../build}
ROUNDS=${2:-3}
NAME=nonblocking
source "$HERE/../common.sh"
for r in $(seq 1 "$ROUNDS"); do
  for np in ${NPS:-2 4}; do
    for block in ${SIZES:-4096 262144 4194304}; do
      dir=$OUT/np$np-b$block
      mkdir -p "$dir"
      cat > "$dir/bench.sched" <<SCHED
machine ring { topology = torus($np); bandwidth = 10 GB/s; latency = 1 us; }
alltoall x { block = $block; sync = barrier; }
SCHED
      "$BUILD/bin/phasec" "$dir/bench.sched" --emit=mpi -o "$dir/bench.c"
      "$BUILD/bin/phasec" "$dir/bench.sched" --emit=mpi-header -o "$dir/bench.h"
      mpicc -O2 -DBLOCK=$block -I"$dir" "$HERE/overlap.c" "$dir/bench.c" \
        $FLAGS -o "$dir/overlap"
      $MPIRUN -np "$np" "$dir/overlap" | tee -a "$LOG"
    done
  done
done
echo "raw log: $LOG"
