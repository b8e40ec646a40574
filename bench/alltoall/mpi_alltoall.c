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
  phasec_mpi_init(&argc, &argv);
  long block = 1024;
  int iters = 100, warmup = 10, rank, p;
  bench_options(argc, argv, "-b", &block, &iters, &warmup);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  char *s = PHASEC_XMALLOC((size_t)block * p, "send buffer");
  char *r = PHASEC_XMALLOC((size_t)block * p, "receive buffer");
  for (int d = 0; d < p; ++d)
    phasec_fill(s + (size_t)d * block, block, rank, d, 0);
  double *t = PHASEC_XMALLOC(sizeof(double) * iters, "times");
  for (int it = -warmup; it < iters; ++it) {
    if (it == 0)
      phasec_poison(r, (size_t)block * p);
    PHASEC_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = phasec_wtime();
    PHASEC_MPI_CHECK(MPI_Alltoall(s, (int)block, MPI_BYTE, r, (int)block,
                                  MPI_BYTE, MPI_COMM_WORLD));
    if (it >= 0)
      t[it] = phasec_wtime() - t0;
  }
  phasec_check_state st;
  phasec_check_init(&st, rank, "MPI_Alltoall");
  uint64_t bad = 0;
  for (int q = 0; q < p; ++q)
    bad += phasec_check(&st, "block", r + (size_t)q * block, block, q, rank, 0,
                        (size_t)q * block);
  bad = phasec_mpi_sum(MPI_COMM_WORLD, bad);
  phasec_stats stats = phasec_mpi_reduce_times(MPI_COMM_WORLD, t, iters);
  if (rank == 0) {
    phasec_print_header("MPI_Alltoall");
    phasec_print_timing(block, &stats);
    printf("# MPI_Alltoall: median %.2f us; %s\n", stats.median * 1e6,
           bad ? "WRONG BYTES" : "every byte verified");
  }
  phasec_mpi_finalize();
  return bad ? 1 : 0;
}
