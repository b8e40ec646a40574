//===- Collective.cpp - An operation and its traffic ----------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Turns each operation into the demands it implies. Everything validates
/// its input and reports errors as text, so that the IR lowering can attach
/// them to a source location.
///
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Collective.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace phasec;
using llvm::failure;
using llvm::FailureOr;
using llvm::LogicalResult;
using llvm::success;

LogicalResult phasec::checkGroup(llvm::ArrayRef<RankId> group, int64_t numRanks,
                                 std::string &error) {
  if (group.empty()) {
    error = "the group is empty";
    return failure();
  }
  for (size_t i = 0; i < group.size(); ++i) {
    if (group[i] < 0 || (numRanks >= 0 && group[i] >= numRanks)) {
      error = llvm::formatv("rank {0} of the group is out of range", group[i])
                  .str();
      return failure();
    }
    if (i && group[i] <= group[i - 1]) {
      error =
          group[i] == group[i - 1]
              ? llvm::formatv("rank {0} appears twice in the group", group[i])
                    .str()
              : "the group must be sorted";
      return failure();
    }
  }
  return success();
}

static LogicalResult checkSize(int64_t bytes, const char *what,
                               std::string &error) {
  if (bytes < 0) {
    error =
        llvm::formatv("{0} must not be negative (got {1})", what, bytes).str();
    return failure();
  }
  return success();
}

/// Index of `root` in `group`, or failure.
static FailureOr<size_t> rootIndex(llvm::ArrayRef<RankId> group, RankId root,
                                   std::string &error) {
  auto it = llvm::lower_bound(group, root);
  if (it == group.end() || *it != root) {
    error = llvm::formatv("root rank {0} is not in the group", root).str();
    return failure();
  }
  return static_cast<size_t>(it - group.begin());
}

/// a * b, failing on overflow.
static LogicalResult mulChecked(int64_t a, int64_t b, int64_t &out,
                                std::string &error) {
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a) {
    error = "size overflows 64 bits";
    return failure();
  }
  out = a * b;
  return success();
}

uint64_t phasec::splitmix64(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

FailureOr<std::vector<int64_t>>
phasec::makePermutation(int64_t n, const PermutationSpec &spec,
                        std::string &error) {
  if (n <= 0) {
    error = "a permutation needs at least one element";
    return failure();
  }
  std::vector<int64_t> perm(n);
  switch (spec.kind) {
  case PermuteKind::Random: {
    for (int64_t i = 0; i < n; ++i)
      perm[i] = i;
    uint64_t state = spec.seed;
    for (int64_t i = n - 1; i > 0; --i) {
      int64_t j = static_cast<int64_t>(splitmix64(state) %
                                       static_cast<uint64_t>(i + 1));
      std::swap(perm[i], perm[j]);
    }
    return perm;
  }
  case PermuteKind::BitReversal: {
    if (!llvm::isPowerOf2_64(n)) {
      error = llvm::formatv("bit reversal needs a power-of-two number of "
                            "elements, got {0}",
                            n)
                  .str();
      return failure();
    }
    unsigned bits = llvm::Log2_64(n);
    for (int64_t i = 0; i < n; ++i) {
      uint64_t r = 0;
      for (unsigned b = 0; b < bits; ++b)
        if ((i >> b) & 1)
          r |= uint64_t(1) << (bits - 1 - b);
      perm[i] = static_cast<int64_t>(r);
    }
    return perm;
  }
  case PermuteKind::Xor:
    if (!llvm::isPowerOf2_64(n) || spec.mask < 0 || spec.mask >= n) {
      error = llvm::formatv("xor mask {0} needs a power-of-two number of "
                            "elements larger than the mask, got {1}",
                            spec.mask, n)
                  .str();
      return failure();
    }
    for (int64_t i = 0; i < n; ++i)
      perm[i] = i ^ spec.mask;
    return perm;
  case PermuteKind::Shift: {
    int64_t s = spec.shift % n;
    if (s < 0)
      s += n;
    for (int64_t i = 0; i < n; ++i)
      perm[i] = (i + s) % n;
    return perm;
  }
  case PermuteKind::Runtime:
    error = "a permutation with run-time destinations has no table before "
            "it runs";
    return failure();
  case PermuteKind::Table: {
    if (static_cast<int64_t>(spec.table.size()) != n) {
      error = llvm::formatv("the permutation table has {0} entries, expected "
                            "{1}",
                            spec.table.size(), n)
                  .str();
      return failure();
    }
    std::vector<bool> seen(n, false);
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = spec.table[i];
      if (v < 0 || v >= n || seen[v]) {
        error = llvm::formatv("the permutation table is not a permutation of "
                              "0..{0}: entry {1} is {2}",
                              n - 1, i, v)
                    .str();
        return failure();
      }
      seen[v] = true;
      perm[i] = v;
    }
    return perm;
  }
  }
  llvm_unreachable("unknown permutation kind");
}

