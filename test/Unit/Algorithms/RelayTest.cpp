//===- RelayTest.cpp - Relaying algorithms and the chunk replay -----------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// Every relaying algorithm on every kind it serves, over several machines,
// groups and roots: scheduleRelaying verifies each by replay, so a wrong
// round or a wrong split fails here. Then one hand-made schedule per
// violation the replay names, to show that it can fail.
//
//===----------------------------------------------------------------------===//

#include "../TestUtil.h"

#include "phasec/Scheduling/Relay.h"
#include "phasec/Scheduling/ScheduleJSON.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <random>
#include <set>

using namespace phasec;
using namespace phasec::test;

namespace {

Collective relayCollective(CollectiveKind kind, std::vector<RankId> group,
                           RankId root, int64_t elements) {
  Collective c;
  c.kind = kind;
  c.group = std::move(group);
  c.root = root;
  c.elementType = ElementType::Int32;
  c.blockBytes = elements * 4;
  return c;
}

const CollectiveKind kRelayKinds[] = {
    CollectiveKind::Broadcast, CollectiveKind::Reduce,
    CollectiveKind::Allreduce, CollectiveKind::ReduceScatter,
    CollectiveKind::Scan,      CollectiveKind::Exscan,
    CollectiveKind::Scatter,   CollectiveKind::Gather,
    CollectiveKind::Allgather, CollectiveKind::Alltoall,
    CollectiveKind::Barrier};

bool hasRoot(CollectiveKind k) {
  return k == CollectiveKind::Broadcast || k == CollectiveKind::Reduce ||
         k == CollectiveKind::Scatter || k == CollectiveKind::Gather;
}

TEST(Relay, EveryAlgorithmVerifiesOnEveryMachine) {
  const char *machines[] = {
      "torus:8",   "mesh:4x4",    "torus:4x4",
      "torus:3x3", "hypercube:3", "percs:supernodes=1,drawers=2,nodes=3"};
  int built = 0;
  for (const char *spec : machines) {
    Topology topo = makeTopology(spec);
    CostModel model(topo);
    std::vector<std::vector<RankId>> groups = {allRanks(topo)};
    // An odd sub-group that leaves rank 0 out.
    std::vector<RankId> odd;
    for (RankId r = 1; r < topo.numRanks() && odd.size() < 5; r += 2)
      odd.push_back(r);
    groups.push_back(odd);
    groups.push_back({0, 1});
    for (const auto &group : groups)
      for (CollectiveKind kind : kRelayKinds)
        for (Algorithm alg : getRelayAlgorithms(kind)) {
          llvm::SmallVector<RankId, 2> roots{-1};
          if (hasRoot(kind))
            roots = {group.front(), group.back()};
          for (RankId root : roots) {
            Collective c = relayCollective(kind, group, root, 48);
            std::string error;
            auto s = scheduleRelaying(topo, model, c, {alg, 0}, error);
            if (failed(s)) {
              // Only the documented preconditions may refuse.
              EXPECT_TRUE(
                  error.find("power-of-two") != std::string::npos ||
                  error.find("do not divide") != std::string::npos ||
                  error.find("2-D mesh or torus") != std::string::npos ||
                  error.find("lines of a torus") != std::string::npos ||
                  error.find("several rows and columns") != std::string::npos)
                  << spec << " " << stringifyCollectiveKind(kind).str() << " "
                  << stringifyAlgorithm(alg).str() << ": " << error;
              continue;
            }
            ++built;
            EXPECT_TRUE(isRelaying(s->schedule) || group.size() < 2);
          }
        }
  }
  EXPECT_GT(built, 300);
}

TEST(Relay, SeedThreeKLevelAlgorithms) {
  // 2-lev-rec, 2-lev-sq, 3-lev-sq and logp-lev-sq, down (one_to_all,
  // scatter, broadcast) and up (all_to_one, gather), from a middle root.
  // logp-lev-rec(gamma) at one half, the seed's 0.75 and the largest.
  const RelayChoice choices[] = {{Algorithm::KLevel, 2, KLevelShape::Rec},
                                 {Algorithm::KLevel, 2, KLevelShape::Sq},
                                 {Algorithm::KLevel, 3, KLevelShape::Sq},
                                 {Algorithm::KLevel, 0, KLevelShape::Sq},
                                 {Algorithm::KLevel, 0, KLevelShape::Rec},
                                 {Algorithm::KLevel, 0, KLevelShape::Rec, 75},
                                 {Algorithm::KLevel, 0, KLevelShape::Rec, 99}};
  for (const char *spec : {"mesh:4x4", "torus:4x4", "mesh:6x3", "mesh:7"}) {
    Topology topo = makeTopology(spec);
    CostModel model(topo);
    for (CollectiveKind kind :
         {CollectiveKind::OneToAll, CollectiveKind::AllToOne,
          CollectiveKind::Scatter, CollectiveKind::Gather,
          CollectiveKind::Broadcast})
      for (const RelayChoice &choice : choices) {
        Collective c = relayCollective(kind, allRanks(topo), 5, 8);
        std::string error;
        auto s = scheduleRelaying(topo, model, c, choice, error);
        ASSERT_TRUE(succeeded(s)) << spec << " " << error;
        EXPECT_EQ(s->chunks.kind, ChunkSpec::getChunkKind(kind));
      }
  }
  // Not one of the seed's.
  Topology topo = makeTopology("mesh:4x4");
  Collective c =
      relayCollective(CollectiveKind::OneToAll, allRanks(topo), 0, 8);
  std::string error;
  EXPECT_TRUE(failed(scheduleRelaying(topo, CostModel(topo), c,
                                      {Algorithm::KLevel, 5, KLevelShape::Rec},
                                      error)));
  EXPECT_EQ(error, "k_level(5, rec) is not one of seed 003's k-level "
                   "algorithms (k_level(1), k_level(2, rec), k_level(2, sq), "
                   "k_level(3, sq), k_level(logp, sq), k_level(logp, rec, "
                   "gamma), k_level(1, sys_br), k_level(1, our_br))");
  EXPECT_TRUE(failed(
      scheduleRelaying(topo, CostModel(topo), c,
                       {Algorithm::KLevel, 0, KLevelShape::Rec, 40}, error)));
  EXPECT_EQ(error, "k_level(logp, rec, 0.4) needs 0.5 <= gamma <= 0.99: the "
                   "source keeps the larger part of every cut");
}

TEST(Relay, LogpLevRecKeepsGammaOfEveryCut) {
  // On a 16-node line from node 0, gamma = 0.75 keeps 12 nodes with the
  // source: its first send goes to node 12, the leader of the other 4.
  Topology topo = makeTopology("mesh:16");
  Collective c =
      relayCollective(CollectiveKind::OneToAll, allRanks(topo), 0, 8);
  std::string error;
  auto s =
      scheduleRelaying(topo, CostModel(topo), c,
                       {Algorithm::KLevel, 0, KLevelShape::Rec, 75}, error);
  ASSERT_TRUE(succeeded(s)) << error;
  EXPECT_EQ(s->schedule.algorithm, "k_level(logp, rec, 0.75)");
  ASSERT_FALSE(s->schedule.phases.empty());
  ASSERT_EQ(s->schedule.phases[0].transfers.size(), 1u);
  EXPECT_EQ(s->schedule.phases[0].transfers[0].dst, 12);
  EXPECT_EQ(s->schedule.phases[0].transfers[0].bytes, 4 * 32);
}

TEST(Relay, BroadcastingOneToAll) {
  // 1-lev-our-br is a binomial broadcast of every block but the root's (on
  // a whole grid the seed's binomial heap: halving cuts); 1-lev-sys-br the
  // fastest of phasec's broadcast trees. Any group (no submachines), any root.
  for (const char *spec :
       {"mesh:4x4", "torus:5", "percs:supernodes=1,drawers=2,nodes=3"}) {
    Topology topo = makeTopology(spec);
    CostModel model(topo);
    std::vector<RankId> group = allRanks(topo);
    std::vector<RankId> odd(group.begin() + 1, group.end());
    for (const std::vector<RankId> &g : {group, odd}) {
      Collective c = relayCollective(CollectiveKind::OneToAll, g, g[1], 8);
      std::string error;
      auto our = scheduleRelaying(
          topo, model, c, {Algorithm::KLevel, 1, KLevelShape::OurBr}, error);
      ASSERT_TRUE(succeeded(our)) << spec << " " << error;
      EXPECT_EQ(our->schedule.algorithm, "k_level(1, our_br)");
      // The root sends the whole message (n - 1 blocks) first.
      const Transfer &first = our->schedule.phases[0].transfers[0];
      EXPECT_EQ(first.src, g[1]);
      EXPECT_EQ(first.bytes, static_cast<int64_t>(g.size() - 1) * 32);
      auto sys = scheduleRelaying(
          topo, model, c, {Algorithm::KLevel, 1, KLevelShape::SysBr}, error);
      ASSERT_TRUE(succeeded(sys)) << spec << " " << error;
      EXPECT_TRUE(llvm::StringRef(sys->schedule.algorithm)
                      .starts_with("k_level(1, sys_br: "))
          << sys->schedule.algorithm;
      EXPECT_EQ(sys->tried.size(), 4u);
      // On a whole grid our_br is the seed's binomial heap (halving cuts);
      // elsewhere the binomial tree in group order, one of sys_br's trees.
      bool heap = g.size() == group.size() && topo.isGrid();
      if (!heap)
        EXPECT_LE(model.time(sys->schedule), model.time(our->schedule));
      // Either way one send per member: ceil(log2 n) rounds of doubling.
      size_t sends = 0;
      for (const Phase &phase : our->schedule.phases)
        sends += phase.transfers.size();
      EXPECT_EQ(sends, g.size() - 1) << spec;
    }
  }
  // Broadcasting needs a one-to-all's blocks.
  Topology topo = makeTopology("mesh:4x4");
  Collective c =
      relayCollective(CollectiveKind::AllToOne, allRanks(topo), 0, 8);
  std::string error;
  EXPECT_TRUE(failed(
      scheduleRelaying(topo, CostModel(topo), c,
                       {Algorithm::KLevel, 1, KLevelShape::OurBr}, error)));
  EXPECT_EQ(error, "k_level(1, our_br) broadcasts a one-to-all's whole "
                   "message in one level: it needs k_level(1, ...) of a "
                   "one_to_all or scatter");
}

TEST(Relay, SeedThreeAlltoallKLevelAlgorithms) {
  // 2-lev-sq, 2-lev-r,c and logp-lev-bfly: their rounds have the seed's
  // shape and every schedule replays (scheduleRelaying verifies it).
  const RelayChoice sq{Algorithm::KLevel, 2, KLevelShape::Sq},
      rc{Algorithm::KLevel, 2, KLevelShape::Rc},
      bfly{Algorithm::KLevel, 0, KLevelShape::Bfly};
  struct Case {
    const char *machine;
    bool square, powerOfTwo;
  };
  const Case cases[] = {{"mesh:4x4", true, true},   {"torus:4x4", true, true},
                        {"mesh:8x2", true, true},   {"torus:16", true, true},
                        {"mesh:3x3", true, false},  {"mesh:9", true, false},
                        {"mesh:6x6", true, false},  {"mesh:4x2", false, true},
                        {"torus:5x3", false, false}};
  for (const Case &tc : cases) {
    Topology topo = makeTopology(tc.machine);
    CostModel model(topo);
    const int64_t n = topo.numRanks();
    const int64_t W = topo.extent(0),
                  H = topo.numDims() == 2 ? topo.extent(1) : 1;
    for (const RelayChoice &choice : {sq, rc, bfly}) {
      Collective c =
          relayCollective(CollectiveKind::Alltoall, allRanks(topo), -1, 2);
      std::string error;
      auto s = scheduleRelaying(topo, model, c, choice, error);
      bool expected = choice.shape == KLevelShape::Rc ||
                      (choice.shape == KLevelShape::Sq && tc.square) ||
                      (choice.shape == KLevelShape::Bfly && tc.powerOfTwo);
      ASSERT_EQ(succeeded(s), expected) << tc.machine << " " << error;
      if (!expected) {
        EXPECT_TRUE(error.find(choice.shape == KLevelShape::Sq
                                   ? "needs a square number of members"
                                   : "needs a power-of-two group") !=
                    std::string::npos)
            << error;
        continue;
      }
      EXPECT_TRUE(isRelaying(s->schedule));
      auto rounds = buildRelayRounds(s->chunks, choice, error, &topo);
      ASSERT_TRUE(succeeded(rounds)) << error;
      const int64_t k = s->chunks.chunksPerMember();
      // Per round: messages per member and chunks per message.
      auto shape = [&](const RelayRound &round, int64_t messages,
                       int64_t chunks) {
        std::vector<int64_t> sent(n, 0);
        for (const RelayStep &step : round) {
          EXPECT_EQ(static_cast<int64_t>(step.chunks.size()), chunks * k)
              << tc.machine;
          EXPECT_FALSE(step.reduce);
          ++sent[step.src];
        }
        for (int64_t m = 0; m < n; ++m)
          EXPECT_LE(sent[m], messages) << tc.machine << " member " << m;
      };
      if (choice.shape == KLevelShape::Rc) {
        ASSERT_EQ(rounds->size(), H > 1 ? 2u : 1u) << tc.machine;
        shape((*rounds)[0], W - 1, H);
        if (H > 1)
          shape((*rounds)[1], H - 1, W);
      } else if (choice.shape == KLevelShape::Sq) {
        int64_t q = 1;
        while (q * q < n)
          ++q;
        ASSERT_EQ(rounds->size(), 3u) << tc.machine;
        shape((*rounds)[0], q - 1, q);
        shape((*rounds)[1], 1, q * q);
        shape((*rounds)[2], q - 1, q);
        // Step 2 pairs P(t, u) with P(u, t): everyone but the diagonal.
        EXPECT_EQ(static_cast<int64_t>((*rounds)[1].size()), n - q);
      } else {
        ASSERT_EQ(static_cast<int64_t>(rounds->size()),
                  static_cast<int64_t>(llvm::Log2_64(n)))
            << tc.machine;
        for (const RelayRound &round : *rounds) {
          EXPECT_EQ(static_cast<int64_t>(round.size()), n);
          shape(round, 1, n / 2);
        }
      }
    }
  }
  // The refusals: no grid, a sub-group, not one of the seed's.
  auto refuse = [](const char *machine, std::vector<RankId> group,
                   RelayChoice choice) {
    Topology topo = makeTopology(machine);
    Collective c = relayCollective(
        CollectiveKind::Alltoall,
        group.empty() ? allRanks(topo) : std::move(group), -1, 2);
    std::string error;
    EXPECT_TRUE(
        failed(scheduleRelaying(topo, CostModel(topo), c, choice, error)));
    return error;
  };
  EXPECT_EQ(refuse("hypercube:3", {}, rc),
            "k_level(2, rc) partitions a 1-D or 2-D mesh or "
            "torus into submachines: the group must be every node of one, "
            "one rank per node");
  EXPECT_EQ(refuse("mesh:4x4", {0, 1, 2, 3}, sq),
            "k_level(2, sq) partitions a 1-D or 2-D mesh or "
            "torus into submachines: the group must be every node of one, "
            "one rank per node");
  EXPECT_EQ(refuse("mesh:4x2", {}, sq),
            "k_level(2, sq) forms sqrt(p) submachines of "
            "sqrt(p) nodes each: it needs a square number of members, got 8");
  EXPECT_EQ(refuse("mesh:3x3", {}, bfly),
            "k_level(logp, bfly) needs a power-of-two group (it exchanges "
            "along the bits of the member index), got 9 members");
  EXPECT_EQ(refuse("mesh:4x4", {}, {Algorithm::KLevel, 3, KLevelShape::Sq}),
            "k_level(3, sq) is not one of seed 003's "
            "all-to-all k-level algorithms (k_level(2, sq), k_level(2, rc), "
            "k_level(logp, bfly)); k_level(1) is the direct transfers");
  // The one-to-all family does not take the all-to-all shapes.
  Topology topo = makeTopology("mesh:4x4");
  Collective c =
      relayCollective(CollectiveKind::OneToAll, allRanks(topo), 0, 8);
  std::string error;
  EXPECT_TRUE(failed(scheduleRelaying(topo, CostModel(topo), c, rc, error)));
  EXPECT_NE(error.find("is not one of seed 003's k-level algorithms"),
            std::string::npos)
      << error;
}

TEST(Relay, AutoPicksTheFastestCandidate) {
  Topology topo = makeTopology("torus:4x4");
  CostModel model(topo);
  Collective c =
      relayCollective(CollectiveKind::Allreduce, allRanks(topo), -1, 1 << 16);
  std::string error;
  auto best = scheduleRelaying(topo, model, c, {Algorithm::Auto, 0}, error);
  ASSERT_TRUE(succeeded(best)) << error;
  double bestTime = model.time(best->schedule);
  for (Algorithm alg : getRelayAlgorithms(c.kind)) {
    auto one = scheduleRelaying(topo, model, c, {alg, 0}, error);
    if (succeeded(one))
      EXPECT_LE(bestTime, model.time(one->schedule) * (1 + 1e-9))
          << stringifyAlgorithm(alg).str();
  }
  EXPECT_GT(best->tried.size(), 3u);
  // The bound holds and is positive: every member must receive data.
  EXPECT_GT(best->schedule.bound.time, 0);
  EXPECT_LE(best->schedule.bound.time, bestTime * (1 + 1e-9));
}

/// A machine of 8-64 ranks drawn from `rng`: torus, mesh, hypercube or
/// PERCS, odd and non-power-of-two extents included.
std::string randomMachine(std::mt19937 &rng) {
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  for (;;) {
    switch (pick(0, 3)) {
    case 0:
    case 1: {
      std::string spec = pick(0, 1) ? "torus:" : "mesh:";
      int dims = pick(1, 3), ranks = 1;
      for (int d = 0; d < dims; ++d) {
        int k = pick(2, 7);
        ranks *= k;
        spec += (d ? "x" : "") + std::to_string(k);
      }
      if (ranks >= 8 && ranks <= 64)
        return spec;
      break;
    }
    case 2:
      return "hypercube:" + std::to_string(pick(3, 6));
    default: {
      int sn = pick(1, 3), dr = pick(1, 4), nodes = pick(2, 4);
      int ranks = sn * dr * nodes;
      if (ranks >= 8 && ranks <= 64)
        return llvm::formatv("percs:supernodes={0},drawers={1},nodes={2}", sn,
                             dr, nodes)
            .str();
    }
    }
  }
}

/// The operation's bound (issue 39) holds for every relaying schedule, and
/// a relaying all-to-all reports the direct one's bound: both are the
/// larger of what each node and each cut of the machine must pass, which
/// no route or relay avoids. Machines drawn at random (seeded).
TEST(Relay, BoundHoldsForEveryRelayAndMatchesTheDirectAlltoall) {
  std::mt19937 rng(39);
  int checked = 0;
  for (int draw = 0; draw < 16; ++draw) {
    std::string spec = randomMachine(rng);
    Topology topo = makeTopology(spec);
    CostModel model(topo);
    for (CollectiveKind kind : kRelayKinds)
      for (Algorithm alg : getRelayAlgorithms(kind)) {
        Collective c =
            relayCollective(kind, allRanks(topo), hasRoot(kind) ? 1 : -1, 96);
        std::string error;
        auto s = scheduleRelaying(topo, model, c, {alg, 0}, error);
        if (failed(s))
          continue;
        Problem p(topo, s->chunks, model);
        double time = p.cost(s->schedule).time;
        EXPECT_LE(p.bound().time, time * (1 + 1e-9))
            << spec << " " << stringifyCollectiveKind(kind).str() << " "
            << stringifyAlgorithm(alg).str() << ": " << p.bound().reason;
        ++checked;
        if (kind != CollectiveKind::Alltoall)
          continue;
        Collective direct = collectiveOver(topo, CollectiveKind::Alltoall);
        direct.blockBytes = s->chunks.sizeOfChunk(0);
        TransferSet set;
        ASSERT_TRUE(lowers(direct, set));
        Problem d(topo, std::move(set), model);
        EXPECT_NEAR(d.bound().time, p.bound().time, 1e-9 * p.bound().time)
            << spec << ": " << d.bound().reason << " / " << p.bound().reason;
        EXPECT_GE(d.bound().directTime, d.bound().time);
      }
  }
  EXPECT_GT(checked, 100);
}

TEST(Relay, AnyCountOnRandomRings) {
  // Seeded draws of member counts and element counts that the chunks
  // mostly do not divide (issue 38): every ring, chain, dimension-wise
  // and scatter_allgather schedule replays exactly, and its chunks hold
  // the data, the first ones one element more.
  std::mt19937_64 draw(38);
  for (int trial = 0; trial < 40; ++trial) {
    int64_t n = 2 + static_cast<int64_t>(draw() % 11);
    int64_t elements = 1 + static_cast<int64_t>(draw() % 400);
    Topology topo = makeTopology("torus:" + std::to_string(n));
    CostModel model(topo);
    struct Case {
      CollectiveKind kind;
      Algorithm algorithm;
      int64_t param;
    } cases[] = {{CollectiveKind::Allreduce, Algorithm::Ring, 1},
                 {CollectiveKind::Allreduce, Algorithm::Ring, 3},
                 {CollectiveKind::ReduceScatter, Algorithm::Ring, 2},
                 {CollectiveKind::Allgather, Algorithm::Ring, 2},
                 {CollectiveKind::Broadcast, Algorithm::Chain, 5},
                 {CollectiveKind::Broadcast, Algorithm::ScatterAllgather, 0},
                 {CollectiveKind::Allreduce, Algorithm::DimensionWise, 2},
                 {CollectiveKind::Allgather, Algorithm::DimensionWise, 2}};
    for (const Case &c : cases) {
      Collective collective = relayCollective(
          c.kind, allRanks(topo), c.kind == CollectiveKind::Broadcast ? 0 : -1,
          elements);
      std::string error;
      auto s = scheduleRelaying(topo, model, collective, {c.algorithm, c.param},
                                error);
      ASSERT_TRUE(succeeded(s))
          << "n " << n << ", " << elements << " elements, "
          << stringifyAlgorithm(c.algorithm).str() << ": " << error;
      const ChunkSpec &spec = s->chunks;
      int64_t perBlock = spec.chunksPerMember();
      bool perMember = getTraits(c.kind).chunkParts == ChunkParts::PerMember;
      int64_t blocks = perMember ? n : 1;
      EXPECT_EQ(spec.totalBytes(), blocks * collective.blockBytes);
      // Within a block, sizes never grow and differ by one element at most.
      if (!spec.chunkSizes.empty() && perBlock > 0)
        for (int64_t b = 0; b < blocks; ++b)
          for (int64_t q = 1; q < (perMember ? perBlock : spec.numChunks);
               ++q) {
            int64_t at = b * perBlock + q;
            EXPECT_LE(spec.chunkSizes[at], spec.chunkSizes[at - 1]);
            EXPECT_LE(spec.chunkSizes[at - 1] - spec.chunkSizes[at], 4);
          }
      Problem problem(topo, spec, model);
      llvm::SmallVector<ScheduleViolation, 4> violations;
      EXPECT_TRUE(succeeded(problem.verify(s->schedule, violations)))
          << "n " << n << ", " << elements
          << " elements: " << violations.front().message;
    }
  }
}

TEST(Relay, RefusesWhatDoesNotApply) {
  Topology topo = makeTopology("torus:6");
  CostModel model(topo);
  std::string error;
  // Recursive halving needs a power of two.
  Collective rs =
      relayCollective(CollectiveKind::ReduceScatter, allRanks(topo), -1, 4);
  EXPECT_TRUE(failed(scheduleRelaying(
      topo, model, rs, {Algorithm::RecursiveHalving, 0}, error)));
  EXPECT_NE(error.find("power-of-two group (round k pairs member v with v "
                       "xor 2^k), got 6 members"),
            std::string::npos)
      << error;
  // A ring allreduce of 7 elements over 6 members cuts them as MPI's rings
  // do: the first chunk takes the element the others lack.
  Collective ar =
      relayCollective(CollectiveKind::Allreduce, allRanks(topo), -1, 7);
  auto ring = scheduleRelaying(topo, model, ar, {Algorithm::Ring, 0}, error);
  ASSERT_TRUE(succeeded(ring)) << error;
  int64_t unit = ar.elementBytes();
  EXPECT_EQ(ring->chunks.chunkBytes, 0);
  EXPECT_EQ(ring->chunks.chunkSizes,
            (std::vector<int64_t>{2 * unit, unit, unit, unit, unit, unit}));
  Problem problem(topo, ring->chunks, model);
  llvm::SmallVector<ScheduleViolation, 4> violations;
  EXPECT_TRUE(succeeded(problem.verify(ring->schedule, violations)));
  // Three elements over six members: three chunks are empty.
  Collective three =
      relayCollective(CollectiveKind::Allreduce, allRanks(topo), -1, 3);
  ring = scheduleRelaying(topo, model, three, {Algorithm::Ring, 0}, error);
  ASSERT_TRUE(succeeded(ring)) << error;
  EXPECT_EQ(ring->chunks.chunkSizes,
            (std::vector<int64_t>{unit, unit, unit, 0, 0, 0}));
  EXPECT_TRUE(
      succeeded(scheduleRelaying(topo, model, ar, {Algorithm::Auto, 0}, error)))
      << error;
  // An algorithm of another kind.
  EXPECT_TRUE(
      failed(scheduleRelaying(topo, model, ar, {Algorithm::Bruck, 0}, error)));
  EXPECT_EQ(error, "bruck: not supported: algorithm 'bruck' for 'allreduce'");
}

TEST(Relay, BinomialOnARingIsSplitIntoCongestionFreePhases) {
  // On a ring of 8 the binomial tree's last round (0->4 ... 3->7) puts
  // several sources on one link: packRounds splits it.
  Topology topo = makeTopology("torus:8");
  CostModel model(topo);
  Collective c =
      relayCollective(CollectiveKind::Broadcast, allRanks(topo), 0, 16);
  std::string error;
  auto s = scheduleRelaying(topo, model, c, {Algorithm::Binomial, 0}, error);
  ASSERT_TRUE(succeeded(s)) << error;
  EXPECT_GT(s->schedule.phases.size(), 3u);
}

//===----------------------------------------------------------------------===//
// The replay's violations
//===----------------------------------------------------------------------===//

ChunkSpec spec(CollectiveKind kind, int64_t n, int64_t chunks,
               RankId root = -1) {
  ChunkSpec s;
  s.kind = kind;
  for (RankId r = 0; r < n; ++r)
    s.group.push_back(r);
  s.root = root;
  s.numChunks = chunks;
  s.chunkBytes = 8;
  return s;
}

/// A phase of (src, dst, chunks, reduce) transfers.
Phase phase(std::initializer_list<
            std::tuple<RankId, RankId, std::vector<int64_t>, bool>>
                ts) {
  Phase p;
  for (auto &[s, d, chunks, reduce] : ts) {
    p.transfers.push_back({s, d, static_cast<int64_t>(chunks.size()) * 8, 0});
    ChunkTransfer c;
    c.ids.assign(chunks.begin(), chunks.end());
    c.reduce = reduce;
    p.chunks.push_back(std::move(c));
  }
  return p;
}

/// Verifies and returns the first violation.
ScheduleViolation firstViolation(const Topology &topo, const ChunkSpec &s,
                                 Schedule schedule) {
  Problem problem(topo, s, CostModel(topo));
  llvm::SmallVector<ScheduleViolation, 4> v;
  EXPECT_TRUE(failed(problem.verify(schedule, v)));
  if (v.empty())
    return ScheduleViolation{ViolationKind::Bound};
  return v.front();
}

class Replay : public testing::Test {
protected:
  Topology topo = makeTopology("percs:supernodes=1,drawers=1,nodes=4");
  /// The first violation of `phases` under `chunks` is `kind`, `message`.
  void expectViolation(std::vector<Phase> phases, const ChunkSpec &chunks,
                       ViolationKind kind, llvm::StringRef message) {
    Schedule s;
    s.phases = std::move(phases);
    ScheduleViolation v = firstViolation(topo, chunks, s);
    EXPECT_EQ(v.kind, kind);
    EXPECT_EQ(v.message, message.str());
  }
};

TEST_F(Replay, AcceptsABinomialBroadcast) {
  Schedule s;
  s.phases = {phase({{0, 2, {0, 1}, false}}),
              phase({{0, 1, {0, 1}, false}, {2, 3, {0, 1}, false}})};
  Problem problem(topo, spec(CollectiveKind::Broadcast, 4, 2, 0),
                  CostModel(topo));
  llvm::SmallVector<ScheduleViolation, 4> v;
  EXPECT_TRUE(succeeded(problem.verify(s, v)))
      << (v.empty() ? "" : v.front().message);
}

TEST_F(Replay, RulesAreRefused) {
  // A relaying schedule lists what each transfer carries: a phase held by
  // rule (Phase::rules, direct schedules only) is a violation of its own.
  Topology torus = makeTopology("torus:4");
  Schedule s;
  s.phases = {phase({{0, 1, {0}, false}, {0, 2, {0}, false}}),
              phase({{0, 3, {0}, false}})};
  s.translations.push_back({0, 2});
  s.phases[1].rules.push_back({0, {{1, 2, 8}}});
  ScheduleViolation v =
      firstViolation(torus, spec(CollectiveKind::Broadcast, 4, 1, 0), s);
  EXPECT_EQ(v.kind, ViolationKind::BadTransfer);
  EXPECT_EQ(v.message, "phase 1: a rule of 1 transfers (group 0): a relaying "
                       "schedule lists its transfers");
}

TEST_F(Replay, ChunkSentBeforeItArrived) {
  expectViolation({phase({{0, 1, {0}, false}, {1, 2, {0}, false}}),
                   phase({{0, 3, {0}, false}})},
                  spec(CollectiveKind::Broadcast, 4, 1, 0),
                  ViolationKind::ChunkNotHeld,
                  "phase 0: transfer 1 (1 -> 2): rank 1 sends chunk 0, "
                  "which it does not hold when the phase starts");
}

TEST_F(Replay, ContributionCountedTwice) {
  expectViolation(
      {phase({{1, 0, {0}, true}, {1, 2, {0}, true}, {3, 0, {0}, true}}),
       phase({{2, 0, {0}, true}})},
      spec(CollectiveKind::Reduce, 4, 1, 0), ViolationKind::CountedTwice,
      "phase 1: transfer 0 (2 -> 0): reducing chunk 0 into "
      "rank 0 counts the contributions of {1} twice");
}

TEST_F(Replay, BarrierMayHearOfAnArrivalTwice) {
  // Dissemination on 3 members: distance 1, then 2. In the second round
  // every member hears of itself again: harmless news for a barrier
  // (ReplayRules::Phasec), a contribution counted twice for the spec.
  Topology ring = makeTopology("torus:3");
  ChunkSpec barrier = spec(CollectiveKind::Barrier, 3, 1);
  barrier.chunkBytes = 0;
  auto empty = [](Phase p) {
    for (Transfer &t : p.transfers)
      t.bytes = 0;
    return p;
  };
  Schedule s;
  s.phases = {
      empty(phase({{0, 1, {0}, true}, {1, 2, {0}, true}, {2, 0, {0}, true}})),
      empty(phase({{0, 2, {0}, true}, {1, 0, {0}, true}, {2, 1, {0}, true}}))};
  Problem problem(ring, barrier, CostModel(ring));
  llvm::SmallVector<ScheduleViolation, 4> v;
  EXPECT_TRUE(succeeded(problem.verify(s, v))) << v.front().message;
  std::string error;
  EXPECT_TRUE(failed(checkScheduleDocument(problem, s, error)));
  EXPECT_NE(error.find("phase 1: transfer 1 (1 -> 0): reducing chunk 0 into "
                       "rank 0 counts the contributions of {0} twice"),
            std::string::npos)
      << error;
  // Without the second round nobody hears of everyone: still incomplete.
  s.phases.pop_back();
  v.clear();
  EXPECT_TRUE(failed(problem.verify(s, v)));
  // Any other kind's reductions stay disjoint.
  ChunkSpec allreduce = spec(CollectiveKind::Allreduce, 3, 1);
  s.phases = {phase({{0, 1, {0}, true}, {1, 2, {0}, true}, {2, 0, {0}, true}}),
              phase({{0, 2, {0}, true}, {1, 0, {0}, true}, {2, 1, {0}, true}})};
  EXPECT_EQ(firstViolation(ring, allreduce, s).kind,
            ViolationKind::CountedTwice);
}

TEST_F(Replay, RankEndsWithoutAChunk) {
  expectViolation({phase({{1, 0, {1}, false}, {3, 0, {3}, false}})},
                  spec(CollectiveKind::Gather, 4, 4, 0),
                  ViolationKind::MissingChunk, "rank 0 ends without chunk 2");
}

TEST_F(Replay, PartialReduction) {
  expectViolation(
      {phase({{1, 0, {0}, true}, {3, 2, {0}, true}}),
       phase({{0, 1, {0}, false}, {2, 3, {0}, false}})},
      spec(CollectiveKind::Allreduce, 4, 1), ViolationKind::WrongContributions,
      "rank 0 ends with chunk 0 missing the contributions of {2, 3}");
}

TEST_F(Replay, ExtraContributions) {
  // An exclusive scan that lets member 1 keep its own contribution.
  expectViolation(
      {phase({{0, 1, {0}, true},
              {0, 2, {0}, true},
              {1, 2, {0}, true},
              {0, 3, {0}, true},
              {1, 3, {0}, true},
              {2, 3, {0}, true}})},
      spec(CollectiveKind::Exscan, 4, 1), ViolationKind::WrongContributions,
      "rank 1 ends with chunk 0 holding extra contributions of {1}");
}

TEST_F(Replay, ConflictingCopies) {
  expectViolation({phase({{1, 0, {0}, false}, {2, 0, {0}, false}})},
                  spec(CollectiveKind::Allreduce, 4, 1),
                  ViolationKind::ConflictingCopies,
                  "phase 0: transfer 1 (2 -> 0): rank 0 receives chunk "
                  "0 twice in this phase with different contents ({1} "
                  "and {2})");
}

TEST_F(Replay, ReduceIntoARankWithoutTheChunk) {
  expectViolation({phase({{0, 1, {0}, true}})},
                  spec(CollectiveKind::Broadcast, 4, 1, 0),
                  ViolationKind::ReduceWithoutChunk,
                  "phase 0: transfer 0 (0 -> 1): reduces chunk 0 into "
                  "rank 1, which does not hold it");
}

TEST_F(Replay, BadChunks) {
  Schedule s;
  Phase p = phase({{0, 1, {0}, false}});
  p.transfers[0].bytes = 16;
  s.phases = {p};
  ScheduleViolation v =
      firstViolation(topo, spec(CollectiveKind::Broadcast, 4, 1, 0), s);
  EXPECT_EQ(v.kind, ViolationKind::BadChunks);
  EXPECT_EQ(v.message, "phase 0: transfer 0 (0 -> 1): 16 bytes for 1 chunks "
                       "of 8 bytes");
  s.phases = {phase({{0, 1, {5}, false}})};
  v = firstViolation(topo, spec(CollectiveKind::Broadcast, 4, 1, 0), s);
  EXPECT_EQ(v.kind, ViolationKind::BadChunks);
  EXPECT_EQ(v.message, "phase 0: transfer 0 (0 -> 1): chunk 5 is out of "
                       "range (the collective has 1 chunks)");
  s.phases = {phase({{0, 1, {0}, false}})};
  s.phases[0].chunks.clear();
  s.phases.push_back(phase({{0, 2, {0}, false}}));
  v = firstViolation(topo, spec(CollectiveKind::Broadcast, 4, 1, 0), s);
  EXPECT_EQ(v.kind, ViolationKind::BadChunks);
  EXPECT_EQ(v.message, "phase 0: transfer 0 (0 -> 1): carries no chunks");
}

TEST_F(Replay, CongestionStillCounts) {
  // Two sources over one link of a ring of 8.
  Topology ring = makeTopology("torus:8");
  Schedule s;
  s.phases = {phase({{0, 2, {0}, false}})};
  s.phases.push_back(
      phase({{0, 1, {0}, false}, {2, 4, {0}, false}, {1, 3, {0}, false}}));
  ScheduleViolation v =
      firstViolation(ring, spec(CollectiveKind::Broadcast, 8, 1, 0), s);
  EXPECT_EQ(v.kind, ViolationKind::Congestion);
}

} // namespace

