//===- SimGridEmitter.cpp - SimGrid platforms with phasec's routes --------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Writes the directory described in SimGrid.h. Everything machine-specific
/// is data (platform.txt, sched-*.bin, run.sh); the C++ platform loader and
/// the MPI program are the same for every machine, so a user can read them
/// once and trust every generated directory.
///
//===----------------------------------------------------------------------===//

#include "phasec/Core/UserFiles.h"
#include "phasec/Target/SimGrid/Runner.h"
#include "phasec/Target/SimGrid/SimGrid.h"

#include "SimGridPrivate.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace phasec;
using namespace phasec::simgrid;

namespace {
#include "EmbeddedSources.inc"
} // namespace

StringRef simgrid::platformSource() { return kPlatformSource; }
StringRef simgrid::programSource() { return kProgramSource; }
StringRef simgrid::reportScript() { return kReportScript; }
StringRef simgrid::collSource() { return kCollSource; }
StringRef simgrid::startHeader() { return kStartHeader; }
StringRef simgrid::runtimeHeader() { return kRuntimeHeader; }
StringRef simgrid::runtimeMPIHeader() { return kRuntimeMPIHeader; }
StringRef simgrid::runtimeCoreSource() { return kRuntimeCoreSource; }
StringRef simgrid::runtimeMPISource() { return kRuntimeMPISource; }

std::vector<TieMask> simgrid::buildTieTable(const Topology &topo,
                                            const Schedule &schedule,
                                            int64_t *conflicts) {
  int64_t ranks = topo.numRanks();
  std::vector<TieMask> ties(static_cast<size_t>(ranks * ranks), 0);
  std::vector<bool> seen(ties.size(), false);
  int64_t numConflicts = 0;
  for (const Phase &phase : schedule.phases) {
    for (const Transfer &t : phase.transfers) {
      if (t.src < 0 || t.dst < 0 || t.src >= ranks || t.dst >= ranks)
        continue;
      size_t idx = static_cast<size_t>(t.src) * ranks + t.dst;
      // Bits of dimensions without a tie do not change the route.
      TieMask mask =
          t.ties & topo.tieMask(topo.nodeOfRank(t.src), topo.nodeOfRank(t.dst));
      if (!seen[idx]) {
        seen[idx] = true;
        ties[idx] = mask;
      } else if (ties[idx] != mask) {
        ++numConflicts;
      }
    }
  }
  if (conflicts)
    *conflicts = numConflicts;
  return ties;
}

void simgrid::writePlatformData(llvm::raw_ostream &os, const Topology &topo,
                                llvm::ArrayRef<TieMask> ties,
                                const PlatformOptions &options,
                                PlatformStats &stats) {
  int64_t ranks = topo.numRanks(), nodes = topo.numNodes();
  double latency =
      options.linkLatency >= 0 ? options.linkLatency : topo.desc().linkLatency;
  double injection = topo.desc().injectionBandwidth;
  double memory = options.memoryBandwidth > 0 ? options.memoryBandwidth
                                              : 1000 * topo.maxBandwidth();

  // Link ids: topology links first (same ids as phasec's LinkId), then per
  // node the injection and ejection ports (if limited), then per node the
  // memory link for node-local transfers.
  int64_t numTopo = static_cast<int64_t>(topo.numLinks());
  int64_t injBase = numTopo;
  int64_t memBase = injBase + (injection > 0 ? 2 * nodes : 0);
  int64_t numLinks = memBase + nodes;

  os << "phasec-simgrid-platform 1\n";
  os << "# " << topo.desc().str() << "\n";
  os << "hosts " << ranks << " speed "
     << formatShortestDouble(options.hostSpeed) << "\n";
  os << "links " << numLinks << "\n";
  for (int64_t id = 0; id < numTopo; ++id) {
    const Link &l = topo.link(static_cast<LinkId>(id));
    os << "L" << id << "_" << stringifyLinkClass(l.cls) << "_" << l.src << "_"
       << l.dst << " " << formatShortestDouble(l.bandwidth) << " "
       << formatShortestDouble(latency) << " S\n";
  }
  if (injection > 0) {
    for (int64_t n = 0; n < nodes; ++n) {
      os << "inj" << n << "_up " << formatShortestDouble(injection) << " 0 S\n";
      os << "inj" << n << "_down " << formatShortestDouble(injection)
         << " 0 S\n";
    }
  }
  for (int64_t n = 0; n < nodes; ++n)
    os << "mem" << n << " " << formatShortestDouble(memory) << " 0 F\n";

  os << "routes " << ranks * ranks << "\n";
  llvm::SmallVector<LinkId, 64> route;
  std::string line;
  for (int64_t s = 0; s < ranks; ++s) {
    NodeId ns = topo.nodeOfRank(static_cast<RankId>(s));
    for (int64_t d = 0; d < ranks; ++d) {
      NodeId nd = topo.nodeOfRank(static_cast<RankId>(d));
      os << s << " " << d << " ";
      if (ns == nd) {
        os << "1 " << memBase + ns << "\n";
        continue;
      }
      topo.route(ns, nd, ties.empty() ? 0 : ties[s * ranks + d], route);
      os << route.size() + (injection > 0 ? 2 : 0);
      if (injection > 0)
        os << " " << injBase + 2 * ns;
      for (LinkId l : route)
        os << " " << l;
      if (injection > 0)
        os << " " << injBase + 2 * nd + 1;
      os << "\n";
    }
  }
  stats.hosts = ranks;
  stats.links = numLinks;
  stats.routes = ranks * ranks;
}

