/*===- core.c - Timers, fill/verify, statistics of the phasec runtime -----===*
 *
 * Part of phasec. Depends on libc only, so that both MPI and OpenSHMEM
 * programs can link it (see phasec_runtime.h for the library layout).
 *
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE /* MAP_ANONYMOUS, MAP_STACK; ucontext */
#include "phasec_runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

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

/* ---- tasks ------------------------------------------------------------- */

enum { kTaskIdle, kTaskRunning, kTaskDone };

struct phasec_task {
  ucontext_t self;   /* where the task continues */
  ucontext_t caller; /* where its last resume continues */
  char *map;         /* guard page + stack */
  size_t mapBytes;
  int (*fn)(void *);
  void *arg;
  int state;
  int result;
};

/* The task running on this thread (NULL on the thread's own stack). */
static _Thread_local phasec_task *gTask;

/* The task's entry: makecontext cannot pass a pointer portably, and the
 * task being entered is the thread's current one. Returning switches to
 * uc_link, the caller of the last resume. */
static void taskMain(void) {
  phasec_task *t = gTask;
  t->result = t->fn(t->arg);
  t->state = kTaskDone;
}

/* The task's context at taskMain on its own stack. getcontext only fills
 * the structure here (nothing ever returns to it a second time). */
static int makeContext(phasec_task *t) {
  if (getcontext(&t->self) != 0)
    return -1;
  t->self.uc_stack.ss_sp = t->map + (t->mapBytes - PHASEC_TASK_STACK);
  t->self.uc_stack.ss_size = PHASEC_TASK_STACK;
  t->self.uc_link = &t->caller;
  makecontext(&t->self, taskMain, 0);
  return 0;
}

int phasec_task_start(phasec_task **task, int (*fn)(void *), void *arg) {
  phasec_task *t = *task;
  if (t && t->state == kTaskRunning)
    return PHASEC_TASK_BUSY;
  if (!t) {
    t = (phasec_task *)calloc(1, sizeof(phasec_task));
    if (!t)
      return PHASEC_TASK_NO_MEMORY;
    long page = sysconf(_SC_PAGESIZE);
    t->mapBytes = PHASEC_TASK_STACK + (size_t)(page > 0 ? page : 4096);
    void *map =
        mmap(NULL, t->mapBytes, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (map == MAP_FAILED) {
      free(t);
      return PHASEC_TASK_NO_MEMORY;
    }
    t->map = (char *)map;
    /* Stacks grow down: an overflow faults on the guard page instead of
     * writing over whatever the map is next to. */
    mprotect(t->map, t->mapBytes - PHASEC_TASK_STACK, PROT_NONE);
    *task = t;
  }
  if (makeContext(t) != 0)
    return PHASEC_TASK_NO_MEMORY;
  t->fn = fn;
  t->arg = arg;
  t->result = 0;
  t->state = kTaskRunning;
  phasec_task_resume(t);
  return PHASEC_TASK_OK;
}

int phasec_task_resume(phasec_task *task) {
  if (!task || task->state != kTaskRunning)
    return 1;
  phasec_task *outer = gTask;
  gTask = task;
  swapcontext(&task->caller, &task->self);
  gTask = outer;
  return task->state == kTaskDone;
}

int phasec_task_running(const phasec_task *task) {
  return task && task->state == kTaskRunning;
}

int phasec_task_result(const phasec_task *task) {
  return task ? task->result : 0;
}

void phasec_task_yield(void) {
  phasec_task *t = gTask;
  if (t)
    swapcontext(&t->self, &t->caller);
}

int phasec_task_inside(void) { return gTask != NULL; }

void phasec_task_free(phasec_task *task) {
  if (!task)
    return;
  munmap(task->map, task->mapBytes);
  free(task);
}
