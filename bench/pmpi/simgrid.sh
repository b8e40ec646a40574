#!/bin/bash
#===- bench/pmpi/simgrid.sh - the drop-in collectives in SimGrid SMPI -------===#
#
# Usage: bench/pmpi/simgrid.sh BUILD_DIR [MAX_BYTES]
#
# bench/pmpi/run.sh's comparison in SimGrid: the OSU-style loop of
# test/Integration/Inputs/alltoall_loop.c (unmodified MPI, `timing` mode: SMPI
# has no MPI_Intercomm_create) at 2 and 4 ranks, with SMPI's implementation
# of Open MPI's own MPI_Alltoall (--cfg=smpi/alltoall:ompi, Open MPI's
# decision rules and algorithms) and with libphasec-pmpi's code. SMPI runs
# every rank in one process, so the drop-in library is not preloaded:
# targets/pmpi's C bindings are compiled with smpicxx and linked into the
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
# bytes (the loop's digests). Then the relaying collectives on a simulated
# 4 x 4 torus (below).
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

# The loops, and the loops with the drop-in library linked in.
# The library's C bindings (its Fortran ones are Open MPI's ABI, not SMPI's).
PMPI_OBJS=()
for src in "$SRC"/targets/pmpi/*.cpp; do
  [ "$(basename "$src")" = Fortran.cpp ] && continue
  obj=$OUT/pmpi-$(basename "$src" .cpp).o
  smpicxx -O2 -std=gnu++17 -fPIC -fno-exceptions -DPHASEC_PMPI_SMPI \
    -D__STDC_CONSTANT_MACROS \
    -D__STDC_FORMAT_MACROS -D__STDC_LIMIT_MACROS -I"$SRC/compiler/include" \
    -I"$BUILD/compiler/include" -isystem /usr/lib/llvm-19/include \
    -c "$src" -o "$obj"
  PMPI_OBJS+=("$obj")
done
L=$BUILD/lib
for prog in alltoall_loop collectives_loop; do
  smpicc -O2 -c "$SRC/test/Integration/Inputs/$prog.c" -o "$OUT/$prog.o"
  smpicc "$OUT/$prog.o" -o "$OUT/$prog"
  smpicxx "$OUT/$prog.o" "${PMPI_OBJS[@]}" "$L/libPhasecSchedulingAlgorithms.a" \
    "$L/libPhasecScheduling.a" "$L/libPhasecTopology.a" "$L/libPhasecSolver.a" \
    "$L/libPhasecCore.a" /usr/lib/llvm-19/lib/libLLVM.so.1 -lz3 \
    -Wl,-rpath,/usr/lib/llvm-19/lib -o "$OUT/$prog-pmpi"
done

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
  $SMPI --cfg=smpi/alltoall:ompi "$OUT/alltoall_loop" 20 "$MAXB" timing > "$P/ompi.out"
  # shellcheck disable=SC2086
  PHASEC_PMPI_MACHINE="torus:$np;bw=2.035e9;latency=6.3e-8" PHASEC_PMPI_REPORT=1 \
    $SMPI --cfg=smpi/alltoall:ompi "$OUT/alltoall_loop-pmpi" 20 "$MAXB" timing > "$P/pmpi.out" 2>&1
  run "SMPI ompi MPI_Alltoall" $np osu cat "$P/ompi.out"
  run "phasec-pmpi in SMPI" $np osu cat "$P/pmpi.out"
  if ! diff <(grep '^alltoall ' "$P/ompi.out") <(grep '^alltoall ' "$P/pmpi.out") > /dev/null; then
    echo "FAILED: np=$np: the drop-in library received other bytes than SMPI's ompi"
    exit 1
  fi
  echo "np=$np: both received the same bytes; $(grep -h 'MPI_Alltoall:' "$P/pmpi.out")"
done

# The relaying collectives on a simulated 4 x 4 torus (1 GB/s links, 1 us
# per link; phasec's platform and routes), 16 ranks: SMPI's implementation
# of Open MPI's decision rules and algorithms for every collective
# (smpi/coll-selector:ompi) against the library's schedules for the same
# machine. COLLS (default "bcast allreduce allgather reduce_scatter_block"),
# COLL_MAX_BYTES (default 1 MiB).
COLLS=${COLLS:-"bcast allreduce allgather reduce_scatter_block"}
CMAXB=${COLL_MAX_BYTES:-1048576}
P=$OUT/platform-torus4x4
rm -rf "$P" && mkdir -p "$P"
cat > "$P/torus.sched" <<SCHED
machine torus { topology = torus(4, 4); bandwidth = 1 GB/s; latency = 1 us; }
alltoall a { block = 1 KiB; }
SCHED
"$BUILD/bin/phasec" "$P/torus.sched" --emit=simgrid -o "$P/sim" > /dev/null
(cd "$P/sim" && sh run.sh build)
SMPI="smpirun -np 16 -platform $P/sim/libplatform.so -hostfile $P/sim/hostfile $CFG"
coll() { # the loop's timing lines of one collective, OSU's format
  "$@" | sed -n "s/^# $c  *\([0-9]\)/\1/p"
}
for c in $COLLS; do
  # shellcheck disable=SC2086
  $SMPI --cfg=smpi/coll-selector:ompi "$OUT/collectives_loop" 10 "$CMAXB" timing "$c" > "$P/$c.ompi.out"
  # shellcheck disable=SC2086
  PHASEC_PMPI_MACHINE="torus:4x4;bw=1e9;latency=1e-6" PHASEC_PMPI_REPORT=1 \
    $SMPI --cfg=smpi/coll-selector:ompi "$OUT/collectives_loop-pmpi" 10 "$CMAXB" timing "$c" > "$P/$c.pmpi.out" 2> "$P/$c.report"
  run "SMPI ompi $c" 16 coll cat "$P/$c.ompi.out"
  run "phasec-pmpi $c" 16 coll cat "$P/$c.pmpi.out"
  if ! diff <(grep "^$c " "$P/$c.ompi.out") <(grep "^$c " "$P/$c.pmpi.out") > /dev/null; then
    echo "FAILED: $c: the drop-in library's results differ from SMPI's ompi"
    exit 1
  fi
  echo "$c: same results on every rank; $(grep -h 'by schedule' "$P/$c.report")"
done
# The platform routes every rank pair one way (for a tie, distance 2 on a
# ring of 4, the way phasec's alltoall above chose), while phasec's
# relaying schedules choose ties per transfer, and MPI cannot pick a route.
# The library's reduce_scatter_block (recursive halving, whose pairs at
# distance 2 are ties) again on the routes of its own schedule: what the
# routes cost.
R=$OUT/platform-torus4x4-halving
rm -rf "$R" && mkdir -p "$R"
cat > "$R/halving.sched" <<SCHED
machine torus { topology = torus(4, 4); bandwidth = 1 GB/s; latency = 1 us; }
reduce_scatter r { op = add; type = uint32; count = 262144; algorithm = recursive_halving; }
SCHED
"$BUILD/bin/phasec" "$R/halving.sched" --emit=simgrid -o "$R/sim" > /dev/null
(cd "$R/sim" && sh run.sh build)
c=reduce_scatter_block
# shellcheck disable=SC2086
PHASEC_PMPI_MACHINE="torus:4x4;bw=1e9;latency=1e-6" \
  smpirun -np 16 -platform "$R/sim/libplatform.so" -hostfile "$R/sim/hostfile" $CFG \
  --cfg=smpi/coll-selector:ompi "$OUT/collectives_loop-pmpi" 10 "$CMAXB" timing $c > "$R/$c.pmpi.out"
run "phasec-pmpi $c (routes as scheduled)" 16 coll cat "$R/$c.pmpi.out"
PHASEC_BENCH_UNIT=us summarize
