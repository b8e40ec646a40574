//===- Bounds.h - Proven lower bounds on schedule time ----------*- C++ -*-===//
//
// Part of phasec. MLIR-free: only LLVM ADT/Support.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Lower bounds on the spec's schedule time that hold for EVERY schedule of a
/// problem, whatever phases and tie directions it picks:
///
/// - Link load. With dimension-order routing, a tie in dimension d changes
///   only the links used inside dimension d (before and after it the route is
///   the same), and those links all lie on one ring. So every link carries its
///   forced load (the routes with no choice) for sure, and a tie segment of
///   a ring adds bytes * k/2 either to the ring's k "+" links or to its k "-"
///   links. Bound: max over links of forced load / bw, and per ring the
///   minimum over (real) splits of the tie bytes of the larger of the "+"
///   and "-" average loads (a ring of 2: per node, over its "+" and "-" link
///   to the other node). For a uniform all-to-all on a torus this equals the
///   spec's "ties split evenly" bound exactly (by translation symmetry every
///   link of a ring carries the same).
///   PERCS routes have no choice: forced load per link over its class's
///   bandwidth.
/// - Injection: where the problem's CostModel limits injection (the
///   topology's injection bandwidth, or CostModel::onePort), the bytes a node
///   sends to, and receives from, other nodes over the injection bandwidth.
/// - Phases: each phase gives a directed link to one source rank; see
///   LowerBound::minPhases.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_SCHEDULING_BOUNDS_H
#define PHASEC_SCHEDULING_BOUNDS_H

#include "phasec/Scheduling/Problem.h"

#include <vector>

namespace phasec {

/// All bounds assume problem.check() succeeds (out-of-range demands are
/// skipped, not diagnosed).

/// The link-load bound alone (see the file comment).
LowerBound linkLoadBound(const Problem &problem);
/// The injection bound alone (0 if the cost model has no injection limit).
LowerBound injectionBound(const Problem &problem);
/// The larger of the two, `blocks` in units of the uniform block if any, and
/// the phase-count bound. Problem::bound() is the usual way in.
LowerBound computeLowerBound(const Problem &problem);

/// Bytes each link must carry whatever the tie choices (forced load only),
/// indexed by LinkId. Exposed for algorithms and diagnostics.
std::vector<double> forcedLinkLoad(const Problem &problem);

} // namespace phasec

#endif // PHASEC_SCHEDULING_BOUNDS_H
