//===- Driver.h - The phasec pipeline the tools share -----------*- C++ -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Everything `phasec` does, as one library call: import a .sched file
/// (lang/ImportSched.h), run the scheduling pipeline
/// (Transforms/Pipeline.h), and write the result: the AST, MLIR, the
/// schedule JSON or statistics, or a back end's translation
/// (Target/Export.h). It returns a LogicalResult after printing every
/// diagnostic to one stream in the `file:line:col: error:` format; exit codes
/// and colours are the tools' business. `phasec` is option parsing around
/// runPhasec; `phasec-translate` reaches each stage on its own.
///
/// Dependencies point one way: this library (tools/) -> lang, targets ->
/// compiler.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_DRIVER_DRIVER_H
#define PHASEC_DRIVER_DRIVER_H

#include "phasec/Lang/Parser.h"
#include "phasec/Target/Ns3/Ns3Target.h"
#include "phasec/Transforms/CostUnits.h"
#include "phasec/Transforms/Pipeline.h"

#include "mlir/IR/DialectRegistry.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace phasec::driver {

/// What `phasec --emit=` writes.
enum class EmitKind {
  AST,
  MLIR,
  ScheduleJSON,
  ScheduleStats,
  /// C + MPI (Target/Export.h), one function per operation.
  MPI,
  /// C + OpenSHMEM (Target/Export.h).
  SHMEM,
  /// The header of the C + MPI or C + OpenSHMEM file: types and prototypes.
  MPIHeader,
  SHMEMHeader,
  /// A SimGrid SMPI directory per operation (platform, program, run script),
  /// written to DriverOptions::outDir, not built or run.
  SimGrid,
  /// An ns-3 directory per operation (program, CMake build, scenario) in
  /// DriverOptions::outDir (Target/Ns3/Ns3Target.h).
  Ns3,
  /// Seed 003's C^3 units per operation (CostUnits.h): a table, or JSON.
  Cost,
  CostJSON,
};

struct DriverOptions {
  EmitKind emit = EmitKind::MLIR;
  /// --topology / --ranks-per-node / --define and the front end's resource
  /// limits.
  lang::FrontendOptions frontend;
  /// --allow-unsupported, --algorithm, --solver-rlimit, --cache-dir.
  SchedulingPipelineOptions scheduling;
  /// --emit=mlir: also run the scheduling pipeline first.
  bool scheduleMLIR = false;
  /// --emit=mlir: print locations.
  bool printDebugInfo = false;
  /// --emit=mpi / --emit=shmem: also emit the verifying, timing `main`.
  bool emitMain = false;
  /// --target=sim: build and run the SimGrid simulation of every operation
  /// and print its table (overrides `emit`).
  bool simulate = false;
  /// --emit=simgrid / --target=sim: the output directory (-o; "" = a new
  /// temporary directory).
  std::string outDir;
  /// --target=sim: --compare (baselines and SimGrid's built-ins) and
  /// --report DIR.
  bool compare = false;
  std::string reportDir;
  /// --emit=ns3: the packets' header and the routers' buffer depth
  /// (--ns3-header, --ns3-buffer); the output directory is outDir.
  ns3target::Ns3Options ns3;
  /// --emit=cost and --emit=cost-json: --cost-sizes, --c3-setup,
  /// --c3-routing, --c3-sends (`json` follows `emit`).
  CostOptions cost;
  /// --verify-diagnostics: check the diagnostics against the input's
  /// `expected-error`/`-warning`/`-note` comments (MLIR's verifier) instead
  /// of printing them; the output is discarded.
  bool verifyDiagnostics = false;
  /// --emit=schedule-stats: also schedule and print the baselines (off:
  /// --no-baselines).
  bool statsBaselines = true;
  /// --emit=mpi / --emit=shmem: --symbol-prefix (MPIOptions::symbolPrefix).
  std::string symbolPrefix;
  /// --stats-file: also write the schedule statistics here (without the
  /// baselines: the run is for code), after the output succeeded.
  std::string statsFile;
  /// The input is MLIR (a `.mlir` file), not `.sched`: comm operations, or
  /// upstream mesh collectives that comm-import-mesh turns into comm
  /// operations (the machine of a mesh without a `comm.machine` attribute
  /// is frontend.topologyOverride, phasec's --topology).
  bool mlirInput = false;
};

/// How a run ended, for the tool's exit code (docs/language.md,
/// "Diagnostics"): 0 success, 1 an error in the input, 3 a solver budget
/// that ran out without a schedule (2, a usage error, is the tool's).
enum class RunStatus { Success = 0, InputError = 1, SolverBudget = 3 };

/// The dialects phasec uses.
void registerDialects(mlir::DialectRegistry &registry);

/// Everything after the scheduling pipeline, on a module it ran on and its
/// collected schedules: the writer or back end of `options.emit` (or the
/// SimGrid target) to `out`, progress to `diagOS`.
mlir::LogicalResult writeScheduled(mlir::ModuleOp module,
                                   const ScheduledModule &scheduled,
                                   const DriverOptions &options,
                                   llvm::raw_ostream &out,
                                   llvm::raw_ostream &diagOS);

/// The whole `phasec` tool on the main buffer of `sourceMgr`: output to
/// `out`, diagnostics to `diagOS`.
mlir::LogicalResult runPhasec(llvm::SourceMgr &sourceMgr,
                              const DriverOptions &options,
                              llvm::raw_ostream &out,
                              llvm::raw_ostream &diagOS);
/// The same, saying how it ended.
RunStatus runPhasecWithStatus(llvm::SourceMgr &sourceMgr,
                              const DriverOptions &options,
                              llvm::raw_ostream &out,
                              llvm::raw_ostream &diagOS);

} // namespace phasec::driver

#endif // PHASEC_DRIVER_DRIVER_H
