//===- SimGridReport.cpp - CSV data and the HTML report -------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `--report DIR`: the data of every picture as a CSV (so that each picture
/// has a golden test of its numbers), then report.py (python3 + matplotlib)
/// draws them and bundles them into one self-contained index.html.
///
/// Pictures, for phasec's own schedule:
///   link_phase.csv        heat map: per directed link and phase, the share
///                         of the phase's (simulated) time the link is busy
///   route_throughput.csv  every route's throughput (bytes / its phase's
///                         simulated time), the seed's "over 262k routes"
///   phase_throughput.csv  every phase's throughput per node, "over phases"
///   link_timeline.csv     from SimGrid's trace: link utilisation over time,
///                         aggregated (mean and percentiles over all links)
/// and summary.csv (the comparison table and its chart against the bound),
/// bound.csv (the proven lower bound and what binds it), phases.csv
/// (per-phase model and simulated time).
///
//===----------------------------------------------------------------------===//

#include "phasec/Target/SimGrid/Runner.h"

#include "SimGridPrivate.h"

#include "phasec/Core/UserFiles.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cmath>

using namespace phasec;
using namespace phasec::simgrid;

/// 6 significant digits: stable across runs and readable.
static std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

/// One file of the report directory (a CSV or report.py); errors go to
/// `log`.
static LogicalResult
writeReportFile(StringRef dir, StringRef name,
                llvm::function_ref<void(llvm::raw_ostream &)> fn,
                llvm::raw_ostream &log) {
  std::string error;
  if (succeeded(writeFileIn(dir, name, fn, error)))
    return success();
  log << "error: " << error << "\n";
  return failure();
}

