#!/usr/bin/env bash
# The README's first command: set up, build, and run phasec's main job on an
# example: compile the T3D all-to-all of seed 000 and simulate it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PHASEC_BUILD_DIR:-$root/build}
"$root/.ci/build.sh"
# Prints the schedule summary, then simulates it on SimGrid (about a minute).
"$build/bin/phasec" "$root/examples/t3d_aapc.sched" --emit=schedule-stats
exec "$build/bin/phasec" "$root/examples/t3d_aapc.sched" --target=sim \
  -o "$build/main-job/simgrid" "$@"
