# bench/simgrid/bench_dirs.sh - sourced by the SimGrid and relay benchmarks.
#
# bench_dirs SCRIPT BUILD_DIR OUT_DIR sets BUILD and OUT to absolute paths
# (the simulations run in directories of their own), creates OUT and sets
# PHASEC to the build's driver; without both arguments it stops the script
# with SCRIPT's usage.
bench_dirs() {
  local usage="usage: $1 BUILD_DIR OUT_DIR"
  [ -n "${2:-}" ] && [ -n "${3:-}" ] || { echo "$usage" >&2; exit 2; }
  BUILD=$(cd "$2" && pwd) || exit 2
  mkdir -p "$3" || exit 2
  OUT=$(cd "$3" && pwd)
  PHASEC=$BUILD/bin/phasec
}

# bench_defaults NAME=VALUE...: each NAME as the environment gives it, else
# VALUE (the scripts' documented defaults).
bench_defaults() {
  local kv name
  for kv in "$@"; do
    name=${kv%%=*}
    [ -n "${!name:-}" ] || printf -v "$name" '%s' "${kv#*=}"
  done
}
