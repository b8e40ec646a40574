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

TEST(TransferSet, AllPairsHeldByRule) {
  TransferSet rule = TransferSet::allPairs({1, 3, 4, 7}, 5);
  ASSERT_TRUE(rule.allPairsMembers());
  std::vector<Demand> demands;
  for (RankId s : {1, 3, 4, 7})
    for (RankId d : {1, 3, 4, 7})
      if (s != d)
        demands.push_back({s, d, 5});
  TransferSet listed(demands);
  EXPECT_FALSE(listed.allPairsMembers());
  ASSERT_EQ(rule.size(), 12u);
  for (size_t i = 0; i < listed.size(); ++i) {
    EXPECT_EQ(rule[i].src, listed[i].src) << i;
    EXPECT_EQ(rule[i].dst, listed[i].dst) << i;
    EXPECT_EQ(rule.indexOf(listed[i].src, listed[i].dst),
              static_cast<int64_t>(i));
  }
  EXPECT_TRUE(rule == listed);
  EXPECT_TRUE(listed == rule);
  EXPECT_EQ(rule.indexOf(3, 3), -1);
  EXPECT_EQ(rule.indexOf(2, 3), -1);
  EXPECT_EQ(rule.lookup(7, 1), 5);
  EXPECT_EQ(rule.totalBytes(), 60);
  EXPECT_EQ(rule.uniformBytes(), 5);
  EXPECT_EQ(rule.maxRank(), 7);
  // Adding to it lists it first.
  rule.add(1, 3, 2);
  rule.canonicalize();
  EXPECT_FALSE(rule.allPairsMembers());
  EXPECT_EQ(rule.size(), 12u);
  EXPECT_EQ(rule.lookup(1, 3), 7);
  EXPECT_TRUE(TransferSet::allPairs({2}, 5).empty());
}

/// A rule on a 4x4 torus with 2 ranks per node: rep 0 -> 3 (node 0 core 0
/// to node 1 core 1) under the diagonal translations (0,0) (1,1) (2,2)
/// (3,3), nodes 0, 5, 10, 15.
Schedule diagonalRule(std::vector<NodeId> group) {
  Schedule s;
  s.translations.push_back(std::move(group));
  Phase phase;
  phase.rules.push_back({0, {{0, 3, 8}}});
  phase.transfers.push_back({2, 3, 8}); // node 1's cores, listed
  s.phases.push_back(std::move(phase));
  return s;
}

TEST(PhaseRules, ReaderListsTheTranslates) {
  Topology t = makeTopology("torus:4x4;ranks=2");
  Schedule s = diagonalRule({0, 5, 10, 15});
  EXPECT_TRUE(s.hasRules());
  EXPECT_EQ(s.numTransfers(), 5u);
  PhaseReader read(t, s);
  llvm::ArrayRef<Transfer> ts = read[0].transfers;
  // Node 0 -> 1, 5 -> 6, 10 -> 11, 15 -> 12; core 0 to core 1.
  std::vector<std::pair<RankId, RankId>> got,
      want = {{0, 3}, {2, 3}, {10, 13}, {20, 23}, {30, 25}};
  for (const Transfer &x : ts)
    got.push_back({x.src, x.dst});
  EXPECT_EQ(got, want);
  expandRules(t, s);
  EXPECT_FALSE(s.hasRules());
  EXPECT_TRUE(s.translations.empty());
  ASSERT_EQ(s.phases[0].transfers.size(), 5u);
  EXPECT_EQ(s.phases[0].transfers[4].src, 30);
}

