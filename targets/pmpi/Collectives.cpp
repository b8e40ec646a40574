//===- Collectives.cpp - The collectives libphasec-pmpi serves ------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// One builder per collective: whether phasec serves the call (else null,
/// counted with its reason, and the caller hands it to MPI) and, if so, the
/// Operation that runs it, its buffers viewed as bytes and what it does
/// when its last step is done. The blocking C bindings here run it to the
/// end; the nonblocking ones (Nonblocking.cpp) return its request. Blocking
/// calls borrow the communicator's work space, nonblocking ones own theirs.
///
//===----------------------------------------------------------------------===//

#include "Pmpi.h"

#include <algorithm>
#include <cstring>

using namespace phasec;
using namespace phasec::pmpi;

namespace {

/// Bytes of `n` elements of `type` (no elements: 0, whatever the type, which
/// may then be MPI_DATATYPE_NULL).
int64_t bytesOf(int64_t n, MPI_Datatype type) {
  return n ? n * typeSize(type) : 0;
}

/// The datatypes of an alltoallw's receive side, held for a nonblocking
/// call.
std::vector<MPI_Datatype> heldTypes(Operation &op, const MPI_Datatype types[],
                                    const int counts[], int64_t n,
                                    bool blocking) {
  std::vector<MPI_Datatype> out(types, types + n);
  if (!blocking)
    for (int64_t r = 0; r < n; ++r)
      if (counts[r] > 0)
        out[r] = op.hold(out[r]);
  return out;
}

/// What a gathering call (allgather, gather at the root) does when its
/// schedule is done: the blocks, in member order in D, go to their comm
/// ranks' places in the receive view (unless D is that view, `direct`),
/// which is unpacked if packed.
std::function<int()> gatheredInto(const Plan &plan, bool direct, char *D,
                                  int64_t block, void *recvbuf, int64_t count,
                                  MPI_Datatype recvtype, ByteView &recvView) {
  std::function<int()> unpack = unpackLater(recvbuf, count, recvtype, recvView);
  return [direct, D, block, &recvView, order = plan.info->commRankOfMember,
          unpack] {
    if (!direct)
      for (size_t m = 0; m < order.size(); ++m)
        std::memcpy(recvView.bytes + order[m] * block, D + m * block,
                    static_cast<size_t>(block));
    return unpack ? unpack() : int(MPI_SUCCESS);
  };
}

} // namespace

namespace phasec::pmpi {

/// The operation of an all-to-all call phasec serves (with its plan), or
/// null where it leaves the call to MPI.
static std::unique_ptr<AlltoallOp> startAlltoall(MPI_Comm comm, Function f,
                                                 Plan &plan) {
  if (!serveAlltoall(state(), comm, f, plan))
    return nullptr;
  return std::make_unique<AlltoallOp>(plan, plan.info->alltoall);
}

//===----------------------------------------------------------------------===//
// Alltoall, alltoallv, alltoallw
//===----------------------------------------------------------------------===//

OpPtr buildAlltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    MPI_Comm comm, Function f, bool blocking) {
  Plan plan;
  std::unique_ptr<AlltoallOp> op = startAlltoall(comm, f, plan);
  if (!op)
    return nullptr;
  const int64_t p = plan.numMembers();
  if (!blocking)
    recvtype = op->hold(recvtype);
  ByteView &recvView = op->view(), &sendView = op->view();
  viewRecv(recvbuf, recvcount * p, recvtype, recvView);
  if (sendbuf == MPI_IN_PLACE) {
    viewInPlace(recvbuf, recvcount * p, recvtype, sendView);
    sendcount = recvcount;
  } else {
    viewSend(sendbuf, sendcount * p, sendtype, sendView);
  }
  const int64_t sendBlock = sendcount * sendView.elementBytes;
  const int64_t recvBlock = recvcount * recvView.elementBytes;
  op->send = sendView.bytes;
  op->recv = recvView.bytes;
  // Blocks are in comm rank order in the buffers.
  for (int64_t m = 0; m < p; ++m) {
    op->sendAt.push_back(plan.rankOf(m) * sendBlock);
    op->recvAt.push_back(plan.rankOf(m) * recvBlock);
    op->sendBytes.push_back(sendBlock);
    op->recvBytes.push_back(recvBlock);
  }
  op->onFinish = unpackLater(recvbuf, recvcount * p, recvtype, recvView);
  countServed(f);
  return op;
}

