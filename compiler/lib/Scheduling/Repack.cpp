//===- Repack.cpp - Tabu repacking of uniform-block schedules -------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// Where every transfer carries the same block and the links are alike, a
// phase costs one block time whatever it holds, as long as no link carries
// two blocks (and, one-port, no node sends or receives two). Scheduling is
// then packing: transfers (their links and ports) into as few disjoint
// phases as possible. The greedy's schedule is a good start but its last
// phases are sparse (mesh 8x8 one-port: 135 phases for a bound of 128).
// The quotient's tabu search (QuotientSearch.h) is a packer for exactly
// this shape; here every link and every port is a channel of one position.
//
//===----------------------------------------------------------------------===//

#include "AlgorithmsInternal.h"
#include "QuotientSearch.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace phasec;

namespace {

/// Channels of one position each: links first, then the send and receive
/// port of every node on one-port machines. The packer's channel ids are
/// 16-bit.
constexpr size_t kMaxChannels = 65535;

} // namespace

bool phasec::detail::repackUniform(const Problem &problem, Schedule &schedule,
                                   const SchedulerOptions &options,
                                   uint64_t budget, std::string &note) {
  const Topology &topo = problem.topology();
  const TransferSet &ts = problem.transfers();
  std::optional<int64_t> block = ts.uniformBytes();
  if (!block || !topo.isGrid() || topo.ranksPerNode() != 1 ||
      schedule.phases.empty())
    return false;
  bool onePort = detail::isOnePort(problem);
  size_t P = static_cast<size_t>(topo.numNodes());
  size_t C = topo.numLinks() + (onePort ? 2 * P : 0);
  if (C > kMaxChannels)
    return false;
  // The packing model only holds where no phase is longer than one block:
  // the target is the bound in blocks.
  LowerBound bound = problem.bound();
  size_t target = static_cast<size_t>(std::ceil(bound.directBlocks - 1e-9));
  if (target == 0 || schedule.phases.size() <= target)
    return false;
  // The search holds phases x channels words.
  if (schedule.phases.size() * C > (size_t(1) << 26))
    return false;

  // Items in the transfer set's order, one option per tie choice (ties[x]
  // holds each option's TieMask).
  detail::QuotientBaseProblem bp;
  bp.k = 1;
  bp.numChannels = static_cast<unsigned>(C);
  bp.items.reserve(ts.size());
  std::vector<llvm::SmallVector<TieMask, 2>> ties(ts.size());
  llvm::SmallVector<LinkId, 64> route;
  for (const Demand &d : ts) {
    detail::QuotientItem it;
    NodeId s = topo.nodeOfRank(d.src), t = topo.nodeOfRank(d.dst);
    TieMask tm = topo.tieMask(s, t), sub = 0;
    do {
      ties[bp.items.size()].push_back(sub);
      detail::QuotientOption o;
      topo.route(s, t, sub, route);
      for (LinkId l : route)
        o.masks.push_back({static_cast<uint16_t>(l), 1});
      if (onePort) {
        o.masks.push_back({static_cast<uint16_t>(topo.numLinks() + s), 1});
        o.masks.push_back({static_cast<uint16_t>(topo.numLinks() + P + t), 1});
      }
      it.len = static_cast<unsigned>(route.size());
      it.options.push_back(std::move(o));
      sub = (sub - tm) & tm;
    } while (sub != 0 && it.options.size() < 16);
    bp.items.push_back(std::move(it));
  }
  // Start: the schedule's transfers first-fit in its phase order (a merged
  // phase may hold two blocks on a link; first-fit splits it).
  auto itemOf = [&](const Transfer &t) -> size_t {
    int64_t i = ts.indexOf(t.src, t.dst);
    return i < 0 ? ts.size() : static_cast<size_t>(i);
  };
  detail::QuotientPacking start;
  std::vector<std::vector<uint8_t>> used;
  std::vector<uint8_t> placed(bp.items.size(), 0);
  for (const Phase &phase : schedule.phases)
    for (const Transfer &t : phase.transfers) {
      size_t x = itemOf(t);
      if (x >= ts.size() || placed[x] || t.bytes != *block)
        return false; // split pairs: not this model
      placed[x] = 1;
      // The option with the transfer's ties (bits outside the pair's tie
      // dimensions mean nothing, as in Topology::route).
      TieMask tm = 0;
      for (TieMask m : ties[x])
        tm |= m;
      const auto *found = llvm::find(ties[x], t.ties & tm);
      if (found == ties[x].end())
        return false;
      unsigned opt = static_cast<unsigned>(found - ties[x].begin());
      const detail::QuotientOption &o = bp.items[x].options[opt];
      size_t p = 0;
      for (; p < start.size(); ++p)
        if (llvm::none_of(o.masks, [&](auto m) { return used[p][m.first]; }))
          break;
      if (p == start.size()) {
        start.emplace_back();
        used.emplace_back(C, 0);
      }
      for (auto m : o.masks)
        used[p][m.first] = 1;
      start[p].push_back(
          {static_cast<uint32_t>(x), static_cast<uint8_t>(opt), 0});
    }
  if (llvm::is_contained(placed, 0))
    return false;

  detail::QuotientSearchStats st;
  detail::QuotientPacking packed = detail::improveQuotientPacking(
      bp, start, target, budget, options.seed, st);
  note = llvm::formatv("repack: {0} phases, first-fit {1}, tabu search {2} "
                       "({3} moves, target {4})",
                       schedule.phases.size(), start.size(), packed.size(),
                       st.iterations, target);
  Schedule out;
  out.algorithm = schedule.algorithm;
  out.phases.resize(packed.size());
  for (size_t p = 0; p < packed.size(); ++p)
    for (const detail::QuotientPlacement &pl : packed[p]) {
      const Demand d = ts[pl.item];
      out.phases[p].transfers.push_back(
          {d.src, d.dst, d.bytes, ties[pl.item][pl.option]});
    }
  out.canonicalize();
  if (problem.costModel().time(out) >=
      problem.costModel().time(schedule) * (1 - 1e-12))
    return false;
  schedule = std::move(out);
  return true;
}
