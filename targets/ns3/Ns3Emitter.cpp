//===- Ns3Emitter.cpp - `--emit=ns3`: scenario and program directories ----===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// The program is generic (support/, embedded here); what is specific to an
// operation is the scenario it reads: the machine's directed links, every
// message with the route phasec chose, and the variants. A message is a
// transfer between two nodes: transfers between ranks of one node never
// touch the network and are left out (counted in the scenario's header).
//
//===----------------------------------------------------------------------===//

#include "phasec/Target/Ns3/Ns3Target.h"

#include "phasec/Core/UserFiles.h"
#include "phasec/Scheduling/Baselines.h"
#include "phasec/Scheduling/Registry.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <thread>

#include <signal.h>

using namespace phasec;
using namespace phasec::ns3target;

namespace {

#include "EmbeddedSources.inc"

/// The T3D's payload (seed 000: "short messages: 32 bytes pay load").
constexpr int64_t kDefaultPayload = 32;
/// Where neither the machine nor the options say: the route header alone,
/// and buffers of two packets per virtual channel (small, as the T3D's).
constexpr int64_t kDefaultHeader = TopologyDesc::kMinPacketHeader,
                  kDefaultBuffer = TopologyDesc::kDefaultRouterBuffer;

struct Variant {
  std::string name;
  const Schedule *schedule;
  /// The scenario's mode: phased, posted, ordered or stepped
  /// (phasec_ns3_net.h).
  const char *mode;
  /// Whether later phases forward what earlier ones delivered (a relaying
  /// operation, the ring, Bruck's): the model charges no contention term.
  bool relays = false;
  /// A relay run without sync: a node waits per step (relaySteps), the
  /// scenario's phase numbers are the steps'.
  bool bySteps = false;
};

/// What the scenario and the table both say of an operation's network.
struct Network {
  int64_t payload;
  /// Header bytes per packet, packets per router buffer and VC.
  int64_t header;
  int64_t buffer;
  /// Seconds per hop beyond serialisation.
  double hopLatency;
  /// One barrier among the operation's members (what phased variants pay
  /// per phase).
  double barrier;
};

/// The cost model's expectation of a variant on the packet network
/// (CostModel::executionTime), the scenario's `mode` read as its Execution.
double predictTime(const Problem &problem, const Schedule &schedule,
                   const char *mode, bool relays, bool bySteps,
                   const Network &net) {
  using Execution = CostModel::Execution;
  Execution execution = llvm::StringSwitch<Execution>(mode)
                            .Case("phased", Execution::Phased)
                            .Case("stepped", Execution::Stepped)
                            .Case("ordered", Execution::Ordered)
                            .Default(Execution::Posted);
  CostModel::PacketNetwork packets;
  packets.payload = net.payload;
  packets.header = net.header;
  packets.buffer = net.buffer;
  packets.hopLatency = net.hopLatency;
  return problem.costModel().executionTime(
      schedule, execution,
      double(net.payload + net.header) / double(net.payload), net.barrier,
      &packets, relays, bySteps);
}

/// Whether link `l` closes its ring: the "+" link out of the last
/// coordinate or the "-" link out of the first (the datelines).
bool isDateline(const Topology &topo, LinkId l) {
  const Link &link = topo.link(l);
  if (topo.kind() != TopologyKind::Torus || link.dim < 0)
    return false;
  int64_t k = topo.extent(link.dim), c = topo.coord(link.src, link.dim);
  return link.dir > 0 ? c == k - 1 : c == 0;
}

/// The NIC's rate: the machine's injection bandwidth, or where it has none
/// the bandwidth of all links out of the best-connected node (a NIC that
/// can feed every link at once).
double nicBandwidth(const Topology &topo) {
  double inj = topo.desc().injectionBandwidth;
  if (inj > 0)
    return inj;
  std::vector<double> out(topo.numNodes(), 0);
  for (const Link &l : topo.links())
    out[l.src] += l.bandwidth;
  return *std::max_element(out.begin(), out.end());
}

void writeScenario(llvm::raw_ostream &os, const Ns3Operation &op,
                   llvm::ArrayRef<Variant> variants, const Ns3Options &options,
                   const Network &net, int64_t &messages, int64_t &local,
                   std::vector<double> &work) {
  const Topology &topo = *op.topology;
  const Problem &problem = *op.problem;
  bool percs = topo.isPercs();
  // Routes of at most this many links: PERCS's VCs go by hop.
  size_t longest = 1;
  os << "phasec-ns3-scenario 1\n"
     << "# operation " << op.name << " on " << topo.desc().str() << "\n"
     << "nodes " << topo.numNodes() << "\n";
  for (LinkId l = 0; l < static_cast<LinkId>(topo.numLinks()); ++l) {
    const Link &link = topo.link(l);
    os << "link " << l << " " << link.src << " " << link.dst << " "
       << formatShortestDouble(link.bandwidth) << " "
       << formatShortestDouble(net.hopLatency) << " "
       << static_cast<int>(link.dim) << " " << (isDateline(topo, l) ? 1 : 0)
       << "\n";
  }
  os << "nic " << formatShortestDouble(nicBandwidth(topo)) << "\n"
     << "packet " << net.payload << " " << net.header << "\n"
     << "buffer " << net.buffer << "\n"
     << "links " << (options.directLinks ? "direct" : "p2p") << "\n";
  if (topo.desc().setupCost > 0)
    os << "setup " << formatShortestDouble(topo.desc().setupCost) << "\n";
  os << "barrier " << formatShortestDouble(net.barrier) << "\n"
     << "bound " << formatShortestDouble(problem.bound().time) << "\n";
  std::string body;
  llvm::raw_string_ostream bs(body);
  llvm::SmallVector<LinkId, 32> route;
  messages = local = 0;
  work.clear();
  for (const Variant &v : variants) {
    bs << "variant " << v.name << " " << v.mode << "\n";
    // The simulation's work: its bytes times their hops (and injection).
    double &hops = work.emplace_back(0);
    PhaseReader read(topo, *v.schedule);
    // By steps, a step's messages are one scenario phase, in phase order.
    std::vector<size_t> numbers(read.size());
    std::iota(numbers.begin(), numbers.end(), 0);
    if (v.bySteps) {
      std::vector<size_t> steps = relaySteps(*v.schedule);
      for (size_t s = 0; s + 1 < steps.size(); ++s)
        for (size_t j = steps[s]; j < steps[s + 1]; ++j)
          numbers[j] = s;
    }
    // A relay's NICs send in the order its code posts (sendOrder).
    std::vector<RankId> members;
    if (v.relays)
      members = problem.members();
    std::vector<size_t> order;
    for (size_t j = 0; j < read.size(); ++j) {
      if (v.relays) {
        order = sendOrder(read[j], members);
      } else {
        order.resize(read[j].transfers.size());
        std::iota(order.begin(), order.end(), 0);
      }
      for (size_t i : order) {
        const Transfer &t = read[j].transfers[i];
        NodeId s = topo.nodeOfRank(t.src), d = topo.nodeOfRank(t.dst);
        if (s == d) {
          ++local;
          continue;
        }
        topo.route(s, d, t.ties, route);
        longest = std::max(longest, route.size());
        hops += double(t.bytes) * double(route.size() + 1);
        bs << "msg " << numbers[j] << " " << s << " " << d << " " << t.bytes;
        for (LinkId l : route)
          bs << " " << l;
        bs << "\n";
        ++messages;
      }
    }
  }
  if (percs)
    os << "vcs " << longest << "\nvcpolicy hop\n";
  else
    os << "vcs 2\nvcpolicy dateline\n";
  os << "# " << messages << " messages in " << variants.size() << " variants; "
     << local << " transfers inside a node are not simulated\n"
     << body << "end\n";
}

/// The report: summary.csv (the table) and report.py beside the traces
/// phasec-ns3 wrote, then report.py draws index.html.
llvm::LogicalResult writeReport(const Ns3Operation &op, llvm::StringRef dir,
                                llvm::StringRef summary, llvm::raw_ostream &out,
                                llvm::raw_ostream &diag) {
  for (auto [name, text] :
       {std::pair<const char *, llvm::StringRef>{"summary.csv", summary},
        {"report.py", kReportScript}}) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, name);
    if (std::error_code ec = writeFileReplacing(
            path, [&](llvm::raw_ostream &os) { os << text; })) {
      diag << "error: cannot write " << path << ": " << ec.message() << "\n";
      return llvm::failure();
    }
  }
  // CMake's Python3_EXECUTABLE, else python3 on PATH.
  llvm::ErrorOr<std::string> python = findPython3(PHASEC_PYTHON3);
  if (!python) {
    diag << "error: " << op.name << ": python3 not found to draw the report; "
         << "its CSVs are in " << dir << "\n";
    return llvm::failure();
  }
  llvm::SmallString<256> script(dir);
  llvm::sys::path::append(script, "report.py");
  std::string title =
      op.name + " on " + op.topology->desc().str() + ": ns-3 packet level";
  llvm::StringRef args[] = {*python, script, "--dir", dir, "--title", title};
  std::string error;
  int rc =
      llvm::sys::ExecuteAndWait(*python, args, std::nullopt, {}, 0, 0, &error);
  if (rc != 0) {
    diag << "error: " << op.name << ": report.py failed (exit " << rc << ")"
         << (error.empty() ? "" : ": " + error) << "\n";
    return llvm::failure();
  }
  out << op.name << ": report " << dir << "/index.html\n";
  return llvm::success();
}

