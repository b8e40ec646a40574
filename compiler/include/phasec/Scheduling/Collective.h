//===- Collective.h - An operation and its traffic --------------*- C++ -*-===//
//
// Part of phasec. MLIR-free: only LLVM ADT/Support.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A communication operation as a value: its kind, group, root, sizes,
/// permutation and array layouts (including how each array is distributed),
/// and `lower()`, the one place that says which bytes go from which rank to
/// which. The scheduling pass lowers it to a TransferSet; the back ends build
/// their plans from the same value (comm::getCollective reads it from the
/// IR), so what is scheduled and what the generated code moves cannot
/// disagree.
///
/// Groups are sorted lists of distinct global ranks; a root is a global rank
/// of the group. Errors (bad groups, sizes that do not divide, ...) come back
/// as text through `error` and failure(), never as assertions, so that the
/// caller can attach them to a source location.
///
/// Operations that only relaying schedules implement (broadcast, reduce,
/// allreduce, reduce_scatter, scan, exscan) have no direct traffic: lower()
/// fails for them and Relay.h schedules them by chunks.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_SCHEDULING_COLLECTIVE_H
#define PHASEC_SCHEDULING_COLLECTIVE_H

#include "phasec/Core/Vocabulary.h"
#include "phasec/Scheduling/Problem.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace phasec {

/// Checks that `group` is non-empty, sorted, without duplicates and (if
/// numRanks >= 0) inside [0, numRanks).
llvm::LogicalResult checkGroup(llvm::ArrayRef<RankId> group, int64_t numRanks,
                               std::string &error);

/// A permutation of the indices 0..n-1.
struct PermutationSpec {
  PermuteKind kind = PermuteKind::Random;
  /// Random: Fisher-Yates driven by splitmix64 seeded with `seed` (see
  /// makePermutation), so results do not depend on the C++ library.
  uint64_t seed = 0;
  /// Xor: i -> i ^ mask (n a power of two, mask < n).
  int64_t mask = 0;
  /// Shift: i -> (i + shift) mod n (shift may be negative).
  int64_t shift = 0;
  /// Table: i -> table[i].
  std::vector<int64_t> table;
};

/// splitmix64 (Steele, Lea, Flood 2014): the PRNG of random permutations.
uint64_t splitmix64(uint64_t &state);

/// Materializes the permutation of 0..n-1 described by `spec`: perm[i] is the
/// destination index of element i. Random: perm = identity, then for i from
/// n-1 down to 1: j = splitmix64(state) % (i+1), swap(perm[i], perm[j]), with
/// state = seed initially. BitReversal needs n a power of two.
llvm::FailureOr<std::vector<int64_t>>
makePermutation(int64_t n, const PermutationSpec &spec, std::string &error);

/// An array laid out over a group of P members: row-major `shape`, and the
/// block distribution of dimension 0 (Rows: member i owns the i-th slab of
/// shape[0] / P rows) or dimension 1 (Cols: the i-th slab of shape[1] / P
/// columns, in every row).
struct ArrayLayout {
  llvm::SmallVector<int64_t, 4> shape;
  int64_t elementBytes = 0;
  Distribution distribution = Distribution::Rows;

  int64_t numElements() const;
  /// The extent the distribution divides.
  int64_t distributedExtent() const;
  /// The member (group index) owning element `e`, a row-major linear index.
  int64_t owner(int64_t e, int64_t members) const;
};

