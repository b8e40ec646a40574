//===- RegistryTest.cpp - Tests of the scheduler registry -----------------===//
//
// Part of phasec. One entry per SchedulerAlgorithm, named as the vocabulary
// spells it; `applies` says why not; scheduleAuto, the loop over the
// registry's candidates, picks what the hand-written dispatcher it replaced
// picked (the expectations below are that dispatcher's results, from
// phasec-sched-bench at 560bdb9).
//
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Registry.h"
#include "phasec/Scheduling/Baselines.h"

#include "TestUtil.h"

#include "gtest/gtest.h"

#include <tuple>

using namespace phasec;
using phasec::test::allRanks;
using phasec::test::makeTopology;

namespace {

/// The benchmark's collectives: blocks of 32 KiB over every rank, root 0;
/// a random permutation and skewed alltoallv sizes from seed 1.
TransferSet benchCollective(const Topology &t, CollectiveKind kind) {
  Collective c;
  c.kind = kind;
  c.blockBytes = 32768;
  c.root = 0;
  c.group = allRanks(t);
  if (kind == CollectiveKind::Permute) {
    c.permutation.kind = PermuteKind::Random;
    c.permutation.seed = 1;
  } else if (kind == CollectiveKind::Alltoallv) {
    uint64_t state = 1;
    c.sizes.resize(c.group.size() * c.group.size());
    for (int64_t &s : c.sizes)
      s = c.blockBytes * (int64_t(1) << (splitmix64(state) % 5));
  }
  std::string error;
  auto set = c.lower(error);
  EXPECT_TRUE(succeeded(set)) << error;
  return std::move(*set);
}

/// A schedule as (phase, src, dst, bytes, ties) rows, for comparisons.
std::vector<std::tuple<size_t, RankId, RankId, int64_t, TieMask>>
rows(const Schedule &s) {
  std::vector<std::tuple<size_t, RankId, RankId, int64_t, TieMask>> out;
  for (size_t p = 0; p < s.phases.size(); ++p)
    for (const Transfer &t : s.phases[p].transfers)
      out.emplace_back(p, t.src, t.dst, t.bytes, t.ties);
  return out;
}

} // namespace

TEST(Registry, OneEntryPerAlgorithm) {
  llvm::ArrayRef<SchedulerEntry> entries = getSchedulers();
  unsigned maxValue = getMaxEnumValForSchedulerAlgorithm();
  EXPECT_EQ(entries.size(), maxValue + 1);
  for (unsigned v = 0; v <= maxValue; ++v) {
    auto algorithm = static_cast<SchedulerAlgorithm>(v);
    unsigned count = llvm::count_if(entries, [&](const SchedulerEntry &e) {
      return e.algorithm == algorithm;
    });
    EXPECT_EQ(count, 1u) << stringifySchedulerAlgorithm(algorithm).str();
    const SchedulerEntry &entry = getScheduler(algorithm);
    EXPECT_EQ(entry.algorithm, algorithm);
    EXPECT_EQ(entry.name, stringifySchedulerAlgorithm(algorithm));
    EXPECT_NE(entry.applies, nullptr);
    EXPECT_NE(entry.run, nullptr);
  }
}

/// The baselines are the three hand-written patterns; auto never tries
/// them, and every other algorithm but auto itself is one of its candidates.
TEST(Registry, BaselinesAndCandidates) {
  std::vector<std::string> baselines, candidates;
  for (const SchedulerEntry &e : getSchedulers()) {
    if (e.baseline)
      baselines.push_back(e.name.str());
    if (e.autoTry)
      candidates.push_back(e.name.str());
    EXPECT_FALSE(e.baseline && e.autoTry) << e.name.str();
  }
  EXPECT_EQ(baselines,
            (std::vector<std::string>{"linear_shift", "xor", "greedy"}));
  EXPECT_EQ(candidates, (std::vector<std::string>{
                            "product", "percs", "torus-quotient",
                            "mesh-quotient", "greedy-priority", "z3-exact"}));
}

