//===- SolverTest.cpp - Tests of the Z3 query layer -----------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Algorithms.h"
#include "phasec/Solver/Z3Solver.h"

#include "gtest/gtest.h"

using namespace phasec;
using namespace phasec::solver;

namespace {

RingSchedule asSchedule(const RingCore &core, const RingCoreQuery &q) {
  RingSchedule rs;
  rs.k = q.k;
  rs.wrap = q.wrap;
  rs.twoLinksPerPair = q.twoLinksPerPair;
  rs.perms = core.perms;
  rs.minus = core.minus;
  rs.identityFirst = q.withIdentity;
  return rs;
}

/// A ring of k (a torus dimension: two links between neighbours, wrapping
/// around), whose first step is the identity if `withIdentity`.
RingCoreQuery ringQuery(unsigned k, bool withIdentity = false) {
  RingCoreQuery q;
  q.k = k;
  q.withIdentity = withIdentity;
  return q;
}

/// A line of k (a mesh or hypercube dimension: one link each way between
/// neighbours, no wrap-around).
RingCoreQuery lineQuery(unsigned k, bool withIdentity = false) {
  RingCoreQuery q = ringQuery(k, withIdentity);
  q.wrap = false;
  q.twoLinksPerPair = false;
  return q;
}

/// Whether `core` is a congestion-free ring schedule, checked independently
/// of Z3; a failure carries the checker's error.
testing::AssertionResult isValidSchedule(const RingCore &core,
                                         const RingCoreQuery &q) {
  std::string error;
  if (succeeded(checkRingSchedule(asSchedule(core, q), error)))
    return testing::AssertionSuccess();
  return testing::AssertionFailure() << error;
}

RingCore solve(const RingCoreQuery &q, uint64_t rlimit = 50000000) {
  SolverOptions o;
  o.rlimit = rlimit;
  std::string error;
  auto r = solveRingCore(q, o, error);
  EXPECT_TRUE(succeeded(r)) << error;
  return succeeded(r) ? *r : RingCore();
}

} // namespace

/// Rings of 2..8 have Latin-square cores; checked independently.
TEST(RingCore, TorusRingsWithoutIdentity) {
  for (unsigned k = 2; k <= 8; ++k) {
    RingCoreQuery q = ringQuery(k);
    RingCore core = solve(q);
    ASSERT_EQ(core.status, SolveStatus::Sat) << "k=" << k;
    ASSERT_EQ(core.perms.size(), k);
    EXPECT_TRUE(isValidSchedule(core, q)) << "k=" << k;
  }
}

/// Rings of 2..7 have cores whose step 0 is the identity.
TEST(RingCore, TorusRingsWithIdentity) {
  for (unsigned k = 2; k <= 7; ++k) {
    RingCoreQuery q = ringQuery(k, /*withIdentity=*/true);
    RingCore core = solve(q);
    ASSERT_EQ(core.status, SolveStatus::Sat) << "k=" << k;
    for (unsigned a = 0; a < k; ++a)
      EXPECT_EQ(core.perms[0][a], static_cast<int32_t>(a));
    EXPECT_TRUE(isValidSchedule(core, q)) << "k=" << k;
  }
}

/// A ring of 8 is link-tight (8 pairs over every link): no identity core.
/// Z3 proves it.
TEST(RingCore, RingOfEightHasNoIdentityCore) {
  EXPECT_EQ(solve(ringQuery(8, /*withIdentity=*/true)).status,
            SolveStatus::Unsat);
}

/// Lines (meshes): a line of 4 has a Latin core (middle link carries 4
/// pairs in 4 steps), a line of 5 has none (6 pairs over the middle link).
TEST(RingCore, Lines) {
  RingCoreQuery q = lineQuery(4);
  RingCore core = solve(q);
  ASSERT_EQ(core.status, SolveStatus::Sat);
  EXPECT_TRUE(isValidSchedule(core, q));
  EXPECT_EQ(solve(lineQuery(5)).status, SolveStatus::Unsat);
  EXPECT_EQ(solve(lineQuery(3, /*withIdentity=*/true)).status,
            SolveStatus::Sat);
}

