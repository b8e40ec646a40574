/* alltoall_loop.c - an OSU-style MPI_Alltoall / MPI_Alltoallv benchmark
 * loop, unmodified MPI, for running under LD_PRELOAD=libphasec-pmpi.so
 * (test/Integration/MPI_pmpi.test, bench/pmpi/run.sh).
 *
 *   alltoall_loop [ITERATIONS [MAX_BYTES [timing]]]
 *
 * For each block size 1, 4, 16, ... MAX_BYTES it times ITERATIONS calls
 * (lines starting with '#': timings differ run to run) and prints a digest
 * of every rank's received data (FNV-1a, gathered to rank 0), so that a run
 * under the library can be compared byte for byte with a run without it.
 * Then the cases a drop-in library must get right or hand back: alltoallv
 * with uneven counts, MPI_IN_PLACE, a non-contiguous datatype, a
 * sub-communicator, MPI_COMM_SELF and an intercommunicator; `timing`
 * skips those (SimGrid's SMPI has no MPI_Intercomm_create;
 * bench/pmpi/simgrid.sh).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loop_common.h"

/* Rank 0 prints `label` and every rank's digest of `data`. */
static void report(MPI_Comm comm, const char *label, const void *data,
                   size_t n) {
  int r, p;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  uint64_t h = fnv(data, n, FNV_START);
  uint64_t *all = (uint64_t *)malloc(sizeof(uint64_t) * p);
  MPI_Gather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, comm);
  if (r == 0) {
    printf("%s:", label);
    for (int i = 0; i < p; ++i)
      printf(" %016llx", (unsigned long long)all[i]);
    printf("\n");
  }
  free(all);
}

static unsigned char byte_of(int src, int dst, long i) {
  return (unsigned char)(src * 131 + dst * 31 + i * 7 + (i >> 8));
}