TEST(Registry, AppliesSaysWhyNot) {
  Topology torus = makeTopology("torus:4x4");
  Problem a2a(torus, benchCollective(torus, CollectiveKind::Alltoall));
  SchedulerOptions options;
  std::string why;
  EXPECT_FALSE(
      getScheduler(SchedulerAlgorithm::Percs).applies(a2a, options, &why));
  EXPECT_NE(why.find("PERCS supernode"), std::string::npos) << why;
  EXPECT_TRUE(
      getScheduler(SchedulerAlgorithm::Product).applies(a2a, options, nullptr));

  // runScheduler reports the same reason as the algorithm's error.
  Schedule s;
  SchedulerReport r;
  EXPECT_TRUE(failed(runScheduler(getScheduler(SchedulerAlgorithm::Percs), a2a,
                                  s, options, r)));
  EXPECT_EQ(r.error, why);

  Topology percs = makeTopology("percs:supernodes=1,drawers=2,nodes=4;ranks=2");
  Problem onPercs(percs, benchCollective(percs, CollectiveKind::Alltoall));
  EXPECT_FALSE(getScheduler(SchedulerAlgorithm::Product)
                   .applies(onPercs, options, &why));
  EXPECT_NE(why.find("torus, mesh or hypercube"), std::string::npos) << why;

  Problem gather(torus, benchCollective(torus, CollectiveKind::Gather));
  EXPECT_FALSE(getScheduler(SchedulerAlgorithm::TorusQuotient)
                   .applies(gather, options, &why));
  EXPECT_NE(why.find("complete uniform all-to-all"), std::string::npos) << why;

  // The mesh quotient: the collective, and the orbits it packs at most.
  Topology mesh = makeTopology("mesh:4x4");
  Problem meshGather(mesh, benchCollective(mesh, CollectiveKind::Gather));
  EXPECT_FALSE(getScheduler(SchedulerAlgorithm::MeshQuotient)
                   .applies(meshGather, options, &why));
  EXPECT_EQ(why, "the mesh quotient construction needs a complete all-to-all "
                 "of uniform blocks over every rank");
  Topology big = makeTopology("mesh:32x32");
  Problem bigA2a(big, benchCollective(big, CollectiveKind::Alltoall));
  EXPECT_FALSE(getScheduler(SchedulerAlgorithm::MeshQuotient)
                   .applies(bigA2a, options, &why));
  EXPECT_EQ(why, "the mesh quotient construction packs at most 150000 "
                 "orbits of transfers; this mesh has 261888 (1047552 "
                 "transfers in 4 mirror images each)");

  options.exactMaxTransfers = 100;
  EXPECT_FALSE(
      getScheduler(SchedulerAlgorithm::Z3Exact).applies(a2a, options, &why));
  EXPECT_NE(why.find("limited to 100 transfers"), std::string::npos) << why;

  Topology six = makeTopology("torus:6");
  Problem ring(six, benchCollective(six, CollectiveKind::Alltoall));
  EXPECT_FALSE(
      getScheduler(SchedulerAlgorithm::Xor).applies(ring, options, &why));
  EXPECT_NE(why.find("power-of-two number of ranks"), std::string::npos) << why;
  for (SchedulerAlgorithm a :
       {SchedulerAlgorithm::Auto, SchedulerAlgorithm::GreedyPriority,
        SchedulerAlgorithm::LinearShift, SchedulerAlgorithm::Greedy})
    EXPECT_TRUE(getScheduler(a).applies(ring, options, nullptr))
        << stringifySchedulerAlgorithm(a).str();
}

/// A baseline run through the registry is the baseline's schedule.
TEST(Registry, BaselinesRunAsBefore) {
  Topology t = makeTopology("torus:4x4");
  Problem p(t, benchCollective(t, CollectiveKind::Alltoall));
  Schedule direct, viaRegistry;
  std::string error;
  ASSERT_TRUE(succeeded(scheduleLinearShift(p, direct, error))) << error;
  direct.canonicalize();
  SchedulerReport r;
  ASSERT_TRUE(succeeded(runScheduler(
      getScheduler(SchedulerAlgorithm::LinearShift), p, viaRegistry, {}, r)))
      << r.error;
  EXPECT_EQ(r.algorithm, "linear_shift");
  EXPECT_EQ(r.phases, direct.phases.size());
  EXPECT_EQ(rows(direct), rows(viaRegistry));
}

