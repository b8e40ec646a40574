//===- AlgorithmsTest.cpp - Tests of the scheduling algorithms ------------===//
//
// Part of phasec. Every schedule is checked by Problem::verify (independent
// of the algorithms); phase counts are checked against what the
// constructions provably reach.
//
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Algorithms.h"
#include "phasec/Scheduling/Collective.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "TestUtil.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

using namespace phasec;
using phasec::test::makeTopology;

namespace {

/// `op` is the vocabulary's spelling; "rank_permute" permutes blocks.
Collective request(const Topology &t, llvm::StringRef op, int64_t bytes = 64) {
  Collective r;
  r.kind = op == "rank_permute" ? CollectiveKind::Permute
                                : *symbolizeCollectiveKind(op);
  r.blockBytes = bytes;
  r.root = 0;
  r.group.resize(t.numRanks());
  std::iota(r.group.begin(), r.group.end(), 0);
  return r;
}

/// An alltoallv over every rank of `t`: each pair's bytes are `size(x)` of
/// the next draw x of SplitMix64 seeded with `seed` (row-major pairs).
Collective randomAlltoallv(const Topology &t, uint64_t seed,
                           llvm::function_ref<int64_t(uint64_t)> size) {
  Collective v = request(t, "alltoallv");
  v.sizes.resize(t.numRanks() * t.numRanks());
  for (auto &x : v.sizes)
    x = size(splitmix64(seed));
  return v;
}

TransferSet build(const Collective &r) {
  std::string error;
  auto ts = r.lower(error);
  EXPECT_TRUE(succeeded(ts)) << error;
  return std::move(*ts);
}

/// Runs `algorithm` (auto by default), verifies, returns the report.
SchedulerReport run(const Problem &problem, Schedule &schedule,
                    SchedulerOptions options = {}) {
  SchedulerReport report;
  EXPECT_TRUE(succeeded(scheduleAuto(problem, schedule, options, report)))
      << report.error;
  llvm::SmallVector<ScheduleViolation, 4> violations;
  EXPECT_TRUE(succeeded(problem.verify(schedule, violations, 4)))
      << (violations.empty() ? "" : violations.front().message);
  EXPECT_EQ(report.phases, schedule.phases.size());
  return report;
}

SchedulerOptions use(SchedulerAlgorithm a) {
  SchedulerOptions o;
  o.algorithm = a;
  return o;
}

/// The all-to-all over every rank of `spec`, scheduled by `algorithm` into
/// `schedule` and verified (run).
SchedulerReport runAlltoall(llvm::StringRef spec, SchedulerAlgorithm algorithm,
                            Schedule &schedule) {
  Topology t = makeTopology(spec);
  Problem p(t, build(request(t, "alltoall")));
  return run(p, schedule, use(algorithm));
}

bool canonical(const Schedule &s) {
  for (const Phase &p : s.phases) {
    if (p.transfers.empty())
      return false;
    for (size_t i = 1; i < p.transfers.size(); ++i)
      if (std::make_pair(p.transfers[i - 1].src, p.transfers[i - 1].dst) >=
          std::make_pair(p.transfers[i].src, p.transfers[i].dst))
        return false;
  }
  return true;
}

} // namespace

TEST(AlgorithmNames, RoundTrip) {
  for (auto a : {SchedulerAlgorithm::Auto, SchedulerAlgorithm::Product,
                 SchedulerAlgorithm::Percs, SchedulerAlgorithm::TorusQuotient,
                 SchedulerAlgorithm::GreedyPriority,
                 SchedulerAlgorithm::Z3Exact, SchedulerAlgorithm::LinearShift,
                 SchedulerAlgorithm::Xor, SchedulerAlgorithm::Greedy})
    EXPECT_EQ(symbolizeSchedulerAlgorithm(stringifySchedulerAlgorithm(a)), a);
  EXPECT_FALSE(symbolizeSchedulerAlgorithm("fastest").has_value());
}

