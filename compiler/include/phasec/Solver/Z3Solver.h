//===- Z3Solver.h - The Z3 queries of the phase scheduler -------*- C++ -*-===//
//
// Part of phasec. No Z3 types here: compiler/lib/Solver is the only code that
// includes z3++.h, so that nothing else needs Z3's headers or exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The exact parts of the scheduler, as self-contained queries with plain C++
/// inputs and outputs:
///
/// - ring cores: k permutations of Z_k forming a Latin square whose routes on
///   a ring (or line) of k nodes are link-disjoint in every permutation; the
///   per-dimension building block of the product construction;
/// - phase assignment: put items (transfers with one or two route options)
///   into T phases so that no resource (directed link) carries two groups
///   (source ranks) in one phase; the exact model for small instances;
/// - cycle embedding: an order of a group's members in which every member
///   can send to its successor in one congestion-free phase (rings and
///   pipelined chains of the relaying collectives).
///
/// Determinism: every query builds a fresh context and solver, fixes the
/// random seeds and limits work with Z3's `rlimit` (a count of internal
/// operations), never with a wall-clock timeout, so the same query gives the
/// same answer on every machine and every run. A query distinguishes Sat (a
/// witness is returned), Unsat (a proof that none exists) and Unknown (the
/// budget ran out). Z3 errors (exceptions inside the library) become
/// failure() with a message.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_SOLVER_Z3SOLVER_H
#define PHASEC_SOLVER_Z3SOLVER_H

#include "phasec/Core/Vocabulary.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>
#include <string>
#include <vector>

namespace phasec {
namespace solver {

/// Sat, Unsat, Unknown: the vocabulary's (Vocabulary.td), spelled "sat",
/// "unsat", "unknown".
using ::phasec::SolveStatus;
using ::phasec::stringifySolveStatus;

struct SolverOptions {
  /// Z3 resource limit per query (0 = unlimited; avoid). Deterministic.
  uint64_t rlimit = 20000000;
  /// Seed for smt.random_seed and sat.random_seed.
  unsigned seed = 0;
};

/// A ring (wrap = true) or line (wrap = false) of k nodes with one directed
/// link each way between neighbours. On a ring of 2 the torus has distinct
/// "+" and "-" links (`twoLinksPerPair`); a hypercube's or mesh's pair of
/// nodes has a single link each way.
struct RingCoreQuery {
  unsigned k = 0;
  bool wrap = true;
  bool twoLinksPerPair = true;
  /// Require permutation 0 to be the identity (so that a product of such
  /// cores has an empty all-identity phase).
  bool withIdentity = false;
};

/// The directed links the transfer a -> b takes on a ring or line of k (as
/// RingCoreQuery describes it), each as node * 2 + (1 if it goes "-"); a tie
/// goes "-" if `minus`. The one link model of ring cores: the query's
/// constraints and every ring schedule built or checked from a core use it.
void ringLinks(unsigned k, bool wrap, bool twoLinksPerPair, unsigned a,
               unsigned b, bool minus, llvm::SmallVectorImpl<unsigned> &links);
/// Whether a -> b is a tie: half way round an even ring that has a "+" and
/// a "-" way to it.
bool isRingTie(unsigned k, bool wrap, bool twoLinksPerPair, unsigned a,
               unsigned b);

/// A solution: perms[p][a] = sigma_p(a); minus[p][a] = 1 if the transfer
/// a -> sigma_p(a) is a tie (distance k/2 on an even ring) and travels "-".
struct RingCore {
  SolveStatus status = SolveStatus::Unknown;
  std::vector<std::vector<int32_t>> perms;
  std::vector<std::vector<uint8_t>> minus;
  /// Z3's "rlimit count" after the query.
  uint64_t rlimitUsed = 0;
};

/// Finds a ring core (see above). Unsat is a proof that none exists.
llvm::FailureOr<RingCore> solveRingCore(const RingCoreQuery &query,
                                        const SolverOptions &options,
                                        std::string &error);

/// One item of a phase-assignment query.
struct AssignItem {
  /// Items of one group (the same source rank) may share resources.
  int32_t group = 0;
  /// Route options (1 or more), each the resources (links) it occupies.
  llvm::SmallVector<llvm::SmallVector<int32_t, 8>, 2> options;
  /// Items that must not share a phase with this one whatever the group
  /// (e.g. one-port injection) are expressed as shared resources of
  /// different groups by the caller.
};

struct AssignQuery {
  std::vector<AssignItem> items;
  unsigned numPhases = 0;
  unsigned numResources = 0;
};

struct AssignResult {
  SolveStatus status = SolveStatus::Unknown;
  /// Per item: its phase and chosen option (when Sat).
  std::vector<int32_t> phase;
  std::vector<int32_t> option;
  uint64_t rlimitUsed = 0;
};

/// Decides whether the items fit into `numPhases` congestion-free phases.
llvm::FailureOr<AssignResult> solvePhaseAssignment(const AssignQuery &query,
                                                   const SolverOptions &options,
                                                   std::string &error);

/// A cyclic order of n members (a Hamiltonian cycle of the complete
/// digraph on them) whose n edges a -> next(a) can all run in one
/// congestion-free phase: edges from different members never share a
/// resource (a directed link). The rounds of a ring or a pipelined chain
/// (every member sends to its successor at once) then fit in one phase
/// each. Members on one node take no links: their edges have no resources.
struct CycleQuery {
  unsigned numMembers = 0;
  unsigned numResources = 0;
  /// resources[a * numMembers + b]: what the edge a -> b occupies.
  std::vector<llvm::SmallVector<int32_t, 8>> resources;
  /// The cycle starts at this member (a chain's root).
  unsigned first = 0;
};

struct CycleResult {
  SolveStatus status = SolveStatus::Unknown;
  /// When Sat: the members in cycle order, order[0] = first.
  std::vector<int32_t> order;
  uint64_t rlimitUsed = 0;
};

/// Finds such a cycle. Unsat is a proof that none exists.
llvm::FailureOr<CycleResult> solveCycleEmbedding(const CycleQuery &query,
                                                 const SolverOptions &options,
                                                 std::string &error);

/// The Z3 version string, for reports and cache keys.
std::string z3Version();

} // namespace solver
} // namespace phasec

#endif // PHASEC_SOLVER_Z3SOLVER_H
