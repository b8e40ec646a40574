//===- PlanVisitor.h - OperationPlan visitor, shape fallbacks ---*- C++ -*-===//
//
// Part of phasec. Internal to targets/ (not installed).
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A visitor over OperationPlans in the style of CIRCT's CombVisitors.h:
/// dispatch on what the plan's data is (the vocabulary's DataShape, from
/// the kind's traits), with fallbacks from the particular to the general,
/// so that a back end writes code per shape and not per kind:
///
///   visitBlockPermute   -> visitBlocks          (blocks; the DataSides say
///                                                 where each sits)
///   visitPairSizes, visitMatrix, visitElementPermute
///                       -> visitArrays -> visitUnhandled
///   visitDataless       -> visitUnhandled
///
/// A kind added to the vocabulary with an existing shape needs no visitor
/// changed.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_TARGETS_COMMON_PLANVISITOR_H
#define PHASEC_TARGETS_COMMON_PLANVISITOR_H

#include "phasec/Target/OperationPlan.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

namespace phasec {
namespace target {
namespace detail {

template <typename ConcreteType, typename ResultType = void,
          typename... ExtraArgs>
class PlanVisitor {
public:
  ResultType dispatchPlanVisitor(const OperationPlan &plan, ExtraArgs... args) {
    auto *self = static_cast<ConcreteType *>(this);
    switch (plan.traits().shape) {
    case DataShape::Blocks:
      return self->visitBlocks(plan, args...);
    case DataShape::PairSizes:
      return self->visitPairSizes(plan, args...);
    case DataShape::Matrix:
      return self->visitMatrix(plan, args...);
    case DataShape::Permutation:
      if (plan.elementLevel)
        return self->visitElementPermute(plan, args...);
      return self->visitBlockPermute(plan, args...);
    case DataShape::None:
      return self->visitDataless(plan, args...);
    }
    llvm_unreachable("unknown data shape");
  }

  /// Blocks to the members a permutation names: blocks, each member's own.
  ResultType visitBlockPermute(const OperationPlan &plan, ExtraArgs... args) {
    return static_cast<ConcreteType *>(this)->visitBlocks(plan, args...);
  }
  ResultType visitBlocks(const OperationPlan &plan, ExtraArgs... args) {
    return static_cast<ConcreteType *>(this)->visitUnhandled(plan, args...);
  }

  ResultType visitPairSizes(const OperationPlan &plan, ExtraArgs... args) {
    return static_cast<ConcreteType *>(this)->visitArrays(plan, args...);
  }
  ResultType visitMatrix(const OperationPlan &plan, ExtraArgs... args) {
    return static_cast<ConcreteType *>(this)->visitArrays(plan, args...);
  }
  ResultType visitElementPermute(const OperationPlan &plan, ExtraArgs... args) {
    return static_cast<ConcreteType *>(this)->visitArrays(plan, args...);
  }
  ResultType visitArrays(const OperationPlan &plan, ExtraArgs... args) {
    return static_cast<ConcreteType *>(this)->visitUnhandled(plan, args...);
  }

  ResultType visitDataless(const OperationPlan &plan, ExtraArgs... args) {
    return static_cast<ConcreteType *>(this)->visitUnhandled(plan, args...);
  }

  /// The default for what a visitor does not handle: a plan builder that
  /// let such a plan through is a bug.
  [[noreturn]] ResultType visitUnhandled(const OperationPlan &plan,
                                         ExtraArgs...) {
    llvm::report_fatal_error(llvm::Twine("no generated code for a '") +
                             stringifyCollectiveKind(plan.kind) + "' plan");
  }
};

} // namespace detail
} // namespace target
} // namespace phasec

#endif // PHASEC_TARGETS_COMMON_PLANVISITOR_H
