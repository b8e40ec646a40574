//===- AlgorithmsInternal.h - Helpers shared by the algorithms --*- C++ -*-===//
//
// Part of phasec. Private to compiler/lib/Scheduling.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What every scheduling algorithm does last, kept in one place so that the
/// product, PERCS, quotient and greedy constructions report their bound, gap
/// and optimality the same way.
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

} // namespace detail
} // namespace phasec

#endif // PHASEC_LIB_SCHEDULING_ALGORITHMSINTERNAL_H
