//===- Topology.h - Machine models, links and routing -----------*- C++ -*-===//
//
// Part of phasec. MLIR-free: only LLVM ADT/Support.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The machines phasec schedules for: tori, meshes, hypercubes and IBM PERCS
/// supernodes, with the node numbering, the directed links and the fixed
/// routing of `shared/spec/schedule-json.md`. The scheduler, the verifier, the
/// bounds and the back ends all route through this one class so that they can
/// never disagree about which links a transfer uses.
///
/// Node numbering: dimension 0 varies fastest,
/// `node = x0 + d0 * (x1 + d1 * (x2 + ...))`. Rank `r` lives on node
/// `r / ranksPerNode`.
///
/// Routing (torus, mesh, hypercube): dimension order (dimension 0 first
/// unless `dimOrder` says otherwise); in each dimension the shorter way round;
/// where both ways are equally short (an even ring of extent k at distance
/// k/2, including the ring of 2 with its distinct "+" and "-" links) the "+"
/// direction unless the transfer's TieMask selects "-" for that dimension.
///
/// Routing (PERCS): inside a supernode the direct LL (same drawer) or LR
/// (other drawer) link. Two supernodes lo < hi are joined by n D cables
/// (TopologyDesc::dLinksPerPair, a directed link each way): cable i joins
/// local node i mod m of lo and local node (i mod m + i / m) mod m of hi
/// (m nodes per supernode), so every cable joins a different pair of nodes
/// and, when n >= m, every node has n / m or n / m + 1 cables to each other
/// supernode, landing at consecutive nodes. A transfer between supernodes
/// crosses one cable (dCable): the one joining its two nodes if there is
/// one (one hop), else one of its source's cables (then an LL/LR hop to the
/// destination), or, when n < m (cable i joins the two local nodes i), the
/// source's cable if it has one, else the destination's, else cable
/// (src + dst) mod n (an LL/LR hop at either end). The JSON writer
/// emits such routes as an explicit `path`.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_TOPOLOGY_TOPOLOGY_H
#define PHASEC_TOPOLOGY_TOPOLOGY_H

#include "phasec/Core/TopologyDesc.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>
#include <string>
#include <vector>

namespace phasec {

using NodeId = int32_t;
using RankId = int32_t;
using LinkId = int32_t;

/// No link / no node.
constexpr LinkId kNoLink = -1;

enum class LinkClass : uint8_t { Network, LL, LR, D };

/// "network", "LL", "LR", "D".
llvm::StringRef stringifyLinkClass(LinkClass cls);

/// One directed link.
struct Link {
  NodeId src, dst;
  LinkClass cls;
  /// Torus/mesh/hypercube: the dimension, and +1/-1 for the direction the
  /// link moves the coordinate. PERCS: -1 and 0.
  int8_t dim;
  int8_t dir;
  double bandwidth;
};

/// Bit d set: in dimension d, where the distance is exactly k/2 on an even
/// ring (k >= 2; for k == 2 the "+"/"-" links of the spec), travel "-".
/// Bits of dimensions without a tie must be clear (see Topology::tieMask).
using TieMask = uint32_t;

class Topology {
public:
  /// Validates `desc` (extents >= 1, at most 32 dimensions, < 2^31 nodes and
  /// ranks, positive bandwidths, a valid dimOrder, ...) and builds the links.
  static llvm::FailureOr<Topology> create(const TopologyDesc &desc,
                                          std::string &error);

  const TopologyDesc &desc() const { return desc_; }
  TopologyKind kind() const { return desc_.kind; }
  bool isPercs() const { return desc_.kind == TopologyKind::Percs; }
  /// Torus, mesh, hypercube: routes by coordinates.
  bool isGrid() const { return !isPercs(); }

  int64_t numNodes() const { return numNodes_; }
  int64_t numRanks() const { return numNodes_ * desc_.ranksPerNode; }
  int64_t ranksPerNode() const { return desc_.ranksPerNode; }
  NodeId nodeOfRank(RankId r) const {
    return static_cast<NodeId>(r / desc_.ranksPerNode);
  }

  /// Grid topologies: number of dimensions and their extents. PERCS: 0.
  unsigned numDims() const { return static_cast<unsigned>(dims_.size()); }
  int64_t extent(unsigned dim) const { return dims_[dim]; }
  llvm::ArrayRef<int64_t> dims() const { return dims_; }
  /// The routing order of the dimensions (always complete).
  llvm::ArrayRef<unsigned> dimOrder() const { return order_; }
  void coords(NodeId node, llvm::SmallVectorImpl<int64_t> &out) const;
  int64_t coord(NodeId node, unsigned dim) const {
    if (!coordTable_.empty())
      return coordTable_[static_cast<size_t>(node) * dims_.size() + dim];
    return (node / strides_[dim]) % dims_[dim];
  }
  NodeId nodeAt(llvm::ArrayRef<int64_t> coords) const;

