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

#include "phasec/Target/SimGrid/SimGrid.h"

#include "SimGridPrivate.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
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

/// What every run script shares: the smpirun options (CFG, with a trace
/// when PHASEC_SIM_TRACE is set), then `case "$1"` and the build step's
/// platform library line.
static void writeRunScriptHead(llvm::raw_ostream &os) {
  os
     << "CFG=\"--cfg=smpi/simulate-computation:no --cfg=smpi/host-speed:1Gf "
        "--cfg=network/model:CM02 --cfg=network/crosstraffic:0 "
        "--cfg=smpi/bw-factor:1 --cfg=smpi/lat-factor:1 "
        "--cfg=network/TCP-gamma:0 --cfg=smpi/barrier:mvapich2_pair "
        "--log=root.thres:warning\"\n"
     << "if [ -n \"$PHASEC_SIM_TRACE\" ]; then\n"
     << "  CFG=\"$CFG --cfg=tracing:yes --cfg=tracing/uncategorized:yes "
        "--cfg=tracing/filename:$PHASEC_SIM_TRACE\"\n"
     << "fi\n"
     << "case \"$1\" in\n"
     << "build)\n"
     << "  ${CXX:-c++} -O2 -std=c++17 -shared -fPIC platform.cpp -o "
        "libplatform.so $(pkg-config --cflags --libs simgrid)\n";
}

/// The run script: every smpirun option in one place, so that a user can
/// rerun or tweak one variant by hand.
static void writeRunScript(llvm::raw_ostream &os, const Topology &topo,
                           llvm::ArrayRef<NamedSchedule> schedules,
                           bool hasStock) {
  os << "#!/bin/sh\n"
     << "# Generated by phasec: simulate " << topo.desc().str()
     << " with SimGrid SMPI, on a platform whose routes are phasec's.\n"
     << "#\n"
     << "#   sh run.sh build           build libplatform.so and program\n"
     << "#   sh run.sh phased NAME     run sched-NAME.bin phase by phase\n"
     << "#   sh run.sh builtin ALGO    MPI_Alltoall[v] with "
        "--cfg=smpi/alltoall:ALGO\n";
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
        "smpirun options).\n"
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
     << "RANKS=" << topo.numRanks() << "\n";
  writeRunScriptHead(os);
  os
     << "  smpicc -O2 program.c -o program\n"
     << "  exit 0 ;;\n"
     << "phased) PLATFORM=./libplatform.so; ARGS=\"phased sched-$2.bin\"; "
        "ALG=\n"
     << "  # A schedule whose tie choices differ from the first one's gets its "
        "own routes.\n"
     << "  if [ -f \"platform-$2.txt\" ]; then export "
        "PHASEC_SIM_PLATFORM=\"$PWD/platform-$2.txt\"; fi ;;\n"
     << "builtin) PLATFORM=./libplatform.so; ARGS=\"alltoall "
        "sched-"
     << schedules.front().name << ".bin\"; ALG=\"--cfg=smpi/alltoall:$2\" ;;\n";
  if (hasStock)
    os << "stock) PLATFORM=stock-torus.xml; ARGS=\"alltoall sched-"
       << schedules.front().name
       << ".bin\"; ALG=\"--cfg=smpi/alltoall:$2\" ;;\n";
  os << "*) echo \"usage: sh run.sh build | phased NAME | builtin ALGO"
     << (hasStock ? " | stock ALGO" : "") << "\" >&2; exit 2 ;;\n"
     << "esac\n"
     << "exec timeout --kill-after=10 \"${PHASEC_SIM_TIMEOUT:-0}\" smpirun "
        "-np \"$RANKS\" -platform \"$PLATFORM\" -hostfile hostfile $CFG $ALG "
        "$PHASEC_SIM_EXTRA ./program $ARGS\n";
}

/// The run script of a relaying operation: phasec's generated program and
/// the MPI library's collective under each built-in algorithm, on the same
/// platform and options as the direct schedules' script.
static void writeRelayRunScript(llvm::raw_ostream &os, const Topology &topo,
                                const RelayProgram &relay) {
  // SimGrid 3.32 has no selector for MPI_Scan / MPI_Exscan: one algorithm.
  bool selectable = relay.collective != "scan" && relay.collective != "exscan";
  os << "#!/bin/sh\n"
     << "# Generated by phasec: simulate a relaying " << relay.collective
     << " on " << topo.desc().str()
     << "\n# with SimGrid SMPI, on a platform whose routes are phasec's.\n"
     << "#\n"
     << "#   sh run.sh build           build libplatform.so, relay (phasec's "
        "generated MPI code)\n"
     << "#                             and coll (the MPI library's "
     << relay.collective << ")\n"
     << "#   sh run.sh relay           run phasec's code (verifies every "
        "element)\n"
     << "#   sh run.sh builtin ALGO    MPI's " << relay.collective;
  if (selectable)
    os << " with --cfg=smpi/" << relay.collective << ":ALGO";
  else
    os << " (SimGrid 3.32 has one algorithm: ALGO = default)";
  os << "\n#\n"
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
     << "ITERS=${PHASEC_SIM_ITERATIONS:-3}\n";
  writeRunScriptHead(os);
  os
     << "  smpicc -O2 -I. relay.c phasec_runtime_core.c phasec_runtime_mpi.c "
        "-o relay\n"
     << "  smpicc -O2 coll.c -o coll\n"
     << "  exit 0 ;;\n"
     << "relay) export PHASEC_ITERATIONS=$ITERS PHASEC_WARMUP=1; "
        "ALG=; PROG=\"./relay\" ;;\n"
     << "builtin) ";
  if (selectable)
    os << "ALG=\"--cfg=smpi/" << relay.collective << ":$2\"";
  else
    os << "if [ \"$2\" != default ]; then echo \"SimGrid 3.32 has no "
          "smpi/"
       << relay.collective << " selector: only 'default'\" >&2; exit 2; fi; "
                              "ALG=";
  os << "; PROG=\"./coll " << relay.collective << " " << relay.count << " "
     << relay.elemType << " " << relay.root << " $ITERS 1\" ;;\n"
     << "*) echo \"usage: sh run.sh build | relay | builtin ALGO\" >&2; "
        "exit 2 ;;\n"
     << "esac\n"
     << "exec timeout --kill-after=10 \"${PHASEC_SIM_TIMEOUT:-0}\" smpirun "
        "-np \"$RANKS\" -platform ./libplatform.so -hostfile hostfile $CFG "
        "$ALG $PHASEC_SIM_EXTRA $PROG\n";
}

