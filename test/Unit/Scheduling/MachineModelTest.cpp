//===- MachineModelTest.cpp - The machine model, worked by hand -----------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// CostModel::machineTime, barrierTime, fluidTime and Problem::machineBound
/// on rings small enough to work out on paper (each test says how), the
/// copy-transfer model, and the cost options of the topology spec.
///
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Collective.h"
#include "phasec/Scheduling/CostModel.h"
#include "phasec/Scheduling/Problem.h"

#include "TestUtil.h"

using namespace phasec;
using namespace phasec::test;

namespace {

Phase phaseOf(std::initializer_list<Transfer> transfers);

/// A schedule of these phases.
Schedule
scheduleOf(std::initializer_list<std::initializer_list<Transfer>> phases) {
  Schedule s;
  for (const auto &transfers : phases)
    s.phases.push_back(phaseOf(transfers));
  return s;
}

Phase phaseOf(std::initializer_list<Transfer> transfers) {
  Phase p;
  p.transfers = transfers;
  return p;
}

/// The ring all-to-all of n ranks as shifts: phase d - 1 sends every rank
/// `bytes` to the rank d after it.
Schedule shiftsOf(RankId n, int64_t bytes) {
  Schedule s;
  for (RankId d = 1; d < n; ++d) {
    Phase p;
    for (RankId r = 0; r < n; ++r)
      p.transfers.push_back({r, (r + d) % n, bytes});
    s.phases.push_back(p);
  }
  return s;
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
  Schedule s = scheduleOf({{{0, 2, 1000}}});
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
  // A ring of 5: no ties, so every route is fixed.
  Topology t = makeTopology("torus:5;bw=1e6");
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
  Schedule t2 = scheduleOf({{{1, 2, 1000}, {0, 2, 1000}, {3, 0, 4000}}});
  EXPECT_NEAR(m.fluidTime(t2), 4e-3, 1e-12);
}

TEST(MachineModel, FluidWeighsSharesByRouteLatency) {
  // SimGrid's CM02 shares a resource in inverse proportion to each flow's
  // route latency. A line 0 - 1 - 2, links and ports at 1 MB/s, 1000 B
  // each: A 0->1 and B 0->2 (two hops) share node 0's port, B and E 1->2
  // share link 1->2, E and F 1->0 share node 1's port.
  Schedule s =
      scheduleOf({{{0, 1, 1000}, {0, 2, 1000}, {1, 2, 1000}, {1, 0, 1000}}});
  // Equal weights (no latency): every flow at 0.5 MB/s, all done at 2 ms.
  Topology flat = makeTopology("mesh:3;bw=1e6;injection=1e6");
  EXPECT_NEAR(CostModel(flat).fluidTime(s), 2e-3, 1e-12);
  // Weighted (1 us a link: B weighs 1/2, the others 1): node 1's port
  // fills first at 0.5 each (E, F); link 1->2 leaves B 0.5, node 0's port
  // gives A 2/3 and B 1/3. A ends at 1.5 ms with B 500 B short; then B
  // 0.5 (link 1->2 beside E) until E and F end at 2 ms, and its last
  // 250 B alone at 1 MB/s: 2.25 ms, node 0's port idle at the end.
  Topology weighted = makeTopology("mesh:3;bw=1e6;injection=1e6;latency=1e-6");
  EXPECT_NEAR(CostModel(weighted).fluidTime(s), 2.25e-3, 1e-12);
  // A packet network shares links packet by packet: equal weights.
  Topology packets =
      makeTopology("mesh:3;bw=1e6;injection=1e6;latency=1e-6;packet=512");
  EXPECT_NEAR(CostModel(packets).fluidTime(s), 2e-3, 1e-12);
}

TEST(MachineModel, FluidRoutesAPairOneWay) {
  // 0->2 on a 4-ring is a tie: its two halves on the two ways around would
  // move at once (1 ms), but posted at once the network routes the pair
  // one way, the first half's: 2000 B over 0->1->2 at 1 MB/s.
  Topology t = makeTopology("torus:4;bw=1e6");
  CostModel m(t);
  Schedule split = scheduleOf({{{0, 2, 1000}}, {{0, 2, 1000}}});
  split.phases[1].transfers[0].ties = 1;
  EXPECT_NEAR(m.fluidTime(split), 2e-3, 1e-12);
  // Each phase alone still takes its own way: 1 ms each.
  EXPECT_NEAR(m.time(split), 2e-3, 1e-12);
  // The other order routes the pair the other way, at the same time.
  std::swap(split.phases[0], split.phases[1]);
  EXPECT_NEAR(m.fluidTime(split), 2e-3, 1e-12);
}

TEST(MachineModel, FluidSpreadsTiesOverTheExchange) {
  // 0->2 and 1->3 on a 4-ring are ties, each in its own phase, both routed
  // "+": 0->1->2 and 1->2->3 share the link 1->2. Posted at once the pairs
  // take the ways that spread the exchange: 1->3 the other way round
  // (1->0->3), no link shared, 1000 B at 1 MB/s: 1 ms, not 2.
  Topology t = makeTopology("torus:4;bw=1e6");
  CostModel m(t);
  Schedule s = scheduleOf({{{0, 2, 1000}}, {{1, 3, 1000}}});
  EXPECT_NEAR(m.fluidTime(s), 1e-3, 1e-12);
  // Phase after phase each takes its own route: 1 ms each.
  EXPECT_NEAR(m.time(s), 2e-3, 1e-12);
  // Routes already spread stay: 1->3 written "-" is the same 1 ms.
  s.phases[1].transfers[0].ties = 1;
  EXPECT_NEAR(m.fluidTime(s), 1e-3, 1e-12);
}

TEST(MachineModel, FluidMakespanStartsEachMessageAfterItsLatency) {
  // Ring of 8, 1 MB/s, 1 us per hop. 0->1 (1000 B, one hop) ends at
  // 1 us + 1 ms; 2->5 (1 B, three hops) at 3 us + 1 us: the exchange
  // 1.001 ms, where its bytes alone take 1 ms and its farthest latency is
  // 3 us (charged one after the other: 1.003 ms).
  Topology t = makeTopology("torus:8;bw=1e6;latency=1e-6");
  CostModel m(t);
  Schedule s = scheduleOf({{{0, 1, 1000}, {2, 5, 1}}});
  EXPECT_NEAR(m.fluidTime(s), 1e-3, 1e-12);
  EXPECT_NEAR(m.fluidMakespan(s), 1.001e-3, 1e-12);
  m.setSync(SyncKind::None);
  MachineTime once = m.machineTime(s, allRanks(t), false);
  EXPECT_NEAR(once.latency, 3e-6, 1e-15);
  EXPECT_NEAR(once.total(), 1.001e-3, 1e-12);
  // Without latency the two are the fluid time.
  Topology fast = makeTopology("torus:8;bw=1e6");
  EXPECT_NEAR(CostModel(fast).fluidMakespan(s), 1e-3, 1e-12);
}

TEST(MachineModel, AutoSyncPicksTheFaster) {
  // Many tiny phases and 1 us per hop: barriers dominate, none wins.
  Topology t = makeTopology("torus:8;bw=1e9;latency=1e-6");
  CostModel m(t);
  m.setSync(SyncKind::Auto);
  Schedule s = shiftsOf(8, 8);
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
  // A relaying schedule without barriers runs each rank's phases as its
  // data arrives; here every rank takes part in every phase, so phase
  // after phase.
  MachineTime relayed = m.machineTime(s, allRanks(t), /*relaying=*/true);
  EXPECT_EQ(relayed.chosen, SyncKind::None);
  EXPECT_NEAR(relayed.bandwidth, m.time(s), 1e-15);
}

/// A relay phase: each transfer carries chunk 0 (a copy).
static Phase relayPhaseOf(std::initializer_list<Transfer> transfers) {
  Phase p = phaseOf(transfers);
  p.chunks.assign(p.transfers.size(), ChunkTransfer{{0}, false});
  return p;
}

/// A relay schedule of these phases, every transfer moving chunk 0.
static Schedule
relayOf(std::initializer_list<std::initializer_list<Transfer>> phases) {
  Schedule s;
  for (const auto &transfers : phases)
    s.phases.push_back(relayPhaseOf(transfers));
  return s;
}

TEST(MachineModel, RelayThatForwardsNothingIsPostedAtOnce) {
  // Ring of 8, 1 MB/s, 1 us per hop. Rank 0 sends chunk 0 to 1, then to 2:
  // it sends only what it held at the start, so without barriers both go
  // at once. 0->1 starts after its 1 us and moves 1 B alone; from 2 us the
  // two share link 0->1 (0.5 MB/s each) until 0->1 ends at 2.000 ms; 0->2's
  // last byte takes 1 us more: 2.001 ms (2 us of it the farther's latency).
  // In lock step: 1.001 ms, then 1.002 ms.
  Topology t = makeTopology("torus:8;bw=1e6;latency=1e-6");
  CostModel m(t);
  m.setSync(SyncKind::None);
  Schedule fan = relayOf({{{0, 1, 1000}}, {{0, 2, 1000}}});
  EXPECT_TRUE(forwardsNothing(fan));
  MachineTime once = m.machineTime(fan, allRanks(t), /*relaying=*/true);
  EXPECT_NEAR(once.total(), 2.001e-3, 1e-12);
  EXPECT_NEAR(once.latency, 2e-6, 1e-15);

  // Rank 1 passing on what it received in phase 0 is a chain: lock step.
  Schedule chain = relayOf({{{0, 1, 1000}}, {{1, 2, 1000}}});
  EXPECT_FALSE(forwardsNothing(chain));
  EXPECT_NEAR(m.machineTime(chain, allRanks(t), true).total(), 2.002e-3,
              1e-12);
  // A phase reads the state at its start: receiving and sending the same
  // chunk in one phase forwards nothing; a direct schedule is not a relay.
  Schedule swap = relayOf({{{0, 1, 1000}, {1, 0, 1000}}});
  EXPECT_TRUE(forwardsNothing(swap));
  Schedule direct = scheduleOf({{{0, 1, 1000}}});
  EXPECT_FALSE(forwardsNothing(direct));
}

TEST(MachineModel, RelayWithoutBarriersRunsAsDataArrives) {
  // Ring of 8, 1 MB/s, 1 us per hop, no injection limit.
  Topology t = makeTopology("torus:8;bw=1e6;latency=1e-6");
  CostModel m(t);
  m.setSync(SyncKind::None);
  Schedule s;
  // Phase 0: 0->1. Phase 1: 1->2 (rank 1 waits for phase 0: 1.001 ms,
  // then 1 us + 1 ms) and 3->4 (ranks 3 and 4 have nothing in phase 0 and
  // start at once). Phase after phase it would be the same 2.002 ms; what
  // the ranks run is the chain 0->1->2.
  s.phases.push_back(phaseOf({{0, 1, 1000}}));
  s.phases.push_back(phaseOf({{1, 2, 1000}, {3, 4, 1000}}));
  MachineTime chain = m.machineTime(s, allRanks(t), /*relaying=*/true);
  EXPECT_NEAR(chain.total(), 2.002e-3, 1e-12);
  EXPECT_NEAR(chain.latency, 2e-6, 1e-15);
  EXPECT_NEAR(chain.bandwidth, 2e-3, 1e-12);

  // Overlapping phases share links: 7->2 (phase 1, 3 hops over 7->0,
  // 0->1, 1->2) starts at once and meets 0->1 (phase 0) on link 0->1.
  // 0->1 moves alone from 1 us to 3 us (2 B), then both at 0.5 MB/s: 0->1
  // ends at 3 + 998 / 0.5 = 1999 us, 7->2 has 2 B left at 1 MB/s: 2001 us.
  // Phase after phase: 1001 + 1003 us.
  Schedule overlap = scheduleOf({{{0, 1, 1000}}, {{7, 2, 1000}}});
  MachineTime shared = m.machineTime(overlap, allRanks(t), true);
  EXPECT_NEAR(shared.total(), 2.001e-3, 1e-12);
  EXPECT_NEAR(shared.latency, 3e-6, 1e-15);
  m.setSync(SyncKind::Barrier);
  EXPECT_NEAR(m.machineTime(overlap, {}, true).total(), 2.004e-3, 1e-12);

  // Set-ups are the sender's, one message after another: rank 0 posts
  // 0->1 at 1 us and 0->7 at 2 us (disjoint links); the later arrives at
  // 2 + 1 + 1000 us.
  Topology setup = makeTopology("torus:8;bw=1e6;latency=1e-6;setup=1e-6");
  CostModel withSetup(setup);
  withSetup.setSync(SyncKind::None);
  Schedule fan = scheduleOf({{{0, 1, 1000}, {0, 7, 1000}}});
  MachineTime sent = withSetup.machineTime(fan, allRanks(setup), true);
  EXPECT_NEAR(sent.total(), 1.003e-3, 1e-12);
  EXPECT_NEAR(sent.setup, 2e-6, 1e-15);
  EXPECT_NEAR(sent.latency, 1e-6, 1e-15);
  // Send order matters (and the cache knows it): 0->7 first, then 0->1,
  // which phase 1 forwards 1->2: 1 + 2 (set-ups) + 1000 us, then 1 + 1000.
  Schedule forward = scheduleOf({{{0, 1, 1000}, {0, 7, 1000}}, {{1, 2, 1000}}});
  Schedule swapped = forward;
  std::swap(swapped.phases[0].transfers[0], swapped.phases[0].transfers[1]);
  EXPECT_NEAR(withSetup.machineTime(forward, allRanks(setup), true).total(),
              1e-6 + 1e-6 + 1000e-6 + 1e-6 + 1e-6 + 1000e-6, 1e-12);
  EXPECT_NEAR(withSetup.machineTime(swapped, allRanks(setup), true).total(),
              2e-6 + 1e-6 + 1000e-6 + 1e-6 + 1e-6 + 1000e-6, 1e-12);
}

TEST(MachineModel, DataflowEdgeCases) {
  Topology t = makeTopology("torus:8;bw=1e6;latency=1e-6;setup=1e-6");
  CostModel m(t);
  m.setSync(SyncKind::None);
  // Empty messages (a relayed barrier's) are sent and waited for: two
  // rounds of one set-up and one hop.
  Schedule barrier =
      scheduleOf({{{0, 1, 0}, {1, 0, 0}}, {{1, 2, 0}, {2, 1, 0}}});
  EXPECT_NEAR(m.machineTime(barrier, allRanks(t), true).total(), 4e-6, 1e-15);
  // A tiny message late in a long schedule: its step is below the clock's
  // resolution at 1000 s, and it still ends (0->1 1e9 B, then 1 B 1->2 and
  // 5 B 3->4, which started at once and ended long before).
  Topology plain = makeTopology("torus:8;bw=1e6;latency=1e-6");
  CostModel p(plain);
  p.setSync(SyncKind::None);
  Schedule late = scheduleOf({{{0, 1, 1000000000}}, {{1, 2, 1}, {3, 4, 5}}});
  MachineTime lt = p.machineTime(late, allRanks(plain), true);
  EXPECT_NEAR(lt.total(), 1000.000003, 1e-9);
}

/// A relay phase whose transfers carry the given chunks (copies).
static Phase
relayPhaseWith(std::initializer_list<std::pair<Transfer, int64_t>> transfers) {
  Phase p;
  for (const auto &[t, chunk] : transfers) {
    p.transfers.push_back(t);
    p.chunks.push_back(ChunkTransfer{{chunk}, false});
  }
  return p;
}

TEST(MachineModel, RelayStepsEndWhereARankForwards) {
  // 0 sends chunk 0 to 7, then to 1 (it held it on entry: one step); 1
  // forwards it to 2 (a new step); 3 sends chunk 3, which nobody received
  // in that step, to 4 (the same step).
  Schedule s;
  s.phases.push_back(relayPhaseWith({{{0, 7, 1000}, 0}}));
  s.phases.push_back(relayPhaseWith({{{0, 1, 1000}, 0}}));
  s.phases.push_back(relayPhaseWith({{{1, 2, 1000}, 0}}));
  s.phases.push_back(relayPhaseWith({{{3, 4, 1000}, 3}}));
  EXPECT_EQ(relaySteps(s), (std::vector<size_t>{0, 2, 4}));
  EXPECT_FALSE(forwardsNothing(s));
  // Receiving twice in a step is no forward; sending what one received in
  // the same phase is none either (a phase reads the state at its start).
  Schedule twice;
  twice.phases.push_back(relayPhaseWith({{{0, 2, 8}, 0}, {{2, 0, 8}, 2}}));
  twice.phases.push_back(relayPhaseWith({{{1, 2, 8}, 1}}));
  EXPECT_EQ(relaySteps(twice), (std::vector<size_t>{0, 2}));
  EXPECT_TRUE(forwardsNothing(twice));
  // Without chunks nothing is known: a step per phase.
  Schedule direct = scheduleOf({{{0, 1, 8}}, {{2, 3, 8}}});
  EXPECT_EQ(relaySteps(direct), (std::vector<size_t>{0, 1, 2}));
  EXPECT_TRUE(relaySteps(Schedule()).empty());

  // Ring of 8, 1 MB/s, 1 us per hop. Phase by phase (sync local) rank 0
  // sends 0->7 (1 + 1000 us), then 0->1 (ends at 2002 us), which 1
  // forwards: 3003 us. By steps (sync none) 0->7 and 0->1 go at once on
  // disjoint links, 1 forwards at 1001 us: 2002 us.
  Topology t = makeTopology("torus:8;bw=1e6;latency=1e-6");
  CostModel m(t);
  Schedule chain;
  chain.phases.assign(s.phases.begin(), s.phases.begin() + 3);
  m.setSync(SyncKind::Local);
  EXPECT_NEAR(m.machineTime(chain, allRanks(t), true).total(), 3.003e-3, 1e-12);
  m.setSync(SyncKind::None);
  MachineTime steps = m.machineTime(chain, allRanks(t), true);
  EXPECT_NEAR(steps.total(), 2.002e-3, 1e-12);
  EXPECT_NEAR(steps.latency, 2e-6, 1e-15);
  // Off a packet network a step's phases share the links fairly: no
  // contention term.
  EXPECT_EQ(steps.contention, 0);
  // Auto takes the steps.
  m.setSync(SyncKind::Auto);
  EXPECT_EQ(m.machineTime(chain, allRanks(t), true).chosen, SyncKind::None);
}

TEST(MachineModel, SendOrderRotatesEachSendersDestinations) {
  // Group {1, 3, 4, 6} (members 0..3). In (src, dst) order every sender's
  // first message goes to the lowest member; by (dst - src) mod 4 each
  // sender starts with its next member. A receiver's transfers stay in
  // sender order; a transfer leaving the group goes last.
  Phase phase = phaseOf({{1, 3, 8},
                         {1, 4, 8},
                         {1, 6, 8},
                         {4, 1, 8},
                         {4, 3, 8},
                         {4, 6, 8},
                         {6, 1, 8},
                         {6, 2, 8},
                         {6, 4, 8}});
  std::vector<RankId> group{1, 3, 4, 6};
  EXPECT_EQ(sendOrder(phase, group),
            (std::vector<size_t>{0, 1, 2, 5, 3, 4, 6, 8, 7}));
  EXPECT_TRUE(sendOrder(Phase(), group).empty());
}

TEST(MachineModel, SetupsOverlapWhatIsAlreadyPosted) {
  // Ring of 8, 1 MB/s, 1 us per hop, 1 ms per set-up: 0 posts 0->1 and
  // 0->2 (both over link 0->1) at once. 0->1 is posted after its set-up
  // (1 ms), moves from 1001 to 2001 us; 0->2, posted at 2 ms, pays 2 us of
  // hops and moves alone: 3002 us. Set-ups after the bytes would say
  // 2 ms + 2000 us (the link shared) + 2 us.
  Topology t = makeTopology("torus:8;bw=1e6;latency=1e-6;setup=1e-3");
  CostModel m(t);
  m.setSync(SyncKind::None);
  Schedule fan = scheduleOf({{{0, 1, 1000}}, {{0, 2, 1000}}});
  MachineTime once = m.machineTime(fan, allRanks(t), false);
  EXPECT_NEAR(once.total(), 3.002e-3, 1e-12);
  EXPECT_NEAR(once.setup, 2e-3, 1e-15);
  EXPECT_NEAR(once.latency, 2e-6, 1e-15);
}
TEST(MachineModel, MachineBoundSeesSetupsAndLatency) {
  // Ring of 4, 1 us per hop, 10 us per set-up: every rank's data must reach
  // 3 others, which takes 2 set-ups one after the other even relayed (the
  // ranks that hold it at most double per set-up: 20 us), and the last
  // message still travels at least 1 hop. Direct, a rank sets up its 3
  // messages itself (31 us), but the bound is the operation's.
  Topology t = makeTopology("torus:4;bw=1e9;latency=1e-6;setup=1e-5");
  Problem p(t, alltoall(t, 8));
  EXPECT_NEAR(p.machineBound(), 21e-6, 1e-15);
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
  Schedule s = scheduleOf({{{0, 1, 1000}}, {{1, 0, 1000}}});
  MachineTime mt = m.machineTime(s, {0, 1}, false);
  EXPECT_NEAR(mt.bandwidth, 2 * 1016e-6, 1e-12);
  EXPECT_NEAR(m.barrierTime({0, 1}), 16e-6, 1e-15);
  EXPECT_NEAR(mt.sync, 16e-6, 1e-15);
  EXPECT_NEAR(m.fluidTime(s), 1016e-6, 1e-12);
  // The spec's bandwidth time does not see it.
  EXPECT_DOUBLE_EQ(m.time(s), 2e-3);
}

/// A 1-D array of `n` elements of `bytes` bytes, by rows.
ArrayLayout vectorLayout(int64_t n, int64_t bytes) {
  ArrayLayout a;
  a.shape = {n};
  a.elementBytes = bytes;
  return a;
}

TEST(MachineModel, CopyTransferOfATranspose) {
  // A 40 x 40 byte array by rows over a ring of 4: 100 bytes from every
  // rank to every other. Links and ports at 2 MB/s, strided copies at
  // 0.5 MB/s.
  Topology t = makeTopology(
      "torus:4;bw=2e6;injection=2e6;copy=1e9;copy_strided=5e5");
  Collective c = collectiveOver(t, CollectiveKind::Transpose);
  ArrayLayout a;
  a.shape = {40, 40};
  a.elementBytes = 1;
  c.from = c.to = a;
  EXPECT_EQ(c.copyPattern(), CopyPattern::Strided);
  EXPECT_TRUE(Collective::hasTransferStyle(c.kind, false));
  TransferSet set;
  ASSERT_TRUE(lowers(c, set));
  ASSERT_EQ(set.uniformBytes(), 100);
  // Four phases of 50 us each: the shifts by 1 and by 3 (every rank sends
  // and receives 100 B), and the shift by 2 in two halves whose routes
  // share no link (0 <-> 2, then 1 <-> 3).
  Schedule s;
  for (int64_t d : {1, 3}) {
    Phase p;
    for (RankId r = 0; r < 4; ++r)
      p.transfers.push_back({r, static_cast<RankId>((r + d) % 4), 100});
    s.phases.push_back(p);
  }
  s.phases.push_back(phaseOf({{0, 2, 100}, {2, 0, 100}}));
  s.phases.push_back(phaseOf({{1, 3, 100}, {3, 1, 100}}));
  CostModel m(t);
  m.setCopy(c.copyPattern(), TransferStyle::Packing);
  EXPECT_DOUBLE_EQ(m.copyRate(), 5e5);
  EXPECT_TRUE(m.chargesBeyondBandwidth());
  // Packing: every phase's busiest rank packs 100 B and unpacks 100 B,
  // 400 us, after the transfer.
  MachineTime packing = m.machineTime(s, allRanks(t), false);
  EXPECT_NEAR(packing.bandwidth, 200e-6, 1e-12);
  EXPECT_NEAR(packing.copy, 4 * 400e-6, 1e-12);
  EXPECT_EQ(packing.style, TransferStyle::Packing);
  EXPECT_EQ(packing.copyPattern, CopyPattern::Strided);
  // Chained: every phase streams 100 B at 0.5 MB/s (200 us) while its
  // transfer takes 50 us: 150 us more per phase.
  m.setCopy(c.copyPattern(), TransferStyle::Chained);
  MachineTime chained = m.machineTime(s, allRanks(t), false);
  EXPECT_NEAR(chained.copy, 4 * 150e-6, 1e-12);
  EXPECT_NEAR(chained.total(), 800e-6, 1e-12);
  // Direct deposit streams as chained does.
  m.setCopy(c.copyPattern(), TransferStyle::DirectDeposit);
  EXPECT_NEAR(m.machineTime(s, allRanks(t), false).total(), 800e-6, 1e-12);
  // Auto takes the faster: chained.
  m.setCopy(c.copyPattern(), TransferStyle::Auto);
  MachineTime chosen = m.machineTime(s, allRanks(t), false);
  EXPECT_EQ(chosen.style, TransferStyle::Chained);
  EXPECT_NEAR(chosen.total(), 800e-6, 1e-12);
  // The spec's bandwidth time does not see copies.
  EXPECT_NEAR(m.time(s), 200e-6, 1e-12);
  // The bound: packing, 150 us of port time plus every rank's 300 B
  // packed and 300 B unpacked (1.2 ms); chained, 300 B streamed (600 us).
  CostModel packed(t);
  packed.setCopy(c.copyPattern(), TransferStyle::Packing);
  EXPECT_NEAR(Problem(t, set, packed).machineBound(), 1350e-6, 1e-12);
  EXPECT_NEAR(Problem(t, set, m).machineBound(), 600e-6, 1e-12);
}

TEST(MachineModel, CopyTransferOfAnElementPermute) {
  // Eight 4-byte elements over a ring of 4, each moved two places on: rank
  // r's two elements go to rank r + 1 (8 B). Links at 1 MB/s (8 us),
  // gathers at 1 kB/s.
  Topology t = makeTopology("torus:4;bw=1e6;copy=1e9;copy_gather=1000");
  Collective c = collectiveOver(t, CollectiveKind::Permute);
  c.from = c.to = vectorLayout(8, 4);
  c.permutation.kind = PermuteKind::Shift;
  c.permutation.shift = 2;
  EXPECT_EQ(c.copyPattern(), CopyPattern::Gather);
  TransferSet set;
  ASSERT_TRUE(lowers(c, set));
  ASSERT_EQ(set.size(), 4u);
  EXPECT_EQ(set.lookup(3, 0), 8);
  Schedule s;
  Phase p;
  for (const Demand &d : set)
    p.transfers.push_back({d.src, d.dst, d.bytes});
  s.phases.push_back(p);
  CostModel m(t);
  // Packing: gather 8 B, send, scatter 8 B: 8 ms + 8 us + 8 ms.
  m.setCopy(c.copyPattern(), TransferStyle::Packing);
  EXPECT_NEAR(m.machineTime(s, allRanks(t), false).total(), 16.008e-3,
              1e-12);
  // Chained: the 8 us transfer hides under the 8 ms stream.
  m.setCopy(c.copyPattern(), TransferStyle::Chained);
  MachineTime chained = m.machineTime(s, allRanks(t), false);
  EXPECT_NEAR(chained.copy, 8e-3 - 8e-6, 1e-12);
  EXPECT_NEAR(chained.total(), 8e-3, 1e-12);
  EXPECT_EQ(CostModel::describe(chained),
            "8 ms = 8 us bandwidth + 0 s set-up + 0 s latency + 7.992 ms "
            "copy (chained, gather at 0.001 MB/s)");
  // A block permute of the same bytes copies contiguously, at 1 GB/s.
  Collective blocks = collectiveOver(t, CollectiveKind::Permute);
  EXPECT_EQ(blocks.copyPattern(), CopyPattern::Contiguous);
  EXPECT_FALSE(Collective::hasTransferStyle(blocks.kind, false));
}

TEST(MachineModel, AMissingCopyRateIsFree) {
  // The machine gives contiguous and strided rates, no gather rate: an
  // element permute's copies cost nothing, and auto keeps packing.
  Topology t = makeTopology("torus:4;bw=1e6;copy=1e6;copy_strided=1e6");
  Schedule s = scheduleOf({{{0, 1, 8}, {1, 2, 8}}});
  CostModel m(t);
  m.setCopy(CopyPattern::Gather, TransferStyle::Auto);
  EXPECT_EQ(m.copyRate(), 0);
  EXPECT_FALSE(m.chargesBeyondBandwidth());
  MachineTime mt = m.machineTime(s, allRanks(t), false);
  EXPECT_EQ(mt.copy, 0);
  EXPECT_EQ(mt.style, TransferStyle::Packing);
  EXPECT_NEAR(mt.total(), 8e-6, 1e-15);
  EXPECT_EQ(CostModel::describe(mt),
            "8 us = 8 us bandwidth + 0 s set-up + 0 s latency");
  // Without setCopy nothing is copied either (what the SimGrid prediction
  // uses: the simulation moves bytes, not copies).
  EXPECT_EQ(CostModel(t).copyRate(), 0);
}

TEST(MachineModel, CopiesCanMakeStreamingWin) {
  // Free barriers, but copies at 0.1 MB/s: phased, 0 -> 1 and then 2 -> 3
  // each stream 1000 B (10 ms + 10 ms); posted at once they overlap
  // (10 ms), so auto gives up the barriers.
  Topology t = makeTopology("torus:4;bw=1e9;copy_gather=1e5");
  Schedule s = scheduleOf({{{0, 1, 1000}}, {{2, 3, 1000}}});
  CostModel m(t);
  m.setCopy(CopyPattern::Gather, TransferStyle::Chained);
  m.setSync(SyncKind::Auto);
  MachineTime mt = m.machineTime(s, allRanks(t), false);
  EXPECT_EQ(mt.chosen, SyncKind::None);
  EXPECT_NEAR(mt.total(), 10e-3, 1e-12);
  m.setSync(SyncKind::Barrier);
  EXPECT_NEAR(m.machineTime(s, allRanks(t), false).total(), 20e-3, 1e-12);
}

} // namespace