int main(int argc, char **argv) {
  int iterations;
  long maxBytes;
  loop_init(&argc, &argv, &iterations, &maxBytes);
  char *send = (char *)malloc((size_t)maxBytes * np);
  char *recv = (char *)malloc((size_t)maxBytes * np);
  if (me == 0)
    printf("# OSU-style MPI_Alltoall, %d ranks\n"
           "# Size          Avg Latency(us)    Min Latency(us)    "
           "Max Latency(us)   Iterations\n",
           np);
  double *times = (double *)malloc(sizeof(double) * iterations);
  double *slowest = (double *)malloc(sizeof(double) * iterations);
  for (long size = 1; size <= maxBytes; size *= 4) {
    for (int d = 0; d < np; ++d)
      for (long i = 0; i < size; ++i)
        send[d * size + i] = (char)byte_of(me, d, i);
    memset(recv, 0, (size_t)size * np);
    /* As OSU: each iteration timed on its own after a barrier; an
       iteration takes as long as its slowest rank. */
    for (int it = 0; it < iterations; ++it) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      MPI_Alltoall(send, (int)size, MPI_CHAR, recv, (int)size, MPI_CHAR,
                   MPI_COMM_WORLD);
      times[it] = (MPI_Wtime() - t0) * 1e6;
    }
    MPI_Reduce(times, slowest, iterations, MPI_DOUBLE, MPI_MAX, 0,
               MPI_COMM_WORLD);
    if (me == 0) {
      double sum = 0, lo = slowest[0], hi = slowest[0];
      for (int it = 0; it < iterations; ++it) {
        sum += slowest[it];
        lo = slowest[it] < lo ? slowest[it] : lo;
        hi = slowest[it] > hi ? slowest[it] : hi;
      }
      printf("# %-10ld %18.2f %18.2f %18.2f %12d\n", size, sum / iterations,
             lo, hi, iterations);
    }
    char label[64];
    snprintf(label, sizeof label, "alltoall %ld", size);
    report(MPI_COMM_WORLD, label, recv, (size_t)size * np);
  }
  if (argc > 3 && strcmp(argv[3], "timing") == 0)
    goto done;

  /* Alltoallv: member i sends (i + j) % 5 * 3 + 1 doubles to j, at
     displacements with gaps of 2 elements. */
  {
    int *sc = malloc(sizeof(int) * np), *sd = malloc(sizeof(int) * np);
    int *rc = malloc(sizeof(int) * np), *rd = malloc(sizeof(int) * np);
    int so = 0, ro = 0;
    for (int j = 0; j < np; ++j) {
      sc[j] = (me + j) % 5 * 3 + 1;
      rc[j] = (j + me) % 5 * 3 + 1;
      sd[j] = so;
      rd[j] = ro;
      so += sc[j] + 2;
      ro += rc[j] + 2;
    }
    double *sb = calloc((size_t)so, sizeof(double));
    double *rb = calloc((size_t)ro, sizeof(double));
    for (int j = 0; j < np; ++j)
      for (int k = 0; k < sc[j]; ++k)
        sb[sd[j] + k] = me * 1000.0 + j + k * 0.25;
    for (int k = 0; k < ro; ++k)
      rb[k] = -1.0; /* the gaps must keep this */
    MPI_Alltoallv(sb, sc, sd, MPI_DOUBLE, rb, rc, rd, MPI_DOUBLE,
                  MPI_COMM_WORLD);
    report(MPI_COMM_WORLD, "alltoallv", rb, sizeof(double) * ro);
    free(sb);
    free(rb);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
  }

  /* MPI_IN_PLACE: 3 ints per pair. */
  {
    int *buf = malloc(sizeof(int) * 3 * np);
    for (int j = 0; j < 3 * np; ++j)
      buf[j] = me * 100 + j;
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, 3, MPI_INT,
                 MPI_COMM_WORLD);
    report(MPI_COMM_WORLD, "in place", buf, sizeof(int) * 3 * np);
    free(buf);
  }

  /* A non-contiguous send type (every other int, 4 a block) received as
     plain ints. */
  {
    MPI_Datatype strided;
    MPI_Type_vector(4, 1, 2, MPI_INT, &strided);
    MPI_Type_create_resized(strided, 0, sizeof(int) * 8, &strided);
    MPI_Type_commit(&strided);
    int *sb = malloc(sizeof(int) * 8 * np), *rb = malloc(sizeof(int) * 4 * np);
    for (int j = 0; j < 8 * np; ++j)
      sb[j] = me * 1000 + j;
    MPI_Alltoall(sb, 1, strided, rb, 4, MPI_INT, MPI_COMM_WORLD);
    report(MPI_COMM_WORLD, "strided", rb, sizeof(int) * 4 * np);
    MPI_Type_free(&strided);
    free(sb);
    free(rb);
  }

  /* Sub-communicators: the even and the odd ranks, in reverse order. */
  {
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, np - me, &half);
    int hp;
    MPI_Comm_size(half, &hp);
    long *sb = malloc(sizeof(long) * 2 * hp), *rb = malloc(sizeof(long) * 2 * hp);
    for (int j = 0; j < 2 * hp; ++j)
      sb[j] = me * 10000L + j;
    MPI_Alltoall(sb, 2, MPI_LONG, rb, 2, MPI_LONG, half);
    report(MPI_COMM_WORLD, "halves", rb, sizeof(long) * 2 * hp);
    MPI_Comm_free(&half);
    free(sb);
    free(rb);
  }

  /* MPI_COMM_SELF: one rank. */
  {
    int sb[2] = {me, me + 1}, rb[2] = {0, 0};
    MPI_Alltoall(sb, 2, MPI_INT, rb, 2, MPI_INT, MPI_COMM_SELF);
    report(MPI_COMM_WORLD, "self", rb, sizeof rb);
  }

  /* An intercommunicator between the even and the odd ranks. */
  if (np >= 2) {
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, me % 2 ? 0 : 1, 99, &inter);
    int remote;
    MPI_Comm_remote_size(inter, &remote);
    int *sb = malloc(sizeof(int) * remote), *rb = malloc(sizeof(int) * remote);
    for (int j = 0; j < remote; ++j)
      sb[j] = me * 100 + j;
    MPI_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, inter);
    report(MPI_COMM_WORLD, "intercomm", rb, sizeof(int) * remote);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    free(sb);
    free(rb);
  }
done:
  free(times);
  free(slowest);
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}
