//===- Registry.cpp - The scheduling algorithms in one list, scheduleAuto -===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// The table of every algorithm (Registry.h) and scheduleAuto, the loop over
// its candidates. The candidates' hooks hold what auto knows about each one:
// the product only where its ring cores are Latin (or nothing better
// applies), the PERCS construction and a time-optimal result end the search,
// and the Z3 model last, to improve on the best schedule so far where that
// is not already optimal.
//
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Registry.h"
#include "AlgorithmsInternal.h"
#include "phasec/Scheduling/Baselines.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

using namespace phasec;

namespace {

bool alwaysApplies(const Problem &, const SchedulerOptions &, std::string *) {
  return true;
}

bool alwaysTry(const Problem &, const SchedulerOptions &,
               const SchedulerReport *, SchedulerReport &) {
  return true;
}

bool alwaysStop(const Problem &, const SchedulerReport &, std::string &) {
  return true;
}

bool xorBaselineApplies(const Problem &problem, const SchedulerOptions &,
                        std::string *whyNot) {
  return xorApplies(problem, whyNot);
}

/// The baselines keep their own signature (the driver's statistics called
/// them directly); this adapts one to `SchedulerEntry::run`.
template <llvm::LogicalResult (*Baseline)(const Problem &, Schedule &,
                                          std::string &)>
llvm::LogicalResult runBaseline(const Problem &problem, Schedule &schedule,
                                const SchedulerOptions &options,
                                SchedulerReport &report) {
  if (failed(Baseline(problem, schedule, report.error)))
    return llvm::failure();
  schedule.canonicalize();
  detail::finalizeReport(problem, schedule, options, report);
  return llvm::success();
}

llvm::LogicalResult runExact(const Problem &problem, Schedule &schedule,
                             const SchedulerOptions &options,
                             SchedulerReport &report) {
  return scheduleExact(problem, schedule, options, report);
}

llvm::LogicalResult refineExact(const Problem &problem, const Schedule &start,
                                Schedule &schedule,
                                const SchedulerOptions &options,
                                SchedulerReport &report) {
  return scheduleExact(problem, schedule, options, report, &start);
}

/// Past this many transfers the greedy costs more than it can gain over a
/// product that is not optimal, unless the quotient comes next (tori).
constexpr int64_t kGreedyLimit = 4000000;
/// Past this many transfers the quotient's result is kept as it is.
constexpr int64_t kQuotientKeptLimit = 300000;

int64_t numTransfers(const Problem &problem) {
  return static_cast<int64_t>(problem.transfers().size());
}

/// The product is only worth building where every dimension has a Latin
/// ring core (k steps) or where nothing better applies: on large cubic tori
/// the quotient construction is far better and building both would double
/// the time and memory (16.7 M transfers on 16x16x16); on a one-port mesh
/// 8x8x8 it takes 6859 phases where the mesh quotient takes 1072.
bool productWorthTrying(const Problem &problem, const SchedulerOptions &options,
                        const SchedulerReport *, SchedulerReport &probe) {
  // The probe comes first: its solver work counts wherever the product runs.
  return detail::hasLatinRingCores(problem, options, probe) ||
         (!detail::torusQuotientApplies(problem, options, nullptr) &&
          !detail::meshQuotientApplies(problem, options, nullptr));
}

bool productEnough(const Problem &problem, const SchedulerReport &best,
                   std::string &why) {
  if (best.directOptimal)
    return true;
  if (numTransfers(problem) <= kGreedyLimit ||
      problem.topology().kind() == TopologyKind::Torus)
    return false;
  why = llvm::formatv("{0} transfers: too many for the greedy, {1} kept "
                      "({2:F3} x the bound)",
                      numTransfers(problem), best.algorithm, best.gap);
  return true;
}

bool quotientEnough(const Problem &problem, const SchedulerReport &best,
                    std::string &) {
  return best.directOptimal || numTransfers(problem) > kQuotientKeptLimit;
}

/// Auto stops at a schedule no direct one beats (direct-optimal); otherwise the
/// candidates after (the greedy on a mesh: one phase fewer on one-port 8x8 and
/// 16x16, where the mesh quotient takes 131 and 1043) may still do better.
bool optimalEnough(const Problem &, const SchedulerReport &best,
                   std::string &) {
  return best.directOptimal;
}

/// The exact model only improves on a schedule that is not direct-optimal.
bool exactWorthTrying(const Problem &, const SchedulerOptions &,
                      const SchedulerReport *best, SchedulerReport &) {
  return best && !best->directOptimal;
}

llvm::LogicalResult runAutoCandidates(const Problem &problem,
                                      Schedule &schedule,
                                      const SchedulerOptions &options,
                                      SchedulerReport &report);

// In SchedulerAlgorithm order, which is also the order auto tries its
// candidates in (the product and PERCS constructions never both apply).
const SchedulerEntry kSchedulers[] = {
    {SchedulerAlgorithm::Auto, "auto", false, alwaysApplies, runAutoCandidates,
     nullptr, nullptr, nullptr},
    {SchedulerAlgorithm::Product, "product", false, detail::productApplies,
     scheduleProduct, productWorthTrying, nullptr, productEnough},
    {SchedulerAlgorithm::Percs, "percs", false, detail::percsApplies,
     schedulePercs, alwaysTry, nullptr, alwaysStop},
    {SchedulerAlgorithm::TorusQuotient, "torus-quotient", false,
     detail::torusQuotientApplies, scheduleTorusQuotient, alwaysTry, nullptr,
     quotientEnough},
    {SchedulerAlgorithm::MeshQuotient, "mesh-quotient", false,
     detail::meshQuotientApplies, scheduleMeshQuotient, alwaysTry, nullptr,
     optimalEnough},
    {SchedulerAlgorithm::GreedyPriority, "greedy-priority", false,
     alwaysApplies, scheduleGreedyPriority, alwaysTry, nullptr, nullptr},
    {SchedulerAlgorithm::Z3Exact, "z3-exact", false, detail::exactApplies,
     runExact, exactWorthTrying, refineExact, nullptr},
    {SchedulerAlgorithm::LinearShift, "linear_shift", true, alwaysApplies,
     runBaseline<scheduleLinearShift>, nullptr, nullptr, nullptr},
    {SchedulerAlgorithm::Xor, "xor", true, xorBaselineApplies,
     runBaseline<scheduleXor>, nullptr, nullptr, nullptr},
    {SchedulerAlgorithm::Greedy, "greedy", true, alwaysApplies,
     runBaseline<scheduleGreedy>, nullptr, nullptr, nullptr},
};

/// Adds the solver work and the fallback flag of `from` to `into`.
void mergeCounters(SchedulerReport &into, const SchedulerReport &from) {
  into.solverQueries += from.solverQueries;
  into.cacheHits += from.cacheHits;
  into.cacheMisses += from.cacheMisses;
  into.rlimitUsed += from.rlimitUsed;
  into.fellBack |= from.fellBack;
}

std::string describeRunnerUp(const SchedulerReport &r) {
  return llvm::formatv("{0} took {1} phases ({2:F3} x the bound)", r.algorithm,
                       r.phases, r.gap);
}

/// Whether `a` beats `b` under the cost model: the machine time first (it
/// sees set-ups, latency and barriers), then on a tie without barriers the
/// fewer messages (all are posted at once, so a pair's pieces in different
/// phases buy nothing and each costs a message envelope: a 4x4x4 alltoallv
/// of 8-byte blocks split into 8064 pieces simulated 1.6x slower than
/// MPI_Alltoallv's 3226 messages), then the bandwidth time.
bool isFaster(const SchedulerReport &a, const SchedulerReport &b) {
  if (a.machineTime < b.machineTime * (1 - 1e-12))
    return true;
  if (b.machineTime < a.machineTime * (1 - 1e-12))
    return false;
  if (a.sync == SyncKind::None && b.sync == SyncKind::None &&
      a.messages != b.messages)
    return a.messages < b.messages;
  return a.time < b.time * (1 - 1e-12);
}

/// `schedule` with every rank pair in one transfer, on the route of the
/// pair's first, packed first-fit in the order the pairs first appear;
/// false if no pair is split.
bool wholePairs(const Problem &problem, const Schedule &schedule,
                Schedule &out) {
  const Topology &topo = problem.topology();
  llvm::DenseMap<uint64_t, size_t> index;
  std::vector<Transfer> pairs;
  bool split = false;
  PhaseReader read(topo, schedule);
  for (size_t j = 0; j < read.size(); ++j)
    for (const Transfer &t : read[j].transfers) {
      auto [it, inserted] =
          index.try_emplace(rankPairKey(t.src, t.dst), pairs.size());
      if (inserted) {
        pairs.push_back(t);
        continue;
      }
      split = true;
      pairs[it->second].bytes += t.bytes;
    }
  if (!split)
    return false;
  out = Schedule();
  packFirstFit(topo, pairs, out);
  out.canonicalize();
  out.algorithm = "whole-pairs";
  return true;
}

/// Auto: the candidates in registry order. Each that applies and is worth
/// trying runs under the options' budget; a strictly faster schedule
/// replaces the best (on equal time the earlier candidate stays), a
/// refinement replaces it always, and a candidate's stop hook ends the
/// search.
llvm::LogicalResult runAutoCandidates(const Problem &problem,
                                      Schedule &schedule,
                                      const SchedulerOptions &options,
                                      SchedulerReport &report) {
  if (problem.transfers().empty()) {
    schedule = Schedule();
    schedule.algorithm = "empty";
    detail::finalizeReport(problem, schedule, options, report);
    return llvm::success();
  }
  Schedule best;
  SchedulerReport bestReport;
  bool found = false;
  // Candidates that failed, noted first in the final report.
  std::vector<std::string> unused;
  // Every candidate's ignored cache entries (bestReport is replaced).
  SchedulerReport ignored;
  std::string lastError;
  for (const SchedulerEntry &entry : kSchedulers) {
    if (!entry.autoTry || !entry.applies(problem, options, nullptr))
      continue;
    SchedulerReport candidate;
    bool tried = entry.autoTry(problem, options, found ? &bestReport : nullptr,
                               candidate);
    ignored.addCacheIgnored(candidate.cacheIgnored);
    if (!tried)
      continue;
    detail::progress(problem, options, "auto: trying " + entry.name);
    Schedule result;
    if (entry.refine) {
      // A refinement starts from the best schedule and its report; its
      // proof is its own.
      candidate = bestReport;
      candidate.proof.clear();
      candidate.phaseOptimal = false;
      // Refinements read every transfer of their start.
      expandRules(problem.topology(), best);
      llvm::LogicalResult refined =
          entry.refine(problem, best, result, options, candidate);
      ignored.addCacheIgnored(candidate.cacheIgnored);
      if (failed(refined)) {
        bestReport.notes.push_back(entry.name.str() +
                                   " not used: " + candidate.error);
        continue;
      }
      best = std::move(result);
      bestReport = std::move(candidate);
    } else {
      llvm::LogicalResult ran = entry.run(problem, result, options, candidate);
      ignored.addCacheIgnored(candidate.cacheIgnored);
      if (failed(ran)) {
        unused.push_back(entry.name.str() + " not used: " + candidate.error);
        lastError = candidate.error;
        continue;
      }
      if (!found) {
        found = true;
        best = std::move(result);
        bestReport = std::move(candidate);
      } else if (isFaster(candidate, bestReport)) {
        candidate.notes.insert(candidate.notes.begin(),
                               bestReport.notes.begin(),
                               bestReport.notes.end());
        candidate.notes.push_back(describeRunnerUp(bestReport));
        mergeCounters(candidate, bestReport);
        best = std::move(result);
        bestReport = std::move(candidate);
      } else {
        bestReport.notes.push_back(describeRunnerUp(candidate));
      }
    }
    std::string why;
    if (entry.autoStop && entry.autoStop(problem, bestReport, why)) {
      if (!why.empty())
        bestReport.notes.push_back(why);
      break;
    }
  }
  if (!found) {
    report.error = lastError;
    return llvm::failure();
  }
  // The baselines the reports print beside auto's result are candidates
  // too: auto never returns a schedule its own report shows slower than
  // one of them (under the machine model a baseline's fewer or cheaper
  // phases can win).
  // Past kGreedyLimit transfers the baselines are not built: each lists
  // every transfer (64 M on a 20x20x20 torus, 1.5 GB and a minute apiece)
  // where the torus quotient holds its phases by rule, and none comes near
  // the constructions (one-port 8x8x8, docs/performance.md: xor 2.64 x and
  // linear_shift 6.17 x the bound, the product 1.00 x).
  if (numTransfers(problem) > kGreedyLimit)
    bestReport.notes.push_back(
        llvm::formatv("baselines not compared: {0} transfers (more than {1})",
                      numTransfers(problem), kGreedyLimit));
  for (const SchedulerEntry &entry : kSchedulers) {
    if (!entry.baseline || !entry.applies(problem, options, nullptr) ||
        numTransfers(problem) > kGreedyLimit)
      continue;
    Schedule result;
    SchedulerReport candidate;
    llvm::LogicalResult ran = entry.run(problem, result, options, candidate);
    ignored.addCacheIgnored(candidate.cacheIgnored);
    if (failed(ran) || !isFaster(candidate, bestReport))
      continue;
    candidate.notes.insert(candidate.notes.begin(), bestReport.notes.begin(),
                           bestReport.notes.end());
    candidate.notes.push_back("baseline " + entry.name.str() +
                              " is faster on this machine than " +
                              describeRunnerUp(bestReport));
    mergeCounters(candidate, bestReport);
    best = std::move(result);
    bestReport = std::move(candidate);
  }
  // Posted at once, a pair's pieces in different phases buy nothing (the
  // network routes the pair one way) and each costs a message: measured in
  // SimGrid, greedy-split's 8x8 alltoallv of 256-byte blocks (3443
  // messages, sync none) took 288 us where MPI_Alltoallv's 3226 messages
  // on the same routes took 271. So the best schedule with its pairs
  // whole is a candidate too.
  Schedule whole;
  if (bestReport.sync == SyncKind::None && wholePairs(problem, best, whole)) {
    SchedulerReport candidate;
    detail::finalizeReport(problem, whole, options, candidate);
    if (isFaster(candidate, bestReport)) {
      candidate.notes.insert(candidate.notes.begin(), bestReport.notes.begin(),
                             bestReport.notes.end());
      candidate.notes.push_back("whole-pairs: " + bestReport.algorithm +
                                "'s routes with every rank pair in one "
                                "message, faster without barriers than " +
                                describeRunnerUp(bestReport));
      mergeCounters(candidate, bestReport);
      best = std::move(whole);
      bestReport = std::move(candidate);
    }
  }
  bestReport.notes.insert(bestReport.notes.begin(), unused.begin(),
                          unused.end());
  bestReport.cacheIgnored = std::move(ignored.cacheIgnored);
  schedule = std::move(best);
  report = std::move(bestReport);
  return llvm::success();
}

} // namespace

