#!/usr/bin/env bash
#===- bench/scheduling/one_port.sh - The one-port scale table of issue 15 -===#
#
# Usage: bench/scheduling/one_port.sh BUILD_DIR [OUT.md]
#
# The machines of issue 15 as users of the examples get them: one-port
# (`injection=link`, a node sends and receives one block at a time, as on
# the T3D), complete uniform all-to-all. Two parts, one table each:
#
#  - scheduler: phasec-sched-bench (auto; Problem::verify inside), phases,
#    bound, time/bound, wall seconds and peak RSS of the whole process;
#  - CLI: `phasec examples/t3d_aapc.sched --topology=... --emit=schedule-stats
#    --no-baselines` (the T3D file's rates on the other machine: one-port,
#    barriers per phase), the same figures through the MLIR pipeline. The
#    all-to-all's demands and the torus quotient's phases are held by rule
#    through the IR, the verifier, the cost model and the statistics, so
#    every machine runs; PHASEC_BENCH_CLI_MAX (nodes, default: all) skips
#    larger CLI rows.
#
# Wall seconds and RSS come from /usr/bin/time; the 2-core development
# machine is shared, so seconds are noisy (phases and ratios are exact).
#
#===----------------------------------------------------------------------===#
set -euo pipefail
BUILD=${1:?usage: one_port.sh BUILD_DIR [OUT.md]}
OUT=${2:-$BUILD/bench-one-port.md}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BENCH=$BUILD/bin/phasec-sched-bench
PHASEC=$BUILD/bin/phasec
CLI_MAX=${PHASEC_BENCH_CLI_MAX:-1000000000}
for b in "$BENCH" "$PHASEC"; do
  [ -x "$b" ] || { echo "error: $b not built" >&2; exit 2; }
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

MACHINES="torus:16x16 torus:32x32 torus:64x64 torus:12x12x12 torus:16x16x16 torus:20x20x20 mesh:8x8 mesh:16x16 mesh:8x8x8"

# time_of FILE: "seconds rss_mib" from /usr/bin/time -f '%e %M' output.
time_of() { tail -1 "$1" | awk '{printf "%.1f | %.0f", $1, $2 / 1024}'; }
nodes_of() { echo "$1" | sed 's/^[a-z]*://' | tr 'x' '\n' | awk 'BEGIN{p=1} {p*=$1} END{print p}'; }

{
echo "# One-port all-to-all at scale (issue 15)"
echo
echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); $(date -u +%Y-%m-%dT%H:%MZ); commit $(git -C "$REPO" rev-parse --short HEAD)"
echo
echo "Scheduler (phasec-sched-bench --algorithms auto, verified by Problem::verify):"
echo
echo "| machine | algorithm | phases | bound | time/bound | wall s | max RSS MiB |"
echo "|---|---|---|---|---|---|---|"
} > "$OUT"
for m in $MACHINES; do
  spec="$m;injection=link"
  /usr/bin/time -f '%e %M' -o "$TMP/time" "$BENCH" --topology "$spec" \
    --collective alltoall --algorithms auto > "$TMP/row" 2>&1 || {
    echo "| $m | FAILED | | | | | |" >> "$OUT"; continue; }
  row=$(grep '^| ' "$TMP/row" | tail -1)
  alg=$(echo "$row" | cut -d'|' -f3 | xargs)
  phases=$(echo "$row" | cut -d'|' -f4 | xargs)
  bound=$(echo "$row" | cut -d'|' -f5 | xargs)
  ratio=$(echo "$row" | cut -d'|' -f6 | xargs)
  verified=$(echo "$row" | cut -d'|' -f8 | xargs)
  [ "$verified" = yes ] || alg="$alg (NOT VERIFIED)"
  echo "| $m | $alg | $phases | $bound | $ratio | $(time_of "$TMP/time") |" >> "$OUT"
done

{
echo
echo "CLI (phasec examples/t3d_aapc.sched --topology=M --emit=schedule-stats --no-baselines):"
echo
echo "| machine | algorithm | phases | time/bound | wall s | max RSS MiB |"
echo "|---|---|---|---|---|---|"
} >> "$OUT"
for m in $MACHINES; do
  if [ "$(nodes_of "$m")" -gt "$CLI_MAX" ]; then
    echo "| $m | skipped (more than $CLI_MAX nodes) | | | | |" >> "$OUT"; continue
  fi
  if ! /usr/bin/time -f '%e %M' -o "$TMP/time" "$PHASEC" "$REPO/examples/t3d_aapc.sched" \
      --topology="$m" --emit=schedule-stats --no-baselines > "$TMP/stats" 2> "$TMP/err"; then
    echo "| $m | FAILED: $(head -1 "$TMP/err") | | | $(time_of "$TMP/time") |" >> "$OUT"; continue
  fi
  # The "phasec" row: algorithm, phases, time (s), time/bound.
  read -r alg phases ratio < <(awk '$1 == "phasec" {print $2, $3, $5; exit}' "$TMP/stats")
  echo "| $m | $alg | $phases | $ratio | $(time_of "$TMP/time") |" >> "$OUT"
done
cat "$OUT"
