//===- SchedulePhases.cpp - comm-schedule-phases --------------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Schedules every transfer set that has no schedule yet with the scheduling
/// library and records the result, its proven lower bound and the gap in a
/// comm.schedule. As CIRCT's SSP scheduling pass, it loads (the operation's
/// problem from the IR), checks, schedules and saves; what to run and what
/// to prefer is the registry's (Registry.h: getDirectScheduler,
/// chooseGatherEvaluate, scheduleAuto; Relay.h: scheduleRelaying).
///
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Bounds.h"
#include "phasec/Scheduling/Registry.h"
#include "phasec/Transforms/CollectiveIR.h"
#include "phasec/Transforms/Passes.h"
#include "phasec/Transforms/ScheduleIR.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Timer.h"

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

  /// The comm.schedule this run made for the operation at hand (the
  /// `progress` remark reads it; reset per operation).
  ScheduleOp madeNow;

  /// The algorithm to run for `record`, or failure() after an error.
  FailureOr<SchedulerAlgorithm> chooseAlgorithm(OperationRecord &record,
                                                const Problem &problem);
  /// The budget and cache of `record`'s schedulers (the pass's options,
  /// else the operation's `rlimit`).
  SchedulerOptions getSchedulerOptions(OperationRecord &record) const;
  /// Runs the chosen scheduler on `problem` (a direct operation's
  /// traffic); failure() after an error at the operation.
  LogicalResult runDirect(OperationRecord &record, const Problem &problem,
                          Schedule &schedule, SchedulerReport &report);
  /// Writes `schedule` of a direct operation after `after` (its transfer
  /// set), with its costs.
  void emitDirectSchedule(OpBuilder &builder, OperationRecord &record,
                          Operation *after, const Problem &problem,
                          const Schedule &schedule,
                          const SchedulerReport &report,
                          llvm::StringRef prefix = "");
  /// Schedules a relayed operation (Relay.h); failure() after an error.
  /// Where the registry prefers seed 004's gather and local evaluation
  /// (chooseGatherEvaluate, given the relay's machine time `relayTime`),
  /// saves that instead and the operation's algorithm becomes
  /// gather_evaluate; failure() when the relay stays.
  LogicalResult tryGatherEvaluate(OperationRecord &record, const Topology &topo,
                                  const Collective &relayed,
                                  const CostModel &model, double relayTime,
                                  OpBuilder &builder);
  LogicalResult scheduleRelayed(OperationRecord &record, const Topology &topo,
                                SymbolTable &symbols, OpBuilder &builder);
  /// Writes a relaying schedule of `record` after its operation, with its
  /// cost under `model`.
  void emitRelayedSchedule(OperationRecord &record, const CostModel &model,
                           const RelaySchedule &relay, const ScheduleCost &cost,
                           OpBuilder &builder);
  /// Where `auto` prefers a relaying schedule to the direct one
  /// (chooseRelayOverDirect, given the direct schedule's machine time),
  /// saves it, drops the transfer set and marks the operation
  /// (kRelayedByAutoAttr); failure() when the direct schedule stays.
  LogicalResult tryRelayOverDirect(OperationRecord &record,
                                   const Topology &topo, const Problem &problem,
                                   const ScheduleCost &directCost,
                                   const std::string &directName,
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
  if (std::optional<SchedulerAlgorithm> chosen =
          getDirectScheduler(record.op.getAlgorithmDirective(),
                             record.op.getKLevelsDirective(), problem))
    return *chosen;
  // Relaying algorithms never get here (isRelayedOperation).
  return emitError(record.op.getLoc(), "algorithm '")
         << stringifyAlgorithm(record.op.getAlgorithmDirective())
         << "' does not apply to '" << record.op.getCollectiveName() << "'";
}