TEST(Relay, RingsAndChainsTakeAZ3OrderWhereGroupOrderCongests) {
  // The black squares of an 8 x 8 torus: in group order a ring's round
  // takes two phases; in the order Z3 finds, one.
  Topology topo = makeTopology("torus:8x8");
  CostModel model(topo);
  std::vector<RankId> black;
  for (RankId r = 0; r < 64; ++r)
    if ((r % 8 + r / 8) % 2 == 0)
      black.push_back(r);
  const int64_t n = black.size();
  struct Case {
    CollectiveKind kind;
    RelayChoice choice;
    size_t rounds;
  } cases[] = {
      {CollectiveKind::Allreduce, {Algorithm::Ring, 1}, size_t(2 * (n - 1))},
      {CollectiveKind::Allgather, {Algorithm::Ring, 1}, size_t(n - 1)},
      {CollectiveKind::ReduceScatter, {Algorithm::Ring, 1}, size_t(n - 1)},
      {CollectiveKind::Broadcast, {Algorithm::Chain, 4}, size_t(4 + n - 2)},
      {CollectiveKind::Reduce, {Algorithm::Chain, 4}, size_t(4 + n - 2)},
  };
  for (const Case &c : cases) {
    Collective coll =
        relayCollective(c.kind, black, hasRoot(c.kind) ? 2 : -1, n * 4);
    std::string error;
    auto z3 = scheduleRelaying(topo, model, coll, c.choice, error);
    ASSERT_TRUE(succeeded(z3)) << error;
    RelayChoice plain = c.choice;
    plain.groupOrder = true;
    auto grouped = scheduleRelaying(topo, model, coll, plain, error);
    ASSERT_TRUE(succeeded(grouped)) << error;
    SCOPED_TRACE(stringifyCollectiveKind(c.kind).str());
    EXPECT_EQ(z3->choice.order.size(), static_cast<size_t>(n));
    EXPECT_TRUE(
        llvm::StringRef(z3->schedule.algorithm).ends_with(" in Z3 ring order"));
    EXPECT_TRUE(llvm::StringRef(grouped->schedule.algorithm)
                    .ends_with(" in group order"));
    // One phase per round, where group order needs more.
    EXPECT_EQ(z3->schedule.phases.size(), c.rounds);
    EXPECT_GT(grouped->schedule.phases.size(), c.rounds);
    EXPECT_LT(model.time(z3->schedule), model.time(grouped->schedule));
    // A chain starts at the root.
    if (hasRoot(c.kind))
      EXPECT_EQ(black[z3->choice.order[0]], 2);
  }
  // A scan's chain computes prefixes in group order: it keeps it.
  Collective scan = relayCollective(CollectiveKind::Scan, black, -1, n * 4);
  std::string error;
  auto s = scheduleRelaying(topo, model, scan, {Algorithm::Chain, 4}, error);
  ASSERT_TRUE(succeeded(s)) << error;
  EXPECT_TRUE(s->choice.order.empty());
}

