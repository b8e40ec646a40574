//===- SimGrid.h - SimGrid SMPI platforms and programs ----------*- C++ -*-===//
//
// Part of phasec. MLIR-free: Topology + Schedule in, files out.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The SimGrid 3.32 back end: writes a directory that `smpirun` can run, in
/// which the network routes are exactly the routes phasec chose.
///
/// Why a platform library and not SimGrid's TORUS zone: the TORUS zone always
/// sends a tie (distance k/2 on an even ring) the "+" way, so an optimal torus
/// schedule, which splits its ties, congests there. The generated platform is
/// one Full zone in which every MPI rank is a host, every directed link of the
/// topology is its own SimGrid link, and every ordered rank pair has an
/// explicit route (its link list), loaded by a small generic C++ library
/// (`support/phasec_sim_platform.cpp`) from `platform.txt`. SimGrid routes are
/// per host pair, not per message; an all-to-all sends every ordered pair
/// once, so a per-pair table built from the schedule's tie choices is exact.
/// Where a schedule splits one pair over transfers with different ties, the
/// first choice wins and `PlatformStats::tieConflicts` counts the others.
///
/// Output directory:
///   platform.cpp, platform.txt  the platform library and its data
///   hostfile                    rank-0 .. rank-(R-1), one per line
///   program.c                   the MPI program (phased or MPI_Alltoall[v])
///   coll.c                      the plain MPI collective, for built-ins
///                               that are not MPI_Alltoall[v]
///   sched-<variant>.bin         per-rank phase tables (phasec, baselines)
///   platform-<variant>.txt      a baseline's own routes, where its tie
///                               choices differ from the first schedule's
///   stock-torus.xml             SimGrid's own TORUS cluster (tori only)
///   run.sh                      `sh run.sh build`, `sh run.sh <variant>`
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_TARGET_SIMGRID_SIMGRID_H
#define PHASEC_TARGET_SIMGRID_SIMGRID_H

#include "phasec/Scheduling/Problem.h"
#include "phasec/Topology/Topology.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace phasec {
namespace simgrid {

/// Knobs of the generated platform and run script.
struct PlatformOptions {
  /// Host speed in flop/s (only matters if computation were simulated; the
  /// run script turns computation simulation off).
  double hostSpeed = 1e9;
  /// Seconds per link; < 0 means the topology's linkLatency.
  double linkLatency = -1;
  /// Bandwidth of the FATPIPE link that ranks of one node use between
  /// themselves (the spec counts node-local transfers as free). 0 = 1000x the
  /// fastest network link.
  double memoryBandwidth = 0;
  /// The machine's set-up cost, seconds per message (the machine
  /// description's `setup_cost`, C^3's s): run.sh charges it to the sender
  /// of every message as SMPI's send overheads (`smpi/os` for blocking and
  /// `smpi/ois` for non-blocking sends), built-ins included. 0 = none.
  double setupCost = 0;
  /// The operation's `sync`: `barrier` runs phased schedules with a
  /// barrier between phases, `local` phase after phase without one (a rank
  /// goes on once its sends and receives of the phase are done), `none`
  /// posts every phase at once.
  SyncKind sync = SyncKind::Barrier;
};

/// How `--compare` runs SimGrid's built-in algorithms for an operation: the
/// MPI call that runs the same operation and the `smpi/<collective>`
/// setting that selects its algorithm.
struct BuiltinCall {
  /// The MPI collective (MPI's name without `MPI_`, lower case) and its
  /// SMPI selector where SimGrid has one (collectiveBuiltins).
  std::string collective;
  /// Run by coll.c (`coll COLLECTIVE COUNT TYPE ROOT`: the plain call,
  /// verified) rather than program.c's alltoall mode (MPI_Alltoall or
  /// MPI_Alltoallv of the schedule's own demands, unverified, on buffers
  /// shared between the simulated ranks).
  bool viaColl = false;
  /// coll.c's arguments: elements per call (per block for allgather,
  /// gather, scatter, alltoall; per rank's result for reduce_scatter), the
  /// element type (i8 .. u64, f32, f64, c64, c128) and the root rank.
  int64_t count = 0, root = 0;
  std::string elemType = "u8";
  /// Non-empty when no built-in runs the same operation (then each is a
  /// skipped row with this reason).
  std::string notApplicable;

