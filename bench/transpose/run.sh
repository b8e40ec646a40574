#!/bin/bash
#===- bench/transpose/run.sh - N x N complex128 transposes, interleaved ---===#
#
# Usage: bench/transpose/run.sh BUILD_DIR [ROUNDS] [N]
#
# Builds (in BUILD_DIR/bench/transpose) the generated OpenSHMEM and MPI
# transposes (phasec-emit-test) and the hand-written baselines (pack +
# MPI_Alltoall + unpack, FFTW's MPI transpose in place and out of place, a
# local transpose without communication = the memory limit), then runs them
# interleaved: for each round, for np in 2 4, every implementation once.
# Every program verifies every byte. Prints a table of the best (min over
# rounds of the best iteration) and the median (median over rounds of the
# per-launch median) per implementation and np, in milliseconds.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
BUILD=$(cd "${1:?usage: run.sh BUILD_DIR [ROUNDS] [N]}" && pwd)
ROUNDS=${2:-3}
N=${3:-4096}
HERE=$(cd "$(dirname "$0")" && pwd)
NAME=transpose
. "$HERE/../common.sh"
ITERS="-i 10 -w 2"

build() { # name emit np extra-args...
  local name=$1 emit=$2 np=$3; shift 3
  "$EMIT" --op=transpose --ranks="$np" --n="$N" --elem=c128 --emit="$emit" \
    --main "$@" -o "$OUT/$name.np$np.c"
  if [ "$emit" = mpi ]; then cc=mpicc; else cc=oshcc; fi
  $cc -O3 -march=native "$OUT/$name.np$np.c" $FLAGS -o "$OUT/$name.np$np"
}
for np in 2 4; do
  build gen-shmem-direct-deposit shmem $np --style=direct_deposit --order=stores
  build gen-shmem-direct-deposit-loads shmem $np --style=direct_deposit --order=loads
  build gen-shmem-chained-puts shmem $np --style=chained
  build gen-mpi-direct-deposit mpi $np --style=direct_deposit --order=stores
  build gen-mpi-chained mpi $np --style=chained
  build gen-mpi-packing mpi $np --style=packing
done
for b in alltoall_transpose local_transpose; do
  mpicc -O3 -march=native "$HERE/$b.c" $FLAGS -o "$OUT/$b"
done
mpicc -O3 -march=native "$HERE/fftw_transpose.c" $FLAGS -lfftw3_mpi -lfftw3 \
  -o "$OUT/fftw_transpose"

for r in $(seq 1 "$ROUNDS"); do
  for np in 2 4; do
    run "generated SHMEM direct deposit (shmem_ptr stores)" $np $OSHRUN -np $np "$OUT/gen-shmem-direct-deposit.np$np" $ITERS
    run "local transpose, no communication, contiguous stores (memory limit)" $np $MPIRUN -np $np "$OUT/local_transpose" -n $N -stores $ITERS
    run "FFTW MPI transpose, in place" $np $MPIRUN -np $np "$OUT/fftw_transpose" -n $N -inplace $ITERS
    run "generated MPI direct deposit (shared window)" $np $MPIRUN -np $np "$OUT/gen-mpi-direct-deposit.np$np" $ITERS
    run "pack + MPI_Alltoall + unpack" $np $MPIRUN -np $np "$OUT/alltoall_transpose" -n $N $ITERS
    run "generated MPI chained (Sendrecv, vector type)" $np $MPIRUN -np $np "$OUT/gen-mpi-chained.np$np" $ITERS
    run "FFTW MPI transpose, out of place" $np $MPIRUN -np $np "$OUT/fftw_transpose" -n $N $ITERS
    run "generated SHMEM direct deposit, contiguous loads/strided stores" $np $OSHRUN -np $np "$OUT/gen-shmem-direct-deposit-loads.np$np" $ITERS
    run "generated SHMEM chained (put per row)" $np $OSHRUN -np $np "$OUT/gen-shmem-chained-puts.np$np" $ITERS
    run "generated MPI buffer packing" $np $MPIRUN -np $np "$OUT/gen-mpi-packing.np$np" $ITERS
    run "local transpose, no communication, contiguous loads" $np $MPIRUN -np $np "$OUT/local_transpose" -n $N $ITERS
  done
done
summarize
