/*===- shmem.c - OpenSHMEM part of the phasec runtime ---------------------===*
 *
 * Part of phasec. Only this object references OpenSHMEM symbols (with
 * core.o in the same static archive, see phasec_runtime.h). OpenSHMEM 1.4,
 * no teams: reductions gather to PE 0 with puts, which is plenty for the
 * few hundred doubles of a timing run.
 *
 *===----------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 200809L
#include "phasec_runtime_shmem.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kHeapVar = "SHMEM_SYMMETRIC_HEAP_SIZE";
/* What phasec_shmem_init was told the program allocates, for advice. */
static size_t gNeeded;

size_t phasec_shmem_heap_size(void) {
  const char *v = getenv(kHeapVar);
  if (!v || !*v)
    return PHASEC_SHMEM_DEFAULT_HEAP;
  char *end = NULL;
  unsigned long long x = strtoull(v, &end, 10);
  if (end == v)
    return 0;
  switch (toupper((unsigned char)*end)) {
  case 'K':
    x <<= 10;
    break;
  case 'M':
    x <<= 20;
    break;
  case 'G':
    x <<= 30;
    break;
  case '\0':
    break;
  default:
    return 0;
  }
  return (size_t)x;
}

size_t phasec_shmem_heap_request_mib(size_t needed) {
  size_t want = needed + needed / 4 + ((size_t)64 << 20);
  return (want + ((size_t)1 << 20) - 1) >> 20;
}

void phasec_shmem_init(size_t needed) {
  size_t want = phasec_shmem_heap_request_mib(needed);
  gNeeded = needed;
  const char *v = getenv(kHeapVar);
  int explicitTooSmall = 0;
  if (!v || !*v) {
    if (((size_t)want << 20) > PHASEC_SHMEM_DEFAULT_HEAP) {
      char buf[64];
      snprintf(buf, sizeof buf, "%zuM", want);
      setenv(kHeapVar, buf, 1);
    }
  } else if (phasec_shmem_heap_size() < needed) {
    explicitTooSmall = 1;
  }
  shmem_init();
  if (!explicitTooSmall)
    return;
  if (shmem_my_pe() == 0) {
    fprintf(stderr,
            "phasec: note: %s=%s is smaller than the %zu bytes of symmetric "
            "data this program allocates; set %s=%zuM\n",
            kHeapVar, v, needed, kHeapVar, want);
    fflush(stderr);
  }
  /* No PE may fail its allocation (and take the job down) before PE 0 has
     said why. */
  shmem_barrier_all();
}

void phasec_shmem_finalize(void) { shmem_finalize(); }

void phasec_shmem_fail(const char *msg, const char *file, int line) {
  fprintf(stderr, "%s:%d: PE %d: %s\n", file, line, shmem_my_pe(), msg);
  fflush(stderr);
  shmem_global_exit(4);
  exit(4);
}

void *phasec_shmem_malloc(size_t bytes, const char *what, const char *file,
                          int line) {
  void *p = shmem_malloc(bytes);
  if (p || bytes == 0)
    return p;
  const char *v = getenv(kHeapVar);
  size_t want = phasec_shmem_heap_request_mib(bytes > gNeeded ? bytes : gNeeded);
  fprintf(stderr,
          "%s:%d: PE %d: shmem_malloc of %zu bytes for %s failed: the "
          "symmetric heap is too small (%s=%s); set %s=%zuM (or larger) in "
          "the environment of oshrun, e.g. oshrun -x %s=%zuM ...\n",
          file, line, shmem_my_pe(), bytes, what, kHeapVar,
          v ? v : "unset, default 256M", kHeapVar, want, kHeapVar, want);
  fflush(stderr);
  shmem_global_exit(4);
  exit(4);
}

