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
/// Link load holds only for schedules that send each demand along the
/// machine's routes (LowerBound::directTime). The operation's bound, which
/// every schedule meets, relaying or not (LowerBound::time), is the larger of
/// injection and the cut bound: for a set of nodes, what only they hold and
/// others need crosses the links leaving it at least once (CutBounds.cpp).
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
/// The operation's bound (`time`: injection and cuts) and the direct one
/// (`directTime`: the larger of link load and injection), `blocks` in units of
/// the uniform block if any, and the phase-count bound. Relaying problems:
/// their node and cut bounds. Problem::bound() is the usual way in.
LowerBound computeLowerBound(const Problem &problem);

/// The cut bound alone (CutBounds.cpp): each node alone over its links (and
/// injection port), and cyclic windows of a grid dimension's coordinates or
/// of PERCS supernodes and drawers. Holds for every route and relay.
LowerBound cutBound(const Problem &problem);

/// Raises `bound` to what `sent[node]` / `received[node]` bytes take over the
/// node's links (or its injection port where slower).
void cutSingletons(const Problem &problem, llvm::ArrayRef<double> sent,
                   llvm::ArrayRef<double> received, LowerBound &bound);

/// Bytes each link must carry whatever the tie choices (forced load only),
/// indexed by LinkId. Exposed for algorithms and diagnostics.
std::vector<double> forcedLinkLoad(const Problem &problem);

} // namespace phasec

#endif // PHASEC_SCHEDULING_BOUNDS_H
