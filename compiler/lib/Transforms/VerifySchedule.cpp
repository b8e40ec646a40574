//===- VerifySchedule.cpp - comm-verify-schedule --------------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Runs the scheduling library's independent verifier (Problem::verify) on
/// every computed and hand-written schedule and turns each violation into a
/// diagnostic at the best source location available: for a hand-written
/// schedule the `send` statements that wrote the offending transfers (both
/// of them for congestion) and the phase; for a computed one the operation.
///
//===----------------------------------------------------------------------===//

#include "phasec/Transforms/Passes.h"
#include "phasec/Transforms/ScheduleIR.h"

#include "mlir/IR/Diagnostics.h"

namespace phasec::comm {
#define GEN_PASS_DEF_COMMVERIFYSCHEDULE
#include "phasec/Transforms/Passes.h.inc"
} // namespace phasec::comm

using namespace mlir;
using namespace phasec;
using namespace phasec::comm;

namespace {

struct VerifySchedulePass
    : public phasec::comm::impl::CommVerifyScheduleBase<VerifySchedulePass> {
  void runOnOperation() override;

  /// Verifies one schedule; failure() if it is wrong (errors emitted).
  LogicalResult verifyOne(OperationRecord &record, Operation *scheduleOp,
                          Region &body, const Schedule &schedule,
                          TopologyCache &topologies);
};

/// The transfer `index` of phase `phase` of `body`, located.
Location transferLoc(ArrayRef<PhaseOp> phases, int64_t phase, int64_t index,
                     Location fallback) {
  if (phase < 0 || phase >= static_cast<int64_t>(phases.size()))
    return fallback;
  PhaseOp op = phases[phase];
  if (index < 0 || index >= op.getNumTransfers())
    return op.getLoc();
  return op.getTransferLoc(index);
}

} // namespace

LogicalResult VerifySchedulePass::verifyOne(OperationRecord &record,
                                            Operation *scheduleOp, Region &body,
                                            const Schedule &schedule,
                                            TopologyCache &topologies) {
  StringRef name = record.op.getCollectiveName();
  if (!record.transferSet && !isRelaying(record))
    return scheduleOp->emitError("cannot verify the schedule of '")
           << name << "': it has no comm.transfer_set (run "
                      "comm-lower-collectives first)";
  if (!record.machine)
    return failure(); // The IR verifier reports the dangling reference.
  FailureOr<const Topology *> topo = topologies.get(record.machine);
  if (failed(topo))
    return failure();
  FailureOr<std::unique_ptr<Problem>> built = getProblem(record, **topo);
  if (failed(built))
    return failure();
  const Problem &problem = **built;
  SmallVector<ScheduleViolation> violations;
  if (succeeded(problem.verify(schedule, violations, /*maxViolations=*/16)))
    return success();

  SmallVector<PhaseOp> phases(body.getOps<PhaseOp>());
  Location scheduleLoc = scheduleOp->getLoc();
  bool handWritten = isa<UserScheduleOp>(scheduleOp);
  StringRef what = handWritten ? "hand-written schedule" : "schedule";
  for (const ScheduleViolation &v : violations) {
    switch (v.kind) {
    case ViolationKind::Congestion: {
      InFlightDiagnostic diag =
          emitError(transferLoc(phases, v.phase, v.transferB, scheduleLoc))
          << what << " of '" << name << "' is not congestion-free: "
          << v.message;
      diag.attachNote(transferLoc(phases, v.phase, v.transferA, scheduleLoc))
          << "transfer " << v.transferA << " of phase " << v.phase
          << ", which already uses the link, is here";
      if (v.phase >= 0 && v.phase < static_cast<int64_t>(phases.size()))
        diag.attachNote(phases[v.phase].getLoc())
            << "phase " << v.phase << " is here";
      break;
    }
    case ViolationKind::BadTransfer:
    case ViolationKind::BadRoute:
    case ViolationKind::Unrequested:
    case ViolationKind::BadChunks:
    case ViolationKind::ChunkNotHeld:
    case ViolationKind::ReduceWithoutChunk:
    case ViolationKind::CountedTwice:
    case ViolationKind::ConflictingCopies:
      emitError(transferLoc(phases, v.phase, v.transferA, scheduleLoc))
          << what << " of '" << name << "' is invalid: " << v.message;
      break;
    case ViolationKind::Incomplete:
    case ViolationKind::MissingChunk:
    case ViolationKind::WrongContributions:
      emitError(scheduleLoc) << what << " of '" << name
                             << "' is incomplete: " << v.message;
      break;
    case ViolationKind::Duplicate: {
      // Point at the last transfer of the pair: the one too many.
      Location loc = scheduleLoc;
      for (auto [p, phase] : llvm::enumerate(phases)) {
        ArrayRef<int64_t> t = phase.getTransfers();
        for (size_t i = 0; i + 4 <= t.size(); i += 4)
          if (t[i] == v.src && t[i + 1] == v.dst)
            loc = phase.getTransferLoc(i / 4);
      }
      emitError(loc) << what << " of '" << name
                     << "' delivers data twice: " << v.message;
      break;
    }
    case ViolationKind::Bound:
      emitError(scheduleLoc) << what << " of '" << name
                             << "' has a wrong lower bound: " << v.message;
      break;
    }
  }
  if (violations.size() >= 16)
    emitRemark(scheduleLoc) << "further violations of '" << name
                            << "' are not reported";
  return failure();
}

void VerifySchedulePass::runOnOperation() {
  ModuleOp module = getOperation();
  auto records = collectOperations(module);
  TopologyCache topologies;
  bool hadError = false;
  for (auto &entry : records) {
    OperationRecord &record = entry.second;
    if (ScheduleOp op = record.schedule)
      if (failed(verifyOne(record, op, op.getBody(), getSchedule(op),
                           topologies)))
        hadError = true;
    if (UserScheduleOp op = record.userSchedule)
      if (failed(verifyOne(record, op, op.getBody(), getSchedule(op),
                           topologies)))
        hadError = true;
  }
  markAllAnalysesPreserved();
  if (hadError)
    signalPassFailure();
}

std::unique_ptr<Pass> phasec::comm::createVerifySchedulePass() {
  return std::make_unique<VerifySchedulePass>();
}
