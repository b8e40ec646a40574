#===- bench/common.sh - what the MPI / OpenSHMEM benchmarks share ---------===#
#
# Sourced by bench/alltoall/run.sh and bench/transpose/run.sh after they set
# BUILD (the build directory) and NAME (their directory name). Sets OUT
# (BUILD/bench/NAME, created; a script that takes an output directory sets
# BENCH_WORK to put it there instead), FLAGS (phasec-runtime's compile and link
# flags), EMIT, MPIRUN, OSHRUN and LOG, and defines
#
#   run LABEL NP COMMAND...   one launch, appended to LOG under a header that
#                             names LABEL, NP and the round $r
#   summarize                 the table of best and median times from LOG
#   each_launch FN            FN SIZE NP for ROUNDS rounds of every SIZES and
#                             NP in NPS (default "2 4"), interleaved
#
#===----------------------------------------------------------------------===#
OUT=${BENCH_WORK:-$BUILD/bench/$NAME}
mkdir -p "$OUT"
export PKG_CONFIG_PATH=$BUILD/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
FLAGS=$(pkg-config --cflags --libs phasec-runtime)
EMIT=$BUILD/bin/phasec-emit-test
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
# Open MPI 4.1.4's OpenSHMEM segfaults at exit unless the rdma osc is off.
OSHRUN="oshrun --allow-run-as-root --oversubscribe --mca osc ^rdma"
LOG=$OUT/raw-$(date -u +%Y%m%dT%H%M%S).log
: > "$LOG"

run() { # label np command...
  local label=$1 np=$2; shift 2
  echo "== $label np=$np round=$r" >> "$LOG"
  if ! "$@" >> "$LOG" 2>&1; then
    echo "FAILED: $label np=$np" | tee -a "$LOG"
  fi
}

summarize() {
  echo "raw log: $LOG"
  "${PYTHON:-python3}" "$(dirname "${BASH_SOURCE[0]}")/summarize.py" "$LOG"
}

each_launch() { # fn: called as fn size np, every round (r), size and np
  for r in $(seq 1 "$ROUNDS"); do
    for b in $SIZES; do
      for np in ${NPS:-2 4}; do
        "$1" "$b" "$np"
      done
    done
  done
}