/// Rings of 2..7 get identity cores (k steps), a ring of 8 a plain one with
/// the counting proof that no identity core exists.
TEST(RingSchedules, TorusCores) {
  for (unsigned k = 2; k <= 8; ++k) {
    SchedulerOptions o;
    SchedulerReport r;
    auto rs = getRingSchedule(k, /*wrap=*/true, /*two=*/true, o, r);
    ASSERT_TRUE(succeeded(rs)) << r.error;
    EXPECT_EQ(rs->perms.size(), k);
    EXPECT_EQ(rs->identityFirst, k <= 7) << "k=" << k;
    std::string error;
    EXPECT_TRUE(succeeded(checkRingSchedule(*rs, error))) << error;
    if (k == 8) {
      ASSERT_FALSE(r.notes.empty());
      EXPECT_NE(r.notes.front().find("no identity ring core"),
                std::string::npos);
    }
  }
}

/// Rings above 8 and long lines get greedy schedules that still cover every
/// pair with link-disjoint partial permutations.
TEST(RingSchedules, GreedyRings) {
  for (auto [k, wrap] : {std::pair<unsigned, bool>{16, true},
                         {12, true},
                         {8, false},
                         {5, false}}) {
    SchedulerOptions o;
    SchedulerReport r;
    auto rs = getRingSchedule(k, wrap, true, o, r);
    ASSERT_TRUE(succeeded(rs));
    std::string error;
    EXPECT_TRUE(succeeded(checkRingSchedule(*rs, error))) << error;
    EXPECT_GE(rs->perms.size(), k);
  }
}

TEST(RingSchedules, CheckerCatchesErrors) {
  RingSchedule rs;
  rs.k = 3;
  rs.perms = {{0, 1, 2}, {1, 2, 0}, {1, 0, 1}};
  rs.minus = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  std::string error;
  EXPECT_TRUE(failed(checkRingSchedule(rs, error)));
  rs.perms[2] = {2, 0, 1};
  EXPECT_TRUE(succeeded(checkRingSchedule(rs, error))) << error;
  rs.minus[1][0] = 1; // 0 -> 1 on a ring of 3 is no tie
  EXPECT_TRUE(failed(checkRingSchedule(rs, error)));
}

/// max(link bound, P-1) on one-port tori with extents <= 8.
TEST(Product, ToriUpToEight) {
  struct Case {
    const char *spec;
    size_t phases;
  } cases[] = {{"torus:4x4x4", 63},       {"torus:6x6", 35},
               {"torus:5x7", 34},         {"torus:8x8", 64},
               {"torus:2x2x2x2x2x2", 63}, {"torus:3x3", 8}};
  for (const Case &c : cases) {
    Topology t = makeTopology(c.spec);
    Collective req = request(t, "alltoall");
    Problem p(t, build(req), CostModel::onePort(t));
    Schedule s;
    SchedulerReport r = run(p, s, use(SchedulerAlgorithm::Product));
    EXPECT_EQ(s.phases.size(), c.phases) << c.spec;
    EXPECT_TRUE(r.timeOptimal) << c.spec << " gap " << r.gap;
    EXPECT_TRUE(canonical(s));
  }
}

/// The T3D: 512 phases, equal to the link bound.
TEST(Product, T3D) {
  Topology t = makeTopology("torus:8x4x8x2;injection=link");
  Problem p(t, build(request(t, "alltoall", 32768)));
  Schedule s;
  SchedulerReport r = run(p, s);
  EXPECT_EQ(r.algorithm, "product");
  EXPECT_EQ(s.phases.size(), 512u);
  EXPECT_DOUBLE_EQ(s.bound.blocks, 512);
  EXPECT_TRUE(r.timeOptimal);
}

TEST(Product, Hypercubes) {
  for (int n = 1; n <= 7; ++n) {
    Topology t = makeTopology("hypercube:" + std::to_string(n));
    Problem p(t, build(request(t, "alltoall")), CostModel::onePort(t));
    Schedule s;
    SchedulerReport r = run(p, s);
    EXPECT_EQ(s.phases.size(), (size_t(1) << n) - 1) << "n=" << n;
    EXPECT_TRUE(r.timeOptimal);
  }
}

/// A 4x4x4 mesh: lines of 4 have Latin cores, 64 phases = the link bound.
TEST(Product, SmallMesh) {
  Topology t = makeTopology("mesh:4x4x4");
  Problem p(t, build(request(t, "alltoall")));
  Schedule s;
  SchedulerReport r = run(p, s);
  EXPECT_EQ(s.phases.size(), 64u);
  EXPECT_TRUE(r.timeOptimal);
}