void simgrid::writeScheduleData(llvm::raw_ostream &os, int64_t numRanks,
                                const Schedule &schedule,
                                int64_t uniformBlock) {
  struct Rec {
    int64_t phase, peer, bytes, kind;
  };
  std::vector<std::vector<Rec>> perRank(static_cast<size_t>(numRanks));
  for (size_t k = 0; k < schedule.phases.size(); ++k) {
    for (const Transfer &t : schedule.phases[k].transfers) {
      if (t.src < 0 || t.dst < 0 || t.src >= numRanks || t.dst >= numRanks ||
          t.src == t.dst)
        continue;
      perRank[t.src].push_back({static_cast<int64_t>(k), t.dst, t.bytes, 0});
      perRank[t.dst].push_back({static_cast<int64_t>(k), t.src, t.bytes, 1});
    }
  }
  // Canonical order: by phase, receives before sends (so that a rank posts
  // its receives first), then by peer; stable keeps split transfers in order.
  for (auto &recs : perRank)
    std::stable_sort(recs.begin(), recs.end(), [](const Rec &a, const Rec &b) {
      if (a.phase != b.phase)
        return a.phase < b.phase;
      if (a.kind != b.kind)
        return a.kind > b.kind;
      return a.peer < b.peer;
    });

  auto put = [&](int64_t v) {
    char b[8];
    uint64_t u = static_cast<uint64_t>(v);
    for (int i = 0; i < 8; ++i)
      b[i] = static_cast<char>((u >> (8 * i)) & 0xff);
    os.write(b, 8);
  };
  os.write("PHSIM001", 8);
  put(numRanks);
  put(static_cast<int64_t>(schedule.phases.size()));
  put(uniformBlock);
  int64_t offset = 0;
  for (const auto &recs : perRank) {
    put(offset);
    offset += static_cast<int64_t>(recs.size());
  }
  put(offset);
  for (const auto &recs : perRank)
    for (const Rec &r : recs) {
      put(r.phase);
      put(r.peer);
      put(r.bytes);
      put(r.kind);
    }
}

