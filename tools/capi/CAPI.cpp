//===- CAPI.cpp - phasec's C API ------------------------------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// Thin wrappers: every function unwraps MLIR's C handles, calls the C++
// library the phasec tool uses (ImportSched.h, Pipeline.h, Export.h) and
// wraps the result. Diagnostics go through the context's engine, so C
// callers see them in their own handlers.
//
//===----------------------------------------------------------------------===//

#include "phasec-c/Phasec.h"

#include "phasec/Dialect/Comm/CommOps.h"
#include "phasec/Driver/Driver.h"
#include "phasec/Lang/ImportSched.h"
#include "phasec/Transforms/Passes.h"
#include "phasec/Transforms/Pipeline.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/CAPI/Utils.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Comm, comm, phasec::comm::CommDialect)

void phasecRegisterDialects(MlirDialectRegistry registry) {
  phasec::registerPhasecDialects(*unwrap(registry));
}

void phasecRegisterPasses(void) {
  phasec::comm::registerCommPasses();
  phasec::registerSchedulingPipeline();
}

MlirModule phasecImportSched(MlirContext context, MlirStringRef source,
                             MlirStringRef bufferName) {
  MLIRContext *ctx = unwrap(context);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(unwrap(source), unwrap(bufferName)),
      llvm::SMLoc());
  OwningOpRef<ModuleOp> module =
      phasec::lang::importSchedToContext(sourceMgr, *ctx);
  return wrap(module ? module.release() : ModuleOp());
}

PhasecSchedulingOptions phasecSchedulingOptionsGetDefault(void) {
  PhasecSchedulingOptions options;
  options.algorithm = mlirStringRefCreate(nullptr, 0);
  options.solverRlimit = 0;
  options.cacheDir = mlirStringRefCreate(nullptr, 0);
  options.allowUnsupported = false;
  return options;
}

MlirLogicalResult phasecRunSchedulingPipeline(MlirModule module,
                                              PhasecSchedulingOptions options) {
  phasec::SchedulingPipelineOptions pipeline;
  pipeline.algorithm = unwrap(options.algorithm).str();
  pipeline.rlimit = options.solverRlimit;
  pipeline.cacheDir = unwrap(options.cacheDir).str();
  pipeline.allowUnsupported = options.allowUnsupported;
  return wrap(phasec::runSchedulingPipeline(unwrap(module), pipeline));
}

bool phasecModuleSolverBudgetExhausted(MlirModule module) {
  return phasec::solverBudgetExhausted(unwrap(module));
}

static phasec::ScheduledModule *unwrapSchedules(PhasecSchedules schedules) {
  return static_cast<phasec::ScheduledModule *>(schedules.ptr);
}

PhasecSchedules phasecSchedulesCreate(MlirModule module) {
  FailureOr<phasec::ScheduledModule> scheduled =
      phasec::collectSchedules(unwrap(module), /*requireEveryOperation=*/true);
  if (failed(scheduled))
    return {nullptr};
  return {new phasec::ScheduledModule(std::move(*scheduled))};
}

void phasecSchedulesDestroy(PhasecSchedules schedules) {
  delete unwrapSchedules(schedules);
}

intptr_t phasecSchedulesGetNumOperations(PhasecSchedules schedules) {
  return static_cast<intptr_t>(unwrapSchedules(schedules)->operations.size());
}

PhasecScheduledOperation phasecSchedulesGetOperation(PhasecSchedules schedules,
                                                     intptr_t pos) {
  const phasec::ScheduledOperation &op =
      unwrapSchedules(schedules)->operations[pos];
  PhasecScheduledOperation info;
  info.name = wrap(llvm::StringRef(op.name));
  info.kind = wrap(llvm::StringRef(op.kind));
  info.algorithm = wrap(llvm::StringRef(op.schedule.algorithm));
  info.numPhases = static_cast<intptr_t>(op.schedule.phases.size());
  info.numTransfers = static_cast<intptr_t>(op.schedule.numTransfers());
  info.time = op.cost.time;
  info.bound = op.cost.bound.time;
  info.gap = op.cost.gap;
  info.timeOptimal = op.cost.timeOptimal;
  info.phaseOptimal = op.cost.phaseOptimal;
  info.handWritten = op.handWritten;
  return info;
}

intptr_t phasecSchedulesGetNumTransfers(PhasecSchedules schedules,
                                        intptr_t operation, intptr_t phase) {
  return static_cast<intptr_t>(unwrapSchedules(schedules)
                                   ->operations[operation]
                                   .schedule.phases[phase]
                                   .transfers.size());
}

PhasecTransfer phasecSchedulesGetTransfer(PhasecSchedules schedules,
                                          intptr_t operation, intptr_t phase,
                                          intptr_t pos) {
  const phasec::Transfer &t = unwrapSchedules(schedules)
                                  ->operations[operation]
                                  .schedule.phases[phase]
                                  .transfers[pos];
  return {t.src, t.dst, t.bytes};
}

MlirLogicalResult phasecTranslateModule(MlirModule module,
                                        PhasecTranslation translation,
                                        bool emitMain,
                                        MlirStringCallback callback,
                                        void *userData) {
  ModuleOp op = unwrap(module);
  FailureOr<phasec::ScheduledModule> scheduled =
      phasec::collectSchedulesForExport(op);
  if (failed(scheduled))
    return mlirLogicalResultFailure();
  // What `phasec --emit=...` writes, through the same driver code.
  phasec::driver::DriverOptions options;
  switch (translation) {
  case PhasecTranslationScheduleJSON:
    options.emit = phasec::driver::EmitKind::ScheduleJSON;
    break;
  case PhasecTranslationScheduleStats:
    options.emit = phasec::driver::EmitKind::ScheduleStats;
    options.statsBaselines = false;
    break;
  case PhasecTranslationMPI:
    options.emit = phasec::driver::EmitKind::MPI;
    break;
  case PhasecTranslationSHMEM:
    options.emit = phasec::driver::EmitKind::SHMEM;
    break;
  case PhasecTranslationMPIHeader:
    options.emit = phasec::driver::EmitKind::MPIHeader;
    break;
  case PhasecTranslationSHMEMHeader:
    options.emit = phasec::driver::EmitKind::SHMEMHeader;
    break;
  default:
    emitError(op.getLoc()) << "phasecTranslateModule: unknown translation "
                           << static_cast<int>(translation);
    return mlirLogicalResultFailure();
  }
  options.emitMain = emitMain;
  // Into a string first: a failed translation writes nothing.
  std::string text;
  llvm::raw_string_ostream os(text);
  if (failed(phasec::driver::writeScheduled(op, *scheduled, options, os,
                                            llvm::nulls())))
    return mlirLogicalResultFailure();
  callback(wrap(llvm::StringRef(text)), userData);
  return mlirLogicalResultSuccess();
}
