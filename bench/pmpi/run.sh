#!/bin/bash
#===- bench/pmpi/run.sh - libphasec-pmpi.so against Open MPI's collectives ===#
#
# Usage: bench/pmpi/run.sh BUILD_DIR [ROUNDS] [MAX_BYTES]
#
# The OSU-style loop of test/Integration/Inputs/alltoall_loop.c (unmodified
# MPI; 50 timed MPI_Alltoall calls per block size, 1 B .. MAX_BYTES, default
# 64 KiB) at 2 and 4 ranks, with Open MPI's own MPI_Alltoall and with
# libphasec-pmpi.so preloaded (the machine: this host as a ring of 4 ranks,
# 'torus:4' with docs/calibration.md's MPI bandwidth and latency; schedules made on first
# use), interleaved, ROUNDS launches each (default 5). Prints the best
# iteration (OSU's Min) per implementation, np and size: best against best,
# since launches here differ by up to 2x. Then the same for the relaying
# collectives COLLS (default "bcast allreduce allgather") with the loop of
# test/Integration/Inputs/collectives_loop.c, each timed alone.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
BUILD=$(cd "${1:?usage: run.sh BUILD_DIR [ROUNDS] [MAX_BYTES]}" && pwd)
ROUNDS=${2:-5}
MAXB=${3:-65536}
COLLS=${COLLS:-"bcast allreduce allgather"}
HERE=$(cd "$(dirname "$0")" && pwd)
NAME=pmpi
. "$HERE/../common.sh"
mpicc -O2 "$HERE/../../test/Integration/Inputs/alltoall_loop.c" -o "$OUT/loop"
mpicc -O2 "$HERE/../../test/Integration/Inputs/collectives_loop.c" -o "$OUT/colls"
PMPI=$BUILD/lib/libphasec-pmpi.so
MACHINE='torus:4;bw=2.035e9;latency=6.3e-8'

osu() { # the loop's timing lines, OSU's format, for summarize
  "$@" 50 "$MAXB" | sed -n 's/^# \([0-9]\)/\1/p'
}
coll() { # collective $c of collectives_loop.c, timed alone
  "$@" 50 "$MAXB" timing "$c" | sed -n "s/^# $c  *\([0-9]\)/\1/p"
}
for r in $(seq 1 "$ROUNDS"); do
  for np in 2 4; do
    run "Open MPI MPI_Alltoall" $np osu $MPIRUN -np $np "$OUT/loop"
    run "phasec-pmpi" $np osu $MPIRUN -np $np -x LD_PRELOAD="$PMPI" \
      -x "PHASEC_PMPI_MACHINE=$MACHINE" "$OUT/loop"
    for c in $COLLS; do
      run "Open MPI $c" $np coll $MPIRUN -np $np "$OUT/colls"
      run "phasec-pmpi $c" $np coll $MPIRUN -np $np -x LD_PRELOAD="$PMPI" \
        -x "PHASEC_PMPI_MACHINE=$MACHINE" "$OUT/colls"
    done
  done
done
PHASEC_BENCH_UNIT=us summarize
