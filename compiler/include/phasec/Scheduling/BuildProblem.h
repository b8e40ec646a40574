//===- BuildProblem.h - A problem from the command line --------*- C++ -*-===//
//
// Part of phasec. MLIR-free: only LLVM ADT/Support.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What the tools that take a machine and a collective from the command line
/// (phasec-emit-test, phasec-sim, phasec-sched-bench) all do before they
/// schedule: build the machine from its spec, lower the collective to its
/// traffic and check the problem. (`phasec` does the same through the IR:
/// comm-lower-collectives.) Then scheduleAuto (Algorithms.h) with the
/// algorithm the tool was given.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_SCHEDULING_BUILDPROBLEM_H
#define PHASEC_SCHEDULING_BUILDPROBLEM_H

#include "phasec/Scheduling/Collective.h"
#include "phasec/Scheduling/Problem.h"

#include "llvm/Support/Error.h"

#include <memory>

namespace phasec {

/// The machine of `spec` (TopologyDesc::parse syntax), or the parser's or
/// Topology::create's error.
llvm::Expected<std::unique_ptr<Topology>> createTopology(llvm::StringRef spec);

/// The checked problem of `collective` on `topology`, timed by the
/// machine's cost model (CostModel::onePort with `onePort`).
llvm::Expected<std::unique_ptr<Problem>>
lowerCollective(const Topology &topology, const Collective &collective,
                bool onePort = false);

} // namespace phasec

#endif // PHASEC_SCHEDULING_BUILDPROBLEM_H
