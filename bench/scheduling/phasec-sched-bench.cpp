//===- phasec-sched-bench.cpp - Scheduler benchmark driver ----------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// Schedules one collective on one machine with phasec's algorithms and the
// baselines, verifies every schedule with Problem::verify, and prints one row
// per algorithm (markdown or JSON lines) with phases, the lower bound, time
// over bound and wall-clock seconds. bench/scheduling/run.sh drives it over
// the targets table of issue 3.
//
//   phasec-sched-bench --topology torus:8x4x8x2 --collective alltoall
//       [--bytes 32768] [--algorithms auto,linear_shift,xor,greedy]
//       [--rlimit N] [--cache DIR] [--one-port] [--format md|json]
//       [--json-out FILE] [--label NAME]
//
// Collectives: alltoall, permute (random rank permutation, --seed),
// alltoallv (skewed sizes, --seed), gather, scatter, one_to_all,
// all_to_one (root 0).
//
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/BuildProblem.h"
#include "phasec/Scheduling/Bounds.h"
#include "phasec/Scheduling/Collective.h"
#include "phasec/Scheduling/Registry.h"
#include "phasec/Scheduling/ScheduleJSON.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace phasec;
namespace cl = llvm::cl;

static cl::OptionCategory benchCategory("phasec-sched-bench options");

static cl::opt<std::string> topoSpec("topology", cl::desc("machine spec"),
                                     cl::Required, cl::cat(benchCategory));
static cl::opt<std::string>
    collective("collective",
               cl::desc("the operation (alltoall, transpose, ...)"),
               cl::init("alltoall"), cl::cat(benchCategory));
static cl::opt<int64_t> bytes("bytes", cl::desc("bytes per block"),
                              cl::init(32768), cl::cat(benchCategory));
static cl::opt<uint64_t> seed("seed", cl::desc("the schedulers' seed"),
                              cl::init(1), cl::cat(benchCategory));
static cl::opt<std::string>
    algorithms("algorithms",
               cl::desc("comma-separated algorithms (default: auto and the "
                        "registry's baselines)"),
               cl::init(""), cl::cat(benchCategory));
static cl::opt<uint64_t> rlimit("rlimit",
                                cl::desc("Z3 resource limit per query"),
                                cl::init(20000000), cl::cat(benchCategory));
static cl::opt<std::string> cacheDir("cache",
                                     cl::desc("ring-core cache directory"),
                                     cl::init(""), cl::cat(benchCategory));
static cl::opt<bool>
    onePort("one-port", cl::desc("the one-port cost model (injection = link)"),
            cl::init(false), cl::cat(benchCategory));
static cl::opt<std::string> format("format",
                                   cl::desc("md (a table row) or json"),
                                   cl::init("md"), cl::cat(benchCategory));
static cl::opt<std::string>
    jsonOut("json-out",
            cl::desc("write the first algorithm's schedule JSON here"),
            cl::init(""), cl::cat(benchCategory));
static cl::opt<std::string>
    label("label",
          cl::desc("the row's name (default: topology and collective)"),
          cl::init(""), cl::cat(benchCategory));
static cl::opt<bool> profile("profile",
                             cl::desc("print busy links per phase (deciles)"),
                             cl::init(false), cl::cat(benchCategory));
static cl::opt<bool> notes("notes", cl::desc("print the report's notes"),
                           cl::init(false), cl::cat(benchCategory));
static cl::opt<bool> noChains(
    "no-quotient-chains",
    cl::desc("torus quotient without its chain base phases (to measure them)"),
    cl::init(false), cl::cat(benchCategory));

static double seconds(std::chrono::steady_clock::time_point a) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - a)
      .count();
}

