//===- SimTarget.cpp - `--target=sim` and `--emit=simgrid` ----------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// One entry point for the phasec driver and phasec-sim: per operation,
/// build the comparison set, emit the directory, run, print the table,
/// write the report, check against the phase model.
///
//===----------------------------------------------------------------------===//

#include "phasec/Target/SimGrid/SimTarget.h"

#include "SimGridPrivate.h"

#include "phasec/Core/UserFiles.h"
#include "phasec/Scheduling/Baselines.h"
#include "phasec/Scheduling/Bounds.h"
#include "phasec/Scheduling/Registry.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <cmath>

using namespace phasec;
using namespace phasec::simgrid;

llvm::ArrayRef<const char *> simgrid::defaultBuiltins() {
  static const char *const names[] = {
      "pair", "ring", "bruck", "basic_linear", "2dmesh",  "3dmesh",
      "rdb",  "ompi", "mpich", "impi",         "mvapich2"};
  return names;
}

LogicalResult simgrid::buildBaseline(StringRef name, const Problem &problem,
                                     Schedule &out, std::string &error) {
  // The registry's baselines, plus seed 002's PERCS pattern, which only the
  // simulator compares against.
  StringRef registryName = name == "shift" ? "linear_shift" : name;
  if (isBaseline(registryName))
    return runBaseline(registryName, problem, out, error);
  if (name == "percs-seed")
    return runComparison(name, problem, Schedule(), out, error);
  error = "unknown baseline '" + name.str() +
          "' (expected linear_shift, xor, greedy, percs-seed)";
  return failure();
}

/// The most messages a schedule without barriers posts at once that the
/// simulator takes on (the choice bench's largest, 64 ranks' all-to-all,
/// posts 4032).
constexpr uint64_t kMaxPostedMessages = 1 << 16;

static std::string subdir(StringRef base, StringRef name, bool several) {
  if (!several)
    return base.str();
  llvm::SmallString<256> p(base);
  llvm::sys::path::append(p, name);
  return std::string(p);
}

