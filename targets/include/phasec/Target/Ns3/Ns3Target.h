//===- Ns3Target.h - The ns-3 packet-level back end -------------*- C++ -*-===//
//
// Part of phasec. MLIR-free.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `--emit=ns3 -o DIR`: per operation a directory holding an ns-3 program
/// (the lossless credit-flow network of targets/ns3/support), its CMake
/// build, and a scenario: the machine's links, every message on the route
/// phasec chose (tie directions included), and the variants to simulate:
/// phasec's schedule with its per-phase synchronisation, the same messages
/// in phase order without barriers, in seed 000's conventional loop
/// through the destinations ("no phases") and posted at once, the
/// baselines, and MPI's pairwise exchange (the linear shift's steps, each
/// a send-receive).
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_TARGET_NS3_NS3TARGET_H
#define PHASEC_TARGET_NS3_NS3TARGET_H

#include "phasec/Scheduling/Problem.h"
#include "phasec/Target/SimulatedOperation.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace phasec {
namespace ns3target {

using Ns3Operation = target::SimulatedOperation;

struct Ns3Options {
  /// The output directory (-o); one subdirectory per operation when there
  /// are several.
  std::string outDir;
  /// Bytes of header every packet carries beyond its payload (>= 4: the
  /// route header the routers read); 0: the machine's packet_header, 4
  /// where it has none. The payload is the machine's packet_length, 32
  /// bytes (the T3D's) where it has none.
  int64_t headerBytes = 0;
  /// Packets each router input buffer holds per virtual channel; 0: the
  /// machine's router_buffer, 2 where it has none.
  int64_t bufferPackets = 0;
  /// Links as ns-3 point-to-point devices (false) or as two events per
  /// packet and hop on ns-3's kernel (true: `--ns3-links=direct`, the same
  /// times about twice as fast; phasec_ns3_net.h).
  bool directLinks = false;
  /// Seconds a packet takes through one router and link beyond its
  /// serialisation; < 0: the machine's latency. (A .sched `latency` is
  /// often a message's software latency, 1 us on the T3D file, where a
  /// T3D router hop took tens of nanoseconds: with 2-packet buffers a
  /// credit's round trip then throttles every link.)
  double hopLatency = -1;
  /// `--target=ns3`: run every scenario with `simulator` (phasec-ns3; empty:
  /// found on PATH) and print a table per operation; without an outDir the
  /// directories go to a new temporary directory.
  bool run = false;
  std::string simulator;
  /// The baselines simulated beside phasec's schedule (phased, with
  /// barriers): those of the registry that apply.
  std::vector<std::string> baselines = {"linear_shift", "xor", "greedy"};
  /// The variants to write and run (names as in the table; empty: all).
  std::vector<std::string> variants;
  /// `--target=ns3 --compare`: a relaying operation also runs the other
  /// relaying schedules the choice weighed (SimulatedOperation::candidates,
  /// stepped as their code runs them without barriers) and its own schedule
  /// with barriers (`barrier`), beside phasec's.
  bool compare = false;
  /// `--target=ns3 --report DIR`: every variant traced, its CSVs, the
  /// table's summary.csv and report.py's index.html (seed 000's pictures
  /// from the packet level) in DIR (DIR/OPERATION with several).
  std::string reportDir;
  /// `--target=ns3`: simulator processes run at once, each on a share of
  /// the variants (the times do not depend on it), 1..kMaxJobs.
  int jobs = 1;
};

/// The most simulator processes `--ns3-jobs` starts.
constexpr int kMaxJobs = 64;

/// Every variant name the scenario can hold, in the table's order.
llvm::ArrayRef<const char *> variantNames();

/// Writes the directories; `out` gets one line per operation, and with
/// options.run the simulated table. Errors go to `diag` ("error: ...").
llvm::LogicalResult emitNs3(llvm::ArrayRef<Ns3Operation> operations,
                            const Ns3Options &options, llvm::raw_ostream &out,
                            llvm::raw_ostream &diag);

} // namespace ns3target
} // namespace phasec

#endif // PHASEC_TARGET_NS3_NS3TARGET_H