/// A ring of 2 with a single link each way (hypercube dimension).
TEST(RingCore, HypercubePair) {
  RingCore core = solve(lineQuery(2, /*withIdentity=*/true));
  ASSERT_EQ(core.status, SolveStatus::Sat);
  EXPECT_EQ(core.perms[1][0], 1);
  EXPECT_EQ(core.perms[1][1], 0);
}

/// A tiny budget gives Unknown, never a wrong answer or a hang.
TEST(RingCore, BudgetExhausted) {
  RingCore core = solve(ringQuery(8), 2000);
  EXPECT_EQ(core.status, SolveStatus::Unknown);
  EXPECT_TRUE(core.perms.empty());
}

/// Same query, same answer.
TEST(RingCore, Deterministic) {
  RingCore a = solve(ringQuery(6)), b = solve(ringQuery(6));
  ASSERT_EQ(a.status, SolveStatus::Sat);
  EXPECT_EQ(a.perms, b.perms);
  EXPECT_EQ(a.minus, b.minus);
  EXPECT_EQ(a.rlimitUsed, b.rlimitUsed);
}

TEST(RingCore, BadExtent) {
  RingCoreQuery q;
  q.k = 0;
  SolverOptions o;
  std::string error;
  EXPECT_TRUE(failed(solveRingCore(q, o, error)));
  EXPECT_NE(error.find("out of range"), std::string::npos);
}

/// Three items of different groups on one resource need three phases; two
/// items of one group may share it.
TEST(PhaseAssignment, ConflictsAndGroups) {
  AssignQuery q;
  q.numResources = 2;
  for (int g = 0; g < 3; ++g) {
    AssignItem it;
    it.group = g;
    it.options.push_back({0});
    q.items.push_back(it);
  }
  SolverOptions o;
  std::string error;
  q.numPhases = 2;
  auto r = solvePhaseAssignment(q, o, error);
  ASSERT_TRUE(succeeded(r)) << error;
  EXPECT_EQ(r->status, SolveStatus::Unsat);
  q.numPhases = 3;
  r = solvePhaseAssignment(q, o, error);
  ASSERT_TRUE(succeeded(r)) << error;
  ASSERT_EQ(r->status, SolveStatus::Sat);
  EXPECT_NE(r->phase[0], r->phase[1]);
  EXPECT_NE(r->phase[1], r->phase[2]);
  EXPECT_NE(r->phase[0], r->phase[2]);
  // Same group: one phase suffices.
  for (auto &it : q.items)
    it.group = 7;
  q.numPhases = 1;
  r = solvePhaseAssignment(q, o, error);
  ASSERT_TRUE(succeeded(r)) << error;
  EXPECT_EQ(r->status, SolveStatus::Sat);
}

/// Route options: two items that conflict on option 0 but not on option 1.
TEST(PhaseAssignment, Options) {
  AssignQuery q;
  q.numResources = 3;
  AssignItem a, b;
  a.group = 0;
  a.options.push_back({0, 1});
  b.group = 1;
  b.options.push_back({0});
  b.options.push_back({2});
  q.items = {a, b};
  q.numPhases = 1;
  SolverOptions o;
  std::string error;
  auto r = solvePhaseAssignment(q, o, error);
  ASSERT_TRUE(succeeded(r)) << error;
  ASSERT_EQ(r->status, SolveStatus::Sat);
  EXPECT_EQ(r->option[1], 1);
}

TEST(PhaseAssignment, BadInput) {
  AssignQuery q;
  q.numResources = 1;
  AssignItem it;
  it.options.push_back({5});
  q.items.push_back(it);
  q.numPhases = 1;
  SolverOptions o;
  std::string error;
  EXPECT_TRUE(failed(solvePhaseAssignment(q, o, error)));
  EXPECT_NE(error.find("resource out of range"), std::string::npos);
  q.numPhases = 0;
  EXPECT_TRUE(failed(solvePhaseAssignment(q, o, error)));
  EXPECT_NE(error.find("zero phases"), std::string::npos);
}

