//===- BaselinesTest.cpp - Shift, XOR and greedy schedules verify ---------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Baselines.h"
#include "phasec/Scheduling/Bounds.h"

#include "TestUtil.h"

using namespace phasec;
using namespace phasec::test;

namespace {

void expectAllVerify(const Problem &p, bool powerOfTwo) {
  std::string error;
  llvm::SmallVector<ScheduleViolation> vs;
  double bound = computeLowerBound(p).time;
  Schedule s;
  ASSERT_TRUE(succeeded(scheduleLinearShift(p, s, error))) << error;
  EXPECT_EQ(s.algorithm, "linear_shift");
  EXPECT_TRUE(succeeded(p.verify(s, vs))) << describe(vs);
  EXPECT_GE(s.time(p.topology()), bound * (1 - 1e-12));
  ASSERT_TRUE(succeeded(scheduleGreedy(p, s, error))) << error;
  EXPECT_EQ(s.algorithm, "greedy");
  EXPECT_TRUE(succeeded(p.verify(s, vs))) << describe(vs);
  EXPECT_GE(s.time(p.topology()), bound * (1 - 1e-12));
  if (powerOfTwo) {
    ASSERT_TRUE(succeeded(scheduleXor(p, s, error))) << error;
    EXPECT_EQ(s.algorithm, "xor");
    EXPECT_TRUE(succeeded(p.verify(s, vs))) << describe(vs);
  } else {
    EXPECT_TRUE(failed(scheduleXor(p, s, error)));
    EXPECT_NE(error.find("power-of-two number of ranks"), std::string::npos);
  }
}

TEST(Baselines, AlltoallOnEveryTopology) {
  for (const char *spec :
       {"torus:4x4", "torus:5x3", "torus:2x2x2", "torus:8;ranks=2", "mesh:4x4",
        "mesh:3x5", "hypercube:4",
        "percs:supernodes=1,drawers=2,nodes=4,ranks=2",
        "percs:supernodes=2,drawers=2,nodes=2"}) {
    SCOPED_TRACE(spec);
    Topology t = makeTopology(spec);
    Problem p(t, alltoall(t, 64));
    int64_t r = t.numRanks();
    expectAllVerify(p, (r & (r - 1)) == 0);
  }
}

TEST(Baselines, OnePortBoundIsAcceptedByVerify) {
  // Greedy on a hypercube sends several blocks per node per phase: its link
  // time (50) is below the one-port bound (63), but its one-port time is not.
  Topology t = makeTopology("hypercube:6");
  Problem p(t, alltoall(t, 1));
  Schedule s;
  std::string error;
  ASSERT_TRUE(succeeded(scheduleGreedy(p, s, error))) << error;
  s.bound = computeLowerBound(p, BoundOptions{true});
  EXPECT_DOUBLE_EQ(s.bound.blocks, 63);
  EXPECT_LT(s.time(t), 63);
  EXPECT_GE(s.timeWithInjection(t, 1.0), 63);
  llvm::SmallVector<ScheduleViolation> vs;
  EXPECT_TRUE(succeeded(p.verify(s, vs))) << describe(vs);
}

TEST(Baselines, HypercubeXorIsOptimal) {
  // On a hypercube with dimension-order routing the XOR exchange is
  // congestion-free step by step: P-1 phases.
  Topology t = makeTopology("hypercube:4");
  Problem p(t, alltoall(t, 1));
  Schedule s;
  std::string error;
  ASSERT_TRUE(succeeded(scheduleXor(p, s, error))) << error;
  EXPECT_EQ(s.phases.size(), 15u);
  EXPECT_DOUBLE_EQ(s.time(t), 15);
}

TEST(Baselines, GreedyOnT3D) {
  Topology t = makeTopology("torus:8x4x8x2");
  Problem p(t, alltoall(t, 1));
  Schedule s;
  std::string error;
  ASSERT_TRUE(succeeded(scheduleGreedy(p, s, error))) << error;
  llvm::SmallVector<ScheduleViolation> vs;
  EXPECT_TRUE(succeeded(p.verify(s, vs))) << describe(vs);
  EXPECT_EQ(s.numTransfers(), 512u * 511);
  // One source may send several transfers over a link in one phase, so the
  // phase count can be below the bound; the time cannot.
  EXPECT_GE(s.time(t), 512);
  EXPECT_DOUBLE_EQ(s.bound.blocks, 512);
}

TEST(Baselines, IrregularTransferSets) {
  Topology t = makeTopology("torus:4x4;ranks=2");
  std::string error;
  PermutationSpec r;
  r.seed = 7;
  auto perm = buildElementPermutation(allRanks(t), 32 * 64, 8, r, error);
  ASSERT_TRUE(succeeded(perm)) << error;
  expectAllVerify(Problem(t, *perm), true);
  std::vector<int64_t> sizes(32 * 32);
  uint64_t st = 1;
  for (int64_t &v : sizes)
    v = splitmix64(st) % 1000;
  auto v = buildAlltoallv(allRanks(t), sizes, error);
  ASSERT_TRUE(succeeded(v)) << error;
  expectAllVerify(Problem(t, *v), true);
}

TEST(Baselines, PackFirstFitKeepsEarlierPhases) {
  Topology t = makeTopology("torus:4");
  Schedule s;
  s.phases.push_back({{{0, 1, 1}}});
  Transfer ts[] = {{1, 2, 1}, {0, 1, 1}};
  packFirstFit(t, ts, s);
  // Both new transfers go to one new phase; phase 0 is untouched.
  ASSERT_EQ(s.phases.size(), 2u);
  EXPECT_EQ(s.phases[0].transfers.size(), 1u);
  EXPECT_EQ(s.phases[1].transfers.size(), 2u);
}

TEST(Baselines, RejectsBadProblems) {
  Topology t = makeTopology("torus:4");
  Problem p(t, TransferSet({{0, 7, 1}}));
  Schedule s;
  std::string error;
  EXPECT_TRUE(failed(scheduleGreedy(p, s, error)));
  EXPECT_NE(error.find("rank out of range"), std::string::npos);
}

} // namespace