/// What auto picked before the registry, on each kind of winner.
TEST(Registry, AutoPicksAsBefore) {
  struct Case {
    const char *spec;
    CollectiveKind kind;
    const char *algorithm;
    size_t phases;
    bool timeOptimal, phaseOptimal;
  } cases[] = {
      {"torus:4x4", CollectiveKind::Alltoall, "torus-quotient", 8, true, false},
      {"percs:supernodes=1,drawers=2,nodes=4;ranks=2", CollectiveKind::Alltoall,
       "percs", 4, true, false},
      {"mesh:4x4", CollectiveKind::Alltoall, "product", 16, true, false},
      // 99 phases before the chain base phases (QuotientChains.h).
      {"torus:9x9", CollectiveKind::Alltoall, "torus-quotient", 90, true,
       false},
      {"hypercube:3", CollectiveKind::Alltoall, "greedy-priority", 4, true,
       true},
      {"torus:4x4", CollectiveKind::Gather, "greedy-priority", 6, false, true},
      {"torus:4x4x2", CollectiveKind::Permute, "greedy-priority", 2, false,
       true},
      {"torus:4x4;injection=link", CollectiveKind::Alltoallv, "greedy-priority",
       11, true, false},
  };
  for (const Case &c : cases) {
    Topology t = makeTopology(c.spec);
    Problem p(t, benchCollective(t, c.kind));
    Schedule s;
    SchedulerReport r;
    ASSERT_TRUE(succeeded(scheduleAuto(p, s, {}, r))) << r.error;
    std::string label =
        std::string(c.spec) + " " + stringifyCollectiveKind(c.kind).str();
    EXPECT_EQ(r.algorithm, c.algorithm) << label;
    EXPECT_EQ(s.phases.size(), c.phases) << label;
    EXPECT_EQ(r.timeOptimal, c.timeOptimal) << label;
    EXPECT_EQ(r.phaseOptimal, c.phaseOptimal) << label;
    llvm::SmallVector<ScheduleViolation, 4> violations;
    EXPECT_TRUE(succeeded(p.verify(s, violations, 4))) << label;

    // The winner's own run gives the same schedule: auto only chooses.
    std::optional<SchedulerAlgorithm> winner =
        symbolizeSchedulerAlgorithm(r.algorithm);
    ASSERT_TRUE(winner.has_value()) << label;
    Schedule alone;
    SchedulerReport ar;
    ASSERT_TRUE(
        succeeded(runScheduler(getScheduler(*winner), p, alone, {}, ar)))
        << label << ": " << ar.error;
    EXPECT_EQ(rows(s), rows(alone)) << label;
  }
}

// The simulators' baselines by name (SimGrid's and ns-3's tables).
TEST(Registry, BaselinesByName) {
  for (const char *name : {"linear_shift", "xor", "greedy"})
    EXPECT_TRUE(isBaseline(name)) << name;
  for (const char *name : {"auto", "torus-quotient", "magic", ""})
    EXPECT_FALSE(isBaseline(name)) << name;
  Topology torus = makeTopology("torus:4x4");
  Problem a2a(torus, benchCollective(torus, CollectiveKind::Alltoall));
  Schedule s;
  std::string error;
  EXPECT_TRUE(succeeded(runBaseline("xor", a2a, s, error))) << error;
  EXPECT_FALSE(s.phases.empty());
  EXPECT_TRUE(failed(runBaseline("magic", a2a, s, error)));
  EXPECT_EQ(error,
            "unknown baseline 'magic' (expected linear_shift, xor, greedy)");
}

