/* loop_common.h - what the OSU-style loops alltoall_loop.c and
 * collectives_loop.c share: this rank and the job's size, FNV-1a digests,
 * and the set-up with the common arguments. */
#ifndef PHASEC_TEST_LOOP_COMMON_H
#define PHASEC_TEST_LOOP_COMMON_H

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

static int me, np;

/* FNV-1a of n bytes, continuing from h (a digest starts at FNV_START). */
#define FNV_START 1469598103934665603ull
static uint64_t fnv(const void *data, size_t n, uint64_t h) {
  const unsigned char *p = (const unsigned char *)data;
  for (size_t i = 0; i < n; ++i)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/* MPI set up, me and np; ITERATIONS and MAX_BYTES from the first two
 * arguments (20 and 65536 without them). */
static void loop_init(int *argc, char ***argv, int *iterations,
                      long *maxBytes) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  *iterations = *argc > 1 ? atoi((*argv)[1]) : 20;
  *maxBytes = *argc > 2 ? atol((*argv)[2]) : 65536;
}

#endif
