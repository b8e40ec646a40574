//===- Export.h - The back ends as translations of comm IR -----*- C++ -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A scheduled comm module (after comm-schedule-pipeline) to C + MPI, C +
/// OpenSHMEM or SimGrid SMPI directories. This is the one place that reads
/// the IR for the back ends: the operation's Collective
/// (comm::getCollective, the same value comm-lower-collectives scheduled),
/// the element type of its arrays, the style and sync directives, and a C
/// name for it; the emitters below it (OperationPlan.h, MPIEmitter.h,
/// SHMEMEmitter.h, SimGrid/) are MLIR-free. Errors about an operation are
/// reported at its location through the context's diagnostic handler.
///
/// The same functions are registered as `phasec-translate --export-mpi`,
/// `--export-shmem` and `--export-simgrid`.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_TARGET_EXPORT_H
#define PHASEC_TARGET_EXPORT_H

#include "phasec/Target/MPI/MPIEmitter.h"
#include "phasec/Target/Ns3/Ns3Target.h"
#include "phasec/Target/OperationPlan.h"
#include "phasec/Target/SHMEM/SHMEMEmitter.h"
#include "phasec/Target/SimGrid/SimTarget.h"
#include "phasec/Transforms/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

namespace phasec::target {

/// One plan per operation of `scheduled` (collected from `module`), in
/// program order. Fails after reporting at the operation's location.
mlir::FailureOr<std::vector<OperationPlan>>
buildOperationPlans(mlir::ModuleOp module, const ScheduledModule &scheduled);

/// One C file with a function per scheduled operation (and, with
/// options.main, the verifying, timing `main`).
mlir::LogicalResult exportMPI(mlir::ModuleOp module,
                              const ScheduledModule &scheduled,
                              llvm::raw_ostream &os, const MPIOptions &options);
mlir::LogicalResult exportSHMEM(mlir::ModuleOp module,
                                const ScheduledModule &scheduled,
                                llvm::raw_ostream &os,
                                const SHMEMOptions &options);

/// A SimGrid SMPI directory per operation in options.outDir (emitOnly), or
/// built, run and reported. Tables to `out`, progress to `diagOS`.
mlir::LogicalResult exportSimGrid(mlir::ModuleOp module,
                                  const ScheduledModule &scheduled,
                                  const simgrid::SimTargetOptions &options,
                                  llvm::raw_ostream &out,
                                  llvm::raw_ostream &diagOS);

/// An ns-3 directory (program, build, scenario) per operation in
/// options.outDir. Lines to `out`, errors to `diagOS` or at the operation.
mlir::LogicalResult exportNs3(mlir::ModuleOp module,
                              const ScheduledModule &scheduled,
                              const ns3target::Ns3Options &options,
                              llvm::raw_ostream &out,
                              llvm::raw_ostream &diagOS);

/// `--export-mpi`, `--export-shmem` (both with `--emit-main`) and
/// `--export-simgrid` (with `--simgrid-dir`).
void registerExportTranslations();

} // namespace phasec::target

#endif // PHASEC_TARGET_EXPORT_H
