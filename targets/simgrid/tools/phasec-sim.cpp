//===- phasec-sim.cpp - Simulate a phasec schedule with SimGrid -----------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The SimGrid back end without the front end: simulates a schedule given as
/// a phasec-schedule/1 JSON file (what `phasec --emit=schedule-json` writes),
/// or an all-to-all on a machine given on the command line with one of the
/// baseline schedules. `phasec FILE.sched --target=sim` does the same from a
/// .sched file through the same library (Runner.h).
///
///   phasec-sim SCHED.json [options]
///   phasec-sim --topology=torus:4x4 --alltoall=BYTES --schedule=greedy
///
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Algorithms.h"
#include "phasec/Scheduling/Baselines.h"
#include "phasec/Scheduling/Bounds.h"
#include "phasec/Scheduling/Collectives.h"
#include "phasec/Target/SimGrid/Runner.h"
#include "phasec/Target/SimGrid/ScheduleInput.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <numeric>

using namespace phasec;
using namespace phasec::simgrid;
namespace cl = llvm::cl;

static cl::OptionCategory category("phasec-sim options");
static cl::opt<std::string> input(cl::Positional, cl::desc("[SCHED.json]"),
                                  cl::init(""), cl::cat(category));
static cl::opt<std::string> outDir("o", cl::desc("Output directory"),
                                   cl::value_desc("DIR"), cl::init(""),
                                   cl::cat(category));
static cl::opt<std::string>
    operationName("operation",
                  cl::desc("Which operation of a multi-operation file"),
                  cl::init(""), cl::cat(category));
static cl::opt<std::string>
    topologySpec("topology",
                 cl::desc("Machine, e.g. torus:4x4 or "
                          "percs:supernodes=1,drawers=2,nodes=4;ranks=2 "
                          "(instead of a JSON file)"),
                 cl::init(""), cl::cat(category));
static cl::opt<int64_t> alltoallBytes("alltoall",
                                      cl::desc("Block bytes of an all-to-all "
                                               "over every rank (with "
                                               "--topology)"),
                                      cl::init(0), cl::cat(category));
static cl::opt<std::string>
    scheduleName("schedule",
                 cl::desc("With --topology: phasec's scheduler (auto, "
                          "product, percs, greedy-priority, z3-exact) or a "
                          "baseline (linear_shift, xor, greedy)"),
                 cl::init("auto"), cl::cat(category));
static cl::opt<bool> emitOnly("emit-only",
                              cl::desc("Write the directory, do not run"),
                              cl::init(false), cl::cat(category));
static cl::opt<bool>
    compare("compare",
            cl::desc("Also simulate the baselines and SimGrid's built-in "
                     "alltoall algorithms (on this platform and on the "
                     "stock TORUS)"),
            cl::init(false), cl::cat(category));
static cl::list<std::string>
    builtins("builtins", cl::desc("smpi/alltoall algorithms to compare"),
             cl::CommaSeparated, cl::cat(category));
static cl::list<std::string>
    stockBuiltins("stock", cl::desc("smpi/alltoall algorithms on the stock "
                                    "TORUS platform"),
                  cl::CommaSeparated, cl::cat(category));
static cl::list<std::string>
    baselines("baselines",
              cl::desc("Baseline schedules: linear_shift,xor,greedy,"
                       "percs-seed (seed 002's PERCS algorithm)"),
              cl::CommaSeparated, cl::cat(category));
static cl::opt<std::string> reportDir("report",
                                      cl::desc("Write CSVs, pictures and "
                                               "index.html here"),
                                      cl::init(""), cl::cat(category));
static cl::opt<bool> noRender("no-render",
                              cl::desc("With --report: CSVs only"),
                              cl::init(false), cl::cat(category));
static cl::opt<unsigned> timeout("timeout",
                                 cl::desc("Wall-clock limit per variant (s)"),
                                 cl::init(900), cl::cat(category));
static cl::opt<double> latency("latency",
                               cl::desc("Seconds per link (default: the "
                                        "topology's)"),
                               cl::init(-1), cl::cat(category));
static cl::opt<double>
    checkModel("check-model",
               cl::desc("Fail unless phasec's simulated time is within this "
                        "many percent of the analytic phase model"),
               cl::init(-1), cl::cat(category));

