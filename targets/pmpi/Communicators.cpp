//===- Communicators.cpp - What is kept on a communicator, what is served -===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#include "Pmpi.h"

#include "phasec/Scheduling/Relay.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace phasec;

namespace phasec::pmpi {

int deleteCommInfo(MPI_Comm, int, void *attr, void *) {
  State &s = state();
  auto *info = static_cast<CommInfo *>(attr);
  if (info->pendingWire) {
    // Freeing is collective, and every rank started the duplicate at the
    // same call: it completes (and is freed below).
    PMPI_Wait(&info->pendingWire->request, MPI_STATUS_IGNORE);
    info->wire = info->pendingWire->comm;
    info->pendingWire.reset();
  }
  if (info->wire != MPI_COMM_NULL) {
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      s.dups.erase(std::remove(s.dups.begin(), s.dups.end(), info->wire),
                   s.dups.end());
    }
    PMPI_Comm_free(&info->wire);
  }
  delete info;
  return MPI_SUCCESS;
}

/// What phasec knows of `comm`, made at its first call and kept on it.
CommInfo *commInfo(State &s, MPI_Comm comm) {
  void *attr = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, s.keyval, &attr, &found);
  if (found)
    return static_cast<CommInfo *>(attr);
  auto *info = new CommInfo;
  int inter = 0, size = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (!inter)
    PMPI_Comm_size(comm, &size);
  if (inter) {
    info->reason = kIntercomm;
  } else if (size < 2) {
    info->reason = kSingleRank;
  } else {
    info->usable = true;
    // World ranks of the communicator's ranks.
    MPI_Group group, world;
    PMPI_Comm_group(comm, &group);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    std::vector<int> commRanks(size), worldRanks(size);
    for (int i = 0; i < size; ++i)
      commRanks[i] = i;
    PMPI_Group_translate_ranks(group, size, commRanks.data(), world,
                               worldRanks.data());
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    info->sorted = worldRanks;
    std::sort(info->sorted.begin(), info->sorted.end());
    info->memberOfCommRank.resize(size);
    info->commRankOfMember.resize(size);
    for (int i = 0; i < size; ++i) {
      int m =
          static_cast<int>(std::lower_bound(info->sorted.begin(),
                                            info->sorted.end(), worldRanks[i]) -
                           info->sorted.begin());
      info->memberOfCommRank[i] = m;
      info->commRankOfMember[m] = i;
    }
  }
  PMPI_Comm_set_attr(comm, s.keyval, info);
  return info;
}

/// The duplicate is started at the communicator's first served call (every
/// rank of a call reaches the same verdict, so every rank starts it at the
/// same call) and waited for by a blocking call while the calls in flight
/// advance (another rank may wait for one of them before it joins).
void makeWire(State &s, CommInfo &info, MPI_Comm comm) {
  if (info.wire != MPI_COMM_NULL)
    return;
#ifdef PHASEC_PMPI_SMPI
  // SimGrid 3.32 implements no MPI_Comm_idup (bench/pmpi/simgrid.sh links
  // this code into SMPI programs with -DPHASEC_PMPI_SMPI): the blocking
  // duplicate there, which the bench's programs allow (every rank makes
  // the same calls, with none in flight at a communicator's first).
  PMPI_Comm_dup(comm, &info.wire);
#else
  if (!info.pendingWire) {
    info.pendingWire = std::make_shared<PendingWire>();
    PMPI_Comm_idup(comm, &info.pendingWire->comm, &info.pendingWire->request);
  }
  if (mayBlock) {
    while (!info.pendingWire->ready())
      progressAndYield();
  } else if (!info.pendingWire->ready()) {
    return; // the operations wait for it (Operation::wireReady)
  }
  info.wire = info.pendingWire->comm;
  info.pendingWire.reset();
#endif
  std::lock_guard<std::mutex> lock(s.mutex);
  s.dups.push_back(info.wire);
}

thread_local bool inFortran = false;
thread_local bool mayBlock = true;

void countFallback(Function f, FallbackReason reason) {
  std::lock_guard<std::mutex> lock(state().mutex);
  ++state().stats[f].fellBack[reason];
  state().stats[f].fortran += inFortran;
}

