#!/bin/bash
#===- bench/scheduling/relay_bounds.sh - relays against the shared bound ---===#
#
# Usage: bench/scheduling/relay_bounds.sh BUILD_DIR OUT_DIR
#
# Issue 11's "every schedule within 1.10 of the bandwidth bound that the
# shared verifier reports for it, at 1 MiB": for every torus T, collective
# C and injection port P, phasec's choice for a 1 MiB broadcast, allreduce
# and scan (bench/simgrid/relay.sh's operations and machine: 1 GB/s links,
# 1 us per link), and the named algorithms in ALGOS, each written as schedule
# JSON (`phasec-schedule/2`) and checked by ../shared/tools/verify_schedule.py,
# whose bound for /2 documents is the injection bound (none without an
# injection limit). Prints one table row per schedule: the verifier's
# time/bound (the spec's bandwidth time over its bound) beside the machine
# time phasec's cost model charges it (`--emit=schedule-stats`).
#
#   P = none  no injection limit (relay.sh's machine)
#   P = one   a one-port machine: `injection = 1 GB/s`
#
# Environment: TORI (default "4x4 8x8"), COLLS (default "broadcast allreduce
# scan"), ALGOS (default "chain(1024)": the bandwidth-tight pipeline for the
# broadcast and scan), BYTES (default 1048576), VERIFY (the shared
# verifier; default ../shared/tools/verify_schedule.py beside the checkout).
# No simulation: a few seconds.
#
#===----------------------------------------------------------------------===#
set -uo pipefail
. "$(dirname "$0")/../simgrid/bench_dirs.sh"
bench_dirs relay_bounds.sh "${1:-}" "${2:-}"
bench_defaults TORI="4x4 8x8" COLLS="broadcast allreduce scan" \
  ALGOS="chain(1024)" BYTES="1048576"
VERIFY=${VERIFY:-$(cd "$(dirname "$0")/../../.." && pwd)/shared/tools/verify_schedule.py}
[ -f "$VERIFY" ] || { echo "relay_bounds.sh: no verifier at $VERIFY" >&2; exit 2; }

op() { # collective algorithm-clause -> one operation
  case $1 in
  broadcast) echo "broadcast op { root = 0; block = $BYTES; $2 }" ;;
  allreduce) echo "allreduce op { op = add; type = f64; count = $((BYTES / 8)); $2 }" ;;
  scan) echo "scan op { op = add; type = int64; count = $((BYTES / 8)); $2 }" ;;
  esac
}

echo "| torus | injection | collective | schedule | phases | verifier time/bound | machine time (s) |"
echo "|---|---|---|---|---|---|---|"
for t in $TORI; do
  for p in none one; do
    port=""
    [ "$p" = one ] && port="injection = 1 GB/s;"
    for c in $COLLS; do
      for a in auto $ALGOS; do
        [ "$a" != auto ] && [ "$c" = allreduce ] && continue
        clause=""
        [ "$a" != auto ] && clause="algorithm = $a;"
        f=$OUT/$t-$p-$c-$(echo "$a" | tr -c 'a-z0-9_\n' '_')
        {
          echo "machine m { topology = torus(${t/x/, }); bandwidth = 1 GB/s; latency = 1 us; $port }"
          op "$c" "$clause"
        } > "$f.sched"
        if ! "$PHASEC" "$f.sched" --emit=schedule-stats > "$f.stats" 2>&1 ||
           ! "$PHASEC" "$f.sched" --emit=schedule-json -o "$f.json" 2> "$f.err"; then
          echo "| $t | $p | $c | $a: failed (see $f.stats, $f.err) | | | |"
          continue
        fi
        "${PYTHON:-python3}" "$VERIFY" "$f.json" > "$f.verify" 2>&1
        "${PYTHON:-python3}" - "$f.stats" "$f.verify" "$t" "$p" "$c" <<'EOF'
import json, re, sys
stats, verify, t, p, c = sys.argv[1:]
row = next(l for l in open(stats) if re.match(r"  (phasec|hand-written) ", l))
f = row.split()
name, phases, machine = f[1], f[2], f[-2]
v = json.loads(open(verify).read())
if not v.get("ok"):
    ratio = "rejected: " + v.get("error", "?")
elif v.get("time_over_bound") is None:
    ratio = "no bound"
else:
    ratio = "%.3f" % v["time_over_bound"]
print(f"| {t} | {p} | {c} | {name} | {phases} | {ratio} | {machine} |")
EOF
      done
    done
  done
done