/// The sum over rounds of the longest route (in links) of `choice`'s
/// rounds: what a latency-bound round waits for.
static int64_t longestRoutes(const Topology &topo, const Collective &c,
                             const RelayChoice &choice) {
  std::string error;
  auto spec = getRelayChunks(c, choice, error);
  EXPECT_TRUE(succeeded(spec)) << error;
  auto rounds = buildRelayRounds(*spec, choice, error, &topo);
  EXPECT_TRUE(succeeded(rounds)) << error;
  int64_t sum = 0;
  llvm::SmallVector<LinkId, 16> route;
  for (const RelayRound &round : *rounds) {
    size_t most = 0;
    for (const RelayStep &step : round) {
      topo.routeRanks(c.group[step.src], c.group[step.dst], 0, route);
      most = std::max(most, route.size());
    }
    sum += static_cast<int64_t>(most);
  }
  return sum;
}

TEST(Relay, NearPartnerOrderShortensTheFarthestPairs) {
  // Recursive doubling on 21 ranks of a 3x7 torus (rank x + 3y): fold 16..20
  // onto 0..4, rounds of v xor 1, 2, 4, 8 over 0..15, unfold. In group
  // order the rounds' farthest pairs, worked by hand: the fold 3 links
  // ((1,5) -> (0,0)), xor 1 2 ((2,0) <-> (0,1)), xor 2 2, xor 4 3 ((2,0) <->
  // (0,2)), xor 8 4 ((1,2) <-> (0,5)), the unfold 3: 17 links.
  // 1 us a link: latency-bound rounds.
  Topology topo = makeTopology("torus:3x7;bw=1e9;latency=1e-06");
  CostModel model(topo);
  model.setSync(SyncKind::Auto);
  Collective c = relayCollective(CollectiveKind::Allreduce, allRanks(topo), -1,
                                 /*elements=*/2);
  RelayChoice plain{Algorithm::RecursiveDoubling};
  plain.groupOrder = true;
  EXPECT_EQ(longestRoutes(topo, c, plain), 17);
  std::string error;
  auto near =
      scheduleRelaying(topo, model, c, {Algorithm::RecursiveDoubling}, error);
  ASSERT_TRUE(succeeded(near)) << error;
  auto grouped = scheduleRelaying(topo, model, c, plain, error);
  ASSERT_TRUE(succeeded(grouped)) << error;
  EXPECT_EQ(near->choice.orderSource, RelayChoice::OrderSource::NearPartners);
  EXPECT_TRUE(llvm::StringRef(near->schedule.algorithm)
                  .ends_with(" in near-partner order"));
  // A numbering of every member once.
  std::vector<int32_t> sorted = near->choice.order;
  llvm::sort(sorted);
  for (int32_t v = 0; v < 21; ++v)
    EXPECT_EQ(sorted[v], v);
  EXPECT_LT(longestRoutes(topo, c, near->choice), 17);
  EXPECT_LT(model.machineTime(near->schedule, c.group, true).total(),
            model.machineTime(grouped->schedule, c.group, true).total());

  // On a hypercube group order is the embedding: v xor 2^k is a neighbour,
  // every round one link, nothing to improve.
  Topology cube = makeTopology("hypercube:4");
  Collective onCube =
      relayCollective(CollectiveKind::Allreduce, allRanks(cube), -1, 2);
  CostModel cubeModel(cube);
  cubeModel.setSync(SyncKind::Auto);
  auto same = scheduleRelaying(cube, cubeModel, onCube,
                               {Algorithm::RecursiveDoubling}, error);
  ASSERT_TRUE(succeeded(same)) << error;
  EXPECT_TRUE(same->choice.order.empty());
  EXPECT_EQ(longestRoutes(cube, onCube, same->choice), 4);

  // A broadcast's tree hangs from its root: no renumbering.
  Collective bcast =
      relayCollective(CollectiveKind::Broadcast, allRanks(topo), 0, 2);
  auto tree =
      scheduleRelaying(topo, model, bcast, {Algorithm::Binomial}, error);
  ASSERT_TRUE(succeeded(tree)) << error;
  EXPECT_TRUE(tree->choice.order.empty());
}

