//===- Collectives.h - Lowering collectives to transfer sets ----*- C++ -*-===//
//
// Part of phasec. MLIR-free: only LLVM ADT/Support.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Every communication operation of the language becomes a TransferSet: what
/// each source rank must deliver to each destination rank. All builders work
/// over a group, a sorted list of distinct global ranks; a root, where there
/// is one, is a global rank that must be in the group. Errors (bad groups,
/// sizes that do not divide, ...) are reported through `error` and failure(),
/// never by asserting.
///
/// Operations that need relays (broadcast, reduce, allreduce, scan) fail with
/// "not yet supported: <op> needs relays (a later issue)".
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_SCHEDULING_COLLECTIVES_H
#define PHASEC_SCHEDULING_COLLECTIVES_H

#include "phasec/Scheduling/Problem.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>
#include <string>
#include <vector>

namespace phasec {

/// Checks that `group` is non-empty, sorted, without duplicates and (if
/// numRanks >= 0) inside [0, numRanks).
llvm::LogicalResult checkGroup(llvm::ArrayRef<RankId> group, int64_t numRanks,
                               std::string &error);

/// Every rank of the group sends `block` bytes to every other one.
llvm::FailureOr<TransferSet> buildAlltoall(llvm::ArrayRef<RankId> group,
                                           int64_t block, std::string &error);

/// `sizes` is n x n row-major (n = group size): sizes[i*n+j] bytes from
/// group[i] to group[j]. Diagonal entries are local copies and ignored.
llvm::FailureOr<TransferSet> buildAlltoallv(llvm::ArrayRef<RankId> group,
                                            llvm::ArrayRef<int64_t> sizes,
                                            std::string &error);

/// Transpose of an n x n array of `elemBytes`-byte elements whose rows are
/// block-distributed over the P ranks of the group (n divisible by P): every
/// pair exchanges a (n/P) x (n/P) block, (n/P)^2 * elemBytes bytes.
llvm::FailureOr<TransferSet> buildTranspose(llvm::ArrayRef<RankId> group,
                                            int64_t n, int64_t elemBytes,
                                            std::string &error);

/// A permutation of the indices 0..n-1.
struct PermutationSpec {
  enum Kind { Random, BitReversal, XorMask, CyclicShift, Table };
  Kind kind = Random;
  /// Random: Fisher-Yates driven by splitmix64 seeded with `seed` (see
  /// makePermutation), so results do not depend on the C++ library.
  uint64_t seed = 0;
  /// XorMask: i -> i ^ mask (n a power of two, mask < n).
  int64_t mask = 0;
  /// CyclicShift: i -> (i + shift) mod n (shift may be negative).
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

/// Element-level permutation of an array of `numElements` elements of
/// `elemBytes` bytes, block-distributed over the group (numElements divisible
/// by the group size): element i moves to position perm(i); elements are
/// grouped per (owner rank, destination rank) pair.
llvm::FailureOr<TransferSet>
buildElementPermutation(llvm::ArrayRef<RankId> group, int64_t numElements,
                        int64_t elemBytes, const PermutationSpec &spec,
                        std::string &error);

/// Rank-level permutation: group[i] sends `block` bytes to group[perm(i)],
/// perm over 0..P-1.
llvm::FailureOr<TransferSet> buildRankPermutation(llvm::ArrayRef<RankId> group,
                                                  int64_t block,
                                                  const PermutationSpec &spec,
                                                  std::string &error);

/// Every other rank sends `block` bytes to `root`.
llvm::FailureOr<TransferSet> buildGather(llvm::ArrayRef<RankId> group,
                                         RankId root, int64_t block,
                                         std::string &error);
/// `root` sends a distinct `block` to every other rank.
llvm::FailureOr<TransferSet> buildScatter(llvm::ArrayRef<RankId> group,
                                          RankId root, int64_t block,
                                          std::string &error);
/// Direct allgather: every rank sends its `block` to every other rank (the
/// transfers of an alltoall; the data differ, the traffic does not).
llvm::FailureOr<TransferSet> buildAllgather(llvm::ArrayRef<RankId> group,
                                            int64_t block, std::string &error);
/// One-to-all without relays: `root` sends `block` bytes to every other rank
/// directly (the traffic of a scatter).
llvm::FailureOr<TransferSet> buildOneToAll(llvm::ArrayRef<RankId> group,
                                           RankId root, int64_t block,
                                           std::string &error);
/// All-to-one: every other rank sends `block` bytes to `root` (the traffic
/// of a gather).
llvm::FailureOr<TransferSet> buildAllToOne(llvm::ArrayRef<RankId> group,
                                           RankId root, int64_t block,
                                           std::string &error);

/// A generic request, for callers that dispatch on the operation's name.
struct CollectiveRequest {
  /// "alltoall", "alltoallv", "transpose", "permute" (element level),
  /// "rank_permute", "gather", "scatter", "allgather", "one_to_all",
  /// "all_to_one"; "broadcast", "reduce", "allreduce", "scan" are rejected
  /// as not yet supported.
  std::string op;
  std::vector<RankId> group;
  RankId root = -1;
  /// Block bytes (alltoall, gather, ...), element bytes (transpose, permute).
  int64_t bytes = 0;
  /// alltoallv: n x n sizes.
  std::vector<int64_t> sizes;
  /// transpose: n; permute: number of elements.
  int64_t n = 0;
  PermutationSpec perm;
};

/// Dispatches on `request.op`.
llvm::FailureOr<TransferSet> buildCollective(const CollectiveRequest &request,
                                             std::string &error);

} // namespace phasec

#endif // PHASEC_SCHEDULING_COLLECTIVES_H
