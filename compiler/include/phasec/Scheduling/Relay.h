//===- Relay.h - Schedules that forward and combine data --------*- C++ -*-===//
//
// Part of phasec. MLIR-free: only LLVM ADT/Support and the topology.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The relaying collectives (broadcast, reduce, allreduce, reduce_scatter,
/// scan, exscan, and trees or Bruck for scatter, gather, allgather,
/// alltoall). Each algorithm is a free function that writes logical rounds
/// in group-index space: transfers that carry chunks and copy or reduce
/// them, a round reading what the previous rounds left. `packRounds` then
/// splits every round into phases that are congestion-free on the machine's
/// routes, keeping a transfer that reads a chunk no later than one that
/// overwrites it (so the split reads what the round read). The result is a
/// `Schedule` whose phases carry chunks, for `Problem(topo, ChunkSpec, ..)`
/// to verify by replay; nothing here is trusted.
///
/// Algorithms (Vocabulary.td's Algorithm; which kinds each serves is
/// `getRelayAlgorithms`):
/// - direct: every transfer in one round (root to all, all to root, each
///   member to every later one for scans); allreduce as a direct
///   reduce-scatter then a direct allgather (an all-to-all of everything
///   would have every member read what the others overwrite);
/// - binomial, binary, knomial(k): trees rooted at the root (member 0 for
///   the rootless kinds), broadcast/scatter down, reduce/gather up;
/// - chain(s): a pipelined chain over s segments;
/// - ring(s): ring allgather; ring reduce-scatter; allreduce as both;
/// - recursive_doubling: allgather, allreduce (non-powers of two fold the
///   extra members in first and out last), Hillis-Steele scan;
/// - recursive_halving: reduce_scatter (powers of two);
/// - rabenseifner: allreduce as recursive-halving reduce-scatter plus
///   recursive-doubling allgather (folding as above);
/// - scatter_allgather: broadcast as binomial scatter plus ring allgather
///   (van de Geijn);
/// - scatter_rdb_allgather: the same with a recursive-doubling allgather
///   (MPICH's; powers of two);
/// - scatter_bruck_allgather: the same with Bruck's allgather (any count);
/// - reduce_broadcast: allreduce as binomial reduce plus broadcast;
/// - bruck: allgather and alltoall in ceil(log2 n) rounds;
/// - dissemination: barrier, ceil(log2 n) rounds on any count (the last
///   round of a count that is not a power of two repeats some arrivals,
///   which a barrier allows: ReplayRules);
/// - grid(c): allgather, reduce_scatter and allreduce on the members as a
///   logical grid of rows of c: direct exchanges within the rows, then the
///   columns (SimGrid's 2dmesh; reduce_scatter the other way round,
///   allreduce both);
/// - dimension_wise(p): allreduce and allgather as rings along each grid
///   dimension in turn, p parts on different dimensions at once
///   (RelayGrid.h);
/// - k_level (seed 003's C^3 one-to-all and all-to-one, also for scatter,
///   gather and broadcast) on a 2-D mesh or torus whose every node holds
///   one member: k_level(2, rec) = 2-lev-rec (the root sends each row's
///   data to the row's node in the root's column, which sends it along the
///   row), k_level(2, sq) = squares of side sqrt(width) then direct,
///   k_level(3, sq) = 3-lev-sq (squares of side p^(1/4), then 2-lev-rec
///   inside each), k_level(logp, sq) = logp-lev-sq (halving by alternate
///   vertical and horizontal cuts); gathers run the same tree upwards;
/// - k_level on an alltoall (seed 003's all-to-all, same grids):
///   k_level(2, sq) = 2-lev-sq (3 steps through sqrt(p) submachines of
///   sqrt(p) nodes), k_level(2, rc) = 2-lev-r,c (along the rows, then the
///   columns), k_level(logp, bfly) = logp-lev-bfly (a butterfly).
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_SCHEDULING_RELAY_H
#define PHASEC_SCHEDULING_RELAY_H

#include "phasec/Scheduling/Collective.h"
#include "phasec/Scheduling/Problem.h"

#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