LogicalResult simgrid::writeStockTorus(llvm::raw_ostream &os,
                                       const Topology &topo,
                                       const PlatformOptions &options,
                                       std::string &error) {
  if (!(topo.kind() == TopologyKind::Torus ||
        topo.kind() == TopologyKind::Hypercube) ||
      topo.ranksPerNode() != 1) {
    error = "SimGrid's stock TORUS platform needs a torus or hypercube with "
            "one rank per node";
    return failure();
  }
  double latency =
      options.linkLatency >= 0 ? options.linkLatency : topo.desc().linkLatency;
  std::string dims;
  for (unsigned d = 0; d < topo.numDims(); ++d)
    dims += (d ? "," : "") + std::to_string(topo.extent(d));
  double memory = options.memoryBandwidth > 0 ? options.memoryBandwidth
                                              : 1000 * topo.maxBandwidth();
  os << "<?xml version='1.0'?>\n"
     << "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
     << "<!-- SimGrid's own TORUS cluster for " << topo.desc().str()
     << ": ties always \"+\", no injection limit. -->\n"
     << "<platform version=\"4.1\">\n"
     << "  <cluster id=\"stock\" topology=\"TORUS\" topo_parameters=\"" << dims
     << "\" prefix=\"rank-\" radical=\"0-" << topo.numNodes() - 1
     << "\" suffix=\"\" speed=\"" << formatShortestDouble(options.hostSpeed)
     << "f\" bw=\"" << formatShortestDouble(topo.desc().linkBandwidth)
     << "Bps\" lat=\"" << formatShortestDouble(latency)
     << "s\" sharing_policy=\"SPLITDUPLEX\""
     << " loopback_bw=\"" << formatShortestDouble(memory)
     << "Bps\" loopback_lat=\"0s\"/>\n"
     << "</platform>\n";
  return success();
}

int64_t simgrid::uniformAlltoallBlock(const Topology &topo,
                                      const TransferSet &transfers) {
  int64_t ranks = topo.numRanks();
  if (ranks < 2 ||
      static_cast<int64_t>(transfers.size()) != ranks * (ranks - 1))
    return 0;
  std::optional<int64_t> block = transfers.uniformBytes();
  return block ? *block : 0;
}

bool BuiltinCall::selectable() const {
  // SimGrid 3.32 has selectors for some calls only (MPI_Scan and
  // MPI_Exscan have none): the others run their one algorithm.
  return collectiveBuiltins(collective).size() > 1;
}

std::string BuiltinCall::settingFor(StringRef algorithm) const {
  if (!selectable()) // the call itself, as MPI spells it
    return "MPI_" + StringRef(collective).take_front(1).upper() +
           StringRef(collective).drop_front(1).str();
  return "smpi/" + collective + ":" + algorithm.str();
}

std::string simgrid::subGroupReason(int64_t members, int64_t ranks) {
  return "the operation's group has " + std::to_string(members) + " of " +
         std::to_string(ranks) + " ranks; the built-ins run on MPI_COMM_WORLD";
}

/// The root and block of `transfers` if they are exactly a rooted
/// collective over every rank: every other rank sends (toRoot) or receives
/// `block` bytes, once, to or from one root.
static bool isRootedOverAll(const Topology &topo, const TransferSet &transfers,
                            bool toRoot, int64_t &root, int64_t &block) {
  int64_t ranks = topo.numRanks();
  if (ranks < 2 || static_cast<int64_t>(transfers.size()) != ranks - 1)
    return false;
  std::optional<int64_t> uniform = transfers.uniformBytes();
  if (!uniform)
    return false;
  root = -1;
  std::vector<bool> seen(static_cast<size_t>(ranks), false);
  for (const Demand &d : transfers) {
    int64_t r = toRoot ? d.dst : d.src, other = toRoot ? d.src : d.dst;
    if (r < 0 || other < 0 || r >= ranks || other >= ranks ||
        (root >= 0 && r != root) || other == r || seen[other])
      return false;
    root = r;
    seen[other] = true;
  }
  block = *uniform;
  return true;
}

BuiltinCall simgrid::directBuiltinCall(StringRef kind, const Topology &topo,
                                       const TransferSet &transfers) {
  BuiltinCall call;
  int64_t ranks = topo.numRanks();
  // Which ranks take part, for the reason a built-in cannot.
  auto members = [&] {
    std::vector<bool> in(static_cast<size_t>(ranks), false);
    for (const Demand &d : transfers)
      if (d.src >= 0 && d.dst >= 0 && d.src < ranks && d.dst < ranks)
        in[d.src] = in[d.dst] = true;
    return static_cast<int64_t>(llvm::count(in, true));
  };
  bool gather = kind == "gather" || kind == "all_to_one";
  if (gather || kind == "scatter" || kind == "one_to_all") {
    call.collective = gather ? "gather" : "scatter";
    call.viaColl = true;
    if (!isRootedOverAll(topo, transfers, gather, call.root, call.count))
      call.notApplicable = subGroupReason(members(), ranks);
    return call;
  }
  int64_t block = uniformAlltoallBlock(topo, transfers);
  if (kind == "allgather") {
    // A direct allgather moves an all-to-all's traffic, but the MPI call
    // that does the same is MPI_Allgather.
    call.collective = "allgather";
    call.viaColl = true;
    call.count = block;
    if (!block)
      call.notApplicable = subGroupReason(members(), ranks);
    return call;
  }
  // Everything else is compared as the all-to-all of its demands, which
  // program.c runs as MPI_Alltoall when they are uniform over every pair
  // (smpi/alltoall steers it) and as MPI_Alltoallv otherwise (only
  // smpi/alltoallv steers that).
  call.collective = block ? "alltoall" : "alltoallv";
  return call;
}

