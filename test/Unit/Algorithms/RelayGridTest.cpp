//===- RelayGridTest.cpp - Dimension-wise relaying algorithms -------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// dimension_wise allreduce and allgather on tori, meshes and hypercubes at
// every number of parts: each schedule is replayed by scheduleRelaying
// (Problem::verify), and on the grids where the parts keep every link of a
// node busy the schedule meets the bandwidth bound.
//
//===----------------------------------------------------------------------===//

#include "../TestUtil.h"

#include "phasec/Scheduling/Relay.h"

using namespace phasec;
using namespace phasec::test;

namespace {

Collective gridCollective(CollectiveKind kind, const Topology &topo,
                          int64_t elements) {
  Collective c;
  c.kind = kind;
  c.group = allRanks(topo);
  c.elementType = ElementType::Int32;
  c.blockBytes = elements * 4;
  return c;
}

TEST(RelayGrid, EveryPartCountVerifies) {
  // Machine, number of dimensions of extent > 1.
  const std::pair<const char *, int64_t> machines[] = {
      {"torus:8", 1},     {"mesh:5", 1},     {"torus:4x4", 2},
      {"mesh:4x4", 2},    {"mesh:3x5", 2},   {"torus:4x1x3", 2},
      {"torus:4x4x2", 3}, {"hypercube:3", 3}};
  for (auto [spec, dims] : machines) {
    Topology topo = makeTopology(spec);
    CostModel model(topo);
    for (CollectiveKind kind :
         {CollectiveKind::Allreduce, CollectiveKind::Allgather})
      for (int64_t parts = 1; parts <= 2 * dims; ++parts) {
        // Elements that every cut divides.
        Collective c = gridCollective(kind, topo, 5760);
        std::string error;
        auto s = scheduleRelaying(topo, model, c,
                                  {Algorithm::DimensionWise, parts}, error);
        ASSERT_TRUE(succeeded(s))
            << spec << " " << stringifyCollectiveKind(kind).str() << " "
            << parts << ": " << error;
        EXPECT_TRUE(isRelaying(s->schedule));
        EXPECT_EQ(s->schedule.algorithm,
                  "dimension_wise(" + std::to_string(parts) + ")");
      }
  }
}

TEST(RelayGrid, MeetsTheBoundWhereEveryLinkWorks) {
  // A torus node has 2 links per dimension, one per direction: 2 * d
  // parts keep all of them busy; a mesh's corner node has one per
  // dimension, which d parts keep busy.
  const std::pair<const char *, int64_t> cases[] = {
      {"torus:4x4", 4}, {"mesh:4x4", 2}, {"torus:8", 2}, {"hypercube:4", 4}};
  for (auto [spec, parts] : cases) {
    Topology topo = makeTopology(spec);
    CostModel model(topo);
    for (CollectiveKind kind :
         {CollectiveKind::Allreduce, CollectiveKind::Allgather}) {
      Collective c = gridCollective(kind, topo, 1 << 12);
      std::string error;
      auto s = scheduleRelaying(topo, model, c,
                                {Algorithm::DimensionWise, parts}, error);
      ASSERT_TRUE(succeeded(s)) << spec << ": " << error;
      ScheduleCost cost = Problem(topo, s->chunks, model).cost(s->schedule);
      EXPECT_NEAR(cost.gap, 1.0, 1e-9)
          << spec << " " << stringifyCollectiveKind(kind).str();
      // A ring over all members uses one link per node: at least twice.
      auto ring = scheduleRelaying(topo, model, c, {Algorithm::Ring, 1}, error);
      ASSERT_TRUE(succeeded(ring)) << error;
      EXPECT_GE(model.time(ring->schedule),
                2 * model.time(s->schedule) * (1 - 1e-9))
          << spec;
    }
  }
}

/// The error of dimension_wise(parts) on `c`, or "" if it succeeds.
std::string refusal(const Topology &topo, const Collective &c, int64_t parts) {
  std::string error;
  if (succeeded(scheduleRelaying(topo, CostModel(topo), c,
                                 {Algorithm::DimensionWise, parts}, error)))
    return "";
  return error;
}

TEST(RelayGrid, Refusals) {
  // A sub-group: the lines of the grid are not the group's.
  Topology torus = makeTopology("torus:4x4");
  Collective sub = gridCollective(CollectiveKind::Allreduce, torus, 120);
  sub.group.pop_back();
  EXPECT_EQ(refusal(torus, sub, 2),
            "dimension_wise(2): dimension_wise runs rings along the lines of "
            "a torus, mesh or hypercube: the group must be every node of "
            "one, one rank per node");
  // More parts than dimensions and directions.
  Topology ring = makeTopology("torus:8");
  EXPECT_EQ(
      refusal(ring, gridCollective(CollectiveKind::Allreduce, ring, 64), 4),
      "dimension_wise(4): 4 parts: the machine has 1 dimension(s) of "
      "extent > 1, so 1 to 2 (one per dimension and direction)");
  // Not a grid.
  Topology percs = makeTopology("percs:supernodes=1,drawers=2,nodes=2");
  EXPECT_NE(
      refusal(percs, gridCollective(CollectiveKind::Allgather, percs, 64), 2),
      "");
}

} // namespace