llvm::LogicalResult simgrid::runSimTarget(llvm::ArrayRef<SimOperation> operations,
                          const SimTargetOptions &options,
                          llvm::raw_ostream &out, llvm::raw_ostream &diag) {
  if (operations.empty()) {
    diag << "error: no operation to simulate\n";
    return llvm::failure();
  }
  bool several = operations.size() > 1;
  // Without -o the directories go to a fresh temporary directory.
  std::string outDir = options.outDir;
  if (outDir.empty() &&
      (outDir = createOutputDirectory("phasec-sim", diag)).empty())
    return llvm::failure();
  bool modelCheckFailed = false;
  for (const SimOperation &op : operations) {
    const Topology &topo = *op.topology;
    const Problem &problem = *op.problem;

    std::vector<std::string> baselineNames = options.baselines;
    std::vector<std::string> builtinNames = options.builtins;
    std::vector<std::string> stockNames = options.stockBuiltins;
    BuiltinCall call =
        op.relay ? op.relay->builtin
                 : directBuiltinCall(op.kind.empty() ? "alltoall" : op.kind,
                                     topo, problem.transfers());
    // The built-ins the call's selector offers (the alltoall ones: the
    // usual eleven, SimGrid's others are variants of them).
    auto addBuiltins = [&](std::vector<std::string> &names) {
      if (!names.empty())
        return;
      if (call.collective == "alltoall")
        for (const char *b : defaultBuiltins())
          names.push_back(b);
      else
        for (const char *b : collectiveBuiltins(call.collective))
          names.push_back(b);
    };
    if (op.relay) {
      if (!options.reportDir.empty()) {
        diag << "error: " << op.name
             << ": --report is not supported for a relaying operation\n";
        return llvm::failure();
      }
      // The alltoall baselines and the stock platform do not apply.
      baselineNames.clear();
      stockNames.clear();
      if (options.compare)
        addBuiltins(builtinNames);
    } else if (options.compare) {
      if (baselineNames.empty()) {
        baselineNames = {"linear_shift", "xor", "greedy"};
        if (topo.isPercs() && topo.numSupernodes() == 1)
          baselineNames.push_back("percs-seed");
      }
      addBuiltins(builtinNames);
      if (stockNames.empty())
        stockNames = builtinNames;
    }
    // Without barriers every message is posted at once, and SimGrid's
    // fluid network re-shares every link among all of them at every
    // completion: the T3D's all-to-all (261,632 messages) grew past 17 GB
    // and had not finished after 8 minutes. Refuse before starting.
    if (!op.relay && op.sync == SyncKind::None) {
      uint64_t messages = op.schedule->numTransfers();
      if (messages > kMaxPostedMessages) {
        diag << "error: " << op.name << ": sync none posts " << messages
             << " messages at once, more than SimGrid's fluid network is "
                "simulated with here ("
             << kMaxPostedMessages
             << "; every completion re-shares every link among all of "
                "them): give the operation `sync = barrier` or `sync = "
                "local`, or a smaller machine\n";
        return llvm::failure();
      }
    }
    std::vector<Schedule> baselineSchedules(baselineNames.size());
    SimulationRequest req;
    for (size_t i = 0; i < baselineNames.size(); ++i) {
      std::string error;
      if (failed(buildBaseline(baselineNames[i], problem, baselineSchedules[i],
                               error))) {
        diag << "note: " << op.name << ": baseline " << baselineNames[i]
             << " skipped: " << error << "\n";
        continue;
      }
      req.baselines.push_back({baselineNames[i], &baselineSchedules[i]});
    }

    LowerBound bound = problem.bound();
    req.topology = &topo;
    req.problem = &problem;
    req.transfers = &problem.transfers();
    req.operation = op.name;
    req.schedule = {"phasec", op.schedule};
    req.relay = op.relay;
    req.builtin = call;
    req.builtins = builtinNames;
    req.stockBuiltins = stockNames;
    req.boundTime = bound.time;
    req.boundReason = bound.reason;
    req.workDir = subdir(outDir, op.name, several);
    if (!options.reportDir.empty())
      req.reportDir = subdir(options.reportDir, op.name, several);
    req.platform = options.platform;
    req.platform.sync = op.sync;
    if (op.setupCost >= 0)
      req.platform.setupCost = op.setupCost;
    req.timeoutSeconds = options.timeoutSeconds;

    if (options.emitOnly) {
      std::vector<NamedSchedule> all{req.schedule};
      all.insert(all.end(), req.baselines.begin(), req.baselines.end());
      PlatformStats stats;
      std::string error;
      if (op.relay)
        all.resize(1);
      if (failed(emitSimGrid(topo, problem.transfers(), all, req.platform,
                             req.workDir, stats, error, op.relay,
                             &req.builtin))) {
        diag << "error: " << error << "\n";
        return llvm::failure();
      }
      out << "wrote " << req.workDir << ": " << stats.hosts << " hosts, "
          << stats.links << " links, " << stats.routes << " routes\n";
      continue;
    }

    SimulationResult result;
    if (failed(runSimulation(req, result, diag)))
      return llvm::failure();
    printSimulationTable(out, result);
    if (op.relay) {
      // The one line a benchmark needs: phasec's code against the fastest
      // built-in that ran and verified its result.
      const VariantResult *best = nullptr;
      for (const VariantResult &v : result.variants)
        if (v.kind == "builtin" && v.status == SimulationStatus::Ok &&
            (!best || v.simTime < best->simTime))
          best = &v;
      const VariantResult &ours = result.variants.front();
      out << op.name << ": phasec " << llvm::formatv("{0:e4}", ours.simTime)
          << " s (every element verified)";
      if (best)
        out << "; best built-in " << best->name << " "
            << llvm::formatv("{0:e4}", best->simTime) << " s; phasec/best = "
            << llvm::formatv("{0:f3}", ours.simTime / best->simTime);
      out << "\n";
    }
    if (!req.reportDir.empty() &&
        failed(writeReport(req, result, req.workDir + "/phasec.trace",
                           options.renderReport, diag)))
      return llvm::failure();

    const VariantResult &ours = result.variants.front();
    double dev = ours.modelTime > 0
                     ? 100.0 * (ours.simTime - ours.modelTime) / ours.modelTime
                     : 0;
    out << op.name << ": simulated/model = "
        << llvm::format("%.6f",
                        ours.modelTime > 0 ? ours.simTime / ours.modelTime : 0)
        << " (" << llvm::format("%+.3f", dev) << "%)\n";
    if (options.checkModelPercent >= 0 &&
        std::abs(dev) > options.checkModelPercent) {
      diag << llvm::formatv("error: {0}: simulated time {1:e6} s is {2:f3}% "
                            "away from the phase model {3:e6} s (tolerance "
                            "{4:f2}%)\n",
                            op.name, ours.simTime, dev, ours.modelTime,
                            options.checkModelPercent);
      modelCheckFailed = true;
    }
  }
  return llvm::failure(modelCheckFailed);
}
