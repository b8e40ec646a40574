//===- TopologyTest.cpp - Topology models and routing ---------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Routing on every topology, including ties, the "+"/"-" links of a ring of
/// 2, meshes without wrap-around, dimension orders and PERCS link classes.
/// Expected routes are worked out by hand from the spec.
///
//===----------------------------------------------------------------------===//

#include "phasec/Topology/Topology.h"

#include "TestUtil.h"

#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

using namespace phasec;
using phasec::test::makeTopology;

namespace {

/// The nodes a route visits.
std::vector<NodeId> path(const Topology &t, NodeId s, NodeId d,
                         TieMask ties = 0) {
  llvm::SmallVector<NodeId, 16> nodes;
  t.routeNodes(s, d, ties, nodes);
  return {nodes.begin(), nodes.end()};
}

/// Checks that the links of a route chain from s to d.
void expectChained(const Topology &t, NodeId s, NodeId d, TieMask ties) {
  llvm::SmallVector<LinkId, 16> links;
  t.route(s, d, ties, links);
  NodeId cur = s;
  for (LinkId l : links) {
    ASSERT_GE(l, 0);
    ASSERT_EQ(t.link(l).src, cur);
    cur = t.link(l).dst;
  }
  EXPECT_EQ(cur, d);
  EXPECT_EQ(static_cast<int64_t>(links.size()), t.hops(s, d));
}

TEST(TopologyDesc, ParseAndPrint) {
  std::string error;
  auto d = TopologyDesc::parse("torus:8x4x8x2", error);
  ASSERT_TRUE(succeeded(d)) << error;
  EXPECT_EQ(d->kind, TopologyKind::Torus);
  EXPECT_EQ(d->dims, (llvm::SmallVector<int64_t, 4>{8, 4, 8, 2}));
  EXPECT_EQ(d->str(), "torus:8x4x8x2");

  auto h = TopologyDesc::parse("hypercube:6;ranks=2", error);
  ASSERT_TRUE(succeeded(h)) << error;
  EXPECT_EQ(h->dims.size(), 6u);
  EXPECT_EQ(h->ranksPerNode, 2);
  EXPECT_EQ(h->str(), "hypercube:6;ranks=2");

  auto p = TopologyDesc::parse("percs:supernodes=2,drawers=4,nodes=8,ranks=32",
                               error);
  ASSERT_TRUE(succeeded(p)) << error;
  EXPECT_EQ(p->supernodes, 2);
  EXPECT_EQ(p->drawers, 4);
  EXPECT_EQ(p->nodesPerDrawer, 8);
  EXPECT_EQ(p->ranksPerNode, 32);

  auto m = TopologyDesc::parse("mesh:16x16;bw=2.5e9;injection=link;order=1.0",
                               error);
  ASSERT_TRUE(succeeded(m)) << error;
  EXPECT_EQ(m->linkBandwidth, 2.5e9);
  EXPECT_EQ(m->injectionBandwidth, 2.5e9);
  EXPECT_EQ(m->dimOrder, (llvm::SmallVector<unsigned, 4>{1, 0}));
  // injection=link takes the final link bandwidth, wherever bw= appears.
  auto late = TopologyDesc::parse("torus:4;injection=link;bw=3", error);
  ASSERT_TRUE(succeeded(late)) << error;
  EXPECT_EQ(late->injectionBandwidth, 3);
  auto again = TopologyDesc::parse(m->str(), error);
  ASSERT_TRUE(succeeded(again)) << error;
  EXPECT_EQ(again->str(), m->str());
}

TEST(TopologyDesc, ParseErrors) {
  std::string error;
  EXPECT_TRUE(failed(TopologyDesc::parse("ring:8", error)));
  EXPECT_NE(error.find("unknown topology kind 'ring'"), std::string::npos);
  EXPECT_TRUE(failed(TopologyDesc::parse("torus:8x0", error)));
  EXPECT_NE(error.find("extent '0'"), std::string::npos);
  EXPECT_TRUE(failed(TopologyDesc::parse("torus", error)));
  EXPECT_NE(error.find("needs its extents"), std::string::npos);
  // One value per key, and no empty items (a script's lost value).
  EXPECT_TRUE(failed(TopologyDesc::parse("torus:4;bw=1e9;bw=2", error)));
  EXPECT_EQ(error, "'bw' is given twice in 'torus:4;bw=1e9;bw=2'");
  EXPECT_TRUE(failed(TopologyDesc::parse("torus:4;;;;", error)));
  EXPECT_EQ(error, "empty item between separators in 'torus:4;;;;'");
  EXPECT_TRUE(failed(TopologyDesc::parse("mesh:4x4,", error)));
  EXPECT_EQ(error, "empty item between separators in 'mesh:4x4,'");
  EXPECT_TRUE(failed(TopologyDesc::parse("torus:;4", error)));
  EXPECT_NE(error.find("empty item"), std::string::npos);
  EXPECT_TRUE(succeeded(TopologyDesc::parse(" torus:4 ; bw=2 ", error)))
      << error;
  EXPECT_TRUE(failed(TopologyDesc::parse("mesh:4x4;colour=red", error)));
  EXPECT_NE(error.find("unknown topology option 'colour'"), std::string::npos);
  EXPECT_TRUE(failed(TopologyDesc::parse("torus:4;drawers=2", error)));
  EXPECT_NE(error.find("percs topologies only"), std::string::npos);
}

TEST(Topology, CreateErrors) {
  std::string error;
  TopologyDesc d;
  d.kind = TopologyKind::Hypercube;
  d.dims = {2, 3};
  EXPECT_TRUE(failed(Topology::create(d, error)));
  EXPECT_NE(error.find("hypercube must be 2"), std::string::npos);
  d.kind = TopologyKind::Torus;
  d.dims = {4, 4};
  d.dimOrder = {0, 0};
  EXPECT_TRUE(failed(Topology::create(d, error)));
  EXPECT_NE(error.find("every dimension once"), std::string::npos);
  d.dimOrder = {};
  d.dims = {65536, 65536};
  EXPECT_TRUE(failed(Topology::create(d, error)));
  EXPECT_NE(error.find("too large"), std::string::npos);
  TopologyDesc p;
  p.kind = TopologyKind::Percs;
  EXPECT_TRUE(failed(Topology::create(p, error)));
  EXPECT_NE(error.find("percs needs"), std::string::npos);
}

TEST(Topology, TorusNumberingAndLinks) {
  Topology t = makeTopology("torus:8x4x8x2");
  EXPECT_EQ(t.numNodes(), 512);
  EXPECT_EQ(t.numRanks(), 512);
  // Every node has a + and a - link in each of the 4 dimensions (the ring
  // of 2 included: two distinct links each way).
  EXPECT_EQ(t.numLinks(), 512u * 4 * 2);
  llvm::SmallVector<int64_t, 4> c;
  t.coords(1 + 8 * (2 + 4 * (5 + 8 * 1)), c);
  EXPECT_EQ(c, (llvm::SmallVector<int64_t, 4>{1, 2, 5, 1}));
  EXPECT_EQ(t.nodeAt(c), 1 + 8 * (2 + 4 * (5 + 8 * 1)));
  for (NodeId n = 0; n < 512; ++n) {
    t.coords(n, c);
    ASSERT_EQ(t.nodeAt(c), n);
  }
}

TEST(Topology, TorusShorterWayAndTies) {
  Topology t = makeTopology("torus:8x4x8x2");
  // Distance 3 forward in dim 0: + links.
  EXPECT_EQ(path(t, 0, 3), (std::vector<NodeId>{0, 1, 2, 3}));
  // Distance 5 forward = 3 backward: - links, wrapping.
  EXPECT_EQ(path(t, 0, 5), (std::vector<NodeId>{0, 7, 6, 5}));
  // Distance 4 on the ring of 8 is a tie: "+" by default, "-" with the bit.
  EXPECT_EQ(t.tieMask(0, 4), 1u);
  EXPECT_EQ(path(t, 0, 4), (std::vector<NodeId>{0, 1, 2, 3, 4}));
  EXPECT_EQ(path(t, 0, 4, 1), (std::vector<NodeId>{0, 7, 6, 5, 4}));
  // Dimension order: dim 0 first, then dim 1 (stride 8).
  NodeId d = 2 + 8 * 1;
  EXPECT_EQ(path(t, 0, d), (std::vector<NodeId>{0, 1, 2, 10}));
  // Ring of 4 at distance 2 is a tie too (dim 1).
  EXPECT_EQ(t.tieMask(0, 16), 2u);
  EXPECT_EQ(path(t, 0, 16, 2), (std::vector<NodeId>{0, 24, 16}));
  // Odd distances never tie; mask bits for other dims are ignored.
  EXPECT_EQ(t.tieMask(0, 1), 0u);
  EXPECT_EQ(path(t, 0, 1, ~0u), (std::vector<NodeId>{0, 1}));
  for (NodeId s = 0; s < 512; s += 37)
    for (NodeId e = 0; e < 512; e += 11)
      for (TieMask m : {0u, t.tieMask(s, e)})
        expectChained(t, s, e, m);
}

TEST(Topology, DirsAndTies) {
  Topology t = makeTopology("torus:8x4");
  std::string error;
  // 0 -> (4, 1): tie in dim 0, dim 1 forward by 1.
  NodeId d = 4 + 8 * 1;
  EXPECT_EQ(*t.tiesFromDirs(0, d, {-1, 0}, error), 1u);
  EXPECT_EQ(*t.tiesFromDirs(0, d, {1, 1}, error), 0u);
  EXPECT_EQ(*t.tiesFromDirs(0, d, {}, error), 0u);
  EXPECT_TRUE(failed(t.tiesFromDirs(0, d, {0, -1}, error)));
  EXPECT_EQ(error, "\"dirs\" asks for - in dimension 1 from node 0 to node "
                   "12, the longer way");
  EXPECT_TRUE(failed(t.tiesFromDirs(0, d, {2}, error)));
  EXPECT_EQ(error, "\"dirs\" entries must be 1, -1 or 0, got 2");
  EXPECT_TRUE(failed(t.tiesFromDirs(0, d, {0, 0, 0}, error)));
  EXPECT_EQ(error, "\"dirs\" has 3 entries, the machine 2 dimensions");
  EXPECT_TRUE(failed(t.tiesFromDirs(0, 8, {1, 1}, error)));
  EXPECT_NE(error.find("does not move"), std::string::npos);
  llvm::SmallVector<int64_t, 4> dirs;
  t.dirsFromTies(0, d, 1, dirs);
  EXPECT_EQ(dirs, (llvm::SmallVector<int64_t, 4>{-1, 0}));
  t.dirsFromTies(0, d, 0, dirs);
  EXPECT_EQ(dirs, (llvm::SmallVector<int64_t, 4>{1, 0}));
  Topology p = makeTopology("percs:supernodes=1,drawers=1,nodes=2");
  EXPECT_TRUE(failed(p.tiesFromDirs(0, 1, {1}, error)));
}

TEST(Topology, RingOfTwoHasPlusAndMinusLinks) {
  Topology t = makeTopology("torus:2");
  EXPECT_EQ(t.numLinks(), 4u);
  EXPECT_EQ(t.tieMask(0, 1), 1u);
  llvm::SmallVector<LinkId, 4> plus, minus;
  t.route(0, 1, 0, plus);
  t.route(0, 1, 1, minus);
  ASSERT_EQ(plus.size(), 1u);
  ASSERT_EQ(minus.size(), 1u);
  EXPECT_NE(plus[0], minus[0]);
  EXPECT_EQ(t.link(plus[0]).dst, 1);
  EXPECT_EQ(t.link(minus[0]).dst, 1);
  EXPECT_EQ(t.link(plus[0]).dir, 1);
  EXPECT_EQ(t.link(minus[0]).dir, -1);
  EXPECT_EQ(t.neighborLink(0, 0, +1), plus[0]);
  EXPECT_EQ(t.neighborLink(0, 0, -1), minus[0]);
  EXPECT_EQ(t.linkBetween(0, 1), plus[0]);
  EXPECT_EQ(t.describeLink(plus[0]), "0->1 (dim 0 +)");
  EXPECT_EQ(t.describeLink(minus[0]), "0->1 (dim 0 -)");
}

TEST(Topology, MeshHasNoWrapAndNoTies) {
  Topology t = makeTopology("mesh:4x4");
  // 2 dims x 2 rows-of-4 x 3 links x 2 directions x 4 rows.
  EXPECT_EQ(t.numLinks(), 2u * 4 * 3 * 2);
  EXPECT_EQ(t.neighborLink(0, 0, -1), kNoLink);
  EXPECT_EQ(t.neighborLink(3, 0, +1), kNoLink);
  EXPECT_EQ(t.tieMask(0, 2), 0u);
  EXPECT_EQ(path(t, 0, 15), (std::vector<NodeId>{0, 1, 2, 3, 7, 11, 15}));
  EXPECT_EQ(path(t, 15, 0), (std::vector<NodeId>{15, 14, 13, 12, 8, 4, 0}));
  EXPECT_EQ(t.hops(0, 15), 6);
  Topology two = makeTopology("mesh:2");
  EXPECT_EQ(two.numLinks(), 2u);
  EXPECT_EQ(two.tieMask(0, 1), 0u);
}

TEST(Topology, DimensionOrder) {
  Topology t = makeTopology("mesh:4x4;order=1.0");
  EXPECT_EQ(path(t, 0, 15), (std::vector<NodeId>{0, 4, 8, 12, 13, 14, 15}));
}

TEST(Topology, Hypercube) {
  Topology t = makeTopology("hypercube:3");
  EXPECT_EQ(t.numNodes(), 8);
  EXPECT_EQ(t.numLinks(), 8u * 3);
  EXPECT_EQ(t.tieMask(0, 7), 0u);
  EXPECT_EQ(path(t, 0, 7), (std::vector<NodeId>{0, 1, 3, 7}));
  EXPECT_EQ(path(t, 6, 1), (std::vector<NodeId>{6, 7, 5, 1}));
  for (NodeId s = 0; s < 8; ++s)
    for (NodeId d = 0; d < 8; ++d)
      expectChained(t, s, d, 0);
}

TEST(Topology, PercsSupernodeClasses) {
  Topology t = makeTopology("percs:supernodes=1,drawers=4,nodes=8,ranks=32");
  EXPECT_EQ(t.numNodes(), 32);
  EXPECT_EQ(t.numRanks(), 1024);
  EXPECT_EQ(t.numLinks(), 32u * 31);
  EXPECT_EQ(t.nodeOfRank(1023), 31);
  llvm::SmallVector<LinkId, 4> r;
  t.route(0, 7, 0, r);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(t.link(r[0]).cls, LinkClass::LL);
  EXPECT_EQ(t.link(r[0]).bandwidth, 24e9);
  t.route(0, 8, 0, r);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(t.link(r[0]).cls, LinkClass::LR);
  EXPECT_EQ(t.link(r[0]).bandwidth, 5e9);
  // Every ordered pair has its own link, and linkBetween agrees with route.
  std::vector<int> used(t.numLinks(), 0);
  for (NodeId s = 0; s < 32; ++s)
    for (NodeId d = 0; d < 32; ++d) {
      if (s == d)
        continue;
      t.route(s, d, 0, r);
      ASSERT_EQ(r.size(), 1u);
      EXPECT_EQ(t.link(r[0]).src, s);
      EXPECT_EQ(t.link(r[0]).dst, d);
      EXPECT_EQ(t.linkBetween(s, d), r[0]);
      EXPECT_EQ(t.link(r[0]).cls,
                s / 8 == d / 8 ? LinkClass::LL : LinkClass::LR);
      ++used[r[0]];
    }
  for (int u : used)
    EXPECT_EQ(u, 1);
  EXPECT_EQ(t.tieMask(0, 9), 0u);
  EXPECT_EQ(t.describeLink(t.linkBetween(0, 8)), "0->8 (LR)");
  EXPECT_EQ(t.minBandwidth(), 5e9);
  EXPECT_EQ(t.maxBandwidth(), 24e9);
}

/// Every D link is the link between its two ends, and every route is a
/// chain of links.
void expectPercsConsistent(const Topology &t) {
  for (LinkId l = 0; l < static_cast<LinkId>(t.numLinks()); ++l)
    EXPECT_EQ(t.linkBetween(t.link(l).src, t.link(l).dst), l)
        << t.describeLink(l);
  for (NodeId s = 0; s < t.numNodes(); ++s)
    for (NodeId d = 0; d < t.numNodes(); ++d)
      expectChained(t, s, d, 0);
}

TEST(Topology, PercsAcrossSupernodes) {
  // Fewer cables than nodes: cable i joins the gateways of index i.
  Topology t = makeTopology("percs:supernodes=3,drawers=2,nodes=2,dlinks=2");
  EXPECT_EQ(t.dLinksPerPair(), 2);
  // 3 supernodes x 4 nodes x 3 + 3 x 2 ordered pairs x 2 cables.
  EXPECT_EQ(t.numLinks(), 3u * 4 * 3 + 6 * 2);
  // 3 -> 11: neither end has a cable; cable (3 + 3) mod 2 = 0 joins nodes
  // 0 and 8.
  EXPECT_EQ(path(t, 3, 11), (std::vector<NodeId>{3, 0, 8, 11}));
  llvm::SmallVector<LinkId, 4> r;
  t.route(3, 11, 0, r);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(t.link(r[0]).cls, LinkClass::LR);
  EXPECT_EQ(t.link(r[1]).cls, LinkClass::D);
  EXPECT_EQ(t.link(r[1]).bandwidth, 10e9);
  EXPECT_EQ(t.link(r[2]).cls, LinkClass::LR);
  // A source with a cable takes it: 1 -> 11 over cable 1 (1 to 9).
  EXPECT_EQ(path(t, 1, 11), (std::vector<NodeId>{1, 9, 11}));
  // Else the destination's: 3 -> 8 over cable 0.
  EXPECT_EQ(path(t, 3, 8), (std::vector<NodeId>{3, 0, 8}));
  EXPECT_EQ(t.hops(0, 8), 1);
  expectPercsConsistent(t);
  EXPECT_EQ(t.desc().str(), "percs:supernodes=3,drawers=2,nodes=2,dlinks=2");
}

TEST(Topology, PercsDLinksDefault) {
  // By default the 16 D ports of every node are shared among the other
  // supernodes, at most one cable per pair of nodes: with 3 supernodes of
  // 4 nodes, 16 cables per pair, every route between supernodes one hop.
  Topology t = makeTopology("percs:supernodes=3,drawers=2,nodes=2");
  EXPECT_EQ(t.dLinksPerPair(), 16);
  EXPECT_EQ(t.numLinks(), 3u * 4 * 3 + 6 * 16);
  for (NodeId s = 0; s < 12; ++s)
    for (NodeId d = 0; d < 12; ++d)
      if (s != d) {
        EXPECT_EQ(t.hops(s, d), 1) << s << "->" << d;
      }
  expectPercsConsistent(t);
  // 32 nodes, 33 supernodes: 16 x 32 / 32 = 16 cables per pair.
  std::string error;
  auto big =
      TopologyDesc::parse("percs:supernodes=33,drawers=4,nodes=8", error);
  ASSERT_TRUE(succeeded(big)) << error;
  EXPECT_EQ(big->dLinksPerPair(), 16);
  auto one = TopologyDesc::parse("percs:supernodes=1,drawers=4,nodes=8", error);
  ASSERT_TRUE(succeeded(one)) << error;
  EXPECT_EQ(one->dLinksPerPair(), 0);
}

TEST(Topology, PercsSomeNodesWithTwoCables) {
  // 6 cables between 2 supernodes of 4 nodes: nodes 0 and 1 of the lower
  // one have two (to 4, 5 and to 5, 6), the others one.
  Topology t = makeTopology("percs:supernodes=2,drawers=2,nodes=2,dlinks=6");
  // 0 -> 7: no cable joins them; 0's cables land at 4 and 5; 7 - 0 = 3 is
  // odd, so the one landing at 5, then LR to 7.
  EXPECT_EQ(path(t, 0, 7), (std::vector<NodeId>{0, 5, 7}));
  // 6 -> 1: cable 5 joins them (from the upper side).
  EXPECT_EQ(path(t, 6, 1), (std::vector<NodeId>{6, 1}));
  expectPercsConsistent(t);
}

TEST(Topology, PercsDCableMatchesItsDefinition) {
  // dCable counts a source's cables in closed form; the definition: the
  // direct cable if there is one, else the one at offset direct mod q,
  // where 0 .. q-1 are the offsets (t < m) whose cable index r + m t
  // exists. Every machine of 2 or 3 supernodes of m <= 6 nodes and
  // m <= n <= m^2 cables per pair.
  for (int64_t m = 2; m <= 6; ++m)
    for (int64_t s = 2; s <= 3; ++s)
      for (int64_t n = m; n <= m * m; ++n) {
        Topology t = makeTopology(
            llvm::formatv("percs:supernodes={0},drawers=1,nodes={1},dlinks={2}",
                          s, m, n)
                .str());
        for (NodeId src = 0; src < s * m; ++src)
          for (NodeId dst = 0; dst < s * m; ++dst) {
            int64_t a = src / m, b = dst / m, ul = src % m, vl = dst % m;
            if (a == b)
              continue;
            auto cableAt = [&](int64_t off) -> int64_t {
              int64_t i =
                  a < b ? ul + m * off : ((ul - off) % m + m) % m + m * off;
              return off < m && i < n ? i : -1;
            };
            int64_t direct =
                a < b ? ((vl - ul) % m + m) % m : ((ul - vl) % m + m) % m;
            int64_t expected = cableAt(direct);
            if (expected < 0) {
              int64_t q = 1;
              while (cableAt(q) >= 0)
                ++q;
              expected = cableAt(direct % q);
            }
            ASSERT_EQ(t.dCable(src, dst), expected)
                << "m=" << m << " s=" << s << " n=" << n << " " << src << "->"
                << dst;
          }
      }
}

TEST(Topology, PercsDLinksErrors) {
  std::string error;
  EXPECT_TRUE(failed(TopologyDesc::parse(
      "percs:supernodes=2,drawers=2,nodes=2,dlinks=0", error)));
  EXPECT_EQ(error, "bad value '0' for 'dlinks'");
  auto d = TopologyDesc::parse("percs:supernodes=2,drawers=2,nodes=2,dlinks=17",
                               error);
  ASSERT_TRUE(succeeded(d));
  EXPECT_TRUE(failed(Topology::create(*d, error)));
  EXPECT_EQ(error, "percs dlinks=17: D links between two supernodes must be "
                   "between 1 and 16 (one per pair of their nodes)");
  EXPECT_TRUE(failed(TopologyDesc::parse("torus:4x4,dlinks=2", error)));
}

} // namespace