SchedulerOptions
SchedulePhasesPass::getSchedulerOptions(OperationRecord &record) const {
  SchedulerOptions options;
  if (rlimit != 0)
    options.rlimit = rlimit;
  else if (record.op.getRlimitDirective() > 0)
    options.rlimit = static_cast<uint64_t>(record.op.getRlimitDirective());
  options.cacheDir = cacheDir;
  // comm.phase holds rules; every reader of the IR's schedules expands them
  // or reads them through PhaseReader.
  options.phaseRules = true;
  return options;
}

/// The machine time of the chosen schedule where the machine charges more
/// than bandwidth, and `sync = auto` and `style = auto` resolved to what
/// that time assumed, so that the back ends see barrier, local or none, packing
/// or chained.
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
  if (op.getStyleDirective() == TransferStyle::Auto)
    op->setAttr("style",
                TransferStyleAttr::get(op.getContext(), cost.machine.style));
  // And the loop order it costed (the back ends never see `auto`).
  // (Contiguous stores, the dialect's default, prints as nothing.)
  if (auto transpose = dyn_cast<TransposeOp>(op.getOperation()))
    if (transpose.getLoopOrder() == LoopOrder::Auto)
      transpose.setLoopOrder(model.loopOrder());
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

/// The comm.schedule of `op` at the builder's insertion point, without
/// phases or machine costs (appendPhases, recordMachineCost); `chunks` for
/// a relaying schedule.
static ScheduleOp createScheduleOp(OpBuilder &builder, CollectiveOpInterface op,
                                   llvm::StringRef algorithm,
                                   const LowerBound &bound, double time,
                                   double gap, bool timeOptimal,
                                   bool phaseOptimal, bool fellBack,
                                   const ChunkSpec *chunks) {
  auto flag = [&](bool set) {
    return set ? builder.getUnitAttr() : UnitAttr();
  };
  return builder.create<ScheduleOp>(
      op.getLoc(),
      FlatSymbolRefAttr::get(builder.getContext(), op.getCollectiveName()),
      builder.getStringAttr(algorithm), builder.getF64FloatAttr(bound.time),
      builder.getF64FloatAttr(bound.blocks),
      builder.getI64IntegerAttr(bound.minPhases),
      builder.getStringAttr(bound.reason),
      builder.getStringAttr(bound.phasesReason), builder.getF64FloatAttr(time),
      builder.getF64FloatAttr(gap), flag(timeOptimal), flag(phaseOptimal),
      flag(fellBack),
      chunks ? builder.getI64IntegerAttr(chunks->numChunks) : IntegerAttr(),
      chunks ? builder.getI64IntegerAttr(chunks->chunkBytes) : IntegerAttr(),
      chunks && !chunks->chunkSizes.empty()
          ? builder.getDenseI64ArrayAttr(chunks->chunkSizes)
          : DenseI64ArrayAttr(),
      /*machine_time=*/FloatAttr(), /*machine_bound=*/FloatAttr(),
      /*translations=*/ArrayAttr());
}

LogicalResult SchedulePhasesPass::tryGatherEvaluate(
    OperationRecord &record, const Topology &topo, const Collective &relayed,
    const CostModel &model, double relayTime, OpBuilder &builder) {
  // The allgather is scheduled as the operation's direct traffic would be
  // (the pass's algorithm option, else auto).
  SchedulerOptions options = getSchedulerOptions(record);
  if (!algorithm.empty()) {
    std::optional<SchedulerAlgorithm> parsed =
        symbolizeSchedulerAlgorithm(algorithm);
    if (!parsed)
      return failure();
    options.algorithm = *parsed;
  }
  std::optional<GatherEvaluateCandidate> candidate = chooseGatherEvaluate(
      topo, relayed, record.op.getAggregateKind(),
      record.op.getAlgorithmDirective(), model, relayTime, options);
  if (!candidate)
    return failure();
  // The choice is written as the directive, so that every later pass and
  // back end sees the traffic it scheduled (getCollective).
  record.op->setAttr(
      "algorithm",
      AlgorithmAttr::get(record.op.getContext(), Algorithm::GatherEvaluate));
  builder.setInsertionPointAfter(record.op);
  TransferSetOp transferSet = createTransferSetOp(
      builder, record.op.getLoc(), record.op.getCollectiveName(),
      candidate->problem.transfers());
  emitDirectSchedule(builder, record, transferSet, candidate->problem,
                     candidate->schedule, candidate->report,
                     "gather_evaluate: ");
  return success();
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
  if (succeeded(tryGatherEvaluate(record, topo, *collective, model,
                                  cost.machine.total(), builder)))
    return success();
  emitRelayedSchedule(record, model, *relay, cost, builder);
  return success();
}

