//===- MeshQuotient.cpp - All-to-all on a mesh by its mirror images -------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// A mesh has no translations, but it has mirrors: reflecting any set of its
// dimensions (x_i -> k_i - 1 - x_i) maps the mesh onto itself and keeps
// dimension-order routes (a monotone run in dimension i stays a monotone run
// in dimension i). Where every extent is even no coordinate is fixed, and
// the 2^D mirror images of one transfer never share a link or a port:
//   a reflection g != id changes the row of a route's run in dimension i
//   (the coordinates the run does not move) unless it reflects only
//   dimension i, and then it reverses the run's direction; the same holds
//   for the source and destination nodes, whose images are other nodes.
// So an orbit of transfers can go into one phase whole, and two orbits
// conflict in a phase iff their representatives use links (or ports) of the
// same orbit: the schedule of the whole mesh is a packing of the orbits,
// with one channel per orbit of links (and of nodes, on one-port machines),
// 2^D times smaller than the mesh's own (32704 items and 464 channels on a
// one-port 8x8x8). The bound stays: the middle links of every dimension
// carry the same load, and their orbits carry it too.
//
// The packing: a phase-major greedy (each phase takes the orbits whose
// channels have the most remaining load, weighted by how close each channel
// is to the most loaded one), then the quotient's tabu search
// (QuotientSearch.h) down to the bound. On the one-port 8x8x8 the greedy
// takes 1082 phases and the search 1072 (bound 1024); the greedy-priority
// list scheduler on the whole mesh takes 1087, and the search on the whole
// mesh does not improve its first-fit start (1101).
//
//===----------------------------------------------------------------------===//

#include "AlgorithmsInternal.h"
#include "QuotientSearch.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace phasec;

namespace {

/// Orbits of transfers the construction packs at most (the greedy sorts
/// the unplaced orbits once per phase): one-port 8x8x8 has 32704, 10x10x10
/// 124875.
constexpr uint64_t kMaxOrbits = 150000;
/// Placement evaluations of the tabu search: a count, never a time, so the
/// result does not depend on the machine. A move evaluates every phase, so
/// kMovesPerOrbit moves per orbit, at most kSearchBudget (about 6 s on
/// one-port 8x8x8, where it takes the greedy's 1082 phases to 1072).
constexpr uint64_t kSearchBudget = 200000000;
constexpr uint64_t kMovesPerOrbit = 8;
/// The greedy weighs a channel with remaining load r, where the most loaded
/// link orbit has T, by kDecay^(T - r), kDecay = e^-0.3: channels far below
/// the most loaded ones barely count. (e^-0.3 gave the fewest phases on
/// one-port 8x8x8 of e^-0.1, e^-0.3 and e^-1, and of powers r^e, e in 1..8.)
constexpr double kDecay = 0.7408182206817179;

/// The reflection of node u in the dimensions set in `g`.
NodeId reflect(const Topology &topo, NodeId u, unsigned g,
               llvm::SmallVectorImpl<int64_t> &c) {
  topo.coords(u, c);
  for (unsigned d = 0; d < topo.numDims(); ++d)
    if ((g >> d) & 1)
      c[d] = topo.extent(d) - 1 - c[d];
  return topo.nodeAt(c);
}

} // namespace

bool phasec::detail::meshQuotientApplies(const Problem &problem,
                                         const SchedulerOptions &,
                                         std::string *whyNot) {
  const Topology &topo = problem.topology();
  bool machineOk =
      topo.kind() == TopologyKind::Mesh && topo.ranksPerNode() == 1 &&
      llvm::all_of(topo.dims(), [](int64_t k) { return k % 2 == 0; });
  if (!detail::constructionApplies(problem, machineOk, "the mesh quotient",
                                   "a mesh with even extents and one rank "
                                   "per node",
                                   whyNot))
    return false;
  uint64_t N = static_cast<uint64_t>(topo.numNodes());
  if (N * (N - 1) >> topo.numDims() <= kMaxOrbits)
    return true;
  if (whyNot)
    *whyNot = llvm::formatv("the mesh quotient construction packs at most {0} "
                            "orbits of transfers; this mesh has {1} ({2} "
                            "transfers in {3} mirror images each)",
                            kMaxOrbits, N * (N - 1) >> topo.numDims(),
                            N * (N - 1), uint64_t(1) << topo.numDims());
  return false;
}