/// What every run script shares: the smpirun options (CFG, with a trace
/// when PHASEC_SIM_TRACE is set; with the machine's set-up cost as SMPI's
/// send overheads), then `case "$1"` and the build step's platform library
/// line.
static void writeRunScriptHead(llvm::raw_ostream &os,
                               const PlatformOptions &options) {
  os << "CFG=\"--cfg=smpi/simulate-computation:no --cfg=smpi/host-speed:1Gf "
        "--cfg=network/model:CM02 --cfg=network/crosstraffic:0 "
        "--cfg=smpi/bw-factor:1 --cfg=smpi/lat-factor:1 "
        "--cfg=network/TCP-gamma:0 --cfg=smpi/barrier:mvapich2_pair "
        "--log=root.thres:warning\"\n";
  if (options.setupCost > 0) {
    // SMPI charges smpi/os to MPI_Send and smpi/ois to MPI_Isend (measured:
    // os alone leaves every MPI_Isend free), each as a size:offset:factor
    // list; the receiving side (smpi/or) stays free: one set-up per message.
    // Nine digits: the seconds a user wrote (10 us), not the binary's tail.
    std::string cost = llvm::formatv("{0}", llvm::format("%.9g",
                                                         options.setupCost))
                           .str();
    os << "# The machine's set-up cost, " << cost
       << " s per message, charged to its sender.\n"
       << "CFG=\"$CFG --cfg=smpi/os:0:" << cost << ":0 --cfg=smpi/ois:0:"
       << cost << ":0\"\n";
  }
  os << "if [ -n \"$PHASEC_SIM_TRACE\" ]; then\n"
     << "  CFG=\"$CFG --cfg=tracing:yes --cfg=tracing/uncategorized:yes "
        "--cfg=tracing/filename:$PHASEC_SIM_TRACE\"\n"
     << "fi\n"
     << "case \"$1\" in\n"
     << "build)\n"
     << "  ${CXX:-c++} -O2 -std=c++17 -shared -fPIC platform.cpp -o "
        "libplatform.so $(pkg-config --cflags --libs simgrid)\n";
}

/// The run script's usage line for the built-ins of `call`.
static void writeBuiltinUsage(llvm::raw_ostream &os, const BuiltinCall &call,
                              StringRef verb) {
  os << "#   sh run.sh " << verb << " ALGO    ";
  if (call.viaColl)
    os << "MPI's " << call.collective;
  else
    os << (call.collective == "alltoall" ? "MPI_Alltoall" : "MPI_Alltoallv");
  if (call.selectable())
    os << " with --cfg=smpi/" << call.collective << ":ALGO";
  else
    os << " (SimGrid 3.32 has one algorithm: ALGO = default)";
  os << "\n";
}

/// `ALG=...; PROG=...` of run.sh's built-in branches: the selector option
/// and the program that makes the call. `programArgs` is program.c's
/// alltoall mode's arguments.
static void writeBuiltinBranch(llvm::raw_ostream &os, const BuiltinCall &call,
                               StringRef programArgs) {
  if (!call.notApplicable.empty()) {
    // The reason is phasec's own text (no quotes, `$` or backquotes).
    os << "echo \"no SimGrid built-in runs this operation: "
       << call.notApplicable << "\" >&2; exit 2 ;;\n";
    return;
  }
  if (call.selectable())
    os << "ALG=\"--cfg=smpi/" << call.collective << ":$2\"";
  else
    os << "if [ \"$2\" != default ]; then echo \"SimGrid 3.32 has no "
          "smpi/"
       << call.collective
       << " selector: only 'default'\" >&2; exit 2; fi; "
          "ALG=";
  if (call.viaColl)
    os << "; PROG=\"./coll " << call.collective << " " << call.count << " "
       << call.elemType << " " << call.root << " $ITERS 1\" ;;\n";
  else
    os << "; PROG=\"./program " << programArgs << "\" ;;\n";
}

