//===- Nonblocking.cpp - MPI_I* collectives, MPI_Test* and MPI_Wait*
//-------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The nonblocking forms of every served collective. A served call starts
/// its Operation and returns a generalized request (MPI_Grequest_start) that
/// is completed when the operation's last step is done; the operation
/// advances whenever the program calls MPI_Test*, MPI_Wait* or another
/// served collective (MPI does not call back into a generalized request, so
/// the library intercepts those). A wait advances every call in flight
/// together, not only the one waited for: another rank may need this one to
/// advance a different call first. Calls phasec does not serve go to MPI's
/// own MPI_I* and their requests are MPI's.
///
/// The first call of a kind (and size class) on a communicator agrees on
/// the schedule with a broadcast on that communicator, as the blocking forms
/// do; later calls start without communicating.
///
//===----------------------------------------------------------------------===//

#include "Pmpi.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>

using namespace phasec;
using namespace phasec::pmpi;

namespace {

/// Calls in flight, read without the lock to keep programs without
/// nonblocking collectives at MPI's own speed.
std::atomic<long> inFlight{0};
/// One thread at a time advances the calls in flight.
std::mutex progressMutex;

/// What a completed call's request reports: no data of its own (a
/// collective's status carries nothing), and its error.
int queryRequest(void *extra, MPI_Status *status) {
  auto *op = static_cast<Operation *>(extra);
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
  status->MPI_ERROR = op->error;
  return op->error;
}

int freeRequest(void *extra) {
  delete static_cast<Operation *>(extra);
  return MPI_SUCCESS;
}

/// A collective cannot be cancelled (MPI-3.1, 5.12): nothing to do.
int cancelRequest(void *, int) { return MPI_SUCCESS; }

} // namespace

namespace phasec::pmpi {

int waitAdvancing(MPI_Request *request, MPI_Status *status) {
  for (;;) {
    // Nothing to advance: MPI's own wait (which need not spin).
    if (!callsInFlight())
      return PMPI_Wait(request, status);
    int flag = 0;
    if (int err = PMPI_Test(request, &flag, status))
      return err;
    if (flag)
      return MPI_SUCCESS;
    progressAndYield();
  }
}

void progressAndYield() {
  progressPending();
  std::this_thread::yield();
}

bool callsInFlight() { return inFlight.load(std::memory_order_acquire) != 0; }

void progressPending() {
  if (inFlight.load(std::memory_order_acquire) == 0)
    return;
  std::unique_lock<std::mutex> progressing(progressMutex, std::try_to_lock);
  if (!progressing)
    return;
  State &s = state();
  std::vector<std::pair<MPI_Request, Operation *>> calls;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    calls = s.pending;
  }
  for (auto [request, op] : calls) {
    bool done = false;
    int err = op->test(done);
    if (!done && err == MPI_SUCCESS)
      continue;
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      s.pending.erase(std::find(s.pending.begin(), s.pending.end(),
                                std::make_pair(request, op)));
    }
    inFlight.fetch_sub(1, std::memory_order_release);
    // MPI_Wait or MPI_Test reports it (queryRequest).
    op->error = err;
    PMPI_Grequest_complete(request);
  }
}

int startNonblocking(OpPtr op, MPI_Request *request) {
  Operation *raw = op.get();
  if (int err = PMPI_Grequest_start(queryRequest, freeRequest, cancelRequest,
                                    raw, request))
    return err;
  // The request owns the operation from here on (freeRequest).
  op.release();
  int err = raw->start();
  if (err != MPI_SUCCESS || raw->done()) {
    raw->error = err;
    PMPI_Grequest_complete(*request);
    return MPI_SUCCESS;
  }
  State &s = state();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.pending.emplace_back(*request, raw);
  }
  inFlight.fetch_add(1, std::memory_order_release);
  return MPI_SUCCESS;
}

namespace {
/// Operators held by calls in flight, and those the program freed meanwhile.
std::map<MPI_Op, int> heldOps;
std::vector<MPI_Op> freedOps;
} // namespace

void retainOp(MPI_Op op) {
  std::lock_guard<std::mutex> lock(state().mutex);
  ++heldOps[op];
}

void releaseOp(MPI_Op op) {
  bool free = false;
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    auto it = heldOps.find(op);
    if (it == heldOps.end() || --it->second > 0)
      return;
    heldOps.erase(it);
    auto freed = std::find(freedOps.begin(), freedOps.end(), op);
    if (freed != freedOps.end()) {
      freedOps.erase(freed);
      free = true;
    }
  }
  if (free)
    PMPI_Op_free(&op);
}

} // namespace phasec::pmpi

namespace {
/// A nonblocking call: its operation started, or MPI's own.
template <typename Build, typename Fallback>
int runNonblocking(MPI_Request *request, Build build, Fallback fallback) {
  progressPending();
  mayBlock = false;
  OpPtr op = build();
  mayBlock = true;
  if (!op)
    return fallback();
  return startNonblocking(std::move(op), request);
}
} // namespace