int main(int argc, char **argv) {
  // Only the bench's own options in --help, not every LLVM library's.
  cl::HideUnrelatedOptions(benchCategory);
  cl::ParseCommandLineOptions(argc, argv, "phasec scheduler benchmark\n");
  std::string error;
  llvm::Expected<std::unique_ptr<Topology>> topo = createTopology(topoSpec);
  if (!topo) {
    llvm::errs() << "error: " << llvm::toString(topo.takeError()) << "\n";
    return 2;
  }
  auto start = std::chrono::steady_clock::now();
  std::optional<CollectiveKind> kind = symbolizeCollectiveKind(collective);
  if (!kind) {
    llvm::errs() << "error: unknown collective '" << collective << "'\n";
    return 2;
  }
  Collective req;
  req.kind = *kind;
  req.blockBytes = bytes;
  req.root = 0;
  int64_t R = (*topo)->numRanks();
  for (int64_t r = 0; r < R; ++r)
    req.group.push_back(static_cast<RankId>(r));
  if (req.kind == CollectiveKind::Permute) {
    req.permutation.kind = PermuteKind::Random;
    req.permutation.seed = seed;
  } else if (req.kind == CollectiveKind::Alltoallv) {
    // Skewed sizes: 1, 2, 4, 8 or 16 blocks, from splitmix64.
    uint64_t state = seed;
    req.sizes.resize(static_cast<size_t>(R * R));
    for (auto &s : req.sizes)
      s = bytes * (int64_t(1) << (splitmix64(state) % 5));
  }
  llvm::Expected<std::unique_ptr<Problem>> lowered =
      lowerCollective(**topo, req, onePort);
  if (!lowered) {
    llvm::errs() << "error: " << llvm::toString(lowered.takeError()) << "\n";
    return 2;
  }
  const Problem &problem = **lowered;
  double buildSeconds = seconds(start);

  llvm::SmallVector<llvm::StringRef, 8> algs;
  if (algorithms.empty()) {
    algs.push_back(getScheduler(SchedulerAlgorithm::Auto).name);
    for (const SchedulerEntry &entry : getSchedulers())
      if (entry.baseline)
        algs.push_back(entry.name);
  } else {
    llvm::StringRef(algorithms).split(algs, ',', -1, false);
  }
  std::string name = label.empty() ? (topoSpec + " " + collective) : label;
  int rc = 0;
  for (llvm::StringRef a : algs) {
    auto alg = symbolizeSchedulerAlgorithm(a);
    if (!alg) {
      llvm::errs() << "error: unknown algorithm '" << a << "'\n";
      return 2;
    }
    SchedulerOptions options;
    options.algorithm = *alg;
    options.rlimit = rlimit;
    options.cacheDir = cacheDir;
    options.quotientChains = !noChains;
    // verify, the cost model and the JSON writer read phases held by rule.
    options.phaseRules = true;
    SchedulerReport report;
    Schedule schedule;
    auto t0 = std::chrono::steady_clock::now();
    llvm::LogicalResult r =
        runScheduler(getScheduler(*alg), problem, schedule, options, report);
    double schedSeconds = seconds(t0);
    if (failed(r)) {
      if (format == "json")
        llvm::outs() << llvm::formatv("{{\"case\": \"{0}\", \"algorithm\": "
                                      "\"{1}\", \"error\": \"{2}\"}\n",
                                      name, a, report.error);
      else
        llvm::outs() << "| " << name << " | " << a << " | n/a (" << report.error
                     << ") | | | | | | |\n";
      continue;
    }
    auto t1 = std::chrono::steady_clock::now();
    llvm::SmallVector<ScheduleViolation, 4> violations;
    bool ok = succeeded(problem.verify(schedule, violations, 4));
    double verifySeconds = seconds(t1);
    if (!ok) {
      rc = 1;
      for (auto &v : violations)
        llvm::errs() << "violation: " << v.message << "\n";
    }
    double boundBlocks = schedule.bound.blocks;
    if (format == "json") {
      llvm::outs() << llvm::formatv(
          "{{\"case\": \"{0}\", \"algorithm\": \"{1}\", \"produced_by\": "
          "\"{2}\", \"phases\": {3}, \"bound_blocks\": {4}, \"time\": {5}, "
          "\"bound_time\": {6}, \"time_over_bound\": {7:F4}, \"efficiency\": "
          "{8:F4}, \"verified\": {9}, \"time_optimal\": {10}, \"phase_optimal\": "
          "{18}, \"fell_back\": {11}, "
          "\"build_s\": {12:F3}, \"schedule_s\": {13:F3}, \"verify_s\": "
          "{14:F3}, \"transfers\": {15}, \"z3_queries\": {16}, "
          "\"cache_hits\": {17}}\n",
          name, a, report.algorithm, report.phases, boundBlocks, report.time,
          report.boundTime, report.gap, report.gap > 0 ? 1 / report.gap : 0,
          ok ? "true" : "false", report.timeOptimal ? "true" : "false",
          report.fellBack ? "true" : "false", buildSeconds, schedSeconds,
          verifySeconds, problem.transfers().size(), report.solverQueries,
          report.cacheHits, report.phaseOptimal ? "true" : "false");
    } else {
      llvm::outs() << llvm::formatv(
          "| {0} | {1} | {2} | {3} | {4:F4} | {5:F4} | {6} | {7:F2} | {8}|\n",
          name,
          a == report.algorithm ? a.str() : a.str() + "→" + report.algorithm,
          report.phases, boundBlocks, report.gap,
          report.gap > 0 ? 1 / report.gap : 0, ok ? "yes" : "**NO**",
          schedSeconds + verifySeconds, (std::string(report.timeOptimal ? "time-optimal " : "") +
               (report.phaseOptimal ? "phase-optimal " : "")));
    }
    if (profile) {
      const Topology &tp = problem.topology();
      llvm::SmallVector<LinkId, 64> route;
      size_t n = schedule.phases.size();
      for (size_t dec = 0; dec < 10 && n; ++dec) {
        size_t lo = dec * n / 10, hi = (dec + 1) * n / 10;
        size_t busy = 0;
        for (size_t p = lo; p < hi; ++p)
          for (const Transfer &t : schedule.phases[p].transfers) {
            tp.routeRanks(
                t.src, t.dst,
                t.ties & tp.tieMask(tp.nodeOfRank(t.src), tp.nodeOfRank(t.dst)),
                route);
            busy += route.size();
          }
        llvm::errs() << llvm::formatv(
            "  decile {0}: {1:F1}% of links busy\n", dec,
            hi > lo ? 100.0 * busy / ((hi - lo) * tp.numLinks()) : 0.0);
      }
    }
    if (notes)
      for (const std::string &n : report.notes)
        llvm::errs() << "  note: " << n << "\n";
    if (!jsonOut.empty() && a == algs.front()) {
      std::error_code ec;
      llvm::raw_fd_ostream os(jsonOut, ec);
      if (ec) {
        llvm::errs() << "error: " << jsonOut << ": " << ec.message() << "\n";
        return 2;
      }
      writeScheduleJSON(os, problem, schedule, {"bench", collective});
    }
  }
  return rc;
}
