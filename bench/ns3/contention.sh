#!/usr/bin/env bash
#===- bench/ns3/contention.sh - Fit the cost model's contention term -----===#
#
# Usage: bench/ns3/contention.sh BUILD_DIR [OUT.md] [DRAWS] [SEED]
#
# Runs phasec's all-to-all phases through phasec-ns3 with barriers and in
# phase order without them (contention.py) on DRAWS machines drawn with
# SEED (default 70 and 39: torus, mesh and hypercube of 8-512 nodes, 64 B
# to 16 KiB blocks, 2- to 64-packet buffers) and on the seed's T3D
# (8x4x8x2) at 64 B, 1 KiB and 4 KiB with 2-packet buffers and at 4 KiB
# with 8, then fits the term (contention_fit.py) and writes the fit with
# every run's residual to OUT.md (default docs/contention-fit.md). About
# 40 minutes on two cores; the CSVs stay beside OUT.md's name
# (OUT.draws.csv, OUT.t3d.csv) for a refit.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
BUILD=${1:?usage: contention.sh BUILD_DIR [OUT.md] [DRAWS] [SEED]}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=${2:-$REPO/docs/contention-fit.md}
DRAWS=${3:-70}
SEED=${4:-39}
BASE=${OUT%.md}
python3 "$HERE/contention.py" "$BUILD" "$BASE.draws.csv" --draws "$DRAWS" \
  --seed "$SEED" --jobs 2
python3 "$HERE/contention.py" "$BUILD" "$BASE.t3d.csv" --jobs 2 \
  --row torus8x4x8x2:64:2 --row torus8x4x8x2:1024:2 \
  --row torus8x4x8x2:4096:2 --row torus8x4x8x2:4096:8
python3 "$HERE/contention_fit.py" "$OUT" "$BASE.draws.csv" "$BASE.t3d.csv" \
  --command "bench/ns3/contention.sh build $(basename "$OUT") $DRAWS $SEED (commit $(git -C "$REPO" rev-parse --short HEAD), $(date -u +%Y-%m-%d))"
