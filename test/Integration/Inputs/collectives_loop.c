/* collectives_loop.c - an OSU-style loop over the relaying collectives
 * (MPI_Bcast, MPI_Reduce, MPI_Allreduce, MPI_Reduce_scatter_block,
 * MPI_Scan, MPI_Exscan, MPI_Allgather, MPI_Gather, MPI_Scatter), unmodified
 * MPI, for running under LD_PRELOAD=libphasec-pmpi.so
 * (test/Integration/MPI_pmpi_collectives.test, bench/pmpi/run.sh).
 *
 *   collectives_loop [ITERATIONS [MAX_BYTES [timing [NAME]]]]
 *
 * For each size 1, 4, 16, ... MAX_BYTES bytes (reductions: that many bytes
 * of MPI_INT, at least one) and each collective it times ITERATIONS calls
 * (lines starting with '#') and keeps a digest of every rank's results
 * (FNV-1a); rank 0 prints every rank's digests, collected with
 * point-to-point messages (the library serves none), so that a run under
 * the library can be compared byte for byte with a run without it. The
 * reductions are integer sums, maxima and a commutative operator of the
 * program's own: exact in any order. Then the cases a drop-in library must
 * get right or hand back: MPI_IN_PLACE in each collective, a
 * non-contiguous datatype, a non-commutative operator, a sub-communicator
 * in reverse rank order, MPI_COMM_SELF, an intercommunicator, a count of
 * zero, and 1 MiB calls. `timing` skips those and times only collective
 * NAME if given (SimGrid's SMPI has no MPI_Intercomm_create;
 * bench/pmpi/simgrid.sh); the timed sizes' digests are printed either way.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loop_common.h"

static uint64_t digest[4096];
static int ndigests;
static const char *labels[4096];

static void keep(const char *label, const void *data, size_t n) {
  labels[ndigests] = label;
  digest[ndigests++] = fnv(data, n, FNV_START);
}

/* Rank 0 prints each digest of every rank, by MPI_Send / MPI_Recv. */
static void print_digests(void) {
  if (me) {
    MPI_Send(digest, ndigests, MPI_UINT64_T, 0, 7, MPI_COMM_WORLD);
    return;
  }
  uint64_t *all = (uint64_t *)malloc(sizeof(uint64_t) * ndigests * np);
  memcpy(all, digest, sizeof(uint64_t) * ndigests);
  for (int r = 1; r < np; ++r)
    MPI_Recv(all + (size_t)r * ndigests, ndigests, MPI_UINT64_T, r, 7,
             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int d = 0; d < ndigests; ++d) {
    printf("%s:", labels[d]);
    for (int r = 0; r < np; ++r)
      printf(" %016llx", (unsigned long long)all[(size_t)r * ndigests + d]);
    printf("\n");
  }
  free(all);
}

static int value(int rank, long i) { return (rank * 131 + (int)i * 7) % 1000; }

static void fill_ints(int *v, long n, int rank, int salt) {
  for (long i = 0; i < n; ++i)
    v[i] = value(rank, i + salt);
}

static void fill_bytes(char *v, long n, int rank, int salt) {
  for (long i = 0; i < n; ++i)
    v[i] = (char)(rank * 37 + i * 11 + salt);
}

/* A commutative operator of the program's own: sum modulo 1000003. */
static void mod_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  for (int i = 0; i < *len; ++i)
    ((int *)inout)[i] = (((int *)inout)[i] + ((int *)in)[i]) % 1000003;
}

/* Sums of the strided datatype below (every other int of 250): MPI's own
   operators take only predefined datatypes. */
static void strided_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  for (int i = 0; i < *len * 250; ++i)
    ((int *)inout)[2 * i] += ((int *)in)[2 * i];
}

/* A non-commutative one: 2x2 integer matrix products modulo 1009 (four
   MPI_INTs each). */
static void mat_mul(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  for (int i = 0; i < *len / 4; ++i) {
    int *a = (int *)in + 4 * i, *b = (int *)inout + 4 * i, c[4];
    c[0] = (a[0] * b[0] + a[1] * b[2]) % 1009;
    c[1] = (a[0] * b[1] + a[1] * b[3]) % 1009;
    c[2] = (a[2] * b[0] + a[3] * b[2]) % 1009;
    c[3] = (a[2] * b[1] + a[3] * b[3]) % 1009;
    memcpy(b, c, sizeof c);
  }
}