/// Runs phasec-ns3 on the scenario in `dir` (its output in ns3.out and
/// ns3.err there) and prints the table.
llvm::LogicalResult
runScenario(const Ns3Operation &op, llvm::ArrayRef<Variant> variants,
            const Ns3Options &options, llvm::StringRef simulator,
            llvm::StringRef dir, llvm::StringRef reportDir,
            llvm::ArrayRef<double> work, const Network &net,
            llvm::raw_ostream &out, llvm::raw_ostream &diag) {
  auto inDir = [&](llvm::StringRef name) {
    llvm::SmallString<256> p(dir);
    llvm::sys::path::append(p, name);
    return std::string(p);
  };
  std::string scenario = inDir("scenario.txt"), outFile = inDir("ns3.out");
  // A previous run's outputs would be read as this one's.
  for (int k = 0; k <= kMaxJobs; ++k) {
    std::string suffix = k ? "." + std::to_string(k) : "";
    llvm::sys::fs::remove(inDir("ns3" + suffix + ".out"));
    llvm::sys::fs::remove(inDir("ns3" + suffix + ".err"));
  }
  if (!reportDir.empty()) {
    auto inReport = [&](const std::string &name) {
      llvm::SmallString<256> p(reportDir);
      llvm::sys::path::append(p, name);
      llvm::sys::fs::remove(p);
    };
    // A previous run's variants, and --compare's candidates by name.
    std::vector<std::string> names(variantNames().begin(),
                                   variantNames().end());
    for (const Variant &v : variants)
      names.push_back(v.name);
    for (const std::string &name : names)
      for (const char *kind : {".routes.csv", ".phases.csv", ".links.csv"})
        inReport(name + kind);
    for (const char *name :
         {"summary.csv", "report.py", "index.html", "bound.png", "routes.png",
          "phases.png", "links.png"})
      inReport(name);
  }
  // Variants are independent simulations: `jobs` processes share them,
  // each writing its own output; the largest variant first to the job
  // with the least work so far (the ring's relaying moves 30x the bytes).
  int jobs =
      std::max(1, std::min(options.jobs, static_cast<int>(variants.size())));
  struct Job {
    std::vector<std::string> args;
    std::string out, err;
    llvm::sys::ProcessInfo process;
  };
  std::vector<Job> running(jobs);
  std::vector<std::vector<size_t>> share(jobs);
  {
    std::vector<size_t> order(variants.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return work[a] > work[b]; });
    // Ties (variants without network work) go to the job with fewer.
    std::vector<std::pair<double, size_t>> load(jobs, {0.0, 0});
    for (size_t i : order) {
      size_t k = std::min_element(load.begin(), load.end()) - load.begin();
      load[k].first += work[i];
      ++load[k].second;
      share[k].push_back(i);
    }
  }
  for (int k = 0; k < jobs; ++k) {
    Job &job = running[k];
    job.args = {std::string(simulator)};
    if (!reportDir.empty())
      job.args.insert(job.args.end(), {"--trace", std::string(reportDir)});
    job.args.push_back(scenario);
    if (jobs > 1)
      for (size_t i : share[k])
        job.args.push_back(variants[i].name);
    std::string suffix = jobs > 1 ? "." + std::to_string(k + 1) : "";
    job.out = inDir("ns3" + suffix + ".out");
    job.err = inDir("ns3" + suffix + ".err");
  }
  std::string error;
  bool launchFailed = false;
  for (Job &job : running) {
    std::optional<llvm::StringRef> redirects[3] = {llvm::StringRef(""),
                                                   llvm::StringRef(job.out),
                                                   llvm::StringRef(job.err)};
    std::vector<llvm::StringRef> args(job.args.begin(), job.args.end());
    bool executionFailed = false;
    job.process = llvm::sys::ExecuteNoWait(
        simulator, args, std::nullopt, redirects, 0, &error, &executionFailed);
    if (executionFailed ||
        job.process.Pid == llvm::sys::ProcessInfo::InvalidPid)
      launchFailed = true;
    if (launchFailed)
      break;
  }
  // Every started process is reaped as it ends; the first failure (or a
  // launch that failed) stops the others, which could run for minutes.
  std::string failure;
  if (launchFailed)
    failure = "cannot run " + std::string(simulator) + ": " + error;
  auto stopOthers = [&] {
    for (Job &other : running)
      if (other.process.Pid != llvm::sys::ProcessInfo::InvalidPid &&
          other.process.Pid != 0)
        ::kill(other.process.Pid, SIGTERM);
  };
  if (!failure.empty())
    stopOthers();
  auto started = [](const Job &job) {
    return job.process.Pid != llvm::sys::ProcessInfo::InvalidPid;
  };
  for (size_t left = llvm::count_if(running, started); left > 0;) {
    bool ended = false;
    for (Job &job : running) {
      if (!started(job))
        continue;
      std::string waitError;
      llvm::sys::ProcessInfo done =
          llvm::sys::Wait(job.process, /*SecondsToWait=*/0, &waitError, nullptr,
                          /*Polling=*/true);
      if (done.Pid == 0)
        continue;
      job.process.Pid = llvm::sys::ProcessInfo::InvalidPid;
      --left;
      ended = true;
      if (!failure.empty())
        continue;
      if (done.ReturnCode < 0) {
        failure = "cannot run " + std::string(simulator) + ": " +
                  (waitError.empty() ? "it crashed" : waitError);
      } else if (done.ReturnCode != 0) {
        failure = "the ns-3 simulation failed (exit " +
                  std::to_string(done.ReturnCode) + "; " + job.err + ")";
        auto errText = llvm::MemoryBuffer::getFile(job.err);
        if (errText && !(*errText)->getBuffer().empty())
          failure += ":\n" + escapeForTerminal((*errText)->getBuffer().rtrim());
      }
      if (!failure.empty())
        stopOthers();
    }
    if (!ended)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!failure.empty()) {
    diag << "error: " << op.name << ": " << failure << "\n";
    return llvm::failure();
  }
  // "variant NAME time S bound_pct P ..." per variant; the jobs' outputs
  // are joined into ns3.out (and ns3.err).
  llvm::StringMap<double> simulated;
  std::string joinedOut, joinedErr;
  for (Job &job : running) {
    auto text = llvm::MemoryBuffer::getFile(job.out);
    if (!text) {
      diag << "error: cannot read " << job.out << "\n";
      return llvm::failure();
    }
    llvm::StringRef buffer = (*text)->getBuffer();
    llvm::SmallVector<llvm::StringRef, 64> lines, words;
    buffer.split(lines, '\n', -1, false);
    for (llvm::StringRef line : lines) {
      words.clear();
      line.split(words, ' ', -1, false);
      if (words.size() >= 4 && words[0] == "variant" && words[2] == "time")
        words[3].getAsDouble(simulated[words[1]]);
    }
    if (jobs == 1)
      break;
    joinedOut += buffer;
    if (auto err = llvm::MemoryBuffer::getFile(job.err))
      joinedErr += (*err)->getBuffer();
  }
  if (jobs > 1) {
    for (auto [name, text] :
         {std::pair<const char *, std::string *>{"ns3.out", &joinedOut},
          {"ns3.err", &joinedErr}}) {
      std::string path = inDir(name);
      if (std::error_code ec = writeFileReplacing(
              path, [&](llvm::raw_ostream &os) { os << *text; })) {
        diag << "error: cannot write " << path << ": " << ec.message() << "\n";
        return llvm::failure();
      }
    }
    for (Job &job : running) {
      llvm::sys::fs::remove(job.out);
      llvm::sys::fs::remove(job.err);
    }
  }
  const Problem &problem = *op.problem;
  double bound = problem.bound().time;
  out << op.name << ": ns-3, " << net.payload << " B packets + " << net.header
      << " B header, " << net.buffer << "-packet buffers, "
      << llvm::formatv("{0:e2}", net.hopLatency) << " s per hop; bound "
      << llvm::formatv("{0:e4}", bound) << " s\n";
  // --compare's candidates have long names: the column fits them.
  size_t width = 14;
  for (const Variant &v : variants)
    width = std::max(width, v.name.size());
  auto name = [&](llvm::StringRef s) {
    return (s + std::string(width - std::min(width, s.size()), ' ')).str();
  };
  out << llvm::formatv("  {0} {1,-8} {2,13} {3,11} {4,9} {5,13} {6,10}\n",
                       name("variant"), "mode", "simulated (s)", "% of bound",
                       "/ phasec", "model (s)", "sim/model");
  double ours = simulated.lookup("phasec");
  std::string summary = "variant,mode,simulated_s,bound_pct,vs_phasec,model_s,"
                        "sim_over_model\n";
  for (const Variant &v : variants) {
    auto it = simulated.find(v.name);
    if (it == simulated.end()) {
      diag << "error: " << op.name << ": no result for variant " << v.name
           << " in " << outFile << "\n";
      return llvm::failure();
    }
    double t = it->second;
    double model =
        predictTime(problem, *v.schedule, v.mode, v.relays, v.bySteps, net);
    // Without phasec's own run there is nothing to divide by.
    std::string relative =
        ours > 0 ? llvm::formatv("{0:f3}", t / ours).str() : "-";
    double pct = t > 0 ? 100 * bound / t : 0;
    double vsModel = model > 0 ? t / model : 0;
    out << llvm::formatv(
        "  {0} {1,-8} {2,13:e4} {3,11:f2} {4,9} {5,13:e4} {6,10:f3}\n",
        name(v.name), v.mode, t, pct, relative, model, vsModel);
    summary += llvm::formatv("{0},{1},{2:e4},{3:f2},{4},{5:e4},{6:f3}\n",
                             v.name, v.mode, t, pct, relative, model, vsModel)
                   .str();
  }
  out << op.name
      << ": no packet dropped, no buffer overflowed, every "
         "message delivered\n";
  if (reportDir.empty())
    return llvm::success();
  return writeReport(op, reportDir, summary, out, diag);
}

} // namespace

