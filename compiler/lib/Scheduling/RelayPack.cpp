//===- RelayPack.cpp - rounds into congestion-free phases -----------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// packRounds: a relay's rounds on a machine, each round's transfers cut
/// into congestion-free phases on the machine's routes.
///
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Relay.h"

#include "RelayGrid.h"
#include "RelayInternal.h"

#include "phasec/Solver/Z3Solver.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <tuple>

using namespace phasec;
using namespace phasec::relay_detail;

namespace {
/// The directed links each phase has given to a source rank.
struct PhaseLinks {
  llvm::DenseMap<LinkId, RankId> owner;
  bool fits(llvm::ArrayRef<LinkId> route, RankId src) const {
    for (LinkId l : route) {
      auto it = owner.find(l);
      if (it != owner.end() && it->second != src)
        return false;
    }
    return true;
  }
  void take(llvm::ArrayRef<LinkId> route, RankId src) {
    for (LinkId l : route)
      owner[l] = src;
  }
};
} // namespace

/// The tie masks worth trying for a route: none, all, each single tie.
static llvm::SmallVector<TieMask, 4> tieOptions(TieMask allowed) {
  llvm::SmallVector<TieMask, 4> out{0};
  if (!allowed)
    return out;
  out.push_back(allowed);
  for (unsigned d = 0; d < 8 * sizeof(TieMask); ++d) {
    TieMask bit = TieMask(1) << d;
    if ((allowed & bit) && bit != allowed)
      out.push_back(bit);
  }
  return out;
}