enum { BCAST, REDUCE, ALLREDUCE, REDUCE_SCATTER, SCAN, EXSCAN, ALLGATHER,
       GATHER, SCATTER, NCOLL };
static const char *names[NCOLL] = {
    "bcast", "reduce", "allreduce", "reduce_scatter_block", "scan",
    "exscan", "allgather", "gather", "scatter"};

static char *sendb, *recvb;
static MPI_Op modsum;

/* One call of collective c on `bytes` bytes (reductions: ints); `root`
   for the rooted ones. */
static void call(int c, long bytes, int root, MPI_Comm comm) {
  long n = bytes / 4 > 0 ? bytes / 4 : 1;
  int size;
  MPI_Comm_size(comm, &size);
  switch (c) {
  case BCAST:
    MPI_Bcast(recvb, (int)bytes, MPI_CHAR, root, comm);
    break;
  case REDUCE:
    MPI_Reduce(sendb, recvb, (int)n, MPI_INT, MPI_SUM, root, comm);
    break;
  case ALLREDUCE:
    MPI_Allreduce(sendb, recvb, (int)n, MPI_INT, modsum, comm);
    break;
  case REDUCE_SCATTER:
    MPI_Reduce_scatter_block(sendb, recvb, (int)n, MPI_INT, MPI_MAX, comm);
    break;
  case SCAN:
    MPI_Scan(sendb, recvb, (int)n, MPI_INT, MPI_SUM, comm);
    break;
  case EXSCAN:
    MPI_Exscan(sendb, recvb, (int)n, MPI_INT, MPI_SUM, comm);
    break;
  case ALLGATHER:
    MPI_Allgather(sendb, (int)bytes, MPI_CHAR, recvb, (int)bytes, MPI_CHAR,
                  comm);
    break;
  case GATHER:
    MPI_Gather(sendb, (int)bytes, MPI_CHAR, recvb, (int)bytes, MPI_CHAR, root,
               comm);
    break;
  case SCATTER:
    MPI_Scatter(sendb, (int)bytes, MPI_CHAR, recvb, (int)bytes, MPI_CHAR,
                root, comm);
    break;
  }
}

/* The bytes of the result of collective c on this rank. */
static size_t result_bytes(int c, long bytes, int size) {
  long n = bytes / 4 > 0 ? bytes / 4 : 1;
  switch (c) {
  case BCAST:
    return (size_t)bytes;
  case ALLGATHER:
  case GATHER:
    return (size_t)bytes * size;
  case SCATTER:
    return (size_t)bytes;
  default:
    return (size_t)n * 4;
  }
}

/* The inputs of collective c: send buffers of every shape, the receive
   buffer cleared (bcast: the root's data). */
static void prepare(int c, long bytes, int root, int rank, int size) {
  long n = bytes / 4 > 0 ? bytes / 4 : 1;
  memset(recvb, 0, result_bytes(c, bytes, size) + 64);
  switch (c) {
  case BCAST:
    if (rank == root)
      fill_bytes(recvb, bytes, rank, 1);
    break;
  case ALLGATHER:
  case GATHER:
    fill_bytes(sendb, bytes, rank, 2);
    break;
  case SCATTER:
    fill_bytes(sendb, bytes * size, rank, 3);
    break;
  case REDUCE_SCATTER:
    fill_ints((int *)sendb, n * size, rank, 4);
    break;
  default:
    fill_ints((int *)sendb, n, rank, c);
  }
}

/* Whether this rank's result of collective c is defined. */
static int has_result(int c, int root, int rank) {
  if (c == REDUCE || c == GATHER)
    return rank == root;
  if (c == EXSCAN)
    return rank > 0;
  return 1;
}

static void run_and_keep(int c, long bytes, int root, MPI_Comm comm,
                         const char *label) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  prepare(c, bytes, root, rank, size);
  call(c, bytes, root, comm);
  if (has_result(c, root, rank))
    keep(label, recvb, result_bytes(c, bytes, size));
  else
    keep(label, "", 0);
}

static char *label(const char *fmt, const char *a, long b) {
  char *s = (char *)malloc(96);
  snprintf(s, 96, fmt, a, b);
  return s;
}

