//===- CollectiveIR.cpp - A comm operation as a Collective ----------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Reads attributes only: what traffic an operation makes is decided by
/// Collective::lower alone.
///
//===----------------------------------------------------------------------===//

#include "phasec/Transforms/CollectiveIR.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace phasec;
using namespace phasec::comm;

static ArrayLayout getLayout(ArrayOp array) {
  ArrayLayout layout;
  layout.shape.assign(array.getShape().begin(), array.getShape().end());
  layout.elementBytes = array.getElementBytes();
  layout.distribution = array.getDistribution();
  return layout;
}

static PermutationSpec getPermutationSpec(PermuteOp op) {
  PermutationSpec spec;
  spec.kind = op.getPattern();
  spec.seed = static_cast<uint64_t>(op.getSeed());
  spec.mask = op.getMask();
  spec.shift = op.getShift();
  if (auto table = op.getTable())
    spec.table.assign(table->begin(), table->end());
  return spec;
}

/// k_level(k > 1) of a kind that has k-level relaying (seed 003's
/// one-to-all family); k_level(1) is the direct transfers.
static bool isKLevelRelay(CollectiveOpInterface op) {
  int64_t levels = op.getKLevelsDirective();
  KLevelShape shape = op.getKShapeDirective();
  // k_level(1, sys_br) and k_level(1, our_br) broadcast: relayed too.
  bool broadcasts = shape == KLevelShape::SysBr || shape == KLevelShape::OurBr;
  return op.getAlgorithmDirective() == Algorithm::KLevel &&
         (levels != 1 || broadcasts || needsRelaying(op.getCollectiveKind())) &&
         llvm::is_contained(getRelayAlgorithms(op.getCollectiveKind()),
                            Algorithm::KLevel);
}

bool phasec::comm::isRelayedOperation(CollectiveOpInterface op) {
  // Seed 004's gather and local evaluation moves the values directly.
  if (op.getAlgorithmDirective() == Algorithm::GatherEvaluate)
    return false;
  if (op->hasAttr(kRelayedByAutoAttr))
    return true;
  if (needsRelaying(op.getCollectiveKind()) ||
      isRelayAlgorithm(op.getAlgorithmDirective()) || isKLevelRelay(op))
    return true;
  // The v-collectives relay: their blocks are chunks of their own sizes
  // (schedule JSON's chunk_sizes), under any algorithm of their kind.
  if (op->hasAttr("member_bytes"))
    return true;
  // A barrier without an algorithm is the machine's best relaying barrier
  // (the relay's `auto`), except a PAPERS wait, which is the transport's own
  // barrier (MPI_Barrier, shmem_barrier) unless it names an algorithm.
  const CollectiveTraits &traits = getTraits(op.getCollectiveKind());
  return traits.family == CollectiveFamily::Dataless &&
         !getRelayAlgorithms(traits.kind).empty() &&
         op.getAggregateKind() == Aggregate::None &&
         op.getAlgorithmDirective() == Algorithm::Auto;
}

RelayChoice phasec::comm::getRelayChoice(CollectiveOpInterface op) {
  RelayChoice choice;
  Algorithm algorithm = op.getAlgorithmDirective();
  // A relaying kind under `direct` sends straight from the holders: the
  // relaying algorithm of that name.
  if (isRelayAlgorithm(algorithm) ||
      (algorithm == Algorithm::Direct && needsRelaying(op.getCollectiveKind())))
    choice.algorithm = algorithm;
  choice.param = op.getAlgorithmParamDirective();
  if (isKLevelRelay(op)) {
    choice.algorithm = Algorithm::KLevel;
    // k_level's algorithm_param is logp-lev-rec's gamma, in percent.
    choice.gammaPercent = choice.param;
    choice.param = op.getKLevelsDirective();
    choice.shape = op.getKShapeDirective();
  }
  return choice;
}

FailureOr<Collective> phasec::comm::getCollective(CollectiveOpInterface op,
                                                  SymbolTable &symbols) {
  Operation *operation = op.getOperation();
  auto group = symbols.lookup<GroupOp>(op.getGroupRef().getValue());
  if (!group)
    return operation->emitError("cannot lower '")
           << op.getCollectiveName() << "': its group does not resolve";
  Collective collective;
  collective.kind = op.getCollectiveKind();
  for (int64_t r : group.getRanks())
    collective.group.push_back(static_cast<RankId>(r));
  auto array = [&](FlatSymbolRefAttr name) -> FailureOr<ArrayOp> {
    auto found = symbols.lookup<ArrayOp>(name.getValue());
    if (!found)
      return operation->emitError("cannot lower '")
             << op.getCollectiveName() << "': array " << name
             << " does not resolve";
    return found;
  };
  // The families by their interfaces; the array operations each by its op.
  if (std::optional<int64_t> root = op.getRootMember())
    collective.root = static_cast<RankId>(*root);
  if (auto blocks = dyn_cast<BlockOpInterface>(operation))
    collective.blockBytes = blocks.getBlockBytes();
  if (std::optional<ArrayRef<int64_t>> sizes = op.getMemberBlockBytes())
    collective.memberBytes.assign(sizes->begin(), sizes->end());
  if (auto reduction = dyn_cast<ReductionOpInterface>(operation)) {
    collective.reduceOp = reduction.getReduceOp();
    collective.elementType =
        getElementTypeKind(reduction.getReduceElementType());
    if (!collective.elementType)
      return operation->emitError("cannot lower '")
             << op.getCollectiveName() << "': its element type has no C type";
    collective.blockBytes =
        reduction.getReduceCount() * collective.elementBytes();
  }
  LogicalResult result =
      llvm::TypeSwitch<Operation *, LogicalResult>(operation)
          .Case<AlltoallvOp>([&](AlltoallvOp typed) {
            collective.sizes.assign(typed.getSizes().begin(),
                                    typed.getSizes().end());
            return success();
          })
          .Case<TransposeOp>([&](TransposeOp typed) -> LogicalResult {
            FailureOr<ArrayOp> from = array(typed.getFromAttr());
            FailureOr<ArrayOp> to = array(typed.getToAttr());
            if (failed(from) || failed(to))
              return failure();
            // Slabs of rows or of columns over the operation's own group
            // (the traffic Collective::lower computes assumes it).
            if (from->getGroupAttr() != typed.getGroupAttr() ||
                to->getGroupAttr() != typed.getGroupAttr())
              return typed.emitError(
                  "not supported: a transpose of arrays that are not "
                  "distributed over the operation's group");
            collective.from = getLayout(*from);
            collective.to = getLayout(*to);
            return success();
          })
          .Case<PermuteOp>([&](PermuteOp typed) -> LogicalResult {
            collective.permutation = getPermutationSpec(typed);
            if (auto block = typed.getBlock()) {
              collective.blockBytes = *block;
              return success();
            }
            FailureOr<ArrayOp> from = array(typed.getFromAttr());
            FailureOr<ArrayOp> to =
                typed.getToAttr() ? array(typed.getToAttr()) : from;
            if (failed(from) || failed(to))
              return failure();
            collective.from = getLayout(*from);
            collective.to = getLayout(*to);
            return success();
          })
          .Default([](Operation *) { return success(); });
  if (failed(result))
    return failure();
  // A PAPERS reduction, scan, any, all or bcast evaluated by every member
  // from everyone's value: the allgather of one value (blockBytes, the
  // reduction's count times its element).
  if (op.getAlgorithmDirective() == Algorithm::GatherEvaluate) {
    collective.kind = CollectiveKind::Allgather;
    collective.root = -1;
  }
  return collective;
}