llvm::ArrayRef<SchedulerEntry> phasec::getSchedulers() { return kSchedulers; }

const SchedulerEntry &phasec::getScheduler(SchedulerAlgorithm algorithm) {
  for (const SchedulerEntry &entry : kSchedulers)
    if (entry.algorithm == algorithm)
      return entry;
  llvm_unreachable("every SchedulerAlgorithm has a registry entry");
}

llvm::LogicalResult phasec::runScheduler(const SchedulerEntry &entry,
                                         const Problem &problem,
                                         Schedule &schedule,
                                         const SchedulerOptions &options,
                                         SchedulerReport &report) {
  if (failed(problem.check(report.error)) ||
      !entry.applies(problem, options, &report.error))
    return llvm::failure();
  if (failed(entry.run(problem, schedule, options, report)))
    return llvm::failure();
  if (!options.phaseRules)
    expandRules(problem.topology(), schedule);
  return llvm::success();
}

bool phasec::isBaseline(llvm::StringRef name) {
  std::optional<SchedulerAlgorithm> algorithm =
      symbolizeSchedulerAlgorithm(name);
  return algorithm && getScheduler(*algorithm).baseline;
}

llvm::LogicalResult phasec::runBaseline(llvm::StringRef name,
                                        const Problem &problem,
                                        Schedule &schedule,
                                        std::string &error) {
  if (!isBaseline(name)) {
    error =
        ("unknown baseline '" + name + "' (expected linear_shift, xor, greedy)")
            .str();
    return llvm::failure();
  }
  SchedulerReport report;
  if (succeeded(runScheduler(getScheduler(*symbolizeSchedulerAlgorithm(name)),
                             problem, schedule, SchedulerOptions(), report)))
    return llvm::success();
  error = report.error;
  return llvm::failure();
}

