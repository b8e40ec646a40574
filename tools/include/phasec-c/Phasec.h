/*===- phasec-c/Phasec.h - phasec's C API -------------------------*- C -*-===*\
|*                                                                            *|
|* Part of phasec.                                                            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/** \file
 * phasec from C, in the style of MLIR's C API (mlir-c/IR.h): register the
 * comm dialect and passes, import a .sched file, run the scheduling
 * pipeline, read the verified schedules and translate the module to the
 * schedule JSON, MPI or OpenSHMEM C. Link libPhasecCAPI.so
 * (find_package(Phasec) target Phasec::CAPI), which also carries MLIR's
 * core C API (mlirContextCreate, mlirModuleDestroy, mlirOperationPrint,
 * diagnostics handlers, pass managers). docs/embedding.md shows a session;
 * examples/embedding/schedule_c_api.c is a whole program.
 *
 * Errors are reported through the context's diagnostic handlers
 * (mlirContextAttachDiagnosticHandler) at the input's file:line:col, as
 * `phasec` prints them, and the call returns a null module or a failed
 * MlirLogicalResult; nothing aborts the process.
 */
#ifndef PHASEC_C_PHASEC_H
#define PHASEC_C_PHASEC_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** mlirGetDialectHandle__comm__(): the comm dialect. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Comm, comm);

/** Inserts every dialect phasec's IR uses (comm, and the upstream func,
 *  mesh, emitc and mpi that phasec-opt registers) into `registry`. */
MLIR_CAPI_EXPORTED void phasecRegisterDialects(MlirDialectRegistry registry);

/** Registers the comm passes and comm-schedule-pipeline with MLIR's pass
 *  registry, for mlirParsePassPipeline / mlirOpPassManagerAddPipeline. */
MLIR_CAPI_EXPORTED void phasecRegisterPasses(void);

/** Parses and checks .sched source text (`bufferName` names it in
 *  diagnostics) and lowers it to a comm module in `context` (which must have
 *  the comm dialect registered or loadable). Null on error. */
MLIR_CAPI_EXPORTED MlirModule phasecImportSched(MlirContext context,
                                                MlirStringRef source,
                                                MlirStringRef bufferName);

/** The scheduling pipeline's options (phasec's --algorithm,
 *  --solver-rlimit, --cache-dir, --allow-unsupported). */
typedef struct PhasecSchedulingOptions {
  /** Override every operation's algorithm; empty: the file's directives. */
  MlirStringRef algorithm;
  /** Z3 budget per query; 0: each operation's directive or the default. */
  uint64_t solverRlimit;
  /** Directory caching solved ring cores; empty: memory only. */
  MlirStringRef cacheDir;
  bool allowUnsupported;
} PhasecSchedulingOptions;

MLIR_CAPI_EXPORTED PhasecSchedulingOptions
phasecSchedulingOptionsGetDefault(void);

/** comm-lower-collectives, comm-schedule-phases and comm-verify-schedule
 *  on `module`. */
MLIR_CAPI_EXPORTED MlirLogicalResult phasecRunSchedulingPipeline(
    MlirModule module, PhasecSchedulingOptions options);

/** After a failed pipeline: true if it failed because a solver budget ran
 *  out without a schedule (phasec exits with 3), not because of the input. */
MLIR_CAPI_EXPORTED bool phasecModuleSolverBudgetExhausted(MlirModule module);

/** The verified schedules of a scheduled module (phasec::ScheduledModule).
 *  Owned by the caller: phasecSchedulesDestroy. */
typedef struct PhasecSchedules {
  void *ptr;
} PhasecSchedules;

/** Reads every scheduled operation. A null result (phasecSchedulesIsNull)
 *  after a diagnostic if an operation that moves data has no schedule. */
MLIR_CAPI_EXPORTED PhasecSchedules phasecSchedulesCreate(MlirModule module);
MLIR_CAPI_EXPORTED void phasecSchedulesDestroy(PhasecSchedules schedules);
static inline bool phasecSchedulesIsNull(PhasecSchedules schedules) {
  return !schedules.ptr;
}
MLIR_CAPI_EXPORTED intptr_t
phasecSchedulesGetNumOperations(PhasecSchedules schedules);

/** One operation's schedule: its cost against the proven lower bound
 *  (seconds on the machine's links), as `phasec --emit=schedule-stats`
 *  reports it. The strings live as long as `schedules`. */
typedef struct PhasecScheduledOperation {
  MlirStringRef name;
  /** "alltoall", "transpose", "broadcast", ... */
  MlirStringRef kind;
  /** The algorithm that made the schedule ("torus-quotient", "z3-exact",
   *  "hand-written", ...). */
  MlirStringRef algorithm;
  intptr_t numPhases;
  intptr_t numTransfers;
  double time;
  double bound;
  /** time / bound (1: no schedule is faster). */
  double gap;
  bool timeOptimal;
  bool phaseOptimal;
  /** The schedule was written in the source (a `schedule` block). */
  bool handWritten;
} PhasecScheduledOperation;

MLIR_CAPI_EXPORTED PhasecScheduledOperation
phasecSchedulesGetOperation(PhasecSchedules schedules, intptr_t pos);

/** One transfer of a phase: `bytes` from rank `source` to rank
 *  `destination` (machine ranks). */
typedef struct PhasecTransfer {
  int64_t source;
  int64_t destination;
  int64_t bytes;
} PhasecTransfer;

MLIR_CAPI_EXPORTED intptr_t phasecSchedulesGetNumTransfers(
    PhasecSchedules schedules, intptr_t operation, intptr_t phase);
MLIR_CAPI_EXPORTED PhasecTransfer phasecSchedulesGetTransfer(
    PhasecSchedules schedules, intptr_t operation, intptr_t phase,
    intptr_t pos);

/** What phasecTranslateModule writes. */
typedef enum PhasecTranslation {
  /** phasec-schedule/1 JSON (../shared/spec/schedule-json.md). */
  PhasecTranslationScheduleJSON,
  /** The schedule-stats table, without the baselines. */
  PhasecTranslationScheduleStats,
  /** C + MPI, a function per operation. */
  PhasecTranslationMPI,
  /** C + OpenSHMEM. */
  PhasecTranslationSHMEM,
  /** The header of the C + MPI file (types, prototypes; `emitMain` is
   *  ignored). */
  PhasecTranslationMPIHeader,
  /** The header of the C + OpenSHMEM file. */
  PhasecTranslationSHMEMHeader,
} PhasecTranslation;

/** Translates a scheduled module, passing the text to `callback` in pieces.
 *  `emitMain` adds the verifying, timing main to MPI and OpenSHMEM code.
 *  Nothing reaches the callback when the translation fails. */
MLIR_CAPI_EXPORTED MlirLogicalResult phasecTranslateModule(
    MlirModule module, PhasecTranslation translation, bool emitMain,
    MlirStringCallback callback, void *userData);

#ifdef __cplusplus
}
#endif

#endif /* PHASEC_C_PHASEC_H */
