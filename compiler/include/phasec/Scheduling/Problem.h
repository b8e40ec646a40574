//===- Problem.h - Transfer sets, schedules and their verifier --*- C++ -*-===//
//
// Part of phasec. MLIR-free: only LLVM ADT/Support.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The vocabulary of the phase scheduler, in the style of CIRCT's Scheduling
/// library: a `Problem` (a topology plus the transfers that must happen) with
/// `check()` for its input and `verify()` for any proposed `Schedule`.
/// Algorithms are free functions (Algorithms.h, Baselines.h) that fill a
/// Schedule; `verify()` is deliberately independent of all of them.
///
/// Memory: a `Transfer` is 24 bytes, so the 16.7 M transfers of an all-to-all
/// on a 16x16x16 torus take about 400 MB.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_SCHEDULING_PROBLEM_H
#define PHASEC_SCHEDULING_PROBLEM_H

#include "phasec/Core/Vocabulary.h"
#include "phasec/Scheduling/CostModel.h"
#include "phasec/Topology/Topology.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace phasec {

/// What must be delivered: `bytes` from rank `src` to rank `dst`.
struct Demand {
  RankId src, dst;
  int64_t bytes;
};

/// A set of demands in canonical order: sorted by (src, dst), one entry per
/// ordered pair (duplicates merged by adding bytes), no entries with
/// src == dst (a local copy needs no schedule) and no zero-byte entries.
///
/// An all-to-all's set is held by its rule (allPairs): every ordered pair
/// of distinct members, the same bytes each, in no memory (64 M demands on
/// a 20x20x20 torus were 1 GB). Demands are then computed as they are read,
/// so they are returned by value.
class TransferSet {
public:
  TransferSet() = default;
  /// Builds a canonical set from arbitrary demands.
  explicit TransferSet(std::vector<Demand> demands);
  /// Every ordered pair of distinct `members` (sorted, distinct), `bytes`
  /// (> 0) each, held by rule.
  static TransferSet allPairs(std::vector<RankId> members, int64_t bytes);

  /// Appends a demand; call canonicalize() before reading.
  void add(RankId src, RankId dst, int64_t bytes);
  void reserve(size_t n) { demands_.reserve(n); }
  /// Sorts, merges pairs, drops self and zero-byte demands.
  void canonicalize();
  bool isCanonical() const { return canonical_; }
  /// The members of a set held by rule (allPairs), else null.
  const std::vector<RankId> *allPairsMembers() const {
    return allPairs_ ? &members_ : nullptr;
  }

  size_t size() const;
  bool empty() const { return size() == 0; }
  Demand operator[](size_t i) const;

  class iterator {
  public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Demand;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Demand;
    iterator(const TransferSet *set, size_t i) : set_(set), i_(i) {}
    Demand operator*() const { return (*set_)[i_]; }
    iterator &operator++() {
      ++i_;
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      ++i_;
      return old;
    }
    bool operator==(const iterator &o) const { return i_ == o.i_; }
    bool operator!=(const iterator &o) const { return i_ != o.i_; }

  private:
    const TransferSet *set_;
    size_t i_;
  };
  iterator begin() const { return iterator(this, 0); }
  iterator end() const { return iterator(this, size()); }

  /// Bytes demanded for (src, dst), 0 if none (binary search).
  int64_t lookup(RankId src, RankId dst) const;
  /// Index of (src, dst) in the canonical order, or -1.
  int64_t indexOf(RankId src, RankId dst) const;
  int64_t totalBytes() const;
  /// The common size if every demand has the same number of bytes.
  std::optional<int64_t> uniformBytes() const;
  /// Largest rank mentioned, -1 if empty.
  RankId maxRank() const;

  bool operator==(const TransferSet &o) const;

private:
  /// Lists the demands of a set held by rule (before it changes).
  void listPairs();
  std::vector<Demand> demands_;
  bool canonical_ = true;
  /// allPairs: demands_ is empty, the set is every pair of members_.
  bool allPairs_ = false;
  std::vector<RankId> members_;
  int64_t pairBytes_ = 0;
};

/// One transfer of a phase, with the direction choices of its route.
struct Transfer {
  RankId src, dst;
  int64_t bytes;
  TieMask ties = 0;
};