TEST(Relay, ReduceBroadcastTreesOfAnyRadix) {
  // reduce_broadcast(k): a k-nomial reduce then a k-nomial broadcast, in
  // ceil(log_k n) rounds each; radix 2 is the binomial tree, n the flat one
  // (every member to and from member 0 in one round).
  Topology topo = makeTopology("torus:4x4");
  CostModel model(topo);
  Collective c =
      relayCollective(CollectiveKind::Allreduce, allRanks(topo), -1, 4);
  for (auto [radix, rounds] : {std::pair<int64_t, size_t>{0, 8},
                               {2, 8},
                               {4, 4},
                               {3, 6},
                               {16, 2},
                               {40, 2}}) {
    SCOPED_TRACE(radix);
    RelayChoice choice{Algorithm::ReduceBroadcast, radix};
    choice.groupOrder = true;
    std::string error;
    auto spec = getRelayChunks(c, choice, error);
    ASSERT_TRUE(succeeded(spec)) << error;
    auto built = buildRelayRounds(*spec, choice, error, &topo);
    ASSERT_TRUE(succeeded(built)) << error;
    EXPECT_EQ(built->size(), rounds);
    // The flat tree: member 0 receives from every other member at once.
    if (radix >= 16)
      EXPECT_EQ(built->front().size(), 15u);
    // Verified by replay: every member ends with the sum.
    EXPECT_TRUE(succeeded(scheduleRelaying(topo, model, c, choice, error)))
        << error;
  }
  // auto tries the binomial, 4-nomial and flat trees.
  auto candidates = getRelayCandidates(Algorithm::ReduceBroadcast, c);
  ASSERT_EQ(candidates.size(), 3u);
  EXPECT_EQ(candidates[1].param, 4);
  EXPECT_EQ(candidates[2].param, 16);
}

