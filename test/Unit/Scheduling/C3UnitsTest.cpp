//===- C3UnitsTest.cpp - C^3 units against hand computations --------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Seed 003's C^3 charges worked out by hand on machines of 4 to 16
/// processors: the submachine parameters, S_i + R_i for each row of the
/// seed's Figure 1, C_l and C_p, the seed's form (set-ups x s + coefficient
/// x L with "p for p - 1") against the exact charge at a size, computation
/// units, and how rounds are cut into groups on submachines.
///
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/C3Units.h"

#include "TestUtil.h"

using namespace phasec;
using namespace phasec::c3;
using namespace phasec::test;

namespace {

constexpr double kEps = 1e-9;

Submachine line(int64_t e) { return makeSubmachine({e}, {false}); }

Params delta(Switching routing = Switching::Wormhole,
             SendProtocol sends = SendProtocol::Nonblocking) {
  Params p;
  p.packetLength = 512;
  p.setup = 8;
  p.routing = routing;
  p.sends = sends;
  return p;
}

/// Node 0 of a line of 4 sends one message of L bytes to each other node.
Group oneToAllOnLineOfFour() {
  return {line(4), {{0, 1, 1.0}, {0, 2, 1.0}, {0, 3, 1.0}}};
}

TEST(C3Units, Submachines) {
  // A line of 16: the mean distance over distinct pairs is (16 + 1) / 3;
  // one link across the middle.
  Submachine l16 = line(16);
  EXPECT_EQ(l16.processors, 16);
  EXPECT_EQ(l16.bisection, 1);
  EXPECT_NEAR(l16.distance, 17.0 / 3, kEps);
  EXPECT_EQ(l16.describe(), "line 16");
  // The Delta: 2 * 16 / 3 (the seed rounds it to 10), 16 links across.
  Submachine delta = makeSubmachine({16, 16}, {false, false});
  EXPECT_EQ(delta.bisection, 16);
  EXPECT_NEAR(delta.distance, 32.0 / 3, kEps);
  EXPECT_EQ(delta.describe(), "mesh 16x16");
  // A ring of 4: distances 1, 2, 1 from each node; a cut crosses 2 links.
  Submachine ring = makeSubmachine({4}, {true});
  EXPECT_EQ(ring.bisection, 2);
  EXPECT_NEAR(ring.distance, 4.0 / 3, kEps);
  EXPECT_EQ(ring.describe(), "ring 4");
  // A 4 x 2 mesh: cut the long side (2 links), distances (5/4 + 1/2) * 8/7.
  Submachine rect = makeSubmachine({4, 2}, {false, false});
  EXPECT_EQ(rect.bisection, 2);
  EXPECT_NEAR(rect.distance, 2.0, kEps);
  EXPECT_EQ(makeSubmachine({1, 1}, {false, false}).describe(), "1 processor");
}

TEST(C3Units, OneToAllWormholeNonblocking) {
  // Seed form: 3 sends are charged 4 ("p for p - 1"), packets L / 512:
  // S = 4s + 4L/512 + h; cong = 3 + 1 = 4 on b = 1, p = 4, h = 5/3:
  // C_l = L/512 * 4, C_p = L/512 * ceil(4/4) * 5/3.
  GroupCharge c = chargeGroup(oneToAllOnLineOfFour(), delta());
  EXPECT_NEAR(c.sendReceive.setups, 4, kEps);
  EXPECT_NEAR(c.sendReceive.perL, 4.0 / 512, kEps);
  EXPECT_NEAR(c.sendReceive.constant, 5.0 / 3, kEps);
  EXPECT_NEAR(c.linkCongestion.perL, 4.0 / 512, kEps);
  EXPECT_NEAR(c.processorCongestion.perL, 5.0 / 3 / 512, kEps);
  EXPECT_NEAR(c.total().perL, (8 + 5.0 / 3) / 512, kEps);
  // Exact at L = 1024 (2 packets a message): S = 3 * 8 + 6 + 5/3 at the
  // root; cong = 3, L_a = 2: C_l = 2 * 3, C_p = 2 * ceil(3/4) * 5/3.
  EXPECT_NEAR(chargeGroupAt(oneToAllOnLineOfFour(), delta(), 1024),
              24 + 6 + 5.0 / 3 + 6 + 10.0 / 3, kEps);
  // 600 bytes are 2 packets too (ceilings), 512 one.
  EXPECT_NEAR(chargeGroupAt(oneToAllOnLineOfFour(), delta(), 600),
              24 + 6 + 5.0 / 3 + 6 + 10.0 / 3, kEps);
  EXPECT_NEAR(chargeGroupAt(oneToAllOnLineOfFour(), delta(), 512),
              24 + 3 + 5.0 / 3 + 3 + 5.0 / 3, kEps);
}

TEST(C3Units, FigureOneRows) {
  // The same one-to-all at L = 1024 (P = 2 packets, h = 5/3, s = 8) under
  // the other three protocols; C_l + C_p = 6 + 10/3 throughout.
  const double h = 5.0 / 3, congestion = 6 + 10.0 / 3;
  // SF, nbs: s n_s + h * P_max + sum P.
  EXPECT_NEAR(chargeGroupAt(oneToAllOnLineOfFour(),
                            delta(Switching::StoreAndForward), 1024),
              24 + h * 2 + 6 + congestion, kEps);
  // WH, bs: 2(s + h) n_s + h + sum P at the root; a receiver's
  // (s + h) n_r + h + sum P is smaller.
  EXPECT_NEAR(chargeGroupAt(oneToAllOnLineOfFour(),
                            delta(Switching::Wormhole, SendProtocol::Blocking),
                            1024),
              2 * (8 + h) * 3 + h + 6 + congestion, kEps);
  // SF, bs: 2(s + h) n_s + h sum P.
  EXPECT_NEAR(
      chargeGroupAt(oneToAllOnLineOfFour(),
                    delta(Switching::StoreAndForward, SendProtocol::Blocking),
                    1024),
      2 * (8 + h) * 3 + h * 6 + congestion, kEps);
  // Seed form of SF, bs: 2 x 4 set-ups, the additive 2 h n_s in the
  // constant, h * 4L/512 per L.
  GroupCharge sfbs =
      chargeGroup(oneToAllOnLineOfFour(),
                  delta(Switching::StoreAndForward, SendProtocol::Blocking));
  EXPECT_NEAR(sfbs.sendReceive.setups, 8, kEps);
  EXPECT_NEAR(sfbs.sendReceive.constant, 2 * h * 4, kEps);
  EXPECT_NEAR(sfbs.sendReceive.perL, h * 4 / 512, kEps);
}

TEST(C3Units, AllToOneTakesTheMaximum) {
  // Three senders to node 0: a sender's S = s + P + h, the root's R = 3P.
  Group g{line(4), {{1, 0, 1.0}, {2, 0, 1.0}, {3, 0, 1.0}}};
  // Seed form, term by term: 1 set-up (a sender), 4 L/512 (the root,
  // "p for p - 1"), h.
  GroupCharge c = chargeGroup(g, delta());
  EXPECT_NEAR(c.sendReceive.setups, 1, kEps);
  EXPECT_NEAR(c.sendReceive.perL, 4.0 / 512, kEps);
  EXPECT_NEAR(c.sendReceive.constant, 5.0 / 3, kEps);
  // Exact at L = 512: max(8 + 1 + 5/3, 3) + C_l 1 * 3 + C_p 1 * 1 * 5/3.
  EXPECT_NEAR(chargeGroupAt(g, delta(), 512), 8 + 1 + 5.0 / 3 + 3 + 5.0 / 3,
              kEps);
  // With s = 0 the root's 3 packets are the maximum.
  Params free = delta();
  free.setup = 0;
  EXPECT_NEAR(chargeGroupAt(g, free, 512), 3 + 3 + 5.0 / 3, kEps);
}

TEST(C3Units, SuperstepsOnSubmachines) {
  // 2-lev-rec on a 4 x 4 mesh: node 0 sends each row's 4 blocks to the
  // row's first node (a column), which sends them along its row.
  Topology topo = makeTopology("mesh:4x4");
  std::vector<std::vector<Message>> rounds(2);
  for (NodeId y = 1; y < 4; ++y)
    rounds[0].push_back({0, 4 * y, 4.0});
  for (NodeId y = 0; y < 4; ++y)
    for (NodeId x = 1; x < 4; ++x)
      rounds[1].push_back({4 * y, 4 * y + x, 1.0});
  std::string error;
  auto steps = makeSupersteps(topo, rounds, /*gathers=*/false, error);
  ASSERT_TRUE(succeeded(steps)) << error;
  ASSERT_EQ(steps->size(), 2u);
  // The column fills its bounding box: a line of 4, not the mesh.
  ASSERT_EQ((*steps)[0].groups.size(), 1u);
  EXPECT_EQ((*steps)[0].groups[0].machine.describe(), "line 4");
  ASSERT_EQ((*steps)[1].groups.size(), 4u);
  for (const Group &g : (*steps)[1].groups)
    EXPECT_EQ(g.machine.describe(), "line 4");
  // Each superstep: 4s + (4 + 4 + 5/3) * (block)/512 L; the first moves
  // 4 blocks a message, the second 1.
  AlgorithmCharge charge = chargeAlgorithm(*steps, delta());
  EXPECT_NEAR(charge.totalCommunication.setups, 8, kEps);
  EXPECT_NEAR(charge.totalCommunication.perL, (4 + 1) * (8 + 5.0 / 3) / 512,
              kEps);
  // Computation: the row leaders receive 4 L, then everyone L.
  EXPECT_NEAR(charge.totalComputation.perL, 5.0 / 512, kEps);
  EXPECT_NEAR(computeAlgorithmAt(*steps, delta(), 1024), 8 + 2, kEps);
  // Small messages: at least one unit per superstep.
  EXPECT_NEAR(computeAlgorithmAt(*steps, delta(), 16), 2, kEps);
}

TEST(C3Units, SpreadGroupsRunOnTheRegionTheyServe) {
  // A binomial heap on a line of 4: 0 -> 2, then 0 -> 1 and 2 -> 3. The
  // first group {0, 2} does not fill 0..2; its data reaches 1 and 3 later,
  // so it runs on the whole line of 4 (h = 5/3). The second round's pairs
  // are adjacent: lines of 2.
  Topology topo = makeTopology("mesh:4");
  std::vector<std::vector<Message>> rounds = {{{0, 2, 2.0}},
                                              {{0, 1, 1.0}, {2, 3, 1.0}}};
  std::string error;
  auto steps = makeSupersteps(topo, rounds, /*gathers=*/false, error);
  ASSERT_TRUE(succeeded(steps)) << error;
  EXPECT_EQ((*steps)[0].groups[0].machine.describe(), "line 4");
  EXPECT_EQ((*steps)[1].groups.size(), 2u);
  EXPECT_EQ((*steps)[1].groups[1].machine.describe(), "line 2");
  // Upside down (a gather): the last round's group is the spread one and
  // reaches back to the first round's senders.
  std::vector<std::vector<Message>> up = {{{1, 0, 1.0}, {3, 2, 1.0}},
                                          {{2, 0, 2.0}}};
  auto gather = makeSupersteps(topo, up, /*gathers=*/true, error);
  ASSERT_TRUE(succeeded(gather)) << error;
  EXPECT_EQ((*gather)[1].groups[0].machine.describe(), "line 4");
  // One message a step, 2L then L: (1 + 1 + h) * size / 512 each.
  AlgorithmCharge charge = chargeAlgorithm(*steps, delta());
  EXPECT_NEAR(charge.totalCommunication.setups, 2, kEps);
  EXPECT_NEAR(charge.totalCommunication.perL,
              (2 * (2 + 5.0 / 3) + 1 * (2 + 1)) / 512, kEps);
  EXPECT_NEAR(chargeAlgorithm(*gather, delta()).totalCommunication.perL,
              charge.totalCommunication.perL, kEps);
}

TEST(C3Units, CongestionCountsPairs) {
  // Node 0 sends node 1 two messages of L and node 2 one: cong = 2 pairs,
  // L_a = 3 packets / 2 pairs at L = 512; on a line of 4 (b = 1, p = 4,
  // h = 5/3): C_l = 1.5 * 2, C_p = 1.5 * 1 * 5/3; S = 3s + 3 + h.
  Group g{line(4), {{0, 1, 1.0}, {0, 1, 1.0}, {0, 2, 1.0}}};
  EXPECT_NEAR(chargeGroupAt(g, delta(), 512),
              24 + 3 + 5.0 / 3 + 3 + 1.5 * 5.0 / 3, kEps);
}

TEST(C3Units, RefusesMachinesWithoutGrids) {
  Topology topo = makeTopology("mesh:4;ranks=2");
  std::string error;
  EXPECT_TRUE(failed(makeSupersteps(topo, {{{0, 1, 1.0}}}, false, error)));
  EXPECT_EQ(error, "C^3 units charge processors of a mesh, torus or "
                   "hypercube, one rank per node");
}

} // namespace
