/*===- calib_mpi.c - MPI latency, set-up, bandwidth and barrier probes ----===*
 *
 * Part of phasec's calibration bench (bench/calibrate/run.sh, issue 12).
 *
 *   calib_mpi [-p PROBES] [-i ITERS] [-w WARMUP] [-n BURST] [-b BIG_BYTES]
 *             [-k BARRIERS]
 *
 * PROBES is a comma list of
 *   latency    ping-pong of 8-byte messages between ranks 0 and 1: one
 *              iteration is a round trip, reported as half of it (one way);
 *   burst      rank 0 posts n = 1 and n = BURST 8-byte MPI_Isend + one
 *              MPI_Waitall to rank 1, whose receives are posted first, and
 *              waits for rank 1's 0-byte acknowledgement: the set-up cost of
 *              one message is (T(BURST) - T(1)) / (BURST - 1), the part of a
 *              message that does not overlap with the next one (a phase of
 *              phasec's generated code posts its sends the same way);
 *   bandwidth  ping-pong of BIG_BYTES (one way = half a round trip);
 *   barrier    K MPI_Barrier calls back to back over all ranks: one
 *              iteration is K calls, reported per call.
 * Ranks other than 0 and 1 only take part in the barrier probe.
 *
 * Every probe prints one line on rank 0,
 *   probe=NAME np=P bytes=B n=N best_us=X median_us=Y iters=I
 * best = the fastest iteration, median = the median iteration (per message
 * or per call as above); run.sh collects them over launches.
 *
 * It uses MPI and libc only, not phasec-runtime, so that the same source
 * builds with smpicc for SimGrid's SMPI: there MPI_Wtime is the simulated
 * clock (phasec-runtime's phasec_wtime would read the host's clock).
 *
 *===----------------------------------------------------------------------===*/
#include "calib_common.h"

#include <mpi.h>

static int rank, np;

/* Rank 0 prints the probe's line. */
#define REPORT(probe, bytes, n_msgs, t, iters)                                 \
  do {                                                                         \
    if (rank == 0)                                                             \
      calib_report(probe, np, bytes, n_msgs, t, iters);                        \
  } while (0)

static void check(int rc, const char *call, int line) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "calib_mpi.c:%d: rank %d: %s failed: %s\n", line, rank,
            call, msg);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
}
#define CHECK(call) check((call), #call, __LINE__)

static void *xmalloc(size_t bytes, const char *what) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr,
            "calib_mpi: rank %d: out of memory allocating %zu bytes "
            "for %s\n",
            rank, bytes, what);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return p;
}

/* Round trips of `bytes` between ranks 0 and 1; t[it] = half the trip. */
static void pingpong(char *buf, long bytes, int iters, int warmup, double *t) {
  for (int it = -warmup; it < iters; ++it) {
    double t0 = MPI_Wtime();
    if (rank == 0) {
      CHECK(MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD));
      CHECK(MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE));
    } else if (rank == 1) {
      CHECK(MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE));
      CHECK(MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD));
    }
    if (it >= 0)
      t[it] = (MPI_Wtime() - t0) / 2;
  }
}

/* One burst of n 8-byte messages from rank 0 to rank 1 (receives posted
 * before rank 0 starts its clock), until rank 1's acknowledgement. */
static double burst_once(char *buf, int n, MPI_Request *req) {
  double t = 0;
  if (rank == 1) {
    for (int m = 0; m < n; ++m)
      CHECK(MPI_Irecv(buf + 8 * m, 8, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &req[m]));
    CHECK(MPI_Send(NULL, 0, MPI_BYTE, 0, 4, MPI_COMM_WORLD)); /* ready */
    CHECK(MPI_Waitall(n, req, MPI_STATUSES_IGNORE));
    CHECK(MPI_Send(NULL, 0, MPI_BYTE, 0, 5, MPI_COMM_WORLD)); /* done */
  } else if (rank == 0) {
    CHECK(MPI_Recv(NULL, 0, MPI_BYTE, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    double t0 = MPI_Wtime();
    for (int m = 0; m < n; ++m)
      CHECK(MPI_Isend(buf + 8 * m, 8, MPI_BYTE, 1, 3, MPI_COMM_WORLD, &req[m]));
    CHECK(MPI_Waitall(n, req, MPI_STATUSES_IGNORE));
    CHECK(MPI_Recv(NULL, 0, MPI_BYTE, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    t = MPI_Wtime() - t0;
  }
  return t;
}

int main(int argc, char **argv) {
  calib_options o = calib_parse(argc, argv, "calib_mpi");
  CHECK(MPI_Init(&argc, &argv));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK(MPI_Comm_size(MPI_COMM_WORLD, &np));
  const char *probes = o.probes;
  int iters = o.iters, warmup = o.warmup, burst = o.burst;
  long big = o.big;
  int pair = calib_has(probes, "latency") || calib_has(probes, "burst") ||
             calib_has(probes, "bandwidth");
  if (pair && np < 2) {
    if (rank == 0)
      fprintf(stderr, "calib_mpi: latency, burst and bandwidth need at least "
                      "2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  double *t = xmalloc(sizeof(double) * (size_t)iters, "times");
  double *t1 = xmalloc(sizeof(double) * (size_t)iters, "times");
  char *buf = xmalloc((size_t)(big > 8L * burst ? big : 8L * burst), "buffer");
  memset(buf, 1, (size_t)(big > 8L * burst ? big : 8L * burst));
  MPI_Request *req = xmalloc(sizeof(MPI_Request) * (size_t)burst, "requests");

  if (calib_has(probes, "latency")) {
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    pingpong(buf, 8, iters, warmup, t);
    REPORT("latency", 8, 1, t, iters);
  }
  if (calib_has(probes, "burst")) {
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    /* n = 1 and n = BURST alternate, so that both see the same noise. */
    for (int it = -warmup; it < iters; ++it) {
      double a = burst_once(buf, 1, req);
      double b = burst_once(buf, burst, req);
      if (it >= 0) {
        t1[it] = a;
        t[it] = b;
      }
    }
    REPORT("burst", 8, 1, t1, iters);
    REPORT("burst", 8, burst, t, iters);
  }
  if (calib_has(probes, "bandwidth")) {
    int bi, bw;
    calib_big_iters(&o, &bi, &bw);
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    pingpong(buf, big, bi, bw, t);
    REPORT("bandwidth", big, 1, t, bi);
  }
  if (calib_has(probes, "barrier")) {
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    for (int it = -warmup; it < iters; ++it) {
      double t0 = MPI_Wtime();
      for (int k = 0; k < o.barriers; ++k)
        CHECK(MPI_Barrier(MPI_COMM_WORLD));
      if (it >= 0)
        t[it] = (MPI_Wtime() - t0) / o.barriers;
    }
    REPORT("barrier", 0, o.barriers, t, iters);
  }
  free(req);
  free(buf);
  free(t1);
  free(t);
  CHECK(MPI_Finalize());
  return 0;
}
