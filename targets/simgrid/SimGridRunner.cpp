//===- SimGridRunner.cpp - Build, run and report SimGrid simulations ------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Drives `run.sh` (so that what phasec runs is exactly what a user would run
/// by hand), polls the simulation for progress, parses the PHASEC_SIM lines
/// of program.c and compares with the bound and the analytic phase model.
///
//===----------------------------------------------------------------------===//

#include "phasec/Target/SimGrid/Runner.h"

#include "SimGridPrivate.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

#include <chrono>
#include <sys/wait.h>
#include <thread>

extern char **environ;

using namespace phasec;
using namespace phasec::simgrid;

//===----------------------------------------------------------------------===//
// The analytic model
//===----------------------------------------------------------------------===//

std::vector<std::vector<double>>
simgrid::linkBytesByPhase(const Topology &topo, const Schedule &schedule) {
  std::vector<std::vector<double>> out;
  out.reserve(schedule.phases.size());
  llvm::SmallVector<LinkId, 64> route;
  for (const Phase &phase : schedule.phases) {
    std::vector<double> bytes(topo.numLinks(), 0.0);
    for (const Transfer &t : phase.transfers) {
      topo.routeRanks(t.src, t.dst, t.ties, route);
      for (LinkId l : route)
        bytes[l] += static_cast<double>(t.bytes);
    }
    out.push_back(std::move(bytes));
  }
  return out;
}

PhaseModel simgrid::modelSchedule(const Topology &topo,
                                  const Schedule &schedule,
                                  const PlatformOptions &options) {
  PhaseModel model;
  double latency =
      options.linkLatency >= 0 ? options.linkLatency : topo.desc().linkLatency;
  double injection = topo.desc().injectionBandwidth;
  std::vector<double> linkBytes(topo.numLinks(), 0.0);
  std::vector<double> up(topo.numNodes(), 0.0), down(topo.numNodes(), 0.0);
  std::vector<LinkId> touched;
  llvm::SmallVector<LinkId, 64> route;
  for (const Phase &phase : schedule.phases) {
    double worst = 0, worstLatency = 0;
    touched.clear();
    for (const Transfer &t : phase.transfers) {
      NodeId s = topo.nodeOfRank(t.src), d = topo.nodeOfRank(t.dst);
      if (s == d)
        continue;
      topo.route(s, d, t.ties, route);
      for (LinkId l : route) {
        if (linkBytes[l] == 0)
          touched.push_back(l);
        linkBytes[l] += static_cast<double>(t.bytes);
      }
      worstLatency =
          std::max(worstLatency, latency * static_cast<double>(route.size()));
      up[s] += static_cast<double>(t.bytes);
      down[d] += static_cast<double>(t.bytes);
    }
    for (LinkId l : touched) {
      worst = std::max(worst, linkBytes[l] / topo.link(l).bandwidth);
      linkBytes[l] = 0;
    }
    for (const Transfer &t : phase.transfers) {
      NodeId s = topo.nodeOfRank(t.src), d = topo.nodeOfRank(t.dst);
      if (injection > 0)
        worst = std::max({worst, up[s] / injection, down[d] / injection});
      up[s] = down[d] = 0;
    }
    model.phaseTime.push_back(worst + worstLatency);
    model.total += worst + worstLatency;
  }
  return model;
}

//===----------------------------------------------------------------------===//
// Running run.sh
//===----------------------------------------------------------------------===//

