//===- Vocabulary.cpp - phasec's closed sets, declared once ---------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#include "phasec/Core/Vocabulary.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"

#include "phasec/Core/Vocabulary.cpp.inc"

using namespace phasec;

int64_t phasec::elementTypeBytes(ElementType type) {
  switch (type) {
  case ElementType::Int8:
  case ElementType::UInt8:
    return 1;
  case ElementType::Int16:
  case ElementType::UInt16:
    return 2;
  case ElementType::Int32:
  case ElementType::UInt32:
  case ElementType::F32:
    return 4;
  case ElementType::Int64:
  case ElementType::UInt64:
  case ElementType::F64:
  case ElementType::Complex64:
    return 8;
  case ElementType::Complex128:
    return 16;
  }
  llvm_unreachable("unknown element type");
}

namespace {
using A = Algorithm;
constexpr A kBroadcastAlgorithms[] = {A::Direct,
                                      A::Binomial,
                                      A::Binary,
                                      A::Knomial,
                                      A::Chain,
                                      A::DoubleChain,
                                      A::ScatterAllgather,
                                      A::ScatterRdbAllgather,
                                      A::ScatterBruckAllgather,
                                      A::KLevel};
constexpr A kReduceAlgorithms[] = {A::Direct,  A::Binomial, A::Binary,
                                   A::Knomial, A::Chain,    A::DoubleChain};
constexpr A kAllreduceAlgorithms[] = {
    A::Direct, A::ReduceBroadcast, A::RecursiveDoubling,
    A::Ring,   A::Rabenseifner,    A::DimensionWise,
    A::Grid};
constexpr A kReduceScatterAlgorithms[] = {A::Direct, A::Ring,
                                          A::RecursiveHalving, A::Grid};
constexpr A kScanAlgorithms[] = {A::Direct, A::RecursiveDoubling, A::Chain};
constexpr A kScatterGatherAlgorithms[] = {A::Binomial, A::KLevel};
constexpr A kAllgatherAlgorithms[] = {A::Ring, A::RecursiveDoubling, A::Bruck,
                                      A::DimensionWise, A::Grid};
constexpr A kAlltoallAlgorithms[] = {A::Bruck, A::KLevel};
constexpr A kBarrierAlgorithms[] = {A::Dissemination, A::RecursiveDoubling};
constexpr A kExchangeOrders[] = {A::Pairwise, A::LinearShift, A::Xor};

using F = CollectiveFamily;
using P = ChunkParts;
using D = DataPart;
using H = DataHolders;
using S = DataShape;
using K = CollectiveKind;
/// One row per CollectiveKind, in case order (checked below).
// clang-format off
constexpr CollectiveTraits kTraits[] = {
  // kind, family, rooted, relays, reduces, prefix, chunk parts,
  //   send, receive, shape, generated as, MPI name, relaying algorithms,
  //   direct orders
  {K::Alltoall, F::Blocks, false, false, false, false, P::PerPair,
   {D::PerMember, H::Every}, {D::PerMember, H::Every}, S::Blocks, K::Alltoall,
   "MPI_Alltoall", kAlltoallAlgorithms, kExchangeOrders},
  {K::Alltoallv, F::Arrays, false, false, false, false, P::None,
   {D::PerMember, H::Every}, {D::PerMember, H::Every}, S::PairSizes, K::Alltoallv,
   "MPI_Alltoallv", {}, kExchangeOrders},
  {K::Transpose, F::Arrays, false, false, false, false, P::None,
   {D::Own, H::Every}, {D::Own, H::Every}, S::Matrix, K::Transpose,
   nullptr, {}, kExchangeOrders},
  {K::Permute, F::Arrays, false, false, false, false, P::None,
   {D::Own, H::Every}, {D::Own, H::Every}, S::Permutation, K::Permute,
   nullptr, {}, {}},
  {K::Gather, F::Rooted, true, false, false, false, P::PerMember,
   {D::Own, H::Every}, {D::PerMember, H::Root}, S::Blocks, K::Gather,
   "MPI_Gather", kScatterGatherAlgorithms, {}},
  {K::Scatter, F::Rooted, true, false, false, false, P::PerMember,
   {D::PerMember, H::Root}, {D::Own, H::Every}, S::Blocks, K::Scatter,
   "MPI_Scatter", kScatterGatherAlgorithms, {}},
  {K::Allgather, F::Blocks, false, false, false, false, P::PerMember,
   {D::Own, H::Every}, {D::PerMember, H::Every}, S::Blocks, K::Allgather,
   "MPI_Allgather", kAllgatherAlgorithms, {}},
  {K::Broadcast, F::Rooted, true, true, false, false, P::One,
   {D::Whole, H::Root}, {D::Whole, H::Every}, S::Blocks, K::Broadcast,
   "MPI_Bcast", kBroadcastAlgorithms, {}},
  {K::Reduce, F::Reduction, true, true, true, false, P::One,
   {D::Whole, H::Every}, {D::Whole, H::Root}, S::Blocks, K::Reduce,
   "MPI_Reduce", kReduceAlgorithms, {}},
  {K::Allreduce, F::Reduction, false, true, true, false, P::One,
   {D::Whole, H::Every}, {D::Whole, H::Every}, S::Blocks, K::Allreduce,
   "MPI_Allreduce", kAllreduceAlgorithms, {}},
  {K::Scan, F::Reduction, false, true, true, true, P::One,
   {D::Whole, H::Every}, {D::Whole, H::Every}, S::Blocks, K::Scan,
   "MPI_Scan", kScanAlgorithms, {}},
  {K::Exscan, F::Reduction, false, true, true, true, P::One,
   {D::Whole, H::Every}, {D::Whole, H::AllButFirst}, S::Blocks, K::Exscan,
   "MPI_Exscan", kScanAlgorithms, {}},

  {K::ReduceScatter, F::Reduction, false, true, true, false, P::PerMember,
   {D::PerMember, H::Every}, {D::Own, H::Every}, S::Blocks, K::ReduceScatter,
   "MPI_Reduce_scatter_block", kReduceScatterAlgorithms, {}},
  {K::OneToAll, F::Rooted, true, false, false, false, P::PerMember,
   {D::PerMember, H::Root}, {D::Own, H::Every}, S::Blocks, K::Scatter,
   nullptr, kScatterGatherAlgorithms, {}},
  {K::AllToOne, F::Rooted, true, false, false, false, P::PerMember,
   {D::Own, H::Every}, {D::PerMember, H::Root}, S::Blocks, K::Gather,
   nullptr, kScatterGatherAlgorithms, {}},
  {K::Barrier, F::Dataless, false, false, false, false, P::One,
   {D::None, H::Every}, {D::None, H::Every}, S::None, K::Barrier,
   "MPI_Barrier", kBarrierAlgorithms, {}},
  {K::Local, F::Dataless, false, false, false, false, P::None,
   {D::None, H::Every}, {D::None, H::Every}, S::None, K::Local,
   nullptr, {}, {}},
};
// clang-format on
constexpr bool inCaseOrder() {
  for (unsigned v = 0; v < sizeof(kTraits) / sizeof(kTraits[0]); ++v)
    if (static_cast<unsigned>(kTraits[v].kind) != v)
      return false;
  return sizeof(kTraits) / sizeof(kTraits[0]) ==
         getMaxEnumValForCollectiveKind() + 1;
}
static_assert(inCaseOrder(), "one row of kTraits per CollectiveKind, in "
                             "case order");
} // namespace

