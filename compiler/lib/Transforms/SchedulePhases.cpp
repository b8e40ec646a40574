//===- SchedulePhases.cpp - comm-schedule-phases --------------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Schedules every transfer set that has no schedule yet with the scheduling
/// library (the registry's entry of the chosen algorithm: scheduleAuto's
/// candidates or a baseline) and records the
/// result, its proven lower bound and the gap in a comm.schedule. The
/// choices here are only which algorithm and budget to ask for; everything
/// else happens in phasec/Scheduling.
///
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Bounds.h"
#include "phasec/Scheduling/Registry.h"
#include "phasec/Transforms/CollectiveIR.h"
#include "phasec/Transforms/Passes.h"
#include "phasec/Transforms/ScheduleIR.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"

namespace phasec::comm {
#define GEN_PASS_DEF_COMMSCHEDULEPHASES
#include "phasec/Transforms/Passes.h.inc"
} // namespace phasec::comm

using namespace mlir;
using namespace phasec;
using namespace phasec::comm;

namespace {

struct SchedulePhasesPass
    : public phasec::comm::impl::CommSchedulePhasesBase<SchedulePhasesPass> {
  using CommSchedulePhasesBase::CommSchedulePhasesBase;

  void runOnOperation() override;

  /// The algorithm to run for `record`, or failure() after an error.
  FailureOr<SchedulerAlgorithm> chooseAlgorithm(OperationRecord &record,
                                                const Problem &problem);
  /// Schedules a relayed operation (Relay.h); failure() after an error.
  LogicalResult scheduleRelayed(OperationRecord &record, const Topology &topo,
                                SymbolTable &symbols, OpBuilder &builder);
  /// Records bound, time and gap of a hand-written schedule.
  void annotateUserSchedule(OperationRecord &record, const Problem &problem);
};

} // namespace

FailureOr<SchedulerAlgorithm>
SchedulePhasesPass::chooseAlgorithm(OperationRecord &record,
                                    const Problem &problem) {
  if (!algorithm.empty()) {
    std::optional<SchedulerAlgorithm> parsed =
        symbolizeSchedulerAlgorithm(algorithm);
    if (!parsed)
      return emitError(record.op.getLoc(), "unknown scheduling algorithm '")
             << algorithm
             << "' (expected one of "
             << joinSpellings<SchedulerAlgorithm>(
                    getMaxEnumValForSchedulerAlgorithm())
             << ")";
    return *parsed;
  }
  switch (record.op.getAlgorithmDirective()) {
  case Algorithm::Auto:
  case Algorithm::Direct:
  case Algorithm::Schedule:
    return SchedulerAlgorithm::Auto;
  case Algorithm::LinearShift:
    return SchedulerAlgorithm::LinearShift;
  case Algorithm::Xor:
    return SchedulerAlgorithm::Xor;
  case Algorithm::Pairwise:
    // Pairwise exchange: the XOR pattern where it exists, else the shift.
    return getScheduler(SchedulerAlgorithm::Xor)
                   .applies(problem, SchedulerOptions(), nullptr)
               ? SchedulerAlgorithm::Xor
               : SchedulerAlgorithm::LinearShift;
  case Algorithm::KLevel: {
    // 1-lev-dir (seed 003) sends every block straight to its destination:
    // exactly the direct transfers the scheduler phases anyway. More levels
    // relay (isRelayedOperation) and never get here.
    auto levels = record.op->getAttrOfType<IntegerAttr>("k_levels");
    if (levels && levels.getInt() == 1)
      return SchedulerAlgorithm::Auto;
    break;
  }
  default:
    break;
  }
  // Relaying algorithms never get here (isRelayedOperation).
  return emitError(record.op.getLoc(), "algorithm '")
         << stringifyAlgorithm(record.op.getAlgorithmDirective())
         << "' does not apply to '" << record.op.getCollectiveName() << "'";
}

