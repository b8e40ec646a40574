#!/usr/bin/env bash
#===- bench/ns3/run.sh - The ns-3 packet-level table of issue 16 ---------===#
#
# Usage: bench/ns3/run.sh BUILD_DIR [OUT.md] [ROWS...]
#
# Runs `phasec bench/ns3/aapc.sched --target=ns3` (the T3D's all-to-all of
# seed 000 with its block size as a constant) for each row and writes their
# tables, with wall time and peak RSS, to OUT.md (default
# BUILD_DIR/bench-ns3.md). A row is TOPOLOGY:BLOCK_BYTES[@VARIANT,...]
# (every variant without @); the default rows are the issue's: a 4x4x4
# torus at 64 KiB and at 64 B, and the T3D 8x4x8x2 at
# PHASEC_BENCH_NS3_T3D_BLOCK bytes (default 4096: the largest power of two
# whose phasec, ordered, loop and posted variants run in 15 minutes here)
# with those four variants.
# Every run uses the machine's rates (bench/ns3/aapc.sched: the T3D's, its
# 1.7 us hardware barrier), --ns3-hop-latency (default 2e-8 s,
# PHASEC_BENCH_NS3_HOP), --ns3-links=direct (the same times as ns-3's
# devices, about twice as fast), the default buffers and header, and
# --ns3-jobs=PHASEC_BENCH_NS3_JOBS simulator processes (default 2). With
# PHASEC_BENCH_NS3_REPORT=DIR every row also writes its HTML report (the
# seed's pictures) to DIR/TOPOLOGY-BLOCK.
#
# The simulation is deterministic: the tables depend on the commit, not on
# the machine; only the wall times do.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
BUILD=${1:?usage: run.sh BUILD_DIR [OUT.md] [ROWS...]}
OUT=${2:-$BUILD/bench-ns3.md}
shift $(( $# >= 2 ? 2 : 1 ))
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
PHASEC=$BUILD/bin/phasec
[ -x "$PHASEC" ] && [ -x "$BUILD/bin/phasec-ns3" ] || {
  echo "error: $PHASEC or phasec-ns3 not built" >&2; exit 2; }
HOP=${PHASEC_BENCH_NS3_HOP:-2e-8}
T3D_BLOCK=${PHASEC_BENCH_NS3_T3D_BLOCK:-4096}
JOBS=${PHASEC_BENCH_NS3_JOBS:-2}
ROWS=("$@")
[ ${#ROWS[@]} -gt 0 ] || ROWS=("torus:4x4x4:65536" "torus:4x4x4:64"
                               "torus:8x4x8x2:$T3D_BLOCK@phasec,ordered,loop,posted")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

{
echo "# ns-3 packet-level all-to-all (issue 16)"
echo
echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); $(date -u +%Y-%m-%dT%H:%MZ); commit $(git -C "$REPO" rev-parse --short HEAD)"
echo
} > "$OUT"
for row in "${ROWS[@]}"; do
  variants=()
  if [[ $row == *@* ]]; then
    variants=("--ns3-variants=${row#*@}")
    row=${row%@*}
  fi
  topo=${row%:*}
  block=${row##*:}
  report=()
  if [ -n "${PHASEC_BENCH_NS3_REPORT:-}" ]; then
    report=("--report=$PHASEC_BENCH_NS3_REPORT/${topo#*:}-$block")
  fi
  cmd="phasec bench/ns3/aapc.sched --topology=$topo --define BLOCK=$block --target=ns3 --ns3-hop-latency=$HOP --ns3-links=direct --ns3-jobs=$JOBS${variants[*]:+ ${variants[*]}}${report[*]:+ ${report[*]}}"
  echo "## $topo, $block-byte blocks" >> "$OUT"
  echo >> "$OUT"
  echo "\`$cmd\`" >> "$OUT"
  echo >> "$OUT"
  if /usr/bin/time -f '%e %M' -o "$TMP/time" "$PHASEC" "$HERE/aapc.sched" \
      --topology="$topo" --define "BLOCK=$block" --target=ns3 \
      --ns3-hop-latency="$HOP" --ns3-links=direct --ns3-jobs="$JOBS" \
      ${variants[@]+"${variants[@]}"} ${report[@]+"${report[@]}"} \
      -o "$TMP/run" \
      > "$TMP/table" 2> "$TMP/err"; then
    { echo '```'; grep -v '^wrote ' "$TMP/table"; echo '```'; } >> "$OUT"
  else
    { echo "FAILED:"; echo '```'; cat "$TMP/err"; echo '```'; } >> "$OUT"
  fi
  awk '{printf "\nwall %.1f s, peak RSS %.0f MiB (the largest of phasec, its simulators and report.py)\n\n", $1, $2 / 1024}' "$TMP/time" >> "$OUT"
  rm -rf "$TMP/run"
done
cat "$OUT"
