//===- Vocabulary.h - phasec's closed sets, declared once -------*- C++ -*-===//
//
// Part of phasec. Links LLVM only (the generated code names mlir::FailureOr
// in a header-only parser hook; no MLIR library is needed).
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The enums generated from Vocabulary.td, with `stringifyX(X)` (the one
/// spelling of each case) and `symbolizeX(StringRef)` (its inverse), plus
/// the facts about a case that a spelling cannot carry (element sizes).
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_CORE_VOCABULARY_H
#define PHASEC_CORE_VOCABULARY_H

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMapInfo.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>

#include "phasec/Core/Vocabulary.h.inc"

namespace phasec {

/// Size of one element in bytes.
int64_t elementTypeBytes(ElementType type);

/// The family of a collective kind: what its data is and how it moves.
enum class CollectiveFamily {
  /// Equal blocks between members, no root (alltoall, allgather).
  Blocks,
  /// Blocks to or from one member (gather, scatter, broadcast, one_to_all,
  /// all_to_one).
  Rooted,
  /// Values combined with an operator (reduce, allreduce, reduce_scatter,
  /// scan, exscan).
  Reduction,
  /// Traffic described by arrays or per-pair sizes (alltoallv, transpose,
  /// permute).
  Arrays,
  /// No data (barrier, local).
  Dataless,
};

/// How schedule JSON /2 cuts a kind's C chunks (getChunkParts).
enum class ChunkParts { None, One, PerMember, PerPair };

/// What a member's buffer holds of an operation's data, as MPI defines the
/// call: the send buffer before, the receive buffer after.
enum class DataPart {
  /// No data (barrier, local).
  None,
  /// The whole vector: a broadcast's buffer, a reduction's elements.
  Whole,
  /// The member's own block: gather's send buffer, scatter's and
  /// reduce_scatter's receive buffer, a transpose's or permute's slice.
  Own,
  /// One block per member, block i for or from member i: alltoall's
  /// buffers, scatter's and reduce_scatter's send buffer, gather's and
  /// allgather's receive buffer.
  PerMember,
};

/// Whose buffers hold a DataPart.
enum class DataHolders {
  Every,
  /// The root only (a broadcast's or scatter's send, a gather's or
  /// reduce's receive).
  Root,
  /// Every member but the first (an exclusive prefix's result).
  AllButFirst,
};

/// One side of an operation (DataPart, DataHolders).
struct DataSide {
  DataPart part;
  DataHolders holders;
  /// The side is in the root's buffer only.
  constexpr bool rootOnly() const { return holders == DataHolders::Root; }
};

/// How the code generators lay out a kind's data (the OperationPlan
/// visitor's dispatch, targets/common/PlanVisitor.h).
enum class DataShape {
  /// Equal blocks, placed as the DataSides say.
  Blocks,
  /// Blocks of per-pair sizes (alltoallv).
  PairSizes,
  /// A distributed matrix, rows to columns (transpose).
  Matrix,
  /// Blocks or array elements to the members a permutation names.
  Permutation,
  /// None: barrier and local steps (nothing to lay out).
  None,
};

/// What phasec knows about a collective kind, in one table
/// (Vocabulary.cpp): the predicates below read it.
struct CollectiveTraits {
  /// The row's kind (the table is in case order).
  CollectiveKind kind;
  CollectiveFamily family;
  /// The operation names a root member (`root = ...`).
  bool rooted;
  /// Only relaying schedules implement it (data is combined or forwarded).
  bool relays;
  /// Combines values with an operator (`op`, `type`, `count`).
  bool reduces;
  /// A prefix reduction: the members' order is the result's order.
  bool prefix;
  ChunkParts chunkParts;
  /// What the send and receive buffers hold, and how generated code lays
  /// the data out.
  DataSide send, recv;
  DataShape shape;
  /// The kind whose generated code implements this one (C^3's one_to_all
  /// and all_to_one are a scatter's and a gather's, seed 003); itself for
  /// every other kind.
  CollectiveKind generatedAs;
  /// The MPI function of the same operation (null: none).
  const char *mpiName;
  /// The relaying algorithms that exist for it, in the order the
  /// scheduler's `auto` tries them (Auto excluded).
  llvm::ArrayRef<Algorithm> relayAlgorithms;
  /// The orders of the direct exchange that exist for it (pairwise,
  /// linear_shift, xor: every pair exchanges personal data).
  llvm::ArrayRef<Algorithm> directOrders;
};

/// The traits of `kind`.
const CollectiveTraits &getTraits(CollectiveKind kind);
/// Every kind's row, in case order: what lists of kinds loop over.
llvm::ArrayRef<CollectiveTraits> getAllTraits();

/// Every member receives every member's own block (allgather; the PAPERS
/// aggregates that gather the values themselves).
inline bool gathersToAll(CollectiveKind kind) {
  const CollectiveTraits &t = getTraits(kind);
  return t.send.part == DataPart::Own && t.recv.part == DataPart::PerMember &&
         t.recv.holders == DataHolders::Every;
}

/// Operations on arrays (transposes, element-level permutes): they move
/// elements, and their copies are a choice (the `style` directive).
inline bool isArrayOperation(CollectiveKind kind, bool elementLevel) {
  DataShape shape = getTraits(kind).shape;
  return shape == DataShape::Matrix ||
         (shape == DataShape::Permutation && elementLevel);
}

/// The kinds with a root member.
inline bool isRooted(CollectiveKind kind) { return getTraits(kind).rooted; }

/// The prefix reductions (scan, exscan).
inline bool isPrefix(CollectiveKind kind) { return getTraits(kind).prefix; }

/// The kinds that only relaying schedules can implement (a direct schedule
/// of their traffic does not exist: data must be combined or forwarded).
bool needsRelaying(CollectiveKind kind);

/// The kinds that combine values with an operator (reduce, allreduce,
/// reduce_scatter, scan, exscan): their data has an element type, and
/// their relaying sends may reduce.
bool isReduction(CollectiveKind kind);

/// How many equal parts the chunk table of schedule JSON /2 cuts the C
/// chunks of `kind` into over `numMembers` members (chunk c belongs to part
/// c / (C / parts)): n for scatter, gather, allgather and reduce_scatter
/// (and C^3's one_to_all and all_to_one, a scatter and a gather), n * n for
/// alltoall, 1 where the data is one vector (broadcast, reduce, allreduce,
/// scan, exscan, barrier); 0 for the kinds without chunk semantics.
int64_t getChunkParts(CollectiveKind kind, int64_t numMembers);

/// The relaying algorithms (phasec/Scheduling/Relay.h) that exist for
/// `kind`, Auto excluded, in the order the scheduler's `auto` tries them.
llvm::ArrayRef<Algorithm> getRelayAlgorithms(CollectiveKind kind);

/// The directives that name a relaying algorithm (trees, rings, Bruck, ...;
/// not k_level, which relays only for some kinds and levels).
bool isRelayAlgorithm(Algorithm algorithm);

/// The PAPERS aggregates whose result is a function of every member's
/// value (reduce, scan, any, all, bcast): seed 004's gather and local
/// evaluation (`algorithm = gather_evaluate`) applies to them.
bool evaluatesEveryValue(Aggregate aggregate);

/// Relaying algorithms that take a parameter: knomial(radix),
/// reduce_broadcast(radix), chain(segments), double_chain(segments),
/// ring(segments), rabenseifner(segments), dimension_wise(parts),
/// grid(row length).
bool takesRelayParameter(Algorithm algorithm);
/// The relaying algorithms whose parameter is a tree's radix (at least 2):
/// knomial(k), reduce_broadcast(k).
bool takesRadix(Algorithm algorithm);
/// What the parameter of `algorithm` counts ("the radix", "the number of
/// segments", "the number of parts", "the row length"), and its least
/// value, for diagnostics and the front end's range check.
llvm::StringRef describeRelayParameter(Algorithm algorithm);
int64_t leastRelayParameter(Algorithm algorithm);

/// Every spelling of an enum, in case order, joined by ", ": for "expected
/// one of" diagnostics. `maxValue` is the generated getMaxEnumValForX().
template <typename Enum> std::string joinSpellings(unsigned maxValue) {
  std::string out;
  for (unsigned v = 0; v <= maxValue; ++v) {
    if (v)
      out += ", ";
    out += stringifyEnum(static_cast<Enum>(v)).str();
  }
  return out;
}

} // namespace phasec

#endif // PHASEC_CORE_VOCABULARY_H
