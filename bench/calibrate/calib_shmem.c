/*===- calib_shmem.c - OpenSHMEM latency, set-up, bandwidth and barrier ---===*
 *
 * Part of phasec's calibration bench (bench/calibrate/run.sh, issue 12):
 * the probes of calib_mpi.c with OpenSHMEM 1.4 one-sided puts, the way
 * phasec's generated SHMEM code moves data.
 *
 *   calib_shmem [-p PROBES] [-i ITERS] [-w WARMUP] [-n BURST]
 *               [-b BIG_BYTES] [-k BARRIERS]
 *
 * PROBES is a comma list of
 *   latency    ping-pong between PEs 0 and 1: a put of 8 bytes, shmem_fence,
 *              a put of a flag the other PE waits on, then the same back;
 *              one way = half the round trip;
 *   burst      PE 0 issues n = 1 and n = BURST shmem_putmem_nbi of 8 bytes
 *              to PE 1 and one shmem_quiet (a phase of the generated code:
 *              non-blocking puts, then completion): the set-up cost of one
 *              put is (T(BURST) - T(1)) / (BURST - 1);
 *   bandwidth  the ping-pong of BIG_BYTES;
 *   barrier    K shmem_barrier_all calls back to back: per call.
 * PEs other than 0 and 1 only take part in the barrier probe.
 *
 * Output: one line per probe on PE 0, as calib_mpi.c:
 *   probe=NAME np=P bytes=B n=N best_us=X median_us=Y iters=I
 *
 *===----------------------------------------------------------------------===*/
#include "calib_common.h"
#include "phasec_runtime_shmem.h"

static int me, npes;

/* PE 0 prints the probe's line. */
#define REPORT(probe, bytes, n_msgs, t, iters)                                 \
  do {                                                                         \
    if (me == 0)                                                               \
      calib_report(probe, npes, bytes, n_msgs, t, iters);                      \
  } while (0)

/* Flags the ping-pong waits on: the sequence number of the last arrival. */
static long *ping, *pong;

/* Round trips of `bytes` between PEs 0 and 1; t[it] = half the trip.
 * `seq` continues across calls so that a flag never repeats. */
static void pingpong(char *buf, long bytes, int iters, int warmup, double *t,
                     long *seq) {
  for (int it = -warmup; it < iters; ++it) {
    long s = ++*seq;
    double t0 = phasec_wtime();
    if (me == 0) {
      shmem_putmem(buf, buf, (size_t)bytes, 1);
      shmem_fence(); /* the data before the flag */
      shmem_long_p(ping, s, 1);
      shmem_long_wait_until(pong, SHMEM_CMP_GE, s);
    } else if (me == 1) {
      shmem_long_wait_until(ping, SHMEM_CMP_GE, s);
      shmem_putmem(buf, buf, (size_t)bytes, 0);
      shmem_fence();
      shmem_long_p(pong, s, 0);
    }
    if (it >= 0)
      t[it] = (phasec_wtime() - t0) / 2;
  }
}

/* n non-blocking 8-byte puts from PE 0 to PE 1 and their completion. */
static double burst_once(char *buf, int n) {
  double t0 = phasec_wtime();
  for (int m = 0; m < n; ++m)
    shmem_putmem_nbi(buf + 8 * m, buf + 8 * m, 8, 1);
  shmem_quiet();
  return phasec_wtime() - t0;
}

int main(int argc, char **argv) {
  calib_options o = calib_parse(argc, argv, "calib_shmem");
  const char *probes = o.probes;
  int iters = o.iters, warmup = o.warmup, burst = o.burst;
  long big = o.big;
  size_t bytes = (size_t)(big > 8L * burst ? big : 8L * burst);
  phasec_shmem_init(bytes + 2 * sizeof(long));
  me = shmem_my_pe();
  npes = shmem_n_pes();
  int pair = calib_has(probes, "latency") || calib_has(probes, "burst") ||
             calib_has(probes, "bandwidth");
  if (pair && npes < 2)
    phasec_shmem_fail("latency, burst and bandwidth need at least 2 PEs",
                      __FILE__, __LINE__);
  char *buf = PHASEC_SHMEM_MALLOC(bytes, "buffer");
  ping = PHASEC_SHMEM_MALLOC(sizeof(long), "ping flag");
  pong = PHASEC_SHMEM_MALLOC(sizeof(long), "pong flag");
  memset(buf, 1, bytes);
  *ping = *pong = 0;
  double *t = PHASEC_XMALLOC(sizeof(double) * (size_t)iters, "times");
  double *t1 = PHASEC_XMALLOC(sizeof(double) * (size_t)iters, "times");
  long seq = 0;
  shmem_barrier_all();

  if (calib_has(probes, "latency")) {
    pingpong(buf, 8, iters, warmup, t, &seq);
    shmem_barrier_all();
    REPORT("latency", 8, 1, t, iters);
  }
  if (calib_has(probes, "burst")) {
    if (me == 0)
      /* n = 1 and n = BURST alternate, so that both see the same noise. */
      for (int it = -warmup; it < iters; ++it) {
        double a = burst_once(buf, 1);
        double b = burst_once(buf, burst);
        if (it >= 0) {
          t1[it] = a;
          t[it] = b;
        }
      }
    shmem_barrier_all();
    REPORT("burst", 8, 1, t1, iters);
    REPORT("burst", 8, burst, t, iters);
  }
  if (calib_has(probes, "bandwidth")) {
    int bi, bw;
    calib_big_iters(&o, &bi, &bw);
    pingpong(buf, big, bi, bw, t, &seq);
    shmem_barrier_all();
    REPORT("bandwidth", big, 1, t, bi);
  }
  if (calib_has(probes, "barrier")) {
    shmem_barrier_all();
    for (int it = -warmup; it < iters; ++it) {
      double t0 = phasec_wtime();
      for (int k = 0; k < o.barriers; ++k)
        shmem_barrier_all();
      if (it >= 0)
        t[it] = (phasec_wtime() - t0) / o.barriers;
    }
    REPORT("barrier", 0, o.barriers, t, iters);
  }
  free(t1);
  free(t);
  shmem_free(pong);
  shmem_free(ping);
  shmem_free(buf);
  phasec_shmem_finalize();
  return 0;
}