/// Several ranks per node: node phases repeated per core pair, intra-node
/// transfers in existing phases.
TEST(Product, RanksPerNode) {
  Topology t = makeTopology("torus:4x4;ranks=2");
  Problem p(t, build(request(t, "alltoall")), CostModel::onePort(t));
  Schedule s;
  run(p, s, use(SchedulerAlgorithm::Product));
  EXPECT_EQ(s.phases.size(), 15u * 4u);
}

TEST(Product, NotApplicable) {
  Topology t = makeTopology("torus:4x4");
  Collective req = request(t, "gather");
  Problem p(t, build(req));
  Schedule s;
  SchedulerOptions o = use(SchedulerAlgorithm::Product);
  SchedulerReport r;
  EXPECT_TRUE(failed(scheduleAuto(p, s, o, r)));
  EXPECT_NE(r.error.find("complete all-to-all"), std::string::npos);
}

/// PERCS supernode: efficiency 1 in the spec's model (>= 0.95 / 0.90).
TEST(Percs, Supernode) {
  for (int ranks : {8, 32}) {
    Topology t = makeTopology("percs:supernodes=1,drawers=4,nodes=8;ranks=" +
                              std::to_string(ranks));
    Problem p(t, build(request(t, "alltoall", 4096)));
    Schedule s;
    SchedulerReport r = run(p, s);
    EXPECT_EQ(r.algorithm, "percs");
    EXPECT_EQ(s.phases.size(), size_t(ranks * ranks));
    EXPECT_GE(1 / r.gap, 0.95) << "ranks=" << ranks;
  }
}

/// Meshes and large tori: the heuristics stay near the bound.
TEST(Heuristics, MeshAndTorus) {
  struct Case {
    const char *spec;
    double maxGap;
  } cases[] = {{"mesh:8x8", 1.05},
               {"torus:10x6", 1.10},
               {"torus:16x16", 1.10},
               {"mesh:6x6", 1.05}};
  for (const Case &c : cases) {
    Topology t = makeTopology(c.spec);
    Problem p(t, build(request(t, "alltoall")));
    Schedule s;
    SchedulerReport r = run(p, s);
    EXPECT_LE(r.gap, c.maxGap) << c.spec << " (" << r.algorithm << ")";
    EXPECT_TRUE(canonical(s));
  }
}

TEST(Heuristics, TorusQuotient) {
  Schedule s;
  SchedulerReport r =
      runAlltoall("torus:8x8x8", SchedulerAlgorithm::TorusQuotient, s);
  EXPECT_LE(r.gap, 1.25);
  // Not applicable to mixed extents.
  Topology t2 = makeTopology("torus:4x6");
  Problem p2(t2, build(request(t2, "alltoall")));
  SchedulerReport r2;
  EXPECT_TRUE(failed(scheduleTorusQuotient(
      p2, s, use(SchedulerAlgorithm::TorusQuotient), r2)));
}

/// The mesh quotient packs whole orbits under the mirror images of the mesh:
/// every phase holds each of its transfers' 2^D images (which is why they
/// never congest), the schedule verifies (run), the same inputs give the
/// same phases, and one-port 6x6x6 lands within 1.05 of the bound (the
/// greedy on the whole mesh: 1.117).
TEST(Heuristics, MeshQuotient) {
  struct Case {
    const char *spec;
    double maxGap;
  };
  for (Case c : {Case{"mesh:4x4", 1.0}, Case{"mesh:6x4;injection=link", 1.0},
                 Case{"mesh:2x6x4", 1.0}, Case{"mesh:8", 1.0},
                 Case{"mesh:4x4x4;injection=link", 1.15},
                 Case{"mesh:6x6x6;injection=link", 1.05}}) {
    SCOPED_TRACE(c.spec);
    Topology t = makeTopology(c.spec);
    Problem p(t, build(request(t, "alltoall")));
    Schedule s, again;
    SchedulerOptions o = use(SchedulerAlgorithm::MeshQuotient);
    SchedulerReport r = run(p, s, o);
    EXPECT_EQ(r.algorithm, "mesh-quotient");
    EXPECT_LE(r.gap, c.maxGap);
    EXPECT_TRUE(canonical(s));
    llvm::SmallVector<int64_t, 4> xs;
    for (const Phase &phase : s.phases) {
      std::set<std::pair<RankId, RankId>> pairs;
      for (const Transfer &tr : phase.transfers)
        pairs.insert({tr.src, tr.dst});
      for (const Transfer &tr : phase.transfers)
        for (unsigned d = 0; d < t.numDims(); ++d) {
          auto mirror = [&](RankId r) {
            t.coords(r, xs);
            xs[d] = t.extent(d) - 1 - xs[d];
            return static_cast<RankId>(t.nodeAt(xs));
          };
          EXPECT_TRUE(pairs.count({mirror(tr.src), mirror(tr.dst)}))
              << tr.src << "->" << tr.dst << " mirrored in dimension " << d;
        }
    }
    run(p, again, o);
    EXPECT_TRUE(test::sameSchedule(s, again));
  }
  // What it does not take, with the reason as the error.
  for (const char *spec :
       {"torus:4x4", "mesh:5x4", "mesh:4x4;ranks=2", "hypercube:3"}) {
    Topology t = makeTopology(spec);
    Problem p(t, build(request(t, "alltoall")));
    Schedule s;
    SchedulerReport r;
    EXPECT_TRUE(failed(
        scheduleMeshQuotient(p, s, use(SchedulerAlgorithm::MeshQuotient), r)));
    EXPECT_EQ(r.error, "the mesh quotient construction needs a mesh with "
                       "even extents and one rank per node")
        << spec;
  }
}