OpPtr buildAlltoallv(const void *sendbuf, const int sendcounts[],
                     const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int rdispls[],
                     MPI_Datatype recvtype, MPI_Comm comm, Function f,
                     bool blocking) {
  Plan plan;
  std::unique_ptr<AlltoallOp> op = startAlltoall(comm, f, plan);
  if (!op)
    return nullptr;
  const int64_t p = plan.numMembers();
  // Byte views over the whole extent the displacements reach.
  auto span = [&](const int counts[], const int displs[]) {
    int64_t end = 0;
    for (int64_t i = 0; i < p; ++i)
      end = std::max<int64_t>(end, int64_t(displs[i]) + counts[i]);
    return end;
  };
  if (!blocking)
    recvtype = op->hold(recvtype);
  ByteView &recvView = op->view(), &sendView = op->view();
  const int64_t recvSpan = span(recvcounts, rdispls);
  viewRecv(recvbuf, recvSpan, recvtype, recvView);
  if (sendbuf == MPI_IN_PLACE) {
    viewInPlace(recvbuf, recvSpan, recvtype, sendView);
    sendcounts = recvcounts;
    sdispls = rdispls;
  } else {
    viewSend(sendbuf, span(sendcounts, sdispls), sendtype, sendView);
  }
  op->send = sendView.bytes;
  op->recv = recvView.bytes;
  // Counts and displacements are per comm rank, in elements.
  for (int64_t m = 0; m < p; ++m) {
    int r = plan.rankOf(m);
    op->sendAt.push_back(int64_t(sdispls[r]) * sendView.elementBytes);
    op->recvAt.push_back(int64_t(rdispls[r]) * recvView.elementBytes);
    op->sendBytes.push_back(int64_t(sendcounts[r]) * sendView.elementBytes);
    op->recvBytes.push_back(int64_t(recvcounts[r]) * recvView.elementBytes);
  }
  op->onFinish = unpackLater(recvbuf, recvSpan, recvtype, recvView);
  countServed(f);
  return op;
}

OpPtr buildAlltoallw(const void *sendbuf, const int sendcounts[],
                     const int sdispls[], const MPI_Datatype sendtypes[],
                     void *recvbuf, const int recvcounts[], const int rdispls[],
                     const MPI_Datatype recvtypes[], MPI_Comm comm, Function f,
                     bool blocking) {
  Plan plan;
  std::unique_ptr<AlltoallOp> op = startAlltoall(comm, f, plan);
  if (!op)
    return nullptr;
  const int64_t p = plan.numMembers();
  const bool inPlace = sendbuf == MPI_IN_PLACE;
  // Each block has its own datatype; displacements are in bytes. Blocks
  // whose types are all the identity move straight from and to the
  // caller's buffers; otherwise every block is packed into one buffer (in
  // place: always, the receive buffer is overwritten) and unpacked after.
  auto identity = [&](const int counts[], const MPI_Datatype types[]) {
    for (int64_t r = 0; r < p; ++r)
      if (counts[r] > 0 && layoutOf(types[r]) != Layout::Identity)
        return false;
    return true;
  };
  auto layOut = [&](const int counts[], const int displs[],
                    const MPI_Datatype types[], bool packed,
                    std::vector<int64_t> &at, std::vector<int64_t> &bytes) {
    std::vector<int64_t> byRank(p), sizeByRank(p);
    int64_t total = 0;
    for (int64_t r = 0; r < p; ++r) {
      sizeByRank[r] = bytesOf(counts[r], types[r]);
      byRank[r] = packed ? total : displs[r];
      total += sizeByRank[r];
    }
    for (int64_t m = 0; m < p; ++m) {
      at.push_back(byRank[plan.rankOf(m)]);
      bytes.push_back(sizeByRank[plan.rankOf(m)]);
    }
    return total;
  };
  const bool sendPacked = inPlace || !identity(sendcounts, sendtypes);
  const bool recvPacked = !identity(recvcounts, recvtypes);
  const int *sc = inPlace ? recvcounts : sendcounts;
  const int *sd = inPlace ? rdispls : sdispls;
  const MPI_Datatype *st = inPlace ? recvtypes : sendtypes;
  const char *sb = static_cast<const char *>(inPlace ? recvbuf : sendbuf);
  int64_t sendTotal = layOut(sc, sd, st, sendPacked, op->sendAt, op->sendBytes);
  int64_t recvTotal = layOut(recvcounts, rdispls, recvtypes, recvPacked,
                             op->recvAt, op->recvBytes);
  op->send = sb;
  if (sendPacked) {
    std::vector<char> &packed = op->space();
    packed.resize(static_cast<size_t>(std::max<int64_t>(sendTotal, 1)));
    for (int64_t r = 0, at = 0; r < p; ++r) {
      packTo(sb + sd[r], sc[r], st[r], packed.data() + at);
      at += bytesOf(sc[r], st[r]);
    }
    op->send = packed.data();
  }
  op->recv = static_cast<char *>(recvbuf);
  if (recvPacked) {
    std::vector<char> &packed = op->space();
    packed.resize(static_cast<size_t>(std::max<int64_t>(recvTotal, 1)));
    op->recv = packed.data();
    op->onFinish =
        [p, recvbuf, recvcounts = std::vector<int>(recvcounts, recvcounts + p),
         rdispls = std::vector<int>(rdispls, rdispls + p),
         recvtypes = heldTypes(*op, recvtypes, recvcounts, p, blocking),
         &packed] {
          for (int64_t r = 0, at = 0; r < p; ++r) {
            unpackFrom(packed.data() + at, recvcounts[r], recvtypes[r],
                       static_cast<char *>(recvbuf) + rdispls[r]);
            at += bytesOf(recvcounts[r], recvtypes[r]);
          }
          return int(MPI_SUCCESS);
        };
  }
  countServed(f);
  return op;
}

