/*===- bench/bench_options.h - the options of the MPI loops -------*- C -*-===*
 *
 * Part of phasec. Included by the MPI loops of bench/allreduce,
 * bench/alltoall and bench/transpose, after phasec_runtime_mpi.h: their
 *options, set-up, timed loop and report, timed and printed as the generated
 *harness does.
 *
 *===----------------------------------------------------------------------===*/
#ifndef PHASEC_BENCH_OPTIONS_H
#define PHASEC_BENCH_OPTIONS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The loops' options: `sizeFlag` N (the message size, in the loop's unit),
 * -i N timed iterations, -w N warm-up runs; anything else is ignored. */
static inline void bench_options(int argc, char **argv, const char *sizeFlag,
                                 long *size, int *iters, int *warmup) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (!strcmp(argv[i], sizeFlag))
      *size = atol(argv[++i]);
    else if (!strcmp(argv[i], "-i"))
      *iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-w"))
      *warmup = atoi(argv[++i]);
  }
}

/* MPI set up (phasec's runtime), the options, this rank and the size. */
static inline void bench_init(int *argc, char ***argv, const char *sizeFlag,
                              long *size, int *iters, int *warmup, int *rank,
                              int *nprocs) {
  phasec_mpi_init(argc, argv);
  bench_options(*argc, *argv, sizeFlag, size, iters, warmup);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, nprocs);
}

/* The timed loop: WARMUP calls, then ITERS timed ones, each after a
 * barrier, into TIMES (allocated here); the receive buffer RECV (BYTES) is
 * poisoned before the first timed call. CALL is a statement. */
#define BENCH_TIMED_LOOP(times, iters, warmup, recv, bytes, CALL)              \
  double *times = PHASEC_XMALLOC(sizeof(double) * (iters), "times");           \
  for (int it_ = -(warmup); it_ < (iters); ++it_) {                            \
    if (it_ == 0)                                                              \
      phasec_poison((recv), (bytes));                                          \
    PHASEC_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));                             \
    double t0_ = phasec_wtime();                                               \
    CALL;                                                                      \
    if (it_ >= 0)                                                              \
      times[it_] = phasec_wtime() - t0_;                                       \
  }

/* Rank 0 prints the OSU lines and the verdict (`bad` wrong units over all
 * ranks, `what` says what was checked). Returns the wrong units over all
 * ranks. */
static inline uint64_t bench_report(const char *name, size_t bytes,
                                    const double *times, int iters,
                                    uint64_t bad, const char *what) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  bad = phasec_mpi_sum(MPI_COMM_WORLD, bad);
  phasec_stats stats = phasec_mpi_reduce_times(MPI_COMM_WORLD, times, iters);
  if (rank == 0) {
    phasec_print_header(name);
    phasec_print_timing(bytes, &stats);
    printf("# %s: median %.2f us; %s\n", name, stats.median * 1e6,
           bad ? "WRONG BYTES" : what);
  }
  return bad;
}

/* bench_report, then MPI finalised; the program's exit status. */
static inline int bench_finish(const char *name, size_t bytes, double *times,
                               int iters, uint64_t bad, const char *what) {
  bad = bench_report(name, bytes, times, iters, bad, what);
  phasec_mpi_finalize();
  return bad ? 1 : 0;
}

#endif /* PHASEC_BENCH_OPTIONS_H */