const CollectiveTraits &phasec::getTraits(CollectiveKind kind) {
  return kTraits[static_cast<unsigned>(kind)];
}

llvm::ArrayRef<CollectiveTraits> phasec::getAllTraits() { return kTraits; }

bool phasec::needsRelaying(CollectiveKind kind) {
  return getTraits(kind).relays;
}

bool phasec::isReduction(CollectiveKind kind) {
  return getTraits(kind).reduces;
}

int64_t phasec::getChunkParts(CollectiveKind kind, int64_t numMembers) {
  switch (getTraits(kind).chunkParts) {
  case ChunkParts::None:
    return 0;
  case ChunkParts::One:
    return 1;
  case ChunkParts::PerMember:
    return numMembers;
  case ChunkParts::PerPair:
    return numMembers * numMembers;
  }
  llvm_unreachable("unknown chunk parts");
}

llvm::ArrayRef<Algorithm> phasec::getRelayAlgorithms(CollectiveKind kind) {
  return getTraits(kind).relayAlgorithms;
}

bool phasec::takesRelayParameter(Algorithm algorithm) {
  return algorithm == Algorithm::Knomial ||
         algorithm == Algorithm::ReduceBroadcast ||
         algorithm == Algorithm::Chain || algorithm == Algorithm::Ring ||
         algorithm == Algorithm::Rabenseifner ||
         algorithm == Algorithm::DimensionWise ||
         algorithm == Algorithm::DoubleChain || algorithm == Algorithm::Grid;
}

bool phasec::takesRadix(Algorithm algorithm) {
  return algorithm == Algorithm::Knomial ||
         algorithm == Algorithm::ReduceBroadcast;
}

llvm::StringRef phasec::describeRelayParameter(Algorithm algorithm) {
  if (takesRadix(algorithm))
    return "the radix";
  if (algorithm == Algorithm::DimensionWise)
    return "the number of parts";
  if (algorithm == Algorithm::Grid)
    return "the row length";
  return "the number of segments";
}

int64_t phasec::leastRelayParameter(Algorithm algorithm) {
  // A grid of rows of one member (or of one row) is the direct exchange.
  return takesRadix(algorithm) || algorithm == Algorithm::Grid ? 2 : 1;
}

bool phasec::evaluatesEveryValue(Aggregate aggregate) {
  switch (aggregate) {
  case Aggregate::Reduce:
  case Aggregate::Scan:
  case Aggregate::Any:
  case Aggregate::All:
  case Aggregate::Bcast:
    return true;
  default:
    return false;
  }
}

bool phasec::isRelayAlgorithm(Algorithm algorithm) {
  switch (algorithm) {
  case Algorithm::Binomial:
  case Algorithm::Binary:
  case Algorithm::Knomial:
  case Algorithm::Chain:
  case Algorithm::Ring:
  case Algorithm::RecursiveDoubling:
  case Algorithm::RecursiveHalving:
  case Algorithm::Rabenseifner:
  case Algorithm::ScatterAllgather:
  case Algorithm::ScatterRdbAllgather:
  case Algorithm::ScatterBruckAllgather:
  case Algorithm::ReduceBroadcast:
  case Algorithm::Dissemination:
  case Algorithm::Bruck:
  case Algorithm::DimensionWise:
  case Algorithm::DoubleChain:
  case Algorithm::Grid:
    return true;
  default:
    return false;
  }
}