extern "C" {

//===----------------------------------------------------------------------===//
// The nonblocking collectives
//===----------------------------------------------------------------------===//

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  MPI_Comm comm, MPI_Request *request) {
  return runNonblocking(
      request,
      [&] {
        return buildAlltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                             recvtype, comm, kIalltoall, false);
      },
      [&] {
        return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                              recvtype, comm, request);
      });
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[],
                   const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int rdispls[],
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  return runNonblocking(
      request,
      [&] {
        return buildAlltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                              recvcounts, rdispls, recvtype, comm, kIalltoallv,
                              false);
      },
      [&] {
        return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                               recvcounts, rdispls, recvtype, comm, request);
      });
}

int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[],
                   const int sdispls[], const MPI_Datatype sendtypes[],
                   void *recvbuf, const int recvcounts[], const int rdispls[],
                   const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request *request) {
  return runNonblocking(
      request,
      [&] {
        return buildAlltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                              recvcounts, rdispls, recvtypes, comm, kIalltoallw,
                              false);
      },
      [&] {
        return PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                               recvcounts, rdispls, recvtypes, comm, request);
      });
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root,
               MPI_Comm comm, MPI_Request *request) {
  return runNonblocking(
      request,
      [&] {
        return buildBcast(buffer, count, datatype, root, comm, kIbcast, false);
      },
      [&] {
        return PMPI_Ibcast(buffer, count, datatype, root, comm, request);
      });
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request) {
  return runNonblocking(
      request, [&] { return buildBarrier(comm, kIbarrier, false); },
      [&] { return PMPI_Ibarrier(comm, request); });
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                MPI_Request *request) {
  return runNonblocking(
      request,
      [&] {
        return buildReduce(sendbuf, recvbuf, count, datatype, op, root, comm,
                           kIreduce, false);
      },
      [&] {
        return PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm,
                            request);
      });
}

// The reductions of PHASEC_PMPI_COMBINE_CALLS.
#define PHASEC_COMBINE_NONBLOCKING(Upper, lower, UPPER)                        \
  int MPI_I##lower(const void *sendbuf, void *recvbuf, int count,              \
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,            \
                   MPI_Request *request) {                                     \
    return runNonblocking(                                                     \
        request,                                                               \
        [&] {                                                                  \
          return buildCombineInReceive(CollectiveKind::Upper, sendbuf,         \
                                       recvbuf, count, datatype, op, comm,     \
                                       kI##lower, false);                      \
        },                                                                     \
        [&] {                                                                  \
          return PMPI_I##lower(sendbuf, recvbuf, count, datatype, op, comm,    \
                               request);                                       \
        });                                                                    \
  }
PHASEC_PMPI_COMBINE_CALLS(PHASEC_COMBINE_NONBLOCKING)
#undef PHASEC_COMBINE_NONBLOCKING

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request *request) {
  return runNonblocking(
      request,
      [&] {
        return buildReduceScatterBlock(sendbuf, recvbuf, recvcount, datatype,
                                       op, comm, kIreduce_scatter_block, false);
      },
      [&] {
        return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype,
                                          op, comm, request);
      });
}

int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf,
                        const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  return runNonblocking(
      request,
      [&] {
        return buildReduceScatter(sendbuf, recvbuf, recvcounts, datatype, op,
                                  comm, kIreduce_scatter, false);
      },
      [&] {
        return PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op,
                                    comm, request);
      });
}

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   MPI_Comm comm, MPI_Request *request) {
  return runNonblocking(
      request,
      [&] {
        return buildAllgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                              recvtype, comm, kIallgather, false);
      },
      [&] {
        return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                               recvtype, comm, request);
      });
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, const int recvcounts[], const int displs[],
                    MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request) {
  return runNonblocking(
      request,
      [&] {
        return buildAllgatherv(sendbuf, sendcount, sendtype, recvbuf,
                               recvcounts, displs, recvtype, comm, kIallgatherv,
                               false);
      },
      [&] {
        return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf,
                                recvcounts, displs, recvtype, comm, request);
      });
}

int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm, MPI_Request *request) {
  return runNonblocking(
      request,
      [&] {
        return buildGather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                           recvtype, root, comm, kIgather, false);
      },
      [&] {
        return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                            recvtype, root, comm, request);
      });
}

int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, const int recvcounts[], const int displs[],
                 MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request) {
  return runNonblocking(
      request,
      [&] {
        return buildGatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                            displs, recvtype, root, comm, kIgatherv, false);
      },
      [&] {
        return PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                             displs, recvtype, root, comm, request);
      });
}

int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request *request) {
  return runNonblocking(
      request,
      [&] {
        return buildScatter(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                            recvtype, root, comm, kIscatter, false);
      },
      [&] {
        return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                             recvtype, root, comm, request);
      });
}

