/*===- phasec_runtime_shmem.h - OpenSHMEM part of the phasec runtime ------===*
 *
 * Part of phasec. OpenSHMEM 1.4 (Open MPI's oshmem; no teams). Include this
 * (it includes phasec_runtime.h) and link with
 * `oshcc ... $(pkg-config --cflags --libs phasec-runtime)`.
 *
 * The symmetric heap: Open MPI's OpenSHMEM sizes it from the environment
 * variable SHMEM_SYMMETRIC_HEAP_SIZE (default 256 MiB), read at
 * shmem_init(). phasec_shmem_init() sets it when it is unset and the program
 * says it needs more; when it is set too small, or an allocation fails,
 * the program says what to set and exits.
 *
 *===----------------------------------------------------------------------===*/
#ifndef PHASEC_RUNTIME_SHMEM_H
#define PHASEC_RUNTIME_SHMEM_H

#include "phasec_runtime.h"

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The heap Open MPI's OpenSHMEM gives when SHMEM_SYMMETRIC_HEAP_SIZE is
 *  not set. */
#define PHASEC_SHMEM_DEFAULT_HEAP ((size_t)256 << 20)

/** The value of SHMEM_SYMMETRIC_HEAP_SIZE in bytes (suffixes K, M, G as
 *  Open MPI accepts them), or PHASEC_SHMEM_DEFAULT_HEAP if unset; 0 if it
 *  cannot be parsed. */
size_t phasec_shmem_heap_size(void);

/** The heap to ask for when `needed` bytes of symmetric data (all
 *  shmem_malloc calls together) must fit: needed plus 25% and 64 MiB for
 *  the library's own use, in MiB. */
size_t phasec_shmem_heap_request_mib(size_t needed);

/** Sets SHMEM_SYMMETRIC_HEAP_SIZE to phasec_shmem_heap_request_mib(needed)
 *  "M" if it is unset and the default is too small, prints a note on PE 0
 *  when an explicit setting looks too small, then calls shmem_init(). */
void phasec_shmem_init(size_t needed);
void phasec_shmem_finalize(void);

/** shmem_malloc (collective). When it fails, prints on stderr
 *  "<file>:<line>: PE p: shmem_malloc of N bytes for <what> failed: the
 *  symmetric heap is too small (SHMEM_SYMMETRIC_HEAP_SIZE=<current>); set
 *  SHMEM_SYMMETRIC_HEAP_SIZE=<M>M" and calls shmem_global_exit(4). */
void *phasec_shmem_malloc(size_t bytes, const char *what, const char *file,
                          int line);
#define PHASEC_SHMEM_MALLOC(bytes, what)                                       \
  phasec_shmem_malloc((bytes), (what), __FILE__, __LINE__)

/** What a generated OpenSHMEM operation returns: PHASEC_SHMEM_SUCCESS, or
 *  PHASEC_SHMEM_ERR_NPES when the job's number of PEs is not the number of
 *  ranks of the machine it was generated for (every PE returns it before
 *  touching a buffer). OpenSHMEM has no error codes of its own. */
#define PHASEC_SHMEM_SUCCESS 0
#define PHASEC_SHMEM_ERR_NPES 1
/** The nonblocking forms' (NAME_start & co.): a call of the operation is
 *  already in flight; the task could not be made; NAME_start_persistent
 *  before NAME_init. */
#define PHASEC_SHMEM_ERR_PENDING 2
#define PHASEC_SHMEM_ERR_NO_MEM 3
#define PHASEC_SHMEM_ERR_UNBOUND 4

/** shmem_free(p) and p = NULL when p is not NULL (collective, as shmem_free:
 *  every PE's p is NULL or not alike, since every PE allocates it in the
 *  same call). */
#define PHASEC_SHMEM_FREE(p)                                                   \
  do {                                                                         \
    if (p) {                                                                   \
      shmem_free(p);                                                           \
      (p) = NULL;                                                              \
    }                                                                          \
  } while (0)

/** Stops the whole job with a message: "<file>:<line>: PE p: <msg>". */
void phasec_shmem_fail(const char *msg, const char *file, int line);

/** The barriers of one generated operation: shmem_barrier_all, or inside a
 *  task (the operation's nonblocking form, phasec_runtime.h) a barrier over
 *  all PEs that yields while it waits: a dissemination barrier of atomics on
 *  counters of the operation's own, so that two nonblocking operations in
 *  flight cannot take each other's arrivals. The counters are allocated in
 *  the symmetric heap by the first such barrier (collective: every PE calls
 *  the same form; Open MPI's OpenSHMEM does not serve atomics on static
 *  data) and freed by phasec_shmem_sync_free (collective). Like
 *  shmem_barrier_all, it completes the caller's puts first. One zeroed
 *  static object per operation. */
#define PHASEC_SHMEM_SYNC_ROUNDS 32 /* up to 2^32 PEs */
typedef struct {
  long *arrived; /* symmetric: round k's arrivals at this PE */
  long epoch;    /* the yielding barriers this PE has entered */
} phasec_shmem_sync;
void phasec_shmem_barrier(phasec_shmem_sync *sync);
void phasec_shmem_sync_free(phasec_shmem_sync *sync);

/** As phasec_mpi_reduce_times, over all PEs. Collective. */
phasec_stats phasec_shmem_reduce_times(const double *t, int n);

/** The sum of `local` over all PEs. Collective. */
uint64_t phasec_shmem_sum(uint64_t local);

/** The generated harness's check of a barrier, as phasec_mpi_arrivals: a
 *  symmetric counter read and incremented at PE `root` with fetching
 *  atomics (complete when they return). Open and close are collective. */
typedef struct {
  long long *count;
  int root;
} phasec_shmem_arrivals;
void phasec_shmem_arrivals_open(phasec_shmem_arrivals *a, int root);
void phasec_shmem_arrive(phasec_shmem_arrivals *a);
long long phasec_shmem_arrived(phasec_shmem_arrivals *a);
void phasec_shmem_arrivals_close(phasec_shmem_arrivals *a);

#ifdef __cplusplus
}
#endif

#endif /* PHASEC_RUNTIME_SHMEM_H */
