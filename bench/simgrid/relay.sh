#!/bin/bash
#===- bench/simgrid/relay.sh - relaying collectives in SimGrid -------------===#
#
# Usage: bench/simgrid/relay.sh BUILD_DIR OUT_DIR
#
# Broadcast, allreduce and scan on 2-D tori (1 GB/s links, 1 us per link),
# simulated by SimGrid 3.32 SMPI on the platform with phasec's routes
# (`phasec FILE.sched --target=sim`, docs/simulator.md):
#
#   auto     phasec's choice (no `algorithm`), with --compare: every
#            smpi/bcast, smpi/allreduce algorithm of SimGrid (scan: its one
#            MPI_Scan), the plain MPI call on the same data. OUT/T/C/S/auto.txt
#   nosync   phasec's choice again with `sync = none;` (no barrier between
#            phases; the point-to-point messages still order every chunk's
#            data flow). OUT/T/C/S/nosync.txt
#   named    phasec's named algorithms, one file each (a failing one does not
#            stop the others). OUT/T/C/S/ALGO.txt
#
# for T in TORI, C in COLLS, S in SIZES (bytes per rank's vector/message).
# Every program verifies every element. relay_summary.py OUT_DIR prints the
# tables of docs/performance.md.
#
# Environment: TORI (default "4x4 8x8"), COLLS (default "broadcast allreduce
# scan"), SIZES (default "8 64 512 4096 32768 65536 262144 1048576"),
# NAMED=0 (skip the named algorithms), PHASEC_SIM_ITERATIONS (timed calls per
# run, default 3; the simulation is deterministic).
#
#===----------------------------------------------------------------------===#
set -uo pipefail
. "$(dirname "$0")/bench_dirs.sh"
bench_dirs relay.sh "${1:-}" "${2:-}"
bench_defaults TORI="4x4 8x8" COLLS="broadcast allreduce scan" \
  SIZES="8 64 512 4096 32768 65536 262144 1048576" NAMED="1"

named() { # collective -> phasec's named algorithms for it
  case $1 in
  broadcast) echo "binomial binary knomial(4) chain(8) scatter_allgather k_level(2,sq)" ;;
  allreduce) echo "ring(1) recursive_doubling rabenseifner(1) reduce_broadcast dimension_wise(2) dimension_wise(4)" ;;
  scan) echo "chain(8) recursive_doubling" ;;
  esac
}
op() { # collective bytes algorithm-clause -> one operation
  case $1 in
  broadcast) echo "broadcast op { root = 0; block = $2; $3 }" ;;
  allreduce) echo "allreduce op { op = add; type = f64; count = $(($2 / 8)); $3 }" ;;
  scan) echo "scan op { op = add; type = int64; count = $(($2 / 8)); $3 }" ;;
  esac
}
sched() { # torus collective bytes algorithm-clause file
  local x=${1%x*} y=${1#*x}
  {
    echo "machine torus$1 { topology = torus($x, $y); bandwidth = 1 GB/s; latency = 1 us; }"
    op "$2" "$3" "$4"
  } > "$5"
}
log() { echo "[relay.sh $(date -u +%H:%M:%S)] $*" >&2; }

for t in $TORI; do
  for c in $COLLS; do
    for s in $SIZES; do
      d=$OUT/$t/$c/$s
      mkdir -p "$d"
      sched "$t" "$c" "$s" "" "$d/auto.sched"
      "$PHASEC" "$d/auto.sched" --emit=schedule-stats > "$d/auto.stats" 2>&1
      log "$t $c $s auto --compare"
      "$PHASEC" "$d/auto.sched" --target=sim --compare -o "$d/auto.sim" \
        > "$d/auto.txt" 2> "$d/auto.err" || log "FAILED: $t $c $s auto (see $d/auto.err)"
      sched "$t" "$c" "$s" "sync = none;" "$d/nosync.sched"
      log "$t $c $s auto, sync = none"
      "$PHASEC" "$d/nosync.sched" --target=sim -o "$d/nosync.sim" \
        > "$d/nosync.txt" 2> "$d/nosync.err" || log "FAILED: $t $c $s nosync (see $d/nosync.err)"
      rm -rf "$d/nosync.sim"
      [ "$NAMED" = 1 ] || continue
      for a in $(named "$c"); do
        f=$(echo "$a" | tr -c 'a-z0-9_\n' '_')
        sched "$t" "$c" "$s" "algorithm = $a;" "$d/$f.sched"
        log "$t $c $s $a"
        "$PHASEC" "$d/$f.sched" --target=sim -o "$d/$f.sim" > "$d/$f.txt" \
          2> "$d/$f.err" || log "failed: $t $c $s $a (see $d/$f.err)"
        rm -rf "$d/$f.sim"
      done
      rm -rf "$d/auto.sim"
    done
  done
done
"${PYTHON:-python3}" "$(dirname "$0")/relay_summary.py" "$OUT"
