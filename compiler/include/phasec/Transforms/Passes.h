//===- Passes.h - comm dialect passes ---------------------------*- C++ -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Factories and registration of the comm passes (see Passes.td).
///
//===----------------------------------------------------------------------===//
#ifndef PHASEC_TRANSFORMS_PASSES_H
#define PHASEC_TRANSFORMS_PASSES_H

#include "phasec/Dialect/Comm/CommOps.h"

#include "mlir/Dialect/Mesh/IR/MeshDialect.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace phasec::comm {

#define GEN_PASS_DECL
#include "phasec/Transforms/Passes.h.inc"

std::unique_ptr<mlir::Pass> createLowerCollectivesPass();
std::unique_ptr<mlir::Pass>
createLowerCollectivesPass(const CommLowerCollectivesOptions &options);
std::unique_ptr<mlir::Pass> createSchedulePhasesPass();
std::unique_ptr<mlir::Pass>
createSchedulePhasesPass(const CommSchedulePhasesOptions &options);
std::unique_ptr<mlir::Pass> createVerifySchedulePass();
std::unique_ptr<mlir::Pass> createImportMeshPass();
std::unique_ptr<mlir::Pass>
createImportMeshPass(const CommImportMeshOptions &options);

/// Set by comm-import-mesh on each mesh collective: the comm operation (and
/// so the generated C function) it became.
inline constexpr llvm::StringLiteral kLoweredToAttr = "comm.lowered_to";
/// On a mesh.mesh: the comm.machine its devices run on.
inline constexpr llvm::StringLiteral kMeshMachineAttr = "comm.machine";

/// Set (a unit attribute) by comm-schedule-phases on an operation whose
/// solver budget ran out without a schedule to fall back on: the failure
/// is the budget's, not the input's.
inline constexpr llvm::StringLiteral kBudgetExhaustedAttr =
    "comm.solver_budget_exhausted";

#define GEN_PASS_REGISTRATION
#include "phasec/Transforms/Passes.h.inc"

} // namespace phasec::comm

#endif // PHASEC_TRANSFORMS_PASSES_H
