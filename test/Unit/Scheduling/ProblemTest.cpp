//===- ProblemTest.cpp - TransferSet, Schedule::time, Problem::verify -----===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The verifier must catch every kind of broken schedule and name the phase,
/// the link and both transfers.
///
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Problem.h"

#include "TestUtil.h"

using namespace phasec;
using namespace phasec::test;

namespace {

TEST(TransferSet, Canonical) {
  TransferSet s;
  s.add(2, 1, 5);
  s.add(0, 3, 1);
  s.add(2, 1, 7);
  s.add(1, 1, 9); // local copy: dropped
  s.add(0, 2, 0); // nothing: dropped
  EXPECT_FALSE(s.isCanonical());
  s.canonicalize();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].src, 0);
  EXPECT_EQ(s[0].dst, 3);
  EXPECT_EQ(s[1].src, 2);
  EXPECT_EQ(s[1].bytes, 12);
  EXPECT_EQ(s.lookup(2, 1), 12);
  EXPECT_EQ(s.lookup(1, 2), 0);
  EXPECT_EQ(s.indexOf(0, 3), 0);
  EXPECT_EQ(s.totalBytes(), 13);
  EXPECT_FALSE(s.uniformBytes());
  EXPECT_EQ(s.maxRank(), 3);
  TransferSet same({{2, 1, 12}, {0, 3, 1}});
  EXPECT_TRUE(s == same);
}

TEST(Problem, Check) {
  Topology t = makeTopology("torus:4");
  std::string error;
  EXPECT_TRUE(succeeded(Problem(t, TransferSet({{0, 3, 1}})).check(error)));
  EXPECT_TRUE(failed(Problem(t, TransferSet({{0, 4, 1}})).check(error)));
  EXPECT_NE(error.find("rank out of range"), std::string::npos) << error;
  EXPECT_TRUE(failed(Problem(t, TransferSet({{0, 1, -3}})).check(error)));
  EXPECT_NE(error.find("negative size"), std::string::npos) << error;
}

/// Ring of 4, all-to-all of 1 byte: a correct 4-phase schedule by hand.
Schedule handSchedule() {
  Schedule s;
  // Phase 0: everyone sends one hop "+".
  s.phases.push_back({{{0, 1, 1}, {1, 2, 1}, {2, 3, 1}, {3, 0, 1}}});
  // Phase 1: one hop "-".
  s.phases.push_back({{{1, 0, 1}, {2, 1, 1}, {3, 2, 1}, {0, 3, 1}}});
  // Phases 2, 3: the ties (distance 2), two "+" and two "-" each.
  s.phases.push_back({{{0, 2, 1, 0}, {2, 0, 1, 0}}});
  s.phases.push_back({{{1, 3, 1, 1}, {3, 1, 1, 1}}});
  return s;
}

TEST(Problem, VerifyAcceptsCorrectSchedule) {
  Topology t = makeTopology("torus:4");
  Problem p(t, alltoall(t, 1));
  Schedule s = handSchedule();
  s.bound.time = 3;
  EXPECT_TRUE(verifies(p, s));
  // Every phase moves one byte over its busiest links.
  EXPECT_DOUBLE_EQ(p.costModel().time(s), 4);
  EXPECT_EQ(s.numTransfers(), 12u);
}

TEST(Problem, VerifyCatchesCongestion) {
  Topology t = makeTopology("torus:4");
  Problem p(t, alltoall(t, 1));
  Schedule s = handSchedule();
  // 1 -> 3 with "+" uses 1->2 and 2->3; put 0 -> 2 "+" (0->1, 1->2) in the
  // same phase: both use 1->2.
  s.phases[3].transfers[0].ties = 0;
  std::swap(s.phases[2].transfers[0], s.phases[3].transfers[1]);
  // Phase 2 now: 3->1 (-: 3->2, 2->1), 2->0 (+: 2->3, 3->0). Phase 3: 1->3
  // (+: 1->2, 2->3), 0->2 (+: 0->1, 1->2).
  llvm::SmallVector<ScheduleViolation> vs = violations(p, s);
  ASSERT_EQ(vs.size(), 1u) << describe(vs);
  EXPECT_EQ(vs[0].kind, ViolationKind::Congestion);
  EXPECT_EQ(vs[0].phase, 3);
  EXPECT_EQ(vs[0].transferA, 0);
  EXPECT_EQ(vs[0].transferB, 1);
  EXPECT_EQ(t.link(vs[0].link).src, 1);
  EXPECT_EQ(t.link(vs[0].link).dst, 2);
  EXPECT_NE(vs[0].message.find("phase 3: link 1->2 (dim 0 +) carries source "
                               "ranks 1 (transfer 0: 1 -> 3) and 0 "
                               "(transfer 1: 0 -> 2)"),
            std::string::npos)
      << vs[0].message;
}

TEST(Problem, SameSourceMayShareALink) {
  Topology t = makeTopology("torus:8");
  Problem p(t, TransferSet({{0, 1, 1}, {0, 2, 1}}));
  Schedule s;
  s.phases.push_back({{{0, 1, 1}, {0, 2, 1}}});
  EXPECT_TRUE(verifies(p, s));
  // Link 0->1 carries 2 bytes in that phase.
  EXPECT_DOUBLE_EQ(p.costModel().time(s), 2);
}

