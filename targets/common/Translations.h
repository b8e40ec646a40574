//===- Translations.h - Per-member tables shared by translation -*- C++ -*-===//
//
// Part of phasec. Internal to targets/common.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A schedule without a phase formula is emitted as one table per member,
/// which for 1024 members is a million entries per operation (145 MB of C
/// for examples/percs_alltoall.sched). Most schedules phasec makes repeat
/// under translations of the member index: the PERCS schedule under moving
/// node and core together, the seed's by-hand one under moving the node.
/// `findTableTranslations` finds such a group and keeps tables for one member
/// per orbit only; the generated code derives the others' at run time
/// (EmitC.cpp, NAME_expand).
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_TARGETS_COMMON_TRANSLATIONS_H
#define PHASEC_TARGETS_COMMON_TRANSLATIONS_H

#include "phasec/Target/OperationPlan.h"

namespace phasec {
namespace target {
namespace detail {

/// Member index m read in the mixed radix `radix` (most significant digit
/// first): digit-wise addition and subtraction, each digit modulo its base.
int64_t addDigits(llvm::ArrayRef<int64_t> radix, int64_t a, int64_t b);
int64_t subDigits(llvm::ArrayRef<int64_t> radix, int64_t a, int64_t b);

/// Sets plan.tableRadix, tableReps and tableOrbit when the plan's transfers
/// (phase, peer, offset, bytes) are invariant under a non-trivial group of
/// digit-wise translations of the member index, for some factorisation of
/// the member count into at most three digits or into its prime factors; the
/// largest group found wins. Leaves them empty otherwise. Every translation
/// kept is checked against every member's whole list, so the tables the
/// generated code derives are exactly the plan's.
void findTableTranslations(OperationPlan &plan);

/// Tables by rule (OperationPlan::ruleFirst & co.): keeps the phases
/// `schedule` holds by rule, on `topo`, and checks that their translates
/// deliver exactly the operation's demands (every pair its block once;
/// failure with `error` otherwise). False, with nothing set, where the
/// plan cannot keep them (not an all-to-all of every rank of a torus, a
/// phase with listed transfers or with rules of several groups): the
/// caller lists the rules.
llvm::FailureOr<bool> planByRule(OperationPlan &plan, const Schedule &schedule,
                                 const Topology &topo, std::string &error);

} // namespace detail
} // namespace target
} // namespace phasec

#endif
