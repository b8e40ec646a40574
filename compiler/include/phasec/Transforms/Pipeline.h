//===- Pipeline.h - The scheduling pipeline and its results -----*- C++ -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What every tool and every embedding compiler runs on a comm module:
/// comm-lower-collectives, comm-schedule-phases, comm-verify-schedule
/// (`buildSchedulingPipeline`, also registered as the pass pipeline
/// `comm-schedule-pipeline`), then the verified schedules read back out of
/// the IR (`collectSchedules`) and written in the schedule JSON of
/// shared/spec or as statistics. The JSON and the statistics are also
/// translations (`--export-schedule-json`, `--export-schedule-stats`).
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_TRANSFORMS_PIPELINE_H
#define PHASEC_TRANSFORMS_PIPELINE_H

#include "phasec/Dialect/Comm/CommOps.h"
#include "phasec/Scheduling/Collective.h"
#include "phasec/Scheduling/Problem.h"
#include "phasec/Topology/Topology.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace phasec {

struct SchedulingPipelineOptions {
  /// Warn about (instead of rejecting) operations whose lowering is "not
  /// yet supported" (none today: k_level(k > 1) of an alltoall relays).
  bool allowUnsupported = false;
  /// Override every operation's algorithm ("" = its directives).
  std::string algorithm;
  /// Z3 budget per query (0 = each operation's directive, else the
  /// scheduler's default).
  uint64_t rlimit = 0;
  /// Directory caching solved ring cores ("" = memory only).
  std::string cacheDir;
  /// The most transfers one operation may have (comm-lower-collectives'
  /// max-transfers).
  int64_t maxTransfers = Collective::kDefaultMaxTransfers;
  /// Apply MLIR's pass-manager and timing command-line options
  /// (--mlir-timing, --mlir-pass-statistics, --mlir-print-ir-after-all, ...)
  /// to the pipeline: the tool registered them
  /// (mlir::registerPassManagerCLOptions,
  /// mlir::registerDefaultTimingManagerCLOptions).
  bool applyMLIRCLOptions = false;
  /// comm-schedule-phases' `progress`: a remark per scheduled operation.
  bool progress = false;
};

/// Adds comm-lower-collectives, comm-schedule-phases and
/// comm-verify-schedule to `pm`.
void buildSchedulingPipeline(mlir::OpPassManager &pm,
                             const SchedulingPipelineOptions &options);

/// Runs them on `module` (diagnostics through the context's handler).
mlir::LogicalResult
runSchedulingPipeline(mlir::ModuleOp module,
                      const SchedulingPipelineOptions &options);

/// `comm-schedule-pipeline` for phasec-opt and mlir-opt plugins.
void registerSchedulingPipeline();

/// comm and the upstream dialects phasec's IR meets: func (test inputs,
/// sharded programs), mesh (what comm-import-mesh reads), emitc and mpi
/// (the upstream targets). Every tool and translation registers them all, so
/// that a module phasec-opt prints, every other tool reads.
void registerPhasecDialects(mlir::DialectRegistry &registry);

/// After a failed pipeline: whether an operation's solver budget ran out
/// without a schedule to fall back on (comm::kBudgetExhaustedAttr), the
/// failure being the budget's rather than the input's (phasec's exit 3).
bool solverBudgetExhausted(mlir::ModuleOp module);

/// One operation with its verified schedule, decoded from the IR.
struct ScheduledOperation {
  std::string name;
  /// Collective::kindName(): "alltoall", "transpose", "rank_permute"...
  std::string kind;
  comm::CollectiveOpInterface op;
  /// Owned by the enclosing ScheduledModule.
  const Topology *topology = nullptr;
  std::unique_ptr<Problem> problem;
  Schedule schedule;
  bool handWritten = false;
  /// The schedule against the problem's bound; phaseOptimal also where the
  /// scheduler proved it (comm.schedule's `phase_optimal`).
  ScheduleCost cost;
  /// The solver budget ran out (comm.schedule's `fell_back`).
  bool fellBack = false;
};

struct ScheduledModule {
  std::vector<std::unique_ptr<Topology>> topologies;
  /// In program order; operations that move no data are left out.
  std::vector<ScheduledOperation> operations;
};

/// Reads every scheduled operation (comm.schedule or comm.user_schedule
/// with its comm.transfer_set) out of a module the pipeline has run on.
/// Hand-written schedules get the computed lower bound. With
/// `requireEveryOperation`, an operation that moves data but has no schedule
/// is an error at its location (a module the pipeline has not run on, or
/// one whose operations comm-lower-collectives skipped); without it, such
/// operations are left out. Phases held by rule (comm.phase `rules`) stay
/// so with `keepRules`, for readers that go through PhaseReader (the
/// schedule JSON and statistics, the cost model, the verifier); otherwise
/// every transfer is listed.
mlir::FailureOr<ScheduledModule>
collectSchedules(mlir::ModuleOp module, bool requireEveryOperation = false,
                 bool keepRules = false);

/// A translation's input: `op` must be a builtin.module the pipeline has
/// run on; collectSchedules with every operation required. The --export-*
/// translations of the compiler and of the targets all start here.
mlir::FailureOr<ScheduledModule>
collectSchedulesForExport(mlir::Operation *op, bool keepRules = false);

/// The spec's JSON: one document for one operation, else
/// {"format": ..., "operations": [...]}. An operation whose schedule has no
/// document (checkScheduleDocument) is an error at its location, and
/// nothing is written.
mlir::LogicalResult writeScheduleJSON(const ScheduledModule &scheduled,
                                      llvm::raw_ostream &os);

/// Per operation: phases, lower bound, time / bound, and (unless
/// `baselines` is false: each is scheduled again, which can double a long
/// run) the same for the baselines and the other relay algorithms, with
/// the "why" line.
void writeScheduleStats(const ScheduledModule &scheduled, llvm::raw_ostream &os,
                        bool baselines = true);

/// `--export-schedule-json`, `--export-schedule-stats`, `--export-cost` and
/// `--export-cost-json`: collectSchedules (every operation required) on a
/// scheduled module, then the writers above and CostUnits.h's.
void registerScheduleTranslations();

} // namespace phasec

#endif // PHASEC_TRANSFORMS_PIPELINE_H