void SchedulePhasesPass::emitRelayedSchedule(OperationRecord &record,
                                             const CostModel &model,
                                             const RelaySchedule &relay,
                                             const ScheduleCost &cost,
                                             OpBuilder &builder) {
  builder.setInsertionPointAfter(record.op);
  ScheduleOp scheduleOp = madeNow =
      createScheduleOp(builder, record.op, relay.schedule.algorithm, cost.bound,
                       cost.time, cost.gap, cost.timeOptimal, cost.phaseOptimal,
                       /*fellBack=*/false, &relay.chunks);
  appendPhases(builder, record.op.getLoc(), scheduleOp.getBody(),
               relay.schedule);
  recordMachineCost(record.op, scheduleOp, model, cost);
}

LogicalResult SchedulePhasesPass::tryRelayOverDirect(
    OperationRecord &record, const Topology &topo, const Problem &problem,
    const ScheduleCost &directCost, const std::string &directName,
    SymbolTable &symbols, OpBuilder &builder) {
  // A scheduler the tool asked for (the pass's option) is direct.
  if (!algorithm.empty())
    return failure();
  FailureOr<Collective> collective = getCollective(record.op, symbols);
  if (failed(collective))
    return failure();
  const CostModel &model = problem.costModel();
  double directTime = directCost.machine.total();
  std::optional<RelayOverDirectCandidate> chosen = chooseRelayOverDirect(
      topo, *collective, record.op.getAlgorithmDirective(), model, directTime);
  if (!chosen)
    return failure();
  record.op->setAttr(
      kRelayedByAutoAttr,
      StringAttr::get(
          record.op.getContext(),
          llvm::formatv("{0} takes {1:e} s, the direct schedule ({2}) {3:e} s",
                        chosen->relay.schedule.algorithm,
                        chosen->cost.machine.total(), directName, directTime)
              .str()));
  if (record.transferSet) {
    record.transferSet->erase();
    record.transferSet = nullptr;
  }
  emitRelayedSchedule(record, model, chosen->relay, chosen->cost, builder);
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
    // Progress (the `progress` option): a remark once the operation has a
    // schedule, with what it is and how long it took.
    llvm::TimeRecord started = llvm::TimeRecord::getCurrentTime(true);
    madeNow = nullptr;
    auto reportProgress = llvm::make_scope_exit([&] {
      if (!progress)
        return;
      ScheduleOp scheduled = madeNow;
      if (!scheduled)
        return;
      double seconds = llvm::TimeRecord::getCurrentTime(false).getWallTime() -
                       started.getWallTime();
      int64_t phases = llvm::range_size(scheduled.getBody().getOps());
      record.op.emitRemark("scheduled '")
          << record.op.getCollectiveName() << "': " << phases << " phases ("
          << scheduled.getAlgorithm() << "), "
          << llvm::formatv("{0:F3}", scheduled.getGap().convertToDouble()).str()
          << " x the bound, in " << llvm::formatv("{0:F2}", seconds).str()
          << " s";
    });
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

    Schedule schedule;
    SchedulerReport report;
    if (failed(runDirect(record, problem, schedule, report))) {
      hadError = true;
      continue;
    }
    if (succeeded(tryRelayOverDirect(
            record, **topo, problem,
            report.cost ? *report.cost : problem.cost(schedule),
            report.algorithm.empty() ? schedule.algorithm : report.algorithm,
            symbols, builder)))
      continue;
    if (progress && problem.transfers().size() >= kProgressTransfers)
      record.op.emitRemark("scheduling '")
          << record.op.getCollectiveName() << "': writing "
          << schedule.phases.size() << " phases to the IR";
    emitDirectSchedule(
        builder, record, record.transferSet, problem, schedule, report,
        record.op.getAlgorithmDirective() == Algorithm::GatherEvaluate
            ? "gather_evaluate: "
            : "");
  }
  if (hadError)
    signalPassFailure();
}

