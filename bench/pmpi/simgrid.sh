#!/bin/bash
#===- bench/pmpi/simgrid.sh - the drop-in MPI_Alltoall in SimGrid SMPI -----===#
#
# Usage: bench/pmpi/simgrid.sh BUILD_DIR [MAX_BYTES]
#
# bench/pmpi/run.sh's comparison in SimGrid: the OSU-style loop of
# test/Integration/Inputs/alltoall_loop.c (unmodified MPI, `timing` mode: SMPI
# has no MPI_Intercomm_create) at 2 and 4 ranks, with SMPI's implementation
# of Open MPI's own MPI_Alltoall (--cfg=smpi/alltoall:ompi, Open MPI's
# decision rules and algorithms) and with libphasec-pmpi's code. SMPI runs
# every rank in one process, so the drop-in library is not preloaded:
# targets/pmpi/PhasecPMPI.cpp is compiled with smpicxx and linked into the
# program (SMPI's MPI_* are weak and its dlopen privatisation gives every rank
# its own copy of the library's state), with the schedules made on first use
# for PHASEC_PMPI_MACHINE (scheduling costs no simulated time:
# smpi/simulate-computation:no).
#
# The platform: the machine of bench/pmpi/run.sh (this host as a ring of NP
# ranks with docs/calibration.md's MPI bandwidth and latency), from phasec
# --emit=simgrid, with the network options of phasec's simulator target.
# SimGrid is deterministic: one round. Prints the best iteration per
# implementation, np and size, and checks that both runs received the same
# bytes (the loop's digests).
#
#===----------------------------------------------------------------------===#
set -euo pipefail
BUILD=$(cd "${1:?usage: simgrid.sh BUILD_DIR [MAX_BYTES]}" && pwd)
MAXB=${2:-65536}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
NAME=pmpi-simgrid
r=1
. "$HERE/../common.sh"

# The loop, and the loop with the drop-in library linked in.
smpicc -O2 -c "$SRC/test/Integration/Inputs/alltoall_loop.c" -o "$OUT/loop.o"
smpicc "$OUT/loop.o" -o "$OUT/loop"
smpicxx -O2 -std=gnu++17 -fPIC -fno-exceptions -D__STDC_CONSTANT_MACROS \
  -D__STDC_FORMAT_MACROS -D__STDC_LIMIT_MACROS -I"$SRC/compiler/include" \
  -I"$BUILD/compiler/include" -isystem /usr/lib/llvm-19/include \
  -c "$SRC/targets/pmpi/PhasecPMPI.cpp" -o "$OUT/pmpi.o"
L=$BUILD/lib
smpicxx "$OUT/loop.o" "$OUT/pmpi.o" "$L/libPhasecSchedulingAlgorithms.a" \
  "$L/libPhasecScheduling.a" "$L/libPhasecTopology.a" "$L/libPhasecSolver.a" \
  "$L/libPhasecCore.a" /usr/lib/llvm-19/lib/libLLVM.so.1 -lz3 \
  -Wl,-rpath,/usr/lib/llvm-19/lib -o "$OUT/loop-pmpi"

# The network options of phasec's simulator target (its run.sh's CFG).
CFG="--cfg=smpi/simulate-computation:no --cfg=smpi/host-speed:1Gf
  --cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=smpi/bw-factor:1
  --cfg=smpi/lat-factor:1 --cfg=network/TCP-gamma:0
  --cfg=smpi/barrier:mvapich2_pair --log=root.thres:warning"
osu() { # the loop's timing lines, OSU's format, for summarize
  "$@" | sed -n 's/^# \([0-9]\)/\1/p'
}
for np in 2 4; do
  P=$OUT/platform-$np
  rm -rf "$P" && mkdir -p "$P"
  cat > "$P/host.sched" <<SCHED
machine host { topology = torus($np); bandwidth = 2035 MB/s; latency = 63 ns; }
alltoall a { block = 1 KiB; }
SCHED
  "$BUILD/bin/phasec" "$P/host.sched" --emit=simgrid -o "$P/sim" > /dev/null
  (cd "$P/sim" && sh run.sh build)
  SMPI="smpirun -np $np -platform $P/sim/libplatform.so -hostfile $P/sim/hostfile $CFG"
  # shellcheck disable=SC2086
  $SMPI --cfg=smpi/alltoall:ompi "$OUT/loop" 20 "$MAXB" timing > "$P/ompi.out"
  # shellcheck disable=SC2086
  PHASEC_PMPI_MACHINE="torus:$np;bw=2.035e9;latency=6.3e-8" PHASEC_PMPI_REPORT=1 \
    $SMPI --cfg=smpi/alltoall:ompi "$OUT/loop-pmpi" 20 "$MAXB" timing > "$P/pmpi.out" 2>&1
  run "SMPI ompi MPI_Alltoall" $np osu cat "$P/ompi.out"
  run "phasec-pmpi in SMPI" $np osu cat "$P/pmpi.out"
  if ! diff <(grep '^alltoall ' "$P/ompi.out") <(grep '^alltoall ' "$P/pmpi.out") > /dev/null; then
    echo "FAILED: np=$np: the drop-in library received other bytes than SMPI's ompi"
    exit 1
  fi
  echo "np=$np: both received the same bytes; $(grep -h 'MPI_Alltoall:' "$P/pmpi.out")"
done
PHASEC_BENCH_UNIT=us summarize
