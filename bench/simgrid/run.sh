#!/bin/sh
# bench/simgrid/run.sh - the simulator benchmarks of docs/performance.md, in
# one command:
#
#   bench/simgrid/run.sh [BUILD_DIR] [OUT_DIR]
#
# 1. T3D torus 8x4x8x2 (75 MB/s links, one-port injection), all-to-all of
#    32 KiB blocks: phasec's schedule and the baselines (linear shift, XOR,
#    greedy) phase by phase, and SimGrid's built-in MPI_Alltoall algorithms on
#    phasec's platform (same routes, same injection ports) and on SimGrid's
#    stock TORUS platform (ties always "+", no injection limit).
# 2. PERCS supernode, 32 nodes (4 drawers of 8) x 8 ranks, all-to-all of
#    16 KiB, 64 KiB and 256 KiB blocks: phasec's schedule, seed 002's algorithm
#    (percs-seed) and pairwise exchange (SimGrid's "pair"), plus linear shift.
#
# Wall-clock limit per variant: PHASEC_BENCH_TIMEOUT seconds (default 600);
# basic_linear at 512 ranks is skipped by the runner (see Runner.h). Results:
# OUT_DIR/*.txt (tables) and OUT_DIR/*-report/index.html (pictures).
set -e
BUILD=${1:-/work/build-sim}
OUT=${2:-$BUILD/bench-simgrid}
SIM=$BUILD/bin/phasec-sim
TIMEOUT=${PHASEC_BENCH_TIMEOUT:-600}
# Every smpi/alltoall algorithm of SimGrid 3.32 except two that cannot run at
# 512 ranks here: rdb crashes SMPI (segmentation fault after 2 s) and 3dmesh
# was killed for memory after 377 s on this 24 GiB machine (it mallocs real
# buffers per rank). PHASEC_BENCH_BUILTINS overrides the list.
BUILTINS=${PHASEC_BENCH_BUILTINS:-pair,ring,bruck,basic_linear,2dmesh,ompi,mpich,impi,mvapich2,mvapich2_scatter_dest,pair_light_barrier,pair_mpi_barrier,pair_one_barrier,ring_light_barrier,ring_mpi_barrier,ring_one_barrier}
mkdir -p "$OUT"
cd "$OUT"

echo "== T3D 8x4x8x2, 32 KiB blocks" >&2
/usr/bin/time -f "%e s wall, %M KiB max RSS" "$SIM" \
  --topology='torus:8x4x8x2;bw=75e6;injection=link' --alltoall=32768 \
  -o t3d --timeout="$TIMEOUT" --baselines=linear_shift,xor,greedy \
  --builtins="$BUILTINS" --stock="$BUILTINS" --report t3d-report \
  > t3d.txt 2> t3d.log || true
cat t3d.txt

for B in 16384 65536 262144; do
  echo "== PERCS supernode 32 nodes x 8 ranks, $B-byte blocks" >&2
  /usr/bin/time -f "%e s wall, %M KiB max RSS" "$SIM" \
    --topology='percs:supernodes=1,drawers=4,nodes=8;ranks=8' --alltoall=$B \
    -o percs-$B --timeout="$TIMEOUT" --baselines=percs-seed,linear_shift \
    --builtins=pair --report percs-$B-report > percs-$B.txt 2> percs-$B.log || true
  cat percs-$B.txt
done
