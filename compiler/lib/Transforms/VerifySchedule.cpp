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
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

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

/// Equal up to rounding (the attributes are the doubles the pass wrote).
bool same(double recorded, double derived) {
  return std::fabs(recorded - derived) <=
         1e-9 * std::max(std::fabs(recorded), std::fabs(derived)) + 1e-300;
}

/// The summary attributes of a computed schedule, re-derived from its phases
/// and its problem: a module edited after scheduling (a bound, a time, a
/// gap, an optimality flag, a machine time) is refused like a schedule that
/// does not deliver. The bound may be stronger than the problem's own (an
/// algorithm may prove more), never weaker; whether a phase count was
/// proven minimal by a solver is not re-proven here.
LogicalResult verifySummary(ScheduleOp op, const Problem &problem,
                            const Schedule &schedule, StringRef name) {
  ScheduleCost cost = problem.cost(schedule);
  const double bound = op.getBound().convertToDouble();
  const double time = op.getTime().convertToDouble();
  bool ok = true;
  auto wrong = [&](StringRef what, const Twine &recorded,
                   const Twine &derived) {
    op.emitError("schedule of '")
        << name << "' records " << what << " " << recorded
        << ", but its phases and problem give " << derived;
    ok = false;
  };
  auto seconds = [](double x) { return llvm::formatv("{0:e} s", x).str(); };
  if (op.getAlgorithm().empty())
    wrong("no algorithm", "\"\"", "a name");
  if (!same(time, cost.time))
    wrong("the time", seconds(time), seconds(cost.time));
  if (bound < cost.bound.time && !same(bound, cost.bound.time))
    wrong("the lower bound", seconds(bound),
          "at least " + seconds(cost.bound.time));
  if (static_cast<int64_t>(op.getBoundMinPhases()) < cost.bound.minPhases)
    wrong("a minimum of", Twine(op.getBoundMinPhases()) + " phases",
          "at least " + Twine(cost.bound.minPhases));
  double gap = CostModel::gap(cost.time, bound);
  if (!same(op.getGap().convertToDouble(), gap))
    wrong("the gap",
          llvm::formatv("{0:F6}", op.getGap().convertToDouble()).str(),
          llvm::formatv("{0:F6}", gap).str());
  if (op.getTimeOptimal() != CostModel::meetsBound(cost.time, bound))
    wrong("time_optimal", op.getTimeOptimal() ? "set" : "unset",
          op.getTimeOptimal() ? "unset" : "set");
  if (auto machine = op.getMachineTimeAttr())
    if (!same(machine.getValueAsDouble(), cost.machine.total()))
      wrong("the machine time", seconds(machine.getValueAsDouble()),
            seconds(cost.machine.total()));
  if (auto machineBound = op.getMachineBoundAttr())
    if (!same(machineBound.getValueAsDouble(), cost.machineBound))
      wrong("the machine bound", seconds(machineBound.getValueAsDouble()),
            seconds(cost.machineBound));
  return success(ok);
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
  if (succeeded(problem.verify(schedule, violations, /*maxViolations=*/16))) {
    if (auto computed = dyn_cast<ScheduleOp>(scheduleOp))
      return verifySummary(computed, problem, schedule, name);
    return success();
  }

  SmallVector<PhaseOp> phases(body.getOps<PhaseOp>());
  Location scheduleLoc = scheduleOp->getLoc();
  bool handWritten = isa<UserScheduleOp>(scheduleOp);
  StringRef what = handWritten ? "hand-written schedule" : "schedule";
  // A hand-written schedule of bytes that sends data to a member that did
  // not ask for it is often a relay written the way seed 003 writes one
  // (forward, then deliver): say how phasec reads such schedules, once.
  bool relayHintGiven =
      !handWritten ||
      getChunkParts(record.op.getCollectiveKind(),
                    static_cast<int64_t>(problem.members().size())) == 0;
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
    case ViolationKind::Unrequested: {
      InFlightDiagnostic diag =
          emitError(transferLoc(phases, v.phase, v.transferA, scheduleLoc))
          << what << " of '" << name << "' is invalid: " << v.message;
      // Once: a relay written with sizes delivers many unrequested bytes.
      if (!relayHintGiven)
        diag.attachNote(scheduleLoc)
            << "a schedule that forwards data through other members is "
               "written with chunks: 'send A -> B chunks IDS;' moves the "
               "chunks A holds (docs/relaying.md, \"Hand-written relaying "
               "schedules\")";
      relayHintGiven = true;
      break;
    }
    case ViolationKind::BadTransfer:
    case ViolationKind::BadRoute:
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
