//===- Algorithms.h - Congestion-free phase scheduling algorithms -*- C++
//-*-===//
//
// Part of phasec. MLIR-free: only LLVM ADT/Support (Z3 stays behind
// phasec/Solver/Z3Solver.h).
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The scheduling algorithms, as free functions over a `Problem` that fill a
/// `Schedule` (CIRCT Scheduling style). Every result is in canonical order
/// (phases in construction order, transfers of a phase sorted by (src, dst)),
/// carries `problem.bound()` in `schedule.bound`, and passes
/// `Problem::verify`. The same inputs always give byte-identical schedules:
/// Z3 runs with fixed seeds and `rlimit` budgets, never wall-clock limits, and
/// the on-disk cache stores exactly what the solver returned.
///
/// - `scheduleProduct`: complete uniform all-to-all on a torus / mesh /
///   hypercube. Per dimension a "ring schedule" (Z3 Latin-square ring core
///   for k <= 8 where one exists, else a greedy sequence of partial
///   permutations); the product of the per-dimension schedules is
///   congestion-free under dimension-order routing. Optimal (= max(link
///   bound, P-1)) on every torus with extents <= 8 and on hypercubes.
/// - `schedulePercs`: complete uniform all-to-all inside one PERCS
///   supernode: c^2 phases, every direct link carries one block per phase.
/// - `scheduleTorusQuotient`: complete uniform all-to-all on a cubic torus,
///   scheduled on a quotient by translations (fast, near the bound).
/// - `scheduleMeshQuotient`: complete uniform all-to-all on a mesh with even
///   extents, scheduled on its quotient by the 2^D mirror images.
/// - `scheduleGreedyPriority`: any transfer set on any topology; byte-aware
///   list scheduling under a small portfolio of priorities (bottleneck
///   links first, ...), tie directions balanced.
/// - `scheduleExact`: Z3 phase assignment for small uniform instances,
///   iterating T up from the lower bound; proves optimality (unsat at T-1 or
///   T = bound).
/// - `scheduleAuto`: picks the best of the above for the problem; when the
///   solver budget runs out it falls back to the heuristic and reports the
///   achieved gap. Never hangs.
///
/// Every algorithm, the baselines (Baselines.h) included, is also an entry
/// of the registry (Registry.h): its name, when it applies, how to run it,
/// and how scheduleAuto uses it.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_SCHEDULING_ALGORITHMS_H
#define PHASEC_SCHEDULING_ALGORITHMS_H

#include "phasec/Core/Vocabulary.h"
#include "phasec/Scheduling/Bounds.h"
#include "phasec/Scheduling/Problem.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace phasec {

struct SchedulerOptions {
  SchedulerAlgorithm algorithm = SchedulerAlgorithm::Auto;
  /// Z3 resource limit per query (deterministic; see Z3Solver.h). The total
  /// spent is reported in SchedulerReport::rlimitUsed.
  uint64_t rlimit = 20000000;
  unsigned seed = 0;
  /// Directory for solved ring cores (created if missing); empty = memory
  /// cache only. The cache never changes results, only how fast they come.
  std::string cacheDir;
  /// scheduleExact / auto: largest instance (transfers) handed to Z3.
  unsigned exactMaxTransfers = 256;
  /// Largest phase count tried by the exact model per instance.
  unsigned exactMaxPhases = 64;
  /// scheduleTorusQuotient: build perfect base phases from gap cycles
  /// before packing the rest (off only to measure what they bring).
  bool quotientChains = true;
  /// Leave the phases of translation-invariant constructions (the torus
  /// quotient) held by rule (Phase::rules) for a caller that reads them
  /// through PhaseReader; otherwise runScheduler lists every transfer.
  bool phaseRules = false;
  /// Called with a short line at the milestones of a long run (problems of
  /// at least kProgressTransfers transfers), as it happens: which
  /// candidate auto tries, what the torus quotient has built, the cost
  /// model at work. The CLI's -v prints them as remarks. Empty: silent.
  std::function<void(llvm::StringRef)> progress;
};

/// Problems this large report progress (SchedulerOptions::progress).
constexpr size_t kProgressTransfers = size_t(1) << 18;

/// What an algorithm did, for diagnostics, `--emit=schedule-stats` and the
/// benchmark. Notes are in a deterministic order.
struct SchedulerReport {
  /// The algorithm that produced the schedule ("product", "percs", ...).
  std::string algorithm;
  /// Set on failure (algorithm not applicable, bad input, Z3 error).
  std::string error;
  /// Schedule time and the proven lower bound (seconds), their ratio: the
  /// problem's ScheduleCost.
  double time = 0, boundTime = 0, gap = 0;
  /// The machine as described (ScheduleCost::machine): what `auto`
  /// minimises, and the synchronisation that time assumes.
  double machineTime = 0;
  SyncKind sync = SyncKind::Barrier;
  size_t phases = 0;
  /// Messages the schedule sends (pieces of one pair in different phases
  /// count apart): without barriers every one is posted at once.
  size_t messages = 0;
  /// The time equals the proven bound.
  bool timeOptimal = false;
  /// The time equals the bound of direct schedules (LowerBound::directTime):
  /// no algorithm that routes every demand straight can do better.
  bool directOptimal = false;
  /// The phase count is proven minimal: it equals the proven minimum
  /// (LowerBound::minPhases), or Z3 proved one phase fewer infeasible.
  bool phaseOptimal = false;
  /// How the optimality above was proven.
  std::string proof;
  /// The schedule's cost as finalizeReport computed it, so that callers
  /// need not route every transfer again (absent where no algorithm ran).
  std::optional<ScheduleCost> cost;
  /// True if a solver budget ran out and a heuristic result was used.
  bool fellBack = false;
  /// True if a solver budget ran out and there was no schedule to fall back
  /// on (the failure is the budget's, not the input's: phasec exits with 3).
  bool budgetExhausted = false;
  unsigned solverQueries = 0, cacheHits = 0, cacheMisses = 0;
  uint64_t rlimitUsed = 0;
  std::vector<std::string> notes;
  /// Disk cache entries ignored (unreadable, refused by a check) or not
  /// written, "ignored ring-core cache entry PATH: WHY", each once: the
  /// scheduling pass warns with each (the schedule is the same as without
  /// the cache).
  std::vector<std::string> cacheIgnored;
  /// Adds `lines` to cacheIgnored, those not there yet (one entry is looked
  /// up by every probe and candidate that needs its core).
  void addCacheIgnored(llvm::ArrayRef<std::string> lines) {
    for (const std::string &line : lines)
      if (!llvm::is_contained(cacheIgnored, line))
        cacheIgnored.push_back(line);
  }
};

