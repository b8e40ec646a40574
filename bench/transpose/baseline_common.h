/*===- baseline_common.h - Shared harness of the hand-written baselines ---===*
 *
 * Part of phasec's benchmarks. The baselines time and verify exactly like
 * the generated harness (phasec-runtime: barrier, time, max over ranks,
 * OSU-style line, every byte checked), so the numbers compare directly.
 *
 *===----------------------------------------------------------------------===*/
#ifndef PHASEC_BENCH_BASELINE_COMMON_H
#define PHASEC_BENCH_BASELINE_COMMON_H

#include "phasec_runtime_mpi.h"
#include "transpose_kernels.h"

#include "../bench_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -n N -i ITERS -w WARMUP from the command line. */
static void parse_args(int argc, char **argv, long *n, int *iters,
                       int *warmup) {
  bench_options(argc, argv, "-n", n, iters, warmup);
}

/* The OSU line, the median line and the verdict the bench scripts parse. */
static void report(const char *name, size_t size, const double *t, int iters,
                   uint64_t bad) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  bad = bench_report(name, size, t, iters, bad, "every byte verified");
  if (rank == 0)
    printf(bad ? "# FAILED: %llu wrong bytes\n" : "# OK: every byte verified\n",
           (unsigned long long)bad);
}

#endif
