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

bool phasec::needsRelaying(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::Broadcast:
  case CollectiveKind::Reduce:
  case CollectiveKind::Allreduce:
  case CollectiveKind::ReduceScatter:
  case CollectiveKind::Scan:
  case CollectiveKind::Exscan:
    return true;
  default:
    return false;
  }
}

bool phasec::isReduction(CollectiveKind kind) {
  return needsRelaying(kind) && kind != CollectiveKind::Broadcast;
}

int64_t phasec::getChunkParts(CollectiveKind kind, int64_t numMembers) {
  switch (kind) {
  case CollectiveKind::Scatter:
  case CollectiveKind::Gather:
  case CollectiveKind::OneToAll:
  case CollectiveKind::AllToOne:
  case CollectiveKind::Allgather:
  case CollectiveKind::ReduceScatter:
    return numMembers;
  case CollectiveKind::Alltoall:
    return numMembers * numMembers;
  case CollectiveKind::Broadcast:
  case CollectiveKind::Reduce:
  case CollectiveKind::Allreduce:
  case CollectiveKind::Scan:
  case CollectiveKind::Exscan:
  case CollectiveKind::Barrier:
    return 1;
  default:
    return 0;
  }
}

llvm::ArrayRef<Algorithm> phasec::getRelayAlgorithms(CollectiveKind kind) {
  using A = Algorithm;
  static const A broadcast[] = {A::Direct,      A::Binomial, A::Binary,
                                A::Knomial,     A::Chain,    A::DoubleChain,
                                A::ScatterAllgather, A::ScatterRdbAllgather,
                                A::KLevel};
  static const A reduce[] = {A::Direct, A::Binomial, A::Binary, A::Knomial,
                             A::Chain,  A::DoubleChain};
  static const A allreduce[] = {A::Direct, A::ReduceBroadcast,
                                A::RecursiveDoubling, A::Ring,
                                A::Rabenseifner, A::DimensionWise};
  static const A reduceScatter[] = {A::Direct, A::Ring, A::RecursiveHalving};
  static const A scan[] = {A::Direct, A::RecursiveDoubling, A::Chain};
  static const A scatterGather[] = {A::Binomial, A::KLevel};
  static const A allgather[] = {A::Ring, A::RecursiveDoubling, A::Bruck,
                                A::DimensionWise};
  static const A alltoall[] = {A::Bruck, A::KLevel};
  static const A barrier[] = {A::Dissemination, A::RecursiveDoubling};
  switch (kind) {
  case CollectiveKind::Broadcast:
    return broadcast;
  case CollectiveKind::Reduce:
    return reduce;
  case CollectiveKind::Allreduce:
    return allreduce;
  case CollectiveKind::ReduceScatter:
    return reduceScatter;
  case CollectiveKind::Scan:
  case CollectiveKind::Exscan:
    return scan;
  case CollectiveKind::Scatter:
  case CollectiveKind::Gather:
  case CollectiveKind::OneToAll:
  case CollectiveKind::AllToOne:
    return scatterGather;
  case CollectiveKind::Allgather:
    return allgather;
  case CollectiveKind::Alltoall:
    return alltoall;
  case CollectiveKind::Barrier:
    return barrier;
  default:
    return {};
  }
}

bool phasec::takesRelayParameter(Algorithm algorithm) {
  return algorithm == Algorithm::Knomial || algorithm == Algorithm::Chain ||
         algorithm == Algorithm::Ring || algorithm == Algorithm::Rabenseifner ||
         algorithm == Algorithm::DimensionWise ||
         algorithm == Algorithm::DoubleChain;
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
  case Algorithm::ReduceBroadcast:
  case Algorithm::Dissemination:
  case Algorithm::Bruck:
  case Algorithm::DimensionWise:
  case Algorithm::DoubleChain:
    return true;
  default:
    return false;
  }
}