LogicalResult simgrid::writeReport(const SimulationRequest &request,
                                   const SimulationResult &result,
                                   StringRef tracePath, bool render,
                                   llvm::raw_ostream &log) {
  const Topology &topo = *request.topology;
  const Schedule &sched = *request.schedule.schedule;
  StringRef dir = request.reportDir;
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    log << "error: cannot create " << dir << ": " << ec.message() << "\n";
    return failure();
  }
  if (result.variants.empty() ||
      result.variants.front().status != SimulationStatus::Ok) {
    log << "error: no simulation of phasec's schedule to report\n";
    return failure();
  }
  const VariantResult &ours = result.variants.front();
  std::vector<double> modelPhase =
      predictPhaseTimes(topo, request.problem, sched, request.platform,
                        buildTieTable(topo, sched));
  size_t numPhases = sched.phases.size();
  // Simulated duration of every phase (phase ends are cumulative).
  std::vector<double> simPhase(numPhases, 0.0);
  for (size_t k = 0; k < numPhases && k < ours.phaseEnd.size(); ++k)
    simPhase[k] = ours.phaseEnd[k] - (k ? ours.phaseEnd[k - 1] : 0.0);

  if (failed(writeReportFile(
          dir, "summary.csv",
          [&](llvm::raw_ostream &os) {
            os << "variant,platform,kind,status,sim_time_s,eff_bandwidth_Bps,"
                  "pct_of_bound,model_time_s,phases\n";
            for (const VariantResult &v : result.variants) {
              bool ok = v.status == SimulationStatus::Ok && v.simTime > 0;
              // The stock TORUS is another machine: no % of this bound.
              bool measured = ok && v.platform != "stock";
              os << v.name << "," << v.platform << "," << v.kind << ","
                 << stringifySimulationStatus(v.status) << ","
                 << (ok ? num(v.simTime) : "") << ","
                 << (ok ? num(result.totalBytes / v.simTime) : "") << ","
                 << (measured ? num(100.0 * result.boundTime / v.simTime) : "")
                 << "," << (v.kind == "phased" ? num(v.modelTime) : "") << ","
                 << (v.kind == "phased" ? std::to_string(v.numPhases) : "")
                 << "\n";
            }
          },
          log)))
    return failure();

  if (failed(writeReportFile(
          dir, "phases.csv",
          [&](llvm::raw_ostream &os) {
            os << "phase,transfers,bytes,model_s,sim_s,sim_over_model\n";
            for (size_t k = 0; k < numPhases; ++k) {
              int64_t bytes = 0;
              for (const Transfer &t : sched.phases[k].transfers)
                bytes += t.bytes;
              os << k << "," << sched.phases[k].transfers.size() << "," << bytes
                 << "," << num(modelPhase[k]) << "," << num(simPhase[k])
                 << ","
                 << (modelPhase[k] > 0
                         ? num(simPhase[k] / modelPhase[k])
                         : "")
                 << "\n";
            }
          },
          log)))
    return failure();

  // Heat map: busy share of each link in each phase, relative to the
  // phase's simulated duration (1 = busy all the phase).
  std::vector<std::vector<double>> bytes = linkBytesByPhase(topo, sched);
  if (failed(writeReportFile(
          dir, "link_phase.csv",
          [&](llvm::raw_ostream &os) {
            os << "link,class,src,dst";
            for (size_t k = 0; k < numPhases; ++k)
              os << ",p" << k;
            os << "\n";
            for (size_t l = 0; l < topo.numLinks(); ++l) {
              const Link &link = topo.link(static_cast<LinkId>(l));
              os << l << "," << stringifyLinkClass(link.cls);
              if (link.dim >= 0)
                os << (link.dir > 0 ? "+" : "-") << int(link.dim);
              os << "," << link.src << "," << link.dst;
              for (size_t k = 0; k < numPhases; ++k) {
                double busy = bytes[k][l] / link.bandwidth;
                os << ","
                   << (busy == 0 || simPhase[k] <= 0 ? std::string("0")
                                                     : num(busy / simPhase[k]));
              }
              os << "\n";
            }
          },
          log)))
    return failure();

  // The bound the table and the chart measure against, and its reason
  // (a CSV field: quotes doubled).
  if (failed(writeReportFile(
          dir, "bound.csv",
          [&](llvm::raw_ostream &os) {
            std::string reason;
            for (char c : result.boundReason)
              reason += c == '"' ? std::string("\"\"") : std::string(1, c);
            os << "bound_s,reason,total_bytes\n"
               << num(result.boundTime) << ",\"" << reason << "\","
               << result.totalBytes << "\n";
          },
          log)))
    return failure();

  // Route throughput: every inter-node transfer, bytes over its phase's
  // simulated time, as a fraction of its route's slowest link; histogram
  // in 20 bins of 0.05 (values above 1 cannot happen in a fluid model).
  std::vector<int64_t> bins(20, 0);
  int64_t routes = 0;
  llvm::SmallVector<LinkId, 64> route;
  for (size_t k = 0; k < numPhases; ++k) {
    for (const Transfer &t : sched.phases[k].transfers) {
      topo.routeRanks(t.src, t.dst, t.ties, route);
      if (route.empty() || simPhase[k] <= 0)
        continue;
      double bw = topo.link(route.front()).bandwidth;
      for (LinkId l : route)
        bw = std::min(bw, topo.link(l).bandwidth);
      double frac = t.bytes / simPhase[k] / bw;
      int bin = std::min(19, std::max(0, int(std::floor(frac * 20 + 1e-9))));
      if (frac >= 1 - 1e-9)
        bin = 19;
      ++bins[bin];
      ++routes;
    }
  }
  if (failed(writeReportFile(
          dir, "route_throughput.csv",
          [&](llvm::raw_ostream &os) {
            os << "bin_lo,bin_hi,routes\n";
            for (int b = 0; b < 20; ++b)
              os << num(b * 0.05) << "," << num((b + 1) * 0.05) << ","
                 << bins[b] << "\n";
          },
          log)))
    return failure();

  if (failed(writeReportFile(
          dir, "phase_throughput.csv",
          [&](llvm::raw_ostream &os) {
            os << "phase,bytes,sim_s,per_node_Bps\n";
            for (size_t k = 0; k < numPhases; ++k) {
              int64_t b = 0;
              for (const Transfer &t : sched.phases[k].transfers)
                if (topo.nodeOfRank(t.src) != topo.nodeOfRank(t.dst))
                  b += t.bytes;
              os << k << "," << b << "," << num(simPhase[k]) << ","
                 << (simPhase[k] > 0
                         ? num(b / double(topo.numNodes()) / simPhase[k])
                         : "0")
                 << "\n";
            }
          },
          log)))
    return failure();

  // The report script: the timeline from the trace, the pictures, the HTML.
  if (failed(writeReportFile(
          dir, "report.py", [](llvm::raw_ostream &os) { os << reportScript(); },
          log)))
    return failure();
  llvm::SmallString<256> script(dir);
  llvm::sys::path::append(script, "report.py");
  // CMake's Python3_EXECUTABLE, else python3 on PATH.
  llvm::ErrorOr<std::string> python = findPython3(PHASEC_PYTHON3);
  if (!python) {
    log << "error: python3 not found; the CSVs are in " << dir << "\n";
    return failure();
  }
  std::string title = result.operation + " on " + topo.desc().str();
  std::vector<StringRef> args{*python, script, "--dir", dir, "--title", title};
  std::string trace = tracePath.str();
  if (!trace.empty() && llvm::sys::fs::exists(trace)) {
    args.push_back("--trace");
    args.push_back(trace);
  }
  if (!render)
    args.push_back("--csv-only");
  std::string error;
  int rc =
      llvm::sys::ExecuteAndWait(*python, args, std::nullopt, {}, 0, 0, &error);
  if (rc != 0) {
    log << "error: report.py failed (exit code " << rc << ")"
        << (error.empty() ? "" : ": " + error) << "\n";
    return failure();
  }
  log << "[sim] report: " << dir << (render ? "/index.html" : "") << "\n";
  return success();
}
