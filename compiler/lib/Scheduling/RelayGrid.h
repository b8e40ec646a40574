//===- RelayGrid.h - Relaying algorithms along grid dimensions --*- C++ -*-===//
//
// Part of phasec. Private to the scheduling library.
//
//===----------------------------------------------------------------------===//

#ifndef PHASEC_SCHEDULING_RELAYGRID_H
#define PHASEC_SCHEDULING_RELAYGRID_H

#include "phasec/Scheduling/Relay.h"

namespace phasec {

/// Whether the members of `spec` are every rank of the torus, mesh or
/// hypercube `topo`, in order, one per node: member x0 + d0 (x1 + ...)
/// sits at coordinates (x0, x1, ...). The grid algorithms (dimension_wise,
/// the k-level families, the snake) need it.
bool isWholeGridInOrder(const Topology *topo, const ChunkSpec &spec);

/// A ring over a line of `extent` members without a wrap (a mesh line),
/// folded: the even coordinates up, then the odd ones down (0 2 4 6 7 5 3
/// 1), every step at most two links and each directed link used once a
/// round, where coordinate order sends the last step back over the whole
/// line. The coordinate at ring position `pos`, and the ring position of
/// coordinate `c`.
int64_t foldedLineCoordinate(int64_t extent, int64_t pos);
int64_t foldedLinePosition(int64_t extent, int64_t c);

/// Dimension-wise allreduce and allgather on a torus, mesh or hypercube
/// whose every node holds one member (the group is the machine, in rank
/// order). The data is cut into `parts` parts. Part p walks the dimensions
/// starting at dimension p mod d (d = the dimensions of extent > 1), and
/// parts p >= d run their rings the other way round: allreduce as a ring
/// reduce-scatter along each dimension in turn, then ring allgathers back
/// in reverse order; allgather as ring allgathers along each dimension of
/// everything gathered so far. All parts advance in the same rounds, each
/// on its own dimension (and direction), so that a round keeps several of
/// a node's links busy instead of one: a ring over all members uses one.
llvm::FailureOr<std::vector<RelayRound>>
dimensionWiseRounds(const ChunkSpec &spec, int64_t parts, const Topology *topo,
                    std::string &error);

} // namespace phasec

#endif // PHASEC_SCHEDULING_RELAYGRID_H