//===----------------------------------------------------------------------===//
// ArrayLayout
//===----------------------------------------------------------------------===//

int64_t ArrayLayout::numElements() const {
  int64_t n = 1;
  for (int64_t e : shape)
    n *= e;
  return n;
}

int64_t ArrayLayout::distributedExtent() const {
  return shape[distribution == Distribution::Rows ? 0 : 1];
}

int64_t ArrayLayout::owner(int64_t e, int64_t members) const {
  // Elements after the distributed dimension in row-major order.
  unsigned dim = distribution == Distribution::Rows ? 0 : 1;
  int64_t inner = 1;
  for (size_t k = dim + 1; k < shape.size(); ++k)
    inner *= shape[k];
  int64_t index = (e / inner) % shape[dim];
  return index / (shape[dim] / members);
}

//===----------------------------------------------------------------------===//
// Collective
//===----------------------------------------------------------------------===//

int64_t Collective::memberOf(RankId rank) const {
  auto it = llvm::lower_bound(group, rank);
  if (it == group.end() || *it != rank)
    return -1;
  return it - group.begin();
}

int64_t Collective::runtimePairBytes() const {
  int64_t p = std::max<int64_t>(1, numMembers());
  int64_t elems = from ? from->numElements() : 0;
  return std::max<int64_t>(1, llvm::divideCeil(elems, p * p)) *
         (from ? from->elementBytes : 1);
}

FailureOr<llvm::ArrayRef<int64_t>>
Collective::getPermutation(std::string &error) const {
  if (perm_)
    return llvm::ArrayRef<int64_t>(*perm_);
  int64_t n = isElementPermute() ? from->numElements() : numMembers();
  FailureOr<std::vector<int64_t>> perm = makePermutation(n, permutation, error);
  if (failed(perm))
    return failure();
  perm_ = std::move(*perm);
  return llvm::ArrayRef<int64_t>(*perm_);
}

/// Checks that `layout` is a positive array whose distributed extent
/// divides over `members`.
static LogicalResult checkLayout(const ArrayLayout &layout, int64_t members,
                                 llvm::StringRef what, std::string &error) {
  size_t dims = layout.distribution == Distribution::Rows ? 1 : 2;
  if (layout.shape.size() < dims || layout.elementBytes <= 0 ||
      llvm::any_of(layout.shape, [](int64_t e) { return e <= 0; })) {
    error = (what + " needs positive extents and element size").str();
    return failure();
  }
  int64_t extent = layout.distributedExtent();
  if (extent % members) {
    error = llvm::formatv("{0}: {1} {2} do not divide evenly over {3} ranks",
                          what, extent,
                          stringifyDistribution(layout.distribution), members)
                .str();
    return failure();
  }
  return success();
}

/// The transfers an operation of `kind` over `p` members can have at most:
/// every ordered pair for the all-to-all family, one per member otherwise.
static int64_t maxPairs(CollectiveKind kind, bool elementPermute, int64_t p) {
  const CollectiveTraits &t = getTraits(kind);
  bool allPairs =
      t.shape == DataShape::PairSizes || t.shape == DataShape::Matrix ||
      (t.shape == DataShape::Permutation && elementPermute) ||
      (t.shape == DataShape::Blocks && t.recv.part == DataPart::PerMember &&
       t.recv.holders == DataHolders::Every);
  return allPairs ? p * (p - 1) : p;
}