TEST(Relay, GridExchangesAlongRowsThenColumns) {
  // grid(c) on seeded draws of machines and groups: every row length that
  // divides the group replays exactly for allgather, reduce_scatter and
  // allreduce, in 2, 2 and 4 rounds, a member sending (c - 1) + (n / c - 1)
  // messages in an allgather.
  std::mt19937_64 draw(39);
  const char *machines[] = {"torus:3x7", "mesh:4x3x2", "hypercube:5",
                            "percs:supernodes=2,drawers=2,nodes=3",
                            "torus:6x6"};
  int built = 0;
  for (const char *spec : machines) {
    Topology topo = makeTopology(spec);
    CostModel model(topo);
    std::vector<RankId> everyone = allRanks(topo);
    for (int trial = 0; trial < 3; ++trial) {
      std::vector<RankId> group = everyone;
      if (trial > 0) { // a shuffled subset of 4 or more members
        std::shuffle(group.begin(), group.end(), draw);
        group.resize(4 + draw() % (group.size() - 3));
      }
      const int64_t n = static_cast<int64_t>(group.size());
      for (CollectiveKind kind :
           {CollectiveKind::Allgather, CollectiveKind::ReduceScatter,
            CollectiveKind::Allreduce})
        for (int64_t c = 2; c < n; ++c) {
          SCOPED_TRACE(llvm::formatv("{0} n={1} {2} grid({3})", spec, n,
                                     stringifyCollectiveKind(kind), c)
                           .str());
          Collective coll = relayCollective(
              kind, group, -1, 1 + static_cast<int64_t>(draw() % 9));
          RelayChoice choice{Algorithm::Grid, c};
          choice.groupOrder = true;
          std::string error;
          auto s = scheduleRelaying(topo, model, coll, choice, error);
          if (n % c) {
            ASSERT_TRUE(failed(s));
            EXPECT_NE(error.find("row length that divides"), std::string::npos)
                << error;
            continue;
          }
          ASSERT_TRUE(succeeded(s)) << error;
          ++built;
          auto rounds = buildRelayRounds(s->chunks, choice, error, &topo);
          ASSERT_TRUE(succeeded(rounds)) << error;
          EXPECT_EQ(rounds->size(),
                    kind == CollectiveKind::Allreduce ? 4u : 2u);
          if (kind == CollectiveKind::Allgather) {
            std::vector<int64_t> sent(n, 0);
            for (const RelayRound &round : *rounds)
              for (const RelayStep &step : round)
                ++sent[step.src];
            for (int64_t v = 0; v < n; ++v)
              EXPECT_EQ(sent[v], (c - 1) + (n / c - 1));
          }
        }
    }
  }
  EXPECT_GT(built, 60);
  // A prime count has no grid; auto offers none there.
  Topology ring = makeTopology("torus:7");
  CostModel model(ring);
  Collective prime =
      relayCollective(CollectiveKind::Allgather, allRanks(ring), -1, 2);
  std::string error;
  EXPECT_TRUE(failed(
      scheduleRelaying(ring, model, prime, {Algorithm::Grid, 0}, error)));
  EXPECT_EQ(error, "grid needs a group that is a grid of several rows "
                   "and columns; 7 members are not");
  EXPECT_TRUE(getRelayCandidates(Algorithm::Grid, prime, &ring).empty());
  // auto's rows: near sqrt(n) both ways, and the machine's lines, planes,
  // drawers and supernodes when the group is the machine in order.
  auto params = [](const Topology &topo) {
    Collective c =
        relayCollective(CollectiveKind::Allgather, allRanks(topo), -1, 2);
    std::vector<int64_t> out;
    for (const RelayChoice &choice :
         getRelayCandidates(Algorithm::Grid, c, &topo))
      out.push_back(choice.param);
    return out;
  };
  EXPECT_EQ(params(makeTopology("torus:3x7")), (std::vector<int64_t>{3, 7}));
  EXPECT_EQ(params(makeTopology("mesh:4x3x2")),
            (std::vector<int64_t>{4, 6, 12}));
  EXPECT_EQ(params(makeTopology("percs:supernodes=3,drawers=3,nodes=6")),
            (std::vector<int64_t>{6, 9, 18}));
}

