//===- BoundsTest.cpp - Lower bounds against hand computations ------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Uniform all-to-all bounds worked out by hand (see each test), and a
/// brute-force soundness check of the tie handling: on small tori the bound
/// never exceeds the best max link load over every choice of tie directions.
///
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Bounds.h"
#include "phasec/Scheduling/Baselines.h"

#include "TestUtil.h"

#include <random>

using namespace phasec;
using namespace phasec::test;

namespace {

TEST(Bounds, T3DAlltoall) {
  // Ring of 8: forced 1+2+3 plus the tie 4 split over both ways = 8 hops per
  // source in each direction over 8 links: 8 * 512 / 8 = 512 blocks.
  Topology t = makeTopology("torus:8x4x8x2");
  Problem p(t, alltoall(t, 32768));
  LowerBound link = linkLoadBound(p);
  EXPECT_DOUBLE_EQ(link.blocks, 512);
  EXPECT_DOUBLE_EQ(link.time, 512.0 * 32768);
  EXPECT_NE(link.reason.find("ties split evenly"), std::string::npos)
      << link.reason;
  // One-port: each node sends 511 blocks.
  Problem onePort(t, alltoall(t, 32768), CostModel::onePort(t));
  LowerBound inj = injectionBound(onePort);
  EXPECT_DOUBLE_EQ(inj.blocks, 511);
  EXPECT_DOUBLE_EQ(onePort.bound().blocks, 512);
  // Without an injection bandwidth there is no injection bound.
  EXPECT_EQ(injectionBound(p).time, 0);
}

/// A complete exchange on a torus is bounded from the ranks of node 0 (its
/// loads are the same in every class of links): the same bound, reasons
/// and phase count as from every demand, here listed demand by demand.
TEST(Bounds, CompleteExchangeFromOneNode) {
  for (const char *spec : {"torus:8x4x8x2", "torus:6x3;ranks=2", "torus:2x2x2",
                           "torus:5x1x4", "torus:4x6;injection=link",
                           "torus:3x3;ranks=3;injection=1e6", "torus:7"}) {
    SCOPED_TRACE(spec);
    Topology t = makeTopology(spec);
    TransferSet rule = alltoall(t, 96);
    ASSERT_TRUE(rule.allPairsMembers());
    std::vector<Demand> demands(rule.begin(), rule.end());
    TransferSet listed(demands);
    ASSERT_FALSE(listed.allPairsMembers());
    Problem a(t, rule, CostModel::onePort(t)),
        b(t, listed, CostModel::onePort(t));
    for (auto bound : {&linkLoadBound, &injectionBound, &computeLowerBound}) {
      LowerBound x = bound(a), y = bound(b);
      EXPECT_EQ(x.time, y.time);
      EXPECT_EQ(x.reason, y.reason);
      EXPECT_EQ(x.blocks, y.blocks);
      EXPECT_EQ(x.minPhases, y.minPhases);
      EXPECT_EQ(x.phasesReason, y.phasesReason);
    }
    EXPECT_EQ(forcedLinkLoad(a), forcedLinkLoad(b));
  }
}

TEST(Bounds, Torus4x4x4OnePort) {
  // Ring of 4: 1 + 2/2 = 2 per source per direction -> 2 * 64 / 4 = 32
  // blocks per link; one-port: 63 blocks.
  Topology t = makeTopology("torus:4x4x4;injection=link");
  Problem p(t, alltoall(t, 1));
  EXPECT_DOUBLE_EQ(linkLoadBound(p).blocks, 32);
  LowerBound b = computeLowerBound(p);
  EXPECT_DOUBLE_EQ(b.blocks, 63);
  EXPECT_NE(b.reason.find("injection"), std::string::npos) << b.reason;
}

/// The bound of the all-to-all of `block` bytes on the machine `spec`.
static LowerBound alltoallBound(const char *spec, int64_t block) {
  Topology t = makeTopology(spec);
  return computeLowerBound(Problem(t, alltoall(t, block)));
}

TEST(Bounds, Mesh8x8) {
  // The middle link of a row: 4 sources x 4 destination columns x 8 rows =
  // k^3/4 = 128.
  LowerBound b = alltoallBound("mesh:8x8", 10);
  EXPECT_DOUBLE_EQ(b.blocks, 128);
  EXPECT_DOUBLE_EQ(b.time, 1280);
}

TEST(Bounds, Hypercube) {
  for (unsigned n = 1; n <= 6; ++n) {
    Topology t = makeTopology(("hypercube:" + std::to_string(n)).c_str());
    int64_t P = int64_t(1) << n;
    Problem p(t, alltoall(t, 1));
    // Every link carries P/2 blocks; one port bounds by P-1.
    EXPECT_DOUBLE_EQ(linkLoadBound(p).blocks, P / 2) << n;
    Problem onePort(t, alltoall(t, 1), CostModel::onePort(t));
    EXPECT_DOUBLE_EQ(onePort.bound().blocks, P - 1) << n;
  }
}

TEST(Bounds, PercsSupernode32x32) {
  // Every ordered node pair has its own link carrying 32 x 32 blocks; the
  // LR links are the slow ones: 1024 blocks at 5 GB/s.
  Topology t = makeTopology("percs:supernodes=1,drawers=4,nodes=8,ranks=32");
  Problem p(t, alltoall(t, 65536));
  LowerBound b = computeLowerBound(p);
  EXPECT_DOUBLE_EQ(b.blocks, 1024);
  // 32 ranks of a node share each outgoing link.
  EXPECT_EQ(b.minPhases, 32);
  EXPECT_NEAR(b.time, 1024.0 * 65536 / 5e9, 1e-15);
  EXPECT_NE(b.reason.find("(LR)"), std::string::npos) << b.reason;
  // One-port does not apply to PERCS nodes; an explicit injection bandwidth
  // does: 31 x 32 x 32 blocks leave each node.
  Problem onePort(t, alltoall(t, 65536), CostModel::onePort(t));
  EXPECT_DOUBLE_EQ(onePort.bound().blocks, 1024);
  Topology inj = makeTopology(
      "percs:supernodes=1,drawers=4,nodes=8,ranks=32;injection=5e9");
  Problem pi(inj, alltoall(inj, 65536));
  EXPECT_DOUBLE_EQ(computeLowerBound(pi).blocks, 31 * 32 * 32);
}

TEST(Bounds, RanksPerNodeSquares) {
  // 2 ranks per node on a ring of 4: 4 rank pairs per node pair -> 4 x 2 x
  // 4 / 4 = 8 blocks per link.
  Topology t = makeTopology("torus:4;ranks=2");
  Problem p(t, alltoall(t, 1));
  EXPECT_DOUBLE_EQ(linkLoadBound(p).blocks, 8);
}

TEST(Bounds, NonUniformHasNoBlocks) {
  Topology t = makeTopology("torus:4");
  TransferSet s({{0, 1, 5}, {0, 2, 7}});
  Problem p(t, std::move(s));
  LowerBound b = linkLoadBound(p);
  // Link 0->1 carries 5 forced bytes; the tie 0->2 adds 7 x 2 to the ring of
  // 8 links: (5 + 14) / 8 < 5.
  EXPECT_DOUBLE_EQ(b.time, 5);
  EXPECT_EQ(b.blocks, 0);
  // One source forced over link 0->1.
  EXPECT_EQ(p.bound().minPhases, 1);
}

/// The cut bound sees what any route or relay must pass. Worked by hand on
/// a ring of 4: 0 -> 1 (5 bytes) and 0 -> 2 (7, a tie) leave node 0 over
/// its two links, so every schedule takes at least 12 / 2 = 6. The link
/// load of the routes says only 5 (NonUniformHasNoBlocks: it averages the
/// tie over the ring), so the cut raises the direct bound too.
TEST(Bounds, CutsBoundEveryRoute) {
  Topology t = makeTopology("torus:4");
  Problem p(t, TransferSet({{0, 1, 5}, {0, 2, 7}}));
  LowerBound cut = cutBound(p);
  EXPECT_DOUBLE_EQ(cut.time, 6);
  EXPECT_EQ(cut.reason, "12.00 bytes node 0 must send through its links");
  EXPECT_DOUBLE_EQ(p.bound().time, 6);
  EXPECT_DOUBLE_EQ(p.bound().directTime, 6);
  // A hot link: on a ring of 8, 0 -> 1 and 7 -> 1 and 2 -> 1 (100 bytes
  // each) all use a link into node 1; routed straight each link into 1
  // carries its own 100 (0->1 and 2->1) and 7 -> 0 -> 1 adds 100 to 0->1:
  // 200. Any schedule: node 1 receives 300 over its 2 links, 150.
  Topology ring = makeTopology("torus:8");
  Problem hot(ring, TransferSet({{0, 1, 100}, {7, 1, 100}, {2, 1, 100}}));
  LowerBound b = hot.bound();
  EXPECT_DOUBLE_EQ(b.directTime, 200);
  EXPECT_DOUBLE_EQ(b.time, 150);
  EXPECT_EQ(b.reason, "300.00 bytes node 1 must receive through its links");
  // The bisection of a uniform all-to-all on a torus is the routes' link
  // load: one bound, and the direct reason and blocks are kept.
  Topology torus = makeTopology("torus:6x3");
  Problem all(torus, alltoall(torus, 64));
  EXPECT_DOUBLE_EQ(all.bound().time, all.bound().directTime);
  EXPECT_DOUBLE_EQ(cutBound(all).time, all.bound().time);
  EXPECT_GT(all.bound().blocks, 0);
  // On a line the prefixes cut: mesh 6, all-to-all of 1 byte: 3 x 3 bytes
  // cross the middle link each way.
  Topology line = makeTopology("mesh:6");
  Problem lp(line, alltoall(line, 1));
  EXPECT_DOUBLE_EQ(cutBound(lp).time, 9);
  EXPECT_EQ(cutBound(lp).reason, "9 bytes must leave the nodes at coordinates "
                                 "0..2 of dimension 0 over 1 link, whatever "
                                 "the routes");
}

TEST(Bounds, RingOfTwoBalancesPerNode) {
  // 0 -> 1 can only use node 0's "+" or "-" link: at least 10 / 2 on one,
  // however busy the links out of node 1 are not.
  Topology t = makeTopology("torus:2");
  Problem p(t, TransferSet({{0, 1, 10}}));
  EXPECT_DOUBLE_EQ(linkLoadBound(p).time, 5);
}

TEST(Bounds, MinPhasesCountsDistinctSources) {
  // Mesh of 4: 0->3, 1->3, 2->3 all cross 2->3; 0->2 adds no new source.
  Topology t = makeTopology("mesh:4");
  Problem p(t, TransferSet({{0, 3, 1}, {1, 3, 1}, {2, 3, 1}, {0, 2, 1}}));
  EXPECT_EQ(computeLowerBound(p).minPhases, 3);
}

TEST(Bounds, MinPhasesOfTiesAndPorts) {
  // A ring of 2 forces no link (every transfer is a tie), yet anything to
  // move takes a phase.
  Topology ring = makeTopology("torus:2");
  Problem one(ring, TransferSet({{0, 1, 8}}));
  LowerBound b = one.bound();
  EXPECT_EQ(b.minPhases, 1);
  EXPECT_EQ(b.phasesReason, "the operation moves data");
  // Four ranks per node, all-to-all: node 0's four senders share its "+"
  // and "-" links to node 1, two at a time.
  Topology fat = makeTopology("torus:2;ranks=4");
  Problem a2a(fat, alltoall(fat, 8));
  b = a2a.bound();
  EXPECT_EQ(b.minPhases, 2);
  EXPECT_NE(b.phasesReason.find("over its 2 links"), std::string::npos)
      << b.phasesReason;
  // Nothing to move: no phase bound at all.
  EXPECT_EQ(Problem(ring, TransferSet()).bound().minPhases, 0);
}

/// PERCS with one D link between two supernodes of 2 drawers x 2 nodes:
/// the link 0->4 carries all 16 blocks from supernode 0, 8 of them from
/// nodes 2 and 3 over 5 GB/s LR links first. A phase gives the D link to one
/// source, whose transfers share that slower way, so the bound is
/// 8 b / 10 GB/s + 8 b / 5 GB/s = 24 blocks' time of the D link, not the
/// plain 16; and every first-fit schedule (not optimal) still takes at
/// least that long.
TEST(Bounds, PercsPacedDLink) {
  Topology t = makeTopology("percs:supernodes=2,drawers=2,nodes=2,dlinks=1");
  const int64_t b = 1000000;
  Problem p(t, alltoall(t, b));
  LowerBound lb = p.bound();
  EXPECT_DOUBLE_EQ(lb.directTime, 8.0 * b / 10e9 + 8.0 * b / 5e9);
  EXPECT_DOUBLE_EQ(lb.directBlocks, 24);
  EXPECT_EQ(lb.directReason, "max directed-link load on 0->4 (D), paced by "
                             "the slower links that lead to it");
  // Any schedule: the 16 blocks leave supernode 0 over its one D link; a
  // relaying schedule that first gathers them at the gateway can keep it
  // busy.
  EXPECT_DOUBLE_EQ(lb.time, 16.0 * b / 10e9);
  EXPECT_EQ(lb.reason, "16000000 bytes must leave supernode 0 over 1 link, "
                       "whatever the routes");
  Schedule s;
  ASSERT_TRUE(scheduleGreedily(p, s));
  EXPECT_GE(p.costModel().time(s), lb.time * (1 - 1e-12));
  // With a cable per pair of nodes (the default here) nothing is paced.
  Topology direct = makeTopology("percs:supernodes=2,drawers=2,nodes=2");
  Problem q(direct, alltoall(direct, b));
  EXPECT_EQ(q.bound().reason.find("paced"), std::string::npos);
}

TEST(Bounds, MinPhasesNeverAboveAVerifiedSchedule) {
  // The bound must hold for every schedule verify() accepts; the greedy
  // baseline packs several blocks per link per phase, so it is the one that
  // comes closest to the phase bound.
  for (const char *spec : {"torus:8x4x8x2", "torus:2x2;ranks=3", "mesh:4x4",
                           "percs:supernodes=2,drawers=2,nodes=2,ranks=2"}) {
    SCOPED_TRACE(spec);
    Topology t = makeTopology(spec);
    Problem p(t, alltoall(t, 16));
    Schedule s;
    ASSERT_TRUE(scheduleGreedily(p, s));
    EXPECT_LE(s.bound.minPhases, static_cast<int64_t>(s.phases.size()));
    llvm::SmallVector<ScheduleViolation> vs;
    EXPECT_TRUE(succeeded(p.verify(s, vs)));
    // A claim above the schedule's phases is a violation.
    s.bound.minPhases = static_cast<int64_t>(s.phases.size()) + 1;
    vs.clear();
    ASSERT_TRUE(failed(p.verify(s, vs)));
    EXPECT_EQ(vs.back().kind, ViolationKind::Bound);
    EXPECT_NE(vs.back().message.find("phases exceeds"), std::string::npos)
        << vs.back().message;
  }
}

/// Best max link load over every assignment of tie directions.
double bruteForce(const Topology &t, const TransferSet &set) {
  std::vector<const Demand *> tied;
  std::vector<TieMask> masks;
  for (const Demand &d : set) {
    TieMask m = t.tieMask(t.nodeOfRank(d.src), t.nodeOfRank(d.dst));
    if (m) {
      tied.push_back(&d);
      masks.push_back(m);
    }
  }
  // Enumerate subsets of each transfer's mask by a mixed-radix counter.
  std::vector<TieMask> choice(tied.size(), 0);
  double best = 1e300;
  llvm::SmallVector<LinkId, 16> route;
  while (true) {
    std::vector<double> load(t.numLinks(), 0);
    size_t k = 0;
    for (const Demand &d : set) {
      NodeId s = t.nodeOfRank(d.src), e = t.nodeOfRank(d.dst);
      TieMask ties = 0;
      if (k < tied.size() && tied[k] == &d)
        ties = choice[k++];
      t.route(s, e, ties, route);
      for (LinkId l : route)
        load[l] += d.bytes / t.link(l).bandwidth;
    }
    best = std::min(best, *std::max_element(load.begin(), load.end()));
    size_t i = 0;
    for (; i < choice.size(); ++i) {
      // Next subset of masks[i] (Gray-free enumeration of submasks).
      choice[i] = (choice[i] - masks[i]) & masks[i];
      if (choice[i] != 0)
        break;
    }
    if (i == choice.size())
      break;
  }
  return best;
}

TEST(Bounds, TieBoundIsSoundBruteForce) {
  std::mt19937 rng(12345); // only the test data, not the library
  for (const char *spec : {"torus:4", "torus:2x4", "torus:4x2", "torus:6",
                           "torus:2x2x2", "torus:4x4"}) {
    Topology t = makeTopology(spec);
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<Demand> ds;
      for (int i = 0; i < 7; ++i) {
        RankId s = rng() % t.numRanks(), d = rng() % t.numRanks();
        ds.push_back({s, d, int64_t(1 + rng() % 9)});
      }
      TransferSet set(ds);
      Problem p(t, set);
      double exact = bruteForce(t, p.transfers());
      LowerBound b = linkLoadBound(p);
      EXPECT_LE(b.time, exact * (1 + 1e-12)) << spec << " trial " << trial;
      // The forced part alone is also a bound, so the bound is positive
      // whenever some transfer crosses a link.
      if (exact > 0) {
        EXPECT_GT(b.time, 0) << spec;
      }
    }
  }
}

} // namespace