/// Every member sends `block` bytes to every other member: held by rule,
/// whatever the group's size.
static TransferSet allPairs(llvm::ArrayRef<RankId> group, int64_t block) {
  std::vector<RankId> members(group.begin(), group.end());
  llvm::sort(members);
  members.erase(std::unique(members.begin(), members.end()), members.end());
  return TransferSet::allPairs(std::move(members), block);
}

/// Every member other than the root sends (toRoot) or receives `block`.
static TransferSet rooted(llvm::ArrayRef<RankId> group, RankId root,
                          int64_t block, bool toRoot) {
  std::vector<Demand> demands;
  if (block > 0)
    for (RankId r : group)
      if (r != root)
        demands.push_back(toRoot ? Demand{r, root, block}
                                 : Demand{root, r, block});
  return TransferSet(std::move(demands));
}

FailureOr<TransferSet> Collective::lower(std::string &error) const {
  if (failed(checkGroup(group, -1, error)))
    return failure();
  int64_t p = numMembers();
  // Predict before allocating or working: an all-to-all's demands are held
  // by rule, but an algorithm that lists every transfer, the verifier (a
  // byte per pair) and every pass over the schedule still grow with them.
  if (int64_t pairs = maxPairs(kind, isElementPermute(), p);
      pairs > maxTransfers) {
    error = llvm::formatv("{0} members make up to {1} transfers, more than "
                          "the limit of {2} (--max-transfers=N raises it; "
                          "an algorithm that lists every transfer takes a "
                          "few hundred bytes for each)",
                          p, pairs, maxTransfers)
                .str();
    return failure();
  }
  switch (kind) {
  case CollectiveKind::Alltoall:
  case CollectiveKind::Allgather:
    // A direct allgather moves the traffic of an alltoall: every member's
    // block to every other member (the data differ, the traffic does not).
    if (failed(checkSize(blockBytes, "the block size", error)))
      return failure();
    return allPairs(group, blockBytes);
  case CollectiveKind::Alltoallv: {
    if (static_cast<int64_t>(sizes.size()) != p * p) {
      error = llvm::formatv("alltoallv needs {0} x {0} = {1} sizes, got {2}", p,
                            p * p, sizes.size())
                  .str();
      return failure();
    }
    std::vector<Demand> demands;
    for (int64_t i = 0; i < p; ++i)
      for (int64_t j = 0; j < p; ++j) {
        int64_t b = sizes[i * p + j];
        if (b < 0) {
          error = llvm::formatv("alltoallv size [{0}][{1}] is negative ({2})",
                                i, j, b)
                      .str();
          return failure();
        }
        if (i != j && b > 0)
          demands.push_back({group[i], group[j], b});
      }
    return TransferSet(std::move(demands));
  }
  case CollectiveKind::Transpose: {
    // Both by rows: member i owns R/P rows of A and C/P rows of B = A^T, so
    // every pair exchanges an (R/P) x (C/P) block: the traffic of an
    // all-to-all, square or not. Both by cols likewise (member i owns C/P
    // columns of A and R/P of B). From rows to cols, B's columns are A's
    // rows: member i already owns what it needs, and so from cols to rows.
    if (!from || from->shape.size() != 2) {
      error = "transpose needs a 2-d source array";
      return failure();
    }
    int64_t rows = from->shape[0], cols = from->shape[1];
    if (rows <= 0 || cols <= 0 || from->elementBytes <= 0) {
      error = "transpose needs positive array extents and element size";
      return failure();
    }
    if (to && to->distribution != from->distribution) {
      int64_t extent = from->distribution == Distribution::Rows ? rows : cols;
      if (extent % p) {
        error =
            llvm::formatv("transpose of a {0} x {1} array by {2}: {3} do "
                          "not divide evenly over {4} ranks",
                          rows, cols, stringifyDistribution(from->distribution),
                          extent, p)
                .str();
        return failure();
      }
      return TransferSet(std::vector<Demand>{});
    }
    if (rows % p || cols % p) {
      error = llvm::formatv("transpose of a {0} x {1} array: the extents do "
                            "not both divide evenly over {2} ranks",
                            rows, cols, p)
                  .str();
      return failure();
    }
    int64_t block = 0;
    if (failed(mulChecked(rows / p, cols / p, block, error)) ||
        failed(mulChecked(block, from->elementBytes, block, error)))
      return failure();
    return allPairs(group, block);
  }
  case CollectiveKind::Permute: {
    if (!isElementPermute()) {
      if (failed(checkSize(blockBytes, "the block size", error)))
        return failure();
      FailureOr<llvm::ArrayRef<int64_t>> perm = getPermutation(error);
      if (failed(perm))
        return failure();
      std::vector<Demand> demands;
      if (blockBytes > 0)
        for (int64_t i = 0; i < p; ++i)
          demands.push_back({group[i], group[(*perm)[i]], blockBytes});
      return TransferSet(std::move(demands));
    }
    const ArrayLayout &dst = to ? *to : *from;
    if (failed(checkLayout(*from, p, "permute", error)) ||
        failed(checkLayout(dst, p, "permute", error)))
      return failure();
    if (dst.numElements() != from->numElements() ||
        dst.elementBytes != from->elementBytes) {
      error = "a permute's arrays must have the same elements";
      return failure();
    }
    if (permutation.kind == PermuteKind::Runtime)
      return allPairs(group, runtimePairBytes());
    FailureOr<llvm::ArrayRef<int64_t>> perm = getPermutation(error);
    if (failed(perm))
      return failure();
    // Element e moves from its owner in `from` to the owner of position
    // perm[e] in `to`; count elements per (owner, destination owner).
    llvm::DenseMap<uint64_t, int64_t> counts;
    for (int64_t e = 0, n = from->numElements(); e < n; ++e) {
      uint64_t s = from->owner(e, p), d = dst.owner((*perm)[e], p);
      if (s != d)
        ++counts[(s << 32) | d];
    }
    std::vector<Demand> demands;
    demands.reserve(counts.size());
    for (auto &[key, count] : counts)
      demands.push_back({group[key >> 32], group[key & 0xffffffffu],
                         count * from->elementBytes});
    return TransferSet(std::move(demands)); // canonical order, not map order
  }
  case CollectiveKind::Gather:
  case CollectiveKind::AllToOne:
  case CollectiveKind::Scatter:
  case CollectiveKind::OneToAll: {
    if (failed(checkSize(blockBytes, "the block size", error)) ||
        failed(rootIndex(group, root, error)))
      return failure();
    bool toRoot = getTraits(kind).recv.rootOnly();
    return rooted(group, root, blockBytes, toRoot);
  }
  case CollectiveKind::Barrier:
  case CollectiveKind::Local:
    return TransferSet();
  default:
    break;
  }
  // The kinds only relaying implements (a new one needs no case here).
  assert(getTraits(kind).relays && "a direct kind without its traffic");
  error = ("'" + stringifyCollectiveKind(kind) +
           "' forwards or combines data: it has no direct traffic (phasec "
           "schedules it by relaying)")
              .str();
  return failure();
}

llvm::StringRef Collective::getKindName(CollectiveKind kind,
                                        bool elementPermute) {
  if (getTraits(kind).shape == DataShape::Permutation && !elementPermute)
    return "rank_permute";
  return stringifyCollectiveKind(kind);
}

CopyPattern Collective::getCopyPattern(CollectiveKind kind,
                                       bool elementPermute) {
  DataShape shape = getTraits(kind).shape;
  if (shape == DataShape::Matrix)
    return CopyPattern::Strided;
  if (shape == DataShape::Permutation && elementPermute)
    return CopyPattern::Gather;
  return CopyPattern::Contiguous;
}
