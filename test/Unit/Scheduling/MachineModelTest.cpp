//===- MachineModelTest.cpp - The machine model, worked by hand -----------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// CostModel::machineTime, barrierTime, fluidTime and Problem::machineBound
/// on rings small enough to work out on paper (each test says how), and the
/// cost options of the topology spec.
///
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/CostModel.h"
#include "phasec/Scheduling/Problem.h"

#include "TestUtil.h"

using namespace phasec;
using namespace phasec::test;

namespace {

Phase phaseOf(std::initializer_list<Transfer> transfers) {
  Phase p;
  p.transfers = transfers;
  return p;
}

TEST(MachineModel, SpecRoundTripsTheCosts) {
  std::string error;
  auto desc = TopologyDesc::parse(
      "mesh:4;latency=1e-06;setup=2e-06;packet=512;switching=store_and_"
      "forward;sends=blocking;barrier=3e-06;copy=100000000;copy_strided="
      "20000000;copy_gather=10000000",
      error);
  ASSERT_TRUE(succeeded(desc)) << error;
  EXPECT_DOUBLE_EQ(desc->setupCost, 2e-6);
  EXPECT_EQ(desc->packetLength, 512);
  EXPECT_EQ(desc->switching, Switching::StoreAndForward);
  EXPECT_EQ(desc->sends, SendProtocol::Blocking);
  EXPECT_DOUBLE_EQ(desc->barrierCost, 3e-6);
  EXPECT_DOUBLE_EQ(desc->copyRateGather, 1e7);
  auto again = TopologyDesc::parse(desc->str(), error);
  ASSERT_TRUE(succeeded(again)) << error;
  EXPECT_EQ(again->str(), desc->str());
  // Defaults print nothing.
  EXPECT_EQ(TopologyDesc::parse("mesh:4", error)->str(), "mesh:4");
}

TEST(MachineModel, SpecRejectsBadCosts) {
  std::string error;
  EXPECT_TRUE(failed(TopologyDesc::parse("mesh:4;switching=fast", error)));
  EXPECT_EQ(error, "bad value 'fast' for 'switching'");
  EXPECT_TRUE(failed(TopologyDesc::parse("mesh:4;setup=-1", error)));
  EXPECT_EQ(error, "bad value '-1' for 'setup'");
  EXPECT_TRUE(failed(TopologyDesc::parse("mesh:4;packet=x", error)));
  EXPECT_TRUE(failed(TopologyDesc::parse("mesh:4;sends=maybe", error)));
}

TEST(MachineModel, PairwiseBarrierOnARing) {
  // torus:8, 1 us per hop, 0.5 us per set-up. Eight members: exchanges
  // with i^1 (1 hop), i^2 (2 hops), i^4 (4 hops): 1.5 + 2.5 + 4.5 us.
  Topology t = makeTopology("torus:8;latency=1e-6;setup=5e-7");
  CostModel m(t);
  std::vector<RankId> eight = allRanks(t);
  EXPECT_NEAR(m.barrierTime(eight), 8.5e-6, 1e-15);
  // Six: rounds over the first four (1.5 + 2.5 us), then twice the slowest
  // of 4<->0 and 5<->1 (4 hops: 4.5 us).
  std::vector<RankId> six(eight.begin(), eight.begin() + 6);
  EXPECT_NEAR(m.barrierTime(six), 4e-6 + 9e-6, 1e-15);
  EXPECT_EQ(m.barrierTime({3}), 0);
  // Given, it is what the machine says.
  Topology given = makeTopology("torus:8;latency=1e-6;barrier=7e-6");
  EXPECT_DOUBLE_EQ(CostModel(given).barrierTime(eight), 7e-6);
}

TEST(MachineModel, PhasesPaySetupsLatencyAndBarriers) {
  // Ring of 4, 1 MB/s, 1 us per hop and per set-up.
  Topology t = makeTopology("torus:4;bw=1e6;latency=1e-6;setup=1e-6");
  CostModel m(t);
  Schedule s;
  // Phase 1: 0->1 and 0->2 share link 0->1 (2000 B: 2 ms); rank 0 sets up
  // two messages (2 us); the farther is 2 hops (2 us).
  s.phases.push_back(phaseOf({{0, 1, 1000}, {0, 2, 1000}}));
  // Phase 2: 1->3, 2 hops, 500 B: 0.5 ms + 1 us + 2 us.
  s.phases.push_back(phaseOf({{1, 3, 500}}));
  // One barrier over 0..3: 1 + 1 us (i^1), 1 + 2 us (i^2).
  MachineTime mt = m.machineTime(s, allRanks(t), /*relaying=*/false);
  EXPECT_NEAR(mt.bandwidth, 2.5e-3, 1e-12);
  EXPECT_NEAR(mt.setup, 3e-6, 1e-15);
  EXPECT_NEAR(mt.latency, 4e-6, 1e-15);
  EXPECT_EQ(mt.barriers, 1);
  EXPECT_NEAR(mt.sync, 5e-6, 1e-15);
  EXPECT_EQ(mt.chosen, SyncKind::Barrier);
  EXPECT_NEAR(mt.total(), 2.5e-3 + 12e-6, 1e-12);
  EXPECT_DOUBLE_EQ(m.time(s), 2.5e-3);
}

TEST(MachineModel, StoreAndForwardAndBlockingSends) {
  // 2 hops, 1000 B, packets of 100 B at 1 MB/s: the middle node receives
  // one packet (100 us) before passing it on; plus 2 x 1 us of latency.
  Topology sf =
      makeTopology("torus:4;bw=1e6;latency=1e-6;switching=store_and_forward;"
                   "packet=100");
  Schedule s;
  s.phases.push_back(phaseOf({{0, 2, 1000}}));
  MachineTime mt = CostModel(sf).machineTime(s, {0, 2}, false);
  EXPECT_NEAR(mt.latency, 100e-6 + 2e-6, 1e-15);
  // Without packets the whole message waits at the middle node.
  Topology whole =
      makeTopology("torus:4;bw=1e6;latency=1e-6;switching=store_and_forward");
  EXPECT_NEAR(CostModel(whole).machineTime(s, {0, 2}, false).latency,
              1000e-6 + 2e-6, 1e-15);
  // A blocking send: set-up and latency there and back, 2 (1 + 2) us.
  Topology blocking =
      makeTopology("torus:4;bw=1e6;latency=1e-6;setup=1e-6;sends=blocking");
  EXPECT_NEAR(CostModel(blocking).machineTime(s, {0, 2}, false).setup, 6e-6,
              1e-15);
}

TEST(MachineModel, FluidSharesLinksMaxMinFairly) {
  Topology t = makeTopology("torus:4;bw=1e6");
  CostModel m(t);
  Schedule s;
  // 0->1 (1000 B) and 0->2 (3000 B) share link 0->1: 0.5 MB/s each until
  // the first ends (2 ms); the second has 2000 B left at 1 MB/s: 4 ms.
  s.phases.push_back(phaseOf({{0, 1, 1000}}));
  s.phases.push_back(phaseOf({{0, 2, 3000}}));
  EXPECT_NEAR(m.fluidTime(s), 4e-3, 1e-12);
  // Phased with free barriers the same moves in 1 + 3 ms.
  EXPECT_NEAR(m.time(s), 4e-3, 1e-12);
  // A flow limited elsewhere leaves its share to the others: 1->2 and 0->2
  // share 1->2; 3->0 is alone.
  Schedule t2;
  t2.phases.push_back(phaseOf({{1, 2, 1000}, {0, 2, 1000}, {3, 0, 4000}}));
  EXPECT_NEAR(m.fluidTime(t2), 4e-3, 1e-12);
}

TEST(MachineModel, AutoSyncPicksTheFaster) {
  // Many tiny phases and 1 us per hop: barriers dominate, none wins.
  Topology t = makeTopology("torus:8;bw=1e9;latency=1e-6");
  CostModel m(t);
  m.setSync(SyncKind::Auto);
  Schedule s;
  for (RankId d = 1; d < 8; ++d) {
    Phase p;
    for (RankId r = 0; r < 8; ++r)
      p.transfers.push_back({r, (r + d) % 8, 8});
    s.phases.push_back(p);
  }
  MachineTime mt = m.machineTime(s, allRanks(t), false);
  EXPECT_EQ(mt.chosen, SyncKind::None);
  EXPECT_EQ(mt.barriers, 0);
  // Without latency or set-up barriers are free and keep the phases.
  Topology free = makeTopology("torus:8;bw=1e9");
  CostModel f(free);
  f.setSync(SyncKind::Auto);
  EXPECT_EQ(f.machineTime(s, allRanks(free), false).chosen,
            SyncKind::Barrier);
  EXPECT_FALSE(f.chargesBeyondBandwidth());
  // A relaying schedule without barriers still runs phase after phase.
  MachineTime relayed = m.machineTime(s, allRanks(t), /*relaying=*/true);
  EXPECT_EQ(relayed.chosen, SyncKind::None);
  EXPECT_NEAR(relayed.bandwidth, m.time(s), 1e-15);
}

TEST(MachineModel, MachineBoundSeesSetupsAndLatency) {
  // Ring of 4, 1 us per hop, 10 us per set-up: every rank must set up 3
  // messages (30 us) and the last still travels at least 1 hop.
  Topology t = makeTopology("torus:4;bw=1e9;latency=1e-6;setup=1e-5");
  Problem p(t, alltoall(t, 8));
  EXPECT_NEAR(p.machineBound(), 31e-6, 1e-15);
  Schedule s;
  ASSERT_TRUE(scheduleGreedily(p, s));
  EXPECT_GE(p.cost(s).machine.total(), p.machineBound());
  EXPECT_GE(p.cost(s).machineBound, p.bound().time);
}

TEST(MachineModel, EnvelopeBytesRideWithEveryMessage) {
  // SimGrid's SMPI adds 16 bytes to every message (the SimGrid target sets
  // messageEnvelope): at 1 MB/s 1000 B take 1016 us, and an empty barrier
  // message 16 us.
  std::string error;
  auto desc = TopologyDesc::parse("torus:4;bw=1e6", error);
  ASSERT_TRUE(succeeded(desc)) << error;
  desc->messageEnvelope = 16;
  auto t = Topology::create(*desc, error);
  ASSERT_TRUE(succeeded(t)) << error;
  CostModel m(*t);
  EXPECT_TRUE(m.chargesBeyondBandwidth());
  Schedule s;
  s.phases.push_back(phaseOf({{0, 1, 1000}}));
  s.phases.push_back(phaseOf({{1, 0, 1000}}));
  MachineTime mt = m.machineTime(s, {0, 1}, false);
  EXPECT_NEAR(mt.bandwidth, 2 * 1016e-6, 1e-12);
  EXPECT_NEAR(m.barrierTime({0, 1}), 16e-6, 1e-15);
  EXPECT_NEAR(mt.sync, 16e-6, 1e-15);
  EXPECT_NEAR(m.fluidTime(s), 1016e-6, 1e-12);
  // The spec's bandwidth time does not see it.
  EXPECT_DOUBLE_EQ(m.time(s), 2e-3);
}

} // namespace
