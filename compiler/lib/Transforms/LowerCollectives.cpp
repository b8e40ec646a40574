//===- LowerCollectives.cpp - comm-lower-collectives ----------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Lowers each communication operation to a comm.transfer_set by handing its
/// group, root, sizes and permutation to the scheduling library's collective
/// builders (phasec/Scheduling/Collectives.h). This file only translates
/// attributes into a CollectiveRequest (buildCollectiveRequest, shared with
/// the driver's MPI / OpenSHMEM emission); what traffic an operation makes
/// is decided in the library alone.
///
//===----------------------------------------------------------------------===//

#include "phasec/Transforms/CollectiveRequest.h"
#include "phasec/Transforms/Passes.h"
#include "phasec/Transforms/ScheduleIR.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

namespace phasec::comm {
#define GEN_PASS_DEF_COMMLOWERCOLLECTIVES
#include "phasec/Transforms/Passes.h.inc"
} // namespace phasec::comm

using namespace mlir;
using namespace phasec;
using namespace phasec::comm;

namespace {

/// The library's permutation description of a comm.permute.
PermutationSpec getPermutationSpec(PermuteOp op) {
  PermutationSpec spec;
  switch (op.getPattern()) {
  case PermuteKind::Random:
    spec.kind = PermutationSpec::Random;
    break;
  case PermuteKind::BitReversal:
    spec.kind = PermutationSpec::BitReversal;
    break;
  case PermuteKind::Xor:
    spec.kind = PermutationSpec::XorMask;
    break;
  case PermuteKind::Shift:
    spec.kind = PermutationSpec::CyclicShift;
    break;
  case PermuteKind::Table:
    spec.kind = PermutationSpec::Table;
    break;
  }
  spec.seed = static_cast<uint64_t>(op.getSeed());
  spec.mask = op.getMask();
  spec.shift = op.getShift();
  if (auto table = op.getTable())
    spec.table.assign(table->begin(), table->end());
  return spec;
}

struct LowerCollectivesPass
    : public phasec::comm::impl::CommLowerCollectivesBase<LowerCollectivesPass> {
  using CommLowerCollectivesBase::CommLowerCollectivesBase;

  void runOnOperation() override;
};

} // namespace

bool phasec::comm::movesNoData(CollectiveOpInterface op) {
  return isa<BarrierOp, LocalOp>(op.getOperation());
}

