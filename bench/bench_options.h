/*===- bench/bench_options.h - the options of the MPI loops -------*- C -*-===*
 *
 * Part of phasec. Included by the MPI loops of bench/allreduce and
 * bench/alltoall.
 *
 *===----------------------------------------------------------------------===*/
#ifndef PHASEC_BENCH_OPTIONS_H
#define PHASEC_BENCH_OPTIONS_H

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

#endif /* PHASEC_BENCH_OPTIONS_H */
