//===- TestSchedules.h - Schedules for the target tests ---------*- C++ -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#ifndef PHASEC_TEST_UNIT_TARGET_TESTSCHEDULES_H
#define PHASEC_TEST_UNIT_TARGET_TESTSCHEDULES_H

#include "phasec/Scheduling/Problem.h"
#include "phasec/Target/OperationPlan.h"

#include "gtest/gtest.h"

namespace phasec {
namespace target {
namespace test {

/// `algorithm`'s schedule of `req` on the machine `spec` (the Problem holds
/// a reference to its Topology: both live here).
template <typename Fn>
inline Schedule scheduleOn(const char *spec, const Collective &req,
                           Fn algorithm) {
  std::string error;
  auto desc = TopologyDesc::parse(spec, error);
  EXPECT_TRUE(succeeded(desc)) << error;
  auto topo = Topology::create(*desc, error);
  EXPECT_TRUE(succeeded(topo)) << error;
  auto ts = req.lower(error);
  EXPECT_TRUE(succeeded(ts)) << error;
  Problem problem(*topo, *ts);
  Schedule s;
  EXPECT_TRUE(succeeded(algorithm(problem, s, error))) << error;
  return s;
}

/// An all-to-all of `block` bytes among ranks 0 .. p-1.
inline Collective alltoall(int p, int64_t block) {
  Collective r;
  r.kind = CollectiveKind::Alltoall;
  for (int i = 0; i < p; ++i)
    r.group.push_back(i);
  r.blockBytes = block;
  return r;
}

} // namespace test
} // namespace target
} // namespace phasec

#endif