FailureOr<CollectiveRequest>
phasec::comm::buildCollectiveRequest(CollectiveOpInterface collective,
                                     SymbolTable &symbols) {
  Operation *op = collective.getOperation();
  auto group = symbols.lookup<GroupOp>(collective.getGroupRef().getValue());
  if (!group)
    return op->emitError("cannot lower '")
           << collective.getCollectiveName() << "': its group does not resolve";
  CollectiveRequest request;
  request.op = collective.getCollectiveKind().str();
  for (int64_t r : group.getRanks())
    request.group.push_back(static_cast<RankId>(r));
  LogicalResult result =
      llvm::TypeSwitch<Operation *, LogicalResult>(op)
          .Case<BarrierOp, LocalOp>([&](auto typed) {
            return typed.emitError("'")
                   << typed.getSymName() << "' moves no data";
          })
          .Case<AlltoallOp, AllgatherOp>([&](auto typed) {
            request.bytes = typed.getBlock();
            return success();
          })
          .Case<GatherOp, ScatterOp, OneToAllOp, AllToOneOp, BroadcastOp>(
              [&](auto typed) {
                request.root = static_cast<RankId>(typed.getRoot());
                request.bytes = typed.getBlock();
                return success();
              })
          .Case<AlltoallvOp>([&](AlltoallvOp typed) {
            request.sizes.assign(typed.getSizes().begin(),
                                 typed.getSizes().end());
            return success();
          })
          .Case<TransposeOp>([&](TransposeOp typed) -> LogicalResult {
            auto from = symbols.lookup<ArrayOp>(typed.getFrom());
            auto to = symbols.lookup<ArrayOp>(typed.getTo());
            if (from.getGroupAttr() != typed.getGroupAttr() ||
                to.getGroupAttr() != typed.getGroupAttr() ||
                from.getDistribution() != Distribution::Rows ||
                to.getDistribution() != Distribution::Rows)
              return typed.emitError(
                  "not yet supported: a transpose of arrays "
                  "that are not distributed by rows over the "
                  "operation's group");
            int64_t rows = from.getShape()[0], cols = from.getShape()[1];
            int64_t p = static_cast<int64_t>(request.group.size());
            if (rows == cols) {
              request.n = rows;
              request.bytes = from.getElementBytes();
              return success();
            }
            // A rectangular R x C transpose: member i owns R/P rows of the
            // source and C/P rows of the result, so every pair exchanges an
            // (R/P) x (C/P) block: the traffic of an all-to-all. (The array
            // verifiers already guarantee the divisibility; stay safe.)
            if (rows % p != 0 || cols % p != 0)
              return typed.emitError("not yet supported: a rectangular "
                                     "transpose whose extents ")
                     << rows << " and " << cols << " are not both divisible by "
                     << p << " ranks";
            request.op = "alltoall";
            request.bytes = (rows / p) * (cols / p) * from.getElementBytes();
            return success();
          })
          .Case<PermuteOp>([&](PermuteOp typed) {
            request.perm = getPermutationSpec(typed);
            if (auto block = typed.getBlock()) {
              request.bytes = *block;
              return success();
            }
            auto from = symbols.lookup<ArrayOp>(*typed.getFrom());
            request.n = from.getNumElements();
            request.bytes = from.getElementBytes();
            return success();
          })
          .Case<ReduceOp, AllreduceOp, ScanOp>([&](auto typed) {
            // The library decides what it supports; it rejects these for
            // now.
            return success();
          })
          .Default([&](Operation *other) {
            return other->emitError(
                "comm-lower-collectives: unhandled operation");
          });
  if (failed(result))
    return failure();
  return request;
}

void LowerCollectivesPass::runOnOperation() {
  ModuleOp module = getOperation();
  SymbolTable symbols(module);
  auto records = collectOperations(module);
  OpBuilder builder(module.getContext());
  bool hadError = false;
  for (auto &entry : records) {
    OperationRecord &record = entry.second;
    if (record.transferSet)
      continue;
    Operation *op = record.op.getOperation();
    if (!record.machine || !record.group) {
      op->emitError("cannot lower '")
          << record.op.getCollectiveName()
          << "': its machine or group does not resolve";
      hadError = true;
      continue;
    }
    if (movesNoData(record.op))
      continue;
    FailureOr<CollectiveRequest> request =
        buildCollectiveRequest(record.op, symbols);
    if (failed(request)) {
      hadError = true;
      continue;
    }
    std::string error;
    FailureOr<TransferSet> set = buildCollective(*request, error);
    if (failed(set)) {
      bool unsupported = StringRef(error).starts_with("not yet supported");
      if (unsupported && allowUnsupported) {
        op->emitWarning("'") << record.op.getCollectiveName()
                             << "' is not scheduled: " << error;
        continue;
      }
      op->emitError("cannot lower '")
          << record.op.getCollectiveName() << "': " << error;
      hadError = true;
      continue;
    }
    builder.setInsertionPointAfter(op);
    builder.create<TransferSetOp>(
        op->getLoc(), FlatSymbolRefAttr::get(builder.getContext(),
                                             record.op.getCollectiveName()),
        getDemandsAttr(builder.getContext(), *set));
  }
  if (hadError)
    signalPassFailure();
}

std::unique_ptr<Pass> phasec::comm::createLowerCollectivesPass() {
  return std::make_unique<LowerCollectivesPass>();
}

std::unique_ptr<Pass> phasec::comm::createLowerCollectivesPass(
    const CommLowerCollectivesOptions &options) {
  return std::make_unique<LowerCollectivesPass>(options);
}