class Collective {
public:
  CollectiveKind kind = CollectiveKind::Alltoall;
  /// Sorted, distinct global ranks.
  std::vector<RankId> group;
  /// Global rank of the root (gather, scatter, broadcast, reduce,
  /// one_to_all, all_to_one); -1 otherwise.
  RankId root = -1;
  /// Bytes per block: alltoall, allgather, gather, scatter, one_to_all,
  /// all_to_one, broadcast, rank-level permute.
  int64_t blockBytes = 0;
  /// Alltoallv: P x P bytes, row = source member; the diagonal is local.
  std::vector<int64_t> sizes;
  /// The v-collectives (allgatherv, gatherv, scatterv): the bytes of each
  /// member's block, in group order (0 allowed), in place of blockBytes.
  /// They relay (their chunks carry schedule JSON's chunk_sizes).
  std::vector<int64_t> memberBytes;
  /// Transpose: the source (R x C) and the result (C x R). Element-level
  /// permute: the source and the destination (same shape).
  std::optional<ArrayLayout> from, to;
  /// Permute: the rule, over group indices (rank level) or elements.
  PermutationSpec permutation;
  /// Reductions (reduce, allreduce, reduce_scatter, scan, exscan): the
  /// operator and the element type; blockBytes is count * element size
  /// (reduce_scatter: each member's block).
  ReduceKind reduceOp = ReduceKind::Add;
  std::optional<ElementType> elementType;
  /// The most transfers lower() builds: a larger operation is refused at
  /// once, before anything is allocated (a 64^3-node all-to-all is 6.9e10
  /// pairs), with a message naming the limit (--max-transfers).
  int64_t maxTransfers = kDefaultMaxTransfers;
  /// 2^28 transfers: 6 GiB where a schedule lists every transfer, what
  /// this 24 GiB machine schedules (docs/performance.md); an all-to-all
  /// the torus quotient holds by rule takes far less.
  static constexpr int64_t kDefaultMaxTransfers = int64_t(1) << 28;

  /// The size chunks of a relaying schedule must be a multiple of.
  int64_t elementBytes() const {
    return elementType ? elementTypeBytes(*elementType) : 1;
  }
  int64_t numMembers() const { return static_cast<int64_t>(group.size()); }
  /// A permute of array elements (else of whole blocks between ranks).
  /// A permute with run-time destinations is scheduled as the all-to-all
  /// of what a uniformly random one moves: each member's n/P elements
  /// spread evenly, ceil(n / P^2) elements to every other member (at least
  /// one). The generated code moves what the call's destinations say along
  /// this schedule's phases.
  int64_t runtimePairBytes() const;
  bool isElementPermute() const {
    return getTraits(kind).shape == DataShape::Permutation && from.has_value();
  }
  /// How the operation's copies access memory (the copy-transfer model,
  /// CostModel::setCopy): a transpose packs and unpacks columns with a
  /// stride, an element-level permute gathers and scatters elements, every
  /// other operation moves whole blocks.
  CopyPattern copyPattern() const {
    return getCopyPattern(kind, isElementPermute());
  }
  static CopyPattern getCopyPattern(CollectiveKind kind, bool elementPermute);
  /// Whether the `style` directive applies: array operations (transpose,
  /// element-level permute) choose between packing and chained copies;
  /// block operations send from and receive into the user's buffers.
  static bool hasTransferStyle(CollectiveKind kind, bool elementPermute) {
    return isArrayOperation(kind, elementPermute);
  }
  /// Barriers and local operations move no data: no traffic, no schedule.
  bool movesNoData() const {
    return getTraits(kind).family == CollectiveFamily::Dataless;
  }
  /// The group index of global rank `rank`, or -1.
  int64_t memberOf(RankId rank) const;

  /// The permutation (destination of each group index, or of each element
  /// for element-level permutes), materialised on first use and kept.
  llvm::FailureOr<llvm::ArrayRef<int64_t>>
  getPermutation(std::string &error) const;

  /// What each rank must deliver to each other rank: the operation's
  /// traffic, in canonical order. Local copies are left out.
  llvm::FailureOr<TransferSet> lower(std::string &error) const;

  /// The name schedules, plans and reports give the operation: the
  /// vocabulary's spelling, "rank_permute" for a permute of whole blocks.
  llvm::StringRef kindName() const {
    return getKindName(kind, isElementPermute());
  }
  static llvm::StringRef getKindName(CollectiveKind kind, bool elementPermute);

private:
  mutable std::optional<std::vector<int64_t>> perm_;
};

} // namespace phasec

#endif // PHASEC_SCHEDULING_COLLECTIVE_H
