//===- Runner.h - Build, run and report SimGrid simulations -----*- C++ -*-===//
//
// Part of phasec. MLIR-free.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `phasec FILE.sched --target=sim [--compare] [--report DIR]` as a library:
/// emit the SimGrid directory (SimGrid.h), build it with c++/smpicc, run
/// every variant with smpirun, parse the simulated times and compare them
/// with the bandwidth bound and with the analytic phase model.
///
/// Variants:
///   - phased schedules (phasec's, and baselines such as linear shift, XOR,
///     greedy) on phasec's platform: one barrier-separated phase at a time,
///     or every phase at once under `sync = none` (PlatformOptions);
///   - SimGrid's built-in algorithms of the MPI call that runs the same
///     operation (BuiltinCall: `--cfg=smpi/alltoall:X` for MPI_Alltoall,
///     `smpi/alltoallv` for MPI_Alltoallv, `smpi/gather`, ...) on phasec's
///     platform (same routes, same injection ports);
///   - the same built-ins on SimGrid's stock TORUS platform (tori with one
///     rank per node only; ties always "+", no injection limit).
///
/// Long runs: each variant has a wall-clock limit (`timeoutSeconds`, then it
/// is reported as "timeout"); `basic_linear` above `maxBasicLinearRanks`
/// ranks is skipped with the reason (it posts all R*(R-1) messages at once
/// and SimGrid's max-min solver did not finish in 25 minutes at 512 ranks).
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_TARGET_SIMGRID_RUNNER_H
#define PHASEC_TARGET_SIMGRID_RUNNER_H

#include "phasec/Target/SimGrid/SimGrid.h"

