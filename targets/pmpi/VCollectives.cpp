//===- VCollectives.cpp - Gathers, scatters and reductions of varying counts
//===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// MPI_Allgatherv, MPI_Gatherv, MPI_Scatterv and MPI_Reduce_scatter by the
/// schedules of their equal-block kinds: the chunk replay is about chunk
/// ids, not sizes, so a schedule made for blocks of m elements moves blocks
/// of any sizes correctly when block b's chunks are cut from b's own
/// elements (ChunkLayout's starts and counts). Where every rank knows every
/// count (allgatherv, reduce_scatter), any algorithm will do, and the
/// schedule is the one for the largest block; a call whose largest block
/// is more than kMaxUnevenness times the mean goes to MPI (an equal-block
/// schedule would move mostly nothing in most phases). MPI_Gatherv and
/// MPI_Scatterv tell each non-root rank only its own count, so they use the
/// direct schedule (every member's blocks straight to or from the root, in
/// congestion-free phases), in which no rank handles another's block.
///
//===----------------------------------------------------------------------===//

#include "Pmpi.h"

#include <algorithm>
#include <cstring>

using namespace phasec;
using namespace phasec::pmpi;

namespace {

/// Most the largest block may exceed the mean by for an equal-block
/// schedule to serve a call.
constexpr int64_t kMaxUnevenness = 4;

/// The layout of blocks of the given sizes (in member order, bytes or
/// elements) one after the other; returns their total.
int64_t layBlocks(ChunkLayout &layout, int64_t perBlock,
                  std::vector<int64_t> counts, int64_t elementBytes) {
  layout.perBlock = perBlock;
  layout.elementBytes = elementBytes;
  layout.counts = std::move(counts);
  layout.starts.assign(layout.counts.size(), 0);
  int64_t total = 0;
  for (size_t m = 0; m < layout.counts.size(); ++m) {
    layout.starts[m] = total;
    total += layout.counts[m];
  }
  return total;
}

/// Whether counts `c` (one per comm rank, of `unit` bytes each) suit an
/// equal-block schedule: the reason if not (kNumReasons if they do), and
/// the largest block in bytes.
FallbackReason unevenness(const int counts[], int64_t n, int64_t unit,
                          int64_t &largest) {
  int64_t total = 0;
  largest = 0;
  for (int64_t r = 0; r < n; ++r) {
    if (counts[r] < 0)
      return kInvalid;
    total += counts[r] * unit;
    largest = std::max<int64_t>(largest, counts[r] * unit);
  }
  if (total == 0)
    return kNoData;
  if (largest * n > kMaxUnevenness * total)
    return kUneven;
  return kNumReasons;
}

/// A gatherv's or scatterv's operation over its direct schedule, no block
/// moved yet (every member's sizes 0), or null (handed back).
std::unique_ptr<AlltoallOp>
directOp(MPI_Comm comm, Function f, CollectiveKind kind, int root, Plan &plan) {
  std::shared_ptr<CompiledAlltoall> schedule;
  if (!serveDirect(state(), comm, f, kind, root, plan, schedule))
    return nullptr;
  const size_t n = plan.info->commRankOfMember.size();
  auto op = std::make_unique<AlltoallOp>(plan, schedule);
  op->sendAt.assign(n, 0);
  op->sendBytes.assign(n, 0);
  op->recvAt.assign(n, 0);
  op->recvBytes.assign(n, 0);
  return op;
}

} // namespace