//===----------------------------------------------------------------------===//
// Broadcast and barrier
//===----------------------------------------------------------------------===//

OpPtr buildBcast(void *buffer, int count, MPI_Datatype datatype, int root,
                 MPI_Comm comm, Function f, bool blocking) {
  State &s = state();
  Plan plan;
  std::shared_ptr<CompiledRelay> relay;
  RelayCall call{CollectiveKind::Broadcast, root, true};
  if (s.initialized)
    call.count = bytesOf(count, datatype);
  if (!serveRelay(s, comm, f, call, kNumReasons, plan, relay))
    return nullptr;
  auto op = std::make_unique<RelayOp>(plan, relay, blocking);
  if (!blocking)
    datatype = op->hold(datatype);
  ByteView &view = op->view();
  viewRecv(buffer, count, datatype, view);
  op->layout = {relay->perBlock, call.count, 1};
  op->D = view.bytes;
  if (plan.rankOf(plan.me) != root)
    op->onFinish = unpackLater(buffer, count, datatype, view);
  countServed(f);
  return op;
}

OpPtr buildBarrier(MPI_Comm comm, Function f, bool blocking) {
  State &s = state();
  Plan plan;
  std::shared_ptr<CompiledRelay> relay;
  RelayCall call{CollectiveKind::Barrier};
  if (!serveRelay(s, comm, f, call, kNumReasons, plan, relay))
    return nullptr;
  auto op = std::make_unique<RelayOp>(plan, relay, blocking);
  // No data: the messages are the barrier.
  static char nothing;
  op->layout = {relay->perBlock, 0, 1};
  op->D = &nothing;
  countServed(f);
  return op;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

namespace {

/// Whether phasec serves a reduction (its datatype and operator checked
/// first).
bool serveReduction(MPI_Comm comm, Function f, RelayCall &call, Plan &plan,
                    std::shared_ptr<CompiledRelay> &relay) {
  State &s = state();
  FallbackReason early =
      s.initialized ? reductionReason(call.type, call.op, call.elementBytes)
                    : kNumReasons;
  return serveRelay(s, comm, f, call, early, plan, relay);
}

/// A reduction's operation over the work space D, which starts as this
/// rank's input `in` (bytes of `count` elements; MPI_IN_PLACE: already
/// there).
OpPtr reduceOver(const Plan &plan, std::shared_ptr<CompiledRelay> relay,
                 const RelayCall &call, const void *in, char *D,
                 bool blocking) {
  auto op = std::make_unique<RelayOp>(plan, relay, blocking);
  if (in != MPI_IN_PLACE && in != D)
    std::memcpy(D, in, static_cast<size_t>(call.count * call.elementBytes));
  op->layout = {relay->perBlock, call.count, call.elementBytes};
  op->D = D;
  op->type = blocking ? call.type : op->hold(call.type);
  op->op = blocking ? call.op : op->hold(call.op);
  return op;
}

} // namespace

OpPtr buildReduce(const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op mop, int root, MPI_Comm comm,
                  Function f, bool blocking) {
  Plan plan;
  std::shared_ptr<CompiledRelay> relay;
  RelayCall call{CollectiveKind::Reduce, root, true, count, 1, datatype, mop};
  if (!serveReduction(comm, f, call, plan, relay))
    return nullptr;
  // The root combines into its receive buffer, the others into a work
  // space.
  const bool isRoot = plan.rankOf(plan.me) == root;
  OpPtr op;
  if (isRoot) {
    op = reduceOver(plan, relay, call, sendbuf, static_cast<char *>(recvbuf),
                    blocking);
  } else {
    auto owned = std::make_unique<RelayOp>(plan, relay, blocking);
    char *D = spaceFor(*owned, plan, blocking, call.count * call.elementBytes);
    std::memcpy(D, sendbuf,
                static_cast<size_t>(call.count * call.elementBytes));
    owned->layout = {relay->perBlock, call.count, call.elementBytes};
    owned->D = D;
    owned->type = blocking ? datatype : owned->hold(datatype);
    owned->op = blocking ? mop : owned->hold(mop);
    op = std::move(owned);
  }
  countServed(f);
  return op;
}

OpPtr buildCombineInReceive(CollectiveKind kind, const void *sendbuf,
                            void *recvbuf, int count, MPI_Datatype datatype,
                            MPI_Op mop, MPI_Comm comm, Function f,
                            bool blocking) {
  Plan plan;
  std::shared_ptr<CompiledRelay> relay;
  RelayCall call{kind, -1, false, count, 1, datatype, mop};
  if (!serveReduction(comm, f, call, plan, relay))
    return nullptr;
  if (getTraits(kind).recv.holders == DataHolders::Every) {
    OpPtr op = reduceOver(plan, relay, call, sendbuf,
                          static_cast<char *>(recvbuf), blocking);
    countServed(f);
    return op;
  }
  // An exclusive prefix: the first rank's receive buffer is left as it was
  // (MPI leaves it undefined), so the result comes through a work space.
  const int64_t bytes = call.count * call.elementBytes;
  auto op = std::make_unique<RelayOp>(plan, relay, blocking);
  char *D = spaceFor(*op, plan, blocking, bytes);
  std::memcpy(D, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf,
              static_cast<size_t>(bytes));
  op->layout = {relay->perBlock, call.count, call.elementBytes};
  op->D = D;
  op->type = blocking ? datatype : op->hold(datatype);
  op->op = blocking ? mop : op->hold(mop);
  if (plan.me > 0)
    op->onFinish = [recvbuf, D, bytes] {
      std::memcpy(recvbuf, D, static_cast<size_t>(bytes));
      return int(MPI_SUCCESS);
    };
  countServed(f);
  return op;
}

OpPtr buildReduceScatterBlock(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op mop, MPI_Comm comm,
                              Function f, bool blocking) {
  Plan plan;
  std::shared_ptr<CompiledRelay> relay;
  RelayCall call{
      CollectiveKind::ReduceScatter, -1, false, recvcount, 1, datatype, mop};
  if (!serveReduction(comm, f, call, plan, relay))
    return nullptr;
  // The work space holds the blocks in member order.
  const int64_t n = plan.numMembers();
  const int64_t block = call.count * call.elementBytes;
  auto op = std::make_unique<RelayOp>(plan, relay, blocking);
  char *D = spaceFor(*op, plan, blocking, n * block);
  const char *in =
      static_cast<const char *>(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf);
  for (int64_t m = 0; m < n; ++m)
    std::memcpy(D + m * block, in + plan.rankOf(m) * block,
                static_cast<size_t>(block));
  op->layout = {relay->perBlock, call.count, call.elementBytes};
  op->D = D;
  op->type = blocking ? datatype : op->hold(datatype);
  op->op = blocking ? mop : op->hold(mop);
  const int me = plan.me;
  op->onFinish = [recvbuf, D, block, me] {
    std::memcpy(recvbuf, D + me * block, static_cast<size_t>(block));
    return int(MPI_SUCCESS);
  };
  countServed(f);
  return op;
}

//===----------------------------------------------------------------------===//
// Allgather, gather, scatter
//===----------------------------------------------------------------------===//

OpPtr buildAllgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype,
                     MPI_Comm comm, Function f, bool blocking) {
  State &s = state();
  Plan plan;
  std::shared_ptr<CompiledRelay> relay;
  RelayCall call{CollectiveKind::Allgather};
  if (s.initialized)
    call.count = bytesOf(recvcount, recvtype);
  if (!serveRelay(s, comm, f, call, kNumReasons, plan, relay))
    return nullptr;
  const int64_t n = plan.numMembers(), block = call.count;
  auto op = std::make_unique<RelayOp>(plan, relay, blocking);
  if (!blocking)
    recvtype = op->hold(recvtype);
  ByteView &recvView = op->view(), &sendView = op->view();
  viewRecv(recvbuf, recvcount * n, recvtype, recvView);
  if (sendbuf != MPI_IN_PLACE)
    viewSend(sendbuf, sendcount, sendtype, sendView);
  // Blocks in member order: the receive buffer itself when the comm ranks
  // are in world order, else a work space.
  const bool direct = plan.info->inWorldOrder();
  char *D = direct ? recvView.bytes : spaceFor(*op, plan, blocking, n * block);
  const int myRank = plan.rankOf(plan.me);
  const char *mine = sendbuf != MPI_IN_PLACE ? sendView.bytes
                                             : recvView.bytes + myRank * block;
  if (D + plan.me * block != mine)
    std::memcpy(D + plan.me * block, mine, static_cast<size_t>(block));
  op->layout = {relay->perBlock, block, 1};
  op->D = D;
  op->onFinish = gatheredInto(plan, direct, D, block, recvbuf, recvcount * n,
                              recvtype, recvView);
  countServed(f);
  return op;
}