TEST(PhaseRules, VerifyChecksEveryTranslate) {
  Topology t = makeTopology("torus:4x4;ranks=2");
  std::vector<Demand> demands;
  for (RankId r : {0, 10, 20, 30})
    demands.push_back({r, r + 3 - (r == 30 ? 8 : 0), 8});
  demands.push_back({2, 3, 8});
  Problem p(t, TransferSet(demands));
  EXPECT_TRUE(verifies(p, diagonalRule({0, 5, 10, 15})));
  // A translation outside the machine, a group the schedule lacks.
  auto vs = violations(p, diagonalRule({0, 5, 10, 16}));
  EXPECT_NE(describe(vs).find("translation group 0 lists node 16, outside "
                              "the machine"),
            std::string::npos)
      << describe(vs);
  Schedule noGroup = diagonalRule({0, 5, 10, 15});
  noGroup.phases[0].rules[0].group = 3;
  vs = violations(p, noGroup);
  EXPECT_NE(describe(vs).find("phase 0: a rule of 1 transfers (group 3): it "
                              "names a translation group the schedule does "
                              "not have"),
            std::string::npos)
      << describe(vs);
  // Translates by (0,0) and (1,0): node 1 -> 2 was not asked for.
  vs = violations(p, diagonalRule({0, 1}));
  bool unrequested = llvm::any_of(vs, [](const ScheduleViolation &v) {
    return v.kind == ViolationKind::Unrequested;
  });
  EXPECT_TRUE(unrequested) << describe(vs);
  // PERCS has no translations.
  Topology percs = makeTopology("percs:supernodes=1,drawers=2,nodes=2");
  Problem pp(percs, TransferSet({{0, 2, 8}}));
  Schedule ps = diagonalRule({0});
  vs = violations(pp, ps);
  EXPECT_NE(describe(vs).find("only a grid machine"), std::string::npos)
      << describe(vs);
}

TEST(PhaseRules, CongestingTranslatesAreCaught) {
  // Ring of 8: rep 0 -> 2 under translations 0 and 1: 0 -> 2 and 1 -> 3
  // share the link 1 -> 2.
  Topology t = makeTopology("torus:8");
  Problem p(t, TransferSet({{0, 2, 1}, {1, 3, 1}}));
  Schedule s;
  s.translations.push_back({0, 1});
  Phase phase;
  phase.rules.push_back({0, {{0, 2, 1}}});
  s.phases.push_back(phase);
  auto vs = violations(p, s);
  ASSERT_FALSE(vs.empty());
  EXPECT_EQ(vs[0].kind, ViolationKind::Congestion) << describe(vs);
  // Under 0 and 4 they are link-disjoint but 4 -> 6 was not asked for.
  s.translations[0] = {0, 4};
  vs = violations(p, s);
  EXPECT_EQ(vs[0].kind, ViolationKind::Unrequested) << describe(vs);
}

/// A phase of `reps` under one group of translations of `t`, and the
/// problem that demands exactly the translates (listed). The group is
/// a subgroup, so the verifier and the cost model read the phase from its
/// representatives (the library's Orbits.h).
struct RulePhase {
  Schedule ruled;
  std::vector<Demand> demands;
};
RulePhase rulePhase(const Topology &t, std::vector<NodeId> group,
                    std::vector<Transfer> reps) {
  RulePhase out;
  out.ruled.translations.push_back(std::move(group));
  Phase phase;
  phase.rules.push_back({0, std::move(reps)});
  out.ruled.phases.push_back(std::move(phase));
  Schedule listed = out.ruled;
  expandRules(t, listed);
  for (const Transfer &x : listed.phases[0].transfers)
    out.demands.push_back({x.src, x.dst, x.bytes});
  return out;
}

