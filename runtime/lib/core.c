/*===- core.c - Timers, fill/verify, statistics of the phasec runtime -----===*
 *
 * Part of phasec. Depends on libc only, so that both MPI and OpenSHMEM
 * programs can link it (see phasec_runtime.h for the library layout).
 *
 *===----------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 200809L
#include "phasec_runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void phasec_sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0)
    ;
}

double phasec_wtime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void phasec_fill(void *buf, size_t n, uint64_t a, uint64_t b, uint64_t first) {
  uint8_t *p = (uint8_t *)buf;
  for (size_t i = 0; i < n; ++i)
    p[i] = phasec_pattern_byte(a, b, first + i);
}

void phasec_poison(void *buf, size_t n) { memset(buf, 0xA5, n); }

void phasec_check_init(phasec_check_state *st, int rank, const char *what) {
  st->rank = rank;
  st->what = what;
  st->mismatches = 0;
  st->printed = 0;
  st->max_print = 10;
}

/* Prints one mismatch line unless the budget is used up. */
static void report(phasec_check_state *st, const char *label, size_t offset,
                   uint64_t a, uint64_t b, uint64_t index, uint8_t expected,
                   uint8_t got) {
  ++st->mismatches;
  if (st->printed >= st->max_print)
    return;
  ++st->printed;
  fprintf(stderr,
          "phasec: %s: rank %d: %s byte offset %zu (key %llu -> %llu, index "
          "%llu): expected 0x%02x got 0x%02x\n",
          st->what, st->rank, label, offset, (unsigned long long)a,
          (unsigned long long)b, (unsigned long long)index, expected, got);
}

uint64_t phasec_check(phasec_check_state *st, const char *label,
                      const void *buf, size_t n, uint64_t a, uint64_t b,
                      uint64_t first, size_t offset0) {
  const uint8_t *p = (const uint8_t *)buf;
  uint64_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    uint8_t e = phasec_pattern_byte(a, b, first + i);
    if (p[i] != e) {
      ++bad;
      report(st, label, offset0 + i, a, b, first + i, e, p[i]);
    }
  }
  return bad;
}

void phasec_fill_matrix(void *buf, size_t elem, size_t rows, size_t cols,
                        size_t ld, uint64_t row0, uint64_t col0) {
  uint8_t *p = (uint8_t *)buf;
  for (size_t i = 0; i < rows; ++i)
    for (size_t j = 0; j < cols; ++j)
      for (size_t k = 0; k < elem; ++k)
        p[(i * ld + j) * elem + k] = phasec_pattern_byte(row0 + i, col0 + j, k);
}

uint64_t phasec_check_transposed(phasec_check_state *st, const void *buf,
                                 size_t elem, size_t rows, size_t cols,
                                 size_t ld, uint64_t row0, uint64_t col0) {
  const uint8_t *p = (const uint8_t *)buf;
  uint64_t bad = 0;
  for (size_t i = 0; i < rows; ++i)
    for (size_t j = 0; j < cols; ++j)
      for (size_t k = 0; k < elem; ++k) {
        size_t off = (i * ld + j) * elem + k;
        /* B(r, c) = A(c, r). */
        uint8_t e = phasec_pattern_byte(col0 + j, row0 + i, k);
        if (p[off] != e) {
          ++bad;
          report(st, "transposed element", off, col0 + j, row0 + i, k, e,
                 p[off]);
        }
      }
  return bad;
}

static int cmpDouble(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

phasec_stats phasec_stats_of(const double *t, int n) {
  phasec_stats s = {0, 0, 0, 0, n};
  if (n <= 0)
    return s;
  double *c = (double *)malloc(sizeof(double) * (size_t)n);
  if (!c) {
    fprintf(stderr, "phasec: out of memory in phasec_stats_of\n");
    exit(2);
  }
  memcpy(c, t, sizeof(double) * (size_t)n);
  qsort(c, (size_t)n, sizeof(double), cmpDouble);
  double sum = 0;
  for (int i = 0; i < n; ++i)
    sum += c[i];
  s.avg = sum / n;
  s.min = c[0];
  s.max = c[n - 1];
  s.median = (n % 2) ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
  free(c);
  return s;
}

void phasec_print_header(const char *title) {
  printf("# %s\n", title);
  printf("# %-10s %18s %18s %18s %12s\n", "Size", "Avg Latency(us)",
         "Min Latency(us)", "Max Latency(us)", "Iterations");
  fflush(stdout);
}

void phasec_print_timing(size_t bytes, const phasec_stats *s) {
  printf("%-12zu %18.2f %18.2f %18.2f %12d\n", bytes, s->avg * 1e6,
         s->min * 1e6, s->max * 1e6, s->iterations);
  fflush(stdout);
}

long phasec_env_long(const char *name, long dflt) {
  const char *v = getenv(name);
  if (!v || !*v)
    return dflt;
  long x = strtol(v, NULL, 10);
  return x > 0 ? x : dflt;
}

void *phasec_xmalloc(size_t bytes, const char *what, const char *file,
                     int line) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "%s:%d: phasec: out of memory allocating %zu bytes for %s\n",
            file, line, bytes, what);
    exit(2);
  }
  return p;
}