/// Issue 15's figure: one-port mesh 8x8x8 within 1.05 of the bound (1087
/// phases by the greedy, 1072 by the mesh quotient, bound 1024).
TEST(Heuristics, MeshQuotientOnePort8x8x8) {
  Topology t = makeTopology("mesh:8x8x8;injection=link");
  Problem p(t, build(request(t, "alltoall")));
  Schedule s;
  SchedulerReport r = run(p, s, use(SchedulerAlgorithm::MeshQuotient));
  EXPECT_LE(r.gap, 1.05);
  EXPECT_EQ(r.phases, 1072u);
}

/// The quotient holds its phases by rule (a representative per orbit):
/// listed, they are the same transfers in the same phases, and the
/// verifier, the cost model and the report read both forms alike. With
/// ranks per node, chains in mirrored frames (6x6x6) and without chains.
TEST(Heuristics, TorusQuotientRulesListTheSameSchedule) {
  for (const char *spec : {"torus:6x6x6;injection=link", "torus:5x5;ranks=2",
                           "torus:16x16;injection=link"})
    for (bool chains : {true, false}) {
      SCOPED_TRACE(std::string(spec) + (chains ? "" : " without chains"));
      Topology t = makeTopology(spec);
      Problem p(t, build(request(t, "alltoall")));
      SchedulerOptions o = use(SchedulerAlgorithm::TorusQuotient);
      o.quotientChains = chains;
      Schedule listed, ruled;
      SchedulerReport r1 = run(p, listed, o);
      o.phaseRules = true;
      SchedulerReport r2 = run(p, ruled, o);
      EXPECT_FALSE(listed.hasRules());
      ASSERT_TRUE(ruled.hasRules());
      EXPECT_EQ(ruled.numTransfers(), listed.numTransfers());
      EXPECT_EQ(r2.messages, r1.messages);
      EXPECT_EQ(r2.time, r1.time);
      EXPECT_EQ(r2.machineTime, r1.machineTime);
      // Far fewer representatives than transfers.
      size_t reps = 0;
      for (const Phase &phase : ruled.phases)
        for (const PhaseRule &rule : phase.rules)
          reps += rule.reps.size();
      EXPECT_LT(reps * 4, listed.numTransfers());
      expandRules(t, ruled);
      EXPECT_TRUE(test::sameSchedule(ruled, listed));
    }
}