  size_t numLinks() const { return links_.size(); }
  const Link &link(LinkId id) const { return links_[id]; }
  llvm::ArrayRef<Link> links() const { return links_; }
  /// Grid topologies: the link leaving `node` in `dim`, direction +1/-1;
  /// kNoLink at a mesh boundary or in a dimension of extent 1.
  LinkId neighborLink(NodeId node, unsigned dim, int dir) const;
  /// "0->1 (dim 2 +)" for grids, "0->8 (LR)" for PERCS: for diagnostics.
  std::string describeLink(LinkId id) const;
  /// PERCS: the direct LL/LR link inside a supernode, or the D link between
  /// two gateways; grid: the link between neighbours (the "+" link of a ring
  /// of 2). kNoLink if there is none.
  LinkId linkBetween(NodeId src, NodeId dst) const;

  /// Dimensions in which src->dst is a tie (distance k/2 on an even ring).
  /// 0 for meshes, hypercubes and PERCS.
  TieMask tieMask(NodeId src, NodeId dst) const;

  /// The spec's "dirs" of a transfer (one entry per dimension: 1, -1 or 0
  /// for the default) as a TieMask. An entry may name a direction only if it
  /// is the shorter one or a tie; anything else (a longer way, a value other
  /// than -1/0/1, too many entries, dirs on PERCS) is an error.
  llvm::FailureOr<TieMask> tiesFromDirs(NodeId src, NodeId dst,
                                        llvm::ArrayRef<int64_t> dirs,
                                        std::string &error) const;
  /// The inverse for writers: 1 or -1 in the tie dimensions, 0 elsewhere.
  void dirsFromTies(NodeId src, NodeId dst, TieMask ties,
                    llvm::SmallVectorImpl<int64_t> &dirs) const;

  /// The links of the route src->dst, in order (cleared first). `ties` must
  /// be a subset of tieMask(src, dst); extra bits are ignored. Empty if
  /// src == dst. No heap allocation if `out` has enough capacity.
  void route(NodeId src, NodeId dst, TieMask ties,
             llvm::SmallVectorImpl<LinkId> &out) const;
  /// The nodes visited, src first, dst last (just src if src == dst).
  void routeNodes(NodeId src, NodeId dst, TieMask ties,
                  llvm::SmallVectorImpl<NodeId> &out) const;
  /// Number of links of the route.
  int64_t hops(NodeId src, NodeId dst) const;

  /// The route of rank-level transfers; empty for two ranks on one node.
  void routeRanks(RankId src, RankId dst, TieMask ties,
                  llvm::SmallVectorImpl<LinkId> &out) const {
    route(nodeOfRank(src), nodeOfRank(dst), ties, out);
  }

  // PERCS structure.
  int64_t numSupernodes() const { return desc_.supernodes; }
  int64_t nodesPerSupernode() const {
    return desc_.drawers * desc_.nodesPerDrawer;
  }
  int64_t supernodeOf(NodeId n) const { return n / nodesPerSupernode(); }
  /// Global drawer index: supernode * drawers + drawer.
  int64_t drawerOf(NodeId n) const { return n / desc_.nodesPerDrawer; }
  /// D cables between two supernodes (0 with one supernode).
  int64_t dLinksPerPair() const { return dLinks_; }
  /// The ends of cable i between supernodes a != b, from a's side.
  void dCableEnds(int64_t a, int64_t b, int64_t i, NodeId &from,
                  NodeId &to) const;
  /// The cable the route from src to dst (different supernodes) crosses.
  int64_t dCable(NodeId src, NodeId dst) const;

  /// Smallest and largest link bandwidth.
  double minBandwidth() const { return minBw_; }
  double maxBandwidth() const { return maxBw_; }

private:
  Topology() = default;
  TopologyDesc desc_;
  int64_t numNodes_ = 0;
  llvm::SmallVector<int64_t, 4> dims_, strides_;
  llvm::SmallVector<unsigned, 4> order_;
  std::vector<Link> links_;
  /// PERCS: D cables per supernode pair.
  int64_t dLinks_ = 0;
  /// Grid: (node * numDims + dim) * 2 + (dir < 0 ? 1 : 0) -> LinkId.
  std::vector<LinkId> neighbor_;
  /// node * numDims + dim -> coordinate, for machines small enough (routing
  /// is on the verifier's hot path; divisions dominate otherwise).
  std::vector<int32_t> coordTable_;
  double minBw_ = 0, maxBw_ = 0;
};

} // namespace phasec

#endif // PHASEC_TOPOLOGY_TOPOLOGY_H
