//===- CollectivesTest.cpp - Collective::lower, the traffic of operations -===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Collective.h"

#include "TestUtil.h"

#include <set>

using namespace phasec;

namespace {

/// A collective of `kind` over `group` with `block` bytes per block.
Collective make(CollectiveKind kind, std::vector<RankId> group,
                int64_t block = 0, RankId root = -1) {
  Collective c;
  c.kind = kind;
  c.group = std::move(group);
  c.blockBytes = block;
  c.root = root;
  return c;
}

/// A 2-d array of `rows` x `cols` elements of `bytes` bytes.
ArrayLayout array(int64_t rows, int64_t cols, int64_t bytes,
                  Distribution dist = Distribution::Rows) {
  ArrayLayout a;
  a.shape = {rows, cols};
  a.elementBytes = bytes;
  a.distribution = dist;
  return a;
}

TEST(Collectives, AlltoallOverASubgroup) {
  std::string error;
  auto s = make(CollectiveKind::Alltoall, {1, 4, 6}, 8).lower(error);
  ASSERT_TRUE(succeeded(s)) << error;
  ASSERT_EQ(s->size(), 6u);
  EXPECT_EQ(s->lookup(4, 1), 8);
  EXPECT_EQ(s->lookup(1, 1), 0);
  EXPECT_EQ(s->uniformBytes(), 8);
}

TEST(Collectives, GroupErrors) {
  std::string error;
  EXPECT_TRUE(failed(make(CollectiveKind::Alltoall, {}, 8).lower(error)));
  EXPECT_EQ(error, "the group is empty");
  EXPECT_TRUE(failed(make(CollectiveKind::Alltoall, {3, 1}, 8).lower(error)));
  EXPECT_EQ(error, "the group must be sorted");
  EXPECT_TRUE(failed(make(CollectiveKind::Alltoall, {1, 1}, 8).lower(error)));
  EXPECT_EQ(error, "rank 1 appears twice in the group");
  EXPECT_TRUE(failed(checkGroup({0, 9}, 8, error)));
  EXPECT_EQ(error, "rank 9 of the group is out of range");
  EXPECT_TRUE(failed(make(CollectiveKind::Alltoall, {0, 1}, -1).lower(error)));
  EXPECT_EQ(error, "the block size must not be negative (got -1)");
}

TEST(Collectives, Alltoallv) {
  std::string error;
  Collective v = make(CollectiveKind::Alltoallv, {0, 2});
  v.sizes = {5, 1, 0, 9};
  auto s = v.lower(error);
  ASSERT_TRUE(succeeded(s)) << error;
  ASSERT_EQ(s->size(), 1u); // 2 -> 0 is 0 bytes, diagonals are local
  EXPECT_EQ(s->lookup(0, 2), 1);
  v.sizes = {1, 2, 3};
  EXPECT_TRUE(failed(v.lower(error)));
  EXPECT_EQ(error, "alltoallv needs 2 x 2 = 4 sizes, got 3");
  v.sizes = {0, -1, 0, 0};
  EXPECT_TRUE(failed(v.lower(error)));
  EXPECT_EQ(error, "alltoallv size [0][1] is negative (-1)");
}

TEST(Collectives, Transpose) {
  std::string error;
  // 8 x 8 doubles over 4 ranks: (8/4)^2 * 8 = 32 bytes per pair.
  Collective t = make(CollectiveKind::Transpose, {0, 1, 2, 3});
  t.from = array(8, 8, 8);
  auto s = t.lower(error);
  ASSERT_TRUE(succeeded(s)) << error;
  EXPECT_EQ(s->size(), 12u);
  EXPECT_EQ(s->uniformBytes(), 32);
  // Rectangular: an all-to-all of (8/4) x (12/4) blocks, 6 doubles each.
  t.from = array(8, 12, 8);
  s = t.lower(error);
  ASSERT_TRUE(succeeded(s)) << error;
  EXPECT_EQ(s->uniformBytes(), 48);
  t.group = {0, 1, 2};
  t.from = array(8, 8, 8);
  EXPECT_TRUE(failed(t.lower(error)));
  EXPECT_EQ(error, "transpose of a 8 x 8 array: the extents do not both "
                   "divide evenly over 3 ranks");
}

TEST(Collectives, Splitmix64IsTheReferenceGenerator) {
  // Reference values of splitmix64 seeded with 0 (Vigna's splitmix64.c).
  uint64_t state = 0;
  EXPECT_EQ(splitmix64(state), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(splitmix64(state), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(splitmix64(state), 0x06c45d188009454fULL);
}

TEST(Collectives, Permutations) {
  std::string error;
  PermutationSpec rev;
  rev.kind = PermuteKind::BitReversal;
  auto p = makePermutation(8, rev, error);
  ASSERT_TRUE(succeeded(p)) << error;
  EXPECT_EQ(*p, (std::vector<int64_t>{0, 4, 2, 6, 1, 5, 3, 7}));
  EXPECT_TRUE(failed(makePermutation(6, rev, error)));

  PermutationSpec x;
  x.kind = PermuteKind::Xor;
  x.mask = 5;
  p = makePermutation(8, x, error);
  ASSERT_TRUE(succeeded(p)) << error;
  EXPECT_EQ(*p, (std::vector<int64_t>{5, 4, 7, 6, 1, 0, 3, 2}));

  PermutationSpec c;
  c.kind = PermuteKind::Shift;
  c.shift = -1;
  p = makePermutation(4, c, error);
  ASSERT_TRUE(succeeded(p)) << error;
  EXPECT_EQ(*p, (std::vector<int64_t>{3, 0, 1, 2}));

  PermutationSpec t;
  t.kind = PermuteKind::Table;
  t.table = {1, 1, 0};
  EXPECT_TRUE(failed(makePermutation(3, t, error)));
  EXPECT_EQ(error, "the permutation table is not a permutation of 0..2: entry "
                   "1 is 1");

  // Random: a permutation, deterministic, seed-dependent.
  PermutationSpec r;
  r.seed = 42;
  auto a = makePermutation(1000, r, error);
  auto b = makePermutation(1000, r, error);
  ASSERT_TRUE(succeeded(a) && succeeded(b));
  EXPECT_EQ(*a, *b);
  std::vector<int64_t> sorted = *a;
  llvm::sort(sorted);
  for (int64_t i = 0; i < 1000; ++i)
    ASSERT_EQ(sorted[i], i);
  r.seed = 43;
  EXPECT_NE(*makePermutation(1000, r, error), *a);
  // Small case pinned: Fisher-Yates with splitmix64(seed 0) on 4 elements.
  r.seed = 0;
  auto small = makePermutation(4, r, error);
  ASSERT_TRUE(succeeded(small));
  std::vector<int64_t> expect = {0, 1, 2, 3};
  uint64_t st = 0;
  for (int64_t i = 3; i > 0; --i)
    std::swap(expect[i], expect[splitmix64(st) % (i + 1)]);
  EXPECT_EQ(*small, expect);
}

TEST(Collectives, ElementPermutationGroupsPerPair) {
  std::string error;
  PermutationSpec rev;
  rev.kind = PermuteKind::BitReversal;
  // 8 elements of 4 bytes over ranks {10, 20}: rank 10 owns 0..3, 20 owns
  // 4..7. perm = 0 4 2 6 | 1 5 3 7: 10 sends elements 1, 3 (to 4, 6) and 20
  // sends elements 4, 6 (to 1, 3).
  Collective perm = make(CollectiveKind::Permute, {10, 20});
  perm.permutation = rev;
  perm.from = array(8, 1, 4);
  auto s = perm.lower(error);
  ASSERT_TRUE(succeeded(s)) << error;
  ASSERT_EQ(s->size(), 2u);
  EXPECT_EQ(s->lookup(10, 20), 8);
  EXPECT_EQ(s->lookup(20, 10), 8);
  perm.group = {0, 1, 2};
  EXPECT_TRUE(failed(perm.lower(error)));
  EXPECT_EQ(error, "permute: 8 rows do not divide evenly over 3 ranks");
}

TEST(Collectives, ElementPermutationFollowsTheDistribution) {
  // Two uint32 [2, 2] arrays by cols over two ranks, shift(1): rank 0 owns
  // elements 0 and 2 (column 0), rank 1 owns 1 and 3. Every element moves
  // to the other rank: 8 bytes each way. (By rows, elements 0 -> 1 and
  // 2 -> 3 would stay local: 4 bytes each way.)
  std::string error;
  Collective perm = make(CollectiveKind::Permute, {0, 1});
  perm.permutation.kind = PermuteKind::Shift;
  perm.permutation.shift = 1;
  perm.from = perm.to = array(2, 2, 4, Distribution::Cols);
  auto s = perm.lower(error);
  ASSERT_TRUE(succeeded(s)) << error;
  EXPECT_EQ(s->lookup(0, 1), 8);
  EXPECT_EQ(s->lookup(1, 0), 8);
  perm.from = perm.to = array(2, 2, 4, Distribution::Rows);
  s = perm.lower(error);
  ASSERT_TRUE(succeeded(s)) << error;
  EXPECT_EQ(s->lookup(0, 1), 4);
  EXPECT_EQ(s->lookup(1, 0), 4);
  // Layouts: the owner of each element of a 4 x 6 array over 2 members.
  ArrayLayout cols = array(4, 6, 1, Distribution::Cols);
  EXPECT_EQ(cols.owner(0, 2), 0);
  EXPECT_EQ(cols.owner(3, 2), 1);
  EXPECT_EQ(cols.owner(6, 2), 0);
  ArrayLayout rows = array(4, 6, 1);
  EXPECT_EQ(rows.owner(11, 2), 0);
  EXPECT_EQ(rows.owner(12, 2), 1);
}

TEST(Collectives, RuntimePermutationIsTheExpectedAllToAll) {
  // Run-time destinations: 3 members of 10 uint64 each (30 elements), every
  // pair the ceil(30 / 9) = 4 elements a uniformly random permutation moves
  // on average; no permutation to materialise.
  std::string error;
  Collective perm = make(CollectiveKind::Permute, {1, 4, 6});
  perm.permutation.kind = PermuteKind::Runtime;
  perm.from = perm.to = array(30, 1, 8);
  EXPECT_EQ(perm.runtimePairBytes(), 32);
  auto s = perm.lower(error);
  ASSERT_TRUE(succeeded(s)) << error;
  EXPECT_EQ(s->size(), 6u);
  EXPECT_EQ(s->lookup(1, 6), 32);
  EXPECT_EQ(s->lookup(6, 4), 32);
  EXPECT_TRUE(failed(perm.getPermutation(error)));
  EXPECT_EQ(error, "a permutation with run-time destinations has no table "
                   "before it runs");
  // Fewer elements than pairs: one element a pair.
  perm.from = perm.to = array(3, 1, 8);
  EXPECT_EQ(perm.runtimePairBytes(), 8);
}

TEST(Collectives, RankPermutation) {
  std::string error;
  PermutationSpec c;
  c.kind = PermuteKind::Shift;
  c.shift = 1;
  Collective perm = make(CollectiveKind::Permute, {0, 2, 4}, 16);
  perm.permutation = c;
  auto s = perm.lower(error);
  ASSERT_TRUE(succeeded(s)) << error;
  ASSERT_EQ(s->size(), 3u);
  EXPECT_EQ(s->lookup(0, 2), 16);
  EXPECT_EQ(s->lookup(4, 0), 16);
}

TEST(Collectives, RootedOperations) {
  std::string error;
  auto g = make(CollectiveKind::Gather, {0, 1, 2, 3}, 8, 2).lower(error);
  ASSERT_TRUE(succeeded(g)) << error;
  EXPECT_EQ(g->size(), 3u);
  EXPECT_EQ(g->lookup(0, 2), 8);
  auto sc = make(CollectiveKind::Scatter, {0, 1, 2, 3}, 8, 2).lower(error);
  ASSERT_TRUE(succeeded(sc)) << error;
  EXPECT_EQ(sc->lookup(2, 3), 8);
  EXPECT_TRUE(
      *make(CollectiveKind::OneToAll, {0, 1, 2, 3}, 8, 2).lower(error) == *sc);
  EXPECT_TRUE(
      *make(CollectiveKind::AllToOne, {0, 1, 2, 3}, 8, 2).lower(error) == *g);
  EXPECT_EQ(make(CollectiveKind::Allgather, {0, 1, 2}, 4).lower(error)->size(),
            6u);
  EXPECT_TRUE(failed(make(CollectiveKind::Gather, {0, 1}, 8, 5).lower(error)));
  EXPECT_EQ(error, "root rank 5 is not in the group");
}

TEST(Collectives, RelayingKindsHaveNoDirectTraffic) {
  std::string error;
  for (CollectiveKind kind :
       {CollectiveKind::Broadcast, CollectiveKind::Reduce,
        CollectiveKind::Allreduce, CollectiveKind::ReduceScatter,
        CollectiveKind::Scan, CollectiveKind::Exscan}) {
    EXPECT_TRUE(needsRelaying(kind));
    EXPECT_TRUE(failed(make(kind, {0, 1, 2}, 4, 0).lower(error)));
    EXPECT_EQ(error, "'" + stringifyCollectiveKind(kind).str() +
                         "' forwards or combines data: it has no direct "
                         "traffic (phasec schedules it by relaying)");
  }
  // Barriers move nothing.
  auto none = make(CollectiveKind::Barrier, {0, 1, 2}).lower(error);
  ASSERT_TRUE(succeeded(none)) << error;
  EXPECT_TRUE(none->empty());
}

// The traits table agrees with itself and with what the rest of phasec
// does with each kind: a reduction is in the reduction family and relays;
// a kind with chunk semantics that relays has relaying algorithms; the
// rooted kinds are the ones whose Collective needs a root; MPI names are
// unique.
TEST(Collectives, TraitsTableIsConsistent) {
  std::set<std::string> mpiNames;
  for (unsigned v = 0; v <= getMaxEnumValForCollectiveKind(); ++v) {
    auto kind = static_cast<CollectiveKind>(v);
    const CollectiveTraits &t = getTraits(kind);
    SCOPED_TRACE(stringifyCollectiveKind(kind).str());
    EXPECT_EQ(t.kind, kind);
    EXPECT_EQ(t.reduces, t.family == CollectiveFamily::Reduction);
    EXPECT_EQ(isReduction(kind), t.reduces);
    if (t.reduces)
      EXPECT_TRUE(t.relays);
    if (t.prefix)
      EXPECT_TRUE(t.reduces);
    if (t.relays)
      EXPECT_FALSE(t.relayAlgorithms.empty());
    if (t.family == CollectiveFamily::Rooted)
      EXPECT_TRUE(t.rooted);
    if (t.mpiName)
      EXPECT_TRUE(mpiNames.insert(t.mpiName).second) << t.mpiName;
    // The buffers: a root holds a side exactly where the kind is rooted
    // (an exclusive prefix is the one kind whose first member gets
    // nothing); no data exactly for the dataless kinds.
    EXPECT_EQ(t.send.rootOnly() || t.recv.rootOnly(), t.rooted);
    EXPECT_EQ(t.send.holders == DataHolders::AllButFirst, false);
    EXPECT_EQ(t.recv.holders == DataHolders::AllButFirst,
              t.prefix && kind == CollectiveKind::Exscan);
    EXPECT_EQ(t.send.part == DataPart::None,
              t.family == CollectiveFamily::Dataless);
    EXPECT_EQ(t.recv.part == DataPart::None,
              t.family == CollectiveFamily::Dataless);
    EXPECT_EQ(t.shape == DataShape::None,
              t.family == CollectiveFamily::Dataless);
    // Chunks cut per pair where both sides hold a block per member of
    // blocks; per member where one side does.
    if (t.shape == DataShape::Blocks && t.chunkParts != ChunkParts::One) {
      bool sendPer = t.send.part == DataPart::PerMember;
      bool recvPer = t.recv.part == DataPart::PerMember;
      EXPECT_EQ(t.chunkParts == ChunkParts::PerPair, sendPer && recvPer);
      EXPECT_EQ(t.chunkParts == ChunkParts::PerMember, sendPer != recvPer);
    }
    if (t.chunkParts == ChunkParts::One && t.shape == DataShape::Blocks) {
      EXPECT_EQ(t.send.part, DataPart::Whole);
      EXPECT_EQ(t.recv.part, DataPart::Whole);
    }
    // What generated code implements it as is a kind of the same data.
    const CollectiveTraits &as = getTraits(t.generatedAs);
    EXPECT_EQ(as.generatedAs, t.generatedAs);
    EXPECT_EQ(as.send.part, t.send.part);
    EXPECT_EQ(as.recv.part, t.recv.part);
    EXPECT_EQ(as.shape, t.shape);
  }
  EXPECT_TRUE(isRooted(CollectiveKind::Gather));
  EXPECT_FALSE(isRooted(CollectiveKind::Allgather));
  EXPECT_TRUE(isPrefix(CollectiveKind::Exscan));
  EXPECT_FALSE(isPrefix(CollectiveKind::Allreduce));
  EXPECT_EQ(getChunkParts(CollectiveKind::Alltoall, 4), 16);
  EXPECT_EQ(getChunkParts(CollectiveKind::Transpose, 4), 0);
}

} // namespace