/// The machine time of the chosen schedule where the machine charges more
/// than bandwidth, and `sync = auto` and `style = auto` resolved to what
/// that time assumed, so that the back ends see barrier or none, packing or
/// chained.
template <typename ScheduleOpT>
static void recordMachineCost(CollectiveOpInterface op, ScheduleOpT schedule,
                              const CostModel &model,
                              const ScheduleCost &cost) {
  Builder b(op.getContext());
  if (model.chargesBeyondBandwidth()) {
    schedule.setMachineTimeAttr(b.getF64FloatAttr(cost.machine.total()));
    schedule.setMachineBoundAttr(b.getF64FloatAttr(cost.machineBound));
  }
  // What the time assumed: for an array operation the faster style; a
  // block operation's copies stream (chained) whatever it says.
  auto style = op->getAttrOfType<TransferStyleAttr>("style");
  if (style && style.getValue() == TransferStyle::Auto)
    op->setAttr("style",
                TransferStyleAttr::get(op.getContext(), cost.machine.style));
  // Barrier is the dialect's default: absent, as an explicit MLIR op
  // without `sync` would be.
  if (model.sync() != SyncKind::Auto)
    return;
  if (cost.machine.chosen == SyncKind::Barrier)
    op->removeAttr("sync");
  else
    op->setAttr("sync",
                SyncKindAttr::get(op.getContext(), cost.machine.chosen));
}

void SchedulePhasesPass::annotateUserSchedule(OperationRecord &record,
                                              const Problem &problem) {
  UserScheduleOp user = record.userSchedule;
  ScheduleCost cost = problem.cost(getSchedule(user));
  Builder b(user.getContext());
  user.setBoundAttr(b.getF64FloatAttr(cost.bound.time));
  user.setBoundBlocksAttr(b.getF64FloatAttr(cost.bound.blocks));
  user.setBoundMinPhasesAttr(b.getI64IntegerAttr(cost.bound.minPhases));
  user.setBoundReasonAttr(b.getStringAttr(cost.bound.reason));
  user.setBoundPhasesReasonAttr(b.getStringAttr(cost.bound.phasesReason));
  user.setTimeAttr(b.getF64FloatAttr(cost.time));
  user.setGapAttr(b.getF64FloatAttr(cost.gap));
  user.setTimeOptimal(cost.timeOptimal);
  user.setPhaseOptimal(cost.phaseOptimal);
  recordMachineCost(record.op, user, problem.costModel(), cost);
}

LogicalResult SchedulePhasesPass::scheduleRelayed(OperationRecord &record,
                                                  const Topology &topo,
                                                  SymbolTable &symbols,
                                                  OpBuilder &builder) {
  FailureOr<Collective> collective = getCollective(record.op, symbols);
  if (failed(collective))
    return failure();
  RelayChoice choice = getRelayChoice(record.op);
  std::string error;
  CostModel model = getCostModel(record.op, topo);
  FailureOr<RelaySchedule> relay =
      scheduleRelaying(topo, model, *collective, choice, error);
  if (failed(relay))
    return record.op.emitError("cannot schedule '")
           << record.op.getCollectiveName() << "': " << error;
  Problem problem(topo, relay->chunks, model);
  ScheduleCost cost = problem.cost(relay->schedule);
  builder.setInsertionPointAfter(record.op);
  auto scheduleOp = builder.create<ScheduleOp>(
      record.op.getLoc(),
      FlatSymbolRefAttr::get(builder.getContext(),
                             record.op.getCollectiveName()),
      builder.getStringAttr(relay->schedule.algorithm),
      builder.getF64FloatAttr(cost.bound.time),
      builder.getF64FloatAttr(cost.bound.blocks),
      builder.getI64IntegerAttr(cost.bound.minPhases),
      builder.getStringAttr(cost.bound.reason),
      builder.getStringAttr(cost.bound.phasesReason),
      builder.getF64FloatAttr(cost.time), builder.getF64FloatAttr(cost.gap),
      cost.timeOptimal ? builder.getUnitAttr() : UnitAttr(),
      cost.phaseOptimal ? builder.getUnitAttr() : UnitAttr(), UnitAttr(),
      builder.getI64IntegerAttr(relay->chunks.numChunks),
      builder.getI64IntegerAttr(relay->chunks.chunkBytes),
      /*machine_time=*/FloatAttr(), /*machine_bound=*/FloatAttr());
  appendPhases(builder, record.op.getLoc(), scheduleOp.getBody(),
               relay->schedule);
  recordMachineCost(record.op, scheduleOp, model, cost);
  return success();
}

