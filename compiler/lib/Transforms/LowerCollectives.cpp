//===- LowerCollectives.cpp - comm-lower-collectives ----------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Lowers each communication operation to a comm.transfer_set: its
/// Collective (comm::getCollective, shared with the back ends) lowered by the
/// scheduling library, which alone decides what traffic an operation makes.
///
//===----------------------------------------------------------------------===//

#include "phasec/Transforms/CollectiveIR.h"
#include "phasec/Transforms/Passes.h"
#include "phasec/Transforms/ScheduleIR.h"

#include "mlir/IR/Builders.h"

namespace phasec::comm {
#define GEN_PASS_DEF_COMMLOWERCOLLECTIVES
#include "phasec/Transforms/Passes.h.inc"
} // namespace phasec::comm

using namespace mlir;
using namespace phasec;
using namespace phasec::comm;

namespace {
struct LowerCollectivesPass
    : public phasec::comm::impl::CommLowerCollectivesBase<LowerCollectivesPass> {
  using CommLowerCollectivesBase::CommLowerCollectivesBase;

  void runOnOperation() override;
};
} // namespace

void LowerCollectivesPass::runOnOperation() {
  ModuleOp module = getOperation();
  SymbolTable symbols(module);
  auto records = collectOperations(module);
  OpBuilder builder(module.getContext());
  bool hadError = false;
  for (auto &entry : records) {
    OperationRecord &record = entry.second;
    if (record.transferSet) {
      // A transfer set of the input is held to the same limit: held by
      // rule (all_pairs), a large one is a few numbers long.
      int64_t limit = maxTransfers;
      if (int64_t n = record.transferSet.getNumDemands(); n > limit) {
        record.transferSet.emitError("'")
            << record.op.getCollectiveName() << "' demands " << n
            << " transfers, more than the limit of " << limit
            << " (--max-transfers=N raises it)";
        hadError = true;
      }
      continue;
    }
    Operation *op = record.op.getOperation();
    if (!record.machine || !record.group) {
      op->emitError("cannot lower '")
          << record.op.getCollectiveName()
          << "': its machine or group does not resolve";
      hadError = true;
      continue;
    }
    FailureOr<Collective> collective = getCollective(record.op, symbols);
    if (failed(collective)) {
      hadError = true;
      continue;
    }
    // Relayed operations are scheduled from their chunks, not their
    // traffic (comm-schedule-phases); so are hand-written relaying
    // schedules, whatever the kind.
    if (collective->movesNoData() || isRelayedOperation(record.op) ||
        isRelaying(record))
      continue;
    std::string error;
    collective->maxTransfers = maxTransfers;
    FailureOr<TransferSet> set = collective->lower(error);
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
    createTransferSetOp(builder, op->getLoc(), record.op.getCollectiveName(),
                        *set);
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