/// Everything posted at once, a schedule held by rule is charged as its
/// listed phases are. 10x10x10 one-port passes the fluid model's work
/// budget (about 9.5 M flow-hops), where the model charges the most loaded
/// link or port: here no more than on the phases' own routes, recomputed
/// from every listed transfer.
TEST(Heuristics, TorusQuotientRulesFluidBottleneck) {
  Topology t = makeTopology("torus:10x10x10;injection=link");
  CostModel model = CostModel::onePort(t);
  Problem p(t, build(request(t, "alltoall")), model);
  SchedulerOptions o = use(SchedulerAlgorithm::TorusQuotient);
  o.phaseRules = true;
  Schedule ruled;
  run(p, ruled, o);
  ASSERT_TRUE(ruled.hasRules());
  Schedule listed = ruled;
  expandRules(t, listed);
  size_t numLinks = t.numLinks(), numNodes = t.numNodes();
  std::vector<double> load(numLinks + 2 * numNodes, 0.0);
  llvm::SmallVector<LinkId, 16> route;
  for (const Phase &phase : listed.phases)
    for (const Transfer &x : phase.transfers) {
      NodeId s = t.nodeOfRank(x.src), d = t.nodeOfRank(x.dst);
      t.route(s, d, x.ties, route);
      for (LinkId l : route)
        load[l] += static_cast<double>(x.bytes);
      load[numLinks + s] += static_cast<double>(x.bytes);
      load[numLinks + numNodes + d] += static_cast<double>(x.bytes);
    }
  double bottleneck = 0;
  for (size_t r = 0; r < load.size(); ++r)
    bottleneck = std::max(
        bottleneck,
        load[r] / (r < numLinks ? t.link(static_cast<LinkId>(r)).bandwidth
                                : model.injectionBandwidth()));
  // Posted at once the ties are spread over the whole exchange: never
  // worse than the phases' own routes, and the same from the rules as
  // from the listed phases.
  EXPECT_LE(model.fluidTime(ruled), bottleneck);
  EXPECT_DOUBLE_EQ(model.fluidTime(ruled), model.fluidTime(listed));
  EXPECT_DOUBLE_EQ(model.time(ruled), model.time(listed));
}

/// The quotient's base problem is packed by the greedy and then the tabu
/// search (QuotientSearch.cpp). Before the search these were 1.12 (10x10),
/// 1.10 (9x9x9) and, one-port, 2.21 (9x9x9: the port limit was not part of
/// the base problem); the limits below fail if either part regresses.
struct QuotientCase {
  const char *spec;
  double maxGap;
};

/// Runs the torus quotient on each case; returns the reports.
std::vector<SchedulerReport>
expectQuotientGaps(llvm::ArrayRef<QuotientCase> cases) {
  std::vector<SchedulerReport> reports;
  for (const QuotientCase &c : cases) {
    Schedule s;
    SchedulerReport r =
        runAlltoall(c.spec, SchedulerAlgorithm::TorusQuotient, s);
    EXPECT_LE(r.gap, c.maxGap + 1e-9) << c.spec;
    EXPECT_TRUE(canonical(s)) << c.spec;
    reports.push_back(std::move(r));
  }
  return reports;
}

TEST(Quotient, SmallToriReachBound) {
  expectQuotientGaps({{"torus:4x4", 1.0},
                      {"torus:10x10", 1.05},
                      {"torus:9x9x9", 1.07},
                      {"torus:9x9x9;injection=link", 1.08}});
}

/// Chain base phases (QuotientChains.h) use every link class once: with
/// them one-port 16x16 takes 33 base phases for a bound of 32 where the
/// packer alone needed 34, and 32x32 129 for 128 where it needed 145.
/// The cases cover mirrored frames with ties (even k), no ties (odd k),
/// another routing order, several ranks per node and no port limit; every
/// schedule passes verify() in run().
TEST(Quotient, ChainsReachBound) {
  std::vector<SchedulerReport> reports =
      expectQuotientGaps({{"torus:16x16;injection=link", 1.032},
                          {"torus:32x32;injection=link", 1.008},
                          {"torus:11x11;injection=link", 1.07},
                          {"torus:16x16;injection=link;order=1.0", 1.032},
                          {"torus:12x12;ranks=2;injection=link", 1.06},
                          {"torus:16x16", 1.032},
                          {"torus:8x8x8;injection=link;order=2.0.1", 1.10}});
  for (const SchedulerReport &r : reports)
    EXPECT_TRUE(llvm::any_of(r.notes, [](const std::string &n) {
      return llvm::StringRef(n).contains("chain base phases");
    }));
  // The chains are what brings 16x16 to 33 base phases.
  Topology t = makeTopology("torus:16x16;injection=link");
  Problem p(t, build(request(t, "alltoall")));
  Schedule with, without;
  SchedulerOptions o = use(SchedulerAlgorithm::TorusQuotient);
  run(p, with, o);
  o.quotientChains = false;
  run(p, without, o);
  EXPECT_EQ(with.phases.size(), 33u * 16);
  EXPECT_GT(without.phases.size(), with.phases.size());
}

