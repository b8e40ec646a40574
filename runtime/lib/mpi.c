/*===- mpi.c - MPI part of the phasec runtime -----------------------------===*
 *
 * Part of phasec. Only this object references MPI symbols (with core.o in
 * the same static archive, see phasec_runtime.h).
 *
 *===----------------------------------------------------------------------===*/
#include "phasec_runtime_mpi.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

void phasec_mpi_init(int *argc, char ***argv) {
  int rc = MPI_Init(argc, argv);
  if (rc != MPI_SUCCESS) {
    fprintf(stderr, "phasec: MPI_Init failed (error %d)\n", rc);
    exit(3);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

void phasec_mpi_finalize(void) { MPI_Finalize(); }

static int commSizeError = MPI_ERR_SIZE;
static pthread_once_t commSizeOnce = PTHREAD_ONCE_INIT;

/* MPI_ERR_SIZE if MPI cannot add an error class: still an error, with
   MPI's own "invalid size" text. */
static void addCommSizeError(void) {
  int cls, code;
  if (MPI_Add_error_class(&cls) != MPI_SUCCESS ||
      MPI_Add_error_code(cls, &code) != MPI_SUCCESS)
    return;
  /* Not a literal: SMPI declares the string without const. */
  static char text[] =
      "phasec: the communicator's size is not the machine's number of ranks";
  MPI_Add_error_string(code, text);
  commSizeError = code;
}

int phasec_mpi_error_comm_size(void) {
  pthread_once(&commSizeOnce, addCommSizeError);
  return commSizeError;
}

void phasec_mpi_fail(int rc, const char *call, const char *file, int line) {
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
    snprintf(msg, sizeof msg, "unknown MPI error %d", rc);
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "%s:%d: rank %d: %s failed: %s\n", file, line, rank, call,
          msg);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  exit(3);
}

/* One members' communicator, the attribute value on its parent. */
struct phasec_mpi_cached_comm {
  MPI_Comm parent, g;
  phasec_mpi_comm_cache *cache;
  struct phasec_mpi_cached_comm *next;
};

/* The attribute's delete callback: the parent is being freed (or the
 * entry released), so its members' communicator goes with it. */
static int deleteCachedComm(MPI_Comm parent, int keyval, void *value,
                            void *extra) {
  (void)parent, (void)keyval, (void)extra;
  struct phasec_mpi_cached_comm *e = (struct phasec_mpi_cached_comm *)value;
  struct phasec_mpi_cached_comm **link = &e->cache->entries;
  while (*link && *link != e)
    link = &(*link)->next;
  if (*link)
    *link = e->next;
  /* Success whatever MPI_Comm_free says: a failing callback would make MPI
   * keep the attribute, which points at the entry freed here. */
  if (e->g != MPI_COMM_NULL)
    MPI_Comm_free(&e->g);
  free(e);
  return MPI_SUCCESS;
}

int phasec_mpi_group_comm(phasec_mpi_comm_cache *cache, MPI_Comm comm,
                          int member, MPI_Comm *g) {
  *g = MPI_COMM_NULL;
  if (!cache->created) {
    int rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, deleteCachedComm,
                                    &cache->keyval, NULL);
    if (rc != MPI_SUCCESS)
      return rc;
    cache->created = 1;
  }
  void *value = NULL;
  int found = 0;
  int rc = MPI_Comm_get_attr(comm, cache->keyval, &value, &found);
  if (rc != MPI_SUCCESS)
    return rc;
  if (found) {
    *g = ((struct phasec_mpi_cached_comm *)value)->g;
    return MPI_SUCCESS;
  }
  struct phasec_mpi_cached_comm *e =
      (struct phasec_mpi_cached_comm *)malloc(sizeof *e);
  if (!e)
    return MPI_ERR_NO_MEM;
  e->parent = comm;
  e->cache = cache;
  e->g = MPI_COMM_NULL;
  rc = MPI_Comm_split(comm, member >= 0 ? 0 : MPI_UNDEFINED, member, &e->g);
  if (rc == MPI_SUCCESS && e->g != MPI_COMM_NULL)
    rc = MPI_Comm_set_errhandler(e->g, MPI_ERRORS_RETURN);
  if (rc == MPI_SUCCESS) {
    e->next = cache->entries;
    cache->entries = e;
    rc = MPI_Comm_set_attr(comm, cache->keyval, e);
    if (rc != MPI_SUCCESS)
      cache->entries = e->next;
  }
  if (rc != MPI_SUCCESS) {
    if (e->g != MPI_COMM_NULL)
      MPI_Comm_free(&e->g);
    free(e);
    return rc;
  }
  *g = e->g;
  return MPI_SUCCESS;
}

