/*===- phasec_sim_coll.c - A plain MPI collective, timed and verified -----===*
 *
 * Part of phasec. Copied verbatim by `phasec --emit=simgrid` into the output
 * directory of a relaying operation and built with smpicc (see run.sh). It
 * calls the MPI library's own collective, so that SMPI runs the algorithm
 * --cfg=smpi/<collective>:ALGO selects, on the same data as phasec's
 * generated code:
 *
 *   coll KIND COUNT TYPE ROOT ITERS WARMUP
 *
 * KIND is bcast, reduce, allreduce, scan, exscan, reduce_scatter (the block
 * variant, COUNT elements per rank), allgather, gather, scatter, alltoall
 * (COUNT elements per block) or barrier; TYPE is the operation's element
 * type (i8 .. u64, f32, f64; c64 and c128 as pairs of f32 / f64), the MPI
 * type of the same name class (MPI_INT, MPI_DOUBLE, ...: some of SMPI's
 * algorithms accept only those). Reductions sum small integers, exact in
 * every order and type; the other collectives move a pattern of every
 * element. Computation is not simulated (run.sh), so the values change
 * what is verified, not the simulated time.
 *
 * Every iteration: a barrier, then every rank times the call; the time of an
 * iteration is the maximum over the ranks. Rank 0 prints on stdout
 *   PHASEC_SIM_TIME <median over iterations, simulated seconds>
 *   PHASEC_SIM_VERIFIED <wrong elements over all ranks>
 * and the program exits with status 1 if an element is wrong.
 *===----------------------------------------------------------------------===*/

#include "phasec_sim_start.h"
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(int rank, const char *msg) {
  if (rank == 0)
    fprintf(stderr,
            "phasec coll: %s\nusage: coll KIND COUNT TYPE ROOT ITERS "
            "WARMUP\n",
            msg);
  MPI_Abort(MPI_COMM_WORLD, 2);
  exit(2);
}

/* The element types: name, MPI type, size, integer or floating. */
typedef struct {
  const char *name;
  MPI_Datatype mpi;
  int size, isFloat, isSigned;
} Type;

static int findType(const char *name, Type *t) {
  const Type types[] = {{"i8", MPI_SIGNED_CHAR, 1, 0, 1},
                        {"u8", MPI_UNSIGNED_CHAR, 1, 0, 0},
                        {"i16", MPI_SHORT, 2, 0, 1},
                        {"u16", MPI_UNSIGNED_SHORT, 2, 0, 0},
                        {"i32", MPI_INT, 4, 0, 1},
                        {"u32", MPI_UNSIGNED, 4, 0, 0},
                        {"i64", MPI_LONG_LONG, 8, 0, 1},
                        {"u64", MPI_UNSIGNED_LONG_LONG, 8, 0, 0},
                        {"f32", MPI_FLOAT, 4, 1, 1},
                        {"f64", MPI_DOUBLE, 8, 1, 1},
                        {"c64", MPI_FLOAT, 4, 1, 1},
                        {"c128", MPI_DOUBLE, 8, 1, 1}};
  for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); ++i)
    if (!strcmp(types[i].name, name)) {
      *t = types[i];
      return 1;
    }
  return 0;
}

/* What rank m contributes at element i: reductions small integers (exact
 * sums in every type for up to thousands of ranks), else a pattern. */
static int64_t value(int reduction, int64_t m, int64_t i) {
  if (reduction)
    return (m + 1) + (i % 16);
  return (m * 131 + i * 7 + (i >> 8)) & 0x7f;
}

static void put(void *buf, int64_t i, const Type *t, int64_t v) {
  if (t->isFloat) {
    if (t->size == 4)
      ((float *)buf)[i] = (float)v;
    else
      ((double *)buf)[i] = (double)v;
    return;
  }
  switch (t->size) {
  case 1:
    ((uint8_t *)buf)[i] = (uint8_t)v;
    break;
  case 2:
    ((uint16_t *)buf)[i] = (uint16_t)v;
    break;
  case 4:
    ((uint32_t *)buf)[i] = (uint32_t)v;
    break;
  default:
    ((uint64_t *)buf)[i] = (uint64_t)v;
    break;
  }
}

