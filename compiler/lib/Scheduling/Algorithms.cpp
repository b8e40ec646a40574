//===- Algorithms.cpp - Product and PERCS constructions -------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// The structured constructions for complete uniform all-to-all: the product
// of per-dimension ring schedules on grids and the c^2-phase PERCS supernode
// schedule. scheduleAuto, which picks among all algorithms, is in
// Registry.cpp.
//
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Algorithms.h"
#include "AlgorithmsInternal.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace phasec;

std::optional<int64_t> phasec::completeUniformAlltoall(const Problem &problem) {
  const TransferSet &ts = problem.transfers();
  int64_t r = problem.topology().numRanks();
  if (r < 2 || static_cast<int64_t>(ts.size()) != r * (r - 1))
    return std::nullopt;
  // Canonical sets hold distinct pairs without self pairs; with ranks in
  // range, R(R-1) of them are all pairs.
  if (ts.maxRank() >= r)
    return std::nullopt;
  return ts.uniformBytes();
}

void phasec::detail::progress(const Problem &problem,
                              const SchedulerOptions &options,
                              const llvm::Twine &line) {
  if (options.progress && problem.transfers().size() >= kProgressTransfers)
    options.progress(line.str());
}

void phasec::detail::finalizeReport(const Problem &problem, Schedule &schedule,
                                    const SchedulerOptions &options,
                                    SchedulerReport &report) {
  detail::progress(problem, options,
                   schedule.algorithm + ": " +
                       llvm::Twine(schedule.phases.size()) +
                       " phases, computing their cost");
  ScheduleCost cost = problem.cost(schedule);
  report.cost = cost;
  schedule.bound = cost.bound;
  report.algorithm = schedule.algorithm;
  report.phases = schedule.phases.size();
  report.messages = schedule.numTransfers();
  report.time = cost.time;
  report.machineTime = cost.machine.total();
  report.sync = cost.machine.chosen;
  report.boundTime = cost.bound.time;
  report.gap = cost.gap;
  report.timeOptimal = cost.timeOptimal;
  report.directOptimal = cost.directOptimal;
  report.phaseOptimal |= cost.phaseOptimal;
  if (!report.proof.empty())
    return;
  if (cost.timeOptimal)
    report.proof =
        "schedule time equals the lower bound (" + cost.bound.reason + ")";
  else if (cost.directOptimal)
    report.proof = "schedule time equals the bound of direct schedules (" +
                   cost.bound.directReason + ")";
  else if (cost.phaseOptimal)
    report.proof =
        "phases equal the lower bound (" + cost.bound.phasesReason + ")";
}

namespace {

struct DimRing {
  unsigned k;
  bool wrap, two;
};

/// How dimension d of a grid routes, as a ring / line.
DimRing dimRing(const Topology &topo, unsigned d) {
  unsigned k = static_cast<unsigned>(topo.extent(d));
  switch (topo.kind()) {
  case TopologyKind::Torus:
    return {k, true, true};
  case TopologyKind::Hypercube:
    return {k, false, false};
  default:
    return {k, false, false};
  }
}

} // namespace

bool phasec::detail::isOnePort(const Problem &problem) {
  double inj = problem.costModel().injectionBandwidth();
  return inj > 0 && inj < 2 * problem.topology().desc().linkBandwidth;
}

bool phasec::detail::constructionApplies(const Problem &problem, bool machineOk,
                                         llvm::StringRef construction,
                                         llvm::StringRef machine,
                                         std::string *whyNot) {
  std::string reason;
  if (!machineOk)
    reason = (construction + " construction needs " + machine).str();
  else if (!completeUniformAlltoall(problem))
    reason = (construction + " construction needs a complete all-to-all of "
                             "uniform blocks over every rank")
                 .str();
  else
    return true;
  if (whyNot)
    *whyNot = std::move(reason);
  return false;
}

bool phasec::detail::productApplies(const Problem &problem,
                                    const SchedulerOptions &options,
                                    std::string *whyNot) {
  return constructionApplies(problem, problem.topology().isGrid(), "product",
                             "a torus, mesh or hypercube", whyNot);
}

bool phasec::detail::hasLatinRingCores(const Problem &problem,
                                       const SchedulerOptions &options,
                                       SchedulerReport &probe) {
  const Topology &topo = problem.topology();
  for (unsigned d = 0; d < topo.numDims(); ++d) {
    DimRing r = dimRing(topo, d);
    SchedulerReport ring;
    auto rs = getRingSchedule(r.k, r.wrap, r.two, options, ring);
    // Solver work done here counts for whatever schedule comes out.
    probe.solverQueries += ring.solverQueries;
    probe.cacheHits += ring.cacheHits;
    probe.cacheMisses += ring.cacheMisses;
    probe.rlimitUsed += ring.rlimitUsed;
    probe.addCacheIgnored(ring.cacheIgnored);
    if (failed(rs) || rs->perms.size() != r.k)
      return false;
  }
  return true;
}

