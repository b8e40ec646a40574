/*===- calib_copy.c - local copy rates: contiguous, strided, gather -------===*
 *
 * Part of phasec's calibration bench (bench/calibrate/run.sh, issue 12):
 * the local copies a packed or chained schedule pays (seed 000's copy
 * primitives), one core, on buffers of MIB MiB (run.sh picks sizes well
 * above the last-level cache, so that memory, not cache, is measured).
 *
 *   calib_copy [-m MIB] [-i ITERS] [-w WARMUP]
 *
 * Probes, each over the whole buffer of 8-byte elements:
 *   contiguous  memcpy;
 *   pack        an R x C row-major matrix (R = C = floor(sqrt(elements)))
 *               read column by column into a contiguous buffer: for each
 *               column j, out[j * R + i] = A[i * C + j] (packing a column of
 *               a transposed block; stride C * 8 bytes);
 *   unpack      the reverse: A[i * C + j] = in[j * R + i];
 *   gather      dst[i] = src[perm[i]], perm a random permutation (fixed
 *               seed) of 32-bit indices;
 *   scatter     dst[perm[i]] = src[i].
 * The rate counts payload bytes once (elements x 8 bytes / time), not the
 * bytes read plus the bytes written nor the index array, as the model's
 * copy_rate.* does: bytes moved per second of copying.
 *
 * Output: one line per probe,
 *   probe=copy.NAME np=1 bytes=B n=1 best_us=X median_us=Y iters=I
 * Every result is checked; a wrong element prints a message and the
 * program exits 1.
 *
 *===----------------------------------------------------------------------===*/
#include "calib_common.h"
#include "phasec_runtime.h"

#include <math.h>

static void fail(const char *probe, size_t i, double got, double want) {
  fprintf(stderr, "calib_copy: %s: element %zu is %g, not %g\n", probe, i, got,
          want);
  exit(1);
}

static void usage(const char *why) {
  fprintf(stderr,
          "calib_copy: %s\nusage: calib_copy [-m MIB] [-i ITERS] "
          "[-w WARMUP]\n",
          why);
  exit(2);
}

/* xorshift64*: a fixed, portable sequence (the same permutation on every
 * run, so that runs compare). */
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 0x2545F4914F6CDD1Dull;
}

enum { CONTIGUOUS, PACK, UNPACK, GATHER, SCATTER, NPROBES };
static const char *names[NPROBES] = {"contiguous", "pack", "unpack", "gather",
                                     "scatter"};

int main(int argc, char **argv) {
  long mib = 256;
  int iters = 10, warmup = 2;
  for (int i = 1; i < argc; ++i) {
    if (i + 1 >= argc)
      usage("missing value after an option");
    if (!strcmp(argv[i], "-m"))
      mib = atol(argv[++i]);
    else if (!strcmp(argv[i], "-i"))
      iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-w"))
      warmup = atoi(argv[++i]);
    else {
      fprintf(stderr, "calib_copy: unknown option '%s'\n", argv[i]);
      usage("options are -m -i -w");
    }
  }
  if (mib < 1 || mib > 4096 || iters < 1 || warmup < 0)
    usage("bad value: need 1 <= MIB <= 4096, ITERS >= 1, WARMUP >= 0");
  size_t n = (size_t)mib << 17; /* 8-byte elements */
  size_t side = (size_t)sqrt((double)n);
  while ((side + 1) * (side + 1) <= n)
    ++side;
  while (side * side > n)
    --side;
  double *src = PHASEC_XMALLOC(n * sizeof(double), "source");
  double *dst = PHASEC_XMALLOC(n * sizeof(double), "destination");
  uint32_t *perm = PHASEC_XMALLOC(n * sizeof(uint32_t), "permutation");
  /* Touch every page before timing (first-touch faults are not copies). */
  for (size_t i = 0; i < n; ++i) {
    src[i] = (double)i;
    dst[i] = -1;
    perm[i] = (uint32_t)i;
  }
  for (size_t i = n - 1; i > 0; --i) { /* Fisher-Yates */
    size_t j = (size_t)(next_random() % (i + 1));
    uint32_t x = perm[i];
    perm[i] = perm[j];
    perm[j] = x;
  }
  double *t[NPROBES];
  for (int p = 0; p < NPROBES; ++p)
    t[p] = PHASEC_XMALLOC(sizeof(double) * (size_t)iters, "times");

  /* The probes take turns within each iteration, so that all see the same
   * phases of the machine's noise. */
  for (int it = -warmup; it < iters; ++it) {
    for (int p = 0; p < NPROBES; ++p) {
      double t0 = phasec_wtime();
      switch (p) {
      case CONTIGUOUS:
        memcpy(dst, src, n * sizeof(double));
        break;
      case PACK:
        for (size_t j = 0; j < side; ++j)
          for (size_t i = 0; i < side; ++i)
            dst[j * side + i] = src[i * side + j];
        break;
      case UNPACK:
        for (size_t j = 0; j < side; ++j)
          for (size_t i = 0; i < side; ++i)
            dst[i * side + j] = src[j * side + i];
        break;
      case GATHER:
        for (size_t i = 0; i < n; ++i)
          dst[i] = src[perm[i]];
        break;
      case SCATTER:
        for (size_t i = 0; i < n; ++i)
          dst[perm[i]] = src[i];
        break;
      }
      double dt = phasec_wtime() - t0;
      if (it >= 0)
        t[p][it] = dt;
      /* Check what this probe wrote (outside the timed region). */
      for (size_t k = 0, i = 0; k < 1024; ++k, i = (i + 7919) % n) {
        double want;
        size_t ii = i;
        switch (p) {
        case CONTIGUOUS:
          want = src[i];
          break;
        case PACK: /* dst[j * side + i'] = src[i' * side + j] */
          ii = i % (side * side);
          want = src[(ii % side) * side + ii / side];
          break;
        case UNPACK:
          ii = i % (side * side);
          want = src[(ii % side) * side + ii / side];
          break;
        case GATHER:
          want = src[perm[i]];
          break;
        default: /* SCATTER: dst[perm[i]] = src[i] */
          ii = perm[i];
          want = src[i];
          break;
        }
        if (dst[ii] != want)
          fail(names[p], ii, dst[ii], want);
      }
    }
  }
  size_t bytes[NPROBES] = {n * sizeof(double), side * side * sizeof(double),
                           side * side * sizeof(double), n * sizeof(double),
                           n * sizeof(double)};
  for (int p = 0; p < NPROBES; ++p) {
    char probe[32];
    snprintf(probe, sizeof probe, "copy.%s", names[p]);
    calib_report(probe, 1, (long)bytes[p], 1, t[p], iters);
  }
  for (int p = 0; p < NPROBES; ++p)
    free(t[p]);
  free(perm);
  free(dst);
  free(src);
  return 0;
}