/// The exec line every run script ends with.
static void writeRunScriptExec(llvm::raw_ostream &os) {
  os << "exec timeout --kill-after=10 \"${PHASEC_SIM_TIMEOUT:-0}\" smpirun "
        "-np \"$RANKS\" -platform \"$PLATFORM\" -hostfile hostfile $CFG $ALG "
        "$PHASEC_SIM_EXTRA $PROG\n";
}

/// The run script: every smpirun option in one place, so that a user can
/// rerun or tweak one variant by hand.
static void writeRunScript(llvm::raw_ostream &os, const Topology &topo,
                           llvm::ArrayRef<NamedSchedule> schedules,
                           const PlatformOptions &options,
                           const BuiltinCall &call, bool hasStock) {
  StringRef sync = stringifySyncKind(options.sync);
  os << "#!/bin/sh\n"
     << "# Generated by phasec: simulate " << topo.desc().str()
     << " with SimGrid SMPI, on a platform whose routes are phasec's.\n"
     << "#\n"
     << "#   sh run.sh build           build libplatform.so and program"
     << (call.viaColl ? ", coll" : "") << "\n"
     << "#   sh run.sh phased NAME     run sched-NAME.bin phase by phase "
        "(sync "
     << sync << "), verified\n";
  writeBuiltinUsage(os, call, "builtin");
  if (hasStock)
    os << "#   sh run.sh stock ALGO      the same on SimGrid's stock TORUS "
          "platform\n";
  os << "#\n"
     << "# Schedules here:";
  for (const NamedSchedule &s : schedules)
    os << " " << s.name;
  os << "\n"
     << "# Environment: PHASEC_SIM_TIMEOUT (seconds, 0 = none), "
        "PHASEC_SIM_TRACE (write a Paje trace\n"
     << "# with link utilisation to this file), PHASEC_SIM_EXTRA (more "
        "smpirun options)"
     << (call.viaColl ? ",\n# PHASEC_SIM_ITERATIONS (coll's timed calls, "
                        "default 3; the median is reported)"
                      : "")
     << ".\n"
     << "#\n"
     << "# The network model is SimGrid's max-min CM02 without SMPI's "
        "bandwidth and latency\n"
     << "# factors and without TCP cross traffic: a link of bandwidth B "
        "shared by n flows gives\n"
     << "# each B/n; a message of b bytes over a route of latency l takes "
        "l + b/B alone.\n"
     << "# The barrier between phases is a pairwise (recursive doubling) "
        "barrier: SMPI's default\n"
     << "# selector picks, at 256+ ranks, one that adds up to 50% to every "
        "phase.\n"
     << "set -e\n"
     << "cd \"$(dirname \"$0\")\"\n"
     << "RANKS=" << topo.numRanks() << "\n"
     << "# The operation's sync: barrier (a barrier between phases), local "
        "(phase by phase\n# without one) or none (every phase posted at "
        "once).\n"
     << "SYNC=" << sync << "\n";
  if (call.viaColl)
    os << "ITERS=${PHASEC_SIM_ITERATIONS:-3}\n";
  writeRunScriptHead(os, options);
  os << "  smpicc -O2 program.c -o program\n";
  if (call.viaColl)
    os << "  smpicc -O2 coll.c -o coll\n";
  os << "  exit 0 ;;\n"
     << "phased) PLATFORM=./libplatform.so; PROG=\"./program phased "
        "sched-$2.bin $SYNC\"; ALG=\n"
     << "  # A schedule whose tie choices differ from the first one's gets its "
        "own routes.\n"
     << "  if [ -f \"platform-$2.txt\" ]; then export "
        "PHASEC_SIM_PLATFORM=\"$PWD/platform-$2.txt\"; fi ;;\n";
  std::string programArgs = "alltoall sched-" + schedules.front().name + ".bin";
  os << "builtin) PLATFORM=./libplatform.so; ";
  writeBuiltinBranch(os, call, programArgs);
  if (hasStock) {
    os << "stock) PLATFORM=stock-torus.xml; ";
    writeBuiltinBranch(os, call, programArgs);
  }
  os << "*) echo \"usage: sh run.sh build | phased NAME | builtin ALGO"
     << (hasStock ? " | stock ALGO" : "") << "\" >&2; exit 2 ;;\n"
     << "esac\n";
  writeRunScriptExec(os);
}