TEST(MachineModel, ContentionOfDriftingPhasesWorkedByHand) {
  // A line of three nodes, 100 MB/s, 0.1 us a hop, 32-byte packets with
  // 4-byte headers, 2-packet buffers. The all-to-all of 1 KiB blocks in two
  // phases: a packet takes 36 B / 1e8 B/s = 0.36 us a hop, a message 32
  // packets. A sender one hop from its receiver finishes its phase after
  // (32 + 1 - 1) * 0.36 + 0.1 = 11.62 us, one two hops away after
  // 33 * 0.36 + 0.2 = 12.08 us: each phase's skew is 0.46 / 12.08.
  Topology t =
      makeTopology("mesh:3;bw=1e8;latency=1e-7;packet=32;header=4;buffer=2");
  CostModel m(t);
  Schedule s = scheduleOf({{{0, 1, 1024}, {1, 2, 1024}, {2, 0, 1024}},
                           {{0, 2, 1024}, {1, 0, 1024}, {2, 1, 1024}}});
  CostModel::Contention c = m.contention(s);
  EXPECT_NEAR(c.drift, 2 * 0.46 / 12.08, 1e-12);
  EXPECT_DOUBLE_EQ(c.packets, 32);
  EXPECT_DOUBLE_EQ(c.hops, 8.0 / 6.0);
  EXPECT_EQ(c.buffer, 2);
  EXPECT_DOUBLE_EQ(c.factor, CostModel::Contention::factorFor(
                                 32, 2, 8.0 / 6.0, 2 * 0.46 / 12.08));
  EXPECT_GT(c.factor, 1);
  // A third phase in which only node 0 sends: nodes 1 and 2 finish it at
  // once, a skew of 1.
  Schedule idle = s;
  idle.phases.push_back(phaseOf({{0, 1, 1024}}));
  EXPECT_NEAR(m.contention(idle).drift, 1 + 2 * 0.46 / 12.08, 1e-12);
  // Without barriers the machine time charges the fluid time times the
  // factor; with them nothing.
  m.setSync(SyncKind::None);
  MachineTime none = m.machineTime(s, allRanks(t), false);
  EXPECT_NEAR(none.contention, m.fluidTime(s) * (c.factor - 1), 1e-18);
  m.setSync(SyncKind::Barrier);
  EXPECT_EQ(m.machineTime(s, allRanks(t), false).contention, 0);

  // Lockstep phases (every sender alike) do not drift: a ring's shifts.
  Topology ring = makeTopology("torus:4;bw=1e8;packet=32;buffer=2");
  EXPECT_EQ(CostModel(ring).contention(shiftsOf(4, 4096)).factor, 1);
  // Without packets the machine is the fluid model's: no term.
  Topology fluid = makeTopology("mesh:3;bw=1e8;latency=1e-7");
  EXPECT_FALSE(CostModel(fluid).packetNetwork());
  EXPECT_EQ(CostModel(fluid).contention(s).factor, 1);
}

TEST(MachineModel, ContentionFactorShape) {
  using C = CostModel::Contention;
  // No drift, no term; more drift, more blocking (longer messages against
  // the buffer, more hops) and the factor grows; past a message per
  // buffer the blocking part stops growing with the message.
  EXPECT_EQ(C::factorFor(128, 2, 5, 0), 1);
  EXPECT_LT(C::factorFor(128, 2, 5, 1), C::factorFor(128, 2, 5, 10));
  EXPECT_LT(C::factorFor(1, 2, 5, 10), C::factorFor(128, 2, 5, 10));
  EXPECT_LT(C::factorFor(128, 2, 2, 10), C::factorFor(128, 2, 5, 10));
  EXPECT_EQ(C::factorFor(128, 2, 5, 10), C::factorFor(256, 2, 5, 10));
  // Buffers that hold whole messages leave less of it, and deeper ones
  // still less.
  EXPECT_LT(C::factorFor(32, 64, 5, 10), C::factorFor(32, 2, 5, 10));
  EXPECT_LT(C::factorFor(32, 1 << 20, 5, 10), C::factorFor(32, 64, 5, 10));
}
