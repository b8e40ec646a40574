/*===- phasec_runtime_mpi.h - MPI part of the phasec runtime --------------===*
 *
 * Part of phasec. Init/finalize, error checks, phase barriers and the
 * reductions a generated MPI harness needs. Include this (it includes
 * phasec_runtime.h) and link with $(pkg-config --libs phasec-runtime).
 *
 *===----------------------------------------------------------------------===*/
#ifndef PHASEC_RUNTIME_MPI_H
#define PHASEC_RUNTIME_MPI_H

#include "phasec_runtime.h"

#include <limits.h>
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/** MPI_Init, then MPI_ERRORS_RETURN on MPI_COMM_WORLD so that
 *  PHASEC_MPI_CHECK can say which call failed before aborting. */
void phasec_mpi_init(int *argc, char ***argv);
void phasec_mpi_finalize(void);

/** The error code a generated operation returns when called on a
 *  communicator whose size is not the number of ranks of the machine it was
 *  generated for (an MPI error code of its own, registered on first use:
 *  MPI_Error_string says "phasec: the communicator's size is not the
 *  machine's number of ranks"). */
int phasec_mpi_error_comm_size(void);

/** Prints "<file>:<line>: <call> failed: <MPI error string>" on stderr and
 *  calls MPI_Abort(MPI_COMM_WORLD, 3). */
void phasec_mpi_fail(int rc, const char *call, const char *file, int line);

