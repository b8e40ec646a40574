/*===- calib_common.h - what the calibration probes share -----------------===*
 *
 * Part of phasec's calibration bench (bench/calibrate/run.sh, issue 12):
 * the options of calib_mpi.c and calib_shmem.c and the one output line of
 * every probe. Header-only C with libc alone, so that calib_mpi.c still
 * builds with smpicc (SimGrid) without phasec-runtime.
 *
 *===----------------------------------------------------------------------===*/
#ifndef CALIB_COMMON_H
#define CALIB_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The options of the communication probes (calib_mpi, calib_shmem). */
typedef struct {
  const char *probes; /* comma list: latency,burst,bandwidth,barrier */
  int iters, warmup;  /* timed and untimed iterations of each probe */
  int burst;          /* messages in the long burst */
  long big;           /* bytes of the bandwidth ping-pong */
  int barriers;       /* barrier calls per timed iteration */
} calib_options;

static inline void calib_usage(const char *prog, const char *why) {
  fprintf(stderr,
          "%s: %s\nusage: %s [-p latency,burst,bandwidth,barrier] "
          "[-i ITERS] [-w WARMUP] [-n BURST] [-b BIG_BYTES] [-k BARRIERS]\n",
          prog, why, prog);
  exit(2);
}

/* Parses the options, before MPI_Init / shmem_init, so that a bad one stops
 * every process alike with status 2. */
static inline calib_options calib_parse(int argc, char **argv,
                                        const char *prog) {
  calib_options o = {
      "latency,burst,bandwidth,barrier", 1000, 100, 64, 16L << 20, 100};
  for (int i = 1; i < argc; ++i) {
    if (i + 1 >= argc)
      calib_usage(prog, "missing value after an option");
    if (!strcmp(argv[i], "-p"))
      o.probes = argv[++i];
    else if (!strcmp(argv[i], "-i"))
      o.iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-w"))
      o.warmup = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-n"))
      o.burst = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-b"))
      o.big = atol(argv[++i]);
    else if (!strcmp(argv[i], "-k"))
      o.barriers = atoi(argv[++i]);
    else {
      fprintf(stderr, "%s: unknown option '%s'\n", prog, argv[i]);
      calib_usage(prog, "options are -p -i -w -n -b -k");
    }
  }
  /* Every name in the probe list must be known: a misspelt probe would
   * otherwise be skipped without a word. */
  for (const char *p = o.probes; *p;) {
    size_t len = strcspn(p, ",");
    if (!((len == 7 && !strncmp(p, "latency", len)) ||
          (len == 5 && !strncmp(p, "burst", len)) ||
          (len == 9 && !strncmp(p, "bandwidth", len)) ||
          (len == 7 && !strncmp(p, "barrier", len)))) {
      fprintf(stderr, "%s: unknown probe '%.*s'\n", prog, (int)len, p);
      calib_usage(prog, "probes are latency, burst, bandwidth, barrier");
    }
    p += len + (p[len] == ',');
  }
  if (o.iters < 1 || o.warmup < 0 || o.burst < 2 || o.big < 8 ||
      o.big > (1L << 30) || o.barriers < 1)
    calib_usage(prog, "bad value: need ITERS >= 1, WARMUP >= 0, BURST >= 2, "
                      "8 <= BIG_BYTES <= 1 GiB, BARRIERS >= 1");
  return o;
}

/* Whether the comma list `list` holds `name`. */
static inline int calib_has(const char *list, const char *name) {
  size_t len = strlen(name);
  for (const char *p = list; (p = strstr(p, name)); p += len)
    if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == '\0'))
      return 1;
  return 0;
}

/* Iterations of the bandwidth probe: big messages need a tenth of the
 * others, at least 5 (at most ITERS) and at most 50 (a 64 MiB round trip
 * takes tens of ms here). */
static inline void calib_big_iters(const calib_options *o, int *iters,
                                   int *warmup) {
  *iters = o->iters / 10;
  if (*iters > 50)
    *iters = 50;
  if (*iters < 5)
    *iters = 5;
  if (*iters > o->iters)
    *iters = o->iters;
  *warmup = o->warmup / 10 > 1 ? o->warmup / 10 : 1;
}

static inline int calib_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The line run.sh's calibrate.py reads, from per-iteration times t[0..iters)
 * in seconds (sorted here):
 *   probe=NAME np=P bytes=B n=N best_us=X median_us=Y iters=I */
static inline void calib_report(const char *probe, int np, long bytes,
                                int n_msgs, double *t, int iters) {
  qsort(t, (size_t)iters, sizeof(double), calib_cmp_double);
  printf("probe=%s np=%d bytes=%ld n=%d best_us=%.4f median_us=%.4f "
         "iters=%d\n",
         probe, np, bytes, n_msgs, t[0] * 1e6, t[iters / 2] * 1e6, iters);
  fflush(stdout);
}

#endif /* CALIB_COMMON_H */
