//===- Collectives.cpp - Lowering collectives to transfer sets ------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Turns each operation of the language into the demands it implies. The
/// builders validate their arguments and report errors as text, so that the
/// MLIR lowering can attach them to a source location.
///
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Collectives.h"

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

FailureOr<TransferSet> phasec::buildAlltoall(llvm::ArrayRef<RankId> group,
                                             int64_t block,
                                             std::string &error) {
  if (failed(checkGroup(group, -1, error)) ||
      failed(checkSize(block, "the block size", error)))
    return failure();
  std::vector<Demand> demands;
  if (block > 0) {
    demands.reserve(group.size() * (group.size() - 1));
    for (RankId s : group)
      for (RankId d : group)
        if (s != d)
          demands.push_back({s, d, block});
  }
  return TransferSet(std::move(demands));
}

FailureOr<TransferSet> phasec::buildAlltoallv(llvm::ArrayRef<RankId> group,
                                              llvm::ArrayRef<int64_t> sizes,
                                              std::string &error) {
  if (failed(checkGroup(group, -1, error)))
    return failure();
  size_t n = group.size();
  if (sizes.size() != n * n) {
    error = llvm::formatv("alltoallv needs {0} x {0} = {1} sizes, got {2}", n,
                          n * n, sizes.size())
                .str();
    return failure();
  }
  std::vector<Demand> demands;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      int64_t b = sizes[i * n + j];
      if (b < 0) {
        error = llvm::formatv("alltoallv size [{0}][{1}] is negative ({2})", i,
                              j, b)
                    .str();
        return failure();
      }
      if (i != j && b > 0)
        demands.push_back({group[i], group[j], b});
    }
  return TransferSet(std::move(demands));
}