/// MPI_Gather and MPI_Scatter served by relay: a block's bytes are the
/// root's `rootCount` of `rootType` and every other rank's `count` of `type`
/// (the standard makes them equal).
struct RootedRelay {
  RelayCall call;
  Plan plan;
  std::shared_ptr<CompiledRelay> relay;
  int rank = -1;

  /// The operation, or null where the call is not served.
  std::unique_ptr<RelayOp> serve(MPI_Comm comm, Function f, int rootCount,
                                 MPI_Datatype rootType, int count,
                                 MPI_Datatype type, bool blocking) {
    State &s = state();
    if (s.initialized && comm != MPI_COMM_NULL) {
      PMPI_Comm_rank(comm, &rank);
      call.count = rank == call.root ? bytesOf(rootCount, rootType)
                                     : bytesOf(count, type);
    }
    if (!serveRelay(s, comm, f, call, kNumReasons, plan, relay))
      return nullptr;
    return std::make_unique<RelayOp>(plan, relay, blocking);
  }
};

OpPtr buildGather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                  MPI_Comm comm, Function f, bool blocking) {
  RootedRelay r{{CollectiveKind::Gather, root, true}};
  std::unique_ptr<RelayOp> op =
      r.serve(comm, f, recvcount, recvtype, sendcount, sendtype, blocking);
  if (!op)
    return nullptr;
  const Plan &plan = r.plan;
  const int rank = r.rank;
  const int64_t n = plan.numMembers(), block = r.call.count;
  ByteView &sendView = op->view();
  if (sendbuf != MPI_IN_PLACE)
    viewSend(sendbuf, sendcount, sendtype, sendView);
  op->layout = {r.relay->perBlock, block, 1};
  if (rank != root) {
    // Every block has its place in the work space: a tree gathers others'
    // blocks here on their way to the root.
    char *D = spaceFor(*op, plan, blocking, n * block);
    std::memcpy(D + plan.me * block, sendView.bytes,
                static_cast<size_t>(block));
    op->D = D;
    countServed(f);
    return op;
  }
  if (!blocking)
    recvtype = op->hold(recvtype);
  ByteView &recvView = op->view();
  viewRecv(recvbuf, recvcount * n, recvtype, recvView);
  const bool direct = plan.info->inWorldOrder();
  char *D = direct ? recvView.bytes : spaceFor(*op, plan, blocking, n * block);
  const char *mine =
      sendbuf != MPI_IN_PLACE ? sendView.bytes : recvView.bytes + rank * block;
  if (D + plan.me * block != mine)
    std::memcpy(D + plan.me * block, mine, static_cast<size_t>(block));
  op->D = D;
  op->onFinish = gatheredInto(plan, direct, D, block, recvbuf, recvcount * n,
                              recvtype, recvView);
  countServed(f);
  return op;
}

