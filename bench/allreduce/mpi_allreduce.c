/*===- mpi_allreduce.c - MPI_Allreduce baseline for bench/allreduce -------===*
 *
 * Part of phasec's benchmarks: MPI_Allreduce (MPI_SUM) of COUNT doubles,
 * timed like the generated harness (barrier, every rank times the call, an
 * iteration's time is the maximum over ranks) and verified: rank m
 * contributes m + 1 + (i mod 1024) at element i, so every sum is an exact
 * integer in any order.
 *
 *   mpi_allreduce -n COUNT [-i ITERS] [-w WARMUP]
 *
 *===----------------------------------------------------------------------===*/
#include "phasec_runtime_mpi.h"

#include "../bench_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  phasec_mpi_init(&argc, &argv);
  long count = 1;
  int iters = 100, warmup = 10, rank, p;
  bench_options(argc, argv, "-n", &count, &iters, &warmup);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  double *s = PHASEC_XMALLOC(sizeof(double) * (size_t)count, "send buffer");
  double *r = PHASEC_XMALLOC(sizeof(double) * (size_t)count, "receive buffer");
  for (long i = 0; i < count; ++i)
    s[i] = (double)(rank + 1 + i % 1024);
  double *t = PHASEC_XMALLOC(sizeof(double) * iters, "times");
  for (int it = -warmup; it < iters; ++it) {
    if (it == 0)
      phasec_poison(r, sizeof(double) * (size_t)count);
    PHASEC_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = phasec_wtime();
    PHASEC_MPI_CHECK(
        MPI_Allreduce(s, r, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    if (it >= 0)
      t[it] = phasec_wtime() - t0;
  }
  uint64_t bad = 0;
  for (long i = 0; i < count; ++i) {
    double want =
        (double)p * (double)(p + 1) / 2 + (double)p * (double)(i % 1024);
    if (r[i] != want) {
      if (bad < 5)
        fprintf(stderr, "MPI_Allreduce: rank %d: element %ld is %g, not %g\n",
                rank, i, r[i], want);
      ++bad;
    }
  }
  bad = phasec_mpi_sum(MPI_COMM_WORLD, bad);
  phasec_stats stats = phasec_mpi_reduce_times(MPI_COMM_WORLD, t, iters);
  if (rank == 0) {
    phasec_print_header("MPI_Allreduce");
    phasec_print_timing(sizeof(double) * (size_t)count, &stats);
    printf("# MPI_Allreduce: median %.2f us; %s\n", stats.median * 1e6,
           bad ? "WRONG BYTES" : "every element verified");
  }
  phasec_mpi_finalize();
  return bad ? 1 : 0;
}