/** Checks the return code of an MPI call. */
#define PHASEC_MPI_CHECK(call)                                                 \
  do {                                                                         \
    int phasec_rc_ = (call);                                                   \
    if (phasec_rc_ != MPI_SUCCESS)                                             \
      phasec_mpi_fail(phasec_rc_, #call, __FILE__, __LINE__);                  \
  } while (0)

/** In a generated operation (a function returning an MPI error code):
 *  returns the error code of a failing MPI call to the operation's caller.
 *  Generated operations never abort on an MPI error; the communicators they
 *  split off have MPI_ERRORS_RETURN. */
#define PHASEC_MPI_TRY(call)                                                   \
  do {                                                                         \
    int phasec_rc_ = (call);                                                   \
    if (phasec_rc_ != MPI_SUCCESS)                                             \
      return phasec_rc_;                                                       \
  } while (0)

/** In a generated operation: p = malloc(bytes), or return MPI_ERR_NO_MEM. */
#define PHASEC_MPI_ALLOC(p, bytes)                                             \
  do {                                                                         \
    if (!((p) = malloc(bytes)))                                                \
      return MPI_ERR_NO_MEM;                                                   \
  } while (0)

/** The members' communicators of one generated operation, one per
 *  communicator it was called on: split off the caller's communicator on
 *  the first call with it (collective over it), kept as an attribute of it,
 *  and freed when the caller frees it (the attribute's delete callback) or
 *  when the operation is released (phasec_mpi_comm_cache_release). Keyed by
 *  MPI's attribute caching, not the handle's value, so a communicator
 *  freed and another created at the same address do not share an entry.
 *  One static cache per operation, zero-initialised: PHASEC_MPI_COMM_CACHE. */
struct phasec_mpi_cached_comm;
typedef struct {
  int keyval;
  int created;
  struct phasec_mpi_cached_comm *entries;
} phasec_mpi_comm_cache;
#define PHASEC_MPI_COMM_CACHE                                                  \
  { MPI_KEYVAL_INVALID, 0, NULL }

/** *g = the members' communicator of `cache` on comm (MPI_COMM_NULL for a
 *  rank with member < 0), with MPI_ERRORS_RETURN; splits it off comm, with
 *  member as the key, on the first call with comm. Returns an MPI error
 *  code. Not to be called on one cache from two threads at once. */
int phasec_mpi_group_comm(phasec_mpi_comm_cache *cache, MPI_Comm comm,
                          int member, MPI_Comm *g);

/** Frees every communicator of `cache` and its attribute key (collective
 *  over each communicator it was split off, which must not have been freed
 *  by then); the next phasec_mpi_group_comm starts again. Returns the first
 *  MPI error code. */
int phasec_mpi_comm_cache_release(phasec_mpi_comm_cache *cache);

/** The largest count the generated code passes to MPI in one int argument.
 *  Transfers above it go as one element of a derived datatype of that many
 *  bytes (MPI 3.1 has no MPI_Count sends). INT_MAX; a test may compile the
 *  generated file with a smaller one to run the large-count path on small
 *  messages. */
#ifndef PHASEC_MPI_MAX_COUNT
#define PHASEC_MPI_MAX_COUNT INT_MAX
#endif

/** `bytes` bytes as (count, type): (bytes, MPI_BYTE) when bytes fits
 *  PHASEC_MPI_MAX_COUNT, else (1, a committed datatype of bytes bytes:
 *  chunks of PHASEC_MPI_MAX_COUNT and the rest), which the caller frees. */
static inline int phasec_mpi_bytes_type(int64_t bytes, int *count,
                                        MPI_Datatype *type) {
  *count = (int)bytes;
  *type = MPI_BYTE;
  if (bytes <= (int64_t)PHASEC_MPI_MAX_COUNT)
    return MPI_SUCCESS;
  const int64_t chunk = PHASEC_MPI_MAX_COUNT, q = bytes / chunk,
                r = bytes % chunk;
  if (q > (int64_t)INT_MAX)
    return MPI_ERR_COUNT;
  MPI_Datatype piece, body;
  int rc = MPI_Type_contiguous((int)chunk, MPI_BYTE, &piece);
  if (rc != MPI_SUCCESS)
    return rc;
  rc = MPI_Type_contiguous((int)q, piece, &body);
  MPI_Type_free(&piece);
  if (rc != MPI_SUCCESS)
    return rc;
  if (r == 0) {
    *type = body;
  } else {
    int lengths[2] = {1, (int)r};
    MPI_Aint displs[2] = {0, (MPI_Aint)(q * chunk)};
    MPI_Datatype types[2] = {body, MPI_BYTE};
    rc = MPI_Type_create_struct(2, lengths, displs, types, type);
    MPI_Type_free(&body);
    if (rc != MPI_SUCCESS)
      return rc;
  }
  rc = MPI_Type_commit(type);
  if (rc != MPI_SUCCESS) {
    MPI_Type_free(type);
    return rc;
  }
  *count = 1;
  return MPI_SUCCESS;
}

/** MPI_Isend, MPI_Issend and MPI_Irecv of `bytes` bytes, any int64 size
 *  (the datatype of a large count is freed at once: MPI keeps it alive
 *  while the request needs it). */
#define PHASEC_MPI_BYTES_CALL_(call, buf, bytes, peer, tag, comm, req)         \
  int count_;                                                                  \
  MPI_Datatype type_;                                                          \
  int rc_ = phasec_mpi_bytes_type((bytes), &count_, &type_);                   \
  if (rc_ != MPI_SUCCESS)                                                      \
    return rc_;                                                                \
  rc_ = call((buf), count_, type_, (peer), (tag), (comm), (req));              \
  if (type_ != MPI_BYTE)                                                       \
    MPI_Type_free(&type_);                                                     \
  return rc_
static inline int phasec_mpi_isend(const void *buf, int64_t bytes, int dest,
                                   int tag, MPI_Comm comm, MPI_Request *req) {
  PHASEC_MPI_BYTES_CALL_(MPI_Isend, buf, bytes, dest, tag, comm, req);
}
static inline int phasec_mpi_issend(const void *buf, int64_t bytes, int dest,
                                    int tag, MPI_Comm comm, MPI_Request *req) {
  PHASEC_MPI_BYTES_CALL_(MPI_Issend, buf, bytes, dest, tag, comm, req);
}
static inline int phasec_mpi_irecv(void *buf, int64_t bytes, int source,
                                   int tag, MPI_Comm comm, MPI_Request *req) {
  PHASEC_MPI_BYTES_CALL_(MPI_Irecv, buf, bytes, source, tag, comm, req);
}

/** The waits of a generated operation: block outside a task; inside one
 *  (the operation's nonblocking form, phasec_runtime.h) they test once and
 *  yield until done, so the operation progresses in NAME_test / NAME_wait.
 *  All return an MPI error code.
 *  MPI_Waitall(n, req, MPI_STATUSES_IGNORE), or Testall and yield. */
int phasec_mpi_waitall(int n, MPI_Request *req);
/** MPI_Sendrecv (status ignored), or Irecv + Isend + phasec_mpi_waitall. */
int phasec_mpi_sendrecv_typed(const void *sbuf, int scount, MPI_Datatype stype,
                              int dest, int stag, void *rbuf, int rcount,
                              MPI_Datatype rtype, int source, int rtag,
                              MPI_Comm comm);

/** MPI_Sendrecv of byte counts of any int64 size (inside a task, as
 *  phasec_mpi_sendrecv_typed: the status is then not set). */
static inline int phasec_mpi_sendrecv(const void *sbuf, int64_t sbytes,
                                      int dest, int stag, void *rbuf,
                                      int64_t rbytes, int source, int rtag,
                                      MPI_Comm comm, MPI_Status *status) {
  int scount, rcount;
  MPI_Datatype stype, rtype;
  int rc = phasec_mpi_bytes_type(sbytes, &scount, &stype);
  if (rc != MPI_SUCCESS)
    return rc;
  rc = phasec_mpi_bytes_type(rbytes, &rcount, &rtype);
  if (rc == MPI_SUCCESS) {
    rc = phasec_task_inside()
             ? phasec_mpi_sendrecv_typed(sbuf, scount, stype, dest, stag, rbuf,
                                         rcount, rtype, source, rtag, comm)
             : MPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount,
                            rtype, source, rtag, comm, status);
    if (rtype != MPI_BYTE)
      MPI_Type_free(&rtype);
  }
  if (stype != MPI_BYTE)
    MPI_Type_free(&stype);
  return rc;
}