/// One key per ordered rank pair (the schedule's pieces of a pair share it).
inline uint64_t rankPairKey(RankId src, RankId dst) {
  return (uint64_t(uint32_t(src)) << 32) | uint32_t(dst);
}

/// What one transfer of a relaying schedule carries (schedule JSON /2): the
/// ids of the chunks it sends, and whether the receiver combines them into
/// the chunks it holds (reduce) or takes them as they are (copy).
struct ChunkTransfer {
  llvm::SmallVector<int64_t, 2> ids;
  bool reduce = false;
};

/// Transfers of a phase held by their rule: the translates of `reps` by
/// every node translation of `Schedule::translations[group]`. Translating a
/// transfer by a vector v moves the nodes of both its ranks by v (grid
/// coordinates added modulo the extents: a torus's or hypercube's
/// symmetries) and keeps their cores, its bytes and its ties. A
/// translation-invariant construction (the torus quotient) lists a few
/// representatives per phase instead of every transfer: 400 K instead of
/// 64 M on a 20x20x20 all-to-all.
struct PhaseRule {
  uint32_t group = 0;
  std::vector<Transfer> reps;
};

struct Phase {
  std::vector<Transfer> transfers;
  /// Relaying schedules only: chunks[i] is what transfers[i] carries. Empty
  /// in direct schedules, where a transfer carries bytes a pair demands.
  std::vector<ChunkTransfer> chunks;
  /// Direct schedules only: more transfers of the phase, by rule. The
  /// phase's transfers are `transfers` and every rule's translates;
  /// PhaseReader lists them all.
  std::vector<PhaseRule> rules;
};

/// A relaying collective's data cut into chunks, with the pre- and
/// postcondition of its kind (../shared/spec/schedule-json.md, "Relaying
/// collectives", fixes both per kind; Chunks.cpp implements that table).
/// Tags are sets of group members: whose contributions a chunk contains.
struct ChunkSpec {
  CollectiveKind kind = CollectiveKind::Broadcast;
  /// Global ranks in group order (sorted, distinct).
  std::vector<RankId> group;
  /// Global rank of the root (broadcast, scatter, gather, reduce); -1.
  RankId root = -1;
  /// C, and the size of each chunk (0 only for barrier, or with
  /// chunkSizes).
  int64_t numChunks = 0;
  int64_t chunkBytes = 0;
  /// The v-collectives (schedule JSON's `member_chunks`; scatter, gather,
  /// allgather, reduce_scatter only): member i owns the next memberChunks[i]
  /// chunk ids in group order. Empty: chunksPerMember() each.
  std::vector<int64_t> memberChunks;
  /// `chunk_sizes`: the bytes of each of the C chunks (0 allowed), in place
  /// of chunkBytes. Empty: chunkBytes each.
  std::vector<int64_t> chunkSizes;

  int64_t numMembers() const { return static_cast<int64_t>(group.size()); }
  int64_t sizeOfChunk(int64_t c) const {
    return chunkSizes.empty() ? chunkBytes : chunkSizes[c];
  }
  /// All C chunks' bytes.
  int64_t totalBytes() const;
  /// The bytes of chunks [0, c): where chunk c starts in a buffer of all C.
  int64_t offsetOfChunk(int64_t c) const;
  /// "96", or "96 to 104" where the chunks differ: how reports give a
  /// chunk's bytes.
  std::string describeChunkBytes() const;
  /// The bytes of each block of chunksPerMember() chunks, in order: a
  /// member's block where the kind cuts per member (a v-collective's
  /// differ), the whole data where it is one vector; empty for a barrier.
  std::vector<int64_t> blockBytesByMember() const;
  /// The chunks member i owns (scatter, gather, allgather, reduce_scatter):
  /// [first, first + count).
  int64_t firstChunkOf(int64_t member) const;
  int64_t numChunksOf(int64_t member) const;
  /// The kinds the chunk table defines.
  static bool hasChunkSemantics(CollectiveKind kind);
  /// The table's kind for an operation: C^3's personalized one_to_all and
  /// all_to_one are a scatter and a gather; others are themselves.
  static CollectiveKind getChunkKind(CollectiveKind kind);
  /// C / n for the kinds that cut C by members (n * n for alltoall), else C.
  int64_t chunksPerMember() const;
  /// Validates the spec against a machine of `numRanks` ranks.
  llvm::LogicalResult check(int64_t numRanks, std::string &error) const;
};


