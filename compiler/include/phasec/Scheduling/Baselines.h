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

#include "llvm/ADT/ArrayRef.h"
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

//===----------------------------------------------------------------------===//
// The simulators' comparison patterns
//===----------------------------------------------------------------------===//
// What the simulators (SimGrid's --compare, the ns-3 target's variants) run
// beside phasec's schedule and the registry's baselines. These are not
// schedulers: their phases congest or relay (they are how real codes and
// MPI libraries move the data), so they are not SchedulerAlgorithm values
// that `--algorithm` or `auto` could pick, but one table of their own.

/// Seed 000's conventional all-to-all ("independent loop through all
/// destinations", "no phases"): `schedule`'s transfers (their routes and
/// ties kept) grouped by their distance in the operation's members, mod n;
/// run in order without barriers, each NIC's queue is that loop.
Schedule scheduleLoop(const Problem &problem, const Schedule &schedule);

/// Relaying all-to-alls of a complete exchange of uniform blocks among the
/// problem's members, as steps (phase k = step k): a node starts step k + 1
/// once its step-k sends have arrived and its step-k receives are in, so a
/// step forwards only data that has come in.
///  - bruck (Open MPI's modified_bruck, MPICH's short-message algorithm):
///    ceil(log2 n) steps; in step k member i sends member i + 2^k (mod n)
///    every block whose distance has bit k set;
///  - ring: the textbook relaying ring (no MPI library ships it as an
///    all-to-all): n - 1 steps; in step k member i sends member i + 1 the
///    n - k blocks still travelling.
/// The local rotations and copies between steps cost no network time and
/// are not part of it. Fails unless the exchange is such an all-to-all.
llvm::LogicalResult scheduleRelayingRing(const Problem &problem, Schedule &out,
                                         std::string &error);
llvm::LogicalResult scheduleRelayingBruck(const Problem &problem, Schedule &out,
                                          std::string &error);

/// Seed 002's all-to-all for one PERCS supernode (Totoni and Kale): in
/// phase i, core j of node m sends to node (m + j + i) mod n.
llvm::LogicalResult schedulePercsSeed(const Problem &problem, Schedule &out,
                                      std::string &error);

/// One comparison pattern: its name (as the simulators' tables and options
/// spell it) and how to build it from the problem and phasec's schedule.
struct ComparisonEntry {
  llvm::StringRef name;
  llvm::LogicalResult (*build)(const Problem &problem,
                               const Schedule &scheduled, Schedule &out,
                               std::string &error);
};

/// loop, ring, bruck, percs-seed.
llvm::ArrayRef<ComparisonEntry> getComparisons();

/// Builds the comparison `name`; fails with the reason in `error` (unknown,
/// or why it does not apply).
llvm::LogicalResult runComparison(llvm::StringRef name, const Problem &problem,
                                  const Schedule &scheduled, Schedule &out,
                                  std::string &error);

} // namespace phasec

#endif // PHASEC_SCHEDULING_BASELINES_H