int main(int argc, char **argv) {
  int iterations;
  long maxBytes;
  loop_init(&argc, &argv, &iterations, &maxBytes);
  int timing = argc > 3 && strcmp(argv[3], "timing") == 0;
  const char *only = argc > 4 ? argv[4] : NULL;
  long big = 1 << 20;
  size_t room = (size_t)(maxBytes > big ? maxBytes : big) * np + 64;
  sendb = (char *)malloc(room);
  recvb = (char *)malloc(room);
  MPI_Op_create(mod_sum, 1, &modsum);
  double *times = (double *)malloc(sizeof(double) * iterations);
  double *slowest = (double *)malloc(sizeof(double) * iterations);
  if (me == 0)
    printf("# OSU-style collectives, %d ranks\n"
           "# Collective             Size   Avg Latency(us)   Min Latency(us)"
           "   Max Latency(us) Iterations\n",
           np);
  for (int c = 0; c < NCOLL; ++c) {
    if (only && strcmp(only, names[c]) != 0)
      continue;
    int k = 0;
    for (long bytes = 1; bytes <= maxBytes; bytes *= 4, ++k) {
      int root = (c + k) % np;
      prepare(c, bytes, root, me, np);
      for (int it = 0; it < iterations; ++it) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        call(c, bytes, root, MPI_COMM_WORLD);
        times[it] = MPI_Wtime() - t0;
      }
      /* Rank 0's maximum over ranks, by point-to-point messages. */
      if (me) {
        MPI_Send(times, iterations, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD);
      } else {
        memcpy(slowest, times, sizeof(double) * iterations);
        for (int r = 1; r < np; ++r) {
          MPI_Recv(times, iterations, MPI_DOUBLE, r, 8, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
          for (int it = 0; it < iterations; ++it)
            if (times[it] > slowest[it])
              slowest[it] = times[it];
        }
        double sum = 0, lo = 1e30, hi = 0;
        for (int it = 0; it < iterations; ++it) {
          sum += slowest[it];
          lo = slowest[it] < lo ? slowest[it] : lo;
          hi = slowest[it] > hi ? slowest[it] : hi;
        }
        printf("# %-20s %8ld %17.2f %17.2f %17.2f %10d\n", names[c], bytes,
               1e6 * sum / iterations, 1e6 * lo, 1e6 * hi, iterations);
      }
      run_and_keep(c, bytes, root, MPI_COMM_WORLD,
                   label("%s %ld", names[c], bytes));
    }
  }
  if (timing) {
    print_digests();
    MPI_Op_free(&modsum);
    MPI_Finalize();
    return 0;
  }

  /* 1 MiB: pipelined and chunked schedules. */
  for (int c = 0; c < NCOLL; ++c)
    if (c != GATHER && c != SCATTER && c != ALLGATHER)
      run_and_keep(c, big, np - 1, MPI_COMM_WORLD,
                   label("%s %ld", names[c], big));
  run_and_keep(ALLGATHER, big / np, 0, MPI_COMM_WORLD,
               label("%s %ld", names[ALLGATHER], big / np));

  /* MPI_IN_PLACE. */
  {
    long n = 300;
    fill_ints((int *)recvb, n, me, 5);
    MPI_Allreduce(MPI_IN_PLACE, recvb, (int)n, MPI_INT, MPI_SUM,
                  MPI_COMM_WORLD);
    keep("allreduce in place", recvb, n * 4);
    fill_ints((int *)recvb, n, me, 6);
    fill_ints((int *)sendb, n, me, 6);
    MPI_Reduce(me == 1 % np ? MPI_IN_PLACE : sendb, recvb, (int)n, MPI_INT,
               MPI_MAX, 1 % np, MPI_COMM_WORLD);
    keep("reduce in place", recvb, me == 1 % np ? n * 4 : 0);
    fill_ints((int *)recvb, n * np, me, 7);
    MPI_Reduce_scatter_block(MPI_IN_PLACE, recvb, (int)n, MPI_INT, MPI_SUM,
                             MPI_COMM_WORLD);
    keep("reduce_scatter_block in place", recvb, n * 4);
    fill_ints((int *)recvb, n, me, 8);
    MPI_Scan(MPI_IN_PLACE, recvb, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    keep("scan in place", recvb, n * 4);
    fill_ints((int *)recvb, n, me, 9);
    MPI_Exscan(MPI_IN_PLACE, recvb, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    keep("exscan in place", recvb, me ? n * 4 : 0);
    memset(recvb, 0, 700 * np);
    fill_bytes(recvb + 700 * me, 700, me, 10);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recvb, 700, MPI_CHAR,
                  MPI_COMM_WORLD);
    keep("allgather in place", recvb, 700 * np);
    memset(recvb, 0, 700 * np);
    fill_bytes(recvb + 700 * me, 700, me, 11);
    fill_bytes(sendb, 700, me, 11);
    MPI_Gather(me == 0 ? MPI_IN_PLACE : sendb, 700, MPI_CHAR, recvb, 700,
               MPI_CHAR, 0, MPI_COMM_WORLD);
    keep("gather in place", recvb, me == 0 ? 700 * np : 0);
    fill_bytes(sendb, 700 * np, me, 12);
    memset(recvb, 0, 700);
    MPI_Scatter(sendb, 700, MPI_CHAR, me == 0 ? MPI_IN_PLACE : recvb, 700,
                MPI_CHAR, 0, MPI_COMM_WORLD);
    keep("scatter in place", recvb, me == 0 ? 0 : 700);
  }

  /* A non-contiguous datatype (every other int): packed for a broadcast
     and an allgather, handed back in a reduction. */
  {
    MPI_Datatype strided;
    MPI_Type_vector(250, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    memset(recvb, 0, 4000 * np);
    if (me == np - 1)
      fill_ints((int *)recvb, 500, me, 13);
    MPI_Bcast(recvb, 1, strided, np - 1, MPI_COMM_WORLD);
    keep("bcast strided", recvb, 2000);
    fill_ints((int *)sendb, 250, me, 14);
    memset(recvb, 0, 2000 * np);
    MPI_Allgather(sendb, 250, MPI_INT, recvb, 1, strided, MPI_COMM_WORLD);
    keep("allgather strided", recvb, 2000 * np);
    fill_ints((int *)sendb, 500, me, 15);
    memset(recvb, 0, 2000);
    MPI_Op stridedsum;
    MPI_Op_create(strided_sum, 1, &stridedsum);
    MPI_Allreduce(sendb, recvb, 1, strided, stridedsum, MPI_COMM_WORLD);
    keep("allreduce strided", recvb, 2000);
    MPI_Op_free(&stridedsum);
    MPI_Type_free(&strided);
  }

  /* A non-commutative operator: MPI's order is rank order. */
  {
    MPI_Op matmul;
    MPI_Op_create(mat_mul, 0, &matmul);
    for (int i = 0; i < 64 * 4; ++i)
      ((int *)sendb)[i] = value(me, i) % 17;
    MPI_Allreduce(sendb, recvb, 64 * 4, MPI_INT, matmul, MPI_COMM_WORLD);
    keep("allreduce non-commutative", recvb, 64 * 16);
    MPI_Op_free(&matmul);
  }

  /* Halves of the world in reverse rank order: served, but the scans go to
     MPI (their order is comm rank order). */
  {
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &half);
    run_and_keep(BCAST, 1000, 0, half, "half bcast");
    run_and_keep(ALLREDUCE, 1000, 0, half, "half allreduce");
    run_and_keep(ALLGATHER, 1000, 0, half, "half allgather");
    run_and_keep(GATHER, 1000, 0, half, "half gather");
    run_and_keep(SCATTER, 1000, 0, half, "half scatter");
    run_and_keep(REDUCE_SCATTER, 1000, 0, half, "half reduce_scatter_block");
    run_and_keep(SCAN, 1000, 0, half, "half scan");
    MPI_Comm_free(&half);
  }

  /* MPI_COMM_SELF, a count of zero. */
  run_and_keep(ALLREDUCE, 400, 0, MPI_COMM_SELF, "self allreduce");
  MPI_Allreduce(sendb, recvb, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

  /* An intercommunicator between the halves (at least 2 ranks). */
  if (np >= 2) {
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, me % 2 ? 0 : 1, 99, &inter);
    fill_ints((int *)sendb, 100, me, 16);
    MPI_Allreduce(sendb, recvb, 100, MPI_INT, MPI_SUM, inter);
    keep("intercomm allreduce", recvb, 400);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
  }

  print_digests();
  MPI_Op_free(&modsum);
  MPI_Finalize();
  return 0;
}