namespace phasec {

/// One logical transfer of a relaying algorithm, in group indices.
struct RelayStep {
  int32_t src, dst;
  llvm::SmallVector<int64_t, 2> chunks;
  bool reduce = false;
};
using RelayRound = std::vector<RelayStep>;

/// An algorithm with its parameter (knomial radix, chain or ring segments;
/// 0 = the default).
struct RelayChoice {
  Algorithm algorithm = Algorithm::Auto;
  int64_t param = 0;
  /// k_level: the submachine shape (param = levels, 0 = log2 of the group).
  KLevelShape shape = KLevelShape::None;
  /// k_level(logp, rec, gamma): the source's share of every cut, in
  /// percent (0 = one half).
  int64_t gammaPercent = 0;
  /// k_level(1, sys_br): the broadcast tree (Auto = the fastest under the
  /// cost model; scheduleRelaying tries direct, binomial, binary, knomial).
  Algorithm tree = Algorithm::Auto;
  /// The members (group indices) in the order the algorithm numbers them,
  /// empty for group order. scheduleRelaying fills it for rings and chains
  /// (a snake, or a Z3 search where group order splits the rounds into
  /// several phases) and for the algorithms that pair members by index
  /// (a search for near partners).
  std::vector<int32_t> order;
  /// Keep group order, no search (for comparisons).
  bool groupOrder = false;
  /// Where `order` came from.
  enum class OrderSource : uint8_t {
    /// Z3's cycle of one-phase rounds (rings and chains).
    Z3Ring,
    /// The snake through a whole 2-D grid or the folded mesh line.
    Snake,
    /// searchNearPartnerOrder: partners by index placed near each other.
    NearPartners,
  };
  OrderSource orderSource = OrderSource::Z3Ring;
};

// needsRelaying(kind) and getRelayAlgorithms(kind), the table of which
// relaying algorithm serves which kind, are in phasec/Core/Vocabulary.h:
// the front end checks `algorithm = ...` against the same table.

/// How a collective is cut into chunks for `choice`: the ChunkSpec of the
/// schedule. Chunks fall on element boundaries (`Collective::elementBytes`);
/// fails with a reason where the algorithm does not apply (e.g. a ring
/// allreduce of 7 elements over 3 members, recursive halving of 6).
llvm::FailureOr<ChunkSpec> getRelayChunks(const Collective &collective,
                                          RelayChoice choice,
                                          std::string &error);

/// The logical rounds of `choice` for `spec` (from getRelayChunks). The
/// k-level algorithms partition the machine's grid, so they need `topo`.
llvm::FailureOr<std::vector<RelayRound>>
buildRelayRounds(const ChunkSpec &spec, RelayChoice choice, std::string &error,
                 const Topology *topo = nullptr);

/// Splits every round into congestion-free phases on `topo` (global ranks
/// from spec.group); the phases of round r precede those of round r + 1.
/// Fails if a round holds transfers that must share a phase (each reads
/// what another overwrites) but share a link.
llvm::FailureOr<Schedule> packRounds(const Topology &topo,
                                     const ChunkSpec &spec,
                                     llvm::ArrayRef<RelayRound> rounds,
                                     std::string &error);

/// A relaying schedule with its chunks and what chose it.
struct RelaySchedule {
  RelayChoice choice;
  ChunkSpec chunks;
  Schedule schedule;
  /// The candidates `auto` measured, "name: time" each, for reports.
  std::vector<std::string> tried;
};

/// The schedule of `choice` (Auto: every applicable algorithm, the fastest
/// under `model`, then the fewest phases), verified by replay and carrying
/// the relaying bound. Errors name the algorithm and why.
llvm::FailureOr<RelaySchedule> scheduleRelaying(const Topology &topo,
                                                const CostModel &model,
                                                const Collective &collective,
                                                RelayChoice choice,
                                                std::string &error);

/// The choices `auto` tries for `algorithm` on `collective`, parameters
/// filled in: chains at a few segment counts, the seed's k-level variants
/// of the collective's family, dimension_wise at 2 and 4 parts, grid with
/// rows near sqrt(n) and, where the group is `topo`'s every rank in order,
/// rows of a node, a machine line or plane, a PERCS drawer or supernode.
llvm::SmallVector<RelayChoice, 4>
getRelayCandidates(Algorithm algorithm, const Collective &c,
                   const Topology *topo = nullptr);

/// The relaying schedules a report sets beside an operation's choice:
/// every relaying algorithm of its kind at its default parameter (each
/// k_level variant of the family), and where the choice renumbered the
/// members (a ring in Z3 or snake order, partners by index placed near),
/// the same in group order right after it. Algorithms that do not apply
/// are kept as failures with their reason (`name: why`).
struct RelayComparison {
  std::string name;
  llvm::FailureOr<RelaySchedule> schedule = llvm::failure();
  std::string error;
};
std::vector<RelayComparison> compareRelaying(const Topology &topo,
                                             const CostModel &model,
                                             const Collective &collective);

/// "binomial", "knomial(4)", "chain(16)": how reports name a choice.
std::string describeRelayChoice(RelayChoice choice);

} // namespace phasec

#endif // PHASEC_SCHEDULING_RELAY_H
