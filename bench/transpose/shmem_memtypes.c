/*===- shmem_memtypes.c - Where the copy of a SHMEM transpose goes --------===*
 *
 * Part of phasec (bench/transpose). Each PE transposes its R x N rows of an
 * N x N complex128 array (P blocks of R x R, 16 x 16 tiles, contiguous
 * stores, as the generated direct deposit does) into: malloc'd memory (the
 * local limit), malloc'd memory with MADV_HUGEPAGE, its own symmetric heap,
 * the peer's symmetric heap through shmem_ptr, and the generated pattern
 * (own block local, the others to their owners). Prints the best and the
 * median iteration (max over PEs), ms. Usage (docs/performance.md):
 *   oshcc -O3 -march=native shmem_memtypes.c -o shmem_memtypes
 *   oshrun --mca osc ^rdma -x SHMEM_SYMMETRIC_HEAP_SIZE=512M -np 2 \
 *       ./shmem_memtypes [N=4096] [ITERS=10]
 * Results are not verified (the generated programs verify the same copy).
 *===----------------------------------------------------------------------===*/
#include "transpose_kernels.h"

#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
  shmem_init();
  long n = argc > 1 ? atol(argv[1]) : 4096; int iters = argc > 2 ? atoi(argv[2]) : 10;
  int me = shmem_my_pe(), p = shmem_n_pes(); long r = n / p;
  size_t bytes = sizeof(c128_t) * r * n;
  c128_t *a = malloc(bytes), *lb = malloc(bytes), *hb = shmem_malloc(bytes);
  c128_t *thp = NULL;
  if (posix_memalign((void **)&thp, 2 << 20, bytes) == 0) madvise(thp, bytes, MADV_HUGEPAGE);
  for (long i = 0; i < r * n; ++i) { a[i].re = i; a[i].im = -1.0 * i; }
  memset(lb, 1, bytes); memset(hb, 1, bytes); memset(thp, 1, bytes);
  shmem_barrier_all();
  c128_t *peer = shmem_ptr(hb, (me + 1) % p);
  const char *names[] = {"malloc (local limit)", "malloc + MADV_HUGEPAGE", "own symmetric heap", "all blocks to the peer's heap via shmem_ptr", "generated pattern: own block local, others to peers"};
  double *t = malloc(sizeof(double) * iters);
  for (int v = 0; v < 5; ++v) {
    for (int it = -2; it < iters; ++it) {
      shmem_barrier_all();
      double t0 = now();
      for (long d = 0; d < p; ++d) {
        c128_t *dst; long col = d * r;
        switch (v) {
        case 0: dst = lb; break;
        case 1: dst = thp; break;
        case 2: dst = hb; break;
        case 3: dst = peer; col = me * r; break;
        default: dst = d == me ? hb : shmem_ptr(hb, d); col = me * r; break;
        }
        tblock_stores(dst + col, n, a + d * r, n, r);
      }
      shmem_barrier_all();
      if (it >= 0) t[it] = now() - t0;
    }
    qsort(t, iters, sizeof(double), cmpd);
    double best, med; best = t[0]; med = t[iters / 2];
    static double sbest, smed; static long psync[SHMEM_REDUCE_SYNC_SIZE]; static double pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) psync[i] = SHMEM_SYNC_VALUE;
    sbest = best; smed = med; shmem_barrier_all();
    static double rbest, rmed;
    shmem_double_max_to_all(&rbest, &sbest, 1, 0, 0, p, pwrk, psync); shmem_barrier_all();
    shmem_double_max_to_all(&rmed, &smed, 1, 0, 0, p, pwrk, psync); shmem_barrier_all();
    if (me == 0) printf("np=%d %-55s best %7.1f  median %7.1f ms\n", p, names[v], rbest * 1e3, rmed * 1e3);
  }
  shmem_finalize();
  return 0;
}
