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
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

#include <cassert>
#include <chrono>
#include <optional>
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

/// Bytes SMPI adds to every message it simulates.
static constexpr int64_t kSMPIEnvelopeBytes = 16;

namespace {
/// The machine SimGrid simulates: the topology's links with the platform's
/// costs. Owns the re-costed topology the model points to when they differ.
class SimulatedMachine {
public:
  SimulatedMachine(const Topology &topo, const PlatformOptions &options) {
    TopologyDesc desc = topo.desc();
    if (options.linkLatency >= 0)
      desc.linkLatency = options.linkLatency;
    desc.setupCost = options.setupCost;
    // SMPI sends every message with a 16-byte envelope (tag, destination,
    // communicator: `payload_size_ = size_ + 16` in SimGrid 3.32's
    // smpi_request.cpp), empty ones included.
    desc.messageEnvelope = kSMPIEnvelopeBytes;
    const Topology *machine = &topo;
    if (desc.linkLatency != topo.desc().linkLatency ||
        desc.setupCost != topo.desc().setupCost ||
        desc.messageEnvelope != topo.desc().messageEnvelope) {
      std::string error;
      // The shape was valid; non-negative costs keep it valid.
      llvm::FailureOr<Topology> t = Topology::create(desc, error);
      assert(succeeded(t) && "a valid topology with other costs");
      owned.emplace(std::move(*t));
      machine = &*owned;
    }
    model.emplace(*machine);
    model->setSync(options.sync);
  }
  const CostModel &costModel() const { return *model; }

private:
  std::optional<Topology> owned;
  std::optional<CostModel> model;
};
} // namespace

/// `schedule` with every transfer on its pair's platform route: itself
/// without `routes`, else a copy kept in `rerouted`.
static const Schedule &onPlatformRoutes(const Topology &topo,
                                        const Schedule &schedule,
                                        llvm::ArrayRef<TieMask> routes,
                                        std::optional<Schedule> &rerouted) {
  if (routes.empty())
    return schedule;
  int64_t ranks = topo.numRanks();
  assert(routes.size() == static_cast<size_t>(ranks * ranks) &&
         "one route per ordered rank pair");
  rerouted = schedule;
  for (Phase &phase : rerouted->phases)
    for (Transfer &t : phase.transfers)
      if (t.src >= 0 && t.dst >= 0 && t.src < ranks && t.dst < ranks)
        t.ties = routes[static_cast<size_t>(t.src) * ranks + t.dst];
  return *rerouted;
}

double simgrid::predictSimulatedTime(const Topology &topo,
                                     const Problem *problem,
                                     const Schedule &schedule,
                                     const PlatformOptions &options,
                                     llvm::ArrayRef<TieMask> routes) {
  // Without a problem, every rank takes part.
  std::vector<RankId> members;
  if (problem) {
    members = problem->members();
  } else {
    for (RankId r = 0; r < topo.numRanks(); ++r)
      members.push_back(r);
  }
  const bool relaying = problem && problem->chunkSpec();
  SimulatedMachine machine(topo, options);
  std::optional<Schedule> rerouted;
  return machine.costModel()
      .machineTime(onPlatformRoutes(topo, schedule, routes, rerouted),
                   members, relaying)
      .total();
}