/// Long runs report their milestones through SchedulerOptions::progress
/// (the CLI's -v); small problems stay silent.
TEST(Quotient, ReportsProgress) {
  std::vector<std::string> lines;
  SchedulerOptions o = use(SchedulerAlgorithm::TorusQuotient);
  o.progress = [&](llvm::StringRef line) { lines.push_back(line.str()); };
  Topology big = makeTopology("torus:6x6x6;ranks=3");
  Problem p(big, build(request(big, "alltoall")));
  ASSERT_GE(p.transfers().size(), kProgressTransfers);
  Schedule s;
  run(p, s, o);
  auto has = [&](llvm::StringRef what) {
    return llvm::any_of(lines, [&](const std::string &l) {
      return llvm::StringRef(l).contains(what);
    });
  };
  EXPECT_TRUE(has("chain base phases cover"));
  EXPECT_TRUE(has("expanding"));
  EXPECT_TRUE(has("computing their cost"));
  lines.clear();
  Topology small = makeTopology("torus:6x6");
  Problem q(small, build(request(small, "alltoall")));
  run(q, s, o);
  EXPECT_TRUE(lines.empty());
}

/// Greedy-priority repacks uniform-block schedules by the tabu search
/// (Repack.cpp): one-port mesh 8x8 took 135 phases (1.086 x the bound)
/// before, the mesh without a port limit 130.
TEST(Repack, UniformBlocks) {
  struct Case {
    const char *spec;
    size_t maxPhases;
  } cases[] = {{"mesh:8x8;injection=link", 130}, {"mesh:8x8", 128}};
  for (const Case &c : cases) {
    Schedule s;
    SchedulerReport r =
        runAlltoall(c.spec, SchedulerAlgorithm::GreedyPriority, s);
    EXPECT_LE(s.phases.size(), c.maxPhases) << c.spec;
    EXPECT_TRUE(canonical(s)) << c.spec;
    EXPECT_TRUE(llvm::any_of(r.notes, [](const std::string &n) {
      return llvm::StringRef(n).starts_with("repack:") &&
             llvm::StringRef(n).ends_with(", kept");
    })) << c.spec;
  }
  // Not this model: several block sizes.
  Topology t = makeTopology("torus:4x4x2;injection=link");
  Collective v =
      randomAlltoallv(t, 3, [](uint64_t r) { return 1024 * (1 + r % 4); });
  Problem pv(t, build(v));
  Schedule s;
  SchedulerReport r = run(pv, s, use(SchedulerAlgorithm::GreedyPriority));
  EXPECT_FALSE(llvm::any_of(r.notes, [](const std::string &n) {
    return llvm::StringRef(n).starts_with("repack:");
  }));
}

/// Skewed alltoallv on a one-port torus: the split runs cut pairs into
/// blocks over several phases; verify() counts a pair's bytes in total, so it
/// accepts the split schedule and still names a pair that loses or repeats
/// one of its chunks.
TEST(Heuristics, SplitAlltoallv) {
  Topology t = makeTopology("torus:4x4x2;injection=link");
  Collective v =
      randomAlltoallv(t, 11, [](uint64_t r) { return 1024 * (1 + r % 16); });
  Problem p(t, build(v));
  Schedule s;
  SchedulerReport r = run(p, s);
  EXPECT_EQ(r.algorithm, "greedy-split");
  EXPECT_LE(r.gap, 1.10);
  // Find a pair delivered in more than one phase.
  std::map<std::pair<RankId, RankId>, unsigned> seen;
  const Transfer *chunk = nullptr;
  size_t chunkPhase = 0;
  for (size_t ph = 0; ph < s.phases.size() && !chunk; ++ph)
    for (const Transfer &x : s.phases[ph].transfers)
      if (++seen[{x.src, x.dst}] == 2) {
        chunk = &x;
        chunkPhase = ph;
        break;
      }
  ASSERT_NE(chunk, nullptr) << "no pair was split";
  Transfer copy = *chunk;
  llvm::SmallVector<ScheduleViolation, 4> violations;
  // Over-delivery: the chunk once more, in a phase of its own.
  Schedule dup = s;
  dup.phases.emplace_back();
  dup.phases.back().transfers.push_back(copy);
  EXPECT_TRUE(failed(p.verify(dup, violations, 4)));
  ASSERT_FALSE(violations.empty());
  EXPECT_EQ(violations.front().kind, ViolationKind::Duplicate);
  // Incomplete: the chunk dropped.
  Schedule lost = s;
  auto &tr = lost.phases[chunkPhase].transfers;
  tr.erase(std::find_if(tr.begin(), tr.end(), [&](const Transfer &x) {
    return x.src == copy.src && x.dst == copy.dst;
  }));
  violations.clear();
  EXPECT_TRUE(failed(p.verify(lost, violations, 4)));
  ASSERT_FALSE(violations.empty());
  EXPECT_EQ(violations.front().kind, ViolationKind::Incomplete);
}

