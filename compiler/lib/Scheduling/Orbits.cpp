//===- Orbits.cpp - Orbits of a group of torus translations ---------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#include "Orbits.h"

#include "llvm/ADT/STLExtras.h"

using namespace phasec;

std::optional<TranslationOrbits>
TranslationOrbits::build(const Topology &topo, llvm::ArrayRef<NodeId> group) {
  if (topo.kind() != TopologyKind::Torus || group.empty())
    return std::nullopt;
  const int64_t numNodes = topo.numNodes();
  const unsigned D = topo.numDims();
  // Node a + node b, coordinates added modulo the extents.
  auto add = [&](NodeId a, NodeId b) {
    int64_t node = 0, stride = 1;
    for (unsigned d = 0; d < D; ++d) {
      int64_t k = topo.extent(d);
      node += (topo.coord(a, d) + topo.coord(b, d)) % k * stride;
      stride *= k;
    }
    return static_cast<NodeId>(node);
  };
  std::vector<uint8_t> inGroup(numNodes, 0);
  for (NodeId g : group) {
    if (g < 0 || g >= numNodes || inGroup[g])
      return std::nullopt;
    inGroup[g] = 1;
  }
  // The group G generates, grown one generator at a time from {0}: a
  // subset is a group iff it is as large as the group it generates. Each
  // step adds the cosets span + k g until they close, so the work is the
  // size of the span (stopped once it outgrows G).
  std::vector<uint8_t> inSpan(numNodes, 0);
  std::vector<NodeId> span{0};
  inSpan[0] = 1;
  for (NodeId g : group) {
    if (inSpan[g])
      continue;
    size_t old = span.size();
    for (size_t i = 0; i < old && span.size() <= group.size(); ++i)
      for (NodeId x = add(span[i], g); !inSpan[x]; x = add(x, g)) {
        inSpan[x] = 1;
        span.push_back(x);
      }
    if (span.size() > group.size())
      return std::nullopt;
  }
  if (span.size() != group.size() ||
      !llvm::all_of(span, [&](NodeId x) { return inGroup[x] != 0; }))
    return std::nullopt;

  TranslationOrbits out;
  out.groupSize_ = group.size();
  int64_t stride = 1;
  for (unsigned d = 0; d < D; ++d) {
    out.extents_.push_back(topo.extent(d));
    out.strides_.push_back(stride);
    stride *= topo.extent(d);
  }
  out.coords_.resize(static_cast<size_t>(numNodes) * D);
  for (NodeId n = 0; n < numNodes; ++n)
    for (unsigned d = 0; d < D; ++d)
      out.coords_[n * D + d] = static_cast<int32_t>(topo.coord(n, d));
  out.groupCoords_.resize(group.size() * D);
  for (size_t i = 0; i < group.size(); ++i)
    for (unsigned d = 0; d < D; ++d)
      out.groupCoords_[i * D + d] =
          static_cast<int32_t>(topo.coord(group[i], d));
  out.ranksPerNode_ = topo.ranksPerNode();
  // The links leaving a node: the same dimensions and directions at every
  // node of a torus (none in a dimension of extent 1).
  out.slotOf_.assign(2 * D, 0);
  for (unsigned d = 0; d < D; ++d)
    for (int dir : {+1, -1})
      if (topo.neighborLink(0, d, dir) != kNoLink)
        out.slotOf_[d * 2 + (dir < 0)] = out.slots_++;
  // Cosets in node order: the first node not yet in one is its base.
  constexpr uint32_t kNone = ~uint32_t(0);
  out.orbit_.assign(numNodes, kNone);
  for (NodeId n = 0; n < numNodes; ++n) {
    if (out.orbit_[n] != kNone)
      continue;
    uint32_t id = static_cast<uint32_t>(out.bases_.size());
    out.bases_.push_back(n);
    for (NodeId g : group)
      out.orbit_[add(n, g)] = id;
  }
  return out;
}

const TranslationOrbits *ScheduleOrbits::of(const Phase &phase) {
  if (phase.rules.empty() || !phase.transfers.empty() || !phase.chunks.empty())
    return nullptr;
  uint32_t group = phase.rules.front().group;
  if (group >= translations_.size() ||
      llvm::any_of(phase.rules,
                   [&](const PhaseRule &r) { return r.group != group; }))
    return nullptr;
  std::optional<std::optional<TranslationOrbits>> &slot = built_[group];
  if (!slot)
    slot.emplace(TranslationOrbits::build(topo_, translations_[group]));
  return *slot ? &**slot : nullptr;
}
