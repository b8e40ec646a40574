/* overlap.c - how much computation the generated nonblocking all-to-all
 * hides, against Open MPI's own MPI_Ialltoall (bench/nonblocking/run.sh).
 *
 * Compiled with the file phasec generates for bench.sched (an all-to-all
 * named `x` of BLOCK bytes per pair, -DBLOCK). Per iteration (after a
 * barrier, the time is the maximum over ranks): the blocking call alone
 * (comm), the computation alone (comp, sized to take about as long as the
 * blocking call), and start / computation in 16 slices with a test after
 * each / wait (both), for phasec's forms and for MPI_Alltoall /
 * MPI_Ialltoall + MPI_Test. Prints the medians and, per form, overlap =
 * (comm + comp - both) / min(comm, comp): 1 is a fully hidden exchange, 0
 * none. The results are checked. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile double sink;

/* About `units` microseconds of floating-point work per unit of 1. */
static void compute(long units) {
  double x = 1.0;
  for (long i = 0; i < units; ++i)
    x = x * 1.0000001 + 1e-9;
  sink = x;
}

static double maxOver(double t) {
  double m;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *t, int n) {
  qsort(t, (size_t)n, sizeof(double), cmp);
  return t[n / 2];
}

enum { kIters = 30, kSlices = 16 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const size_t bytes = (size_t)BLOCK * np;
  char *s = malloc(bytes), *r = malloc(bytes);
  for (size_t i = 0; i < bytes; ++i)
    s[i] = (char)(me * 31 + i / BLOCK);
  double t[kIters];

  /* Each blocking call alone (phasec's, then MPI_Alltoall), then the
     computation sized to match phasec's. */
  double comms[2];
  for (int form = 0; form < 2; ++form) {
    for (int i = 0; i < kIters; ++i) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      if (form == 0)
        x(s, r, MPI_COMM_WORLD);
      else
        MPI_Alltoall(s, BLOCK, MPI_BYTE, r, BLOCK, MPI_BYTE, MPI_COMM_WORLD);
      t[i] = maxOver(MPI_Wtime() - t0);
    }
    comms[form] = median(t, kIters);
  }
  const double comm = comms[0];
  double t0 = MPI_Wtime();
  compute(1000000);
  const double perUnit = maxOver(MPI_Wtime() - t0) / 1e6;
  long units = (long)(comm / perUnit);
  MPI_Bcast(&units, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  for (int i = 0; i < kIters; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    compute(units);
    t[i] = maxOver(MPI_Wtime() - t1);
  }
  const double comp = median(t, kIters);

  int bad = 0;
  double both[2];
  for (int form = 0; form < 2; ++form) {
    for (int i = 0; i < kIters; ++i) {
      memset(r, 0, bytes);
      MPI_Barrier(MPI_COMM_WORLD);
      double t1 = MPI_Wtime();
      MPI_Request req;
      int done = 0;
      if (form == 0)
        x_start(s, r, MPI_COMM_WORLD);
      else
        MPI_Ialltoall(s, BLOCK, MPI_BYTE, r, BLOCK, MPI_BYTE, MPI_COMM_WORLD,
                      &req);
      for (int k = 0; k < kSlices; ++k) {
        compute(units / kSlices);
        if (form == 0)
          x_test(&done);
        else
          MPI_Test(&req, &done, MPI_STATUS_IGNORE);
      }
      if (form == 0)
        x_wait();
      else
        MPI_Wait(&req, MPI_STATUS_IGNORE);
      t[i] = maxOver(MPI_Wtime() - t1);
      for (int q = 0; q < np; ++q)
        bad += r[(size_t)q * BLOCK] != (char)(q * 31 + me) ||
               r[(size_t)q * BLOCK + BLOCK - 1] != (char)(q * 31 + me);
    }
    both[form] = median(t, kIters);
  }
  int badAll = 0;
  MPI_Reduce(&bad, &badAll, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (me == 0) {
    double overlap[2];
    for (int f = 0; f < 2; ++f)
      overlap[f] =
          (comms[f] + comp - both[f]) / (comms[f] < comp ? comms[f] : comp);
    printf("block %d np %d comp_us %.1f | phasec comm_us %.1f both_us %.1f "
           "overlap %.2f | ompi comm_us %.1f both_us %.1f overlap %.2f | %s\n",
           BLOCK, np, comp * 1e6, comms[0] * 1e6, both[0] * 1e6, overlap[0],
           comms[1] * 1e6, both[1] * 1e6, overlap[1],
           badAll ? "WRONG" : "verified");
  }
  phasec_finalize();
  MPI_Finalize();
  return badAll != 0;
}