/// General transfer sets on the T3D, byte-aware.
TEST(Heuristics, PermutationAndSkewedAlltoallv) {
  Topology t = makeTopology("torus:8x4x8x2");
  Collective perm = request(t, "rank_permute", 4096);
  perm.permutation.kind = PermuteKind::Random;
  perm.permutation.seed = 7;
  Problem p(t, build(perm));
  Schedule s;
  SchedulerReport r = run(p, s);
  // Against the direct schedules' bound: a permutation's hottest link is
  // what routing every demand straight must pay; the operation's bound
  // (cuts, which a relaying schedule might approach) is lower.
  EXPECT_LE(r.time / p.bound().directTime, 1.10);
  EXPECT_LT(p.bound().time, p.bound().directTime);

  Topology small = makeTopology("torus:4x4");
  Collective v =
      randomAlltoallv(small, 3, [](uint64_t r) { return 64 << (r % 5); });
  Problem pv(small, build(v));
  Schedule sv;
  SchedulerReport rv = run(pv, sv);
  EXPECT_LE(rv.time / pv.bound().directTime, 1.5);
}

TEST(Heuristics, RootedCollectives) {
  Topology t = makeTopology("torus:4x4x2");
  for (const char *op : {"gather", "all_to_one"}) {
    Problem p(t, build(request(t, op)));
    Schedule s;
    SchedulerReport r = run(p, s);
    // Every transfer crosses the root's few in-links: the greedy keeps the
    // busiest of them busy in every phase: direct-optimal. The root's
    // links are not evenly loaded by the routes, so a relaying schedule
    // could do better: not time-optimal.
    EXPECT_LE(r.time / p.bound().directTime, 1.0 + 1e-9) << op;
    EXPECT_TRUE(r.directOptimal) << op;
    EXPECT_FALSE(r.timeOptimal) << op;
  }
  for (const char *op : {"scatter", "one_to_all"}) {
    Problem p(t, build(request(t, op)));
    Schedule s;
    SchedulerReport r = run(p, s);
    // One source: everything merges into a single phase whose time is the
    // busiest out-link with the ties split evenly (12 blocks); the bound
    // averages the ring's ties over all its links (8 blocks), so 1.5 is the
    // optimum measured against that bound.
    EXPECT_EQ(s.phases.size(), 1u) << op;
    EXPECT_LE(r.time / p.bound().directTime, 1.5 + 1e-9) << op;
  }
}

/// Z3 exact on a small instance, asked for by name: the greedy needs 9
/// phases on a 4x4 torus, Z3 finds 8 = the link bound. (Auto now reaches the
/// bound with the torus quotient and never gets to Z3 here; see
/// Quotient.SmallToriReachBound.)
TEST(Exact, SmallTorus) {
  Schedule s;
  SchedulerReport r = runAlltoall("torus:4x4", SchedulerAlgorithm::Z3Exact, s);
  EXPECT_EQ(r.algorithm, "z3-exact");
  EXPECT_TRUE(r.timeOptimal);
  EXPECT_FALSE(r.proof.empty());
  EXPECT_EQ(s.phases.size(), 8u);
}

