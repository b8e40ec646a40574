//===- Registry.h - The scheduling algorithms in one list -------*- C++ -*-===//
//
// Part of phasec. MLIR-free: only LLVM ADT/Support.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Every value of `SchedulerAlgorithm` (Vocabulary.td) has one entry here:
/// its name, when it applies, and how to run it. `scheduleAuto` is the loop
/// over the entries that are its candidates (in registry order, each under
/// the options' Z3 `rlimit`), and the baselines a programmer would write by
/// hand (linear shift, XOR, first-fit greedy) are entries too, marked
/// `baseline`, so that the statistics table, the benchmark and the simulator
/// name and run them the same way:
///
///   for (const SchedulerEntry &entry : getSchedulers())
///     if (entry.baseline)
///       if (succeeded(runScheduler(entry, problem, schedule, {}, report)))
///         ...
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_SCHEDULING_REGISTRY_H
#define PHASEC_SCHEDULING_REGISTRY_H

#include "phasec/Scheduling/Algorithms.h"
#include "phasec/Scheduling/Collective.h"
#include "phasec/Scheduling/Relay.h"

#include "llvm/ADT/ArrayRef.h"

namespace phasec {

/// One scheduling algorithm. `applies` and `run` are the algorithm's own;
/// the `auto...` hooks and `refine` say how `scheduleAuto` uses it as a
/// candidate (an entry without `autoTry` is not one: `auto` itself and the
/// baselines).
struct SchedulerEntry {
  SchedulerAlgorithm algorithm;
  /// stringifySchedulerAlgorithm(algorithm): the `--algorithm` spelling.
  llvm::StringRef name;
  /// A hand-written pattern shown beside phasec's schedules for comparison;
  /// `auto` never picks one.
  bool baseline;
  /// Whether `run` can schedule the (checked) problem; if not, `*whyNot`
  /// says why, as `run` would report it. Takes the options because some
  /// limits are options (the exact model's instance size).
  bool (*applies)(const Problem &problem, const SchedulerOptions &options,
                  std::string *whyNot);
  /// Schedules the problem: a canonical schedule carrying problem.bound(),
  /// and the report's figures (time, bound, gap, phases, optimality).
  llvm::LogicalResult (*run)(const Problem &problem, Schedule &schedule,
                             const SchedulerOptions &options,
                             SchedulerReport &report);
  /// scheduleAuto: whether the candidate, which applies, is worth running
  /// given the report of the best schedule so far (null: none yet). Solver
  /// work done to decide goes into `probe`, which starts the candidate's
  /// report if it runs.
  bool (*autoTry)(const Problem &problem, const SchedulerOptions &options,
                  const SchedulerReport *best, SchedulerReport &probe);
  /// scheduleAuto: improves a given schedule instead of building one. Auto
  /// runs it on its best schedule so far, with a copy of that schedule's
  /// report (minus its proof), and takes its result, which is never slower.
  llvm::LogicalResult (*refine)(const Problem &problem, const Schedule &start,
                                Schedule &schedule,
                                const SchedulerOptions &options,
                                SchedulerReport &report);
  /// scheduleAuto: whether to stop after this candidate ran, given the best
  /// schedule so far; `why` may explain a stop that is not obvious.
  bool (*autoStop)(const Problem &problem, const SchedulerReport &best,
                   std::string &why);
};

/// Every algorithm, one entry per SchedulerAlgorithm value, in the order
/// scheduleAuto tries its candidates.
llvm::ArrayRef<SchedulerEntry> getSchedulers();

/// The entry of `algorithm`.
const SchedulerEntry &getScheduler(SchedulerAlgorithm algorithm);

/// Checks the problem, then runs `entry` if it applies; otherwise fails with
/// the reason in report.error.
llvm::LogicalResult runScheduler(const SchedulerEntry &entry,
                                 const Problem &problem, Schedule &schedule,
                                 const SchedulerOptions &options,
                                 SchedulerReport &report);

/// Whether `name` is a registry entry marked baseline (linear_shift, xor,
/// greedy): what the simulators compare phasec's schedule against.
bool isBaseline(llvm::StringRef name);

/// Runs the baseline `name` with the default options; fails with the
/// reason in `error`: not a baseline, or why it does not apply.
llvm::LogicalResult runBaseline(llvm::StringRef name, const Problem &problem,
                                Schedule &schedule, std::string &error);

//===----------------------------------------------------------------------===//
// The choice an operation's directives leave to phasec
//===----------------------------------------------------------------------===//
// The comm-schedule-phases pass loads an operation, asks here what to run,
// runs it and saves the result; what to prefer lives here, beside the
// entries it chooses among.

/// The scheduler a direct operation's `algorithm` directive asks for:
/// `auto`, `direct`, `schedule` and `gather_evaluate` (the allgather of
/// the members' values) leave the choice to `auto`; `linear_shift` and
/// `xor` are the baselines; `pairwise` is the XOR pattern where it exists
/// on `problem`, else the shift; `k_level(1)` (seed 003's 1-lev-dir) sends
/// every block straight to its destination, the direct transfers `auto`
/// phases. Nothing for a directive that does not schedule direct traffic
/// (the relaying algorithms, k_level with more levels).
std::optional<SchedulerAlgorithm> getDirectScheduler(Algorithm directive,
                                                     int64_t kLevels,
                                                     const Problem &problem);

/// Seed 004's gather and local evaluation, the candidate beside the relay
/// of a PAPERS aggregate that needs every member's value
/// (evaluatesEveryValue): the allgather of the values, scheduled by
/// `options.algorithm` (`auto` unless the tool asked for another).
struct GatherEvaluateCandidate {
  Problem problem;
  Schedule schedule;
  SchedulerReport report;
};

/// The candidate for `relayed` (the aggregate's relaying collective) when
/// the user left the algorithm to phasec (`directive` auto), the allgather
/// can be scheduled in `options`' budget without falling back, and its
/// machine time on `model` beats `relayTime`, the relay's (a tie keeps the
/// relay, which moves fewer bytes). Nothing otherwise.
std::optional<GatherEvaluateCandidate>
chooseGatherEvaluate(const Topology &topo, const Collective &relayed,
                     Aggregate aggregate, Algorithm directive,
                     const CostModel &model, double relayTime,
                     const SchedulerOptions &options);

/// The relaying schedule `auto` prefers to the direct one (issue 39): for a
/// kind that moves data directly but has relaying algorithms (all-to-all,
/// gather, scatter, one-to-all, all-to-one, allgather), when the user left
/// the algorithm to phasec (`directive` auto), scheduleRelaying's own auto
/// over the kind's algorithms, if its machine time on `model` beats
/// `directTime`, the direct schedule's, by more than kRelayOverDirectMargin
/// (closer, the direct schedule stays: it moves every byte once, straight,
/// and a relay's forwarding and copies are what the model knows least).
/// Nothing otherwise, and without trying where the relays would have more
/// than kRelayOverDirectMaxChunks chunks.
struct RelayOverDirectCandidate {
  RelaySchedule relay;
  /// Its cost on the model it was chosen under (Problem::cost of its
  /// chunks), as the IR records it.
  ScheduleCost cost;
};
std::optional<RelayOverDirectCandidate>
chooseRelayOverDirect(const Topology &topo, const Collective &direct,
                      Algorithm directive, const CostModel &model,
                      double directTime);

/// For a relay run without barriers (the drop-in library's): `relay`, chosen
/// by scheduleRelaying's auto, is replaced by the kind's direct relay
/// (every message from the data's owner; it forwards nothing and is posted
/// at once) unless its machine time on `model` beats the direct relay's by
/// more than kRelayOverDirectMargin, the margin auto asks of a relay over a
/// direct exchange. Without barriers a forwarding schedule is a chain of
/// arrivals that every late rank delays, and at small sizes the model ranks
/// the two within its own error (SimGrid, 4 x 4 torus, a 1 KiB scan:
/// recursive doubling predicted 12.1 us and simulated 13.25 us, the direct
/// scan predicted 12.2 us before the model let messages overlap their
/// latencies, 9.68 us since, and simulated 9.58 us; docs/performance.md).
/// True if it replaced `relay`.
bool preferForwardingNothing(const Topology &topo, const CostModel &model,
                             const Collective &collective,
                             RelaySchedule &relay);

/// A relay replaces the direct schedule only if it is this much faster
/// (10%): on a ring of 4 k_level(2, rc) saves one barrier of three (0.4%),
/// which is noise to the machine.
inline constexpr double kRelayOverDirectMargin = 0.10;

/// Relaying candidates are built for at most this many chunks (an
/// all-to-all has one per pair of members: 64 members): building them
/// costs seconds above (seed 003's k-level all-to-alls on 256 ranks).
inline constexpr int64_t kRelayOverDirectMaxChunks = 4096;

} // namespace phasec

#endif // PHASEC_SCHEDULING_REGISTRY_H
