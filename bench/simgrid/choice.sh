#!/bin/bash
#===- bench/simgrid/choice.sh - phasec's choice against SimGrid's built-ins -===#
#
# Usage: bench/simgrid/choice.sh BUILD_DIR OUT_DIR
#
# Issue 12's acceptance table: for every torus T, collective C and size S,
# one operation with phasec's defaults (`algorithm = auto`, `sync = auto`:
# the cost model chooses the schedule and whether phases are separated by
# barriers), simulated by SimGrid 3.32 SMPI with `phasec FILE.sched
# --target=sim --compare` against every built-in algorithm SimGrid has for
# the MPI call that does the same work, on the same platform (phasec's
# routes and injection ports). Every phasec row verifies every byte.
#
# The machine is the T3D's link and port (75 MB/s links, 1 us per link,
# one-port injection at 75 MB/s), as in examples/t3d_aapc.sched, with the
# 16-byte envelope SMPI puts on every message (`envelope = 16 B`), so that
# phasec's choice sees what a message costs on the simulated machine.
#
#   alltoall   block = S                              (MPI_Alltoall)
#   alltoallv  sizes = ((src + 2 dst) mod 5) * S / 2, mean S, zeros included
#                                                     (MPI_Alltoallv)
#   permute    an element-level random permutation of P * P * S / 8 uint64
#              keys over the ranks (S bytes per pair on average); element
#              permutes are limited to 2^24 keys, so S = 1 MiB on 64 ranks
#              is not run                             (MPI_Alltoallv)
#   broadcast  block = S from rank 0                  (MPI_Bcast)
#   allreduce  S / 8 doubles, op = add                (MPI_Allreduce)
#
# OUT/T-C-S.sched, .stats (phasec --emit=schedule-stats: the choice and why)
# and .txt (the --compare table). choice_summary.py OUT prints the table of
# docs/performance.md; this script prints it at the end.
#
# Environment: TORI (default "4x4x4 8x8"), COLLS (default "alltoall
# alltoallv permute broadcast allreduce"; also allgather, reduce_scatter
# (count = S / 8 doubles per member), scan (S / 8 doubles)), SIZES (default
# "8 256 4096 65536 1048576"), PHASEC_SIM_ITERATIONS (timed calls per run;
# the simulation is deterministic), PHASEC_SIM_TIMEOUT (seconds per SimGrid
# run).
#
# Machines nobody tuned for (issue 39): MACHINES lists shapes (in place of
# TORI) as torus6x6, mesh4x4x2, hypercube5 or percsSxDxN (supernodes x
# drawers x nodes per drawer); DRAWS=N SEED=K draws N shapes of 8-64 ranks
# from torus, mesh, hypercube and PERCS, odd and non-power-of-two extents
# included (random_machines.py), and runs them in place of TORI. The T3D's
# links and ports either way.
#
#===----------------------------------------------------------------------===#
set -uo pipefail
. "$(dirname "$0")/bench_dirs.sh"
bench_dirs choice.sh "${1:-}" "${2:-}"
bench_defaults TORI="4x4x4 8x8" \
  COLLS="alltoall alltoallv permute broadcast allreduce" \
  SIZES="8 256 4096 65536 1048576"
MAX_KEYS=16777216

log() { echo "[choice.sh $(date -u +%H:%M:%S)] $*" >&2; }

ranks() { # shape (4x4x4, torus6x6, mesh4x4x2, hypercube5, percs1x2x4) -> rank count
  local shape=${1#torus} n=1 d
  shape=${shape#mesh}
  shape=${shape#percs}
  case $shape in
  hypercube*) echo $((1 << ${shape#hypercube})); return ;;
  esac
  for d in ${shape//x/ }; do n=$((n * d)); done
  echo $n
}

topology() { # shape -> the machine's topology
  case $1 in
  torus*) local e=${1#torus}; echo "torus(${e//x/, })" ;;
  mesh*) local e=${1#mesh}; echo "mesh(${e//x/, })" ;;
  hypercube*) echo "hypercube(${1#hypercube})" ;;
  percs*) local e=${1#percs}; echo "percs(${e//x/, })" ;;
  *) echo "torus(${1//x/, })" ;;
  esac
}

bandwidth() { # shape -> its links' bandwidth: the T3D's; PERCS's three
  # classes keep the POWER7 hub's ratios (24 : 5 : 10 GB/s), LR at the
  # T3D's link
  case $1 in
  percs*) echo "bandwidth.LL = 360 MB/s; bandwidth.LR = 75 MB/s; bandwidth.D = 150 MB/s;" ;;
  *) echo "bandwidth = 75 MB/s;" ;;
  esac
}

op() { # collective bytes ranks -> the operation, or nothing if not expressible
  case $1 in
  alltoall) echo "alltoall op { block = $2 B; }" ;;
  alltoallv) echo "alltoallv op { sizes = ((src + 2 * dst) % 5) * $(($2 / 2)) B; }" ;;
  permute)
    local keys=$(($3 * $3 * $2 / 8))
    [ "$keys" -le "$MAX_KEYS" ] || return 0
    echo "array keys : uint64[$keys] by rows over all;"
    echo "array sorted : uint64[$keys] by rows over all;"
    echo "permute op { from = keys; to = sorted; pattern = random(42); }" ;;
  broadcast) echo "broadcast op { root = 0; block = $2 B; }" ;;
  allreduce) echo "allreduce op { op = add; type = f64; count = $(($2 / 8)); }" ;;
  allgather) echo "allgather op { block = $2 B; }" ;;
  reduce_scatter)
    [ "$2" -ge 8 ] || return 0
    echo "reduce_scatter op { op = add; type = f64; count = $(($2 / 8)); }" ;;
  scan) echo "scan op { op = add; type = f64; count = $(($2 / 8)); }" ;;
  esac
}

SHAPES=$TORI
if [ -n "${MACHINES:-}" ]; then SHAPES="$MACHINES"; fi
if [ -n "${DRAWS:-}" ]; then
  SHAPES=$("${PYTHON:-python3}" "$(dirname "$0")/random_machines.py" \
    --count "$DRAWS" --seed "${SEED:-39}")
  log "machines drawn (seed ${SEED:-39}): $SHAPES"
fi

for T in $SHAPES; do
  P=$(ranks "$T")
  for C in $COLLS; do
    for S in $SIZES; do
      F=$OUT/$T-$C-$S
      body=$(op "$C" "$S" "$P")
      if [ -z "$body" ]; then
        log "$T $C $S: not expressible (element permutes: at most $MAX_KEYS keys)"
        echo "not run: an element permute of $((P * P * S / 8)) keys exceeds the language's $MAX_KEYS" > "$F.txt"
        continue
      fi
      {
        echo "machine t3d { topology = $(topology "$T"); $(bandwidth "$T")" \
             "latency = 1 us; injection = 75 MB/s; envelope = 16 B; }"
        echo "$body"
      } > "$F.sched"
      log "$T $C $S"
      "$PHASEC" "$F.sched" --emit=schedule-stats > "$F.stats" 2>&1 ||
        log "   stats failed: see $F.stats"
      "$PHASEC" "$F.sched" --target=sim --compare -o "$F.sim" > "$F.txt" \
        2> "$F.log" || log "   FAILED: see $F.log"
      rm -rf "$F.sim"
    done
  done
done
"${PYTHON:-python3}" "$(dirname "$0")/choice_summary.py" "$OUT"
