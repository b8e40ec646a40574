//===- Driver.cpp - The phasec pipeline the tools share -------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// import -> passes -> write. Diagnostics of every stage go to one stream in
/// the `file:line:col: error:` format with the source line and a caret: the
/// front end prints its own, MLIR diagnostics go through a
/// SourceMgrDiagnosticHandler on the same SourceMgr, so errors found by the
/// passes and the back ends point into the .sched file.
///
//===----------------------------------------------------------------------===//

#include "phasec/Driver/Driver.h"
#include "phasec/Lang/ImportSched.h"
#include "phasec/Target/Export.h"
#include "phasec/Transforms/Passes.h"

#include "mlir/Dialect/Mesh/IR/MeshOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace phasec;
using namespace phasec::driver;

void phasec::driver::registerDialects(DialectRegistry &registry) {
  registerPhasecDialects(registry);
}

/// --emit=mlir, optionally after the pipeline.
static LogicalResult printMLIR(ModuleOp module, const DriverOptions &options,
                               llvm::raw_ostream &out) {
  if (options.scheduleMLIR &&
      failed(runSchedulingPipeline(module, options.scheduling)))
    return failure();
  OpPrintingFlags flags;
  if (options.printDebugInfo)
    flags.enableDebugInfo();
  module.print(out, flags);
  out << "\n";
  return success();
}

/// A C back end's options from the command line's: its header with
/// `--emit=...-header`, the harness with `--main`, the symbol prefix.
template <typename Options>
static Options cFileOptions(const DriverOptions &options, EmitKind header) {
  Options c;
  c.header = options.emit == header;
  c.main = options.emitMain;
  c.symbolPrefix = options.symbolPrefix;
  return c;
}

LogicalResult phasec::driver::writeScheduled(ModuleOp module,
                                             const ScheduledModule &scheduled,
                                             const DriverOptions &options,
                                             llvm::raw_ostream &out,
                                             llvm::raw_ostream &diagOS) {
  if (options.simulate || options.emit == EmitKind::SimGrid) {
    simgrid::SimTargetOptions sim;
    sim.outDir = options.outDir;
    sim.emitOnly = !options.simulate;
    sim.compare = options.compare;
    sim.reportDir = options.reportDir;
    return target::exportSimGrid(module, scheduled, sim, out, diagOS);
  }
  switch (options.emit) {
  case EmitKind::Ns3: {
    ns3target::Ns3Options ns3 = options.ns3;
    ns3.outDir = options.outDir;
    return target::exportNs3(module, scheduled, ns3, out, diagOS);
  }
  case EmitKind::ScheduleJSON:
    return writeScheduleJSON(scheduled, out);
  case EmitKind::ScheduleStats:
    writeScheduleStats(scheduled, out, options.statsBaselines);
    return success();
  case EmitKind::Cost:
  case EmitKind::CostJSON: {
    CostOptions cost = options.cost;
    cost.json = options.emit == EmitKind::CostJSON;
    return writeCostUnits(scheduled, cost, out);
  }
  case EmitKind::MPI:
  case EmitKind::MPIHeader:
    return target::exportMPI(
        module, scheduled, out,
        cFileOptions<target::MPIOptions>(options, EmitKind::MPIHeader));
  case EmitKind::SHMEM:
  case EmitKind::SHMEMHeader:
    return target::exportSHMEM(
        module, scheduled, out,
        cFileOptions<target::SHMEMOptions>(options, EmitKind::SHMEMHeader));
  case EmitKind::AST:
  case EmitKind::MLIR:
  case EmitKind::SimGrid:
    break;
  }
  llvm_unreachable("AST and MLIR are written before scheduling");
}

LogicalResult phasec::driver::runPhasec(llvm::SourceMgr &sourceMgr,
                                        const DriverOptions &options,
                                        llvm::raw_ostream &out,
                                        llvm::raw_ostream &diagOS) {
  return success(runPhasecWithStatus(sourceMgr, options, out, diagOS) ==
                 RunStatus::Success);
}

/// Everything after the front end: print, or schedule and write.
static LogicalResult runStages(ModuleOp module, lang::Program *program,
                               const DriverOptions &options,
                               llvm::raw_ostream &out,
                               llvm::raw_ostream &diagOS);

/// A .mlir input: parsed, then its mesh collectives (if any) turned into
/// comm operations. Null after a diagnostic.
static OwningOpRef<ModuleOp> importMLIR(llvm::SourceMgr &sourceMgr,
                                        MLIRContext &context,
                                        const DriverOptions &options) {
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return nullptr;
  // --topology names the machine of meshes; a module without one would
  // ignore it.
  if (!options.frontend.topologyOverride.empty() &&
      module->getOps<mesh::MeshOp>().empty()) {
    // At the machine it would have been mistaken for, if there is one.
    auto machines = module->getOps<comm::MachineOp>();
    Location loc =
        machines.empty() ? module->getLoc() : (*machines.begin()).getLoc();
    emitError(loc) << "--topology gives the machine of a mesh.mesh, and this "
                      "module has none (a comm.machine keeps its own "
                      "topology)";
    return nullptr;
  }
  PassManager pm(&context);
  comm::CommImportMeshOptions meshOptions;
  meshOptions.machine = options.frontend.topologyOverride;
  pm.addPass(comm::createImportMeshPass(meshOptions));
  if (failed(pm.run(*module)))
    return nullptr;
  return module;
}

