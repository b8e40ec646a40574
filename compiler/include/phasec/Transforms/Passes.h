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

/// Set (a unit attribute) by comm-schedule-phases on an operation whose
/// solver budget ran out without a schedule to fall back on: the failure
/// is the budget's, not the input's.
inline constexpr llvm::StringLiteral kBudgetExhaustedAttr =
    "comm.solver_budget_exhausted";

#define GEN_PASS_REGISTRATION
#include "phasec/Transforms/Passes.h.inc"

} // namespace phasec::comm

#endif // PHASEC_TRANSFORMS_PASSES_H