/** The barrier that separates two phases (congestion control, seed 001);
 *  returns MPI_Barrier's error code (inside a task: MPI_Ibarrier and
 *  phasec_mpi_waitall). */
int phasec_mpi_phase_barrier(MPI_Comm comm);

/** Per-iteration times t[0..n) of this rank; the time of an iteration is
 *  the maximum over the ranks (the operation ends when the last rank ends).
 *  Returns the statistics over iterations of those maxima (all ranks). */
phasec_stats phasec_mpi_reduce_times(MPI_Comm comm, const double *t, int n);

/** The sum of `local` over the ranks of comm (all ranks get it). */
uint64_t phasec_mpi_sum(MPI_Comm comm, uint64_t local);

/** The generated harness's check of a barrier: a counter at rank `root`
 *  of comm. Every member counts its arrival (an atomic increment that has
 *  completed at the root when phasec_mpi_arrive returns) before it enters
 *  the barrier; every member that leaves must read them all. Open and
 *  close are collective over comm. */
typedef struct {
  MPI_Win win;
  long long *count;
  int root;
} phasec_mpi_arrivals;
void phasec_mpi_arrivals_open(phasec_mpi_arrivals *a, MPI_Comm comm,
                              int root);
void phasec_mpi_arrive(phasec_mpi_arrivals *a);
long long phasec_mpi_arrived(phasec_mpi_arrivals *a);
void phasec_mpi_arrivals_close(phasec_mpi_arrivals *a, MPI_Comm comm);

#ifdef __cplusplus
}
#endif

#endif /* PHASEC_RUNTIME_MPI_H */