OpPtr buildScatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, Function f, bool blocking) {
  RootedRelay r{{CollectiveKind::Scatter, root, true}};
  std::unique_ptr<RelayOp> op =
      r.serve(comm, f, sendcount, sendtype, recvcount, recvtype, blocking);
  if (!op)
    return nullptr;
  const Plan &plan = r.plan;
  const int64_t n = plan.numMembers(), block = r.call.count;
  // The blocks in member order in the work space (the root's from its send
  // buffer, in comm rank order).
  char *D = spaceFor(*op, plan, blocking, n * block);
  if (r.rank == root) {
    ByteView &sendView = op->view();
    viewSend(sendbuf, sendcount * n, sendtype, sendView);
    for (int64_t m = 0; m < n; ++m)
      std::memcpy(D + m * block, sendView.bytes + plan.rankOf(m) * block,
                  static_cast<size_t>(block));
  }
  op->layout = {r.relay->perBlock, block, 1};
  op->D = D;
  if (recvbuf != MPI_IN_PLACE) {
    if (!blocking)
      recvtype = op->hold(recvtype);
    ByteView &recvView = op->view();
    viewRecv(recvbuf, recvcount, recvtype, recvView);
    const int me = plan.me;
    op->onFinish = [recvbuf, recvcount, recvtype, &recvView, D, me, block] {
      std::memcpy(recvView.bytes, D + me * block, static_cast<size_t>(block));
      unpackRecv(recvbuf, recvcount, recvtype, recvView);
      return int(MPI_SUCCESS);
    };
  }
  countServed(f);
  return op;
}

} // namespace phasec::pmpi