static int fail(const llvm::Twine &msg) {
  llvm::errs() << "phasec-sim: error: " << msg << "\n";
  return 1;
}

/// The default comparison set: every built-in that terminates in reasonable
/// time (basic_linear is capped by the runner).
static const char *const kDefaultBuiltins[] = {
    "pair",  "ring",  "bruck", "basic_linear", "2dmesh", "3dmesh", "rdb",
    "ompi",  "mpich", "impi",  "mvapich2"};

/// Seed 002's all-to-all for one PERCS supernode (Totoni and Kale): n nodes
/// of c cores; in phase i (0 <= i < n) core j of node m sends its blocks for
/// all c cores of node (m + j + i) mod n. Phases are barrier-separated, like
/// phasec's. Only for a complete uniform all-to-all.
static llvm::LogicalResult schedulePercsSeed(const Problem &problem,
                                             Schedule &out,
                                             std::string &error) {
  const Topology &topo = problem.topology();
  if (!topo.isPercs() || topo.numSupernodes() != 1) {
    error = "percs-seed needs a PERCS machine of one supernode";
    return llvm::failure();
  }
  int64_t n = topo.numNodes(), c = topo.ranksPerNode();
  out = Schedule();
  out.algorithm = "percs-seed";
  for (int64_t i = 0; i < n; ++i) {
    Phase phase;
    for (int64_t m = 0; m < n; ++m)
      for (int64_t j = 0; j < c; ++j) {
        RankId src = static_cast<RankId>(m * c + j);
        int64_t node = (m + j + i) % n;
        for (int64_t k = 0; k < c; ++k) {
          RankId dst = static_cast<RankId>(node * c + k);
          int64_t bytes = problem.transfers().lookup(src, dst);
          if (src != dst && bytes > 0)
            phase.transfers.push_back({src, dst, bytes, 0});
        }
      }
    out.phases.push_back(std::move(phase));
  }
  out.bound = computeLowerBound(problem);
  return llvm::success();
}