namespace phasec::pmpi {

OpPtr buildAllgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const int recvcounts[], const int displs[],
                      MPI_Datatype recvtype, MPI_Comm comm, Function f,
                      bool blocking) {
  State &s = state();
  Plan plan;
  std::shared_ptr<CompiledRelay> relay;
  RelayCall call{CollectiveKind::Allgather};
  FallbackReason early = kNumReasons;
  int size = 0;
  if (s.initialized && comm != MPI_COMM_NULL) {
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (!inter) {
      PMPI_Comm_size(comm, &size);
      early = unevenness(recvcounts, size, typeSize(recvtype), call.count);
    }
  }
  if (!serveRelay(s, comm, f, call, early, plan, relay))
    return nullptr;
  const int64_t n = plan.numMembers(), unit = typeSize(recvtype);
  auto op = std::make_unique<RelayOp>(plan, relay, blocking);
  int64_t span = 0;
  std::vector<int64_t> counts(n);
  for (int64_t m = 0; m < n; ++m) {
    int r = plan.rankOf(m);
    counts[m] = recvcounts[r] * unit;
    span = std::max<int64_t>(span, int64_t(displs[r]) + recvcounts[r]);
  }
  if (!blocking)
    recvtype = op->hold(recvtype);
  ByteView &recvView = op->view(), &sendView = op->view();
  viewRecv(recvbuf, span, recvtype, recvView);
  if (sendbuf != MPI_IN_PLACE)
    viewSend(sendbuf, sendcount, sendtype, sendView);
  int64_t total = layBlocks(op->layout, relay->perBlock, counts, 1);
  char *D = spaceFor(*op, plan, blocking, total);
  const int myRank = plan.rankOf(plan.me);
  const char *mine = sendbuf != MPI_IN_PLACE
                         ? sendView.bytes
                         : recvView.bytes + int64_t(displs[myRank]) * unit;
  std::memcpy(D + op->layout.starts[plan.me], mine,
              static_cast<size_t>(counts[plan.me]));
  op->D = D;
  op->onFinish = [D, n, unit, &recvView, recvbuf, span, recvtype,
                  &layout = op->layout, order = plan.info->commRankOfMember,
                  displs = std::vector<int>(displs, displs + n)] {
    for (int64_t m = 0; m < n; ++m)
      std::memcpy(recvView.bytes + int64_t(displs[order[m]]) * unit,
                  D + layout.starts[m], static_cast<size_t>(layout.counts[m]));
    unpackRecv(recvbuf, span, recvtype, recvView);
    return int(MPI_SUCCESS);
  };
  countServed(f);
  return op;
}

OpPtr buildReduceScatter(const void *sendbuf, void *recvbuf,
                         const int recvcounts[], MPI_Datatype datatype,
                         MPI_Op mop, MPI_Comm comm, Function f, bool blocking) {
  State &s = state();
  Plan plan;
  std::shared_ptr<CompiledRelay> relay;
  RelayCall call{CollectiveKind::ReduceScatter, -1, false, 0, 1, datatype, mop};
  FallbackReason early = kNumReasons;
  if (s.initialized && comm != MPI_COMM_NULL) {
    early = reductionReason(datatype, mop, call.elementBytes);
    int inter = 0, size = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (!inter && early == kNumReasons) {
      PMPI_Comm_size(comm, &size);
      int64_t largest = 0;
      early = unevenness(recvcounts, size, 1, largest);
      call.count = largest;
    }
  }
  if (!serveRelay(s, comm, f, call, early, plan, relay))
    return nullptr;
  const int64_t n = plan.numMembers(), unit = call.elementBytes;
  auto op = std::make_unique<RelayOp>(plan, relay, blocking);
  // The work space holds the blocks in member order; the input is in comm
  // rank order.
  std::vector<int64_t> counts(n), inputAt(n + 1, 0);
  for (int64_t r = 0; r < n; ++r)
    inputAt[r + 1] = inputAt[r] + recvcounts[r];
  for (int64_t m = 0; m < n; ++m)
    counts[m] = recvcounts[plan.rankOf(m)];
  int64_t total = layBlocks(op->layout, relay->perBlock, counts, unit);
  char *D = spaceFor(*op, plan, blocking, total * unit);
  const char *in =
      static_cast<const char *>(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf);
  for (int64_t m = 0; m < n; ++m)
    std::memcpy(D + op->layout.starts[m] * unit,
                in + inputAt[plan.rankOf(m)] * unit,
                static_cast<size_t>(counts[m] * unit));
  op->D = D;
  op->type = blocking ? datatype : op->hold(datatype);
  op->op = blocking ? mop : op->hold(mop);
  const int64_t mineAt = op->layout.starts[plan.me] * unit,
                mineBytes = counts[plan.me] * unit;
  op->onFinish = [recvbuf, D, mineAt, mineBytes] {
    std::memcpy(recvbuf, D + mineAt, static_cast<size_t>(mineBytes));
    return int(MPI_SUCCESS);
  };
  countServed(f);
  return op;
}

