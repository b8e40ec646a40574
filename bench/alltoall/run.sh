#!/bin/bash
#===- bench/alltoall/run.sh - generated alltoall vs MPI_Alltoall ----------===#
#
# Usage: bench/alltoall/run.sh BUILD_DIR [ROUNDS]
#
# Blocks of 1 KiB .. 4 MiB per pair, np = 2 and 4, interleaved: for each
# round, size and np: the generated MPI alltoall (phase barrier and no
# barrier), the generated OpenSHMEM alltoall (shmem_putmem_nbi per phase)
# and MPI_Alltoall. Every program verifies every byte. Prints best and
# median per implementation, np and size (milliseconds).
#
#===----------------------------------------------------------------------===#
set -euo pipefail
BUILD=$(cd "${1:?usage: run.sh BUILD_DIR [ROUNDS]}" && pwd)
ROUNDS=${2:-3}
SIZES=${SIZES:-"1024 4096 16384 65536 262144 1048576 4194304"}
HERE=$(cd "$(dirname "$0")" && pwd)
NAME=alltoall
. "$HERE/../common.sh"

iters() { # fewer iterations for big blocks
  if [ "$1" -ge 1048576 ]; then echo "-i 20 -w 3"; else echo "-i 200 -w 20"; fi
}
for np in 2 4; do
  for b in $SIZES; do
    "$EMIT" --op=alltoall --ranks=$np --bytes=$b --emit=mpi --main -o "$OUT/mpi-barrier.$np.$b.c"
    "$EMIT" --op=alltoall --ranks=$np --bytes=$b --emit=mpi --sync=none --main -o "$OUT/mpi-none.$np.$b.c"
    "$EMIT" --op=alltoall --ranks=$np --bytes=$b --emit=shmem --main -o "$OUT/shmem.$np.$b.c"
    mpicc -O3 "$OUT/mpi-barrier.$np.$b.c" $FLAGS -o "$OUT/mpi-barrier.$np.$b"
    mpicc -O3 "$OUT/mpi-none.$np.$b.c" $FLAGS -o "$OUT/mpi-none.$np.$b"
    oshcc -O3 "$OUT/shmem.$np.$b.c" $FLAGS -o "$OUT/shmem.$np.$b"
  done
done
mpicc -O3 "$HERE/mpi_alltoall.c" $FLAGS -o "$OUT/mpi_alltoall"

launch() { # size np
  local b=$1 np=$2 it
  it=$(iters "$b")
  run "MPI_Alltoall" $np $MPIRUN -np $np "$OUT/mpi_alltoall" -b $b $it
  run "generated MPI (phase barrier)" $np $MPIRUN -np $np "$OUT/mpi-barrier.$np.$b" $it
  run "generated OpenSHMEM (putmem_nbi)" $np $OSHRUN -np $np "$OUT/shmem.$np.$b" $it
  run "generated MPI (no barrier)" $np $MPIRUN -np $np "$OUT/mpi-none.$np.$b" $it
}
each_launch launch
summarize
