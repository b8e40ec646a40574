//===- TestUtil.h - Helpers shared by the unit tests ------------*- C++ -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#ifndef PHASEC_TEST_UNIT_TESTUTIL_H
#define PHASEC_TEST_UNIT_TESTUTIL_H

#include "phasec/Scheduling/Baselines.h"
#include "phasec/Scheduling/Collective.h"
#include "phasec/Scheduling/Problem.h"
#include "phasec/Topology/Topology.h"

#include "gtest/gtest.h"

#include <numeric>

namespace phasec::test {

inline Topology makeTopology(llvm::StringRef spec) {
  std::string error;
  auto desc = TopologyDesc::parse(spec, error);
  EXPECT_TRUE(succeeded(desc)) << spec.str() << ": " << error;
  auto topo = Topology::create(*desc, error);
  EXPECT_TRUE(succeeded(topo)) << spec.str() << ": " << error;
  return std::move(*topo);
}

inline std::vector<RankId> allRanks(const Topology &t) {
  std::vector<RankId> g(t.numRanks());
  std::iota(g.begin(), g.end(), 0);
  return g;
}

/// A `kind` collective over every rank of `t`, for the test to complete.
inline Collective collectiveOver(const Topology &t, CollectiveKind kind) {
  Collective c;
  c.kind = kind;
  c.group = allRanks(t);
  return c;
}

/// A rooted collective of `kind` over every rank of `t`, rooted at member
/// 0, of `blockBytes` a block.
inline Collective rootedOver(const Topology &t, CollectiveKind kind,
                             int64_t blockBytes) {
  Collective c = collectiveOver(t, kind);
  c.root = 0;
  c.blockBytes = blockBytes;
  return c;
}

/// Lowers `c` into `out`, for ASSERT_TRUE: a failure carries the error.
inline testing::AssertionResult lowers(const Collective &c, TransferSet &out) {
  std::string error;
  auto set = c.lower(error);
  if (failed(set))
    return testing::AssertionFailure() << error;
  out = std::move(*set);
  return testing::AssertionSuccess();
}

/// The same phases of the same transfers (routes included), in order.
inline bool sameSchedule(const Schedule &x, const Schedule &y) {
  if (x.phases.size() != y.phases.size())
    return false;
  for (size_t i = 0; i < x.phases.size(); ++i) {
    const auto &u = x.phases[i].transfers, &v = y.phases[i].transfers;
    if (u.size() != v.size())
      return false;
    for (size_t j = 0; j < u.size(); ++j)
      if (u[j].src != v[j].src || u[j].dst != v[j].dst ||
          u[j].bytes != v[j].bytes || u[j].ties != v[j].ties)
        return false;
  }
  return true;
}

inline TransferSet alltoall(const Topology &t, int64_t block) {
  Collective c = collectiveOver(t, CollectiveKind::Alltoall);
  c.blockBytes = block;
  TransferSet set;
  EXPECT_TRUE(lowers(c, set));
  return set;
}

/// Runs the greedy baseline on `p` into `s`, for ASSERT_TRUE: a failure
/// carries the scheduler's error.
inline testing::AssertionResult scheduleGreedily(const Problem &p,
                                                 Schedule &s) {
  std::string error;
  if (succeeded(scheduleGreedy(p, s, error)))
    return testing::AssertionSuccess();
  return testing::AssertionFailure() << error;
}

/// The messages of all violations, for failure output.
inline std::string describe(llvm::ArrayRef<ScheduleViolation> vs) {
  std::string out;
  for (const ScheduleViolation &v : vs)
    out += v.message + "\n";
  return out;
}

/// Whether `p` accepts `s` (Problem::verify), for EXPECT_TRUE: a failure
/// lists the violations.
inline testing::AssertionResult verifies(const Problem &p, const Schedule &s) {
  llvm::SmallVector<ScheduleViolation> vs;
  if (succeeded(p.verify(s, vs)))
    return testing::AssertionSuccess();
  return testing::AssertionFailure() << describe(vs);
}

/// The violations Problem::verify reports for `s`, which it must reject.
inline llvm::SmallVector<ScheduleViolation> violations(const Problem &p,
                                                       const Schedule &s) {
  llvm::SmallVector<ScheduleViolation> vs;
  EXPECT_TRUE(failed(p.verify(s, vs)));
  return vs;
}

} // namespace phasec::test

#endif // PHASEC_TEST_UNIT_TESTUTIL_H