namespace {

/// Runs `sh run.sh args...` in `dir` with stdout/stderr to files; returns
/// the exit code (-1 if it could not start) and fills `wall`. While it runs,
/// shows "label: phase k of n, elapsed" from PHASEC_SIM_PROGRESS lines when
/// stderr is a terminal.
int runScript(StringRef dir, llvm::ArrayRef<std::string> args,
              StringRef outFile, StringRef errFile, unsigned timeout,
              bool progress, StringRef label, double &wall, std::string &error,
              llvm::ArrayRef<std::string> extraEnv = {}) {
  auto sh = llvm::sys::findProgramByName("sh");
  if (!sh) {
    error = "cannot find sh";
    return -1;
  }
  llvm::SmallString<256> script(dir);
  llvm::sys::path::append(script, "run.sh");
  std::vector<StringRef> argv{*sh, script};
  for (const std::string &a : args)
    argv.push_back(a);

  std::vector<std::string> envStore;
  for (char **e = environ; e && *e; ++e) {
    StringRef kv(*e);
    if (kv.starts_with("PHASEC_SIM_TIMEOUT=") ||
        kv.starts_with("PHASEC_SIM_TRACE="))
      continue;
    envStore.push_back(kv.str());
  }
  envStore.push_back("PHASEC_SIM_TIMEOUT=" + std::to_string(timeout));
  for (const std::string &e : extraEnv)
    envStore.push_back(e);
  std::vector<StringRef> env(envStore.begin(), envStore.end());

  std::optional<StringRef> redirects[3] = {StringRef(""), outFile, errFile};
  auto start = std::chrono::steady_clock::now();
  bool executionFailed = false;
  llvm::sys::ProcessInfo pi = llvm::sys::ExecuteNoWait(
      *sh, argv, env, redirects, /*MemoryLimit=*/0, &error, &executionFailed);
  if (executionFailed || pi.Pid <= 0)
    return -1;
  bool show = progress && llvm::sys::Process::StandardErrIsDisplayed();
  bool shown = false;
  while (true) {
    // POSIX directly: the simulator target is Unix-only (SimGrid is), and
    // a non-blocking waitpid is the simplest way to poll for progress.
    int status = 0;
    pid_t got = ::waitpid(pi.Pid, &status, WNOHANG);
    wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (got == pi.Pid || got < 0) {
      if (shown)
        llvm::errs() << "\r\033[K";
      if (got < 0) {
        error = "waitpid failed";
        return -1;
      }
      if (WIFEXITED(status))
        return WEXITSTATUS(status);
      return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    }
    if (show) {
      std::string status;
      if (auto buf = llvm::MemoryBuffer::getFile(errFile, /*IsText=*/true)) {
        StringRef text = (*buf)->getBuffer();
        size_t at = text.rfind("PHASEC_SIM_PROGRESS ");
        if (at != StringRef::npos) {
          llvm::SmallVector<StringRef, 4> parts;
          text.substr(at).split(parts, ' ', 3);
          if (parts.size() >= 3)
            status =
                (", phase " + parts[1] + " of " + parts[2].split('\n').first)
                    .str();
        }
      }
      llvm::errs() << "\r\033[K[sim] " << label << status << ", "
                   << llvm::format("%.0f", wall) << " s";
      shown = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

std::string tail(StringRef path, size_t maxLines = 12) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return "";
  llvm::SmallVector<StringRef, 64> lines;
  (*buf)->getBuffer().split(lines, '\n', -1, false);
  std::string out;
  for (size_t i = lines.size() > maxLines ? lines.size() - maxLines : 0;
       i < lines.size(); ++i)
    out += "  | " + lines[i].str() + "\n";
  return out;
}

/// Parses PHASEC_SIM_TIME / PHASEC_SIM_PHASE lines.
bool parseOutput(StringRef path, VariantResult &v) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return false;
  bool haveTime = false;
  llvm::SmallVector<StringRef, 4> parts;
  for (StringRef line : llvm::split((*buf)->getBuffer(), '\n')) {
    parts.clear();
    line.trim().split(parts, ' ', -1, false);
    if (parts.size() == 2 && parts[0] == "PHASEC_SIM_TIME") {
      haveTime = !parts[1].getAsDouble(v.simTime);
    } else if (parts.size() == 3 && parts[0] == "PHASEC_SIM_PHASE") {
      double t;
      if (!parts[2].getAsDouble(t))
        v.phaseEnd.push_back(t);
    }
  }
  return haveTime;
}

std::string path(StringRef dir, StringRef name) {
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, name);
  return std::string(p);
}

} // namespace