/* Element i as an integer (what `put` of it stored reads back alike). */
static int64_t get(const void *buf, int64_t i, const Type *t) {
  if (t->isFloat)
    return t->size == 4 ? (int64_t)((const float *)buf)[i]
                        : (int64_t)((const double *)buf)[i];
  switch (t->size) {
  case 1:
    return t->isSigned ? ((const int8_t *)buf)[i] : ((const uint8_t *)buf)[i];
  case 2:
    return t->isSigned ? ((const int16_t *)buf)[i] : ((const uint16_t *)buf)[i];
  case 4:
    return t->isSigned ? ((const int32_t *)buf)[i] : ((const uint32_t *)buf)[i];
  default:
    return ((const int64_t *)buf)[i];
  }
}

/* v as the type stores it (wrapped to its width for small integers). */
static int64_t norm(int64_t v, const Type *t) {
  char tmp[8];
  put(tmp, 0, t, v);
  return get(tmp, 0, t);
}

/* The sum of value(m, i) over m in [0, upto), as the type holds it. */
static int64_t sum(int64_t upto, int64_t i, const Type *t) {
  int64_t s = 0;
  for (int64_t m = 0; m < upto; ++m)
    s += value(1, m, i);
  return norm(s, t);
}

static int cmpDouble(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (argc != 7)
    usage(rank, "wrong number of arguments");
  const char *kind = argv[1];
  int64_t count = atoll(argv[2]);
  Type type;
  if (!findType(argv[3], &type))
    usage(rank, "unknown element type");
  int root = atoi(argv[4]);
  int iters = atoi(argv[5]), warmup = atoi(argv[6]);
  if (!strcmp(argv[3], "c64") || !strcmp(argv[3], "c128"))
    count *= 2; /* a complex number is two reals */
  if (count < 0 || count > 2147483647 || root < 0 || root >= P || iters < 1 ||
      warmup < 0)
    usage(rank, "bad argument");
  const int size = type.size;
  const Type *T = &type;
  int reduction = !strcmp(kind, "reduce") || !strcmp(kind, "allreduce") ||
                  !strcmp(kind, "scan") || !strcmp(kind, "exscan") ||
                  !strcmp(kind, "reduce_scatter");

  /* Elements of the send and the receive buffer per rank. */
  int64_t sendN = count, recvN = count;
  int isBarrier = !strcmp(kind, "barrier");
  if (!strcmp(kind, "allgather") || !strcmp(kind, "gather"))
    recvN = count * P;
  else if (!strcmp(kind, "scatter"))
    sendN = count * P;
  else if (!strcmp(kind, "reduce_scatter"))
    sendN = count * P;
  else if (!strcmp(kind, "alltoall"))
    sendN = recvN = count * P;
  else if (!isBarrier && strcmp(kind, "bcast") && strcmp(kind, "reduce") &&
           strcmp(kind, "allreduce") && strcmp(kind, "scan") &&
           strcmp(kind, "exscan"))
    usage(rank, "unknown collective");
  char *s = malloc((size_t)(sendN * size) + 1);
  char *r = malloc((size_t)(recvN * size) + 1);
  if (!s || !r)
    usage(rank, "out of memory");
  /* Send data: element i of what rank m sends; alltoall and scatter: block
   * d's elements are value(m, d * count + j). */
  int isBcast = !strcmp(kind, "bcast");
  for (int64_t i = 0; i < sendN; ++i)
    put(s, i, T, value(reduction, rank, i));
  int cnt = (int)count;

  double *t = malloc(sizeof(double) * (size_t)(iters + warmup));
  for (int it = 0; it < warmup + iters; ++it) {
    if (isBcast)
      for (int64_t i = 0; i < count; ++i)
        put(s, i, T, rank == root ? value(0, root, i) : 0);
    memset(r, 0, (size_t)(recvN * size));
    double t0 = phasec_sim_synchronized_start();
    if (isBcast)
      MPI_Bcast(s, cnt, type.mpi, root, MPI_COMM_WORLD);
    else if (!strcmp(kind, "reduce"))
      MPI_Reduce(s, r, cnt, type.mpi, MPI_SUM, root, MPI_COMM_WORLD);
    else if (!strcmp(kind, "allreduce"))
      MPI_Allreduce(s, r, cnt, type.mpi, MPI_SUM, MPI_COMM_WORLD);
    else if (!strcmp(kind, "scan"))
      MPI_Scan(s, r, cnt, type.mpi, MPI_SUM, MPI_COMM_WORLD);
    else if (!strcmp(kind, "exscan"))
      MPI_Exscan(s, r, cnt, type.mpi, MPI_SUM, MPI_COMM_WORLD);
    else if (!strcmp(kind, "reduce_scatter"))
      MPI_Reduce_scatter_block(s, r, cnt, type.mpi, MPI_SUM, MPI_COMM_WORLD);
    else if (!strcmp(kind, "allgather"))
      MPI_Allgather(s, cnt, type.mpi, r, cnt, type.mpi, MPI_COMM_WORLD);
    else if (!strcmp(kind, "gather"))
      MPI_Gather(s, cnt, type.mpi, r, cnt, type.mpi, root, MPI_COMM_WORLD);
    else if (!strcmp(kind, "scatter"))
      MPI_Scatter(s, cnt, type.mpi, r, cnt, type.mpi, root, MPI_COMM_WORLD);
    else if (!strcmp(kind, "alltoall"))
      MPI_Alltoall(s, cnt, type.mpi, r, cnt, type.mpi, MPI_COMM_WORLD);
    else
      MPI_Barrier(MPI_COMM_WORLD);
    t[it] = MPI_Wtime() - t0;
  }
  double *tmax = malloc(sizeof(double) * (size_t)(iters + warmup));
  MPI_Allreduce(t, tmax, warmup + iters, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  qsort(tmax + warmup, (size_t)iters, sizeof(double), cmpDouble);

  /* Verify the last iteration's result. */
  long long bad = 0;
  if (isBcast) {
    for (int64_t i = 0; i < count; ++i)
      bad += get(s, i, T) != norm(value(0, root, i), T);
  } else if (!strcmp(kind, "reduce")) {
    if (rank == root)
      for (int64_t i = 0; i < count; ++i)
        bad += get(r, i, T) != sum(P, i, T);
  } else if (!strcmp(kind, "allreduce")) {
    for (int64_t i = 0; i < count; ++i)
      bad += get(r, i, T) != sum(P, i, T);
  } else if (!strcmp(kind, "scan")) {
    for (int64_t i = 0; i < count; ++i)
      bad += get(r, i, T) != sum(rank + 1, i, T);
  } else if (!strcmp(kind, "exscan")) {
    if (rank > 0)
      for (int64_t i = 0; i < count; ++i)
        bad += get(r, i, T) != sum(rank, i, T);
  } else if (!strcmp(kind, "reduce_scatter")) {
    for (int64_t i = 0; i < count; ++i)
      bad += get(r, i, T) != sum(P, rank * count + i, T);
  } else if (!strcmp(kind, "allgather") ||
             (!strcmp(kind, "gather") && rank == root)) {
    for (int64_t q = 0; q < P; ++q)
      for (int64_t i = 0; i < count; ++i)
        bad += get(r, q * count + i, T) != norm(value(0, q, i), T);
  } else if (!strcmp(kind, "scatter")) {
    for (int64_t i = 0; i < count; ++i)
      bad += get(r, i, T) != norm(value(0, root, rank * count + i), T);
  } else if (!strcmp(kind, "alltoall")) {
    for (int64_t q = 0; q < P; ++q)
      for (int64_t i = 0; i < count; ++i)
        bad +=
            get(r, q * count + i, T) != norm(value(0, q, rank * count + i), T);
  }
  long long totalBad = 0;
  MPI_Reduce(&bad, &totalBad, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("PHASEC_SIM_TIME %.9e\n", tmax[warmup + (iters - 1) / 2]);
    printf("PHASEC_SIM_VERIFIED %lld\n", totalBad);
    if (totalBad)
      fprintf(stderr, "phasec coll: %s: %lld wrong elements\n", kind, totalBad);
  }
  free(t);
  free(tmax);
  free(s);
  free(r);
  MPI_Finalize();
  return totalBad ? 1 : 0;
}
