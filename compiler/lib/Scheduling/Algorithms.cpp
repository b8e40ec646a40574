//===- Algorithms.cpp - Product and PERCS constructions, scheduleAuto -----===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// The structured constructions for complete uniform all-to-all (the product
// of per-dimension ring schedules on grids, the c^2-phase PERCS supernode
// schedule) and the dispatcher that picks the best algorithm for a problem.
//
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Algorithms.h"
#include "AlgorithmsInternal.h"
#include "phasec/Scheduling/Baselines.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
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

void phasec::detail::finalizeReport(const Problem &problem, Schedule &schedule,
                                    const SchedulerOptions &options,
                                    SchedulerReport &report) {
  ScheduleCost cost = problem.cost(schedule);
  schedule.bound = cost.bound;
  report.algorithm = schedule.algorithm;
  report.phases = schedule.phases.size();
  report.time = cost.time;
  report.boundTime = cost.bound.time;
  report.gap = cost.gap;
  report.timeOptimal = cost.timeOptimal;
  report.phaseOptimal |= cost.phaseOptimal;
  if (!report.proof.empty())
    return;
  if (cost.timeOptimal)
    report.proof =
        "schedule time equals the lower bound (" + cost.bound.reason + ")";
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

llvm::LogicalResult phasec::scheduleProduct(const Problem &problem,
                                            Schedule &schedule,
                                            const SchedulerOptions &options,
                                            SchedulerReport &report) {
  const Topology &topo = problem.topology();
  if (!topo.isGrid()) {
    report.error = "product construction needs a torus, mesh or hypercube";
    return llvm::failure();
  }
  std::optional<int64_t> block = completeUniformAlltoall(problem);
  if (!block) {
    report.error = "product construction needs a complete all-to-all of "
                   "uniform blocks over every rank";
    return llvm::failure();
  }
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

llvm::LogicalResult phasec::schedulePercs(const Problem &problem,
                                          Schedule &schedule,
                                          const SchedulerOptions &options,
                                          SchedulerReport &report) {
  const Topology &topo = problem.topology();
  if (!topo.isPercs() || topo.numSupernodes() != 1) {
    report.error = "PERCS construction needs a single PERCS supernode";
    return llvm::failure();
  }
  std::optional<int64_t> block = completeUniformAlltoall(problem);
  if (!block) {
    report.error = "PERCS construction needs a complete all-to-all of "
                   "uniform blocks over every rank";
    return llvm::failure();
  }
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
  // Intra-node transfers use no link: core c1 -> c2 of every node goes into
  // phase (c1, c2), free of charge.
  for (int64_t u = 0; u < n; ++u)
    for (int64_t c1 = 0; c1 < c; ++c1)
      for (int64_t c2 = 0; c2 < c; ++c2)
        if (c1 != c2)
          schedule.phases[static_cast<size_t>(c1 * c + c2)].transfers.push_back(
              {static_cast<RankId>(u * c + c1), static_cast<RankId>(u * c + c2),
               *block, 0});
  schedule.canonicalize();
  detail::finalizeReport(problem, schedule, options, report);
  return llvm::success();
}

namespace {

/// Runs a baseline and adapts its error reporting.
llvm::LogicalResult runBaseline(SchedulerAlgorithm a, const Problem &problem,
                                Schedule &schedule,
                                const SchedulerOptions &options,
                                SchedulerReport &report) {
  std::string error;
  llvm::LogicalResult r = llvm::failure();
  if (a == SchedulerAlgorithm::LinearShift)
    r = scheduleLinearShift(problem, schedule, error);
  else if (a == SchedulerAlgorithm::Xor)
    r = scheduleXor(problem, schedule, error);
  else
    r = scheduleGreedy(problem, schedule, error);
  if (failed(r)) {
    report.error = error;
    return llvm::failure();
  }
  schedule.canonicalize();
  detail::finalizeReport(problem, schedule, options, report);
  return llvm::success();
}

} // namespace

llvm::LogicalResult phasec::scheduleAuto(const Problem &problem,
                                         Schedule &schedule,
                                         const SchedulerOptions &options,
                                         SchedulerReport &report) {
  std::string error;
  if (failed(problem.check(error))) {
    report.error = error;
    return llvm::failure();
  }
  switch (options.algorithm) {
  case SchedulerAlgorithm::Product:
    return scheduleProduct(problem, schedule, options, report);
  case SchedulerAlgorithm::Percs:
    return schedulePercs(problem, schedule, options, report);
  case SchedulerAlgorithm::TorusQuotient:
    return scheduleTorusQuotient(problem, schedule, options, report);
  case SchedulerAlgorithm::GreedyPriority:
    return scheduleGreedyPriority(problem, schedule, options, report);
  case SchedulerAlgorithm::Z3Exact:
    return scheduleExact(problem, schedule, options, report);
  case SchedulerAlgorithm::LinearShift:
  case SchedulerAlgorithm::Xor:
  case SchedulerAlgorithm::Greedy:
    return runBaseline(options.algorithm, problem, schedule, options, report);
  case SchedulerAlgorithm::Auto:
    break;
  }

  const Topology &topo = problem.topology();
  if (problem.transfers().empty()) {
    schedule = Schedule();
    schedule.algorithm = "empty";
    detail::finalizeReport(problem, schedule, options, report);
    return llvm::success();
  }
  bool uniformA2A = completeUniformAlltoall(problem).has_value();
  if (uniformA2A && topo.isPercs() && topo.numSupernodes() == 1)
    return schedulePercs(problem, schedule, options, report);

  // Candidates, best kept: the product construction (cheap, optimal on
  // tori with extents <= 8 and one-port machines), the priority greedy
  // where affordable, Z3 exact for small instances.
  std::optional<int64_t> block = problem.transfers().uniformBytes();
  int64_t numTransfers = static_cast<int64_t>(problem.transfers().size());
  constexpr int64_t kGreedyLimit = 4000000;
  Schedule product;
  SchedulerReport pr;
  bool haveProduct = false;
  // The product is only worth building where every dimension has a Latin
  // ring core (k steps) or where nothing better applies: on large cubic tori
  // the quotient construction is far better and building both would double
  // the time and memory (16.7 M transfers on 16x16x16).
  bool quotientApplies =
      uniformA2A && topo.kind() == TopologyKind::Torus && topo.numDims() >= 2 &&
      topo.extent(0) >= 3 &&
      llvm::all_of(topo.dims(), [&](int64_t e) { return e == topo.extent(0); });
  bool latin = true;
  if (uniformA2A && topo.isGrid())
    for (unsigned d = 0; d < topo.numDims() && latin; ++d) {
      DimRing r = dimRing(topo, d);
      SchedulerReport probe;
      auto rs = getRingSchedule(r.k, r.wrap, r.two, options, probe);
      latin = succeeded(rs) && rs->perms.size() == r.k;
      // Solver work done here counts for whatever schedule comes out.
      pr.solverQueries += probe.solverQueries;
      pr.cacheHits += probe.cacheHits;
      pr.cacheMisses += probe.cacheMisses;
      pr.rlimitUsed += probe.rlimitUsed;
    }
  if (uniformA2A && topo.isGrid() && (latin || !quotientApplies)) {
    if (succeeded(scheduleProduct(problem, product, options, pr))) {
      haveProduct = true;
      bool quotientNext = topo.kind() == TopologyKind::Torus;
      if (pr.timeOptimal || (numTransfers > kGreedyLimit && !quotientNext)) {
        if (!pr.timeOptimal)
          pr.notes.push_back(llvm::formatv(
              "{0} transfers: too many for the greedy, product kept ({1:F3} x "
              "the bound)",
              numTransfers, pr.gap));
        schedule = std::move(product);
        report = std::move(pr);
        return llvm::success();
      }
    } else {
      report.notes.push_back("product construction not used: " + pr.error);
    }
  }
  auto mergeCounters = [](SchedulerReport &into, const SchedulerReport &from) {
    into.solverQueries += from.solverQueries;
    into.cacheHits += from.cacheHits;
    into.cacheMisses += from.cacheMisses;
    into.rlimitUsed += from.rlimitUsed;
    into.fellBack |= from.fellBack;
  };
  // Cubic tori: the translation quotient. Keeps the better of it and the
  // product; the generic greedy only where it is affordable.
  if (quotientApplies) {
    Schedule quotient;
    SchedulerReport qr;
    if (succeeded(scheduleTorusQuotient(problem, quotient, options, qr))) {
      if (!haveProduct || qr.time < pr.time * (1 - 1e-12)) {
        if (haveProduct) {
          qr.notes.insert(qr.notes.begin(), pr.notes.begin(), pr.notes.end());
          qr.notes.push_back(llvm::formatv(
              "product construction took {0} phases ({1:F3} x the bound)",
              pr.phases, pr.gap));
          mergeCounters(qr, pr);
        }
        product = std::move(quotient);
        pr = std::move(qr);
        haveProduct = true;
      }
      if (pr.timeOptimal || numTransfers > 300000) {
        schedule = std::move(product);
        report = std::move(pr);
        return llvm::success();
      }
    }
  }
  Schedule greedy;
  SchedulerReport gr;
  if (failed(scheduleGreedyPriority(problem, greedy, options, gr))) {
    report.error = gr.error;
    return llvm::failure();
  }
  // The better of product and greedy (the product on equal time).
  if (haveProduct && pr.time <= gr.time * (1 + 1e-12)) {
    pr.notes.push_back(
        llvm::formatv("greedy-priority took {0} phases ({1:F3} x the bound)",
                      gr.phases, gr.gap));
    greedy = std::move(product);
    gr = std::move(pr);
  } else if (haveProduct) {
    gr.notes.insert(gr.notes.begin(), pr.notes.begin(), pr.notes.end());
    gr.notes.push_back(llvm::formatv(
        "product construction took {0} phases ({1:F3} x the bound)", pr.phases,
        pr.gap));
    mergeCounters(gr, pr);
  }
  gr.notes.insert(gr.notes.begin(), report.notes.begin(), report.notes.end());
  bool small = block && topo.isGrid() &&
               problem.transfers().size() <= options.exactMaxTransfers;
  if (small && !gr.timeOptimal) {
    SchedulerReport er = gr;
    er.proof.clear();
    er.phaseOptimal = false;
    Schedule exact;
    if (succeeded(scheduleExact(problem, exact, options, er, &greedy))) {
      schedule = std::move(exact);
      report = std::move(er);
      return llvm::success();
    }
    gr.notes.push_back("z3 exact model not used: " + er.error);
  }
  schedule = std::move(greedy);
  report = std::move(gr);
  return llvm::success();
}