LogicalResult simgrid::runSimulation(const SimulationRequest &request,
                                     SimulationResult &result,
                                     llvm::raw_ostream &log) {
  const Topology &topo = *request.topology;
  if (!request.schedule.schedule || !request.transfers) {
    log << "error: no schedule to simulate\n";
    return failure();
  }
  result.operation = request.operation;
  result.ranks = topo.numRanks();
  result.totalBytes = request.transfers->totalBytes();
  result.boundTime = request.boundTime;
  result.boundReason = request.boundReason;

  // Absolute, because run.sh runs in its own directory (trace file names).
  llvm::SmallString<256> absDir(request.workDir);
  llvm::sys::fs::make_absolute(absDir);
  std::string workDir(absDir);

  std::vector<NamedSchedule> schedules{request.schedule};
  for (const NamedSchedule &b : request.baselines)
    if (b.schedule)
      schedules.push_back(b);
  std::string error;
  auto t0 = std::chrono::steady_clock::now();
  if (failed(emitSimGrid(topo, *request.transfers, schedules, request.platform,
                         workDir, result.platform, error))) {
    log << "error: " << error << "\n";
    return failure();
  }
  log << "[sim] wrote " << workDir << ": " << result.platform.hosts
      << " hosts, " << result.platform.links << " links, "
      << result.platform.routes << " routes";
  if (result.platform.tieConflicts)
    log << " (" << result.platform.tieConflicts
        << " transfers wanted another tie than their pair's route)";
  log << " ("
      << llvm::format("%.1f", std::chrono::duration<double>(
                                  std::chrono::steady_clock::now() - t0)
                                  .count())
      << " s)\n";

  double wall = 0;
  int rc = runScript(workDir, {"build"}, path(workDir, "build.log"),
                     path(workDir, "build.err"), 0, request.progress,
                     "building", wall, error);
  if (rc != 0) {
    log << "error: building the simulation in " << workDir
        << " failed (exit code " << rc << ")"
        << (error.empty() ? "" : ": " + error) << "\n"
        << tail(path(workDir, "build.err"));
    return failure();
  }
  log << "[sim] built libplatform.so and program ("
      << llvm::format("%.1f", wall) << " s)\n";

  struct Job {
    std::string name, kind, platform;
  };
  std::vector<Job> jobs;
  for (const NamedSchedule &s : schedules)
    jobs.push_back({s.name, "phased", "phasec"});
  for (const std::string &b : request.builtins)
    jobs.push_back({b, "builtin", "phasec"});
  bool hasStock = llvm::sys::fs::exists(path(workDir, "stock-torus.xml"));
  if (hasStock)
    for (const std::string &b : request.stockBuiltins)
      jobs.push_back({b, "builtin", "stock"});

  PhaseModel phasecModel;
  for (size_t j = 0; j < jobs.size(); ++j) {
    const Job &job = jobs[j];
    VariantResult v;
    v.name = job.name;
    v.kind = job.kind;
    v.platform = job.platform;
    const Schedule *sched = nullptr;
    if (job.kind == "phased") {
      sched = schedules[j].schedule;
      PhaseModel m = modelSchedule(topo, *sched, request.platform);
      v.modelTime = m.total;
      v.numPhases = static_cast<int64_t>(sched->phases.size());
    }
    if (job.kind == "builtin" &&
        StringRef(job.name).starts_with("basic_linear") &&
        topo.numRanks() > request.maxBasicLinearRanks) {
      v.status = SimulationStatus::Skipped;
      v.note = "basic_linear posts all R*(R-1) messages at once; at " +
               std::to_string(topo.numRanks()) +
               " ranks SimGrid's max-min solver does not finish in "
               "reasonable time (512 ranks: > 25 min)";
      log << "[sim] " << job.platform << "/" << job.name << ": skipped\n";
      result.variants.push_back(std::move(v));
      continue;
    }
    std::string tag = job.platform + "-" + job.kind + "-" + job.name;
    std::string out = path(workDir, "out-" + tag + ".txt");
    std::string err = path(workDir, "err-" + tag + ".txt");
    std::vector<std::string> args;
    args.push_back(job.kind == "phased"
                       ? "phased"
                       : (job.platform == "stock" ? "stock" : "builtin"));
    args.push_back(job.name);
    error.clear();
    rc =
        runScript(workDir, args, out, err, request.timeoutSeconds,
                  request.progress, job.platform + "/" + job.name, wall, error);
    v.wallSeconds = wall;
    if (request.timeoutSeconds && wall >= request.timeoutSeconds &&
        (rc == 124 || rc == 137)) {
      v.status = SimulationStatus::TimedOut;
      v.note = "no result within " + std::to_string(request.timeoutSeconds) +
               " s of wall time";
    } else if (rc == 137) {
      v.status = SimulationStatus::Failed;
      v.note = "killed (SIGKILL) before its time limit: out of memory?";
    } else if (rc != 0 || !parseOutput(out, v)) {
      v.status = SimulationStatus::Failed;
      v.note = "exit code " + std::to_string(rc) +
               (error.empty() ? "" : ": " + error);
      log << "[sim] " << job.platform << "/" << job.name
          << ": failed (exit code " << rc << ")\n"
          << tail(err);
    } else {
      v.status = SimulationStatus::Ok;
    }
    log << "[sim] " << job.platform << "/" << job.name << ": "
        << stringifySimulationStatus(v.status);
    if (v.status == SimulationStatus::Ok)
      log << ", simulated " << llvm::format("%.6g", v.simTime) << " s";
    log << " (" << llvm::format("%.1f", wall) << " s wall)\n";
    if (j == 0 && v.status != SimulationStatus::Ok) {
      log << "error: phasec's schedule did not simulate\n";
      result.variants.push_back(std::move(v));
      return failure();
    }
    result.variants.push_back(std::move(v));
  }

  // The report's link timeline comes from SimGrid's trace of phasec's
  // schedule: a separate run, so that tracing never slows the timed one.
  if (!request.reportDir.empty()) {
    std::string trace = path(workDir, "phasec.trace");
    llvm::sys::fs::remove(trace);
    error.clear();
    rc = runScript(workDir, {"phased", request.schedule.name},
                   path(workDir, "out-trace.txt"),
                   path(workDir, "err-trace.txt"), request.timeoutSeconds,
                   request.progress, "tracing " + request.schedule.name, wall,
                   error, {"PHASEC_SIM_TRACE=" + trace});
    log << "[sim] traced " << request.schedule.name << ": "
        << (rc == 0 ? "ok" : "failed (exit code " + std::to_string(rc) + ")")
        << " (" << llvm::format("%.1f", wall) << " s wall)\n";
  }
  return success();
}