FailureOr<TransferSet> phasec::buildTranspose(llvm::ArrayRef<RankId> group,
                                              int64_t n, int64_t elemBytes,
                                              std::string &error) {
  if (failed(checkGroup(group, -1, error)))
    return failure();
  int64_t p = group.size();
  if (n <= 0 || elemBytes <= 0) {
    error = "transpose needs a positive array extent and element size";
    return failure();
  }
  if (n % p) {
    error = llvm::formatv("transpose of a {0} x {0} array: {0} rows do not "
                          "divide evenly over {1} ranks",
                          n, p)
                .str();
    return failure();
  }
  int64_t side = n / p, block;
  if (failed(mulChecked(side, side, block, error)) ||
      failed(mulChecked(block, elemBytes, block, error)))
    return failure();
  return buildAlltoall(group, block, error);
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
  case PermutationSpec::Random: {
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
  case PermutationSpec::BitReversal: {
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
  case PermutationSpec::XorMask:
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
  case PermutationSpec::CyclicShift: {
    int64_t s = spec.shift % n;
    if (s < 0)
      s += n;
    for (int64_t i = 0; i < n; ++i)
      perm[i] = (i + s) % n;
    return perm;
  }
  case PermutationSpec::Table: {
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

FailureOr<TransferSet> phasec::buildElementPermutation(
    llvm::ArrayRef<RankId> group, int64_t numElements, int64_t elemBytes,
    const PermutationSpec &spec, std::string &error) {
  if (failed(checkGroup(group, -1, error)))
    return failure();
  int64_t p = group.size();
  if (numElements <= 0 || elemBytes <= 0) {
    error = "a permutation needs a positive element count and element size";
    return failure();
  }
  if (numElements % p) {
    error = llvm::formatv("{0} elements do not divide evenly over {1} ranks",
                          numElements, p)
                .str();
    return failure();
  }
  auto perm = makePermutation(numElements, spec, error);
  if (failed(perm))
    return failure();
  int64_t per = numElements / p;
  // Count elements per (owner, destination owner) pair.
  llvm::DenseMap<uint64_t, int64_t> counts;
  for (int64_t i = 0; i < numElements; ++i) {
    uint64_t from = i / per, to = (*perm)[i] / per;
    if (from != to)
      ++counts[(from << 32) | to];
  }
  std::vector<Demand> demands;
  demands.reserve(counts.size());
  for (auto &[key, count] : counts)
    demands.push_back(
        {group[key >> 32], group[key & 0xffffffffu], count * elemBytes});
  return TransferSet(std::move(demands)); // canonical order, not map order
}

FailureOr<TransferSet>
phasec::buildRankPermutation(llvm::ArrayRef<RankId> group, int64_t block,
                             const PermutationSpec &spec, std::string &error) {
  if (failed(checkGroup(group, -1, error)) ||
      failed(checkSize(block, "the block size", error)))
    return failure();
  auto perm = makePermutation(group.size(), spec, error);
  if (failed(perm))
    return failure();
  std::vector<Demand> demands;
  if (block > 0)
    for (size_t i = 0; i < group.size(); ++i)
      demands.push_back({group[i], group[(*perm)[i]], block});
  return TransferSet(std::move(demands));
}

/// Every rank other than the root sends (toRoot) or receives `block` bytes.
static FailureOr<TransferSet> rooted(llvm::ArrayRef<RankId> group, RankId root,
                                     int64_t block, bool toRoot,
                                     std::string &error) {
  if (failed(checkGroup(group, -1, error)) ||
      failed(checkSize(block, "the block size", error)) ||
      failed(rootIndex(group, root, error)))
    return failure();
  std::vector<Demand> demands;
  if (block > 0)
    for (RankId r : group)
      if (r != root)
        demands.push_back(toRoot ? Demand{r, root, block}
                                 : Demand{root, r, block});
  return TransferSet(std::move(demands));
}

FailureOr<TransferSet> phasec::buildGather(llvm::ArrayRef<RankId> group,
                                           RankId root, int64_t block,
                                           std::string &error) {
  return rooted(group, root, block, /*toRoot=*/true, error);
}

FailureOr<TransferSet> phasec::buildScatter(llvm::ArrayRef<RankId> group,
                                            RankId root, int64_t block,
                                            std::string &error) {
  return rooted(group, root, block, /*toRoot=*/false, error);
}

FailureOr<TransferSet> phasec::buildAllgather(llvm::ArrayRef<RankId> group,
                                              int64_t block,
                                              std::string &error) {
  return buildAlltoall(group, block, error);
}

FailureOr<TransferSet> phasec::buildOneToAll(llvm::ArrayRef<RankId> group,
                                             RankId root, int64_t block,
                                             std::string &error) {
  return rooted(group, root, block, /*toRoot=*/false, error);
}

FailureOr<TransferSet> phasec::buildAllToOne(llvm::ArrayRef<RankId> group,
                                             RankId root, int64_t block,
                                             std::string &error) {
  return rooted(group, root, block, /*toRoot=*/true, error);
}

FailureOr<TransferSet> phasec::buildCollective(const CollectiveRequest &request,
                                               std::string &error) {
  llvm::StringRef op = request.op;
  if (op == "alltoall")
    return buildAlltoall(request.group, request.bytes, error);
  if (op == "alltoallv")
    return buildAlltoallv(request.group, request.sizes, error);
  if (op == "transpose")
    return buildTranspose(request.group, request.n, request.bytes, error);
  if (op == "permute")
    return buildElementPermutation(request.group, request.n, request.bytes,
                                   request.perm, error);
  if (op == "rank_permute")
    return buildRankPermutation(request.group, request.bytes, request.perm,
                                error);
  if (op == "gather")
    return buildGather(request.group, request.root, request.bytes, error);
  if (op == "scatter")
    return buildScatter(request.group, request.root, request.bytes, error);
  if (op == "allgather")
    return buildAllgather(request.group, request.bytes, error);
  if (op == "one_to_all")
    return buildOneToAll(request.group, request.root, request.bytes, error);
  if (op == "all_to_one")
    return buildAllToOne(request.group, request.root, request.bytes, error);
  if (op == "broadcast" || op == "reduce" || op == "allreduce" ||
      op == "scan") {
    error =
        ("not yet supported: " + op + " needs relays (a later issue)").str();
    return failure();
  }
  error = ("unknown collective operation '" + op + "'").str();
  return failure();
}
