//===- Driver.h - The phasec pipeline as a library --------------*- C++ -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Everything `phasec` does, as functions another compiler can embed:
/// parse and check a .sched file, lower it to the comm dialect, run the
/// scheduling pipeline (comm-lower-collectives, comm-schedule-phases,
/// comm-verify-schedule), read the verified schedules back out of the IR,
/// and write them (MLIR, the schedule JSON of shared/spec, statistics). The
/// `phasec` tool is only command-line parsing around runPhasec(). The back
/// ends (C + MPI, C + OpenSHMEM, SimGrid SMPI) take the verified schedules
/// from there.
///
//===----------------------------------------------------------------------===//
#ifndef PHASEC_DRIVER_DRIVER_H
#define PHASEC_DRIVER_DRIVER_H

#include "phasec/Dialect/Comm/CommOps.h"
#include "phasec/Lang/AST.h"
#include "phasec/Lang/Parser.h"
#include "phasec/Scheduling/Problem.h"
#include "phasec/Topology/Topology.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace phasec::driver {

/// What `phasec --emit=` writes.
enum class EmitKind {
  AST,
  MLIR,
  ScheduleJSON,
  ScheduleStats,
  /// C + MPI (phasec/Target/MPI/MPIEmitter.h), one function per operation.
  MPI,
  /// C + OpenSHMEM (phasec/Target/SHMEM/SHMEMEmitter.h).
  SHMEM,
  /// A SimGrid SMPI directory per operation (platform, program, run script),
  /// written to DriverOptions::outDir, not built or run.
  SimGrid,
};

/// "ast", "mlir", "schedule-json", "schedule-stats", "mpi", "shmem",
/// "simgrid".
llvm::StringRef stringifyEmitKind(EmitKind kind);
std::optional<EmitKind> parseEmitKind(llvm::StringRef name);

struct DriverOptions {
  EmitKind emit = EmitKind::MLIR;
  /// --topology / --ranks-per-node and the front end's resource limits.
  lang::FrontendOptions frontend;
  /// --solver-rlimit: Z3 budget per query for every operation (0 = each
  /// operation's directive, else the scheduler's default).
  uint64_t solverRlimit = 0;
  /// --algorithm: override every operation's algorithm ("" = directives).
  std::string algorithm;
  /// Directory caching solved ring cores ("" = memory only).
  std::string cacheDir;
  /// Warn about (instead of rejecting) operations that need relays.
  bool allowUnsupported = false;
  /// --emit=mlir: also run the scheduling pipeline first.
  bool scheduleMLIR = false;
  /// --emit=mlir: print locations.
  bool printDebugInfo = false;
  /// --emit=mpi / --emit=shmem: also emit the verifying, timing `main`.
  bool emitMain = false;
  /// --target=sim: build and run the SimGrid simulation of every operation
  /// and print its table (overrides `emit`).
  bool simulate = false;
  /// --emit=simgrid / --target=sim: the output directory (-o; "" = the
  /// SimGrid target's default, simgrid-<operation>).
  std::string outDir;
  /// --target=sim: --compare (baselines and SimGrid's built-ins) and
  /// --report DIR.
  bool compare = false;
  std::string reportDir;
};

/// The dialects phasec uses.
void registerDialects(mlir::DialectRegistry &registry);

/// Parses and checks the main buffer of `sourceMgr` and converts it to the
/// comm dialect. Front-end errors are printed to `diagOS` by the front end's
/// engine; the caller must have installed an MLIR diagnostic handler on
/// `context`. Returns null on error. `programOut` receives the AST if given.
mlir::OwningOpRef<mlir::ModuleOp>
parseToComm(llvm::SourceMgr &sourceMgr, const DriverOptions &options,
            mlir::MLIRContext &context, llvm::raw_ostream &diagOS,
            std::unique_ptr<lang::Program> *programOut = nullptr);

/// Adds comm-lower-collectives, comm-schedule-phases and
/// comm-verify-schedule, configured from `options`, to `pm`.
void buildSchedulingPipeline(mlir::OpPassManager &pm,
                             const DriverOptions &options);

/// Runs the scheduling pipeline on `module` (diagnostics through the
/// context's handler).
mlir::LogicalResult runSchedulingPipeline(mlir::ModuleOp module,
                                          const DriverOptions &options);

/// One operation with its verified schedule, decoded from the IR.
struct ScheduledOperation {
  std::string name;
  /// The scheduling library's name: "alltoall", "transpose", "rank_permute"...
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
/// Hand-written schedules get the computed lower bound.
mlir::FailureOr<ScheduledModule> collectSchedules(mlir::ModuleOp module);

/// The spec's JSON: one document for one operation, else
/// {"format": ..., "operations": [...]}.
void writeScheduleJSON(const ScheduledModule &scheduled, llvm::raw_ostream &os);

/// Per operation: phases, lower bound, time / bound, and the same for the
/// linear shift, XOR and greedy baselines.
void writeScheduleStats(const ScheduledModule &scheduled,
                        llvm::raw_ostream &os);

/// --emit=mpi / --emit=shmem: writes one C file with a function per
/// operation of `scheduled` (collected from `module`), errors at the
/// operations' locations. Returns the exit code.
int emitCode(mlir::ModuleOp module, const ScheduledModule &scheduled,
             const DriverOptions &options, llvm::raw_ostream &out,
             llvm::raw_ostream &diagOS);

/// --emit=simgrid / --target=sim through phasec::simgrid::runSimTarget.
/// Returns the exit code.
int runSimGrid(const ScheduledModule &scheduled, const DriverOptions &options,
               llvm::raw_ostream &out, llvm::raw_ostream &diagOS);

/// The whole `phasec` tool on the main buffer of `sourceMgr`: output to
/// `out`, diagnostics to `diagOS`. Returns the exit code (0 or 1).
int runPhasec(llvm::SourceMgr &sourceMgr, const DriverOptions &options,
              llvm::raw_ostream &out, llvm::raw_ostream &diagOS);

} // namespace phasec::driver

#endif // PHASEC_DRIVER_DRIVER_H