FailureOr<Schedule> phasec::packRounds(const Topology &topo,
                                       const ChunkSpec &spec,
                                       llvm::ArrayRef<RelayRound> rounds,
                                       std::string &error) {
  Schedule schedule;
  llvm::SmallVector<LinkId, 64> route;
  // A barrier's chunk only carries news of arrivals, and a member that
  // forwards more news than it had when the round began does no harm
  // (ReplayRules): where keeping the reads first would congest (a
  // dissemination round on a ring of 5), its rounds may spread over phases
  // in any order.
  const bool mayReadLate =
      getTraits(spec.kind).family == CollectiveFamily::Dataless;
  auto packRound = [&](size_t r, bool orderReads) -> LogicalResult {
    const RelayRound &round = rounds[r];
    const size_t m = round.size();
    // A transfer that reads a (rank, chunk) must not come after one that
    // overwrites it. Through one node per (rank, chunk) key (reader -> key
    // -> writer) the constraints take O(chunks moved) edges, not one per
    // reader-writer pair. Cycles (exchanges) must share a phase.
    llvm::DenseMap<std::pair<int32_t, int64_t>, size_t> keys;
    auto keyOf = [&](int32_t rank, int64_t chunk) {
      auto [it, inserted] = keys.try_emplace({rank, chunk}, m + keys.size());
      return it->second;
    };
    std::vector<std::pair<size_t, size_t>> edges;
    for (size_t i = 0; i < m; ++i)
      for (int64_t c : round[i].chunks)
        edges.push_back({keyOf(round[i].dst, c), i}); // key -> writer
    for (size_t i = 0; i < m && orderReads; ++i)
      for (int64_t c : round[i].chunks) {
        auto it = keys.find({round[i].src, c});
        if (it != keys.end())
          edges.push_back({i, it->second}); // reader -> key
      }
    // A copy into a (rank, chunk) that the round also reduces into comes
    // first (a round is a set: a copy after a reduction would drop it),
    // through a second node per key: copy -> copied -> reduction. In one
    // phase the replay applies copies first.
    llvm::DenseMap<std::pair<int32_t, int64_t>, size_t> copied;
    const size_t firstCopied = m + keys.size();
    for (size_t i = 0; i < m; ++i)
      if (!round[i].reduce)
        for (int64_t c : round[i].chunks) {
          auto [it, inserted] = copied.try_emplace({round[i].dst, c},
                                                   firstCopied + copied.size());
          edges.push_back({i, it->second}); // copy -> copied
        }
    for (size_t i = 0; i < m; ++i)
      if (round[i].reduce)
        for (int64_t c : round[i].chunks) {
          auto it = copied.find({round[i].dst, c});
          if (it != copied.end())
            edges.push_back({it->second, i}); // copied -> reduction
        }
    const size_t nodes = firstCopied + copied.size();
    std::vector<llvm::SmallVector<size_t, 2>> succ(nodes), pred(nodes);
    for (auto [a, b2] : edges) {
      succ[a].push_back(b2);
      pred[b2].push_back(a);
    }
    // Kosaraju: finishing order on succ, then components on pred in
    // reverse finishing order come out in topological order.
    std::vector<size_t> order;
    std::vector<char> seen(nodes, 0);
    for (size_t s0 = 0; s0 < nodes; ++s0) {
      if (seen[s0])
        continue;
      std::vector<std::pair<size_t, size_t>> stack{{s0, 0}};
      seen[s0] = 1;
      while (!stack.empty()) {
        auto &[v, next] = stack.back();
        if (next < succ[v].size()) {
          size_t w = succ[v][next++];
          if (!seen[w]) {
            seen[w] = 1;
            stack.push_back({w, 0});
          }
          continue;
        }
        order.push_back(v);
        stack.pop_back();
      }
    }
    std::vector<int64_t> component(nodes, -1);
    std::vector<std::vector<size_t>> components;
    for (size_t idx = order.size(); idx-- > 0;) {
      size_t s0 = order[idx];
      if (component[s0] >= 0)
        continue;
      components.emplace_back();
      std::vector<size_t> stack{s0};
      component[s0] = components.size() - 1;
      while (!stack.empty()) {
        size_t v = stack.back();
        stack.pop_back();
        components.back().push_back(v);
        for (size_t w : pred[v])
          if (component[w] < 0) {
            component[w] = component[s0];
            stack.push_back(w);
          }
      }
    }
    // Place components in topological order, each at the first phase of
    // the round at or after its predecessors' where all of it fits.
    std::vector<PhaseLinks> phases;
    std::vector<std::vector<std::pair<size_t, TieMask>>> placed;
    std::vector<int64_t> slotOf(nodes, 0);
    for (const std::vector<size_t> &comp : components) {
      int64_t earliest = 0;
      for (size_t v : comp)
        for (size_t p : pred[v])
          if (component[p] != component[v])
            earliest = std::max(earliest, slotOf[p]);
      llvm::SmallVector<size_t, 4> transfers;
      for (size_t v : comp)
        if (v < m)
          transfers.push_back(v);
      if (transfers.empty()) {
        for (size_t v : comp)
          slotOf[v] = earliest;
        continue;
      }
      for (int64_t slot = earliest;; ++slot) {
        if (slot == static_cast<int64_t>(phases.size())) {
          phases.emplace_back();
          placed.emplace_back();
        }
        // The links this component takes, checked against the phase and
        // against each other before anything is committed.
        PhaseLinks added;
        llvm::SmallVector<std::pair<size_t, TieMask>, 4> choice;
        bool ok = true;
        for (size_t v : transfers) {
          RankId src = spec.group[round[v].src], dst = spec.group[round[v].dst];
          NodeId sn = topo.nodeOfRank(src), dn = topo.nodeOfRank(dst);
          bool fit = false;
          for (TieMask ties : tieOptions(topo.tieMask(sn, dn))) {
            topo.route(sn, dn, ties, route);
            if (phases[slot].fits(route, src) && added.fits(route, src)) {
              added.take(route, src);
              choice.push_back({v, ties});
              fit = true;
              break;
            }
          }
          if (!fit) {
            ok = false;
            break;
          }
        }
        if (!ok) {
          if (placed[slot].empty()) {
            error = llvm::formatv("round {0} of the algorithm holds {1} "
                                  "transfers that must share a phase (each "
                                  "reads what another overwrites) but share "
                                  "a link",
                                  r, transfers.size())
                        .str();
            return failure();
          }
          continue;
        }
        for (auto &[l, src] : added.owner)
          phases[slot].owner[l] = src;
        for (auto &c : choice)
          placed[slot].push_back(c);
        for (size_t v : comp)
          slotOf[v] = slot;
        break;
      }
    }
    for (auto &slot : placed) {
      Phase phase;
      llvm::sort(slot);
      for (auto [v, ties] : slot) {
        const RelayStep &s = round[v];
        int64_t bytes = 0;
        for (int64_t c : s.chunks)
          bytes += spec.sizeOfChunk(c);
        phase.transfers.push_back(
            {spec.group[s.src], spec.group[s.dst], bytes, ties});
        phase.chunks.push_back({s.chunks, s.reduce});
      }
      schedule.phases.push_back(std::move(phase));
    }
    return success();
  };
  for (size_t r = 0; r < rounds.size(); ++r) {
    if (succeeded(packRound(r, /*orderReads=*/true)))
      continue;
    if (!mayReadLate || failed(packRound(r, /*orderReads=*/false)))
      return failure();
  }
  schedule.canonicalize();
  return schedule;
}