/// The run script of a relaying operation: phasec's generated program and
/// the MPI library's collective under each built-in algorithm, on the same
/// platform and options as the direct schedules' script.
static void writeRelayRunScript(llvm::raw_ostream &os, const Topology &topo,
                                const RelayProgram &relay,
                                const PlatformOptions &options) {
  const BuiltinCall &call = relay.builtin;
  os << "#!/bin/sh\n"
     << "# Generated by phasec: simulate a relaying " << call.collective
     << " on " << topo.desc().str()
     << "\n# with SimGrid SMPI, on a platform whose routes are phasec's.\n"
     << "#\n"
     << "#   sh run.sh build           build libplatform.so, relay (phasec's "
        "generated MPI code)\n"
     << "#                             and coll (the MPI library's "
     << call.collective << ")\n"
     << "#   sh run.sh relay           run phasec's code (verifies every "
        "element; its phases\n"
     << "#                             are separated as the operation's sync "
        "says: "
     << stringifySyncKind(options.sync) << ")\n";
  writeBuiltinUsage(os, call, "builtin");
  os << "#\n"
     << "# Environment: PHASEC_SIM_TIMEOUT (seconds, 0 = none), "
        "PHASEC_SIM_ITERATIONS (timed\n"
     << "# calls, default 3; the median is reported), PHASEC_SIM_TRACE (a "
        "Paje trace), PHASEC_SIM_EXTRA\n"
     << "# (more smpirun options). Network model and barrier: as for direct "
        "schedules\n"
     << "# (docs/simulator.md).\n"
     << "set -e\n"
     << "cd \"$(dirname \"$0\")\"\n"
     << "RANKS=" << topo.numRanks() << "\n"
     << "ITERS=${PHASEC_SIM_ITERATIONS:-3}\n"
     << "PLATFORM=./libplatform.so\n";
  writeRunScriptHead(os, options);
  os << "  smpicc -O2 -I. relay.c phasec_runtime_core.c phasec_runtime_mpi.c "
        "-o relay\n"
     << "  smpicc -O2 coll.c -o coll\n"
     << "  exit 0 ;;\n"
     << "relay) export PHASEC_ITERATIONS=$ITERS PHASEC_WARMUP=1; "
        "ALG=; PROG=\"./relay\" ;;\n"
     << "builtin) ";
  writeBuiltinBranch(os, call, "");
  os << "*) echo \"usage: sh run.sh build | relay | builtin ALGO\" >&2; "
        "exit 2 ;;\n"
     << "esac\n";
  writeRunScriptExec(os);
}

LogicalResult
simgrid::writeFileIn(StringRef dir, StringRef name,
                     llvm::function_ref<void(llvm::raw_ostream &)> fn,
                     std::string &error) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  // A link planted in the directory is replaced, never followed.
  if (std::error_code ec = writeFileReplacing(path, fn)) {
    error = "cannot write " + std::string(path) + ": " + ec.message();
    return failure();
  }
  return success();
}

