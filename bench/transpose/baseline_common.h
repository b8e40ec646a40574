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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -n N -i ITERS -w WARMUP from the command line. */
static void parse_args(int argc, char **argv, long *n, int *iters,
                       int *warmup) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (!strcmp(argv[i], "-n"))
      *n = atol(argv[++i]);
    else if (!strcmp(argv[i], "-i"))
      *iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-w"))
      *warmup = atoi(argv[++i]);
  }
}

/* Prints the OSU line and the median line the bench scripts parse. */
static void report(const char *name, size_t size, const double *t, int iters,
                   uint64_t bad) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  bad = phasec_mpi_sum(MPI_COMM_WORLD, bad);
  phasec_stats s = phasec_mpi_reduce_times(MPI_COMM_WORLD, t, iters);
  if (rank == 0) {
    phasec_print_header(name);
    phasec_print_timing(size, &s);
    printf("# %s: median %.2f us; %s\n", name, s.median * 1e6,
           bad ? "WRONG BYTES" : "every byte verified");
    printf(bad ? "# FAILED: %llu wrong bytes\n" : "# OK: every byte verified\n",
           (unsigned long long)bad);
  }
}

#endif