void countServed(Function f) {
  std::lock_guard<std::mutex> lock(state().mutex);
  ++state().stats[f].served;
  state().stats[f].fortran += inFortran;
}

/// The communicator's state if phasec may serve calls on it (else the call
/// is counted as the MPI library's, with its reason).
bool usable(State &s, MPI_Comm comm, Function f, Plan &plan) {
  if (!s.initialized || comm == MPI_COMM_NULL)
    return false;
  CommInfo *info = commInfo(s, comm);
  if (!info->usable) {
    countFallback(f, info->reason);
    return false;
  }
  int rank;
  PMPI_Comm_rank(comm, &rank);
  plan.info = info;
  plan.me = info->memberOfCommRank[rank];
  return true;
}

/// Whether phasec serves this alltoall(v).
bool serveAlltoall(State &s, MPI_Comm comm, Function f, Plan &plan) {
  if (!usable(s, comm, f, plan))
    return false;
  decideAlltoall(s, *plan.info, comm);
  if (plan.info->alltoall)
    return true;
  countFallback(f, plan.info->alltoallReason);
  return false;
}

/// Whether phasec serves this relaying call; `relay` is its schedule. A
/// call-level reason (`early`, kNumReasons for none) is counted only on a
/// communicator phasec could otherwise serve.
bool serveRelay(State &s, MPI_Comm comm, Function f, const RelayCall &call,
                FallbackReason early, Plan &plan,
                std::shared_ptr<CompiledRelay> &relay) {
  if (!usable(s, comm, f, plan))
    return false;
  FallbackReason reason = early;
  // A root or count MPI rejects: MPI reports it.
  if ((call.rooted &&
       (call.root < 0 ||
        call.root >= static_cast<int>(plan.info->memberOfCommRank.size()))) ||
      call.count < 0)
    reason = kInvalid;
  // A barrier has no data; everything else without data goes to MPI.
  if (reason == kNumReasons && call.count == 0 &&
      getTraits(call.kind).family != CollectiveFamily::Dataless)
    reason = kNoData;
  if (reason == kNumReasons && isPrefix(call.kind) &&
      !plan.info->inWorldOrder())
    reason = kRankOrder;
  if (reason == kNumReasons) {
    RelayKey key{call.kind,
                 call.rooted ? plan.info->memberOfCommRank[call.root] : -1, 1,
                 call.count * call.elementBytes};
    // A reduction's schedule is cut at its elements where phasec has an
    // element type of that size.
    if (call.elementBytes != 1 &&
        elementTypeBytes(elementTypeOfSize(call.elementBytes)) ==
            call.elementBytes) {
      key.elementBytes = call.elementBytes;
      key.count = call.count;
    }
    key.count = static_cast<int64_t>(
        llvm::PowerOf2Ceil(static_cast<uint64_t>(key.count)));
    relay = decideRelay(s, *plan.info, comm, key, reason);
    if (relay)
      return true;
  }
  countFallback(f, reason);
  return false;
}

bool serveDirect(State &s, MPI_Comm comm, Function f, CollectiveKind kind,
                 int root, Plan &plan,
                 std::shared_ptr<CompiledAlltoall> &schedule) {
  if (!usable(s, comm, f, plan))
    return false;
  FallbackReason reason = kNoSchedule;
  const int n = static_cast<int>(plan.info->memberOfCommRank.size());
  if (root < 0 || root >= n)
    reason = kInvalid;
  else
    schedule = decideDirect(s, *plan.info, comm, kind,
                            plan.info->memberOfCommRank[root], reason);
  if (schedule)
    return true;
  countFallback(f, reason);
  return false;
}

/// Checks a reduction's datatype and operator (the same on every rank, says
/// the standard): kNumReasons if phasec can combine with them.
FallbackReason reductionReason(MPI_Datatype type, MPI_Op op,
                               int64_t &elementBytes) {
  int commutative = 0;
  PMPI_Op_commutative(op, &commutative);
  // The combining cuts the data at element boundaries and applies the
  // operator where the elements lie: any type without holes will do, even
  // one that reorders its bytes.
  bool dense = layoutOf(type) != Layout::Sparse;
  elementBytes = typeSize(type);
  if (!commutative)
    return kNonCommutative;
  if (!dense)
    return kNotContiguous;
  return kNumReasons;
}

} // namespace phasec::pmpi
