/*===- mpi_alltoall.c - MPI_Alltoall baseline for bench/alltoall ----------===*
 *
 * Part of phasec's benchmarks: MPI_Alltoall of BLOCK bytes per pair, timed
 * and verified exactly like the generated harness (same fill pattern: byte
 * i of the block s sends d is phasec_pattern_byte(s, d, i)).
 *
 *===----------------------------------------------------------------------===*/
#include "phasec_runtime_mpi.h"

#include "../bench_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  long block = 1024;
  int iters = 100, warmup = 10, rank, p;
  bench_init(&argc, &argv, "-b", &block, &iters, &warmup, &rank, &p);
  char *s = PHASEC_XMALLOC((size_t)block * p, "send buffer");
  char *r = PHASEC_XMALLOC((size_t)block * p, "receive buffer");
  for (int d = 0; d < p; ++d)
    phasec_fill(s + (size_t)d * block, block, rank, d, 0);
  BENCH_TIMED_LOOP(
      t, iters, warmup, r, (size_t)block * p,
      PHASEC_MPI_CHECK(MPI_Alltoall(s, (int)block, MPI_BYTE, r, (int)block,
                                    MPI_BYTE, MPI_COMM_WORLD)));
  phasec_check_state st;
  phasec_check_init(&st, rank, "MPI_Alltoall");
  uint64_t bad = 0;
  for (int q = 0; q < p; ++q)
    bad += phasec_check(&st, "block", r + (size_t)q * block, block, q, rank, 0,
                        (size_t)q * block);
  return bench_finish("MPI_Alltoall", (size_t)block, t, iters, bad,
                      "every byte verified");
}