int MPI_Iscatterv(const void *sendbuf, const int sendcounts[],
                  const int displs[], MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request) {
  return runNonblocking(
      request,
      [&] {
        return buildScatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
                             recvcount, recvtype, root, comm, kIscatterv,
                             false);
      },
      [&] {
        return PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
                              recvcount, recvtype, root, comm, request);
      });
}

//===----------------------------------------------------------------------===//
// Blocking point-to-point calls while collectives are in flight
//===----------------------------------------------------------------------===//
//
// MPI progresses a nonblocking collective inside any MPI call; the
// library's advance only inside the calls it intercepts. A program may
// block in a receive whose sender first waits for a collective this rank
// started: so while calls are in flight, the blocking point-to-point calls
// become their nonblocking forms, waited for while the collectives advance.
// Without calls in flight they are MPI's own, untouched.

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag,
             MPI_Comm comm, MPI_Status *status) {
  if (!callsInFlight())
    return PMPI_Recv(buf, count, type, source, tag, comm, status);
  MPI_Request r;
  if (int err = PMPI_Irecv(buf, count, type, source, tag, comm, &r))
    return err;
  return waitAdvancing(&r, status);
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
             MPI_Comm comm) {
  if (!callsInFlight())
    return PMPI_Send(buf, count, type, dest, tag, comm);
  MPI_Request r;
  if (int err = PMPI_Isend(buf, count, type, dest, tag, comm, &r))
    return err;
  return waitAdvancing(&r, MPI_STATUS_IGNORE);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
              MPI_Comm comm) {
  if (!callsInFlight())
    return PMPI_Ssend(buf, count, type, dest, tag, comm);
  MPI_Request r;
  if (int err = PMPI_Issend(buf, count, type, dest, tag, comm, &r))
    return err;
  return waitAdvancing(&r, MPI_STATUS_IGNORE);
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 int dest, int sendtag, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                 MPI_Status *status) {
  if (!callsInFlight())
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                         recvcount, recvtype, source, recvtag, comm, status);
  MPI_Request r[2];
  if (int err = PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm,
                           &r[0]))
    return err;
  if (int err =
          PMPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &r[1]))
    return err;
  if (int err = waitAdvancing(&r[0], status))
    return err;
  return waitAdvancing(&r[1], MPI_STATUS_IGNORE);
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
  if (!callsInFlight())
    return PMPI_Probe(source, tag, comm, status);
  for (;;) {
    int flag = 0;
    if (int err = PMPI_Iprobe(source, tag, comm, &flag, status))
      return err;
    if (flag)
      return MPI_SUCCESS;
    progressAndYield();
  }
}

/// A program may free an operator a call in flight uses: the operator is
/// freed when the last such call ends.
int MPI_Op_free(MPI_Op *op) {
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    if (heldOps.count(*op)) {
      freedOps.push_back(*op);
      *op = MPI_OP_NULL;
      return MPI_SUCCESS;
    }
  }
  return PMPI_Op_free(op);
}

//===----------------------------------------------------------------------===//
// Completion: every wait advances every served call in flight
//===----------------------------------------------------------------------===//

// With calls in flight, every wait tests and advances them in turn, whether
// or not it waits for one of them: the request it waits for may be a
// message another rank sends only once one of them has advanced here.

int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  return waitAdvancing(request, status);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  while (callsInFlight()) {
    int flag = 0;
    if (int err = PMPI_Testall(count, requests, &flag, statuses))
      return err;
    if (flag)
      return MPI_SUCCESS;
    progressAndYield();
  }
  return PMPI_Waitall(count, requests, statuses);
}

int MPI_Waitany(int count, MPI_Request requests[], int *index,
                MPI_Status *status) {
  while (callsInFlight()) {
    int flag = 0;
    if (int err = PMPI_Testany(count, requests, index, &flag, status))
      return err;
    if (flag)
      return MPI_SUCCESS;
    progressAndYield();
  }
  return PMPI_Waitany(count, requests, index, status);
}

int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount,
                 int indices[], MPI_Status statuses[]) {
  while (callsInFlight()) {
    if (int err = PMPI_Testsome(incount, requests, outcount, indices, statuses))
      return err;
    if (*outcount != 0)
      return MPI_SUCCESS;
    progressAndYield();
  }
  return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  progressPending();
  return PMPI_Test(request, flag, status);
}

int MPI_Testall(int count, MPI_Request requests[], int *flag,
                MPI_Status statuses[]) {
  progressPending();
  return PMPI_Testall(count, requests, flag, statuses);
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag,
                MPI_Status *status) {
  progressPending();
  return PMPI_Testany(count, requests, index, flag, status);
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount,
                 int indices[], MPI_Status statuses[]) {
  progressPending();
  return PMPI_Testsome(incount, requests, outcount, indices, statuses);
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status) {
  progressPending();
  return PMPI_Request_get_status(request, flag, status);
}

} // extern "C"
