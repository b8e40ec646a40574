/* library_driver.c - uses the MPI code phasec generates for library.sched as
 * a library, through the header phasec writes for it (test/Integration/
 * MPI_library.test): every operation on MPI_COMM_WORLD, again on a
 * duplicate (the operations split their members' communicator off the new
 * one), results checked, the table permute on a communicator in reversed
 * rank order; then library_finalize() frees what they cached,
 * an operation after it builds its own again, and a second finalize frees
 * that. With PHASEC_TEST_NO_FINALIZE=1 it skips the finalize calls, which
 * the leak checkers must notice. With PHASEC_TEST_THREADS=1 it asks for
 * MPI_THREAD_MULTIPLE and runs two threads at once, each its own half of
 * the operations on its own communicator, 20 times (what docs/embedding.md
 * says is safe). Needs 4 ranks. */
#include "library.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "library_sizes.h"

static int me, failures;

static void check(int ok, const char *what) {
  if (!ok) {
    printf("rank %d: %s is wrong\n", me, what);
    __atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
  }
}

static void expectSuccess(int rc, const char *what) {
  if (rc == MPI_SUCCESS)
    return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  printf("rank %d: %s returned %s\n", me, what, text);
  __atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
}

/* The all-to-all and the transposes once on comm, results checked. */
static void runBlocks(MPI_Comm comm) {
  unsigned char *s = malloc(P * BLOCK), *r = malloc(P * BLOCK);
  for (int q = 0; q < P; ++q)
    memset(s + q * BLOCK, me * 16 + q + 1, BLOCK);
  expectSuccess(library_exchange(s, r, comm), "exchange");
  for (int q = 0; q < P; ++q)
    check(r[q * BLOCK] == q * 16 + me + 1 &&
              r[q * BLOCK + BLOCK - 1] == q * 16 + me + 1,
          "exchange's block");
  /* In place, as the header allows: MPI_IN_PLACE, then one buffer twice;
     the second exchange brings every block home. */
  expectSuccess(library_exchange(MPI_IN_PLACE, r, comm), "exchange in place");
  for (int q = 0; q < P; ++q)
    check(r[q * BLOCK] == me * 16 + q + 1 &&
              r[q * BLOCK + BLOCK - 1] == me * 16 + q + 1,
          "exchange's block in place (MPI_IN_PLACE)");
  expectSuccess(library_exchange(r, r, comm), "exchange in place");
  for (int q = 0; q < P; ++q)
    check(r[q * BLOCK] == q * 16 + me + 1 &&
              r[q * BLOCK + BLOCK - 1] == q * 16 + me + 1,
          "exchange's block in place (sendbuf == recvbuf)");

  double *a = malloc(sizeof(double) * R * N), *b = malloc(sizeof(double) * R * N);
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < N; ++j)
      a[i * N + j] = (me * R + i) * N + j;
  /* In place is refused, as the header says. */
  check(library_chained(a, a, comm) == MPI_ERR_BUFFER,
        "chained(a, a) returns MPI_ERR_BUFFER");
  expectSuccess(library_chained(a, b, comm), "chained");
  int ok = 1;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < N; ++j)
      ok &= b[i * N + j] == j * N + (me * R + i);
  check(ok, "chained's transpose");
  /* The nonblocking forms, as the header declares them: two operations in
     flight at once (each has its own task and communicator), progressed by
     tests between pieces of work, then completed in the other order. (This
     thread's half of the operations only: see runThreads.) */
  memset(r, 0, P * BLOCK);
  memset(b, 0, sizeof(double) * R * N);
  expectSuccess(library_exchange_start(s, r, comm), "exchange_start");
  check(library_exchange_start(s, r, comm) == MPI_ERR_PENDING,
        "a second exchange_start returns MPI_ERR_PENDING");
  expectSuccess(library_chained_start(a, b, comm), "chained_start");
  volatile double work = 0;
  int done = 0;
  for (int i = 0; i < 100 && !done; ++i) {
    for (int k = 0; k < 1000; ++k)
      work += k * 0.5;
    expectSuccess(library_exchange_test(&done), "exchange_test");
  }
  expectSuccess(library_chained_wait(), "chained_wait");
  expectSuccess(library_exchange_wait(), "exchange_wait");
  for (int q = 0; q < P; ++q)
    check(r[q * BLOCK] == q * 16 + me + 1 &&
              r[q * BLOCK + BLOCK - 1] == q * 16 + me + 1,
          "exchange_start's block");
  expectSuccess(library_exchange_test(&done),
                "exchange_test, nothing in flight");
  check(done == 1, "exchange_test with nothing in flight sets the flag");
  ok = 1;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < N; ++j)
      ok &= b[i * N + j] == j * N + (me * R + i);
  check(ok, "chained_start's transpose");
  /* The persistent form: bound, started twice (before the first binding,
     and after library_finalize, there is nothing to start). */
  static int bound;
  if (!bound++)
    check(library_chained_start_persistent() == MPI_ERR_REQUEST,
          "chained_start_persistent before chained_init returns "
          "MPI_ERR_REQUEST");
  expectSuccess(library_chained_init(a, b, comm), "chained_init");
  for (int round = 0; round < 2; ++round) {
    memset(b, 0, sizeof(double) * R * N);
    expectSuccess(library_chained_start_persistent(),
                  "chained_start_persistent");
    expectSuccess(library_chained_wait(), "chained_wait");
    ok = 1;
    for (int i = 0; i < R; ++i)
      for (int j = 0; j < N; ++j)
        ok &= b[i * N + j] == j * N + (me * R + i);
    check(ok, "chained's persistent transpose");
  }
  double *w = NULL;
  expectSuccess(library_deposit_alloc_output(comm, &w), "deposit_alloc_output");
  expectSuccess(library_deposit(a, w, comm), "deposit");
  ok = 1;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < N; ++j)
      ok &= w[i * N + j] == j * N + (me * R + i);
  check(ok, "deposit's transpose");
  expectSuccess(library_deposit_free_output(w), "deposit_free_output");
  free(s), free(r), free(a), free(b);
}

