#!/bin/bash
#===- bench/simgrid/sync.sh - sync, set-up cost and --compare per kind -----===#
#
# Usage: bench/simgrid/sync.sh BUILD_DIR OUT_DIR
#
# Direct operations in SimGrid 3.32 (`phasec FILE.sched --target=sim
# --compare`, docs/simulator.md) on tori with 75 MB/s links, 1 us per link
# and one-port injection (the T3D's), every phased row verified byte by byte:
#
#   alltoall   block S with `sync = barrier` and `sync = none`, against the
#              phased baselines and smpi/alltoall's algorithms (MPI_Alltoall).
#              OUT/T-alltoall-S.txt
#   kinds      an alltoallv with skewed sizes ((src + 2 dst) mod 5 + 1 times
#              S / 4 bytes) and a direct gather of S bytes per rank, against
#              smpi/alltoallv's and smpi/gather's algorithms (MPI_Alltoallv,
#              MPI_Gather), both syncs. OUT/T-kinds-S.txt
#
# for T in TORI and S in SIZES. SETUP (seconds, default 0) adds the
# machine's set-up cost (`setup_cost`), charged as SMPI's send overhead.
# sync_summary.py OUT_DIR prints the table of docs/performance.md.
#
# Environment: TORI (default "4x4x4 8x8"), SIZES (default "64 65536"),
# PARTS (default "alltoall kinds"), SETUP, PHASEC_SIM_ITERATIONS.
#
#===----------------------------------------------------------------------===#
set -uo pipefail
. "$(dirname "$0")/bench_dirs.sh"
bench_dirs sync.sh "${1:-}" "${2:-}"
bench_defaults TORI="4x4x4 8x8" SIZES="64 65536" PARTS="alltoall kinds" \
  SETUP="0"

machine() { # torus -> the machine
  local setup=
  [ "$SETUP" != 0 ] && setup="setup_cost = $SETUP s;"
  echo "machine m { topology = torus(${1//x/, }); bandwidth = 75 MB/s;" \
       "latency = 1 us; injection = 75 MB/s; $setup }"
}

for T in $TORI; do
  for S in $SIZES; do
    for P in $PARTS; do
      F=$OUT/$T-$P-$S
      {
        machine "$T"
        for Y in barrier none; do
          case $P in
          alltoall)
            echo "alltoall a_$Y { block = $S B; sync = $Y; }" ;;
          kinds)
            echo "alltoallv v_$Y { sizes = ((src + 2 * dst) % 5 + 1) * $((S / 4 > 0 ? S / 4 : 1)) B; sync = $Y; }"
            echo "gather g_$Y { root = 0; block = $S B; algorithm = direct; sync = $Y; }" ;;
          esac
        done
      } > "$F.sched"
      echo "== $T $P $S" >&2
      "$PHASEC" "$F.sched" --target=sim --compare -o "$F" > "$F.txt" 2> "$F.log" ||
        echo "   failed: see $F.log" >&2
    done
  done
done