std::vector<double> simgrid::predictPhaseTimes(const Topology &topo,
                                               const Problem *problem,
                                               const Schedule &schedule,
                                               const PlatformOptions &options,
                                               llvm::ArrayRef<TieMask> routes) {
  SimulatedMachine machine(topo, options);
  std::vector<double> out;
  std::optional<Schedule> rerouted;
  for (const MachineTime &t : machine.costModel().phaseMachineTimes(
           onPlatformRoutes(topo, schedule, routes, rerouted),
           problem && problem->chunkSpec()))
    out.push_back(t.total());
  return out;
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

/// The first line of `path` that says why SMPI or the program stopped
/// (CRITICAL, error, Assertion, ...), for a failed built-in's row.
std::string firstErrorLine(StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return "";
  for (StringRef line : llvm::split((*buf)->getBuffer(), '\n')) {
    if (line.contains("CRITICAL") || line.contains("rror") ||
        line.contains("ssertion") || line.contains("egmentation") ||
        line.contains("wrong")) {
      size_t at = line.find("] ");
      StringRef text = line.trim();
      if (at != StringRef::npos && text.starts_with("["))
        text = line.substr(at + 2).trim();
      return text.take_front(160).str();
    }
  }
  return "";
}

/// Parses PHASEC_SIM_TIME / PHASEC_SIM_PHASE / PHASEC_SIM_VERIFIED lines.
bool parseOutput(StringRef path, VariantResult &v, int64_t *wrong = nullptr) {
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
    } else if (parts.size() == 2 && parts[0] == "PHASEC_SIM_VERIFIED" &&
               wrong) {
      if (parts[1].getAsInteger(10, *wrong))
        *wrong = -1;
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

/// Whether `collective` is one of the MPI calls phasec's kinds are
/// generated as (a traits row's MPI name, without "MPI_").
static bool isGeneratedCall(StringRef collective) {
  for (const CollectiveTraits &t : getAllTraits())
    if (t.mpiName &&
        StringRef(t.mpiName).drop_front(4).equals_insensitive(collective))
      return true;
  return false;
}

llvm::ArrayRef<const char *>
simgrid::collectiveBuiltins(StringRef collective) {
  // SimGrid 3.32's lists (src/smpi/colls/smpi_coll.cpp; smpirun prints them
  // for --cfg=smpi/<collective>:x), in its order.
  static const char *const bcast[] = {
      "default", "arrival_pattern_aware", "arrival_pattern_aware_wait",
      "arrival_scatter", "binomial_tree", "flattree", "flattree_pipeline",
      "NTSB", "NTSL", "NTSL_Isend", "scatter_LR_allgather",
      "scatter_rdb_allgather", "SMP_binary", "SMP_binomial", "SMP_linear",
      "ompi", "ompi_split_bintree", "ompi_pipeline", "mpich", "mvapich2",
      "mvapich2_inter_node", "mvapich2_intra_node",
      "mvapich2_knomial_intra_node", "impi", "automatic"};
  static const char *const allreduce[] = {
      "default", "lr", "rab1", "rab2", "rab_rdb", "rdb", "smp_binomial",
      "smp_binomial_pipeline", "smp_rdb", "smp_rsag", "smp_rsag_lr",
      "smp_rsag_rab", "redbcast", "ompi", "ompi_ring_segmented", "mpich",
      "mvapich2", "mvapich2_rs", "mvapich2_two_level", "impi", "rab",
      "automatic"};
  static const char *const reduce[] = {
      "default", "arrival_pattern_aware", "binomial", "flat_tree", "NTSL",
      "scatter_gather", "ompi", "ompi_chain", "ompi_pipeline",
      "ompi_basic_linear", "ompi_in_order_binary", "ompi_binary",
      "ompi_binomial", "mpich", "mvapich2", "mvapich2_knomial",
      "mvapich2_two_level", "impi", "rab", "automatic"};
  static const char *const allgather[] = {
      "default", "2dmesh", "3dmesh", "bruck", "GB", "loosely_lr", "NTSLR",
      "NTSLR_NB", "pair", "rdb", "rhv", "ring", "SMP_NTS", "smp_simple",
      "spreading_simple", "ompi", "ompi_neighborexchange", "mvapich2",
      "mvapich2_smp", "mpich", "impi", "automatic"};
  static const char *const reduceScatter[] = {
      "default", "ompi", "ompi_basic_recursivehalving", "ompi_ring",
      "ompi_butterfly", "mpich", "mpich_pair", "mpich_rdb", "mpich_noncomm",
      "mvapich2", "impi", "automatic"};
  static const char *const gather[] = {
      "default", "ompi", "ompi_basic_linear", "ompi_binomial",
      "ompi_linear_sync", "mpich", "mvapich2", "mvapich2_two_level", "impi",
      "automatic"};
  static const char *const scatter[] = {
      "default", "ompi", "ompi_basic_linear", "ompi_linear_nb",
      "ompi_binomial", "mpich", "mvapich2", "mvapich2_two_level_binomial",
      "mvapich2_two_level_direct", "impi", "automatic"};
  static const char *const barrier[] = {
      "default", "ompi", "ompi_basic_linear", "ompi_two_procs", "ompi_tree",
      "ompi_bruck", "ompi_recursivedoubling", "ompi_doublering", "mpich_smp",
      "mpich", "mvapich2_pair", "mvapich2", "impi", "automatic"};
  static const char *const alltoall[] = {
      "default", "2dmesh", "3dmesh", "basic_linear", "bruck", "pair",
      "pair_rma", "pair_light_barrier", "pair_mpi_barrier",
      "pair_one_barrier", "rdb", "ring", "ring_light_barrier",
      "ring_mpi_barrier", "ring_one_barrier", "mvapich2",
      "mvapich2_scatter_dest", "ompi", "mpich", "impi", "automatic"};
  static const char *const alltoallv[] = {
      "default", "bruck", "pair", "pair_light_barrier", "pair_mpi_barrier",
      "pair_one_barrier", "ring", "ring_light_barrier", "ring_mpi_barrier",
      "ring_one_barrier", "ompi", "mpich", "ompi_basic_linear", "mvapich2",
      "impi", "automatic"};
  static const char *const single[] = {"default"};
  return llvm::StringSwitch<llvm::ArrayRef<const char *>>(collective)
      .Case("bcast", bcast)
      .Case("allreduce", allreduce)
      .Case("reduce", reduce)
      .Case("allgather", allgather)
      .Case("reduce_scatter", reduceScatter)
      .Case("gather", gather)
      .Case("scatter", scatter)
      .Case("barrier", barrier)
      .Case("alltoall", alltoall)
      .Case("alltoallv", alltoallv)
      .Default(isGeneratedCall(collective) ? llvm::ArrayRef(single)
                                           : llvm::ArrayRef<const char *>());
}

std::string simgrid::builtinSkipReason(StringRef algorithm) {
  if (algorithm == "automatic")
    return "SMPI's selector benchmark: runs every other algorithm inside "
           "each call (not an algorithm)";
  return "";
}

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
  result.totalBytes = request.relay ? request.relay->dataBytes
                                    : request.transfers->totalBytes();
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
  if (request.relay)
    schedules.resize(1); // no baselines: they are all-to-all schedulers
  const BuiltinCall &call =
      request.relay ? request.relay->builtin : request.builtin;
  if (failed(emitSimGrid(topo, *request.transfers, schedules, request.platform,
                         workDir, result.platform, error, request.relay,
                         &call))) {
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
  log << "[sim] built libplatform.so and "
      << (request.relay ? "relay, coll"
                        : (call.viaColl ? "program, coll" : "program"))
      << " ("
      << llvm::format("%.1f", wall) << " s)\n";

  struct Job {
    std::string name, kind, platform;
  };
  std::vector<Job> jobs;
  for (const NamedSchedule &s : schedules)
    jobs.push_back({s.name, request.relay ? "relay" : "phased", "phasec"});
  for (const std::string &b : request.builtins)
    jobs.push_back({b, "builtin", "phasec"});
  bool hasStock = !request.relay &&
                  llvm::sys::fs::exists(path(workDir, "stock-torus.xml"));
  if (hasStock)
    for (const std::string &b : request.stockBuiltins)
      jobs.push_back({b, "builtin", "stock"});

  for (size_t j = 0; j < jobs.size(); ++j) {
    const Job &job = jobs[j];
    VariantResult v;
    v.name = job.name;
    v.kind = job.kind;
    v.platform = job.platform;
    if (job.kind == "builtin")
      v.setting = call.settingFor(job.name);
    const Schedule *sched = nullptr;
    if (job.kind == "phased" || job.kind == "relay") {
      sched = schedules[j].schedule;
      // Every phased schedule runs on its own platform routes, one per
      // pair (emitSimGrid).
      v.modelTime = predictSimulatedTime(topo, request.problem, *sched,
                                         request.platform,
                                         buildTieTable(topo, *sched));
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
    if (job.kind == "builtin") {
      std::string reason = !call.notApplicable.empty()
                               ? call.notApplicable
                               : builtinSkipReason(job.name);
      if (!reason.empty()) {
        v.status = SimulationStatus::Skipped;
        v.note = reason;
        log << "[sim] " << job.platform << "/" << job.name << ": skipped\n";
        result.variants.push_back(std::move(v));
        continue;
      }
    }
    // Only program.c's MPI_Alltoall[v] mode runs on shared, unchecked
    // buffers (so that 512 ranks fit in memory).
    bool mustVerify = job.kind != "builtin" || call.viaColl;
    std::string tag = job.platform + "-" + job.kind + "-" + job.name;
    std::string out = path(workDir, "out-" + tag + ".txt");
    std::string err = path(workDir, "err-" + tag + ".txt");
    std::vector<std::string> args;
    if (job.kind == "relay") {
      args.push_back("relay");
    } else {
      args.push_back(job.kind == "phased"
                         ? "phased"
                         : (job.platform == "stock" ? "stock" : "builtin"));
      args.push_back(job.name);
    }
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
    } else if (int64_t wrong = mustVerify ? -1 : 0;
               rc != 0 || !parseOutput(out, v, &wrong) || wrong != 0) {
      // Every program that can verify must also say that it verified every
      // byte or element (PHASEC_SIM_VERIFIED 0).
      v.status = SimulationStatus::Failed;
      v.note = "exit code " + std::to_string(rc) +
               (error.empty() ? "" : ": " + error);
      if (wrong > 0)
        v.note += ": " + std::to_string(wrong) + " wrong bytes/elements";
      else if (rc == 0 && wrong < 0)
        v.note += ": no PHASEC_SIM_VERIFIED line";
      else if (std::string why = firstErrorLine(err); !why.empty())
        v.note += ": " + why;
      log << "[sim] " << job.platform << "/" << job.name
          << ": failed (exit code " << rc << ")\n"
          << tail(err);
    } else {
      v.status = SimulationStatus::Ok;
      v.verified = mustVerify;
      if (v.verified)
        v.note = "verified";
      if (job.kind != "builtin" && request.platform.sync != SyncKind::Barrier)
        v.note = "sync " + stringifySyncKind(request.platform.sync).str() +
                 "; " + v.note;
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
    static const int widths[] = {-22, -8, -7, 13, 11, 7, 13, 8, -30, 0};
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
       "model[s]", "wall[s]", "built-in", "note"});
  for (const VariantResult &v : result.variants) {
    std::string wall = llvm::formatv("{0:f1}", v.wallSeconds).str();
    std::string setting = v.setting.empty() ? "-" : v.setting;
    if (v.status != SimulationStatus::Ok) {
      row({v.name, v.platform, v.kind,
           stringifySimulationStatus(v.status).str(), "-", "-", "-", wall,
           setting, v.note});
      continue;
    }
    double eff = v.simTime > 0 ? result.totalBytes / v.simTime : 0;
    double pct = v.simTime > 0 ? 100.0 * result.boundTime / v.simTime : 0;
    std::string note = v.note;
    bool scheduled = v.kind == "phased" || v.kind == "relay";
    if (scheduled)
      note = std::to_string(v.numPhases) + " phases" +
             (note.empty() ? "" : "; " + note);
    // SimGrid's stock TORUS is another machine (its own routes): the bound
    // of this one does not measure it.
    bool stock = v.platform == "stock";
    if (stock)
      note = "another machine (SimGrid's stock TORUS)" +
             (note.empty() ? "" : "; " + note);
    row({v.name, v.platform, v.kind, llvm::formatv("{0:e4}", v.simTime).str(),
         llvm::formatv("{0:e3}", eff).str(),
         stock ? std::string("-") : llvm::formatv("{0:f1}%", pct).str(),
         scheduled ? llvm::formatv("{0:e4}", v.modelTime).str()
                   : std::string("-"),
         wall, setting, note});
  }
}