/* The permutes and the broadcast once on comm, results checked. */
static void runOthers(MPI_Comm comm) {
  int ok;

  uint64_t *k = malloc(sizeof(uint64_t) * L), *t = malloc(sizeof(uint64_t) * L);
  int64_t *dest = malloc(sizeof(int64_t) * L);
  for (int i = 0; i < L; ++i) {
    k[i] = (uint64_t)me * L + i;
    dest[i] = KEYS - 1 - ((int64_t)me * L + i);
  }
  expectSuccess(library_shuffle(k, t, comm), "shuffle");
  expectSuccess(library_moved(k, t, dest, comm), "moved");
  ok = 1;
  for (int i = 0; i < L; ++i)
    ok &= t[i] == (uint64_t)(KEYS - 1 - (me * L + i));
  check(ok, "moved's permutation");

  unsigned char c[256];
  memset(c, me == 1 ? 0x5a : 0, sizeof c);
  expectSuccess(library_bcast(c, c, comm), "bcast");
  check(c[0] == 0x5a && c[255] == 0x5a, "bcast's block");
  free(k), free(t), free(dest);
}

/* The table permute on a communicator in reversed rank order (member m is
   another process, so the work space sized for the first member must be
   sized again): what process me gets as member P-1-me must be what process
   P-1-me got as that member on MPI_COMM_WORLD, and MPI_COMM_WORLD after it
   must give what it gave before. */
