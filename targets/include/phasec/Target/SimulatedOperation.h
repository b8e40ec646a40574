//===- SimulatedOperation.h - One operation for a simulator -----*- C++ -*-===//
//
// Part of phasec. MLIR-free.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What the simulator back ends (SimGrid, SimTarget.h; ns-3, Ns3Target.h)
/// are given of one scheduled operation; each adds what only it needs.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_TARGET_SIMULATEDOPERATION_H
#define PHASEC_TARGET_SIMULATEDOPERATION_H

#include "phasec/Scheduling/Problem.h"

#include <string>
#include <utility>
#include <vector>

namespace phasec::target {

struct SimulatedOperation {
  std::string name;
  const Topology *topology = nullptr;
  const Problem *problem = nullptr;
  const Schedule *schedule = nullptr;
  /// The operation's `sync` (never auto): barriers between its phases,
  /// none (every message posted at once, in phase order) or local (a rank
  /// enters its next phase once its messages of this one are done).
  SyncKind sync = SyncKind::Barrier;
  /// `--compare` of a relaying operation: the other relaying schedules the
  /// choice weighed (compareRelaying), by the report's names.
  std::vector<std::pair<std::string, Schedule>> candidates;
};

} // namespace phasec::target

#endif // PHASEC_TARGET_SIMULATEDOPERATION_H