#include "llvm/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace phasec {
namespace simgrid {

/// The cost model's machine time of `schedule` on the machine as simulated:
/// the topology with the platform's latency and set-up cost (which
/// --latency may override) and SMPI's message envelope, under the sync the
/// platform runs (barriers or none), the problem's members synchronising
/// (without a problem: every rank, a direct schedule). The platform has one
/// route per rank pair: `routes` (buildTieTable of the schedule the
/// platform was written for) gives it, and a transfer whose own tie differs
/// is charged on it, as SimGrid sends it; empty: every transfer's own tie.
double predictSimulatedTime(const Topology &topo, const Problem *problem,
                            const Schedule &schedule,
                            const PlatformOptions &options,
                            llvm::ArrayRef<TieMask> routes = {});
/// The same machine's time of every phase on its own (no barrier), for the
/// report's per-phase comparison.
std::vector<double> predictPhaseTimes(const Topology &topo,
                                      const Problem *problem,
                                      const Schedule &schedule,
                                      const PlatformOptions &options,
                                      llvm::ArrayRef<TieMask> routes = {});

/// Per-link bytes of every phase (phases x links), for the heat map; links
/// are the topology's (LinkId order).
std::vector<std::vector<double>> linkBytesByPhase(const Topology &topo,
                                                  const Schedule &schedule);

struct SimulationRequest {
  const Topology *topology = nullptr;
  /// The operation's problem: its cost model predicts every schedule's time
  /// (CostModel::machineTime, the `model` column), its members synchronise.
  const Problem *problem = nullptr;
  /// What must be delivered (the built-ins send exactly this).
  const TransferSet *transfers = nullptr;
  /// The operation's name (for the report).
  std::string operation = "op";
  /// phasec's schedule (its tie choices define the routes) and, with
  /// --compare, baselines simulated phase by phase on the same platform.
  NamedSchedule schedule;
  std::vector<NamedSchedule> baselines;
  /// A relaying operation: `schedule` is its chunk schedule, run as the
  /// generated MPI code (variant kind "relay"); `builtins` are algorithms of
  /// smpi/<relay->collective>; no baselines, no stock platform, no report.
  const RelayProgram *relay = nullptr;
  /// How a direct operation's built-ins run (directBuiltinCall; relaying:
  /// relay->builtin).
  BuiltinCall builtin;
  /// Algorithms of the built-in's smpi/<collective> on phasec's platform,
  /// and on the stock TORUS (see builtinSkipReason).
  std::vector<std::string> builtins;
  std::vector<std::string> stockBuiltins;
  /// Bandwidth bound in seconds and its reason (Bounds.h).
  double boundTime = 0;
  std::string boundReason;
  /// Where the generated directory goes (created; reused if it exists).
  std::string workDir;
  /// If set: CSV files, pictures and index.html (see report()).
  std::string reportDir;
  PlatformOptions platform;
  /// Wall-clock limit per variant, seconds (0 = none).
  unsigned timeoutSeconds = 900;
  int64_t maxBasicLinearRanks = 256;
  /// Progress on stderr (only shown when stderr is a terminal).
  bool progress = true;
};

struct VariantResult {
  /// Ok, Skipped, TimedOut, Failed (Vocabulary.td).
  using Status = SimulationStatus;
  /// "phasec", "shift", "pair", ...
  std::string name;
  /// "phased" (a schedule), "relay" (phasec's generated code of a relaying
  /// schedule) or "builtin" (an smpi/<collective> algorithm).
  std::string kind;
  /// "phasec" (our routes) or "stock" (SimGrid's TORUS zone).
  std::string platform;
  /// Built-in variants: the setting that ran it,
  /// `smpi/<collective>:<algorithm>` (BuiltinCall::settingFor).
  std::string setting;
  Status status = SimulationStatus::Failed;
  std::string note;
  double simTime = 0;
  double wallSeconds = 0;
  /// The program checked every byte or element of the result
  /// (PHASEC_SIM_VERIFIED 0): phased and relay variants, and built-ins run
  /// by coll.c.
  bool verified = false;
  /// Phased and relay variants: analytic model time and phases.
  double modelTime = 0;
  int64_t numPhases = 0;
  /// Phased variants: when phase k ended, relative to the start.
  std::vector<double> phaseEnd;
};

/// Why a built-in algorithm of a relaying operation's collective is not
/// run (empty: it is). Only `automatic`, SMPI's selector benchmark, which
/// runs every other algorithm inside each call; an algorithm that does not
/// apply (e.g. needs a power-of-two number of ranks) runs and fails, and its
/// row says why (SimGrid's message).
std::string builtinSkipReason(llvm::StringRef algorithm);

/// Every algorithm SimGrid 3.32 offers for smpi/<collective> (its own list,
/// in its order), or just `default` for a call without a selector (scan,
/// exscan: the call's one algorithm).
llvm::ArrayRef<const char *> collectiveBuiltins(llvm::StringRef collective);

struct SimulationResult {
  std::string operation;
  int64_t ranks = 0;
  int64_t totalBytes = 0;
  double boundTime = 0;
  std::string boundReason;
  PlatformStats platform;
  std::vector<VariantResult> variants;
};


/// The whole pipeline; `log` gets one line per step. Fails (with the reason
/// in `log`) if the directory cannot be written or built or phasec's own
/// schedule does not simulate; variants that fail or time out are recorded
/// in `result` and do not fail the call.
llvm::LogicalResult runSimulation(const SimulationRequest &request,
                                  SimulationResult &result,
                                  llvm::raw_ostream &log);

/// The comparison table: variant, platform, simulated time, effective
/// bandwidth (all bytes / time), % of the bound, model time, wall time, the
/// built-in's setting.
void printSimulationTable(llvm::raw_ostream &os,
                          const SimulationResult &result);

/// Writes reportDir/{summary.csv, phases.csv, link_phase.csv,
/// route_throughput.csv, phase_throughput.csv[, link_timeline.csv]} for
/// phasec's schedule; then, if `render`, runs report.py to draw the pictures
/// and index.html. `tracePath` (optional) is a Paje trace of phasec's run.
llvm::LogicalResult writeReport(const SimulationRequest &request,
                                const SimulationResult &result,
                                llvm::StringRef tracePath, bool render,
                                llvm::raw_ostream &log);

} // namespace simgrid
} // namespace phasec

#endif // PHASEC_TARGET_SIMGRID_RUNNER_H