void SchedulePhasesPass::runOnOperation() {
  ModuleOp module = getOperation();
  auto records = collectOperations(module);
  SymbolTable symbols(module);
  TopologyCache topologies;
  OpBuilder builder(module.getContext());
  bool hadError = false;
  for (auto &entry : records) {
    OperationRecord &record = entry.second;
    if (record.userSchedule && isRelaying(record) && record.machine) {
      FailureOr<const Topology *> topo = topologies.get(record.machine);
      FailureOr<std::unique_ptr<Problem>> problem =
          succeeded(topo) ? getProblem(record, **topo)
                          : FailureOr<std::unique_ptr<Problem>>(failure());
      if (failed(problem))
        hadError = true;
      else
        annotateUserSchedule(record, **problem);
      continue;
    }
    if (!record.schedule && !record.userSchedule && record.machine &&
        record.group && isRelayedOperation(record.op)) {
      FailureOr<const Topology *> topo = topologies.get(record.machine);
      if (failed(topo) ||
          failed(scheduleRelayed(record, **topo, symbols, builder)))
        hadError = true;
      continue;
    }
    if (!record.transferSet || record.schedule || !record.machine)
      continue;
    FailureOr<const Topology *> topo = topologies.get(record.machine);
    if (failed(topo)) {
      hadError = true;
      continue;
    }
    Problem problem(**topo, getTransferSet(record.transferSet),
                    getCostModel(record.op, **topo));
    std::string error;
    if (failed(problem.check(error))) {
      record.transferSet.emitError("invalid transfer set of '")
          << record.op.getCollectiveName() << "': " << error;
      hadError = true;
      continue;
    }
    if (record.userSchedule) {
      annotateUserSchedule(record, problem);
      continue;
    }

    FailureOr<SchedulerAlgorithm> chosen = chooseAlgorithm(record, problem);
    if (failed(chosen)) {
      hadError = true;
      continue;
    }
    SchedulerOptions options;
    options.algorithm = *chosen;
    if (rlimit != 0)
      options.rlimit = rlimit;
    else if (record.op.getRlimitDirective() > 0)
      options.rlimit = static_cast<uint64_t>(record.op.getRlimitDirective());
    options.cacheDir = cacheDir;

    Schedule schedule;
    SchedulerReport report;
    if (problem.transfers().empty()) {
      // Nothing to move (e.g. a gather over a group of one): no phases.
      schedule.algorithm = "none";
      report.algorithm = "none";
      report.gap = 1.0;
      report.timeOptimal = report.phaseOptimal = true;
    } else if (failed(runScheduler(getScheduler(*chosen), problem, schedule,
                                   options, report))) {
      record.op.emitError("cannot schedule '")
          << record.op.getCollectiveName() << "' with algorithm "
          << stringifySchedulerAlgorithm(*chosen) << ": " << report.error;
      hadError = true;
      continue;
    }
    if (report.fellBack)
      record.op.emitWarning("solver budget ran out for '")
          << record.op.getCollectiveName() << "': using the "
          << report.algorithm << " schedule of " << schedule.phases.size()
          << " phases at "
          << llvm::formatv("{0:F3}", report.gap).str()
          << " x the proven lower bound (gap "
          << llvm::formatv("{0:F1}", (report.gap - 1) * 100).str() << "%)";

    builder.setInsertionPointAfter(record.transferSet);
    std::string algorithmName =
        !report.algorithm.empty() ? report.algorithm : schedule.algorithm;
    auto scheduleOp = builder.create<ScheduleOp>(
        record.op.getLoc(), record.transferSet.getCollectiveAttr(),
        builder.getStringAttr(algorithmName),
        builder.getF64FloatAttr(schedule.bound.time),
        builder.getF64FloatAttr(schedule.bound.blocks),
        builder.getI64IntegerAttr(schedule.bound.minPhases),
        builder.getStringAttr(schedule.bound.reason),
        builder.getStringAttr(schedule.bound.phasesReason),
        builder.getF64FloatAttr(report.time),
        builder.getF64FloatAttr(report.gap),
        report.timeOptimal ? builder.getUnitAttr() : UnitAttr(),
        report.phaseOptimal ? builder.getUnitAttr() : UnitAttr(),
        report.fellBack ? builder.getUnitAttr() : UnitAttr(),
        /*num_chunks=*/IntegerAttr(), /*chunk_bytes=*/IntegerAttr(),
        /*machine_time=*/FloatAttr(), /*machine_bound=*/FloatAttr());
    appendPhases(builder, record.op.getLoc(), scheduleOp.getBody(), schedule);
    recordMachineCost(record.op, scheduleOp, problem.costModel(),
                      problem.cost(schedule));
  }
  if (hadError)
    signalPassFailure();
}

std::unique_ptr<Pass> phasec::comm::createSchedulePhasesPass() {
  return std::make_unique<SchedulePhasesPass>();
}

std::unique_ptr<Pass> phasec::comm::createSchedulePhasesPass(
    const CommSchedulePhasesOptions &options) {
  return std::make_unique<SchedulePhasesPass>(options);
}