LogicalResult SchedulePhasesPass::runDirect(OperationRecord &record,
                                            const Problem &problem,
                                            Schedule &schedule,
                                            SchedulerReport &report) {
  FailureOr<SchedulerAlgorithm> chosen = chooseAlgorithm(record, problem);
  if (failed(chosen))
    return failure();
  SchedulerOptions options = getSchedulerOptions(record);
  options.algorithm = *chosen;
  if (progress)
    options.progress = [&](llvm::StringRef line) {
      record.op.emitRemark("scheduling '")
          << record.op.getCollectiveName() << "': " << line;
    };

  if (problem.transfers().empty()) {
    // Nothing to move (e.g. a gather over a group of one): no phases.
    schedule.algorithm = "none";
    report.algorithm = "none";
    report.gap = 1.0;
    report.timeOptimal = report.directOptimal = report.phaseOptimal = true;
  } else if (failed(runScheduler(getScheduler(*chosen), problem, schedule,
                                 options, report))) {
    // Tools tell a spent budget from a bad input (phasec's exit code 3).
    if (report.budgetExhausted)
      record.op->setAttr(kBudgetExhaustedAttr,
                         UnitAttr::get(record.op.getContext()));
    return record.op.emitError("cannot schedule '")
           << record.op.getCollectiveName() << "' with algorithm "
           << stringifySchedulerAlgorithm(*chosen) << ": " << report.error;
  }
  // A bad cache entry changes nothing but the time: the schedule is the
  // one computed without it. Say so, so that the cache can be repaired.
  for (const std::string &line : report.cacheIgnored)
    record.op.emitWarning(line);
  if (report.fellBack)
    record.op.emitWarning("solver budget ran out for '")
        << record.op.getCollectiveName() << "': using the " << report.algorithm
        << " schedule of " << schedule.phases.size() << " phases at "
        << llvm::formatv("{0:F3}", report.gap).str()
        << " x the proven lower bound (gap "
        << llvm::formatv("{0:F1}", (report.gap - 1) * 100).str() << "%)";
  return success();
}

void SchedulePhasesPass::emitDirectSchedule(
    OpBuilder &builder, OperationRecord &record, Operation *after,
    const Problem &problem, const Schedule &schedule,
    const SchedulerReport &report, llvm::StringRef prefix) {
  builder.setInsertionPointAfter(after);
  std::string algorithmName =
      prefix.str() +
      (!report.algorithm.empty() ? report.algorithm : schedule.algorithm);
  ScheduleOp scheduleOp = madeNow = createScheduleOp(
      builder, record.op, algorithmName, schedule.bound, report.time,
      report.gap, report.timeOptimal, report.phaseOptimal, report.fellBack,
      /*chunks=*/nullptr);
  appendPhases(builder, record.op.getLoc(), scheduleOp.getBody(), schedule);
  recordMachineCost(record.op, scheduleOp, problem.costModel(),
                    report.cost ? *report.cost : problem.cost(schedule));
}

std::unique_ptr<Pass> phasec::comm::createSchedulePhasesPass() {
  return std::make_unique<SchedulePhasesPass>();
}

std::unique_ptr<Pass> phasec::comm::createSchedulePhasesPass(
    const CommSchedulePhasesOptions &options) {
  return std::make_unique<SchedulePhasesPass>(options);
}
