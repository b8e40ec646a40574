#!/bin/bash
#===- bench/allreduce/run.sh - generated allreduce vs MPI_Allreduce -------===#
#
# Usage: bench/allreduce/run.sh BUILD_DIR [ROUNDS]
#
# An allreduce (sum) of doubles, 8 B .. 1 MiB, np = 2 and 4 on this machine,
# interleaved: for each round, size and np, phasec's generated MPI code
# (`phasec --emit=mpi --main`, the scheduler's choice for a ring of np
# nodes: machine torus(np), 1 GB/s, 1 us) and Open MPI's MPI_Allreduce
# (its own tuned choice), and phasec's code again with `sync = none;` (no
# barrier between phases). All verify every element. Prints best (min over
# launches of the fastest iteration) and median per implementation, np and
# size (microseconds). The machine is shared and noisy: compare best-of-N.
# SIZES (bytes, multiples of 8) overrides the sizes.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
BUILD=$(cd "${1:?usage: run.sh BUILD_DIR [ROUNDS]}" && pwd)
ROUNDS=${2:-5}
SIZES=${SIZES:-"8 64 512 4096 32768 65536 262144 1048576"}
HERE=$(cd "$(dirname "$0")" && pwd)
NAME=allreduce
. "$HERE/../common.sh"
PHASEC=$BUILD/bin/phasec

iters() { # fewer iterations for big vectors
  if [ "$1" -ge 262144 ]; then echo "-i 50 -w 5"; else echo "-i 500 -w 50"; fi
}
for np in 2 4; do
  for b in $SIZES; do
    cat > "$OUT/allreduce.$np.$b.sched" <<SCHED
machine ring$np { topology = torus($np); bandwidth = 1 GB/s; latency = 1 us; }
allreduce sum { op = add; type = f64; count = $((b / 8)); }
SCHED
    "$PHASEC" "$OUT/allreduce.$np.$b.sched" --emit=schedule-stats \
      > "$OUT/allreduce.$np.$b.stats"
    "$PHASEC" "$OUT/allreduce.$np.$b.sched" --emit=mpi --main \
      -o "$OUT/allreduce.$np.$b.c"
    mpicc -O3 "$OUT/allreduce.$np.$b.c" $FLAGS -o "$OUT/allreduce.$np.$b"
    sed 's/count = \([0-9]*\);/count = \1; sync = none;/' \
      "$OUT/allreduce.$np.$b.sched" > "$OUT/nosync.$np.$b.sched"
    "$PHASEC" "$OUT/nosync.$np.$b.sched" --emit=mpi --main \
      -o "$OUT/nosync.$np.$b.c"
    mpicc -O3 "$OUT/nosync.$np.$b.c" $FLAGS -o "$OUT/nosync.$np.$b"
  done
done
mpicc -O3 "$HERE/mpi_allreduce.c" $FLAGS -o "$OUT/mpi_allreduce"

launch() { # size np
  local b=$1 np=$2 it
  it=$(iters "$b")
  run "MPI_Allreduce" $np $MPIRUN -np $np "$OUT/mpi_allreduce" -n $((b / 8)) $it
  run "phasec allreduce" $np $MPIRUN -np $np "$OUT/allreduce.$np.$b" $it
  run "phasec allreduce, sync = none" $np $MPIRUN -np $np "$OUT/nosync.$np.$b" $it
}
each_launch launch
echo "phasec's choices (--emit=schedule-stats):"
for np in 2 4; do
  for b in $SIZES; do
    printf 'np=%s %8s B: ' "$np" "$b"
    grep -m1 '^  phasec ' "$OUT/allreduce.$np.$b.stats" | awk '{print $2, $3, "phases"}'
  done
done
PHASEC_BENCH_UNIT=us summarize
