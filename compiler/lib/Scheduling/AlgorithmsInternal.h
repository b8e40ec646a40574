//===- AlgorithmsInternal.h - Helpers shared by the algorithms --*- C++ -*-===//
//
// Part of phasec. Private to compiler/lib/Scheduling.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What every scheduling algorithm does last, kept in one place so that the
/// product, PERCS, quotient and greedy constructions report their bound, gap
/// and optimality the same way; and each algorithm's precondition, which it
/// checks itself and the registry (Registry.h) offers as `applies`.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_LIB_SCHEDULING_ALGORITHMSINTERNAL_H
#define PHASEC_LIB_SCHEDULING_ALGORITHMSINTERNAL_H

#include "phasec/Scheduling/Algorithms.h"

namespace phasec {
namespace detail {

/// Fills schedule.bound and the report's figures (algorithm, phases, time,
/// bound, gap); marks the schedule optimal when its time meets the bound.
void finalizeReport(const Problem &problem, Schedule &schedule,
                    const SchedulerOptions &options, SchedulerReport &report);

/// Reports `line` through options.progress if the problem is large enough
/// to be worth it (kProgressTransfers).
void progress(const Problem &problem, const SchedulerOptions &options,
              const llvm::Twine &line);

/// Whether a grid machine is one-port for the constructions that pack
/// phases: below two links' worth of injection a node sends and receives
/// one block per phase.
bool isOnePort(const Problem &problem);

/// The constructions for a complete all-to-all of uniform blocks on the
/// machines `construction` is made for: true if the problem is one and
/// `machineOk`, else false with "<construction> construction needs
/// <machine>" (or "... needs a complete all-to-all of uniform blocks over
/// every rank") in `*whyNot`.
bool constructionApplies(const Problem &problem, bool machineOk,
                         llvm::StringRef construction, llvm::StringRef machine,
                         std::string *whyNot);

/// The preconditions of the algorithms: true if the algorithm can schedule
/// the (checked) problem, else false with the reason in `*whyNot` (if not
/// null), which is the error the algorithm reports.
bool productApplies(const Problem &problem, const SchedulerOptions &options,
                    std::string *whyNot);
bool percsApplies(const Problem &problem, const SchedulerOptions &options,
                  std::string *whyNot);
bool torusQuotientApplies(const Problem &problem,
                          const SchedulerOptions &options, std::string *whyNot);
bool meshQuotientApplies(const Problem &problem,
                         const SchedulerOptions &options, std::string *whyNot);
bool exactApplies(const Problem &problem, const SchedulerOptions &options,
                  std::string *whyNot);

/// True if every dimension of the (grid) problem's machine has a ring core
/// of k steps for its k nodes, the case where the product construction is
/// optimal or close. The solver work of finding out is added to `probe`.
bool hasLatinRingCores(const Problem &problem, const SchedulerOptions &options,
                       SchedulerReport &probe);

/// Where every transfer carries the same block on a grid machine with one
/// rank per node: repacks `schedule` by the tabu search of the quotient
/// (QuotientSearch.h) with links and ports as channels, spending at most
/// `budget` placement evaluations. Replaces `schedule` and returns true if
/// the result is faster; `note` says what it did.
bool repackUniform(const Problem &problem, Schedule &schedule,
                   const SchedulerOptions &options, uint64_t budget,
                   std::string &note);

} // namespace detail
} // namespace phasec

#endif // PHASEC_LIB_SCHEDULING_ALGORITHMSINTERNAL_H
