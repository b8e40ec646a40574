/*===- mpi_nearest.c - Open MPI's nearest collectives for bench/papers ----===*
 *
 * Part of phasec's benchmarks: for each PAPERS aggregate of seed 004's
 * timing tables, the Open MPI collective that does the nearest work on one
 * value per rank (MPI_Barrier for wait, MPI_Allgather for putget, gather,
 * rank, vote, match and waitvec, MPI_Allreduce for reduce, any and all,
 * MPI_Scan for scan, MPI_Bcast for bcast), timed like the generated
 * harness: a barrier, every rank times the call, an iteration's time is
 * the maximum over ranks; the median over the iterations is printed as
 *
 *   # NAME: median X us
 *
 * with NAME = barrier, allgather_T, allreduce_OP_T, scan_OP_T, bcast_T for
 * T in int8 int16 int32 int64 f32 f64 and OP in add mul min max and or
 * (and/or on integers). Each result is checked against a serial
 * evaluation.
 *
 *   mpi_nearest [-i ITERS] [-w WARMUP]
 *
 *===----------------------------------------------------------------------===*/
#include "phasec_runtime_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int iters = 1000, warmup = 100, rank, size;
static uint64_t bad;

/* Times `body` (a statement) and prints the median under `name`. */
#define TIME(name, body)                                                       \
  do {                                                                         \
    double *t_ = PHASEC_XMALLOC(sizeof(double) * (size_t)iters, "times");      \
    for (int it = -warmup; it < iters; ++it) {                                 \
      PHASEC_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));                           \
      const double t0 = phasec_wtime();                                        \
      body;                                                                    \
      if (it >= 0)                                                             \
        t_[it] = phasec_wtime() - t0;                                          \
    }                                                                          \
    phasec_stats st_ = phasec_mpi_reduce_times(MPI_COMM_WORLD, t_, iters);     \
    if (rank == 0)                                                             \
      printf("# %s: median %.2f us\n", name, st_.median * 1e6);                \
    free(t_);                                                                  \
  } while (0)

/* One type: its MPI datatype, C type and name. Values are small integers,
   exact under every operator and order. */
#define TYPE_BENCH(T, MT, TNAME, INTEGER)                                      \
  static void bench_##TNAME(void) {                                            \
    char name[64];                                                             \
    T mine = (T)(rank % 3 + 1), all[64], out;                                  \
    snprintf(name, sizeof name, "allgather_%s", #TNAME);                       \
    TIME(name, PHASEC_MPI_CHECK(MPI_Allgather(&mine, 1, MT, all, 1, MT,        \
                                              MPI_COMM_WORLD)));               \
    for (int r = 0; r < size; ++r)                                             \
      bad += all[r] != (T)(r % 3 + 1);                                         \
    snprintf(name, sizeof name, "bcast_%s", #TNAME);                           \
    TIME(name, {                                                               \
      out = mine;                                                              \
      PHASEC_MPI_CHECK(MPI_Bcast(&out, 1, MT, it < 0 ? 0 : it % size,         \
                                 MPI_COMM_WORLD));                             \
    });                                                                        \
    const char *ops[] = {"add", "mul", "min", "max", "and", "or"};             \
    MPI_Op mops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_BAND, MPI_BOR};  \
    for (int o = 0; o < (INTEGER ? 6 : 4); ++o) {                              \
      for (int scan = 0; scan < 2; ++scan) {                                   \
        snprintf(name, sizeof name, "%s_%s_%s",                                \
                 scan ? "scan" : "allreduce", ops[o], #TNAME);                 \
        if (scan)                                                              \
          TIME(name, PHASEC_MPI_CHECK(MPI_Scan(&mine, &out, 1, MT, mops[o],   \
                                               MPI_COMM_WORLD)));              \
        else                                                                   \
          TIME(name, PHASEC_MPI_CHECK(MPI_Allreduce(&mine, &out, 1, MT,       \
                                                    mops[o],                   \
                                                    MPI_COMM_WORLD)));         \
        T want = (T)1;                                                         \
        for (int r = 0; r <= (scan ? rank : size - 1); ++r) {                  \
          T v = (T)(r % 3 + 1);                                                \
          if (r == 0)                                                          \
            want = v;                                                          \
          else if (o == 0)                                                     \
            want = (T)(want + v);                                              \
          else if (o == 1)                                                     \
            want = (T)(want * v);                                              \
          else if (o == 2)                                                     \
            want = v < want ? v : want;                                        \
          else if (o == 3)                                                     \
            want = v > want ? v : want;                                        \
          else                                                                 \
            want = BITWISE(o, want, v);                                        \
        }                                                                      \
        bad += out != want;                                                    \
      }                                                                        \
    }                                                                          \
  }

#define BITWISE(o, a, b) ((o) == 4 ? ((a) & (b)) : ((a) | (b)))
TYPE_BENCH(int8_t, MPI_INT8_T, int8, 1)
TYPE_BENCH(int16_t, MPI_INT16_T, int16, 1)
TYPE_BENCH(int32_t, MPI_INT32_T, int32, 1)
TYPE_BENCH(int64_t, MPI_INT64_T, int64, 1)
#undef BITWISE
#define BITWISE(o, a, b) (a)
TYPE_BENCH(float, MPI_FLOAT, f32, 0)
TYPE_BENCH(double, MPI_DOUBLE, f64, 0)

int main(int argc, char **argv) {
  phasec_mpi_init(&argc, &argv);
  for (int i = 1; i + 1 < argc; ++i) {
    if (!strcmp(argv[i], "-i"))
      iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-w"))
      warmup = atoi(argv[++i]);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 64) {
    if (rank == 0)
      fprintf(stderr, "mpi_nearest: at most 64 ranks\n");
    phasec_mpi_finalize();
    return 2;
  }
  TIME("barrier", PHASEC_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD)));
  bench_int8();
  bench_int16();
  bench_int32();
  bench_int64();
  bench_f32();
  bench_f64();
  bad = phasec_mpi_sum(MPI_COMM_WORLD, bad);
  if (rank == 0)
    printf(bad ? "# FAILED: %llu wrong results\n" : "# OK: every result verified\n",
           (unsigned long long)bad);
  phasec_mpi_finalize();
  return bad ? 1 : 0;
}
