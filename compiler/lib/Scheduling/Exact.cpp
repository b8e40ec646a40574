//===- Exact.cpp - Z3 exact phase assignment for small instances ----------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// For small uniform instances on grids: every transfer gets a phase and a
// tie option; no directed link carries two transfers in one phase (with
// uniform blocks, two transfers of one source over one link would double the
// phase's time, so they count as a conflict too). T is raised from the lower
// bound; the first satisfiable T is optimal, proven either by the bound or
// by Z3's unsat answer for T-1.
//
//===----------------------------------------------------------------------===//

#include "AlgorithmsInternal.h"
#include "phasec/Scheduling/Algorithms.h"
#include "phasec/Solver/Z3Solver.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace phasec;

bool phasec::detail::exactApplies(const Problem &problem,
                                  const SchedulerOptions &options,
                                  std::string *whyNot) {
  const Topology &topo = problem.topology();
  const TransferSet &ts = problem.transfers();
  std::string reason;
  if (!topo.isGrid() || !ts.uniformBytes() ||
      topo.minBandwidth() != topo.maxBandwidth())
    reason = "the exact model needs uniform blocks on a torus, mesh or "
             "hypercube with one link bandwidth";
  else if (ts.size() > options.exactMaxTransfers)
    reason = llvm::formatv("the exact model is limited to {0} transfers; this "
                           "problem has {1}",
                           options.exactMaxTransfers, ts.size());
  else
    return true;
  if (whyNot)
    *whyNot = std::move(reason);
  return false;
}

llvm::LogicalResult phasec::scheduleExact(const Problem &problem,
                                          Schedule &schedule,
                                          const SchedulerOptions &options,
                                          SchedulerReport &report,
                                          const Schedule *startFrom) {
  const Topology &topo = problem.topology();
  const TransferSet &ts = problem.transfers();
  if (!detail::exactApplies(problem, options, &report.error))
    return llvm::failure();
  LowerBound bound = problem.bound();
  solver::AssignQuery q;
  q.numResources = static_cast<unsigned>(topo.numLinks());
  // One-port machines: every node's send and receive port is a resource
  // too (one block per phase).
  double inj = problem.costModel().injectionBandwidth();
  bool ports = inj > 0 && inj <= topo.maxBandwidth() * (1 + 1e-12);
  unsigned portBase = q.numResources;
  if (ports)
    q.numResources += 2 * static_cast<unsigned>(topo.numNodes());
  std::vector<Demand> modelled, local;
  llvm::SmallVector<LinkId, 64> route;
  std::vector<std::vector<TieMask>> masks;
  for (const Demand &d : ts) {
    NodeId s = topo.nodeOfRank(d.src), t = topo.nodeOfRank(d.dst);
    if (s == t) {
      local.push_back(d);
      continue;
    }
    solver::AssignItem item;
    item.group = static_cast<int32_t>(modelled.size());
    TieMask tm = topo.tieMask(s, t);
    std::vector<TieMask> ms;
    TieMask sub = 0;
    do {
      ms.push_back(sub);
      sub = (sub - tm) & tm;
    } while (sub != 0 && ms.size() < 16);
    for (TieMask m : ms) {
      topo.route(s, t, m, route);
      item.options.emplace_back(route.begin(), route.end());
      if (ports) {
        item.options.back().push_back(static_cast<int32_t>(portBase + s));
        item.options.back().push_back(
            static_cast<int32_t>(portBase + topo.numNodes() + t));
      }
    }
    masks.push_back(std::move(ms));
    q.items.push_back(std::move(item));
    modelled.push_back(d);
  }
  unsigned lo = static_cast<unsigned>(
      std::max(1.0, std::ceil(bound.directBlocks - 1e-9)));
  unsigned hi = options.exactMaxPhases;
  if (startFrom && !startFrom->phases.empty())
    hi = std::min<unsigned>(hi, startFrom->phases.size() - 1);
  solver::SolverOptions so;
  so.rlimit = options.rlimit;
  so.seed = options.seed;
  for (unsigned T = lo; T <= hi; ++T) {
    q.numPhases = T;
    std::string error;
    ++report.solverQueries;
    auto r = solver::solvePhaseAssignment(q, so, error);
    if (failed(r)) {
      report.error = error;
      return llvm::failure();
    }
    report.rlimitUsed += r->rlimitUsed;
    if (r->status == solver::SolveStatus::Unsat) {
      report.notes.push_back(
          llvm::formatv("z3: no congestion-free schedule with {0} phases "
                        "(unsat)",
                        T));
      continue;
    }
    if (r->status == solver::SolveStatus::Unknown) {
      report.fellBack = true;
      report.notes.push_back(llvm::formatv(
          "z3 budget exhausted at {0} phases (rlimit {1})", T, options.rlimit));
      if (!startFrom) {
        report.error = "z3 budget exhausted and no fallback schedule";
        report.budgetExhausted = true;
        return llvm::failure();
      }
      schedule = *startFrom;
      detail::finalizeReport(problem, schedule, options, report);
      report.notes.push_back(
          llvm::formatv("fell back to {0}: {1} phases, {2:F3} x the bound",
                        schedule.algorithm, report.phases, report.gap));
      return llvm::success();
    }
    schedule = Schedule();
    schedule.algorithm = "z3-exact";
    schedule.phases.resize(T);
    for (size_t i = 0; i < modelled.size(); ++i)
      schedule.phases[r->phase[i]].transfers.push_back(
          {modelled[i].src, modelled[i].dst, modelled[i].bytes,
           masks[i][r->option[i]]});
    for (const Demand &d : local)
      schedule.phases[0].transfers.push_back({d.src, d.dst, d.bytes, 0});
    schedule.canonicalize();
    // The model gives every link (and port) one block per phase, so T is
    // minimal among such schedules: at lo by the bound in blocks, above it
    // by Z3's unsat at T - 1.
    report.phaseOptimal = true;
    report.proof =
        T > lo ? llvm::formatv("z3 proved {0} phases infeasible with one "
                               "block per link per phase (unsat)",
                               T - 1)
                     .str()
               : llvm::formatv("{0} phases of one block per link per phase "
                               "carry the bound ({1})",
                               lo, bound.directReason)
                     .str();
    detail::finalizeReport(problem, schedule, options, report);
    return llvm::success();
  }
  if (startFrom) {
    schedule = *startFrom;
    if (hi + 1 == startFrom->phases.size()) {
      report.phaseOptimal = true;
      report.proof = llvm::formatv("z3 proved {0} phases infeasible with one "
                                   "block per link per phase (unsat)",
                                   hi);
    }
    detail::finalizeReport(problem, schedule, options, report);
    return llvm::success();
  }
  report.error = llvm::formatv("no schedule within {0} phases", hi);
  return llvm::failure();
}