TEST(PhaseRules, GroupPhasesAreCheckedFromTheirRepresentatives) {
  // Ring of 8 under {0, 4}: 0 -> 1 and 2 -> 3 and their translates by 4.
  Topology t = makeTopology("torus:8");
  RulePhase ok = rulePhase(t, {0, 4}, {{0, 1, 8}, {2, 3, 8}});
  Problem p(t, TransferSet(ok.demands));
  EXPECT_TRUE(verifies(p, ok.ruled));
  // Two representatives on one link (1 -> 2): 0 -> 2 and 1 -> 3.
  RulePhase shared = rulePhase(t, {0, 4}, {{0, 2, 8}, {1, 3, 8}});
  auto vs = violations(Problem(t, TransferSet(shared.demands)), shared.ruled);
  ASSERT_FALSE(vs.empty());
  EXPECT_EQ(vs[0].kind, ViolationKind::Congestion) << describe(vs);
  // One representative's own translates: 0 -> 3 and 2 -> 5 share 2 -> 3.
  RulePhase self = rulePhase(t, {0, 2, 4, 6}, {{0, 3, 8}});
  vs = violations(Problem(t, TransferSet(self.demands)), self.ruled);
  ASSERT_FALSE(vs.empty());
  EXPECT_EQ(vs[0].kind, ViolationKind::Congestion) << describe(vs);
  // The same source over a link twice is no congestion: 0 -> 1 and 0 -> 2.
  RulePhase oneSource = rulePhase(t, {0, 4}, {{0, 1, 8}, {0, 2, 8}});
  EXPECT_TRUE(
      verifies(Problem(t, TransferSet(oneSource.demands)), oneSource.ruled));
  // A duplicated representative, a wrong size, the longer way round.
  Schedule twice = ok.ruled;
  twice.phases[0].rules[0].reps.push_back({0, 1, 8});
  vs = violations(p, twice);
  ASSERT_FALSE(vs.empty());
  EXPECT_TRUE(llvm::any_of(vs, [](const ScheduleViolation &v) {
    return v.kind == ViolationKind::Duplicate ||
           v.kind == ViolationKind::Congestion;
  })) << describe(vs);
  Schedule smaller = ok.ruled;
  smaller.phases[0].rules[0].reps[0].bytes = 4;
  vs = violations(p, smaller);
  ASSERT_FALSE(vs.empty());
  EXPECT_EQ(vs[0].kind, ViolationKind::Incomplete) << describe(vs);
  Topology ring4 = makeTopology("torus:4");
  RulePhase tie = rulePhase(ring4, {0, 2}, {{0, 2, 8}});
  tie.ruled.phases[0].rules[0].reps[0].ties = 2; // dimension 1: none
  vs = violations(Problem(ring4, TransferSet(tie.demands)), tie.ruled);
  ASSERT_FALSE(vs.empty());
  EXPECT_EQ(vs[0].kind, ViolationKind::BadRoute) << describe(vs);
}

/// The time of a phase held by rule is its listed phase's: links, ports,
/// set-ups, latency, copies, with or without barriers.
TEST(PhaseRules, CostOfRepresentativesIsTheListedCost) {
  Topology t =
      makeTopology("torus:6x4;ranks=2;latency=1e-6;setup=2e-6;copy_strided=1e8;"
                   "injection=link");
  // Under the translations by (0,0), (2,0), (4,0), (0,2), (2,2), (4,2):
  // node (0,0)'s core 0 to (1,0) core 1, core 1 to (0,1), and a transfer
  // between the cores of node (1,1).
  std::vector<NodeId> group = {0, 2, 4, 12, 14, 16};
  RulePhase r = rulePhase(t, group, {{0, 3, 64}, {1, 12, 32}, {14, 15, 16}});
  Schedule listed = r.ruled;
  expandRules(t, listed);
  for (SyncKind sync : {SyncKind::Barrier, SyncKind::None}) {
    CostModel model = CostModel::onePort(t);
    model.setSync(sync);
    model.setCopy(CopyPattern::Strided, TransferStyle::Packing);
    Problem p(t, TransferSet(r.demands), model);
    EXPECT_TRUE(verifies(p, r.ruled));
    ScheduleCost a = p.cost(r.ruled), b = p.cost(listed);
    EXPECT_DOUBLE_EQ(a.time, b.time);
    EXPECT_DOUBLE_EQ(a.machine.total(), b.machine.total());
    EXPECT_DOUBLE_EQ(a.machine.setup, b.machine.setup);
    EXPECT_DOUBLE_EQ(a.machine.latency, b.machine.latency);
    EXPECT_DOUBLE_EQ(a.machine.copy, b.machine.copy);
    EXPECT_GT(a.machine.setup, 0);
  }
}

} // namespace
