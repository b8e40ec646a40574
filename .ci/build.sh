#!/usr/bin/env bash
# Installs missing Debian packages, then configures (once) and builds phasec
# in ${PHASEC_BUILD_DIR:-build}. Used by the README's two commands and CI.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PHASEC_BUILD_DIR:-$root/build}

"$root/.ci/install-deps.sh"

if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
# Two cores: more jobs only thrash MLIR's large translation units.
cmake --build "$build" -j "${PHASEC_JOBS:-2}"