/// The input as a comm module (and, for .sched, its evaluated program).
static OwningOpRef<ModuleOp>
importInput(llvm::SourceMgr &sourceMgr, MLIRContext &context,
            const DriverOptions &options, lang::DiagnosticEngine &diag,
            std::unique_ptr<lang::Program> &program) {
  if (options.mlirInput)
    return importMLIR(sourceMgr, context, options);
  return lang::importSched(sourceMgr, context, options.frontend, diag,
                           &program);
}

RunStatus phasec::driver::runPhasecWithStatus(llvm::SourceMgr &sourceMgr,
                                              const DriverOptions &options,
                                              llvm::raw_ostream &out,
                                              llvm::raw_ostream &diagOS) {
  DialectRegistry registry;
  registerDialects(registry);
  MLIRContext context(registry);
  // Huge schedules are built on one thread anyway; threads only cost here.
  context.disableMultithreading();
  // Diagnostics point into the .sched file; a dump of the op adds nothing.
  context.printOpOnDiagnostic(false);
  lang::DiagnosticEngine diag(sourceMgr, diagOS);

  if (options.verifyDiagnostics) {
    // Every stage's diagnostics, the front end's too, through MLIR's
    // engine to the verifier; the output is discarded.
    SourceMgrDiagnosticVerifierHandler verifier(sourceMgr, &context, diagOS);
    std::unique_ptr<lang::Program> program;
    OwningOpRef<ModuleOp> module;
    {
      // Flushes the front end's last diagnostic when it goes.
      lang::MLIRDiagnosticForwarder forwarder(diag, context);
      module = importInput(sourceMgr, context, options, diag, program);
    }
    if (module)
      (void)runStages(*module, program.get(), options, llvm::nulls(), diagOS);
    return succeeded(verifier.verify()) ? RunStatus::Success
                                        : RunStatus::InputError;
  }

  SourceMgrDiagnosticHandler handler(sourceMgr, &context, diagOS);
  std::unique_ptr<lang::Program> program;
  OwningOpRef<ModuleOp> module =
      importInput(sourceMgr, context, options, diag, program);
  if (!module)
    return RunStatus::InputError;
  if (succeeded(runStages(*module, program.get(), options, out, diagOS)))
    return RunStatus::Success;
  return solverBudgetExhausted(*module) ? RunStatus::SolverBudget
                                        : RunStatus::InputError;
}

static LogicalResult runStages(ModuleOp module, lang::Program *program,
                               const DriverOptions &options,
                               llvm::raw_ostream &out,
                               llvm::raw_ostream &diagOS) {
  if (!options.simulate && options.emit == EmitKind::AST) {
    // The tool refuses --emit=ast for .mlir inputs (a usage error).
    assert(program && "--emit=ast needs a .sched input");
    program->print(out, /*maxItems=*/16);
    return success();
  }
  if (!options.simulate && options.emit == EmitKind::MLIR)
    return printMLIR(module, options, out);

  if (failed(runSchedulingPipeline(module, options.scheduling)))
    return failure();
  // Operations the pipeline skipped (--allow-unsupported, with a warning)
  // have no schedule; anything else without one is an error.
  // The schedule JSON and statistics read phases held by rule (a 20x20x20
  // all-to-all's 64 M transfers one phase at a time), and the MPI and
  // OpenSHMEM back ends keep them (tables by rule); the others list every
  // transfer.
  bool keepRules =
      !options.simulate &&
      llvm::is_contained({EmitKind::ScheduleJSON, EmitKind::ScheduleStats,
                          EmitKind::MPI, EmitKind::MPIHeader, EmitKind::SHMEM,
                          EmitKind::SHMEMHeader},
                         options.emit);
  FailureOr<ScheduledModule> scheduled = collectSchedules(
      module,
      /*requireEveryOperation=*/!options.scheduling.allowUnsupported,
      keepRules);
  if (failed(scheduled))
    return failure();
  if (failed(writeScheduled(module, *scheduled, options, out, diagOS)))
    return failure();
  if (options.statsFile.empty())
    return success();
  // The statistics of the schedules just written, from the same run.
  std::error_code ec;
  llvm::ToolOutputFile stats(options.statsFile, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return emitError(module.getLoc())
           << "cannot write --stats-file '" << options.statsFile
           << "': " << ec.message();
  writeScheduleStats(*scheduled, stats.os(), /*baselines=*/false);
  stats.keep();
  return success();
}
