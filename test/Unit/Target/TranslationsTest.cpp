//===- TranslationsTest.cpp - Tables shared by translation ----------------===//
//
// Part of phasec. Unit tests of findTableTranslations (targets/common):
// the group it finds must reproduce every member's table exactly, the way
// the generated NAME_expand derives it, and it must find none where the
// schedule has no symmetry.
//
//===----------------------------------------------------------------------===//

#include "Translations.h"
#include "TestSchedules.h"

#include "phasec/Scheduling/Algorithms.h"
#include "phasec/Scheduling/Baselines.h"

#include "gtest/gtest.h"

#include <map>
#include <tuple>

using namespace phasec;
using namespace phasec::target;
using phasec::target::test::alltoall;
using namespace phasec::target::detail;

namespace {

using Row = std::tuple<int64_t, int64_t, int64_t, int64_t>;

/// Member m's sends {phase, peer, offset, bytes}, sorted.
std::map<int64_t, std::vector<Row>> sendLists(const OperationPlan &plan) {
  std::map<int64_t, std::vector<Row>> out;
  for (auto [j, ph] : llvm::enumerate(plan.phases))
    for (const PlannedTransfer &t : ph.transfers)
      out[t.src].push_back({static_cast<int64_t>(j), t.dst, t.offset, t.bytes});
  for (auto &[m, rows] : out)
    llvm::sort(rows);
  return out;
}

/// What NAME_expand(m) gives: the representative's list, peers moved by
/// m - rep digit by digit; must equal m's own list for every m.
void expectExpansionExact(const OperationPlan &plan) {
  ASSERT_FALSE(plan.tableReps.empty());
  auto lists = sendLists(plan);
  for (int64_t m = 0; m < plan.numMembers(); ++m) {
    int32_t rep = plan.tableReps[plan.tableOrbit[m]];
    ASSERT_LE(rep, m);
    std::vector<Row> moved = lists[rep];
    for (Row &r : moved)
      std::get<1>(r) = addDigits(plan.tableRadix, std::get<1>(r),
                                 subDigits(plan.tableRadix, m, rep));
    llvm::sort(moved);
    EXPECT_EQ(moved, lists[m]) << "member " << m;
  }
}

OperationPlan plan(const Collective &req, const Schedule &s) {
  std::string error;
  auto p = buildOperationPlan("op", req, ElementCType{"u8", "uint8_t", 1}, s,
                              PlanOptions(), error);
  EXPECT_TRUE(succeeded(p)) << error;
  return succeeded(p) ? *p : OperationPlan();
}

/// The plan keeps tables, of `reps` representatives, that expand to its
/// own.
void expectTables(const OperationPlan &p, size_t reps) {
  ASSERT_FALSE(p.useFormulas);
  EXPECT_EQ(p.tableReps.size(), reps);
  expectExpansionExact(p);
}

TEST(Translations, DigitArithmetic) {
  std::vector<int64_t> radix{4, 8}; // m = 8 a + b
  EXPECT_EQ(addDigits(radix, 8 * 3 + 7, 8 * 2 + 3), 8 * 1 + 2);
  EXPECT_EQ(subDigits(radix, 8 * 1 + 2, 8 * 2 + 3), 8 * 3 + 7);
  EXPECT_EQ(addDigits({32}, 30, 5), 3);
  for (int64_t a = 0; a < 32; ++a)
    for (int64_t b = 0; b < 32; ++b)
      EXPECT_EQ(subDigits(radix, addDigits(radix, a, b), b), a);
}

TEST(Translations, PercsScheduleHasOneTablePerNode) {
  // 4 nodes x 4 cores: node and core moved together (radix 4 x 4).
  Collective req = alltoall(16, 64);
  Schedule s = test::scheduleOn(
      "percs:supernodes=1,drawers=2,nodes=2,ranks=4", req,
      [](const Problem &problem, Schedule &s, std::string &error) {
        SchedulerReport report;
        auto r = schedulePercs(problem, s, SchedulerOptions(), report);
        error = report.error;
        return r;
      });
  expectTables(plan(req, s), 4);
}

TEST(Translations, XorScheduleOnARing) {
  // The xor schedule on a ring of 8 splits phases where routes collide
  // (0<->4, 1<->5, 2<->6, 3<->7 each alone): only moving by 4 maps it onto
  // itself, so 4 of the 8 members keep tables.
  Collective req = alltoall(8, 16);
  Schedule s = test::scheduleOn("torus:8", req, scheduleXor);
  expectTables(plan(req, s), 4);
}

TEST(Translations, NoneWithoutSymmetry) {
  // Member 3's sends moved to a phase of their own: no translation maps
  // member 3 onto any other.
  Collective req = alltoall(6, 16);
  Schedule s = test::scheduleOn("torus:6", req, scheduleLinearShift);
  Phase extra;
  Phase &first = s.phases[0];
  std::vector<Transfer> keep;
  for (const Transfer &t : first.transfers)
    (t.src == 3 ? extra.transfers : keep).push_back(t);
  first.transfers = keep;
  s.phases.push_back(extra);
  OperationPlan p = plan(req, s);
  ASSERT_FALSE(p.useFormulas);
  EXPECT_TRUE(p.tableReps.empty());
  EXPECT_TRUE(p.tableRadix.empty());
}

/// The machine `spec` (tests keep it alive beside the plan).
Topology machine(const char *spec) {
  std::string error;
  auto desc = TopologyDesc::parse(spec, error);
  EXPECT_TRUE(succeeded(desc)) << error;
  auto topo = Topology::create(*desc, error);
  EXPECT_TRUE(succeeded(topo)) << error;
  return std::move(*topo);
}

/// A ring of 4 by rule: phase k moves 0 -> k and its translates by every
/// rotation (the linear shift).
Schedule ruledShift() {
  Schedule s;
  s.translations.push_back({0, 1, 2, 3});
  for (RankId k = 1; k < 4; ++k) {
    Phase phase;
    phase.rules.push_back({0, {{0, k, 8}}});
    s.phases.push_back(std::move(phase));
  }
  return s;
}

TEST(RuleTables, KeptForAnAllToAllOfATorus) {
  Topology ring = machine("torus:4");
  std::string error;
  auto plan = buildOperationPlan("a2a", alltoall(4, 8),
                                 ElementCType{"u8", "uint8_t", 1}, ruledShift(),
                                 PlanOptions(), error, &ring);
  ASSERT_TRUE(succeeded(plan)) << error;
  ASSERT_TRUE(plan->hasRules());
  EXPECT_EQ(plan->phases.size(), 3u);
  EXPECT_EQ(plan->ruleFirst, (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(plan->ruleGroups,
            (std::vector<std::vector<int32_t>>{{0, 1, 2, 3}}));
  EXPECT_EQ(plan->tableRadix, (std::vector<int64_t>{4, 1}));
  EXPECT_EQ(plan->ruleMaxSendsPerPhase, 1);
  EXPECT_EQ(plan->ruleMaxSends, 3);
  EXPECT_FALSE(plan->useFormulas);
  // Without the machine the rules cannot be read.
  EXPECT_TRUE(failed(buildOperationPlan("a2a", alltoall(4, 8),
                                        ElementCType{"u8", "uint8_t", 1},
                                        ruledShift(), PlanOptions(), error)));
  EXPECT_EQ(error, "the schedule holds phases by rule, but no machine was "
                   "given to list them");
}

TEST(RuleTables, TranslatesAreCheckedAgainstTheDemands) {
  Topology ring = machine("torus:4");
  ElementCType u8{"u8", "uint8_t", 1};
  std::string error;
  Schedule twice = ruledShift();
  twice.phases[1].rules[0].reps[0].dst = 1;
  EXPECT_TRUE(failed(buildOperationPlan("a2a", alltoall(4, 8), u8, twice,
                                        PlanOptions(), error, &ring)));
  EXPECT_EQ(error, "schedule phase 1 delivers the block rank 0 owes rank 1 "
                   "again");
  Schedule missing = ruledShift();
  missing.phases.pop_back();
  EXPECT_TRUE(failed(buildOperationPlan("a2a", alltoall(4, 8), u8, missing,
                                        PlanOptions(), error, &ring)));
  EXPECT_EQ(error, "the schedule delivers 0 of the 8 bytes rank 0 owes rank 3");
  Schedule wrongSize = ruledShift();
  wrongSize.phases[0].rules[0].reps[0].bytes = 4;
  EXPECT_TRUE(failed(buildOperationPlan("a2a", alltoall(4, 8), u8, wrongSize,
                                        PlanOptions(), error, &ring)));
  EXPECT_EQ(error, "schedule phase 0 sends 4 bytes from 0 to 1 by rule, where "
                   "the operation owes 8 bytes of every pair");
}

TEST(RuleTables, ListedWhereTheyCannotBeKept) {
  // A phase of listed transfers among phases held by rule: the plan lists
  // the rules and is the listed schedule's (the linear shift's formulas).
  Topology ring = machine("torus:4");
  Schedule mixed = ruledShift();
  mixed.phases[0].rules.clear();
  for (RankId m = 0; m < 4; ++m)
    mixed.phases[0].transfers.push_back({m, (m + 1) % 4, 8, 0});
  std::string error;
  auto plan = buildOperationPlan("a2a", alltoall(4, 8),
                                 ElementCType{"u8", "uint8_t", 1}, mixed,
                                 PlanOptions(), error, &ring);
  ASSERT_TRUE(succeeded(plan)) << error;
  EXPECT_FALSE(plan->hasRules());
  EXPECT_TRUE(plan->useFormulas); // the linear shift, listed
  EXPECT_EQ(plan->phases.size(), 3u);
}

} // namespace