void simgrid::printSimulationTable(llvm::raw_ostream &os,
                                   const SimulationResult &result) {
  os << "operation " << result.operation << ": " << result.ranks << " ranks, "
     << result.totalBytes << " bytes; bandwidth bound "
     << llvm::format("%.6g", result.boundTime) << " s";
  if (!result.boundReason.empty())
    os << " (" << result.boundReason << ")";
  os << "\n";
  auto row = [&](llvm::ArrayRef<std::string> cells) {
    static const int widths[] = {-22, -8, -7, 13, 11, 7, 13, 8, 0};
    for (size_t i = 0; i < cells.size(); ++i) {
      int w = widths[i];
      if (w < 0)
        os << llvm::left_justify(cells[i], -w) << " ";
      else if (w > 0)
        os << llvm::right_justify(cells[i], w) << " ";
      else
        os << cells[i];
    }
    os << "\n";
  };
  row({"variant", "platform", "kind", "simulated[s]", "eff.bw[B/s]", "%bound",
       "model[s]", "wall[s]", "note"});
  for (const VariantResult &v : result.variants) {
    std::string wall = llvm::formatv("{0:f1}", v.wallSeconds).str();
    if (v.status != SimulationStatus::Ok) {
      row({v.name, v.platform, v.kind, stringifySimulationStatus(v.status).str(), "-",
           "-", "-", wall, v.note});
      continue;
    }
    double eff = v.simTime > 0 ? result.totalBytes / v.simTime : 0;
    double pct = v.simTime > 0 ? 100.0 * result.boundTime / v.simTime : 0;
    std::string note = v.note;
    if (v.kind == "phased")
      note = std::to_string(v.numPhases) + " phases" +
             (note.empty() ? "" : "; " + note);
    row({v.name, v.platform, v.kind, llvm::formatv("{0:e4}", v.simTime).str(),
         llvm::formatv("{0:e3}", eff).str(),
         llvm::formatv("{0:f1}%", pct).str(),
         v.kind == "phased" ? llvm::formatv("{0:e4}", v.modelTime).str()
                            : std::string("-"),
         wall, note});
  }
}