LogicalResult simgrid::emitSimGrid(const Topology &topo,
                                   const TransferSet &transfers,
                                   llvm::ArrayRef<NamedSchedule> schedules,
                                   const PlatformOptions &options,
                                   StringRef dir, PlatformStats &stats,
                                   std::string &error,
                                   const RelayProgram *relay,
                                   const BuiltinCall *builtin) {
  if (schedules.empty() || !schedules.front().schedule) {
    error = "no schedule to simulate";
    return failure();
  }
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    error = "cannot create " + dir.str() + ": " + ec.message();
    return failure();
  }
  // Posted at once (sync none, a direct schedule or a relay that forwards
  // nothing), a schedule's pairs take the routes that spread the whole
  // exchange, as the model charges them (atOnceRoutes).
  auto routed = [&](const Schedule &schedule) -> std::optional<Schedule> {
    if (options.sync != SyncKind::None || (relay && !forwardsNothing(schedule)))
      return std::nullopt;
    return atOnceRoutes(topo, schedule);
  };
  std::optional<Schedule> frontAtOnce = routed(*schedules.front().schedule);
  int64_t conflicts = 0;
  std::vector<TieMask> ties = buildTieTable(
      topo, frontAtOnce ? *frontAtOnce : *schedules.front().schedule,
      &conflicts);
  stats.tieConflicts = conflicts;
  auto copy = [&](StringRef name, StringRef text) {
    return writeFileIn(
        dir, name, [&](llvm::raw_ostream &os) { os << text; }, error);
  };
  // What every directory has: the platform (with phasec's routes) and the
  // hostfile.
  if (failed(writeFileIn(
          dir, "platform.txt",
          [&](llvm::raw_ostream &os) {
            writePlatformData(os, topo, ties, options, stats);
          },
          error)) ||
      failed(copy("platform.cpp", platformSource())) ||
      failed(writeFileIn(
          dir, "hostfile",
          [&](llvm::raw_ostream &os) {
            for (int64_t r = 0; r < topo.numRanks(); ++r)
              os << "rank-" << r << "\n";
          },
          error)))
    return failure();
  if (relay) {
    if (failed(copy("relay.c", relay->source)) ||
        failed(copy("coll.c", collSource())) ||
        failed(copy("phasec_sim_start.h", startHeader())) ||
        failed(copy("phasec_runtime.h", runtimeHeader())) ||
        failed(copy("phasec_runtime_mpi.h", runtimeMPIHeader())) ||
        failed(copy("phasec_runtime_core.c", runtimeCoreSource())) ||
        failed(copy("phasec_runtime_mpi.c", runtimeMPISource())) ||
        failed(writeFileIn(
            dir, "run.sh",
            [&](llvm::raw_ostream &os) {
              writeRelayRunScript(os, topo, *relay, options);
            },
            error)))
      return failure();
    return success();
  }
  int64_t block = uniformAlltoallBlock(topo, transfers);
  bool hasStock = (topo.kind() == TopologyKind::Torus ||
                   topo.kind() == TopologyKind::Hypercube) &&
                  topo.ranksPerNode() == 1;
  BuiltinCall call =
      builtin ? *builtin : directBuiltinCall("alltoall", topo, transfers);
  if (failed(copy("program.c", programSource())) ||
      failed(copy("phasec_sim_start.h", startHeader())) ||
      (call.viaColl && failed(copy("coll.c", collSource()))) ||
      failed(writeFileIn(
          dir, "run.sh",
          [&](llvm::raw_ostream &os) {
            writeRunScript(os, topo, schedules, options, call, hasStock);
          },
          error)))
    return failure();
  for (const NamedSchedule &s : schedules) {
    if (!s.schedule)
      continue;
    // Every phased schedule runs on its own routes: a baseline planned with
    // ties "+" would congest on routes that split the ties.
    if (&s != &schedules.front()) {
      std::optional<Schedule> atOnce = routed(*s.schedule);
      std::vector<TieMask> own =
          buildTieTable(topo, atOnce ? *atOnce : *s.schedule);
      if (own != ties) {
        PlatformStats ownStats;
        if (failed(writeFileIn(
                dir, "platform-" + s.name + ".txt",
                [&](llvm::raw_ostream &os) {
                  writePlatformData(os, topo, own, options, ownStats);
                },
                error)))
          return failure();
      }
    }
    if (failed(writeFileIn(
            dir, "sched-" + s.name + ".bin",
            [&](llvm::raw_ostream &os) {
              writeScheduleData(os, topo.numRanks(), *s.schedule, block);
            },
            error)))
      return failure();
  }
  if (hasStock) {
    std::string stockError;
    LogicalResult ok = success();
    if (failed(writeFileIn(
            dir, "stock-torus.xml",
            [&](llvm::raw_ostream &os) {
              ok = writeStockTorus(os, topo, options, stockError);
            },
            error)))
      return failure();
    if (failed(ok)) {
      error = stockError;
      return failure();
    }
  }
  return success();
}