TEST(Relay, ScatterBruckAllgatherOnAnyCount) {
  // A broadcast as a binomial scatter plus Bruck's allgather: replays on
  // every count from 2 to 40 and every root tried, in ceil(log2 n) rounds
  // each, and no member receives a chunk twice (Bruck skips what the
  // scatter left the receiver).
  for (int64_t n = 2; n <= 40; ++n) {
    SCOPED_TRACE(n);
    Topology topo = makeTopology("torus:" + std::to_string(n));
    CostModel model(topo);
    for (RankId root : {RankId(0), static_cast<RankId>(n / 2)}) {
      Collective c = relayCollective(CollectiveKind::Broadcast, allRanks(topo),
                                     root, 3 * n + 1);
      RelayChoice choice{Algorithm::ScatterBruckAllgather, 0};
      std::string error;
      auto s = scheduleRelaying(topo, model, c, choice, error);
      ASSERT_TRUE(succeeded(s)) << error;
      auto rounds = buildRelayRounds(s->chunks, choice, error, &topo);
      ASSERT_TRUE(succeeded(rounds)) << error;
      const size_t log = llvm::Log2_64_Ceil(n);
      EXPECT_EQ(rounds->size(), 2 * log);
      std::set<std::pair<int32_t, int64_t>> received;
      for (const RelayRound &round : *rounds)
        for (const RelayStep &step : round)
          for (int64_t chunk : step.chunks)
            EXPECT_TRUE(received.insert({step.dst, chunk}).second)
                << "member " << step.dst << " receives chunk " << chunk
                << " twice";
      // Everyone but the root receives all n chunks once.
      EXPECT_EQ(received.size(), static_cast<size_t>((n - 1) * n));
    }
  }
}

