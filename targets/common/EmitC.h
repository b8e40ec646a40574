//===- EmitC.h - C emission shared by the MPI and SHMEM back ends -*- C++ -*-===//
//
// Part of phasec. Internal to targets/ (not installed).
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The parts of a generated program that do not depend on the transport:
/// element types, the member map, phase formulas or per-member tables,
/// displacements, permutation index lists, the transpose copy kernels and
/// the harness's fill / check functions. Every function writes C11 text for
/// one OperationPlan; names are prefixed with the plan's name.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_TARGETS_COMMON_EMITC_H
#define PHASEC_TARGETS_COMMON_EMITC_H

#include "phasec/Target/OperationPlan.h"

#include "llvm/Support/raw_ostream.h"

namespace phasec {
namespace target {
namespace detail {

/// Checks the plans of one output file (non-empty, distinct names).
llvm::LogicalResult checkPlans(llvm::ArrayRef<OperationPlan> plans,
                               std::string &error);

/// Typedefs every generated file carries (complex types, phasec_xfer_t).
void emitCommonTypes(llvm::raw_ostream &os);

/// A comment describing the plan: operation, group, schedule, phases.
void emitPlanComment(llvm::raw_ostream &os, const OperationPlan &plan);

/// Constants, member map, phase formulas or tables, displacements,
/// permutation support, transpose kernels.
void emitPlanData(llvm::raw_ostream &os, const OperationPlan &plan);

/// Block ops: `static void NAME_local(int me, const void *sendbuf, void
/// *recvbuf)`, the part of the operation that stays on the member.
void emitLocalCopy(llvm::raw_ostream &os, const OperationPlan &plan);

/// Harness helpers: NAME_send_bytes/recv_bytes(me), NAME_fill(me, buf),
/// NAME_check(me, buf, st), NAME_size() (the OSU "Size" column).
void emitHarnessHelpers(llvm::raw_ostream &os, const OperationPlan &plan);

/// Emits the loop over phases. `body(os, indent)` writes the statements of
/// one phase given C variables: in formula mode `to`, `from` (member
/// indices, -1 if none) and `bytes_to`, `bytes_from`; in table mode the
/// ranges [s0, s1) of sends and [r0, r1) of receives (phasec_xfer_t).
/// Formula mode is chosen by plan.useFormulas.
void emitPhaseLoop(
    llvm::raw_ostream &os, const OperationPlan &plan,
    llvm::function_ref<void(llvm::raw_ostream &, bool formula)> body);

/// True if the op is a transpose / an element permutation.
inline bool isTranspose(const OperationPlan &p) {
  return p.kind == OpKind::Transpose;
}
inline bool isPermute(const OperationPlan &p) {
  return p.kind == OpKind::Permute;
}
inline bool isBlockOp(const OperationPlan &p) {
  return !isTranspose(p) && !isPermute(p);
}

/// The number of phases in which some member sends more than once, the
/// largest number of sends / receives a member has in one phase.
int64_t maxSendsPerPhase(const OperationPlan &plan);
int64_t maxRecvsPerPhase(const OperationPlan &plan);

} // namespace detail
} // namespace target
} // namespace phasec

#endif // PHASEC_TARGETS_COMMON_EMITC_H
