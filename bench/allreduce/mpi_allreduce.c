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
  long count = 1;
  int iters = 100, warmup = 10, rank, p;
  bench_init(&argc, &argv, "-n", &count, &iters, &warmup, &rank, &p);
  double *s = PHASEC_XMALLOC(sizeof(double) * (size_t)count, "send buffer");
  double *r = PHASEC_XMALLOC(sizeof(double) * (size_t)count, "receive buffer");
  for (long i = 0; i < count; ++i)
    s[i] = (double)(rank + 1 + i % 1024);
  BENCH_TIMED_LOOP(t, iters, warmup, r, sizeof(double) * (size_t)count,
                   PHASEC_MPI_CHECK(MPI_Allreduce(s, r, (int)count, MPI_DOUBLE,
                                                  MPI_SUM, MPI_COMM_WORLD)));
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
  return bench_finish("MPI_Allreduce", sizeof(double) * (size_t)count, t, iters,
                      bad, "every element verified");
}