/// A line of nodes 0 - 1 - ... - (k-1), one directed link each way:
/// link 2i goes i -> i+1, link 2i+1 goes i+1 -> i.
static CycleQuery lineCycleQuery(unsigned k, std::vector<unsigned> members) {
  CycleQuery q;
  q.numMembers = members.size();
  q.numResources = 2 * k;
  q.resources.resize(members.size() * members.size());
  for (unsigned a = 0; a < members.size(); ++a)
    for (unsigned b = 0; b < members.size(); ++b) {
      unsigned from = members[a], to = members[b];
      for (unsigned x = std::min(from, to); x < std::max(from, to); ++x)
        q.resources[a * members.size() + b].push_back(
            static_cast<int32_t>(from < to ? 2 * x : 2 * x + 1));
    }
  return q;
}

TEST(CycleEmbedding, FindsACycleWhoseEdgesShareNoLink) {
  // Members at 0, 1, 2, 3 of a line of 4: 0 1 2 3 back to 0 is a cycle
  // (the closing edge goes left, the others right).
  CycleQuery q = lineCycleQuery(4, {0, 1, 2, 3});
  q.first = 2;
  std::string error;
  auto r = solveCycleEmbedding(q, SolverOptions(), error);
  ASSERT_TRUE(succeeded(r)) << error;
  ASSERT_EQ(r->status, SolveStatus::Sat);
  ASSERT_EQ(r->order.size(), 4u);
  EXPECT_EQ(r->order[0], 2);
  // Every member once, and no link used by two edges.
  std::vector<int> seen(4, 0), used(q.numResources, 0);
  for (unsigned i = 0; i < 4; ++i) {
    ++seen[r->order[i]];
    unsigned a = r->order[i], b = r->order[(i + 1) % 4];
    for (int32_t l : q.resources[a * 4 + b])
      EXPECT_EQ(used[l]++, 0) << "link " << l;
  }
  EXPECT_EQ(seen, std::vector<int>(4, 1));
  EXPECT_GT(r->rlimitUsed, 0u);
}

TEST(CycleEmbedding, ProvesThatNoneExists) {
  CycleQuery q;
  q.numMembers = 3;
  q.numResources = 1;
  q.resources.resize(9);
  // Every edge between different members takes resource 0: three edges
  // from three different members cannot all run at once.
  for (unsigned a = 0; a < 3; ++a)
    for (unsigned b = 0; b < 3; ++b)
      if (a != b)
        q.resources[a * 3 + b] = {0};
  std::string error;
  auto r = solveCycleEmbedding(q, SolverOptions(), error);
  ASSERT_TRUE(succeeded(r)) << error;
  EXPECT_EQ(r->status, SolveStatus::Unsat);
  EXPECT_TRUE(r->order.empty());
}

TEST(CycleEmbedding, RejectsMalformedQueries) {
  CycleQuery q = lineCycleQuery(3, {0, 1, 2});
  q.first = 5;
  std::string error;
  EXPECT_TRUE(failed(solveCycleEmbedding(q, SolverOptions(), error)));
  EXPECT_EQ(error, "cycle embedding: malformed query");
  q.first = 0;
  q.resources[1] = {99};
  EXPECT_TRUE(failed(solveCycleEmbedding(q, SolverOptions(), error)));
  EXPECT_EQ(error, "cycle embedding: resource out of range");
}

TEST(CycleEmbedding, Deterministic) {
  CycleQuery q = lineCycleQuery(6, {0, 1, 2, 3, 4, 5});
  std::string error;
  auto a = solveCycleEmbedding(q, SolverOptions(), error);
  auto b = solveCycleEmbedding(q, SolverOptions(), error);
  ASSERT_TRUE(succeeded(a) && succeeded(b));
  EXPECT_EQ(a->order, b->order);
  EXPECT_EQ(a->rlimitUsed, b->rlimitUsed);
}
