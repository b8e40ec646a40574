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

#include "phasec/Core/UserFiles.h"
#include "phasec/Scheduling/Algorithms.h"
#include "phasec/Scheduling/Baselines.h"
#include "phasec/Scheduling/Bounds.h"
#include "phasec/Scheduling/BuildProblem.h"
#include "phasec/Scheduling/Collective.h"
#include "phasec/Scheduling/ScheduleJSON.h"
#include "phasec/Target/SimGrid/Runner.h"
#include "phasec/Target/SimGrid/SimTarget.h"

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
static cl::opt<std::string> outDir("o",
                                   cl::desc("Output directory (default: a new "
                                            "temporary directory)"),
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
                     "algorithms of the MPI call that runs the same "
                     "operation (smpi/alltoall, smpi/alltoallv, "
                     "smpi/gather, ...; on this platform and on the stock "
                     "TORUS)"),
            cl::init(false), cl::cat(category));
static cl::list<std::string>
    builtins("builtins",
             cl::desc("Algorithms of the operation's smpi/<collective> "
                      "setting to compare"),
             cl::CommaSeparated, cl::cat(category));
static cl::list<std::string>
    stockBuiltins("stock",
                  cl::desc("The same on the stock TORUS platform"),
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
static cl::opt<bool> noRender("no-render", cl::desc("With --report: CSVs only"),
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

static cl::opt<bool> allowInvalid(
    "allow-invalid",
    cl::desc("Simulate a schedule that does not verify (congests or "
             "delivers the wrong bytes) instead of rejecting it"),
    cl::cat(category));

static int fail(const llvm::Twine &msg) {
  llvm::errs() << "phasec-sim: error: " << msg << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "phasec-sim: simulate a phasec schedule with "
                              "SimGrid SMPI\n");

  std::string error;
  ParsedScheduleDocument op;
  if (!input.empty()) {
    // A regular file or standard input, at most 4 GiB.
    std::unique_ptr<llvm::MemoryBuffer> buf =
        readBoundedFile(input, uint64_t(4) << 30, error);
    if (!buf)
      return fail(error);
    auto docs = readScheduleJSON(buf->getBuffer(), error);
    if (failed(docs))
      return fail(input + ": " + error);
    auto it = llvm::find_if(*docs, [](const ParsedScheduleDocument &doc) {
      return operationName.empty() || doc.info.operation == operationName;
    });
    if (it == docs->end())
      return fail("no operation named '" + operationName + "' in " + input);
    op = std::move(*it);
    if (op.chunks)
      // The generated code reduces values of the operation's element type
      // with its operator; phasec-schedule/2 records neither.
      return fail("not yet supported: simulating a relaying schedule "
                  "(phasec-schedule/2, operation '" +
                  op.info.operation +
                  "') from JSON, which has no element type or reduction "
                  "operator to generate its code from; simulate the .sched "
                  "file with `phasec FILE.sched --target=sim`");
  } else if (!topologySpec.empty()) {
    auto desc = TopologyDesc::parse(topologySpec, error);
    if (failed(desc))
      return fail("--topology: " + error);
    op.topology = *desc;
    op.info = {"alltoall", "alltoall"};
    if (alltoallBytes <= 0)
      return fail("--topology needs --alltoall=BYTES (> 0)");
  } else {
    return fail("give a schedule JSON file or --topology");
  }

  auto topo = Topology::create(op.topology, error);
  if (failed(topo))
    return fail("invalid machine " + op.topology.str() + ": " + error);
  if (input.empty()) {
    Collective alltoall;
    alltoall.group.resize(static_cast<size_t>(topo->numRanks()));
    std::iota(alltoall.group.begin(), alltoall.group.end(), 0);
    alltoall.blockBytes = alltoallBytes;
    auto lowered = lowerCollective(*topo, alltoall);
    if (!lowered)
      return fail("--alltoall: " + llvm::toString(lowered.takeError()));
    op.transfers = (*lowered)->transfers();
  }
  Problem problem(*topo, op.transfers);
  if (input.empty()) {
    std::optional<SchedulerAlgorithm> alg =
        symbolizeSchedulerAlgorithm(scheduleName);
    if (!alg)
      return fail("--schedule: unknown algorithm '" + scheduleName + "'");
    SchedulerOptions options;
    options.algorithm = *alg;
    SchedulerReport report;
    if (failed(scheduleAuto(problem, op.schedule, options, report)))
      return fail("--schedule=" + scheduleName + ": " + report.error);
  }

  // A schedule that does not deliver what its collective asks, or that
  // congests, is simulated only on request: what it costs is worth seeing,
  // but never by accident.
  llvm::SmallVector<ScheduleViolation, 4> violations;
  if (failed(problem.verify(op.schedule, violations, 4)) && !allowInvalid)
    return fail("the schedule does not verify (" +
                violations.front().message +
                "); --allow-invalid simulates it anyway");
  SimTargetOptions options;
  options.outDir = outDir;
  options.emitOnly = emitOnly;
  options.compare = compare;
  options.baselines.assign(baselines.begin(), baselines.end());
  options.builtins.assign(builtins.begin(), builtins.end());
  options.stockBuiltins.assign(stockBuiltins.begin(), stockBuiltins.end());
  options.reportDir = reportDir;
  options.renderReport = !noRender;
  options.timeoutSeconds = timeout;
  options.platform.linkLatency = latency;
  options.checkModelPercent = checkModel;
  std::string name = op.info.operation.empty() ? "op" : op.info.operation;
  SimOperation simOp{name, &*topo, &problem, &op.schedule};
  // The built-ins --compare runs depend on the collective (alltoallv and
  // permute: smpi/alltoallv; gather: smpi/gather, ...).
  simOp.kind = op.info.kind;
  return failed(runSimTarget(simOp, options, llvm::outs(), llvm::errs())) ? 1
                                                                          : 0;
}