/// Z3 proves the greedy's 6 phases optimal on a 3x3 mesh (5 is unsat),
/// although the bound says 5.14.
TEST(Exact, ProvesGreedyOptimal) {
  Topology t = makeTopology("mesh:3x3");
  Problem p(t, build(request(t, "alltoall")));
  Schedule s;
  SchedulerOptions o;
  SchedulerReport r = run(p, s, o);
  EXPECT_EQ(s.phases.size(), 6u);
  EXPECT_GT(r.gap, 1.0);
  // Above the bound: phase-optimal, never time-optimal.
  EXPECT_FALSE(r.timeOptimal);
  EXPECT_TRUE(r.phaseOptimal);
  EXPECT_NE(r.proof.find("unsat"), std::string::npos) << r.proof;
}

/// A budget that runs out falls back to the heuristic, says so, and still
/// gives a verified schedule.
TEST(Exact, BudgetFallback) {
  // First-fit takes more than 8 phases here, the optimum is 8 (see
  // Exact.SmallTorus; greedy-priority reaches 8 since its repacking).
  Topology t = makeTopology("torus:4x4");
  Problem p(t, build(request(t, "alltoall")));
  Schedule greedy;
  std::string error;
  ASSERT_TRUE(succeeded(scheduleGreedy(p, greedy, error))) << error;
  ASSERT_GT(greedy.phases.size(), 8u);
  SchedulerOptions o;
  o.rlimit = 1000;
  Schedule s;
  SchedulerReport r;
  ASSERT_TRUE(succeeded(scheduleExact(p, s, o, r, &greedy)));
  EXPECT_TRUE(r.fellBack);
  EXPECT_FALSE(r.timeOptimal);
  EXPECT_FALSE(r.phaseOptimal);
  EXPECT_EQ(s.phases.size(), greedy.phases.size());
  bool mentioned = false;
  for (auto &n : r.notes)
    mentioned |= n.find("budget exhausted") != std::string::npos;
  EXPECT_TRUE(mentioned);
  llvm::SmallVector<ScheduleViolation, 4> v;
  EXPECT_TRUE(succeeded(p.verify(s, v)));
}

/// Ring cores under a tiny budget: the product still works (greedy rings).
TEST(Product, BudgetFallback) {
  clearRingCoreMemoryCache();
  Topology t = makeTopology("torus:6x6");
  Problem p(t, build(request(t, "alltoall")), CostModel::onePort(t));
  SchedulerOptions o = use(SchedulerAlgorithm::Product);
  o.rlimit = 500;
  Schedule s;
  SchedulerReport r = run(p, s, o);
  EXPECT_TRUE(r.fellBack);
  clearRingCoreMemoryCache();
}

/// Same input, same schedule; with and without the on-disk cache.
TEST(Determinism, RepeatAndCache) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("phasec-cache", dir));
  Topology t = makeTopology("torus:8x4x8x2");
  Problem p(t, build(request(t, "alltoall")));
  SchedulerOptions o;
  o.cacheDir = std::string(dir);
  clearRingCoreMemoryCache();
  Schedule a, b, c;
  SchedulerReport ra = run(p, a, o);
  EXPECT_GT(ra.solverQueries, 0u);
  clearRingCoreMemoryCache();
  SchedulerReport rb = run(p, b, o); // from the disk cache
  EXPECT_EQ(rb.solverQueries, 0u);
  EXPECT_GT(rb.cacheHits, 0u);
  SchedulerReport rc = run(p, c); // memory cache, no directory
  auto same = phasec::test::sameSchedule;
  EXPECT_TRUE(same(a, b));
  EXPECT_TRUE(same(a, c));
  // The heuristics too.
  Topology m = makeTopology("mesh:6x6");
  Problem pm(m, build(request(m, "alltoall")));
  Schedule g1, g2;
  run(pm, g1);
  run(pm, g2);
  EXPECT_TRUE(same(g1, g2));
  llvm::sys::fs::remove_directories(dir);
}

TEST(Auto, EmptyAndBaselines) {
  Topology t = makeTopology("torus:4x4");
  Problem p(t, build(request(t, "alltoall")));
  for (auto a : {SchedulerAlgorithm::LinearShift, SchedulerAlgorithm::Xor,
                 SchedulerAlgorithm::Greedy}) {
    Schedule s;
    SchedulerOptions o;
    o.algorithm = a;
    SchedulerReport r = run(p, s, o);
    EXPECT_GE(r.gap, 1.0);
  }
  Problem empty(t, TransferSet());
  Schedule s;
  SchedulerReport r = run(empty, s);
  EXPECT_TRUE(s.phases.empty());
}