/// What every schedule of a problem must take, proven.
struct LowerBound {
  /// Seconds, under the problem's CostModel.
  double time = 0;
  /// Which resource binds, e.g. "max directed-link load on 0->8 (LR)".
  std::string reason;
  /// `time` in units of one uniform block over the binding resource (a link
  /// or a node's port); 0 where the demands have no uniform size. For the
  /// reports only: a source may send several blocks over one link in one
  /// phase, so this bounds neither time nor phases on its own.
  double blocks = 0;
  /// A proven lower bound on the NUMBER of congestion-free phases (each phase
  /// gives a directed link to one source rank): the most distinct source
  /// ranks forced over one link, or sending from one node (or to one node)
  /// over its links, and 1 for any non-empty problem. 0 only when there is
  /// nothing to move. The JSON `lower_bound.phases`.
  int64_t minPhases = 0;
  /// Why minPhases holds.
  std::string phasesReason;
  /// The bound of the schedules that send every demand straight along the
  /// machine's routes (link load under routing, injection): at least `time`,
  /// which is the operation's over every schedule, relaying ones included
  /// (issue 39). The direct algorithms stop at it; a schedule that meets it
  /// but not `time` is printed `direct-optimal`, not `time-optimal`. For a
  /// relaying problem it is `time`.
  double directTime = 0;
  std::string directReason;
  /// directTime in blocks, as `blocks` (the phases a one-block-per-phase
  /// direct schedule needs at least).
  double directBlocks = 0;
};

struct Schedule {
  std::vector<Phase> phases;
  /// The translation groups phase rules name (PhaseRule::group): each a list
  /// of translation vectors, given as the nodes with those coordinates.
  std::vector<std::vector<NodeId>> translations;
  LowerBound bound;
  /// Which algorithm produced it ("z3-product", "greedy", "hand-written"...).
  std::string algorithm;

  /// Transfers listed and held by rule.
  size_t numTransfers() const;
  /// Some phase holds transfers by rule (PhaseReader reads them, expandRules
  /// lists them).
  bool hasRules() const;
  /// Sorts the transfers of every phase by (src, dst, ties) and drops empty
  /// phases; the order of phases is kept. Rules keep their form, their
  /// representatives sorted the same way.
  void canonicalize();
};

/// Reads the phases of a schedule whether their transfers are listed or
/// held by rule. A phase without rules is read in place; one with rules is
/// expanded (its listed transfers and every rule's translates, sorted as
/// Schedule::canonicalize sorts) into a buffer the next read reuses: one
/// phase in memory at a time. A translate with a rank, a translation or a
/// group outside the machine or the schedule gets rank -1 (the verifier
/// reports rules that name them, see Problem::verify).
class PhaseReader {
public:
  /// `sorted` false: a phase held by rule comes in the order of its rules
  /// and representatives, for readers to whom the order is immaterial (the
  /// cost model: sorting was a fifth of a 16x16x16 compile).
  PhaseReader(const Topology &topo, const Schedule &schedule,
              bool sorted = true)
      : PhaseReader(topo, schedule.phases, schedule.translations, sorted) {}
  /// Some phases of a schedule and its translation groups.
  PhaseReader(const Topology &topo, llvm::ArrayRef<Phase> phases,
              llvm::ArrayRef<std::vector<NodeId>> translations,
              bool sorted = true)
      : topo_(topo), phases_(phases), translations_(translations),
        sorted_(sorted) {}
  size_t size() const { return phases_.size(); }
  /// Phase j, valid until the next call.
  const Phase &operator[](size_t j);

private:
  const Topology &topo_;
  llvm::ArrayRef<Phase> phases_;
  llvm::ArrayRef<std::vector<NodeId>> translations_;
  bool sorted_;
  Phase buffer_;
};

/// Replaces every phase's rules by the transfers they hold (and drops the
/// translation groups): for consumers that need every transfer listed.
void expandRules(const Topology &topo, Schedule &schedule);

/// A schedule of a relaying collective is a `Schedule` whose phases carry
/// chunks (Phase::chunks); a direct one carries none.
bool isRelaying(const Schedule &schedule);

