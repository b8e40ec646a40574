//===- Fortran.cpp - The Fortran bindings of the served collectives -------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Open MPI's Fortran bindings (mpif.h, `use mpi`: `mpi_x_` in
/// libmpi_mpifh; `use mpi_f08`: `mpi_x_f08_` in libmpi_usempif08) call
/// PMPI_* directly, so an unmodified Fortran program never reaches the C
/// MPI_* the library replaces. These definitions take their place for every
/// collective the library serves, their nonblocking forms, MPI_Init and
/// MPI_Finalize (the configuration, the report), and the MPI_Wait and
/// MPI_Test families (which must advance the calls in flight:
/// Open MPI's own would wait for a request nothing advances). Each converts
/// its handles (MPI_*_f2c), MPI_IN_PLACE and MPI_BOTTOM (the addresses of
/// Open MPI's Fortran sentinels), statuses and 1-based indices, and calls
/// the library's own C binding, which serves the call or hands it to MPI.
///
/// The ABI, as Open MPI 4.1 and gfortran use it: every argument by
/// reference, MPI_Fint is int, buffers are plain addresses (ignore-TKR,
/// also in mpi_f08), an mpi_f08 handle is a struct of one integer, and an
/// absent optional ierror is a null pointer. Every spelling a Fortran
/// compiler may use is defined: mpi_x_, mpi_x__, mpi_x, MPI_X, mpi_x_f08_.
/// The sentinels are only declared (a definition here would become every
/// library's copy), weak so that the library loads without them.
///
//===----------------------------------------------------------------------===//

#include "Pmpi.h"

#include <vector>

using namespace phasec::pmpi;

static_assert(sizeof(MPI_Fint) == sizeof(int),
              "counts and displacements are passed through as int arrays");

extern "C" {
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_bottom_ __attribute__((weak));
// Open MPI's own Fortran MPI_Ialltoallw, for calls phasec does not serve:
// the converted datatype arrays must outlive the call, which only Open
// MPI's binding arranges.
void pmpi_ialltoallw_(void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, void *,
                      MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                      MPI_Fint *, MPI_Fint *) __attribute__((weak));
}