LogicalResult simgrid::writeFileIn(
    StringRef dir, StringRef name, llvm::sys::fs::OpenFlags flags,
    llvm::function_ref<void(llvm::raw_ostream &)> fn, std::string &error) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, flags);
  if (ec) {
    error = "cannot write " + std::string(path) + ": " + ec.message();
    return failure();
  }
  fn(os);
  os.close();
  if (os.has_error()) {
    error = "cannot write " + std::string(path) + ": " + os.error().message();
    os.clear_error();
    return failure();
  }
  return success();
}

/// The generated directory's files are data and scripts read on this
/// machine: no text-mode translation.
static LogicalResult writeFile(StringRef dir, StringRef name,
                               llvm::function_ref<void(llvm::raw_ostream &)> fn,
                               std::string &error) {
  return writeFileIn(dir, name, llvm::sys::fs::OF_None, fn, error);
}

LogicalResult simgrid::emitSimGrid(const Topology &topo,
                                   const TransferSet &transfers,
                                   llvm::ArrayRef<NamedSchedule> schedules,
                                   const PlatformOptions &options,
                                   StringRef dir, PlatformStats &stats,
                                   std::string &error,
                                   const RelayProgram *relay) {
  if (schedules.empty() || !schedules.front().schedule) {
    error = "no schedule to simulate";
    return failure();
  }
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    error = "cannot create " + dir.str() + ": " + ec.message();
    return failure();
  }
  int64_t conflicts = 0;
  std::vector<TieMask> ties =
      buildTieTable(topo, *schedules.front().schedule, &conflicts);
  stats.tieConflicts = conflicts;
  auto copy = [&](StringRef name, StringRef text) {
    return writeFile(
        dir, name, [&](llvm::raw_ostream &os) { os << text; }, error);
  };
  // What every directory has: the platform (with phasec's routes) and the
  // hostfile.
  if (failed(writeFile(
          dir, "platform.txt",
          [&](llvm::raw_ostream &os) {
            writePlatformData(os, topo, ties, options, stats);
          },
          error)) ||
      failed(copy("platform.cpp", platformSource())) ||
      failed(writeFile(
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
        failed(copy("phasec_runtime.h", runtimeHeader())) ||
        failed(copy("phasec_runtime_mpi.h", runtimeMPIHeader())) ||
        failed(copy("phasec_runtime_core.c", runtimeCoreSource())) ||
        failed(copy("phasec_runtime_mpi.c", runtimeMPISource())) ||
        failed(writeFile(
            dir, "run.sh",
            [&](llvm::raw_ostream &os) {
              writeRelayRunScript(os, topo, *relay);
            },
            error)))
      return failure();
    return success();
  }
  int64_t block = uniformAlltoallBlock(topo, transfers);
  bool hasStock = (topo.kind() == TopologyKind::Torus ||
                   topo.kind() == TopologyKind::Hypercube) &&
                  topo.ranksPerNode() == 1;
  if (failed(copy("program.c", programSource())) ||
      failed(writeFile(
          dir, "run.sh",
          [&](llvm::raw_ostream &os) {
            writeRunScript(os, topo, schedules, hasStock);
          },
          error)))
    return failure();
  for (const NamedSchedule &s : schedules) {
    if (!s.schedule)
      continue;
    // Every phased schedule runs on its own routes: a baseline planned with
    // ties "+" would congest on routes that split the ties.
    if (&s != &schedules.front()) {
      std::vector<TieMask> own = buildTieTable(topo, *s.schedule);
      if (own != ties) {
        PlatformStats ownStats;
        if (failed(writeFile(
                dir, "platform-" + s.name + ".txt",
                [&](llvm::raw_ostream &os) {
                  writePlatformData(os, topo, own, options, ownStats);
                },
                error)))
          return failure();
      }
    }
    if (failed(writeFile(
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
    if (failed(writeFile(
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
