//===- ScheduleInput.h - Read phasec-schedule/1 documents -------*- C++ -*-===//
//
// Part of phasec. MLIR-free.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Reads `shared/spec/schedule-json.md` documents back into a TopologyDesc and
/// a Schedule, so that the simulator (the `phasec-sim` tool) can simulate any
/// schedule written by `phasec --emit=schedule-json`, by hand, or by another
/// tool, without recompiling the source. The demands are the sum of the
/// transfers per ordered rank pair (the document's `collective` is not
/// re-derived: the schedule is what gets simulated).
///
/// Topology keys read: kind, dims | n, supernodes, drawers,
/// nodes_per_drawer, ranks_per_node, link_bandwidth, ll_bandwidth,
/// lr_bandwidth, d_bandwidth, injection_bandwidth, and the extra key
/// link_latency (seconds per hop). A transfer's "dirs" entry -1 in a tie
/// dimension selects the "-" way; "path" is checked against the topology's
/// route (phasec's PERCS routes between supernodes are fixed).
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_TARGET_SIMGRID_SCHEDULEINPUT_H
#define PHASEC_TARGET_SIMGRID_SCHEDULEINPUT_H

#include "phasec/Scheduling/Problem.h"
#include "phasec/Topology/Topology.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <string>
#include <vector>

namespace phasec {
namespace simgrid {

struct LoadedOperation {
  std::string operation;
  std::string kind;
  TopologyDesc desc;
  TransferSet transfers;
  Schedule schedule;
};

/// Parses one document or a {"operations": [...]} file. Errors name the
/// operation and phase at fault.
llvm::LogicalResult readScheduleJSON(llvm::StringRef text,
                                     std::vector<LoadedOperation> &out,
                                     std::string &error);

} // namespace simgrid
} // namespace phasec

#endif // PHASEC_TARGET_SIMGRID_SCHEDULEINPUT_H
