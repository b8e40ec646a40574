//===- C3Report.h - C^3 units per operation, as a report --------*- C++ -*-===//
//
// Part of phasec. MLIR-free.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `--emit=cost` and `--emit=cost-json` without the IR: an operation's
/// algorithm as C^3 rounds (operationRounds: where the supersteps come
/// from), and the table or JSON of every operation charged in seed 003's
/// C^3 units (C3Units.h), per superstep and in total, as set-ups x s +
/// coefficient x L and at the message sizes asked for, with the best
/// algorithm per message size for each kind of operation. The driver
/// (tools/driver/CostUnits.cpp) reads the machines and operations out of
/// the IR and calls these.
///
/// Where the supersteps come from (C^3 charges an algorithm's supersteps,
/// not phasec's congestion-free phases, which split a superstep further):
/// - a computed relaying schedule: its algorithm's logical rounds
///   (buildRelayRounds for the choice scheduleRelaying makes), one
///   superstep each, before packRounds splits them into phases;
/// - direct transfers (a computed or hand-written schedule of an operation
///   lowered to a transfer set): one superstep, every message sent at once,
///   the seed's 1-lev-dir, whatever phases phasec splits it into;
/// - a hand-written relaying schedule: each phase is a superstep (its
///   author wrote the algorithm phase by phase).
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_SCHEDULING_C3REPORT_H
#define PHASEC_SCHEDULING_C3REPORT_H

#include "phasec/Scheduling/C3Units.h"
#include "phasec/Scheduling/Collective.h"
#include "phasec/Scheduling/Problem.h"
#include "phasec/Scheduling/Relay.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace phasec::c3 {

/// What the report shows and at which sizes.
struct ReportOptions {
  /// Message sizes L (bytes) to evaluate the exact charge at.
  std::vector<int64_t> sizes = {16, 512, 4096, 16384};
  /// s in units, replacing every machine's setup_cost.
  std::optional<double> setupUnits;
  /// --c3-routing and --c3-sends, replacing every machine's `switching`
  /// and `sends` (unset: the machine's own).
  std::optional<Switching> routing;
  std::optional<SendProtocol> sends;
  bool json = false;
};

/// A machine's C^3 parameters and where they came from.
struct MachineUnits {
  std::string name, shape;
  Params params;
  /// Seconds per unit: l / bandwidth.
  double unitSeconds = 0;
  /// setup_cost in seconds (0 with --c3-setup).
  double setupSeconds = 0;
  bool setupFromOption = false;
};

/// One operation charged.
struct ChargedOperation {
  std::string name;
  /// Collective::getKindName: "alltoall", "rank_permute", ...
  std::string kind;
  const MachineUnits *machine = nullptr;
  std::string algorithm, seedName;
  int64_t blockBytes = 0;
  std::vector<Superstep> steps;
  AlgorithmCharge charge;
};

/// An operation's algorithm as C^3 rounds (message sizes in multiples of
/// its block size L), what the algorithm is called here and in seed 003,
/// and whether its messages gather towards a root.
struct OperationRounds {
  std::vector<std::vector<Message>> rounds;
  std::string algorithm, seedName;
  bool gathers = false;
};

/// The rounds of `collective` scheduled as `schedule` for `problem`
/// (`choice`: the relaying choice the scheduler made, for a relaying
/// operation). Failure, with `error`, where its algorithm's rounds cannot
/// be rebuilt.
llvm::FailureOr<OperationRounds>
operationRounds(const Topology &topo, const Problem &problem,
                const Schedule &schedule, bool handWritten,
                const Collective &collective, const RelayChoice &choice,
                std::string &error);

/// The report: a table, or JSON (phasec-c3-units/1). `machines` in the
/// order the operations first use them.
void writeTable(llvm::ArrayRef<ChargedOperation> charged,
                llvm::ArrayRef<const MachineUnits *> machines,
                const ReportOptions &options, llvm::raw_ostream &os);
void writeJSON(llvm::ArrayRef<ChargedOperation> charged,
               llvm::ArrayRef<const MachineUnits *> machines,
               const ReportOptions &options, llvm::raw_ostream &os);

} // namespace phasec::c3

#endif // PHASEC_SCHEDULING_C3REPORT_H