llvm::LogicalResult phasec::scheduleProduct(const Problem &problem,
                                            Schedule &schedule,
                                            const SchedulerOptions &options,
                                            SchedulerReport &report) {
  const Topology &topo = problem.topology();
  if (!detail::productApplies(problem, options, &report.error))
    return llvm::failure();
  std::optional<int64_t> block = completeUniformAlltoall(problem);
  unsigned nd = topo.numDims();
  std::vector<RingSchedule> rings;
  for (unsigned d = 0; d < nd; ++d) {
    DimRing r = dimRing(topo, d);
    auto rs = getRingSchedule(r.k, r.wrap, r.two, options, report);
    if (failed(rs))
      return llvm::failure();
    report.notes.push_back(
        llvm::formatv("dimension {0}: {1} of {2}, {3} steps ({4}{5})", d,
                      r.wrap ? "ring" : "line", r.k, rs->perms.size(),
                      rs->source, rs->identityFirst ? ", identity first" : ""));
    rings.push_back(std::move(*rs));
  }
  bool dropIdentity = llvm::all_of(
      rings, [](const RingSchedule &rs) { return rs.identityFirst; });

  int64_t P = topo.numNodes(), c = topo.ranksPerNode();
  std::vector<int64_t> stepCount(nd);
  int64_t numNodePhases = 1;
  for (unsigned d = 0; d < nd; ++d) {
    stepCount[d] = static_cast<int64_t>(rings[d].perms.size());
    numNodePhases *= stepCount[d];
  }
  schedule = Schedule();
  schedule.algorithm = "product";
  int64_t firstKept = dropIdentity ? 1 : 0;
  int64_t kept = numNodePhases - firstKept;
  if (kept <= 0) {
    // A single node: only intra-node transfers.
    kept = 1;
    firstKept = 0;
  }
  schedule.phases.resize(static_cast<size_t>(kept * c * c));
  llvm::SmallVector<int64_t, 8> xs(nd), step(nd, 0);
  // Mixed-radix counter over node-level phases, dimension 0 fastest.
  for (int64_t q = 0; q < numNodePhases; ++q) {
    if (q > 0)
      for (unsigned d = 0; d < nd; ++d) {
        if (++step[d] < stepCount[d])
          break;
        step[d] = 0;
      }
    int64_t slot = q - firstKept;
    if (slot < 0)
      slot = 0; // the dropped identity phase: its intra-node copies go to 0
    for (NodeId x = 0; x < P; ++x) {
      NodeId y = 0;
      TieMask ties = 0;
      bool defined = true;
      int64_t stride = 1;
      for (unsigned d = 0; d < nd; ++d) {
        int64_t xd = topo.coord(x, d);
        int32_t yd = rings[d].perms[step[d]][xd];
        if (yd < 0) {
          defined = false;
          break;
        }
        if (rings[d].minus[step[d]][xd])
          ties |= TieMask(1) << d;
        y += static_cast<NodeId>(yd * stride);
        stride *= topo.extent(d);
      }
      if (!defined)
        continue;
      ties &= topo.tieMask(x, y);
      for (int64_t c1 = 0; c1 < c; ++c1)
        for (int64_t c2 = 0; c2 < c; ++c2) {
          RankId s = static_cast<RankId>(x * c + c1);
          RankId t = static_cast<RankId>(y * c + c2);
          if (s == t)
            continue;
          schedule.phases[static_cast<size_t>((slot * c + c1) * c + c2)]
              .transfers.push_back({s, t, *block, ties});
        }
    }
  }
  schedule.canonicalize();
  detail::finalizeReport(problem, schedule, options, report);
  report.notes.push_back(llvm::formatv(
      "product of {0} node-level phases{1} x {2} core pairs", kept,
      dropIdentity ? " (all-identity phase dropped)" : "", c * c));
  return llvm::success();
}

bool phasec::detail::percsApplies(const Problem &problem,
                                  const SchedulerOptions &options,
                                  std::string *whyNot) {
  const Topology &topo = problem.topology();
  return constructionApplies(problem,
                             topo.isPercs() && topo.numSupernodes() == 1,
                             "PERCS", "a single PERCS supernode", whyNot);
}

llvm::LogicalResult phasec::schedulePercs(const Problem &problem,
                                          Schedule &schedule,
                                          const SchedulerOptions &options,
                                          SchedulerReport &report) {
  const Topology &topo = problem.topology();
  if (!detail::percsApplies(problem, options, &report.error))
    return llvm::failure();
  std::optional<int64_t> block = completeUniformAlltoall(problem);
  int64_t n = topo.numNodes(), c = topo.ranksPerNode();
  schedule = Schedule();
  schedule.algorithm = "percs";
  schedule.phases.resize(static_cast<size_t>(c * c));
  // Phase (a, b): node u's core (a + v) mod c sends to node v's core
  // (b + u) mod c, for every v != u. Every direct link u->v carries one
  // block per phase, and over the c^2 phases every core pair of (u, v)
  // exactly once. Sources rotate with v so that all c cores of a node send.
  for (int64_t a = 0; a < c; ++a)
    for (int64_t b = 0; b < c; ++b) {
      auto &ph = schedule.phases[static_cast<size_t>(a * c + b)].transfers;
      ph.reserve(static_cast<size_t>(n * n));
      for (int64_t u = 0; u < n; ++u)
        for (int64_t v = 0; v < n; ++v) {
          if (u == v)
            continue;
          ph.push_back({static_cast<RankId>(u * c + (a + v) % c),
                        static_cast<RankId>(v * c + (b + u) % c), *block, 0});
        }
    }
  // Intra-node transfers use no link: core c1 -> c2 of node u goes into
  // phase (c1 - u, c2 - u) mod c, free of charge. Like the phases above it
  // is then the same seen from (u + 1, core + 1): the generated code keeps
  // tables for one node only (targets/common/Translations.h).
  for (int64_t u = 0; u < n; ++u)
    for (int64_t c1 = 0; c1 < c; ++c1)
      for (int64_t c2 = 0; c2 < c; ++c2)
        if (c1 != c2) {
          int64_t a = ((c1 - u) % c + c) % c, b = ((c2 - u) % c + c) % c;
          schedule.phases[static_cast<size_t>(a * c + b)].transfers.push_back(
              {static_cast<RankId>(u * c + c1), static_cast<RankId>(u * c + c2),
               *block, 0});
        }
  schedule.canonicalize();
  detail::finalizeReport(problem, schedule, options, report);
  return llvm::success();
}
