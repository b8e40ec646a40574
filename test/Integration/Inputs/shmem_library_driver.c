/* shmem_library_driver.c - the OpenSHMEM code phasec generates for
 * library.sched as a library, through its header (test/Integration/
 * SHMEM_library.test): every operation twice, results checked, then
 * library_finalize(), once more and finalize again. Counts the symmetric
 * allocations through OpenSHMEM's profiling interface (pshmem_malloc) and
 * prints "symmetric left: N" per PE at the end; with
 * PHASEC_TEST_NO_FINALIZE=1 it skips the finalize calls. On a job of other
 * than 4 PEs every operation returns PHASEC_SHMEM_ERR_NPES. */
#include "library.h"

#include <phasec_runtime_shmem.h>
#include <pshmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "library_sizes.h"

static int me, failures, live;

void *shmem_malloc(size_t bytes) {
  void *p = pshmem_malloc(bytes);
  if (p)
    ++live;
  return p;
}

void shmem_free(void *p) {
  if (p)
    --live;
  pshmem_free(p);
}

static void check(int ok, const char *what) {
  if (!ok) {
    printf("PE %d: %s is wrong\n", me, what);
    ++failures;
  }
}

static void expectSuccess(int rc, const char *what) {
  if (rc != PHASEC_SHMEM_SUCCESS) {
    printf("PE %d: %s returned %d\n", me, what, rc);
    ++failures;
  }
}

static void runAll(void) {
  unsigned char *s = malloc(P * BLOCK), *r = shmem_malloc(P * BLOCK);
  for (int q = 0; q < P; ++q)
    memset(s + q * BLOCK, me * 16 + q + 1, BLOCK);
  expectSuccess(library_exchange(s, r), "exchange");
  for (int q = 0; q < P; ++q)
    check(r[q * BLOCK] == q * 16 + me + 1, "exchange's block");
  /* In place, as the header allows (the symmetric buffer twice): every
     block goes home. */
  expectSuccess(library_exchange(r, r), "exchange in place");
  for (int q = 0; q < P; ++q)
    check(r[q * BLOCK] == me * 16 + q + 1 &&
              r[q * BLOCK + BLOCK - 1] == me * 16 + q + 1,
          "exchange's block in place");

  double *a = malloc(sizeof(double) * R * N);
  double *b = shmem_malloc(sizeof(double) * R * N);
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < N; ++j)
      a[i * N + j] = (me * R + i) * N + j;
  for (int t = 0; t < 2; ++t) {
    memset(b, 0, sizeof(double) * R * N);
    expectSuccess(t ? library_deposit(a, b) : library_chained(a, b),
                  "transpose");
    int ok = 1;
    for (int i = 0; i < R; ++i)
      for (int j = 0; j < N; ++j)
        ok &= b[i * N + j] == j * N + (me * R + i);
    check(ok, t ? "deposit's transpose" : "chained's transpose");
  }

  uint64_t *k = malloc(sizeof(uint64_t) * L);
  uint64_t *u = shmem_malloc(sizeof(uint64_t) * L);
  int64_t *dest = malloc(sizeof(int64_t) * L);
  for (int i = 0; i < L; ++i) {
    k[i] = (uint64_t)me * L + i;
    dest[i] = KEYS - 1 - ((int64_t)me * L + i);
  }
  expectSuccess(library_shuffle(k, u), "shuffle");
  expectSuccess(library_moved(k, u, dest), "moved");
  int ok = 1;
  for (int i = 0; i < L; ++i)
    ok &= u[i] == (uint64_t)(KEYS - 1 - (me * L + i));
  check(ok, "moved's permutation");

  unsigned char *c = shmem_malloc(256);
  unsigned char src[256];
  memset(src, me == 1 ? 0x5a : 0, sizeof src);
  expectSuccess(library_bcast(src, c), "bcast");
  check(c[0] == 0x5a && c[255] == 0x5a, "bcast's block");

  /* The nonblocking forms: the exchange and the broadcast in flight at once
     (each has barriers of its own), progressed by tests between pieces of
     work, completed in the other order; then the broadcast bound and
     started twice. */
  memset(r, 0, P * BLOCK);
  memset(c, 0, 256);
  memset(src, me == 1 ? 0x77 : 0, sizeof src);
  expectSuccess(library_exchange_start(s, r), "exchange_start");
  check(library_exchange_start(s, r) == PHASEC_SHMEM_ERR_PENDING,
        "a second exchange_start returns PHASEC_SHMEM_ERR_PENDING");
  expectSuccess(library_bcast_start(src, c), "bcast_start");
  volatile double work = 0;
  int done = 0;
  for (int i = 0; i < 100 && !done; ++i) {
    for (int w = 0; w < 1000; ++w)
      work += w * 0.5;
    expectSuccess(library_exchange_test(&done), "exchange_test");
  }
  expectSuccess(library_bcast_wait(), "bcast_wait");
  expectSuccess(library_exchange_wait(), "exchange_wait");
  for (int q = 0; q < P; ++q)
    check(r[q * BLOCK] == q * 16 + me + 1, "exchange_start's block");
  check(c[0] == 0x77 && c[255] == 0x77, "bcast_start's block");
  expectSuccess(library_bcast_init(src, c), "bcast_init");
  for (int t = 0; t < 2; ++t) {
    memset(c, 0, 256);
    expectSuccess(library_bcast_start_persistent(), "bcast_start_persistent");
    expectSuccess(library_bcast_wait(), "bcast_wait");
    check(c[0] == 0x77 && c[255] == 0x77, "bcast's persistent block");
  }
  shmem_barrier_all();
  shmem_free(r), shmem_free(b), shmem_free(u), shmem_free(c);
  free(s), free(a), free(k), free(dest);
}

int main(void) {
  shmem_init();
  me = shmem_my_pe();
  if (shmem_n_pes() != P) {
    unsigned char s[P * BLOCK];
    int rc = library_exchange(s, s);
    if (me == 0)
      printf("%d PEs: %s\n", shmem_n_pes(),
             rc == PHASEC_SHMEM_ERR_NPES ? "PHASEC_SHMEM_ERR_NPES" : "no error");
    shmem_finalize();
    return 0;
  }
  const char *skip = getenv("PHASEC_TEST_NO_FINALIZE");
  const int finalize = !(skip && *skip == '1');
  runAll();
  runAll();
  if (finalize)
    library_finalize();
  runAll();
  if (finalize)
    library_finalize();
  printf("symmetric left: %d\n", live);
  if (me == 0)
    printf("%s\n", failures ? "FAILED" : "every result right");
  shmem_finalize();
  return failures ? 1 : 0;
}