  /// What the table's built-in column shows for algorithm `algorithm`:
  /// `smpi/<collective>:<algorithm>`, or the MPI call where SimGrid has no
  /// selector.
  std::string settingFor(llvm::StringRef algorithm) const;
  /// SimGrid has an `smpi/<collective>` selector for it.
  bool selectable() const;
};

/// The built-in call of a direct operation of kind `kind` (a CollectiveKind
/// name: alltoall, alltoallv, transpose, permute, gather, all_to_one,
/// scatter, one_to_all, allgather; anything else is compared as the
/// all-to-all of its demands): MPI_Alltoall (`smpi/alltoall`) when the
/// demands are a complete uniform all-to-all, else MPI_Alltoallv
/// (`smpi/alltoallv`), both through program.c; MPI_Gather, MPI_Scatter and
/// MPI_Allgather (coll.c) for the rooted kinds and allgather, which are not
/// applicable (`notApplicable`) unless every rank is a member.
BuiltinCall directBuiltinCall(llvm::StringRef kind, const Topology &topo,
                              const TransferSet &transfers);

/// The reason a built-in on MPI_COMM_WORLD cannot run an operation on
/// `members` of `ranks` ranks.
std::string subGroupReason(int64_t members, int64_t ranks);

/// A schedule to simulate phase by phase, under a name ("phasec", "shift").
struct NamedSchedule {
  std::string name;
  const Schedule *schedule = nullptr;
};

/// A relaying operation (a phasec-schedule/2 chunk schedule): SimGrid runs
/// the MPI code phasec generates for it (the `--emit=mpi --main` program,
/// printing PHASEC_SIM_TIME) and, for the built-ins, the MPI library's own
/// collective on the same data (support/phasec_sim_coll.c).
struct RelayProgram {
  /// C + MPI: the operation and its verifying harness (MPIOptions::main and
  /// simTimeLine), built with smpicc and phasec's runtime sources. It does
  /// what the operation's `sync` says (the MPI back end's code).
  std::string source;
  /// The built-in call (always via coll.c).
  BuiltinCall builtin;
  /// Bytes the operation is about (its C chunks), for the table.
  int64_t dataBytes = 0;
};

/// What writePlatform found.
struct PlatformStats {
  int64_t hosts = 0, links = 0, routes = 0;
  /// Rank pairs that the schedule sends with two different tie choices.
  int64_t tieConflicts = 0;
};

/// Per ordered rank pair (src * R + dst), the TieMask its route takes: the
/// first choice `schedule` makes for the pair, 0 where it sends nothing.
std::vector<TieMask> buildTieTable(const Topology &topo,
                                   const Schedule &schedule,
                                   int64_t *conflicts = nullptr);

/// Writes platform.txt for `topo` with the routes of `ties` (R*R entries).
void writePlatformData(llvm::raw_ostream &os, const Topology &topo,
                       llvm::ArrayRef<TieMask> ties,
                       const PlatformOptions &options, PlatformStats &stats);

/// Writes the per-rank phase table `program.c` reads. `uniformBlock` > 0 marks
/// a complete all-to-all with that block (MPI_Alltoall), 0 MPI_Alltoallv.
void writeScheduleData(llvm::raw_ostream &os, int64_t numRanks,
                       const Schedule &schedule, int64_t uniformBlock);

/// SimGrid's stock TORUS cluster of the same machine (one host per node,
/// split-duplex links, ties always "+", no injection limit). Fails unless the
/// topology is a torus or hypercube with one rank per node.
llvm::LogicalResult writeStockTorus(llvm::raw_ostream &os, const Topology &topo,
                                    const PlatformOptions &options,
                                    std::string &error);

/// The block of a complete uniform all-to-all over every rank, else 0.
int64_t uniformAlltoallBlock(const Topology &topo,
                             const TransferSet &transfers);

/// The generic sources (embedded at build time from targets/simgrid/support).
llvm::StringRef platformSource();
llvm::StringRef programSource();
llvm::StringRef reportScript();
llvm::StringRef collSource();
/// phasec_sim_start.h: the common start both programs time from.
llvm::StringRef startHeader();
/// phasec's runtime (runtime/), built into relaying programs with smpicc.
llvm::StringRef runtimeHeader();
llvm::StringRef runtimeMPIHeader();
llvm::StringRef runtimeCoreSource();
llvm::StringRef runtimeMPISource();

/// Writes the whole directory (created if needed). `schedules[0]` gives the
/// routes of platform.txt (used by the built-in MPI algorithms too); every
/// schedule gets a sched-<name>.bin, and runs on its own tie choices
/// (platform-<name>.txt where they differ). Deterministic output.
/// `builtin` (direct operations; null: MPI_Alltoall[v] of the demands) says
/// how run.sh's `builtin` and `stock` run SimGrid's algorithms.
/// With `relay`: `schedules` is phasec's chunk schedule alone (its routes are
/// platform.txt's), and the directory holds relay.c (the generated program),
/// phasec's runtime sources and coll.c instead of program.c and the
/// schedule tables; run.sh runs `relay` and `builtin ALGO`.
llvm::LogicalResult emitSimGrid(const Topology &topo,
                                const TransferSet &transfers,
                                llvm::ArrayRef<NamedSchedule> schedules,
                                const PlatformOptions &options,
                                llvm::StringRef dir, PlatformStats &stats,
                                std::string &error,
                                const RelayProgram *relay = nullptr,
                                const BuiltinCall *builtin = nullptr);

} // namespace simgrid
} // namespace phasec

#endif // PHASEC_TARGET_SIMGRID_SIMGRID_H