// What a direct operation's `algorithm` directive asks the registry for.
TEST(Registry, DirectSchedulerOfADirective) {
  Topology torus = makeTopology("torus:4x4");
  Topology ring = makeTopology("torus:6");
  Problem pow2(torus, benchCollective(torus, CollectiveKind::Alltoall));
  Problem six(ring, benchCollective(ring, CollectiveKind::Alltoall));
  for (Algorithm a : {Algorithm::Auto, Algorithm::Direct, Algorithm::Schedule,
                      Algorithm::GatherEvaluate})
    EXPECT_EQ(getDirectScheduler(a, 0, pow2), SchedulerAlgorithm::Auto);
  EXPECT_EQ(getDirectScheduler(Algorithm::LinearShift, 0, pow2),
            SchedulerAlgorithm::LinearShift);
  // Pairwise: XOR where the group is a power of two, else the shift.
  EXPECT_EQ(getDirectScheduler(Algorithm::Pairwise, 0, pow2),
            SchedulerAlgorithm::Xor);
  EXPECT_EQ(getDirectScheduler(Algorithm::Pairwise, 0, six),
            SchedulerAlgorithm::LinearShift);
  // 1-lev-dir is direct traffic; two levels and the relays are not.
  EXPECT_EQ(getDirectScheduler(Algorithm::KLevel, 1, pow2),
            SchedulerAlgorithm::Auto);
  EXPECT_EQ(getDirectScheduler(Algorithm::KLevel, 2, pow2), std::nullopt);
  EXPECT_EQ(getDirectScheduler(Algorithm::Bruck, 0, pow2), std::nullopt);
}

// Seed 004's gather and local evaluation against a relay's time.
TEST(Registry, GatherEvaluateOnlyWhenFasterUnderAuto) {
  Topology torus = makeTopology("torus:4x4");
  Collective reduce =
      phasec::test::rootedOver(torus, CollectiveKind::Reduce, 8);
  CostModel model(torus);
  SchedulerOptions options;
  auto choose = [&](Aggregate aggregate, Algorithm directive, double relay) {
    return chooseGatherEvaluate(torus, reduce, aggregate, directive, model,
                                relay, options);
  };
  std::optional<GatherEvaluateCandidate> taken =
      choose(Aggregate::Reduce, Algorithm::Auto, 1e30);
  ASSERT_TRUE(taken.has_value());
  // The allgather of every member's value, verified.
  EXPECT_EQ(taken->problem.transfers().size(), 16u * 15u);
  llvm::SmallVector<ScheduleViolation> violations;
  EXPECT_TRUE(succeeded(taken->problem.verify(taken->schedule, violations)));
  double time = taken->problem.cost(taken->schedule).machine.total();
  // A relay as fast keeps the relay (a tie), and so does every directive
  // but auto and every aggregate that does not need every value.
  EXPECT_FALSE(choose(Aggregate::Reduce, Algorithm::Auto, time).has_value());
  EXPECT_TRUE(
      choose(Aggregate::Reduce, Algorithm::Auto, time * 1.01).has_value());
  EXPECT_FALSE(choose(Aggregate::Reduce, Algorithm::Bruck, 1e30).has_value());
  EXPECT_FALSE(choose(Aggregate::Rank, Algorithm::Auto, 1e30).has_value());
}