llvm::LogicalResult phasec::scheduleAuto(const Problem &problem,
                                         Schedule &schedule,
                                         const SchedulerOptions &options,
                                         SchedulerReport &report) {
  return runScheduler(getScheduler(options.algorithm), problem, schedule,
                      options, report);
}

std::optional<SchedulerAlgorithm>
phasec::getDirectScheduler(Algorithm directive, int64_t kLevels,
                           const Problem &problem) {
  switch (directive) {
  case Algorithm::Auto:
  case Algorithm::Direct:
  case Algorithm::Schedule:
  case Algorithm::GatherEvaluate:
    return SchedulerAlgorithm::Auto;
  case Algorithm::LinearShift:
    return SchedulerAlgorithm::LinearShift;
  case Algorithm::Xor:
    return SchedulerAlgorithm::Xor;
  case Algorithm::Pairwise:
    return getScheduler(SchedulerAlgorithm::Xor)
                   .applies(problem, SchedulerOptions(), nullptr)
               ? SchedulerAlgorithm::Xor
               : SchedulerAlgorithm::LinearShift;
  case Algorithm::KLevel:
    // More levels relay (needsRelaying), which is not direct traffic.
    if (kLevels == 1)
      return SchedulerAlgorithm::Auto;
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

std::optional<GatherEvaluateCandidate>
phasec::chooseGatherEvaluate(const Topology &topo, const Collective &relayed,
                             Aggregate aggregate, Algorithm directive,
                             const CostModel &model, double relayTime,
                             const SchedulerOptions &options) {
  // Under `auto` only: a named relay algorithm is the user's choice.
  if (!evaluatesEveryValue(aggregate) || directive != Algorithm::Auto)
    return std::nullopt;
  Collective gathered = relayed;
  gathered.kind = CollectiveKind::Allgather;
  gathered.root = -1;
  std::string error;
  llvm::FailureOr<TransferSet> set = gathered.lower(error);
  if (failed(set))
    return std::nullopt;
  GatherEvaluateCandidate candidate{Problem(topo, std::move(*set), model),
                                    Schedule(), SchedulerReport()};
  // Nothing to gather (a group of one) costs what the relay does: a tie.
  if (failed(candidate.problem.check(error)) ||
      candidate.problem.transfers().empty())
    return std::nullopt;
  if (failed(runScheduler(getScheduler(options.algorithm), candidate.problem,
                          candidate.schedule, options, candidate.report)) ||
      candidate.report.fellBack)
    return std::nullopt;
  if (!(candidate.problem.cost(candidate.schedule).machine.total() <
        relayTime * (1 - 1e-9)))
    return std::nullopt;
  return candidate;
}

std::optional<RelayOverDirectCandidate>
phasec::chooseRelayOverDirect(const Topology &topo, const Collective &direct,
                              Algorithm directive, const CostModel &model,
                              double directTime) {
  // Under `auto` only; the v-collectives always relay (their own chunks).
  if (directive != Algorithm::Auto || needsRelaying(direct.kind) ||
      getRelayAlgorithms(direct.kind).empty() || !direct.memberBytes.empty() ||
      direct.group.size() < 2)
    return std::nullopt;
  int64_t n = static_cast<int64_t>(direct.group.size());
  int64_t chunks = direct.kind == CollectiveKind::Alltoall ? n * n : n;
  if (chunks > kRelayOverDirectMaxChunks)
    return std::nullopt;
  std::string error;
  llvm::FailureOr<RelaySchedule> relay =
      scheduleRelaying(topo, model, direct, RelayChoice(), error);
  if (failed(relay))
    return std::nullopt;
  Problem problem(topo, relay->chunks, model);
  ScheduleCost cost = problem.cost(relay->schedule);
  if (!(cost.machine.total() < directTime * (1 - kRelayOverDirectMargin)))
    return std::nullopt;
  return RelayOverDirectCandidate{std::move(*relay), std::move(cost)};
}

bool phasec::preferForwardingNothing(const Topology &topo,
                                     const CostModel &model,
                                     const Collective &collective,
                                     RelaySchedule &relay) {
  if (forwardsNothing(relay.schedule) ||
      !llvm::is_contained(getRelayAlgorithms(collective.kind),
                          Algorithm::Direct))
    return false;
  std::string ignored;
  llvm::FailureOr<RelaySchedule> direct = scheduleRelaying(
      topo, model, collective, RelayChoice{Algorithm::Direct}, ignored);
  if (llvm::failed(direct) || !forwardsNothing(direct->schedule))
    return false;
  double forwarding =
      model.machineTime(relay.schedule, collective.group, /*relaying=*/true)
          .total();
  double once =
      model.machineTime(direct->schedule, collective.group, /*relaying=*/true)
          .total();
  if (forwarding < once * (1 - kRelayOverDirectMargin))
    return false;
  relay = std::move(*direct);
  return true;
}