TEST(Problem, VerifyCatchesIncompleteAndDuplicate) {
  Topology t = makeTopology("torus:4");
  Problem p(t, alltoall(t, 1));
  Schedule s = handSchedule();
  s.phases[0].transfers.pop_back();                          // 3 -> 0 lost
  s.phases[1].transfers.push_back(s.phases[1].transfers[0]); // 1 -> 0 twice
  llvm::SmallVector<ScheduleViolation> vs = violations(p, s);
  ASSERT_EQ(vs.size(), 2u) << describe(vs);
  EXPECT_EQ(vs[0].kind, ViolationKind::Duplicate);
  EXPECT_EQ(vs[0].src, 1);
  EXPECT_EQ(vs[0].dst, 0);
  EXPECT_NE(vs[0].message.find("pair 1 -> 0 receives 2 bytes, expected 1"),
            std::string::npos);
  EXPECT_EQ(vs[1].kind, ViolationKind::Incomplete);
  EXPECT_EQ(vs[1].src, 3);
  EXPECT_EQ(vs[1].dst, 0);
}

TEST(Problem, SplittingAPairIsAllowed) {
  Topology t = makeTopology("mesh:3");
  Problem p(t, TransferSet({{0, 2, 10}}));
  Schedule s;
  s.phases.push_back({{{0, 2, 4}}});
  s.phases.push_back({{{0, 2, 6}}});
  EXPECT_TRUE(verifies(p, s));
  EXPECT_DOUBLE_EQ(p.costModel().time(s), 10);
}

TEST(Problem, VerifyCatchesBadTransfersRoutesAndBounds) {
  Topology t = makeTopology("torus:4");
  Problem p(t, TransferSet({{0, 1, 1}, {0, 2, 1}}));
  Schedule s;
  s.phases.push_back({{{0, 1, 1, 1}}}); // distance 1: no tie to choose
  s.phases.push_back({{{0, 2, 1, 1}, {1, 3, 1}, {0, 9, 1}}});
  s.bound.time = 100;
  llvm::SmallVector<ScheduleViolation> vs = violations(p, s);
  ASSERT_EQ(vs.size(), 4u) << describe(vs);
  EXPECT_EQ(vs[0].kind, ViolationKind::BadRoute);
  EXPECT_EQ(vs[0].phase, 0);
  EXPECT_EQ(vs[1].kind, ViolationKind::Unrequested);
  EXPECT_EQ(vs[1].transferA, 1);
  EXPECT_EQ(vs[2].kind, ViolationKind::BadTransfer);
  EXPECT_EQ(vs[2].transferA, 2);
  EXPECT_EQ(vs[3].kind, ViolationKind::Bound);
  EXPECT_NE(vs[3].message.find("exceeds the schedule time"), std::string::npos);
  // maxViolations caps the list.
  vs.clear();
  EXPECT_TRUE(failed(p.verify(s, vs, 2)));
  EXPECT_EQ(vs.size(), 2u);
}

TEST(Problem, VerifyOnAnInvalidProblemDoesNotCrash) {
  // A demand outside the machine: check() fails, verify() still reports.
  Topology t = makeTopology("torus:4");
  // (Row 0 has numRanks - 1 entries but is not dense: no direct indexing.)
  std::vector<Demand> ds = {{0, 1, 1}, {0, 3, 1}, {0, 9, 1}};
  Problem p(t, TransferSet(ds));
  std::string error;
  EXPECT_TRUE(failed(p.check(error)));
  Schedule s;
  s.phases.push_back({{{0, 1, 1}, {0, 3, 1}}});
  llvm::SmallVector<ScheduleViolation> vs = violations(p, s);
  ASSERT_EQ(vs.size(), 1u) << describe(vs);
  EXPECT_EQ(vs[0].kind, ViolationKind::Incomplete);
  EXPECT_EQ(vs[0].dst, 9);
}

TEST(Problem, PercsTimeUsesLinkClasses) {
  Topology t = makeTopology("percs:supernodes=1,drawers=2,nodes=2");
  Problem p(t, TransferSet({{0, 1, 24000}, {0, 2, 5000}}));
  Schedule s;
  s.phases.push_back({{{0, 1, 24000}, {0, 2, 5000}}});
  EXPECT_TRUE(verifies(p, s));
  // LL: 24000 / 24e9 = 1e-6; LR: 5000 / 5e9 = 1e-6.
  EXPECT_NEAR(p.costModel().time(s), 1e-6, 1e-18);
}

TEST(Schedule, Canonicalize) {
  Schedule s;
  s.phases.push_back({{{3, 1, 1}, {0, 2, 1}}});
  s.phases.push_back({});
  s.phases.push_back({{{1, 0, 1}}});
  s.canonicalize();
  ASSERT_EQ(s.phases.size(), 2u);
  EXPECT_EQ(s.phases[0].transfers[0].src, 0);
  EXPECT_EQ(s.phases[1].transfers[0].src, 1);
}

} // namespace