/// A relaying schedule in which no rank sends a chunk it received in an
/// earlier phase: every transfer carries what its sender held at the start.
/// Without barriers its messages may all be posted at once and the received
/// chunks applied afterwards, in phase order, to the same result as phase
/// after phase (the back ends and the cost model do so). A direct broadcast
/// or scan (the seed's gather and serial evaluation) forwards nothing; trees
/// and rings do.
bool forwardsNothing(const Schedule &schedule);

/// The steps of a relaying schedule run without synchronisation (`sync =
/// none`): runs of consecutive phases in which no rank sends a chunk it
/// receives in an earlier phase of the same run. A rank posts a step's
/// messages at once and applies what arrived, phase by phase, once they are
/// done: the replay's result, since nothing a step sends depends on what it
/// delivers. A round that the congestion-free split cut into several phases
/// (a grid's row exchange, a tree's level) is one step, so small messages
/// pay its latency once. Returns the first phase of every step, then the
/// number of phases (so step s is [starts[s], starts[s + 1])): one step for
/// a schedule that forwards nothing, one per phase for a chain or a
/// schedule without chunks.
std::vector<size_t> relaySteps(const Schedule &schedule);

/// The order in which the back ends post a phase's sends (and ns-3's NICs
/// send them): by sender, each sender's transfers by (dst - src) mod P in
/// the group's member order (P members). Where a member sends to several
/// in one phase, no receiver then gets everyone's first message at once:
/// in the (src, dst) order every sender's first message went to the lowest
/// member (ns-3 ran a 3 x 3 grid allreduce 1.3x slower so). A receiver's
/// transfers stay in sender order. Transfers whose ends are not members
/// keep their place after the others.
std::vector<size_t> sendOrder(const Phase &phase, llvm::ArrayRef<RankId> group);

/// A schedule measured against the bound of its problem: what every report,
/// IR attribute and table prints, computed in one place (Problem::cost).
struct ScheduleCost {
  /// CostModel::time of the schedule.
  double time = 0;
  LowerBound bound;
  /// time / bound.time (1 where there is nothing to move).
  double gap = 1;
  /// The time equals the proven bound: no schedule is faster.
  bool timeOptimal = false;
  /// The time equals LowerBound::directTime: no direct schedule is faster
  /// (a relaying one may be).
  bool directOptimal = false;
  /// The phase count equals the proven minimum number of phases: no
  /// congestion-free schedule has fewer (an algorithm may also prove this
  /// itself, see SchedulerReport::phaseOptimal).
  bool phaseOptimal = false;
  /// The machine as described (CostModel::machineTime under the model's
  /// sync), and a lower bound that also sees latency and set-ups
  /// (Problem::machineBound).
  MachineTime machine;
  double machineBound = 0;
};

/// Whether a reduction may meet contributions its receiver already holds.
/// The interchange format forbids it for every kind (Spec: schedule JSON /2,
/// "Replay"). phasec's own verifier lets a barrier's reductions overlap
/// (Phasec): the barrier's chunk carries only news of arrivals, and hearing
/// of an arrival twice is harmless. MPI's dissemination barrier on a member
/// count that is not a power of two relies on that; such a schedule has no
/// /2 document (checkScheduleDocument refuses it).
enum class ReplayRules { Spec, Phasec };

/// One thing verify() found wrong.
struct ScheduleViolation {
  /// What is wrong (Vocabulary.td's ViolationKind says each case).
  using Kind = ViolationKind;
  Kind kind;
  /// Phase index, or -1 where no single phase is at fault.
  int64_t phase = -1;
  LinkId link = kNoLink;
  /// Indices into the phase's transfers; -1 where not applicable. For
  /// Congestion, A is the earlier transfer that owns the link.
  int64_t transferA = -1, transferB = -1;
  /// For Incomplete/Duplicate/Unrequested: the pair. For the chunk replay's
  /// violations: the transfer's ranks, or (MissingChunk,
  /// WrongContributions) the rank in `dst`.
  RankId src = -1, dst = -1;
  /// The chunk replay's violations: the chunk at fault.
  int64_t chunk = -1;
  std::string message;
};