TEST(Relay, DoubleChainUsesTwoOfTheRootsLinks) {
  // A whole 2-D grid with an even side: the snake; its rounds are one
  // phase each, and from a corner it halves a chain's time.
  for (const char *spec : {"mesh:4x4", "mesh:3x4", "torus:4x3"}) {
    Topology topo = makeTopology(spec);
    CostModel model(topo);
    const int64_t n = topo.numRanks();
    for (CollectiveKind kind :
         {CollectiveKind::Broadcast, CollectiveKind::Reduce}) {
      Collective c = relayCollective(kind, allRanks(topo), 0, 64);
      std::string error;
      auto dbl =
          scheduleRelaying(topo, model, c, {Algorithm::DoubleChain, 64}, error);
      ASSERT_TRUE(succeeded(dbl)) << spec << " " << error;
      SCOPED_TRACE(std::string(spec) + " " +
                   stringifyCollectiveKind(kind).str());
      // On the torus group order is already free both ways: it stays.
      bool mesh = llvm::StringRef(spec).starts_with("mesh");
      EXPECT_EQ(dbl->schedule.algorithm,
                mesh ? "double_chain(64) in snake order" : "double_chain(64)");
      EXPECT_EQ(dbl->choice.orderSource == RelayChoice::OrderSource::Snake,
                mesh);
      EXPECT_EQ(dbl->schedule.phases.size(), static_cast<size_t>(32 + n - 2));
      auto one =
          scheduleRelaying(topo, model, c, {Algorithm::Chain, 64}, error);
      ASSERT_TRUE(succeeded(one)) << error;
      EXPECT_LT(model.time(dbl->schedule), 0.7 * model.time(one->schedule));
    }
  }
  // A sub-group: Z3 finds a ring that is free both ways, or group order.
  Topology topo = makeTopology("torus:8x8");
  std::vector<RankId> black;
  for (RankId r = 0; r < 64; ++r)
    if ((r % 8 + r / 8) % 2 == 0)
      black.push_back(r);
  Collective c = relayCollective(CollectiveKind::Broadcast, black, 2, 64);
  std::string error;
  auto dbl = scheduleRelaying(topo, CostModel(topo), c,
                              {Algorithm::DoubleChain, 8}, error);
  ASSERT_TRUE(succeeded(dbl)) << error;
  EXPECT_NE(dbl->choice.orderSource, RelayChoice::OrderSource::Snake);
}