int phasec_mpi_comm_cache_release(phasec_mpi_comm_cache *cache) {
  if (!cache->created)
    return MPI_SUCCESS;
  int first = MPI_SUCCESS;
  while (cache->entries) {
    /* The delete callback unlinks and frees the entry. */
    struct phasec_mpi_cached_comm *e = cache->entries;
    int rc = MPI_Comm_delete_attr(e->parent, cache->keyval);
    if (rc != MPI_SUCCESS) {
      if (first == MPI_SUCCESS)
        first = rc;
      if (cache->entries == e) { /* not unlinked: drop it all the same */
        cache->entries = e->next;
        if (e->g != MPI_COMM_NULL)
          MPI_Comm_free(&e->g);
        free(e);
      }
    }
  }
  int rc = MPI_Comm_free_keyval(&cache->keyval);
  if (rc != MPI_SUCCESS && first == MPI_SUCCESS)
    first = rc;
  cache->keyval = MPI_KEYVAL_INVALID;
  cache->created = 0;
  return first;
}

int phasec_mpi_waitall(int n, MPI_Request *req) {
  if (!phasec_task_inside())
    return MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
  for (;;) {
    int done = 0;
    int rc = MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS || done)
      return rc;
    phasec_task_yield();
  }
}

int phasec_mpi_phase_barrier(MPI_Comm comm) {
  if (!phasec_task_inside())
    return MPI_Barrier(comm);
  MPI_Request req;
  int rc = MPI_Ibarrier(comm, &req);
  return rc != MPI_SUCCESS ? rc : phasec_mpi_waitall(1, &req);
}

int phasec_mpi_sendrecv_typed(const void *sbuf, int scount, MPI_Datatype stype,
                              int dest, int stag, void *rbuf, int rcount,
                              MPI_Datatype rtype, int source, int rtag,
                              MPI_Comm comm) {
  if (!phasec_task_inside())
    return MPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype,
                        source, rtag, comm, MPI_STATUS_IGNORE);
  MPI_Request req[2];
  int rc = MPI_Irecv(rbuf, rcount, rtype, source, rtag, comm, &req[0]);
  if (rc != MPI_SUCCESS)
    return rc;
  rc = MPI_Isend(sbuf, scount, stype, dest, stag, comm, &req[1]);
  if (rc != MPI_SUCCESS) {
    MPI_Cancel(&req[0]);
    MPI_Request_free(&req[0]);
    return rc;
  }
  return phasec_mpi_waitall(2, req);
}

phasec_stats phasec_mpi_reduce_times(MPI_Comm comm, const double *t, int n) {
  double *m = (double *)PHASEC_XMALLOC(sizeof(double) * (size_t)(n ? n : 1),
                                       "iteration times");
  PHASEC_MPI_CHECK(
      MPI_Allreduce(t, m, n, MPI_DOUBLE, MPI_MAX, comm));
  phasec_stats s = phasec_stats_of(m, n);
  free(m);
  return s;
}

void phasec_mpi_arrivals_open(phasec_mpi_arrivals *a, MPI_Comm comm,
                              int root) {
  a->root = root;
  PHASEC_MPI_CHECK(MPI_Win_allocate(sizeof(long long), sizeof(long long),
                                    MPI_INFO_NULL, comm, &a->count, &a->win));
  PHASEC_MPI_CHECK(MPI_Win_lock_all(0, a->win));
  *a->count = 0;
  /* The zero is in the window before anyone increments it. */
  PHASEC_MPI_CHECK(MPI_Win_sync(a->win));
  PHASEC_MPI_CHECK(MPI_Barrier(comm));
}

void phasec_mpi_arrive(phasec_mpi_arrivals *a) {
  long long one = 1, old = 0;
  PHASEC_MPI_CHECK(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, a->root, 0,
                                    MPI_SUM, a->win));
  PHASEC_MPI_CHECK(MPI_Win_flush(a->root, a->win));
}

long long phasec_mpi_arrived(phasec_mpi_arrivals *a) {
  long long seen = 0;
  PHASEC_MPI_CHECK(MPI_Fetch_and_op(NULL, &seen, MPI_LONG_LONG, a->root, 0,
                                    MPI_NO_OP, a->win));
  PHASEC_MPI_CHECK(MPI_Win_flush(a->root, a->win));
  return seen;
}

void phasec_mpi_arrivals_close(phasec_mpi_arrivals *a, MPI_Comm comm) {
  PHASEC_MPI_CHECK(MPI_Win_unlock_all(a->win));
  PHASEC_MPI_CHECK(MPI_Barrier(comm));
  PHASEC_MPI_CHECK(MPI_Win_free(&a->win));
}

uint64_t phasec_mpi_sum(MPI_Comm comm, uint64_t local) {
  unsigned long long in = local, out = 0;
  PHASEC_MPI_CHECK(
      MPI_Allreduce(&in, &out, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm));
  return out;
}