namespace {

/// A Fortran buffer address as C sees it.
void *buf(void *p) {
  if (p && p == static_cast<void *>(&mpi_fortran_in_place_))
    return MPI_IN_PLACE;
  if (p && p == static_cast<void *>(&mpi_fortran_bottom_))
    return MPI_BOTTOM;
  return p;
}

MPI_Comm comm(const MPI_Fint *c) { return MPI_Comm_f2c(*c); }
MPI_Datatype type(const MPI_Fint *t) { return MPI_Type_f2c(*t); }
MPI_Op op(const MPI_Fint *o) { return MPI_Op_f2c(*o); }

/// Runs a C binding on behalf of a Fortran call: the report counts it as
/// Fortran's, and ierror (absent in mpi_f08: null) gets its result.
template <typename F> void call(MPI_Fint *ierr, F f) {
  inFortran = true;
  int rc = f();
  inFortran = false;
  if (ierr)
    *ierr = static_cast<MPI_Fint>(rc);
}

/// A nonblocking C binding: its request back in Fortran's form.
template <typename F> void start(MPI_Fint *request, MPI_Fint *ierr, F f) {
  call(ierr, [&] {
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = f(&r);
    if (rc == MPI_SUCCESS)
      *request = MPI_Request_c2f(r);
    return rc;
  });
}

bool ignored(const MPI_Fint *status) { return status == MPI_F_STATUS_IGNORE; }
bool allIgnored(const MPI_Fint *statuses) {
  return statuses == MPI_F_STATUSES_IGNORE;
}

/// Fortran requests as C's, and back (a completed request becomes
/// MPI_REQUEST_NULL).
std::vector<MPI_Request> requestsOf(int n, const MPI_Fint *f) {
  std::vector<MPI_Request> c(static_cast<size_t>(std::max(n, 0)));
  for (int i = 0; i < n; ++i)
    c[i] = MPI_Request_f2c(f[i]);
  return c;
}
void putRequests(int n, const std::vector<MPI_Request> &c, MPI_Fint *f) {
  for (int i = 0; i < n; ++i)
    f[i] = MPI_Request_c2f(c[i]);
}

/// A status array's entry i (MPI_STATUS_SIZE integers each).
MPI_Fint *statusAt(MPI_Fint *statuses, int i) {
  return statuses +
         static_cast<size_t>(i) * (sizeof(MPI_Status) / sizeof(MPI_Fint));
}

// One implementation per routine; the spellings below call it.

// The collectives' Fortran parameters before the communicator (..._P) and
// their names (..._N), parenthesised; the spellings below share them.
#define PHASEC_UNPAREN(...) __VA_ARGS__
#define PHASEC_A2A_P                                                           \
  (void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt)
#define PHASEC_A2A_N (sb, sc, st, rb, rc, rt)
#define PHASEC_V_P                                                             \
  (void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st, void *rb, MPI_Fint *rc, \
   MPI_Fint *rd, MPI_Fint *rt)
#define PHASEC_V_N (sb, sc, sd, st, rb, rc, rd, rt)
#define PHASEC_RED_P (void *sb, void *rb, MPI_Fint *n, MPI_Fint *t, MPI_Fint *o)
#define PHASEC_RED_N (sb, rb, n, t, o)
#define PHASEC_ROOTRED_P                                                       \
  (void *sb, void *rb, MPI_Fint *n, MPI_Fint *t, MPI_Fint *o, MPI_Fint *root)
#define PHASEC_ROOTRED_N (sb, rb, n, t, o, root)
#define PHASEC_BCAST_P (void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *root)
#define PHASEC_BCAST_N (b, n, t, root)
#define PHASEC_ROOT_P                                                          \
  (void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt, \
   MPI_Fint *root)
#define PHASEC_ROOT_N (sb, sc, st, rb, rc, rt, root)
#define PHASEC_AGV_P                                                           \
  (void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc,               \
   MPI_Fint *dis, MPI_Fint *rt)
#define PHASEC_AGV_N (sb, sc, st, rb, rc, dis, rt)
#define PHASEC_GV_P                                                            \
  (void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc,               \
   MPI_Fint *dis, MPI_Fint *rt, MPI_Fint *root)
#define PHASEC_GV_N (sb, sc, st, rb, rc, dis, rt, root)
#define PHASEC_SV_P                                                            \
  (void *sb, MPI_Fint *sc, MPI_Fint *dis, MPI_Fint *st, void *rb,              \
   MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *root)
#define PHASEC_SV_N (sb, sc, dis, st, rb, rc, rt, root)

// A collective and its nonblocking twin: P, the Fortran parameters before
// the communicator; C, the C arguments made of them.
#define PHASEC_ROUTINE(lower, Upper, P, C)                                     \
  void lower(PHASEC_UNPAREN P, MPI_Fint *cm, MPI_Fint *ie) {                   \
    call(ie, [&] { return MPI_##Upper(PHASEC_UNPAREN C, comm(cm)); });         \
  }                                                                            \
  void i##lower(PHASEC_UNPAREN P, MPI_Fint *cm, MPI_Fint *rq, MPI_Fint *ie) {  \
    start(rq, ie, [&](MPI_Request *r) {                                        \
      return MPI_I##lower(PHASEC_UNPAREN C, comm(cm), r);                      \
    });                                                                        \
  }
#define PHASEC_BLOCKS_C (buf(sb), *sc, type(st), buf(rb), *rc, type(rt))
PHASEC_ROUTINE(alltoall, Alltoall, PHASEC_A2A_P, PHASEC_BLOCKS_C)
PHASEC_ROUTINE(allgather, Allgather, PHASEC_A2A_P, PHASEC_BLOCKS_C)
PHASEC_ROUTINE(alltoallv, Alltoallv, PHASEC_V_P,
               (buf(sb), sc, sd, type(st), buf(rb), rc, rd, type(rt)))
PHASEC_ROUTINE(gather, Gather, PHASEC_ROOT_P,
               (PHASEC_UNPAREN PHASEC_BLOCKS_C, *root))
PHASEC_ROUTINE(scatter, Scatter, PHASEC_ROOT_P,
               (PHASEC_UNPAREN PHASEC_BLOCKS_C, *root))
#undef PHASEC_BLOCKS_C
PHASEC_ROUTINE(allgatherv, Allgatherv, PHASEC_AGV_P,
               (buf(sb), *sc, type(st), buf(rb), rc, dis, type(rt)))
PHASEC_ROUTINE(gatherv, Gatherv, PHASEC_GV_P,
               (buf(sb), *sc, type(st), buf(rb), rc, dis, type(rt), *root))
PHASEC_ROUTINE(scatterv, Scatterv, PHASEC_SV_P,
               (buf(sb), sc, dis, type(st), buf(rb), *rc, type(rt), *root))
PHASEC_ROUTINE(bcast, Bcast, PHASEC_BCAST_P, (buf(b), *n, type(t), *root))
#define PHASEC_RED_C (buf(sb), buf(rb), *n, type(t), op(o))
PHASEC_ROUTINE(reduce, Reduce, PHASEC_ROOTRED_P,
               (PHASEC_UNPAREN PHASEC_RED_C, *root))
#define PHASEC_COMBINE_ROUTINE(Upper, lower, UPPER)                            \
  PHASEC_ROUTINE(lower, Upper, PHASEC_RED_P, PHASEC_RED_C)
PHASEC_PMPI_COMBINE_CALLS(PHASEC_COMBINE_ROUTINE)
#undef PHASEC_COMBINE_ROUTINE
PHASEC_ROUTINE(reduce_scatter_block, Reduce_scatter_block, PHASEC_RED_P,
               PHASEC_RED_C)
#undef PHASEC_RED_C
// reduce_scatter's count argument is the array of counts.
PHASEC_ROUTINE(reduce_scatter, Reduce_scatter, PHASEC_RED_P,
               (buf(sb), buf(rb), n, type(t), op(o)))
#undef PHASEC_ROUTINE

void barrier(MPI_Fint *cm, MPI_Fint *ie) {
  call(ie, [&] { return MPI_Barrier(comm(cm)); });
}
void ibarrier(MPI_Fint *cm, MPI_Fint *rq, MPI_Fint *ie) {
  start(rq, ie, [&](MPI_Request *r) { return MPI_Ibarrier(comm(cm), r); });
}

/// The datatypes of an alltoallw side (`n` of them; none in place).
std::vector<MPI_Datatype> types(int n, const MPI_Fint *f) {
  std::vector<MPI_Datatype> c;
  for (int i = 0; f && i < n; ++i)
    c.push_back(MPI_Type_f2c(f[i]));
  return c;
}
int sizeOf(MPI_Comm c) {
  int n = 0, inter = 0;
  PMPI_Comm_test_inter(c, &inter);
  if (inter)
    PMPI_Comm_remote_size(c, &n);
  else
    PMPI_Comm_size(c, &n);
  return n;
}

void alltoallw(void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st, void *rb,
               MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *cm,
               MPI_Fint *ie) {
  call(ie, [&] {
    int n = sizeOf(comm(cm));
    void *s = buf(sb);
    std::vector<MPI_Datatype> sendTypes = types(s == MPI_IN_PLACE ? 0 : n, st);
    std::vector<MPI_Datatype> recvTypes = types(n, rt);
    return MPI_Alltoallw(s, sc, sd, sendTypes.data(), buf(rb), rc, rd,
                         recvTypes.data(), comm(cm));
  });
}
void ialltoallw(void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st, void *rb,
                MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *cm,
                MPI_Fint *rq, MPI_Fint *ie) {
  inFortran = true;
  int n = sizeOf(comm(cm));
  void *s = buf(sb);
  std::vector<MPI_Datatype> sendTypes = types(s == MPI_IN_PLACE ? 0 : n, st);
  std::vector<MPI_Datatype> recvTypes = types(n, rt);
  // The builder copies what it keeps of the type arrays; MPI's own
  // nonblocking alltoallw reads them until it completes, so a call phasec
  // does not serve goes to Open MPI's Fortran binding, which keeps them.
  mayBlock = false;
  OpPtr built = buildAlltoallw(s, sc, sd, sendTypes.data(), buf(rb), rc, rd,
                               recvTypes.data(), comm(cm), kIalltoallw, false);
  mayBlock = true;
  inFortran = false;
  if (!built) {
    if (pmpi_ialltoallw_)
      return pmpi_ialltoallw_(sb, sc, sd, st, rb, rc, rd, rt, cm, rq, ie);
    if (ie)
      *ie = MPI_ERR_INTERN;
    return;
  }
  MPI_Request r = MPI_REQUEST_NULL;
  int rc_ = startNonblocking(std::move(built), &r);
  if (rc_ == MPI_SUCCESS)
    *rq = MPI_Request_c2f(r);
  if (ie)
    *ie = rc_;
}

// Set-up and tear-down: the library's MPI_Init reads its configuration and
// its MPI_Finalize prints the report (Open MPI's Fortran bindings would go
// to PMPI_Init and PMPI_Finalize).

void init(MPI_Fint *ie) {
  call(ie, [&] { return MPI_Init(nullptr, nullptr); });
}
void init_thread(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ie) {
  call(ie, [&] {
    int got = 0;
    int rc = MPI_Init_thread(nullptr, nullptr, *required, &got);
    *provided = got;
    return rc;
  });
}
void finalize(MPI_Fint *ie) {
  call(ie, [&] { return MPI_Finalize(); });
}

/// MPI_Op_free: deferred while a call in flight uses the operator.
void op_free(MPI_Fint *o, MPI_Fint *ie) {
  call(ie, [&] {
    MPI_Op c = MPI_Op_f2c(*o);
    int rc = MPI_Op_free(&c);
    *o = MPI_Op_c2f(c);
    return rc;
  });
}

// Completion. MPI_Wait and MPI_Test do not write a status's MPI_ERROR, so
// the C status starts as the Fortran one.

/// One status, in and out of Fortran's (MPI_STATUS_IGNORE where Fortran
/// passed MPI_STATUS_IGNORE).
struct OneStatus {
  explicit OneStatus(MPI_Fint *f) : f(f) {
    if (!ignored(f))
      MPI_Status_f2c(f, &c);
  }
  MPI_Status *get() { return ignored(f) ? MPI_STATUS_IGNORE : &c; }
  /// Back to Fortran, when the call says the status is set.
  void put(bool set = true) {
    if (set && !ignored(f))
      MPI_Status_c2f(&c, f);
  }
  MPI_Fint *f;
  MPI_Status c;
};

void wait(MPI_Fint *rq, MPI_Fint *status, MPI_Fint *ie) {
  call(ie, [&] {
    MPI_Request r = MPI_Request_f2c(*rq);
    OneStatus s(status);
    int rc = MPI_Wait(&r, s.get());
    *rq = MPI_Request_c2f(r);
    s.put();
    return rc;
  });
}
void test(MPI_Fint *rq, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ie) {
  call(ie, [&] {
    MPI_Request r = MPI_Request_f2c(*rq);
    OneStatus s(status);
    int done = 0;
    int rc = MPI_Test(&r, &done, s.get());
    *flag = done ? 1 : 0;
    *rq = MPI_Request_c2f(r);
    s.put(done);
    return rc;
  });
}
void request_get_status(MPI_Fint *rq, MPI_Fint *flag, MPI_Fint *status,
                        MPI_Fint *ie) {
  call(ie, [&] {
    OneStatus s(status);
    int done = 0;
    int rc = MPI_Request_get_status(MPI_Request_f2c(*rq), &done, s.get());
    *flag = done ? 1 : 0;
    s.put(done);
    return rc;
  });
}

/// The statuses of a C call over `n` requests, in and out of Fortran's.
struct Statuses {
  Statuses(int n, MPI_Fint *f) : f(f), c(allIgnored(f) ? 0 : std::max(n, 0)) {
    for (size_t i = 0; i < c.size(); ++i)
      MPI_Status_f2c(statusAt(f, static_cast<int>(i)), &c[i]);
  }
  MPI_Status *data() { return c.empty() ? MPI_STATUSES_IGNORE : c.data(); }
  void put(int i) {
    if (!c.empty())
      MPI_Status_c2f(&c[i], statusAt(f, i));
  }
  MPI_Fint *f;
  std::vector<MPI_Status> c;
};

/// Waitall (flag null) and testall.
void all(MPI_Fint *n, MPI_Fint *rqs, MPI_Fint *flag, MPI_Fint *statuses,
         MPI_Fint *ie) {
  call(ie, [&] {
    std::vector<MPI_Request> r = requestsOf(*n, rqs);
    Statuses s(*n, statuses);
    int done = 1;
    int rc = flag ? MPI_Testall(*n, r.data(), &done, s.data())
                  : MPI_Waitall(*n, r.data(), s.data());
    if (flag)
      *flag = done ? 1 : 0;
    putRequests(*n, r, rqs);
    if (done)
      for (int i = 0; i < *n; ++i)
        s.put(i);
    return rc;
  });
}
void waitall(MPI_Fint *n, MPI_Fint *rqs, MPI_Fint *statuses, MPI_Fint *ie) {
  all(n, rqs, nullptr, statuses, ie);
}
void testall(MPI_Fint *n, MPI_Fint *rqs, MPI_Fint *flag, MPI_Fint *statuses,
             MPI_Fint *ie) {
  all(n, rqs, flag, statuses, ie);
}
/// Waitany (flag null) and testany: `index` is 1-based in Fortran.
void any(MPI_Fint *n, MPI_Fint *rqs, MPI_Fint *index, MPI_Fint *flag,
         MPI_Fint *status, MPI_Fint *ie) {
  call(ie, [&] {
    std::vector<MPI_Request> r = requestsOf(*n, rqs);
    OneStatus s(status);
    int i = MPI_UNDEFINED, done = 1;
    int rc = flag ? MPI_Testany(*n, r.data(), &i, &done, s.get())
                  : MPI_Waitany(*n, r.data(), &i, s.get());
    putRequests(*n, r, rqs);
    if (flag)
      *flag = done ? 1 : 0;
    *index = i == MPI_UNDEFINED ? MPI_UNDEFINED : i + 1;
    s.put(done);
    return rc;
  });
}
void waitany(MPI_Fint *n, MPI_Fint *rqs, MPI_Fint *index, MPI_Fint *status,
             MPI_Fint *ie) {
  any(n, rqs, index, nullptr, status, ie);
}
void testany(MPI_Fint *n, MPI_Fint *rqs, MPI_Fint *index, MPI_Fint *flag,
             MPI_Fint *status, MPI_Fint *ie) {
  any(n, rqs, index, flag, status, ie);
}
/// Waitsome and testsome: `indices` are 1-based in Fortran.
template <typename F>
void some(MPI_Fint *n, MPI_Fint *rqs, MPI_Fint *outcount, MPI_Fint *indices,
          MPI_Fint *statuses, MPI_Fint *ie, F f) {
  call(ie, [&] {
    std::vector<MPI_Request> r = requestsOf(*n, rqs);
    Statuses s(*n, statuses);
    std::vector<int> idx(static_cast<size_t>(std::max(*n, 1)));
    int out = 0;
    int rc = f(*n, r.data(), &out, idx.data(), s.data());
    putRequests(*n, r, rqs);
    *outcount = out;
    for (int k = 0; out != MPI_UNDEFINED && k < out; ++k) {
      indices[k] = idx[k] + 1;
      s.put(k);
    }
    return rc;
  });
}
void waitsome(MPI_Fint *n, MPI_Fint *rqs, MPI_Fint *outcount, MPI_Fint *indices,
              MPI_Fint *statuses, MPI_Fint *ie) {
  some(n, rqs, outcount, indices, statuses, ie, MPI_Waitsome);
}
void testsome(MPI_Fint *n, MPI_Fint *rqs, MPI_Fint *outcount, MPI_Fint *indices,
              MPI_Fint *statuses, MPI_Fint *ie) {
  some(n, rqs, outcount, indices, statuses, ie, MPI_Testsome);
}

} // namespace

// Every spelling of every routine: gfortran's mpi_x_ (mpif.h, use mpi) and
// mpi_x_f08_ (use mpi_f08), and the other compilers' mpi_x__, mpi_x, MPI_X.
#define PHASEC_SPELL(lower, UPPER, PARAMS, ARGS)                               \
  void mpi_##lower##_ PARAMS { lower ARGS; }                                   \
  void mpi_##lower##__ PARAMS { lower ARGS; }                                  \
  void mpi_##lower PARAMS { lower ARGS; }                                      \
  void MPI_##UPPER PARAMS { lower ARGS; }                                      \
  void mpi_##lower##_f08_ PARAMS { lower ARGS; }

// A collective and its nonblocking twin, whose request comes before ierror:
// P and N are the parameters and their names before the communicator.
#define PHASEC_SPELL_BOTH(lower, UPPER, P, N)                                  \
  PHASEC_SPELL(lower, UPPER, (PHASEC_UNPAREN P, MPI_Fint * cm, MPI_Fint * ie), \
               (PHASEC_UNPAREN N, cm, ie))                                     \
  PHASEC_SPELL(                                                                \
      i##lower, I##UPPER,                                                      \
      (PHASEC_UNPAREN P, MPI_Fint * cm, MPI_Fint * rq, MPI_Fint * ie),         \
      (PHASEC_UNPAREN N, cm, rq, ie))

extern "C" {
PHASEC_SPELL(init, INIT, (MPI_Fint * ie), (ie))
PHASEC_SPELL(init_thread, INIT_THREAD,
             (MPI_Fint * required, MPI_Fint *provided, MPI_Fint *ie),
             (required, provided, ie))
PHASEC_SPELL(finalize, FINALIZE, (MPI_Fint * ie), (ie))
PHASEC_SPELL(op_free, OP_FREE, (MPI_Fint * o, MPI_Fint *ie), (o, ie))
PHASEC_SPELL_BOTH(alltoall, ALLTOALL, PHASEC_A2A_P, PHASEC_A2A_N)
PHASEC_SPELL_BOTH(alltoallv, ALLTOALLV, PHASEC_V_P, PHASEC_V_N)
PHASEC_SPELL_BOTH(alltoallw, ALLTOALLW, PHASEC_V_P, PHASEC_V_N)
PHASEC_SPELL_BOTH(bcast, BCAST, PHASEC_BCAST_P, PHASEC_BCAST_N)
PHASEC_SPELL(barrier, BARRIER, (MPI_Fint * cm, MPI_Fint *ie), (cm, ie))
PHASEC_SPELL(ibarrier, IBARRIER, (MPI_Fint * cm, MPI_Fint *rq, MPI_Fint *ie),
             (cm, rq, ie))
PHASEC_SPELL_BOTH(reduce, REDUCE, PHASEC_ROOTRED_P, PHASEC_ROOTRED_N)
PHASEC_SPELL_BOTH(reduce_scatter_block, REDUCE_SCATTER_BLOCK, PHASEC_RED_P,
                  PHASEC_RED_N)
PHASEC_SPELL_BOTH(reduce_scatter, REDUCE_SCATTER, PHASEC_RED_P, PHASEC_RED_N)
PHASEC_SPELL_BOTH(allgather, ALLGATHER, PHASEC_A2A_P, PHASEC_A2A_N)
PHASEC_SPELL_BOTH(allgatherv, ALLGATHERV, PHASEC_AGV_P, PHASEC_AGV_N)
PHASEC_SPELL_BOTH(gather, GATHER, PHASEC_ROOT_P, PHASEC_ROOT_N)
PHASEC_SPELL_BOTH(gatherv, GATHERV, PHASEC_GV_P, PHASEC_GV_N)
PHASEC_SPELL_BOTH(scatter, SCATTER, PHASEC_ROOT_P, PHASEC_ROOT_N)
PHASEC_SPELL_BOTH(scatterv, SCATTERV, PHASEC_SV_P, PHASEC_SV_N)
// The reductions of PHASEC_PMPI_COMBINE_CALLS (allreduce, scan, exscan).
#define PHASEC_COMBINE_SPELL(Upper, lower, UPPER)                              \
  PHASEC_SPELL_BOTH(lower, UPPER, PHASEC_RED_P, PHASEC_RED_N)
PHASEC_PMPI_COMBINE_CALLS(PHASEC_COMBINE_SPELL)
#undef PHASEC_COMBINE_SPELL
PHASEC_SPELL(wait, WAIT, (MPI_Fint * rq, MPI_Fint *status, MPI_Fint *ie),
             (rq, status, ie))
PHASEC_SPELL(test, TEST,
             (MPI_Fint * rq, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ie),
             (rq, flag, status, ie))
PHASEC_SPELL(request_get_status, REQUEST_GET_STATUS,
             (MPI_Fint * rq, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ie),
             (rq, flag, status, ie))
PHASEC_SPELL(waitall, WAITALL,
             (MPI_Fint * n, MPI_Fint *rqs, MPI_Fint *statuses, MPI_Fint *ie),
             (n, rqs, statuses, ie))
PHASEC_SPELL(testall, TESTALL,
             (MPI_Fint * n, MPI_Fint *rqs, MPI_Fint *flag, MPI_Fint *statuses,
              MPI_Fint *ie),
             (n, rqs, flag, statuses, ie))
PHASEC_SPELL(waitany, WAITANY,
             (MPI_Fint * n, MPI_Fint *rqs, MPI_Fint *index, MPI_Fint *status,
              MPI_Fint *ie),
             (n, rqs, index, status, ie))
PHASEC_SPELL(testany, TESTANY,
             (MPI_Fint * n, MPI_Fint *rqs, MPI_Fint *index, MPI_Fint *flag,
              MPI_Fint *status, MPI_Fint *ie),
             (n, rqs, index, flag, status, ie))
PHASEC_SPELL(waitsome, WAITSOME,
             (MPI_Fint * n, MPI_Fint *rqs, MPI_Fint *outcount,
              MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ie),
             (n, rqs, outcount, indices, statuses, ie))
PHASEC_SPELL(testsome, TESTSOME,
             (MPI_Fint * n, MPI_Fint *rqs, MPI_Fint *outcount,
              MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ie),
             (n, rqs, outcount, indices, statuses, ie))
} // extern "C"
