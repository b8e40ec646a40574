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
/// - Injection (one-port): where injectionBandwidth is set, the bytes a node
///   sends to, and receives from, other nodes over the injection bandwidth.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_SCHEDULING_BOUNDS_H
#define PHASEC_SCHEDULING_BOUNDS_H

#include "phasec/Scheduling/Problem.h"

#include <vector>

namespace phasec {

struct BoundOptions {
  /// Where the topology gives no injection bandwidth, use one link's
  /// (the verifier's --one-port). Torus, mesh, hypercube only; ignored for
  /// PERCS, whose links differ.
  bool onePort = false;
};

/// All bounds assume problem.check() succeeds (out-of-range demands are
/// skipped, not diagnosed).

/// The link-load bound alone (see the file comment).
LowerBound linkLoadBound(const Problem &problem);
/// The injection bound alone (0 if there is no injection bandwidth).
LowerBound injectionBound(const Problem &problem,
                          const BoundOptions &options = {});
/// The larger of the two; `blocks` in units of the uniform block, if any.
LowerBound computeLowerBound(const Problem &problem,
                             const BoundOptions &options = {});

/// Bytes each link must carry whatever the tie choices (forced load only),
/// indexed by LinkId. Exposed for algorithms and diagnostics.
std::vector<double> forcedLinkLoad(const Problem &problem);

} // namespace phasec

#endif // PHASEC_SCHEDULING_BOUNDS_H