/// A schedule of all ordered pairs of one ring / line of k nodes: a sequence
/// of partial permutations. perms[p][a] = destination of a in step p, or -1;
/// minus[p][a] = 1 if that (tie) transfer travels "-".
struct RingSchedule {
  unsigned k = 0;
  bool wrap = true, twoLinksPerPair = true;
  std::vector<std::vector<int32_t>> perms;
  std::vector<std::vector<uint8_t>> minus;
  /// Step 0 is the identity (so a product of such schedules has an empty
  /// all-identity step that can be dropped).
  bool identityFirst = false;
  /// "z3", "z3-cache", "greedy".
  std::string source;
};

/// The ring schedule of one dimension: a Z3 ring core (Latin square, k steps,
/// with the identity if one exists) where k <= maxCoreK, otherwise or if the
/// solver gives up a greedy schedule. Records proofs (e.g. "no identity core
/// for a ring of 8: unsat") and cache use in `report`.
llvm::FailureOr<RingSchedule> getRingSchedule(unsigned k, bool wrap,
                                              bool twoLinksPerPair,
                                              const SchedulerOptions &options,
                                              SchedulerReport &report,
                                              unsigned maxCoreK = 8);

/// Checks that `rs` covers every ordered pair once and that every step is a
/// link-disjoint partial permutation (used by tests and the cache loader).
llvm::LogicalResult checkRingSchedule(const RingSchedule &rs,
                                      std::string &error);

/// True if the problem's transfers are a complete all-to-all over every rank
/// of the machine with one block size (returned).
std::optional<int64_t> completeUniformAlltoall(const Problem &problem);

llvm::LogicalResult scheduleProduct(const Problem &problem, Schedule &schedule,
                                    const SchedulerOptions &options,
                                    SchedulerReport &report);
llvm::LogicalResult schedulePercs(const Problem &problem, Schedule &schedule,
                                  const SchedulerOptions &options,
                                  SchedulerReport &report);
/// Complete uniform all-to-all on a torus k x ... x k (d >= 2, k >= 3):
/// schedules the orbits of the translations H = {h : sum h = 0 mod k} on the
/// quotient machine (k * d * 2 link classes) and expands them; see
/// Quotient.cpp. Scales to 16x16x16.
llvm::LogicalResult scheduleTorusQuotient(const Problem &problem,
                                          Schedule &schedule,
                                          const SchedulerOptions &options,
                                          SchedulerReport &report);
/// Complete uniform all-to-all on a mesh with even extents and one rank per
/// node: packs the orbits of transfers under the mirror images of the mesh
/// (whole orbits never congest) and expands them; see MeshQuotient.cpp.
llvm::LogicalResult scheduleMeshQuotient(const Problem &problem,
                                         Schedule &schedule,
                                         const SchedulerOptions &options,
                                         SchedulerReport &report);
llvm::LogicalResult scheduleGreedyPriority(const Problem &problem,
                                           Schedule &schedule,
                                           const SchedulerOptions &options,
                                           SchedulerReport &report);
/// Fails unless the instance is small (exactMaxTransfers), uniform-sized and
/// on a grid topology with uniform bandwidth. `startFrom`, if non-empty, is a
/// known schedule whose phase count bounds the search from above; with the
/// budget exhausted it is returned (report.fellBack).
llvm::LogicalResult scheduleExact(const Problem &problem, Schedule &schedule,
                                  const SchedulerOptions &options,
                                  SchedulerReport &report,
                                  const Schedule *startFrom = nullptr);

/// Runs the registry entry of options.algorithm (Auto: tries the candidate
/// algorithms in registry order and keeps the best; see Registry.cpp).
/// Fills the report's time, bound, gap, phases and optimality. Times and
/// bounds are the problem's CostModel's (one-port: build the Problem with
/// CostModel::onePort).
llvm::LogicalResult scheduleAuto(const Problem &problem, Schedule &schedule,
                                 const SchedulerOptions &options,
                                 SchedulerReport &report);

/// Clears the in-memory ring-core cache (tests of the on-disk cache).
void clearRingCoreMemoryCache();

} // namespace phasec

#endif // PHASEC_SCHEDULING_ALGORITHMS_H
