//===- CollectivesTest.cpp - Lowering collectives to transfers ------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Collectives.h"

#include "TestUtil.h"

using namespace phasec;

namespace {

TEST(Collectives, AlltoallOverASubgroup) {
  std::string error;
  auto s = buildAlltoall({1, 4, 6}, 8, error);
  ASSERT_TRUE(succeeded(s)) << error;
  ASSERT_EQ(s->size(), 6u);
  EXPECT_EQ(s->lookup(4, 1), 8);
  EXPECT_EQ(s->lookup(1, 1), 0);
  EXPECT_EQ(s->uniformBytes(), 8);
}

TEST(Collectives, GroupErrors) {
  std::string error;
  EXPECT_TRUE(failed(buildAlltoall({}, 8, error)));
  EXPECT_EQ(error, "the group is empty");
  EXPECT_TRUE(failed(buildAlltoall({3, 1}, 8, error)));
  EXPECT_EQ(error, "the group must be sorted");
  EXPECT_TRUE(failed(buildAlltoall({1, 1}, 8, error)));
  EXPECT_EQ(error, "rank 1 appears twice in the group");
  EXPECT_TRUE(failed(checkGroup({0, 9}, 8, error)));
  EXPECT_EQ(error, "rank 9 of the group is out of range");
  EXPECT_TRUE(failed(buildAlltoall({0, 1}, -1, error)));
  EXPECT_EQ(error, "the block size must not be negative (got -1)");
}

TEST(Collectives, Alltoallv) {
  std::string error;
  auto s = buildAlltoallv({0, 2}, {5, 1, 0, 9}, error);
  ASSERT_TRUE(succeeded(s)) << error;
  ASSERT_EQ(s->size(), 1u); // 2 -> 0 is 0 bytes, diagonals are local
  EXPECT_EQ(s->lookup(0, 2), 1);
  EXPECT_TRUE(failed(buildAlltoallv({0, 2}, {1, 2, 3}, error)));
  EXPECT_EQ(error, "alltoallv needs 2 x 2 = 4 sizes, got 3");
  EXPECT_TRUE(failed(buildAlltoallv({0, 2}, {0, -1, 0, 0}, error)));
  EXPECT_EQ(error, "alltoallv size [0][1] is negative (-1)");
}

TEST(Collectives, Transpose) {
  std::string error;
  // 8 x 8 doubles over 4 ranks: (8/4)^2 * 8 = 32 bytes per pair.
  auto s = buildTranspose({0, 1, 2, 3}, 8, 8, error);
  ASSERT_TRUE(succeeded(s)) << error;
  EXPECT_EQ(s->size(), 12u);
  EXPECT_EQ(s->uniformBytes(), 32);
  EXPECT_TRUE(failed(buildTranspose({0, 1, 2}, 8, 8, error)));
  EXPECT_EQ(error, "transpose of a 8 x 8 array: 8 rows do not divide evenly "
                   "over 3 ranks");
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
  rev.kind = PermutationSpec::BitReversal;
  auto p = makePermutation(8, rev, error);
  ASSERT_TRUE(succeeded(p)) << error;
  EXPECT_EQ(*p, (std::vector<int64_t>{0, 4, 2, 6, 1, 5, 3, 7}));
  EXPECT_TRUE(failed(makePermutation(6, rev, error)));

  PermutationSpec x;
  x.kind = PermutationSpec::XorMask;
  x.mask = 5;
  p = makePermutation(8, x, error);
  ASSERT_TRUE(succeeded(p)) << error;
  EXPECT_EQ(*p, (std::vector<int64_t>{5, 4, 7, 6, 1, 0, 3, 2}));

  PermutationSpec c;
  c.kind = PermutationSpec::CyclicShift;
  c.shift = -1;
  p = makePermutation(4, c, error);
  ASSERT_TRUE(succeeded(p)) << error;
  EXPECT_EQ(*p, (std::vector<int64_t>{3, 0, 1, 2}));

  PermutationSpec t;
  t.kind = PermutationSpec::Table;
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
  rev.kind = PermutationSpec::BitReversal;
  // 8 elements of 4 bytes over ranks {10, 20}: rank 10 owns 0..3, 20 owns
  // 4..7. perm = 0 4 2 6 | 1 5 3 7: 10 sends elements 1, 3 (to 4, 6) and 20
  // sends elements 4, 6 (to 1, 3).
  auto s = buildElementPermutation({10, 20}, 8, 4, rev, error);
  ASSERT_TRUE(succeeded(s)) << error;
  ASSERT_EQ(s->size(), 2u);
  EXPECT_EQ(s->lookup(10, 20), 8);
  EXPECT_EQ(s->lookup(20, 10), 8);
  EXPECT_TRUE(failed(buildElementPermutation({0, 1, 2}, 8, 4, rev, error)));
  EXPECT_EQ(error, "8 elements do not divide evenly over 3 ranks");
}

TEST(Collectives, RankPermutation) {
  std::string error;
  PermutationSpec c;
  c.kind = PermutationSpec::CyclicShift;
  c.shift = 1;
  auto s = buildRankPermutation({0, 2, 4}, 16, c, error);
  ASSERT_TRUE(succeeded(s)) << error;
  ASSERT_EQ(s->size(), 3u);
  EXPECT_EQ(s->lookup(0, 2), 16);
  EXPECT_EQ(s->lookup(4, 0), 16);
}

TEST(Collectives, RootedOperations) {
  std::string error;
  auto g = buildGather({0, 1, 2, 3}, 2, 8, error);
  ASSERT_TRUE(succeeded(g)) << error;
  EXPECT_EQ(g->size(), 3u);
  EXPECT_EQ(g->lookup(0, 2), 8);
  auto sc = buildScatter({0, 1, 2, 3}, 2, 8, error);
  ASSERT_TRUE(succeeded(sc)) << error;
  EXPECT_EQ(sc->lookup(2, 3), 8);
  EXPECT_TRUE(*buildOneToAll({0, 1, 2, 3}, 2, 8, error) == *sc);
  EXPECT_TRUE(*buildAllToOne({0, 1, 2, 3}, 2, 8, error) == *g);
  EXPECT_EQ(buildAllgather({0, 1, 2}, 4, error)->size(), 6u);
  EXPECT_TRUE(failed(buildGather({0, 1}, 5, 8, error)));
  EXPECT_EQ(error, "root rank 5 is not in the group");
}

TEST(Collectives, DispatchAndUnsupported) {
  std::string error;
  CollectiveRequest req;
  req.op = "alltoall";
  req.group = {0, 1, 2};
  req.bytes = 4;
  auto s = buildCollective(req, error);
  ASSERT_TRUE(succeeded(s)) << error;
  EXPECT_EQ(s->size(), 6u);
  for (const char *op : {"broadcast", "reduce", "allreduce", "scan"}) {
    req.op = op;
    EXPECT_TRUE(failed(buildCollective(req, error)));
    EXPECT_EQ(error, std::string("not yet supported: ") + op +
                         " needs relays (a later issue)");
  }
  req.op = "frobnicate";
  EXPECT_TRUE(failed(buildCollective(req, error)));
  EXPECT_EQ(error, "unknown collective operation 'frobnicate'");
}

} // namespace
