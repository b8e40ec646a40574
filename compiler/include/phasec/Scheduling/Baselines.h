//===- Baselines.h - The usual schedules, for comparison --------*- C++ -*-===//
//
// Part of phasec. MLIR-free: only LLVM ADT/Support.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The schedules a programmer would write by hand, made congestion-free so
/// that they are legal for this machine (and pass Problem::verify()):
///
/// - linear shift: step i = 1..R-1 holds the demands r -> (r+i) mod R (R =
///   number of ranks of the machine); each step is packed first-fit into as
///   many congestion-free phases as it needs;
/// - XOR: step i = 1..R-1 holds r -> r xor i (R a power of two), packed the
///   same way;
/// - greedy first-fit: demands in canonical order, each into the first phase
///   where none of its links is used yet.
///
/// Packing is stricter than the spec's congestion rule: a link carries at
/// most one transfer per phase, even from the same source, so that a phase
/// costs one transfer's time (the spec allows a rank to serialise several
/// transfers over one link, which only makes the phase longer).
///
/// All take tie direction "+" (TieMask 0). `schedule.bound` is set to
/// problem.bound(); `schedule.algorithm` to "linear_shift",
/// "xor", "greedy". They are also entries of the scheduler registry
/// (Registry.h, `baseline`), which is how the tools run them.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_SCHEDULING_BASELINES_H
#define PHASEC_SCHEDULING_BASELINES_H

#include "phasec/Scheduling/Problem.h"

#include "llvm/Support/LogicalResult.h"

#include <string>

namespace phasec {

llvm::LogicalResult scheduleLinearShift(const Problem &problem,
                                        Schedule &schedule, std::string &error);
/// Whether the XOR schedule exists: the machine has a power-of-two number
/// of ranks. If not, `*whyNot` (if not null) says so.
bool xorApplies(const Problem &problem, std::string *whyNot);
/// Fails (with `error`) unless the number of ranks is a power of two.
llvm::LogicalResult scheduleXor(const Problem &problem, Schedule &schedule,
                                std::string &error);
llvm::LogicalResult scheduleGreedy(const Problem &problem, Schedule &schedule,
                                   std::string &error);

/// Packs `transfers` first-fit (one transfer per link per phase) into phases
/// appended to
/// `schedule.phases`, never touching phases that existed before the call.
/// A building block for the baselines and for heuristics.
void packFirstFit(const Topology &topo, llvm::ArrayRef<Transfer> transfers,
                  Schedule &schedule);

} // namespace phasec

#endif // PHASEC_SCHEDULING_BASELINES_H