static llvm::LogicalResult makeBaseline(llvm::StringRef name, const Problem &problem,
                                        Schedule &out, std::string &error) {
  if (name == "shift" || name == "linear_shift")
    return scheduleLinearShift(problem, out, error);
  if (name == "xor")
    return scheduleXor(problem, out, error);
  if (name == "greedy")
    return scheduleGreedy(problem, out, error);
  if (name == "percs-seed")
    return schedulePercsSeed(problem, out, error);
  error = "unknown baseline '" + name.str() +
          "' (expected linear_shift, xor, greedy, percs-seed)";
  return llvm::failure();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "phasec-sim: simulate a phasec schedule with "
                              "SimGrid SMPI\n");

  std::string error;
  LoadedOperation op;
  if (!input.empty()) {
    auto buf = llvm::MemoryBuffer::getFileOrSTDIN(input, /*IsText=*/true);
    if (!buf)
      return fail("cannot read " + input + ": " + buf.getError().message());
    std::vector<LoadedOperation> ops;
    if (failed(readScheduleJSON((*buf)->getBuffer(), ops, error)))
      return fail(input + ": " + error);
    auto it = llvm::find_if(ops, [](const LoadedOperation &o) {
      return operationName.empty() || o.operation == operationName;
    });
    if (it == ops.end())
      return fail("no operation named '" + operationName + "' in " + input);
    op = std::move(*it);
  } else if (!topologySpec.empty()) {
    auto desc = TopologyDesc::parse(topologySpec, error);
    if (failed(desc))
      return fail("--topology: " + error);
    op.desc = *desc;
    op.operation = "alltoall";
    op.kind = "alltoall";
    if (alltoallBytes <= 0)
      return fail("--topology needs --alltoall=BYTES (> 0)");
  } else {
    return fail("give a schedule JSON file or --topology");
  }

  auto topo = Topology::create(op.desc, error);
  if (failed(topo))
    return fail("invalid machine " + op.desc.str() + ": " + error);
  if (input.empty()) {
    std::vector<RankId> group(static_cast<size_t>(topo->numRanks()));
    std::iota(group.begin(), group.end(), 0);
    auto set = buildAlltoall(group, alltoallBytes, error);
    if (failed(set))
      return fail("--alltoall: " + error);
    op.transfers = std::move(*set);
  }
  Problem problem(*topo, op.transfers);
  if (input.empty()) {
    std::optional<SchedulerAlgorithm> alg =
        parseSchedulerAlgorithm(scheduleName);
    if (!alg)
      return fail("--schedule: unknown algorithm '" + scheduleName + "'");
    SchedulerOptions options;
    options.algorithm = *alg;
    SchedulerReport report;
    if (failed(scheduleAuto(problem, op.schedule, options, report)))
      return fail("--schedule=" + scheduleName + ": " + report.error);
  }

  llvm::SmallVector<ScheduleViolation, 4> violations;
  if (failed(problem.verify(op.schedule, violations, 4))) {
    llvm::errs() << "phasec-sim: warning: the schedule does not verify ("
                 << violations.front().message
                 << "); simulating it anyway\n";
  }
  LowerBound bound = computeLowerBound(problem);

  SimulationRequest req;
  req.topology = &*topo;
  req.transfers = &op.transfers;
  req.operation = op.operation;
  req.schedule = {"phasec", &op.schedule};
  req.boundTime = bound.time;
  req.boundReason = bound.reason;
  req.workDir = outDir.empty() ? std::string("simgrid-") + op.operation
                               : std::string(outDir);
  req.reportDir = reportDir;
  req.platform.linkLatency = latency;
  req.timeoutSeconds = timeout;

  std::vector<std::string> baselineNames(baselines.begin(), baselines.end());
  std::vector<std::string> builtinNames(builtins.begin(), builtins.end());
  std::vector<std::string> stockNames(stockBuiltins.begin(),
                                      stockBuiltins.end());
  if (compare) {
    if (baselineNames.empty())
      baselineNames = {"shift", "xor", "greedy"};
    if (builtinNames.empty())
      builtinNames.assign(std::begin(kDefaultBuiltins),
                          std::end(kDefaultBuiltins));
    if (stockNames.empty())
      stockNames = builtinNames;
  }
  std::vector<Schedule> baselineSchedules(baselineNames.size());
  for (size_t i = 0; i < baselineNames.size(); ++i) {
    std::string berr;
    if (failed(makeBaseline(baselineNames[i], problem, baselineSchedules[i],
                            berr))) {
      llvm::errs() << "phasec-sim: note: baseline " << baselineNames[i]
                   << " skipped: " << berr << "\n";
      continue;
    }
    req.baselines.push_back({baselineNames[i], &baselineSchedules[i]});
  }
  req.builtins = builtinNames;
  req.stockBuiltins = stockNames;

  if (emitOnly) {
    std::vector<NamedSchedule> all{req.schedule};
    all.insert(all.end(), req.baselines.begin(), req.baselines.end());
    PlatformStats stats;
    if (failed(emitSimGrid(*topo, op.transfers, all, req.platform,
                           req.workDir, stats, error)))
      return fail(error);
    llvm::outs() << "wrote " << req.workDir << ": " << stats.hosts
                 << " hosts, " << stats.links << " links, " << stats.routes
                 << " routes\n";
    return 0;
  }

  SimulationResult result;
  if (failed(runSimulation(req, result, llvm::errs())))
    return 1;
  printSimulationTable(llvm::outs(), result);
  if (!reportDir.empty() &&
      failed(writeReport(req, result,
                         (req.workDir + "/phasec.trace"), !noRender,
                         llvm::errs())))
    return 1;

  const VariantResult &ours = result.variants.front();
  double dev = ours.modelTime > 0
                   ? 100.0 * (ours.simTime - ours.modelTime) / ours.modelTime
                   : 0;
  llvm::outs() << "phasec: simulated/model = "
               << llvm::format("%.6f", ours.modelTime > 0
                                           ? ours.simTime / ours.modelTime
                                           : 0)
               << " (" << llvm::format("%+.3f", dev) << "%)\n";
  if (checkModel >= 0 && std::abs(dev) > checkModel)
    return fail(llvm::formatv("simulated time {0:e6} s is {1:f3}% away from "
                              "the phase model {2:e6} s (tolerance {3}%)",
                              ours.simTime, dev, ours.modelTime,
                              checkModel.getValue())
                    .str());
  return 0;
}