//===----------------------------------------------------------------------===//
// The blocking C bindings
//===----------------------------------------------------------------------===//

extern "C" {

/// The blocking bindings: the call served by its operation (build), or
/// handed to MPI's nonblocking form and waited for (runBlocking). PARAMS
/// are the call's parameters before the communicator, ARGS their names.
#define PHASEC_BLOCKING(Upper, lower, PARAMS, ARGS, BUILD)                     \
  int MPI_##Upper(PARAMS, MPI_Comm comm) {                                     \
    return runBlocking(                                                        \
        [&] { return BUILD; },                                                 \
        [&](MPI_Request *r) { return PMPI_I##lower(ARGS, comm, r); });         \
  }
#define PHASEC_BLOCKS_PARAMS                                                   \
  const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,    \
      int recvcount, MPI_Datatype recvtype
#define PHASEC_BLOCKS_ARGS                                                     \
  sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype
#define PHASEC_COMBINE_PARAMS                                                  \
  const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,        \
      MPI_Op op
#define PHASEC_COMBINE_ARGS sendbuf, recvbuf, count, datatype, op
#define PHASEC_COMMA ,

PHASEC_BLOCKING(Alltoall, alltoall, PHASEC_BLOCKS_PARAMS, PHASEC_BLOCKS_ARGS,
                buildAlltoall(PHASEC_BLOCKS_ARGS, comm, kAlltoall, true))
PHASEC_BLOCKING(Allgather, allgather, PHASEC_BLOCKS_PARAMS, PHASEC_BLOCKS_ARGS,
                buildAllgather(PHASEC_BLOCKS_ARGS, comm, kAllgather, true))
PHASEC_BLOCKING(Gather, gather, PHASEC_BLOCKS_PARAMS PHASEC_COMMA int root,
                PHASEC_BLOCKS_ARGS PHASEC_COMMA root,
                buildGather(PHASEC_BLOCKS_ARGS, root, comm, kGather, true))
PHASEC_BLOCKING(Scatter, scatter, PHASEC_BLOCKS_PARAMS PHASEC_COMMA int root,
                PHASEC_BLOCKS_ARGS PHASEC_COMMA root,
                buildScatter(PHASEC_BLOCKS_ARGS, root, comm, kScatter, true))
#define PHASEC_COMBINE_BLOCKING(Upper, lower, UPPER)                           \
  PHASEC_BLOCKING(Upper, lower, PHASEC_COMBINE_PARAMS, PHASEC_COMBINE_ARGS,    \
                  buildCombineInReceive(CollectiveKind::Upper,                 \
                                        PHASEC_COMBINE_ARGS, comm, k##Upper,   \
                                        true))
PHASEC_PMPI_COMBINE_CALLS(PHASEC_COMBINE_BLOCKING)
#undef PHASEC_COMBINE_BLOCKING
PHASEC_BLOCKING(Reduce, reduce, PHASEC_COMBINE_PARAMS PHASEC_COMMA int root,
                PHASEC_COMBINE_ARGS PHASEC_COMMA root,
                buildReduce(PHASEC_COMBINE_ARGS, root, comm, kReduce, true))
PHASEC_BLOCKING(Reduce_scatter_block, reduce_scatter_block,
                PHASEC_COMBINE_PARAMS, PHASEC_COMBINE_ARGS,
                buildReduceScatterBlock(PHASEC_COMBINE_ARGS, comm,
                                        kReduce_scatter_block, true))
PHASEC_BLOCKING(Bcast, bcast,
                void *buffer PHASEC_COMMA int count PHASEC_COMMA MPI_Datatype
                    datatype PHASEC_COMMA int root,
                buffer PHASEC_COMMA count PHASEC_COMMA datatype PHASEC_COMMA
                    root,
                buildBcast(buffer, count, datatype, root, comm, kBcast, true))
// The v and w forms: SEND and RECV declare the types.
#define PHASEC_V_PARAMS(SEND, RECV)                                            \
  const void *sendbuf, const int sendcounts[], const int sdispls[], SEND,      \
      void *recvbuf, const int recvcounts[], const int rdispls[], RECV
#define PHASEC_V_ARGS(SEND, RECV)                                              \
  sendbuf, sendcounts, sdispls, SEND, recvbuf, recvcounts, rdispls, RECV
PHASEC_BLOCKING(Alltoallv, alltoallv,
                PHASEC_V_PARAMS(MPI_Datatype sendtype, MPI_Datatype recvtype),
                PHASEC_V_ARGS(sendtype, recvtype),
                buildAlltoallv(PHASEC_V_ARGS(sendtype, recvtype), comm,
                               kAlltoallv, true))
PHASEC_BLOCKING(Alltoallw, alltoallw,
                PHASEC_V_PARAMS(const MPI_Datatype sendtypes[],
                                const MPI_Datatype recvtypes[]),
                PHASEC_V_ARGS(sendtypes, recvtypes),
                buildAlltoallw(PHASEC_V_ARGS(sendtypes, recvtypes), comm,
                               kAlltoallw, true))
#undef PHASEC_V_ARGS
#undef PHASEC_V_PARAMS
#undef PHASEC_COMMA
#undef PHASEC_COMBINE_ARGS
#undef PHASEC_COMBINE_PARAMS
#undef PHASEC_BLOCKS_ARGS
#undef PHASEC_BLOCKS_PARAMS
#undef PHASEC_BLOCKING

int MPI_Barrier(MPI_Comm comm) {
  return runBlocking([&] { return buildBarrier(comm, kBarrier, true); },
                     [&](MPI_Request *r) { return PMPI_Ibarrier(comm, r); });
}

} // extern "C"