llvm::ArrayRef<const char *> ns3target::variantNames() {
  static const char *const names[] = {
      "phasec", "ordered", "loop", "posted", "linear_shift", "pairwise",
      "xor",    "greedy",  "ring", "bruck",  "local"};
  return names;
}

llvm::LogicalResult ns3target::emitNs3(llvm::ArrayRef<Ns3Operation> operations,
                                       const Ns3Options &options,
                                       llvm::raw_ostream &out,
                                       llvm::raw_ostream &diag) {
  if (operations.empty()) {
    diag << "error: no operation to simulate\n";
    return llvm::failure();
  }
  std::string outDir = options.outDir;
  if (outDir.empty() && !options.run) {
    diag << "error: --emit=ns3 writes a directory: give it with -o DIR\n";
    return llvm::failure();
  }
  if (outDir.empty() &&
      (outDir = createOutputDirectory("phasec-ns3", diag)).empty())
    return llvm::failure();
  std::string simulator = options.simulator;
  if (options.run && simulator.empty()) {
    llvm::ErrorOr<std::string> found =
        llvm::sys::findProgramByName("phasec-ns3");
    if (!found) {
      diag << "error: --target=ns3 runs phasec-ns3, which is not on PATH "
              "(it is built and installed beside phasec)\n";
      return llvm::failure();
    }
    simulator = *found;
  }
  for (const Ns3Operation &op : operations) {
    const Topology &topo = *op.topology;
    Network net;
    net.payload = topo.desc().packetLength > 0 ? topo.desc().packetLength
                                               : kDefaultPayload;
    net.header = options.headerBytes > 0        ? options.headerBytes
                 : topo.desc().packetHeader > 0 ? topo.desc().packetHeader
                                                : kDefaultHeader;
    net.buffer = options.bufferPackets > 0      ? options.bufferPackets
                 : topo.desc().routerBuffer > 0 ? topo.desc().routerBuffer
                                                : kDefaultBuffer;
    net.hopLatency =
        options.hopLatency >= 0 ? options.hopLatency : topo.desc().linkLatency;
    // The barrier among the ranks that synchronise between phases (the
    // operation's, as the SimGrid predictor charges it).
    net.barrier = op.problem->costModel().barrierTime(op.problem->members());
    if (net.payload + net.header > 65000) {
      diag << "error: " << op.name << ": packets of " << net.payload << " + "
           << net.header
           << " bytes: the ns-3 network carries at most 65000 per packet\n";
      return llvm::failure();
    }
    // The variants: phasec's schedule as its code runs it (phases with
    // barriers, or sync = none: in phase order without), the same messages
    // in phase order without barriers, in seed 000's conventional loop
    // through the destinations, all posted at once (the NIC interleaves
    // them), the baselines with barriers, and the linear shift's steps as
    // MPI's pairwise exchange runs them. Only those asked for.
    // A relaying schedule forwards chunks: only phasec's own variant keeps
    // every forward after its arrival (the others are all-to-all exchanges
    // of the demands, sent at once or in another order).
    const bool relayOp = op.problem->chunkSpec() != nullptr;
    auto wanted = [&](llvm::StringRef name) {
      if (relayOp && name != "phasec")
        return false;
      return options.variants.empty() ||
             llvm::is_contained(options.variants, name);
    };
    std::vector<Variant> variants;
    if (relayOp) {
      if (!wanted("phasec")) {
        diag << "error: " << op.name
             << ": a relaying operation runs only the 'phasec' variant\n";
        return llvm::failure();
      }
      for (llvm::StringRef name : options.variants)
        if (name != "phasec")
          diag << "note: " << op.name << ": variant '" << name
               << "' skipped: a relaying operation runs only 'phasec'\n";
    }
    // Phasec's schedule as its code runs it: a relay without barriers
    // forwards as its data arrives (stepped), without any sync step by
    // step.
    if (wanted("phasec"))
      variants.push_back({"phasec", op.schedule,
                          op.sync == SyncKind::Barrier            ? "phased"
                          : relayOp || op.sync == SyncKind::Local ? "stepped"
                                                                  : "ordered",
                          relayOp, relayOp && op.sync == SyncKind::None});
    if (op.sync == SyncKind::Barrier && wanted("ordered"))
      variants.push_back({"ordered", op.schedule, "ordered"});
    Schedule loop;
    if (wanted("loop")) {
      loop = scheduleLoop(*op.problem, *op.schedule);
      variants.push_back({"loop", &loop, "ordered"});
    }
    // Posted at once, the pairs take the routes that spread the exchange
    // (atOnceRoutes), as the model and the SimGrid platform route them; in
    // phase order (ordered, phasec's variant without barriers) the phases'
    // own routes keep each phase congestion-free.
    std::optional<Schedule> postedRoutes;
    if (wanted("posted")) {
      postedRoutes = atOnceRoutes(op.problem->topology(), *op.schedule);
      variants.push_back(
          {"posted", postedRoutes ? &*postedRoutes : op.schedule, "posted"});
    }
    std::vector<Schedule> baselines(options.baselines.size());
    for (size_t i = 0; i < options.baselines.size(); ++i) {
      llvm::StringRef name = options.baselines[i];
      bool pairwise = name == "linear_shift" && wanted("pairwise");
      if (!wanted(name) && !pairwise)
        continue;
      std::string error;
      if (failed(runBaseline(name, *op.problem, baselines[i], error))) {
        diag << "note: " << op.name << ": baseline " << name
             << " skipped: " << error << "\n";
        continue;
      }
      if (wanted(name))
        variants.push_back({options.baselines[i], &baselines[i], "phased"});
      // MPI libraries' pairwise exchange: the shift's steps, each a
      // send-receive, no barrier.
      if (pairwise)
        variants.push_back({"pairwise", &baselines[i], "stepped"});
    }
    // The relaying exchanges (a complete all-to-all of uniform blocks).
    std::vector<Schedule> relaying;
    relaying.reserve(2);
    for (const char *kind : {"ring", "bruck"}) {
      if (!wanted(kind))
        continue;
      Schedule s;
      std::string error;
      if (failed(runComparison(kind, *op.problem, *op.schedule, s, error))) {
        diag << "note: " << op.name << ": " << kind << " skipped: " << error
             << "\n";
        continue;
      }
      relaying.push_back(std::move(s));
      variants.push_back({kind, &relaying.back(), "stepped", /*relays=*/true});
    }
    // The sync candidates side by side: phasec's phases under `sync =
    // local` (stepped), beside `phasec` (barriers) and `ordered` (none).
    if (op.sync != SyncKind::Local && wanted("local"))
      variants.push_back({"local", op.schedule, "stepped"});
    // --compare of a relay: what the choice weighed. Its own schedule with
    // barriers, and every other relaying schedule as its code runs without
    // them (stepped: a rank forwards only what has arrived), named as the
    // report names them (one word: spaces become '_').
    if (relayOp && options.compare) {
      if (op.sync != SyncKind::Barrier)
        variants.push_back({"barrier", op.schedule, "phased", true});
      if (op.sync != SyncKind::Local)
        variants.push_back({"local", op.schedule, "stepped", true});
      for (const auto &[name, schedule] : op.candidates) {
        std::string word = name;
        std::replace(word.begin(), word.end(), ' ', '_');
        variants.push_back({word, &schedule, "stepped", true, true});
      }
    }
    if (variants.empty()) {
      diag << "error: " << op.name
           << ": none of the variants asked for applies to it ('ordered' "
              "needs sync = barrier, 'local' a sync other than local, 'ring' "
              "and 'bruck' a complete "
              "all-to-all of equal blocks)\n";
      return llvm::failure();
    }

    llvm::SmallString<256> dir(outDir);
    if (operations.size() > 1)
      llvm::sys::path::append(dir, op.name);
    if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
      diag << "error: cannot create " << dir << ": " << ec.message() << "\n";
      return llvm::failure();
    }
    int64_t messages = 0, local = 0;
    std::vector<double> work;
    auto write = [&](llvm::StringRef name,
                     llvm::function_ref<void(llvm::raw_ostream &)> fn) {
      llvm::SmallString<256> path(dir);
      llvm::sys::path::append(path, name);
      // A link planted in the directory is replaced, never followed.
      if (std::error_code ec = writeFileReplacing(path, fn)) {
        diag << "error: cannot write " << path << ": " << ec.message() << "\n";
        return false;
      }
      return true;
    };
    auto copy = [&](llvm::StringRef name, llvm::StringRef text) {
      return write(name, [&](llvm::raw_ostream &os) { os << text; });
    };
    if (!write("scenario.txt",
               [&](llvm::raw_ostream &os) {
                 writeScenario(os, op, variants, options, net, messages, local,
                               work);
               }) ||
        !copy("phasec_ns3_net.h", kNetHeader) ||
        !copy("phasec_ns3_net.cc", kNetSource) ||
        !copy("phasec_ns3_main.cc", kMainSource) ||
        !copy("CMakeLists.txt", kCMakeLists))
      return llvm::failure();
    out << "wrote " << dir << ": " << topo.numNodes() << " nodes, "
        << topo.numLinks() << " links, " << variants.size() << " variants, "
        << messages << " messages";
    if (local)
      out << " (" << local << " transfers inside a node not simulated)";
    out << "\n";
    std::string reportDir;
    if (options.run && !options.reportDir.empty()) {
      llvm::SmallString<256> r(options.reportDir);
      if (operations.size() > 1)
        llvm::sys::path::append(r, op.name);
      // create_directories accepts an existing file: the simulator's trace
      // would fail only after the directory was written.
      std::error_code ec = llvm::sys::fs::create_directories(r);
      if (!ec && !llvm::sys::fs::is_directory(r))
        ec = std::make_error_code(std::errc::not_a_directory);
      if (ec) {
        diag << "error: cannot create " << r << ": " << ec.message() << "\n";
        return llvm::failure();
      }
      reportDir = std::string(r);
    }
    if (options.run && failed(runScenario(op, variants, options, simulator, dir,
                                          reportDir, work, net, out, diag)))
      return llvm::failure();
  }
  return llvm::success();
}