// The ns-3 target's packet network in a spec: header= (bytes, at least the
// 4-byte route header) and buffer= (packets), round-tripped by str().
TEST(Topology, PacketNetworkOptions) {
  std::string error;
  auto d = TopologyDesc::parse("torus:4x4;packet=32;header=8;buffer=3", error);
  ASSERT_TRUE(succeeded(d)) << error;
  EXPECT_EQ(d->packetHeader, 8);
  EXPECT_EQ(d->routerBuffer, 3);
  EXPECT_EQ(d->str(), "torus:4x4;packet=32;header=8;buffer=3");
  auto plain = TopologyDesc::parse("torus:4x4", error);
  ASSERT_TRUE(succeeded(plain));
  EXPECT_EQ(plain->packetHeader, 0);
  EXPECT_EQ(plain->routerBuffer, 0);
  EXPECT_TRUE(failed(TopologyDesc::parse("torus:4x4;header=3", error)));
  EXPECT_EQ(error, "'header' must be 4..4096 bytes, not 3");
  EXPECT_TRUE(failed(TopologyDesc::parse("torus:4x4;buffer=0", error)));
  EXPECT_EQ(error, "'buffer' must be 1..1048576 packets, not 0");
  EXPECT_TRUE(failed(TopologyDesc::parse("torus:4x4;buffer=x", error)));
  EXPECT_EQ(error, "bad value 'x' for 'buffer'");
}