/// Issue 39: `auto` relays a direct kind only where the relay's machine
/// time beats the direct one's by more than the margin, only under `auto`,
/// and only up to kRelayOverDirectMaxChunks chunks.
TEST(Registry, RelayOverDirectOnlyWhenClearlyFasterUnderAuto) {
  Topology mesh = makeTopology("mesh:8x8;bw=1.25e7;setup=3e-4");
  Collective scatter =
      phasec::test::rootedOver(mesh, CollectiveKind::OneToAll, 4096);
  CostModel model(mesh);
  auto choose = [&](const Collective &c, Algorithm directive, double direct) {
    return chooseRelayOverDirect(mesh, c, directive, model, direct);
  };
  std::optional<RelayOverDirectCandidate> taken =
      choose(scatter, Algorithm::Auto, 1e30);
  ASSERT_TRUE(taken.has_value());
  Problem relayed(mesh, taken->relay.chunks, model);
  llvm::SmallVector<ScheduleViolation> violations;
  EXPECT_TRUE(succeeded(relayed.verify(taken->relay.schedule, violations)));
  double time = relayed.cost(taken->relay.schedule).machine.total();
  EXPECT_DOUBLE_EQ(taken->cost.machine.total(), time);
  // Within the margin the direct schedule stays; beyond it the relay wins.
  EXPECT_FALSE(choose(scatter, Algorithm::Auto, time * 1.05).has_value());
  EXPECT_TRUE(choose(scatter, Algorithm::Auto, time * 1.2).has_value());
  // A named algorithm is the user's choice; a kind without relays has none.
  EXPECT_FALSE(choose(scatter, Algorithm::Direct, 1e30).has_value());
  Collective permute =
      phasec::test::collectiveOver(mesh, CollectiveKind::Permute);
  permute.blockBytes = 8;
  EXPECT_FALSE(choose(permute, Algorithm::Auto, 1e30).has_value());
  // An all-to-all of 64 members has 4096 chunks: tried; of 65, not.
  Collective alltoall =
      phasec::test::collectiveOver(mesh, CollectiveKind::Alltoall);
  alltoall.blockBytes = 8;
  EXPECT_TRUE(choose(alltoall, Algorithm::Auto, 1e30).has_value());
  Topology bigger = makeTopology("torus:5x13");
  Collective big =
      phasec::test::collectiveOver(bigger, CollectiveKind::Alltoall);
  big.blockBytes = 8;
  EXPECT_FALSE(chooseRelayOverDirect(bigger, big, Algorithm::Auto,
                                     CostModel(bigger), 1e30)
                   .has_value());
}

/// Run without barriers (the drop-in library), a forwarding relay gives way
/// to the kind's direct relay unless it is clearly faster: recursive
/// doubling for a 1 KiB scan on a 4 x 4 torus with 1 us a hop is not ahead
/// of the direct scan posted at once; a 1 MiB broadcast keeps its
/// forwarding schedule, far ahead of the root sending every copy.
TEST(Registry, ForwardingGivesWayToDirectWithinTheMargin) {
  Topology torus = makeTopology("torus:4x4;bw=1e9;latency=1e-6");
  CostModel model(torus);
  model.setSync(SyncKind::None);
  Collective scan = phasec::test::collectiveOver(torus, CollectiveKind::Scan);
  scan.blockBytes = 1024;
  scan.elementType = ElementType::Int32;
  std::string error;
  llvm::FailureOr<RelaySchedule> relay = scheduleRelaying(
      torus, model, scan, RelayChoice{Algorithm::RecursiveDoubling}, error);
  ASSERT_TRUE(succeeded(relay)) << error;
  ASSERT_FALSE(forwardsNothing(relay->schedule));
  double forwarding =
      model.machineTime(relay->schedule, scan.group, true).total();
  EXPECT_TRUE(preferForwardingNothing(torus, model, scan, *relay));
  EXPECT_TRUE(forwardsNothing(relay->schedule));
  EXPECT_EQ(relay->choice.algorithm, Algorithm::Direct);
  double once = model.machineTime(relay->schedule, scan.group, true).total();
  EXPECT_GE(forwarding, once * (1 - kRelayOverDirectMargin));
  // Already forwarding nothing: unchanged.
  EXPECT_FALSE(preferForwardingNothing(torus, model, scan, *relay));

  Collective bcast =
      phasec::test::rootedOver(torus, CollectiveKind::Broadcast, 1 << 20);
  relay = scheduleRelaying(torus, model, bcast, RelayChoice{}, error);
  ASSERT_TRUE(succeeded(relay)) << error;
  ASSERT_FALSE(forwardsNothing(relay->schedule));
  RelayChoice chosen = relay->choice;
  EXPECT_FALSE(preferForwardingNothing(torus, model, bcast, *relay));
  EXPECT_EQ(relay->choice.algorithm, chosen.algorithm);
}
