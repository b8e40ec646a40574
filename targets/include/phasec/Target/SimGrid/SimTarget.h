//===- SimTarget.h - `--target=sim` and `--emit=simgrid` entry point -*- C++
//-*-===//
//
// Part of phasec. MLIR-free.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What a driver calls for `phasec FILE.sched --target=sim [--compare]
/// [--report DIR]` and `phasec FILE.sched --emit=simgrid -o DIR`: one call
/// for all the operations of a file, each with its topology, problem and
/// verified schedule. `phasec-sim` (schedule JSON in) is the same call.
///
/// Wiring into the phasec driver (compiler/lib/Driver):
/// \code
///   #include "phasec/Target/SimGrid/SimTarget.h"
///   std::vector<phasec::simgrid::SimOperation> ops;
///   for (const ScheduledOperation &op : scheduled->operations)
///     ops.push_back({op.name, op.topology, op.problem.get(), &op.schedule});
///   phasec::simgrid::SimTargetOptions sim;   // outDir, compare, reportDir
///   return phasec::simgrid::runSimTarget(ops, sim, out, diagOS);
/// \endcode
/// and `target_link_libraries(<driver lib> PRIVATE PhasecTargetSimGrid)`.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_TARGET_SIMGRID_SIMTARGET_H
#define PHASEC_TARGET_SIMGRID_SIMTARGET_H

#include "phasec/Scheduling/Problem.h"
#include "phasec/Target/SimGrid/Runner.h"
#include "phasec/Target/SimulatedOperation.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace phasec {
namespace simgrid {

struct SimOperation : target::SimulatedOperation {
  /// Set for a relaying operation (a chunk schedule): the generated MPI
  /// program and the built-in call (SimGrid.h). `--compare` then runs every
  /// algorithm of its collective (collectiveBuiltins); there are no
  /// baselines and no stock platform, and `--report` is not supported.
  const RelayProgram *relay = nullptr;
  /// The operation's kind (a CollectiveKind name: alltoall, alltoallv,
  /// permute, gather, ...): which built-ins `--compare` runs for a direct
  /// operation (directBuiltinCall). Empty: the all-to-all of its demands.
  std::string kind;
  // sync: for a relaying operation the generated code already
  // does what `sync` says; it only labels the row.
  /// The machine's set-up cost, seconds per message (< 0: the option's,
  /// SimTargetOptions::platform.setupCost).
  double setupCost = -1;
};

struct SimTargetOptions {
  /// Output directory; each operation gets DIR/<operation> if there are
  /// several. Default (empty): a new directory phasec-sim-XXXXXX in the
  /// system's temporary directory, named on `diag`.
  std::string outDir;
  /// --emit=simgrid: write the directory, do not build or run.
  bool emitOnly = false;
  /// --compare: baselines (linear_shift, xor, greedy; percs-seed on one
  /// PERCS supernode) and SimGrid's built-ins on this platform and, for
  /// tori, on the stock TORUS platform: for MPI_Alltoall defaultBuiltins(),
  /// for every other call every algorithm of its selector
  /// (collectiveBuiltins).
  bool compare = false;
  /// Explicit lists (override the --compare defaults when non-empty).
  std::vector<std::string> baselines, builtins, stockBuiltins;
  /// --report DIR (DIR/<operation> if there are several operations).
  std::string reportDir;
  bool renderReport = true;
  unsigned timeoutSeconds = 900;
  PlatformOptions platform;
  /// If >= 0: fail unless phasec's simulated time is within this many
  /// percent of the analytic phase model.
  double checkModelPercent = -1;
};

/// Every smpi/alltoall algorithm of SimGrid 3.32 worth comparing.
llvm::ArrayRef<const char *> defaultBuiltins();

/// A baseline schedule by name: linear_shift (or shift), xor, greedy, or
/// percs-seed (seed 002's algorithm: in phase i core j of node m sends to
/// every core of node (m + j + i) mod n; one PERCS supernode only).
llvm::LogicalResult buildBaseline(llvm::StringRef name, const Problem &problem,
                                  Schedule &out, std::string &error);

/// Emits (and unless emitOnly, builds, runs and reports) every operation.
/// Tables to `out`, progress and errors to `diag`. Fails on any error and
/// when a model check (checkModelPercent) misses.
llvm::LogicalResult runSimTarget(llvm::ArrayRef<SimOperation> operations,
                 const SimTargetOptions &options, llvm::raw_ostream &out,
                 llvm::raw_ostream &diag);

} // namespace simgrid
} // namespace phasec

#endif // PHASEC_TARGET_SIMGRID_SIMTARGET_H
