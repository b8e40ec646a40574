//===- Orbits.h - Orbits of a group of torus translations -------*- C++ -*-===//
//
// Part of phasec. Private to compiler/lib/Scheduling.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What lets the readers of a phase held by rule (Phase::rules) work from
/// its representatives instead of every translate.
///
/// Let G be a group of translations of a torus and a phase the translates
/// g.r of representatives r by every g in G. Routes on a torus depend only
/// on the coordinate differences (dimension order, the shorter way, the
/// transfer's ties), so the route of g.r is the route of r moved by g, and
/// every bandwidth is the same. G acts freely on nodes and on links (a
/// translation other than 0 moves every node), so a link l is crossed by
/// exactly one translate of r for every link of r's route in the orbit
/// G.l: the load of l is the sum, over the representatives, of the bytes
/// of their routes' links in l's orbit, the same for every link of the
/// orbit. Likewise a node's (a rank's) sends and receives are those of the
/// representatives whose source (destination) is in its orbit. A phase's
/// time is then the largest over the orbits, which the representatives
/// give: 20x20x20 routes 400 K representatives instead of 64 M transfers.
///
/// This holds only if G is a group (closed; its orbits are then its
/// cosets) whose translations are distinct, on a torus (a mesh has no
/// translations, a hypercube's links change direction under them):
/// `TranslationOrbits::build` checks that and gives none otherwise, and
/// the readers list the translates as before.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_SCHEDULING_ORBITS_H
#define PHASEC_SCHEDULING_ORBITS_H

#include "phasec/Scheduling/Problem.h"

#include <memory>
#include <optional>
#include <vector>

namespace phasec {

class TranslationOrbits {
public:
  /// The orbits of `group` (translations given as the nodes with those
  /// coordinates) on `topo`; none unless `topo` is a torus, every element
  /// is a node of it, no two are equal and together they form a group.
  static std::optional<TranslationOrbits> build(const Topology &topo,
                                                llvm::ArrayRef<NodeId> group);

  /// |G|.
  size_t size() const { return groupSize_; }
  size_t numNodeOrbits() const { return bases_.size(); }
  size_t numLinkOrbits() const { return bases_.size() * slots_; }
  size_t numRankOrbits() const { return bases_.size() * ranksPerNode_; }
  uint32_t nodeOrbit(NodeId n) const { return orbit_[n]; }
  /// The orbit of `rank`: its node's orbit and its core.
  uint32_t rankOrbit(RankId rank) const {
    return static_cast<uint32_t>(orbit_[rank / ranksPerNode_] * ranksPerNode_ +
                                 rank % ranksPerNode_);
  }
  /// The orbit of link `l`: its source node's orbit and its place among
  /// the links leaving a node (dimension and direction).
  uint32_t linkOrbit(const Topology &topo, LinkId l) const {
    const Link &link = topo.link(l);
    return static_cast<uint32_t>(orbit_[link.src] * slots_ +
                                 slotOf_[link.dim * 2 + (link.dir < 0)]);
  }
  /// The node of the orbit every other is a translate of (the smallest).
  NodeId base(uint32_t orbit) const { return bases_[orbit]; }

  /// Node `n` moved by the group's i-th translation.
  NodeId translate(NodeId n, size_t i) const {
    int64_t node = 0;
    for (size_t d = 0, D = extents_.size(); d < D; ++d) {
      int64_t x = coords_[n * D + d] + groupCoords_[i * D + d];
      node += (x < extents_[d] ? x : x - extents_[d]) * strides_[d];
    }
    return static_cast<NodeId>(node);
  }
  /// The translation from node b to node a (a - b), as the node with its
  /// coordinates.
  NodeId difference(NodeId a, NodeId b) const {
    int64_t node = 0;
    for (size_t d = 0, D = extents_.size(); d < D; ++d) {
      int64_t x = coords_[a * D + d] - coords_[b * D + d];
      node += (x < 0 ? x + extents_[d] : x) * strides_[d];
    }
    return static_cast<NodeId>(node);
  }

private:
  TranslationOrbits() = default;
  /// Every node's coordinates and the group's, D per node.
  std::vector<int32_t> coords_, groupCoords_;
  llvm::SmallVector<int64_t, 4> extents_, strides_;
  size_t groupSize_ = 0;
  int64_t ranksPerNode_ = 1;
  /// Links leaving every node; slotOf_[dim * 2 + (dir < 0)] numbers them.
  uint32_t slots_ = 0;
  llvm::SmallVector<uint32_t, 8> slotOf_;
  std::vector<uint32_t> orbit_;
  std::vector<NodeId> bases_;
};

/// The orbits of a schedule's translation groups, built when first asked
/// for (one pass over the nodes per group) and kept for the schedule's
/// readers.
class ScheduleOrbits {
public:
  ScheduleOrbits(const Topology &topo,
                 llvm::ArrayRef<std::vector<NodeId>> translations)
      : topo_(topo), translations_(translations), built_(translations.size()) {}
  /// The orbits phase `phase` is read by: its transfers are all held by
  /// rules of one group that TranslationOrbits accepts (null otherwise:
  /// list the phase).
  const TranslationOrbits *of(const Phase &phase);

private:
  const Topology &topo_;
  llvm::ArrayRef<std::vector<NodeId>> translations_;
  /// Per group: not tried yet, or tried (the orbits or none).
  std::vector<std::optional<std::optional<TranslationOrbits>>> built_;
};

} // namespace phasec

#endif // PHASEC_SCHEDULING_ORBITS_H