OpPtr buildGatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int displs[],
                   MPI_Datatype recvtype, int root, MPI_Comm comm, Function f,
                   bool blocking) {
  Plan plan;
  std::unique_ptr<AlltoallOp> op =
      directOp(comm, f, CollectiveKind::Gather, root, plan);
  if (!op)
    return nullptr;
  const int64_t n = plan.numMembers();
  const int rank = plan.rankOf(plan.me);
  const int rootMember = plan.info->memberOfCommRank[root];
  ByteView &sendView = op->view();
  if (sendbuf != MPI_IN_PLACE)
    viewSend(sendbuf, sendcount, sendtype, sendView);
  op->send = sendView.bytes;
  if (rank != root) {
    // A member knows only its own block, the only one it sends.
    op->sendBytes[rootMember] = int64_t(sendcount) * sendView.elementBytes;
    countServed(f);
    return op;
  }
  const int64_t unit = typeSize(recvtype);
  int64_t span = 0;
  for (int64_t m = 0; m < n; ++m) {
    int r = plan.rankOf(m);
    op->recvAt[m] = int64_t(displs[r]) * unit;
    op->recvBytes[m] = recvcounts[r] * unit;
    span = std::max<int64_t>(span, int64_t(displs[r]) + recvcounts[r]);
  }
  if (!blocking)
    recvtype = op->hold(recvtype);
  ByteView &recvView = op->view();
  viewRecv(recvbuf, span, recvtype, recvView);
  op->recv = recvView.bytes;
  // The root's own block: from its send buffer, or already in place.
  if (sendbuf != MPI_IN_PLACE)
    op->sendBytes[plan.me] = op->recvBytes[plan.me];
  op->onFinish = [recvbuf, span, recvtype, &recvView] {
    unpackRecv(recvbuf, span, recvtype, recvView);
    return int(MPI_SUCCESS);
  };
  countServed(f);
  return op;
}

OpPtr buildScatterv(const void *sendbuf, const int sendcounts[],
                    const int displs[], MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root,
                    MPI_Comm comm, Function f, bool blocking) {
  Plan plan;
  std::unique_ptr<AlltoallOp> op =
      directOp(comm, f, CollectiveKind::Scatter, root, plan);
  if (!op)
    return nullptr;
  const int64_t n = plan.numMembers();
  const int rank = plan.rankOf(plan.me);
  const int rootMember = plan.info->memberOfCommRank[root];
  if (!blocking && recvbuf != MPI_IN_PLACE)
    recvtype = op->hold(recvtype);
  ByteView &recvView = op->view();
  const bool keep = recvbuf != MPI_IN_PLACE;
  if (keep)
    viewRecv(recvbuf, recvcount, recvtype, recvView);
  op->recv = recvView.bytes;
  if (rank == root) {
    const int64_t unit = typeSize(sendtype);
    int64_t span = 0;
    for (int64_t m = 0; m < n; ++m) {
      int r = plan.rankOf(m);
      op->sendAt[m] = int64_t(displs[r]) * unit;
      op->sendBytes[m] = sendcounts[r] * unit;
      span = std::max<int64_t>(span, int64_t(displs[r]) + sendcounts[r]);
    }
    ByteView &sendView = op->view();
    viewSend(sendbuf, span, sendtype, sendView);
    op->send = sendView.bytes;
    // In place, the root's block stays where it is.
    if (!keep)
      op->sendBytes[plan.me] = 0;
  } else {
    op->recvBytes[rootMember] = int64_t(recvcount) * recvView.elementBytes;
  }
  if (keep)
    op->onFinish = unpackLater(recvbuf, recvcount, recvtype, recvView);
  countServed(f);
  return op;
}

} // namespace phasec::pmpi

extern "C" {

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int displs[],
                   MPI_Datatype recvtype, MPI_Comm comm) {
  return runBlocking(
      [&] {
        return buildAllgatherv(sendbuf, sendcount, sendtype, recvbuf,
                               recvcounts, displs, recvtype, comm, kAllgatherv,
                               true);
      },
      [&](MPI_Request *r) {
        return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf,
                                recvcounts, displs, recvtype, comm, r);
      });
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf,
                       const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm) {
  return runBlocking(
      [&] {
        return buildReduceScatter(sendbuf, recvbuf, recvcounts, datatype, op,
                                  comm, kReduce_scatter, true);
      },
      [&](MPI_Request *r) {
        return PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op,
                                    comm, r);
      });
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, const int recvcounts[], const int displs[],
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return runBlocking(
      [&] {
        return buildGatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                            displs, recvtype, root, comm, kGatherv, true);
      },
      [&](MPI_Request *r) {
        return PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                             displs, recvtype, root, comm, r);
      });
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[],
                 const int displs[], MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm) {
  return runBlocking(
      [&] {
        return buildScatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
                             recvcount, recvtype, root, comm, kScatterv, true);
      },
      [&](MPI_Request *r) {
        return PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
                              recvcount, recvtype, root, comm, r);
      });
}

} // extern "C"