static void runReversed(void) {
  MPI_Comm rev;
  MPI_Comm_split(MPI_COMM_WORLD, 0, P - 1 - me, &rev);
  const int m = P - 1 - me;
  uint64_t *k = malloc(sizeof(uint64_t) * L), *kr = malloc(sizeof(uint64_t) * L);
  uint64_t *before = malloc(sizeof(uint64_t) * L), *after = malloc(sizeof(uint64_t) * L);
  uint64_t *tr = malloc(sizeof(uint64_t) * L), *peer = malloc(sizeof(uint64_t) * L);
  for (int i = 0; i < L; ++i) {
    k[i] = (uint64_t)me * L + i;
    kr[i] = (uint64_t)m * L + i;
  }
  expectSuccess(library_shuffle(k, before, MPI_COMM_WORLD), "shuffle");
  expectSuccess(library_shuffle(kr, tr, rev), "shuffle, reversed");
  expectSuccess(library_shuffle(k, after, MPI_COMM_WORLD), "shuffle again");
  check(memcmp(before, after, sizeof(uint64_t) * L) == 0,
        "shuffle after the reversed communicator");
  MPI_Sendrecv(before, L, MPI_UINT64_T, m, 7, peer, L, MPI_UINT64_T, m, 7,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  check(memcmp(tr, peer, sizeof(uint64_t) * L) == 0,
        "shuffle on the reversed communicator");
  MPI_Comm_free(&rev);
  free(k), free(kr), free(before), free(after), free(tr), free(peer);
}

static void runAll(MPI_Comm comm) {
  runBlocks(comm);
  runOthers(comm);
}

static void *blocksThread(void *comm) {
  for (int i = 0; i < 20; ++i)
    runBlocks(*(MPI_Comm *)comm);
  return NULL;
}

static void *othersThread(void *comm) {
  for (int i = 0; i < 20; ++i)
    runOthers(*(MPI_Comm *)comm);
  return NULL;
}

/* Two threads at once, each with its own communicator and operations. */
static int runThreads(void) {
  MPI_Comm c1, c2;
  MPI_Comm_dup(MPI_COMM_WORLD, &c1);
  MPI_Comm_dup(MPI_COMM_WORLD, &c2);
  pthread_t t1, t2;
  if (pthread_create(&t1, NULL, blocksThread, &c1) ||
      pthread_create(&t2, NULL, othersThread, &c2)) {
    printf("rank %d: pthread_create failed\n", me);
    return 1;
  }
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  expectSuccess(library_finalize(), "finalize");
  MPI_Comm_free(&c1);
  MPI_Comm_free(&c2);
  return 0;
}

int main(int argc, char **argv) {
  const char *threads = getenv("PHASEC_TEST_THREADS");
  const int multiple = threads && *threads == '1';
  int provided;
  MPI_Init_thread(&argc, &argv,
                  multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE,
                  &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (multiple) {
    if (provided != MPI_THREAD_MULTIPLE) {
      printf("rank %d: MPI_THREAD_MULTIPLE is not provided\n", me);
      MPI_Finalize();
      return 1;
    }
    if (runThreads())
      ++failures;
    if (me == 0)
      printf("%s\n", failures ? "FAILED" : "every result right, two threads");
    MPI_Finalize();
    return failures ? 1 : 0;
  }
  const char *skip = getenv("PHASEC_TEST_NO_FINALIZE");
  const int finalize = !(skip && *skip == '1');
  runAll(MPI_COMM_WORLD);
  runAll(MPI_COMM_WORLD);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  runAll(dup);
  if (finalize) {
    /* A call in flight keeps its operation from being released: the
       finalize function says so (and releases the others); once the call
       is complete, finalize releases it too. */
    unsigned char *s = malloc(P * BLOCK), *r = malloc(P * BLOCK);
    memset(s, me, P * BLOCK);
    expectSuccess(library_exchange_start(s, r, dup), "exchange_start");
    check(library_finalize() == MPI_ERR_PENDING,
          "finalize with a call in flight returns MPI_ERR_PENDING");
    expectSuccess(library_exchange_wait(), "exchange_wait");
    for (int q = 0; q < P; ++q)
      check(r[q * BLOCK] == q, "exchange_start's block before finalize");
    free(s), free(r);
    expectSuccess(library_finalize(), "finalize");
  }
  MPI_Comm_free(&dup);
  runReversed();
  runAll(MPI_COMM_WORLD);
  if (finalize)
    expectSuccess(library_finalize(), "the second finalize");
  if (me == 0)
    printf("%s\n", failures ? "FAILED" : "every result right");
  MPI_Finalize();
  return failures ? 1 : 0;
}