/// A topology plus the transfers that must happen on it, and the CostModel
/// that says how long a schedule of them takes.
class Problem {
public:
  /// `transfers` is canonicalized if it is not already. The Problem keeps a
  /// pointer to `topo`, which must outlive it. The cost model is the machine
  /// as described unless one is given (CostModel::onePort).
  Problem(const Topology &topo, TransferSet transfers);
  Problem(const Topology &topo, TransferSet transfers, CostModel model);
  /// A relaying collective: what must happen is the chunk spec's
  /// postcondition, reached from its precondition by copies and reductions
  /// (transfers() is empty).
  Problem(const Topology &topo, ChunkSpec chunks, CostModel model);

  /// The chunk spec of a relaying problem, else null.
  const ChunkSpec *chunkSpec() const {
    return chunks_ ? &*chunks_ : nullptr;
  }

  const Topology &topology() const { return *topo_; }
  const TransferSet &transfers() const { return transfers_; }
  const CostModel &costModel() const { return model_; }

  /// The proven lower bound of every schedule (Bounds.h), computed once
  /// (it routes every demand; reports and algorithms ask for it often).
  LowerBound bound() const;
  /// A lower bound on the machine time of every schedule: the bandwidth
  /// bound, and the set-ups and latency no schedule avoids, relaying or
  /// not (the operation's, as bound()). The holders of any piece at most
  /// double per set-up (each s): a direct problem's source with m
  /// destinations needs ceil(log2(m + 1)) set-ups one after the other, and
  /// its last message still has to travel (its smallest latency); every
  /// message travels its own latency after one set-up. A relaying one:
  /// ceil(log2 n) set-ups pass before every member has heard from every
  /// other (or the root). Copies (CostModel::setCopy): see
  /// copyBoundAbove.
  double machineBound() const;
  /// The ranks that synchronise between phases: a relaying problem's
  /// group, else every rank that sends or receives.
  std::vector<RankId> members() const;
  /// `schedule`'s time, this problem's bound and their comparison.
  ScheduleCost cost(const Schedule &schedule) const;

  /// Validates the input: ranks in range, positive sizes (a relaying
  /// problem: ChunkSpec::check). Sets `error`.
  llvm::LogicalResult check(std::string &error) const;

  /// Independent of every algorithm: every transfer well-formed, routes valid
  /// (ties only where allowed), completeness (every pair gets exactly its
  /// bytes; splitting a pair over several transfers is allowed), nothing
  /// delivered twice or unrequested, congestion-freedom (no directed link
  /// carries two source ranks in one phase), and the recorded bound holds:
  /// its time <= the schedule time under the cost model (1e-9 relative
  /// slack) and its minimum phase count <= the schedule's phases. Appends at
  /// most `maxViolations` violations, in order of discovery (phases first,
  /// then completeness); success() iff none. Linear time and memory in the
  /// schedule plus O(links + ranks).
  ///
  /// A relaying problem replaces completeness by the chunk replay: every
  /// transfer lists chunks whose bytes are its bytes, a rank sends only
  /// chunks it holds when the phase starts, every transfer takes effect when
  /// the phase ends, a reduce needs the chunk at the receiver and joins
  /// disjoint tags (a barrier's may overlap: ReplayRules::Phasec), two
  /// copies into one rank in one phase agree, and every rank ends with what
  /// the postcondition promises (BadChunks ... WrongContributions). Memory:
  /// O(ranks * chunks).
  llvm::LogicalResult
  verify(const Schedule &schedule,
         llvm::SmallVectorImpl<ScheduleViolation> &violations,
         unsigned maxViolations = 64) const;

private:
  /// machineBound given the bandwidth bound (cost() has it already).
  double machineBoundAbove(double bandwidthBound) const;
  /// What the copy-transfer model adds to the bound: packing, every rank's
  /// pack and unpack on top of the bandwidth bound; chained, direct deposit
  /// and auto, the busiest rank's copy. 0 where copies are free or the
  /// problem relays.
  double copyBoundAbove(double bandwidthBound) const;
  const Topology *topo_;
  TransferSet transfers_;
  CostModel model_;
  std::optional<ChunkSpec> chunks_;
  /// bound()'s result, shared by copies (a Problem does not change).
  struct BoundCache;
  std::shared_ptr<BoundCache> boundCache_;
};

} // namespace phasec

#endif // PHASEC_SCHEDULING_PROBLEM_H