llvm::LogicalResult
phasec::scheduleMeshQuotient(const Problem &problem, Schedule &schedule,
                             const SchedulerOptions &options,
                             SchedulerReport &report) {
  if (!detail::meshQuotientApplies(problem, options, &report.error))
    return llvm::failure();
  const Topology &topo = problem.topology();
  const int64_t block = *completeUniformAlltoall(problem);
  const unsigned D = topo.numDims(), G = 1u << D;
  const NodeId N = static_cast<NodeId>(topo.numNodes());
  bool onePort = detail::isOnePort(problem);

  // Channels: the orbits of links, then (one-port) of nodes as senders and
  // as receivers. No link or node is its own mirror image (even extents),
  // so every orbit has G members.
  llvm::SmallVector<int64_t, 8> c;
  std::vector<uint32_t> linkChannel(topo.numLinks(), UINT32_MAX);
  uint32_t numLinkChannels = 0;
  for (LinkId l = 0; l < static_cast<LinkId>(topo.numLinks()); ++l) {
    if (linkChannel[l] != UINT32_MAX)
      continue;
    const Link &link = topo.link(l);
    for (unsigned g = 0; g < G; ++g) {
      LinkId m = topo.linkBetween(reflect(topo, link.src, g, c),
                                  reflect(topo, link.dst, g, c));
      assert(m != kNoLink && "a mirror image of a mesh link is a link");
      linkChannel[m] = numLinkChannels;
    }
    ++numLinkChannels;
  }
  std::vector<uint32_t> nodeChannel(N, UINT32_MAX);
  uint32_t numNodeChannels = 0;
  for (NodeId u = 0; u < N; ++u) {
    if (nodeChannel[u] != UINT32_MAX)
      continue;
    for (unsigned g = 0; g < G; ++g)
      nodeChannel[reflect(topo, u, g, c)] = numNodeChannels;
    ++numNodeChannels;
  }
  detail::QuotientBaseProblem bp;
  bp.k = 1;
  bp.numChannels = numLinkChannels + (onePort ? 2 * numNodeChannels : 0);
  // Channel ids are 16-bit; the orbit limit keeps them far below (at most
  // 2 (D + 1) N / 2^D channels).
  assert(bp.numChannels <= UINT16_MAX && "too many channels for the packer");

  // Items: one representative per orbit, the one whose source lies in the
  // low corner (every coordinate below half the extent: exactly one mirror
  // image of each node does).
  std::vector<std::pair<NodeId, NodeId>> reps;
  std::vector<uint32_t> load(bp.numChannels, 0);
  llvm::SmallVector<LinkId, 64> route;
  for (NodeId s = 0; s < N; ++s) {
    topo.coords(s, c);
    bool low = true;
    for (unsigned d = 0; d < D; ++d)
      low &= 2 * c[d] < topo.extent(d);
    if (!low)
      continue;
    for (NodeId t = 0; t < N; ++t) {
      if (t == s)
        continue;
      detail::QuotientItem it;
      detail::QuotientOption o;
      topo.route(s, t, 0, route);
      for (LinkId l : route)
        o.masks.push_back({static_cast<uint16_t>(linkChannel[l]), 1});
      if (onePort) {
        o.masks.push_back(
            {static_cast<uint16_t>(numLinkChannels + nodeChannel[s]), 1});
        o.masks.push_back(
            {static_cast<uint16_t>(numLinkChannels + numNodeChannels +
                                   nodeChannel[t]),
             1});
      }
      for (auto [ch, m] : o.masks)
        ++load[ch];
      it.len = static_cast<unsigned>(route.size());
      it.options.push_back(std::move(o));
      bp.items.push_back(std::move(it));
      reps.push_back({s, t});
    }
  }

  // The greedy, phase by phase. Weights by repeated multiplication, not
  // std::exp, so they are the same on every platform; sorts are stable and
  // sums run in one order, so the phases are too.
  uint32_t maxLoad = *std::max_element(load.begin(), load.end());
  std::vector<double> closeness(maxLoad + 1);
  closeness[0] = 1;
  for (size_t i = 1; i < closeness.size(); ++i)
    closeness[i] = closeness[i - 1] * kDecay;
  std::vector<uint32_t> remaining = load, left(bp.items.size());
  std::iota(left.begin(), left.end(), 0);
  std::vector<double> weight(bp.numChannels), priority(bp.items.size());
  std::vector<uint8_t> used(bp.numChannels);
  detail::QuotientPacking start;
  while (!left.empty()) {
    uint32_t top = 0;
    for (uint32_t ch = 0; ch < numLinkChannels; ++ch)
      top = std::max(top, remaining[ch]);
    for (uint32_t ch = 0; ch < bp.numChannels; ++ch)
      // Among channels far below the top, more remaining load still ranks
      // first (1083 phases without this term, 1079 with it).
      weight[ch] = (remaining[ch] >= top ? 1 : closeness[top - remaining[ch]]) +
                   1e-9 * remaining[ch];
    for (uint32_t x : left) {
      double p = 0;
      for (auto [ch, m] : bp.items[x].options[0].masks)
        p += weight[ch];
      priority[x] = p;
    }
    std::stable_sort(left.begin(), left.end(), [&](uint32_t a, uint32_t b) {
      return priority[a] > priority[b];
    });
    std::fill(used.begin(), used.end(), 0);
    start.emplace_back();
    llvm::erase_if(left, [&](uint32_t x) {
      const auto &masks = bp.items[x].options[0].masks;
      if (llvm::any_of(masks, [&](auto m) { return used[m.first]; }))
        return false;
      for (auto [ch, m] : masks) {
        used[ch] = 1;
        --remaining[ch];
      }
      start.back().push_back({x, 0, 0});
      return true;
    });
  }
  size_t target =
      static_cast<size_t>(std::ceil(problem.bound().directBlocks - 1e-9));
  detail::progress(problem, options,
                   llvm::formatv("mesh quotient: {0} orbits in {1} phases by "
                                 "the greedy (bound {2}); searching",
                                 bp.items.size(), start.size(), target));
  detail::QuotientSearchStats st;
  detail::QuotientPacking packed = detail::improveQuotientPacking(
      bp, start, target,
      std::min(kSearchBudget, kMovesPerOrbit * bp.items.size() * start.size()),
      options.seed, st);
  std::string error;
  (void)error;
  assert(detail::checkQuotientPacking(bp, packed, error) &&
         "tabu search returned an invalid packing");
  report.notes.push_back(llvm::formatv(
      "mesh quotient: {0} mirror images, {1} orbits over {2} link and {3} "
      "port channels; greedy {4} phases, tabu search {5} ({6} moves, bound "
      "{7})",
      G, bp.items.size(), numLinkChannels, onePort ? 2 * numNodeChannels : 0,
      start.size(), packed.size(), st.iterations, target));

  schedule = Schedule();
  schedule.algorithm = "mesh-quotient";
  schedule.phases.resize(packed.size());
  for (size_t p = 0; p < packed.size(); ++p) {
    Phase &phase = schedule.phases[p];
    phase.transfers.reserve(packed[p].size() * G);
    for (const detail::QuotientPlacement &pl : packed[p]) {
      auto [s, t] = reps[pl.item];
      for (unsigned g = 0; g < G; ++g)
        phase.transfers.push_back(
            {reflect(topo, s, g, c), reflect(topo, t, g, c), block, 0});
    }
  }
  schedule.canonicalize();
  detail::finalizeReport(problem, schedule, options, report);
  return llvm::success();
}
