#!/bin/sh
# bench/simgrid/run.sh - the simulator benchmarks of docs/performance.md, in
# one command:
#
#   bench/simgrid/run.sh BUILD_DIR [OUT_DIR]
#
# Parts, in this order (PHASEC_BENCH_PARTS picks a subset, same names):
#
#  t3d        T3D torus 8x4x8x2 (75 MB/s links, one-port injection, no link
#             latency), all-to-all of 32 KiB blocks: phasec's schedule phase
#             by phase. OUT/t3d.txt. No --report here: its link timeline needs
#             a SimGrid trace of the run, and tracing 5,632 links at 512 ranks
#             held 15.9 GB when it was stopped after 372 s (the PERCS part
#             below draws the report at 256 ranks).
#  latency    the same with 1 us per link, as examples/t3d_aapc.sched
#             declares (the main job's run). OUT/t3d-lat1us.txt.
#  builtins   every smpi/alltoall algorithm of SimGrid 3.32 (the list
#             `--cfg=smpi/alltoall:` prints) on the same 512 ranks, on
#             phasec's platform (phasec's routes, ties split, the same
#             injection ports) and on SimGrid's stock TORUS cluster (ties "+",
#             no injection limit), one at a time, each under a wall-time limit
#             and a memory cap (builtins.py): the simulated time and % of the
#             bound, or why it did not finish. OUT/t3d-builtins.{md,csv}.
#  nodetach   basic_linear (what `ompi` and `default` also pick for 32 KiB
#             blocks at 512 ranks) once more with
#             --cfg=smpi/send-is-detached-thresh:32768: SMPI otherwise copies
#             every send below 64 KiB into a private buffer until it is
#             received, 8 GiB for 511 sends of 32 KiB per rank posted at
#             once. Same simulated times (checked at 64 ranks), no copies.
#             OUT/t3d-nodetach.{md,csv}.
#  percs      PERCS supernode, 32 nodes (4 drawers of 8) x 8 ranks, all-to-all
#             of 16 KiB, 64 KiB and 256 KiB blocks: phasec, seed 002's
#             algorithm (percs-seed), pairwise exchange (SimGrid's "pair") and
#             linear shift. OUT/percs-*.txt, OUT/percs-65536-report/.
#  baselines  T3D: phasec's baselines phase by phase (XOR, greedy, linear
#             shift; planned with ties "+", each on its own routes).
#             OUT/t3d-baselines.txt.
#
# Environment: PHASEC_BENCH_TIMEOUT (wall seconds per simulation, default
# 600), PHASEC_BENCH_MEM_GIB (private memory cap per built-in run, default 6;
# the simulations run one at a time), PHASEC_BENCH_BUILTINS (a comma list
# instead of all 21). The full set takes hours at the default limit: most of
# the 42 built-in runs end at the limit.
set -e
BUILD=${1:?usage: run.sh BUILD_DIR [OUT_DIR]}
OUT=${2:-$BUILD/bench-simgrid}
SIM=$BUILD/bin/phasec-sim
HERE=$(cd "$(dirname "$0")" && pwd)
TIMEOUT=${PHASEC_BENCH_TIMEOUT:-600}
MEM=${PHASEC_BENCH_MEM_GIB:-6}
PARTS=${PHASEC_BENCH_PARTS:-t3d latency builtins nodetach percs baselines}
# All of SimGrid 3.32's alltoall algorithms, roughly fastest to slowest to
# simulate at 512 ranks, so that a stopped run has the most results.
# "default" is SMPI's own selector, "automatic" tries every algorithm and
# keeps the fastest.
BUILTINS=${PHASEC_BENCH_BUILTINS:-pair,ring,default,mpich,pair_light_barrier,pair_mpi_barrier,pair_one_barrier,ring_light_barrier,ring_mpi_barrier,ring_one_barrier,pair_rma,rdb,3dmesh,2dmesh,ompi,mvapich2,impi,mvapich2_scatter_dest,bruck,basic_linear,automatic}
T3D='torus:8x4x8x2;bw=75e6;injection=link'
mkdir -p "$OUT"
cd "$OUT"

timed() { /usr/bin/time -f "%e s wall, %M KiB max RSS" "$@"; }
has() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }

if has t3d; then
  echo "== T3D 8x4x8x2, 32 KiB blocks: phasec" >&2
  timed "$SIM" --topology="$T3D" --alltoall=32768 -o t3d \
    --timeout="$TIMEOUT" > t3d.txt 2> t3d.log || true
  cat t3d.txt
fi

if has latency; then
  echo "== T3D 8x4x8x2, 32 KiB blocks, 1 us links: phasec" >&2
  timed "$SIM" --topology="$T3D" --alltoall=32768 --latency=1e-6 \
    -o t3d-lat1us --timeout="$TIMEOUT" > t3d-lat1us.txt 2> t3d-lat1us.log || true
  cat t3d-lat1us.txt
fi

if has builtins; then
  echo "== T3D 8x4x8x2, 32 KiB blocks: SimGrid's built-in algorithms" >&2
  if [ ! -f t3d/program ]; then
    "$SIM" --topology="$T3D" --alltoall=32768 -o t3d --emit-only
    sh t3d/run.sh build
  fi
  # The bound from phasec's table (no "% bound" column without the t3d part).
  BOUND=--bound=0
  grep -q 'bandwidth bound' t3d.txt 2>/dev/null && BOUND=--bound-from=t3d.txt
  "${PYTHON:-python3}" "$HERE/builtins.py" t3d --algos="$BUILTINS" \
    --platforms=phasec,stock --timeout="$TIMEOUT" --mem-gib="$MEM" "$BOUND" \
    --torus=8x4x8x2 --block=32768 --bw=75e6 --out t3d-builtins \
    2> t3d-builtins.log || true
  cat t3d-builtins.md
fi

if has nodetach; then
  echo "== T3D 8x4x8x2, 32 KiB blocks: basic_linear without detached sends" >&2
  BOUND=--bound=0
  grep -q 'bandwidth bound' t3d.txt 2>/dev/null && BOUND=--bound-from=t3d.txt
  "${PYTHON:-python3}" "$HERE/builtins.py" t3d --algos=basic_linear \
    --platforms=phasec,stock --timeout="$TIMEOUT" --mem-gib="$MEM" "$BOUND" \
    --torus=8x4x8x2 --block=32768 --bw=75e6 --label=+nodetach \
    --extra=--cfg=smpi/send-is-detached-thresh:32768 --out t3d-nodetach \
    2> t3d-nodetach.log || true
  cat t3d-nodetach.md
fi

if has percs; then
  for B in 16384 65536 262144; do
    REPORT=
    [ "$B" = 65536 ] && REPORT="--report percs-$B-report"
    echo "== PERCS supernode 32 nodes x 8 ranks, $B-byte blocks" >&2
    timed "$SIM" \
      --topology='percs:supernodes=1,drawers=4,nodes=8;ranks=8' --alltoall=$B \
      -o percs-$B --timeout="$TIMEOUT" --baselines=percs-seed,linear_shift \
      --builtins=pair $REPORT > percs-$B.txt 2> percs-$B.log || true
    cat percs-$B.txt
  done
fi

if has baselines; then
  echo "== T3D 8x4x8x2, 32 KiB blocks: phasec's baselines" >&2
  timed "$SIM" --topology="$T3D" --alltoall=32768 -o t3d-baselines \
    --timeout="$TIMEOUT" --baselines=xor,greedy,linear_shift \
    > t3d-baselines.txt 2> t3d-baselines.log || true
  cat t3d-baselines.txt
fi
