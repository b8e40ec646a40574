#!/usr/bin/env bash
# Installs the Debian bookworm packages phasec needs to build, test and
# benchmark. Idempotent: when everything is present it returns in about a
# second without touching apt.
set -euo pipefail

PKGS=(
  cmake ninja-build g++ pkg-config python3
  llvm-19-dev llvm-19-tools libmlir-19-dev mlir-19-tools
  clang-19 libclang-rt-19-dev
  antlr4 libantlr4-runtime-dev
  libz3-dev
  libgtest-dev
  openmpi-bin libopenmpi-dev gfortran
  libsimgrid-dev simgrid
  libns3-dev
  libfftw3-dev libfftw3-mpi-dev
  gnuplot-nox python3-matplotlib
)

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