void phasec_shmem_barrier(phasec_shmem_sync *sync) {
  if (!phasec_task_inside()) {
    shmem_barrier_all();
    return;
  }
  /* Dissemination over all PEs: in round k every PE adds one to round k's
   * counter at PE me + 2^k and waits until its own has been added to as
   * often as it has entered this barrier (the counters only grow, so no
   * reset races with a PE that is a barrier ahead). Quiet first: a PE's
   * puts are complete before anyone can learn that it arrived. */
  shmem_quiet();
  if (!sync->arrived)
    sync->arrived = (long *)PHASEC_SHMEM_MALLOC(
        sizeof(long) * PHASEC_SHMEM_SYNC_ROUNDS, "barrier counters");
  if (sync->epoch == 0) {
    for (int k = 0; k < PHASEC_SHMEM_SYNC_ROUNDS; ++k)
      sync->arrived[k] = 0;
    shmem_barrier_all(); /* zeroed everywhere before anyone adds */
  }
  const int np = shmem_n_pes(), me = shmem_my_pe();
  const long epoch = ++sync->epoch;
  for (int k = 0, d = 1; d < np; ++k, d <<= 1) {
    shmem_long_atomic_inc(&sync->arrived[k], (me + d) % np);
    while (shmem_long_atomic_fetch(&sync->arrived[k], me) < epoch)
      phasec_task_yield();
  }
}

void phasec_shmem_sync_free(phasec_shmem_sync *sync) {
  PHASEC_SHMEM_FREE(sync->arrived);
  sync->epoch = 0;
}

phasec_stats phasec_shmem_reduce_times(const double *t, int n) {
  int np = shmem_n_pes(), me = shmem_my_pe();
  size_t cnt = (size_t)(n > 0 ? n : 1);
  double *all = (double *)PHASEC_SHMEM_MALLOC(sizeof(double) * cnt * np,
                                              "timing reduction");
  double *res = (double *)PHASEC_SHMEM_MALLOC(sizeof(double) * cnt,
                                              "timing reduction");
  shmem_putmem(all + (size_t)me * cnt, t, sizeof(double) * (size_t)n, 0);
  shmem_quiet();
  shmem_barrier_all();
  if (me == 0) {
    for (int i = 0; i < n; ++i) {
      double m = all[i];
      for (int p = 1; p < np; ++p)
        if (all[(size_t)p * cnt + i] > m)
          m = all[(size_t)p * cnt + i];
      res[i] = m;
    }
    for (int p = 1; p < np; ++p)
      shmem_putmem(res, res, sizeof(double) * (size_t)n, p);
    shmem_quiet();
  }
  shmem_barrier_all();
  phasec_stats s = phasec_stats_of(res, n);
  shmem_barrier_all();
  shmem_free(res);
  shmem_free(all);
  return s;
}

void phasec_shmem_arrivals_open(phasec_shmem_arrivals *a, int root) {
  a->root = root;
  a->count = (long long *)PHASEC_SHMEM_MALLOC(sizeof(long long),
                                              "barrier-check counter");
  *a->count = 0;
  shmem_barrier_all();
}

void phasec_shmem_arrive(phasec_shmem_arrivals *a) {
  (void)shmem_longlong_atomic_fetch_inc(a->count, a->root);
}

long long phasec_shmem_arrived(phasec_shmem_arrivals *a) {
  return shmem_longlong_atomic_fetch(a->count, a->root);
}

void phasec_shmem_arrivals_close(phasec_shmem_arrivals *a) {
  shmem_barrier_all();
  shmem_free(a->count);
}

uint64_t phasec_shmem_sum(uint64_t local) {
  int np = shmem_n_pes(), me = shmem_my_pe();
  uint64_t *all = (uint64_t *)PHASEC_SHMEM_MALLOC(sizeof(uint64_t) * (np + 1),
                                                  "error-count reduction");
  shmem_putmem(all + me, &local, sizeof local, 0);
  shmem_quiet();
  shmem_barrier_all();
  if (me == 0) {
    uint64_t s = 0;
    for (int p = 0; p < np; ++p)
      s += all[p];
    all[np] = s;
    for (int p = 1; p < np; ++p)
      shmem_putmem(all + np, all + np, sizeof s, p);
    shmem_quiet();
  }
  shmem_barrier_all();
  uint64_t s = all[np];
  shmem_barrier_all();
  shmem_free(all);
  return s;
}
