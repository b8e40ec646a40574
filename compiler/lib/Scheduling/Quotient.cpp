//===- Quotient.cpp - Translation-invariant schedules for cubic tori ------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// All-to-all on a torus k x k x ... x k (d >= 2 dimensions) is invariant under
// translation. Take the subgroup H = { h : h_0 + ... + h_{d-1} = 0 mod k } of
// the translations (|H| = P / k). Every nonzero h in H has at least two
// nonzero coordinates, and under dimension-order routing two routes can only
// share a link inside one ring line, which needs all but one coordinate of
// the translation to be zero: so a transfer never congests with its own
// translates. Moreover, two transfers share a link in some translate iff
// their routes share a "link class", a link modulo H, identified by
// (sum of the coordinates of its tail mod k, dimension, direction): only
// k * d * 2 classes.
//
// So an H-invariant phase is a set of transfer orbits (representative source
// (s, 0, ..., 0), any destination) with pairwise disjoint link classes, and
// scheduling the orbits (k (P-1) of them) on the tiny quotient machine gives a
// congestion-free schedule of the whole torus with the same number of phases.
// The link-load bound is the same on the quotient, so nothing is lost by the
// restriction. Most of the quotient ("base") problem is covered by perfect
// base phases built from gap cycles in mirrored frames (QuotientChains.h:
// 32x32 one-port, 122 of the 128 base phases the bound allows); the rest
// is packed by a best-fit greedy with a short ejection-chain repair, then
// by a tabu search over partial packings (QuotientSearch.cpp). On small
// tori (P <= 2048) the packer alone is tried too and the better kept. On
// one-port machines two more channels per base phase (send and receive
// slots) keep every node to one block in and out per phase.
//
//===----------------------------------------------------------------------===//

#include "AlgorithmsInternal.h"
#include "QuotientChains.h"
#include "QuotientSearch.h"
#include "phasec/Scheduling/Algorithms.h"
#include "phasec/Scheduling/Collective.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

using namespace phasec;

/// True if the quotient construction applies: a torus with d >= 2 equal
/// extents k >= 3 and a complete uniform all-to-all.
static bool quotientApplies(const Topology &topo) {
  if (topo.kind() != TopologyKind::Torus || topo.numDims() < 2)
    return false;
  int64_t k = topo.extent(0);
  if (k < 3)
    return false;
  for (unsigned d = 1; d < topo.numDims(); ++d)
    if (topo.extent(d) != k)
      return false;
  return true;
}

/// Placement evaluations the base-problem tabu search may spend: 100,000
/// per item, at most 5e8 (about 10 s on the benchmark machine for
/// 16x16x16, whose base problem has 4095 items). Fixed, so the result does
/// not depend on the machine's speed or load.
static uint64_t quotientSearchBudget(size_t numItems) {
  return std::min<uint64_t>(100000ull * numItems, 500000000ull);
}

bool phasec::detail::torusQuotientApplies(const Problem &problem,
                                          const SchedulerOptions &options,
                                          std::string *whyNot) {
  if (completeUniformAlltoall(problem) && quotientApplies(problem.topology()))
    return true;
  if (whyNot)
    *whyNot = "the torus quotient construction needs a complete uniform "
              "all-to-all on a torus with d >= 2 equal extents >= 3";
  return false;
}

namespace {
/// One quotient: what packing its base problem needs.
struct QuotientFrame {
  const Topology &topo;
  unsigned D;
  int64_t k, P;
  bool onePort;
  /// Channels per shift: 2 D link classes, plus the send and receive slots
  /// on a one-port machine; numClasses = k * DD.
  unsigned DD;
  size_t numClasses;
  /// The bound in phases (one block per pair and phase).
  double boundPhases;
  llvm::ArrayRef<unsigned> routeOrder;

  /// The coset of H holding u: its coordinates' sum mod k.
  int64_t sumCoord(NodeId u) const {
    int64_t s = 0;
    for (unsigned d = 0; d < D; ++d)
      s += topo.coord(u, d);
    return s % k;
  }
  /// The chain search's id of the displacement y (routing order).
  uint64_t chainIdOf(NodeId y) const {
    llvm::SmallVector<unsigned, 4> disp;
    for (unsigned j = 0; j < D; ++j)
      disp.push_back(static_cast<unsigned>(topo.coord(y, routeOrder[j])));
    return detail::chainDisplacementId(disp, static_cast<unsigned>(k));
  }
};

struct Option {
  TieMask ties;
  /// (first component, dim * 2 + dir) of every link class of 0 -> y.
  llvm::SmallVector<std::pair<uint16_t, uint16_t>, 16> cls;
};
/// Item y: the orbit of 0 -> y under H, placed with a shift j in a base
/// phase (the orbit of j e0 -> y + j e0).
struct Item {
  NodeId dst;
  unsigned len;
  llvm::SmallVector<Option, 2> options;
};
/// (item, option, shift).
using Placement = std::tuple<uint32_t, uint8_t, uint16_t>;
using BasePacking = std::vector<std::vector<Placement>>;
/// The displacements the chains left, packed into base phases.
struct Packed {
  std::vector<Item> items;
  BasePacking best;
  unsigned bestVariant = 0, baseTarget = 0;
  std::vector<std::string> notes;
};
} // namespace

/// The displacements not `covered` by the chains, each with its route
/// options as link classes (and one-port slots).
static std::vector<Item> buildItems(const QuotientFrame &f,
                                    const std::vector<uint8_t> &covered) {
  const Topology &topo = f.topo;
  const unsigned D = f.D;
  std::vector<Item> items;
  llvm::SmallVector<LinkId, 64> route;
  for (NodeId y = 1; y < f.P; ++y) {
    if (covered[f.chainIdOf(y)])
      continue;
    Item it;
    it.dst = y;
    TieMask tm = topo.tieMask(0, y);
    TieMask sub = 0;
    do {
      Option o;
      o.ties = sub;
      topo.route(0, y, sub, route);
      for (LinkId l : route) {
        const Link &ln = topo.link(l);
        o.cls.push_back(
            {static_cast<uint16_t>(f.sumCoord(ln.src)),
             static_cast<uint16_t>(ln.dim * 2 + (ln.dir < 0 ? 1 : 0))});
      }
      it.len = static_cast<unsigned>(route.size());
      if (f.onePort) {
        o.cls.push_back({0, static_cast<uint16_t>(2 * D)});
        o.cls.push_back({static_cast<uint16_t>(f.sumCoord(y)),
                         static_cast<uint16_t>(2 * D + 1)});
      }
      it.options.push_back(std::move(o));
      sub = (sub - tm) & tm;
    } while (sub != 0 && it.options.size() < 16);
    items.push_back(std::move(it));
  }

  return items;
}

/// One best-fit packing of `items` taken in `order`: among the pending
/// items (the first `window` of them) the (item, shift, option) that fits
/// and scores best goes in: long routes first, then the most contact with
/// link classes already busy in this phase (compact packings leave no holes
/// that nothing can fill). Deterministic: ties go to the lowest item, shift
/// and option.
static BasePacking bestFit(const QuotientFrame &f,
                           const std::vector<Item> &items,
                           llvm::ArrayRef<uint32_t> order, unsigned window,
                           int contactWeight) {
  const int64_t k = f.k;
  const unsigned DD = f.DD;
  const size_t numClasses = f.numClasses;
  BasePacking phases;
  std::vector<uint32_t> pending(order.begin(), order.end());
  std::vector<uint8_t> used(numClasses);
  auto isUsed = [&](unsigned s, unsigned dd) {
    return used[(s % k) * DD + dd] != 0;
  };
  while (!pending.empty()) {
    std::fill(used.begin(), used.end(), 0);
    size_t usedCount = 0;
    phases.emplace_back();
    while (true) {
      int64_t bestScore = -1;
      size_t bestPos = 0;
      unsigned bestShift = 0, bestOpt = 0;
      unsigned seen = 0;
      for (size_t pos = 0; pos < pending.size() && seen < window; ++pos) {
        const Item &it = items[pending[pos]];
        if (usedCount + it.len > numClasses)
          continue;
        ++seen;
        for (unsigned j = 0; j < k; ++j)
          for (unsigned oi = 0; oi < it.options.size(); ++oi) {
            const Option &o = it.options[oi];
            bool ok = true;
            int64_t contact = 0;
            for (auto sc : o.cls) {
              unsigned sj = (sc.first + j) % k;
              if (isUsed(sj, sc.second)) {
                ok = false;
                break;
              }
              contact += isUsed(sj + 1, sc.second);
              contact += isUsed(sj + k - 1, sc.second);
            }
            if (!ok)
              continue;
            int64_t score =
                static_cast<int64_t>(it.len) * 1000 + contact * contactWeight;
            if (score > bestScore) {
              bestScore = score;
              bestPos = pos;
              bestShift = j;
              bestOpt = oi;
            }
          }
      }
      if (bestScore < 0)
        break;
      uint32_t idx = pending[bestPos];
      for (auto sc : items[idx].options[bestOpt].cls)
        used[((sc.first + bestShift) % k) * DD + sc.second] = 1;
      usedCount += items[idx].len;
      phases.back().push_back({idx, static_cast<uint8_t>(bestOpt),
                               static_cast<uint16_t>(bestShift)});
      pending.erase(pending.begin() + bestPos);
    }
  }
  return phases;
}

/// Local improvement: try to empty the last base phase by moving each of
/// its items into an earlier phase, directly or by first moving the one
/// item that blocks it (an ejection chain of length one) to a third phase.
/// Deterministic: phases, shifts and options are tried in order.
static void improveByEjection(const QuotientFrame &f,
                              const std::vector<Item> &items, BasePacking &best,
                              unsigned baseTarget) {
  const int64_t k = f.k;
  const unsigned DD = f.DD;
  const size_t numClasses = f.numClasses;
  auto classOf = [&](const Option &o, size_t e, unsigned j) {
    return ((o.cls[e].first + j) % k) * DD + o.cls[e].second;
  };
  // occ[p][cls] = item + 1 of the placement holding it, 0 if free.
  std::vector<std::vector<uint32_t>> occ;
  auto rebuild = [&]() {
    occ.assign(best.size(), std::vector<uint32_t>(numClasses, 0));
    for (size_t p = 0; p < best.size(); ++p)
      for (auto [idx, oi, j] : best[p]) {
        const Option &o = items[idx].options[oi];
        for (size_t e = 0; e < o.cls.size(); ++e)
          occ[p][classOf(o, e, j)] = idx + 1;
      }
  };
  auto setOcc = [&](size_t p, uint32_t idx, unsigned oi, unsigned j,
                    uint32_t v) {
    const Option &o = items[idx].options[oi];
    for (size_t e = 0; e < o.cls.size(); ++e)
      occ[p][classOf(o, e, j)] = v;
  };
  auto removeFrom = [&](size_t p, uint32_t idx) {
    auto &v = best[p];
    for (size_t x = 0; x < v.size(); ++x)
      if (std::get<0>(v[x]) == idx) {
        auto pl = v[x];
        v.erase(v.begin() + x);
        setOcc(p, idx, std::get<1>(pl), std::get<2>(pl), 0);
        return pl;
      }
    llvm_unreachable("placement not found");
  };
  // Finds a free (option, shift) for idx in phase p; -1 if none.
  auto freeSlot = [&](size_t p, uint32_t idx, unsigned &oiOut, unsigned &jOut) {
    for (unsigned j = 0; j < k; ++j)
      for (unsigned oi = 0; oi < items[idx].options.size(); ++oi) {
        const Option &o = items[idx].options[oi];
        bool ok = true;
        for (size_t e = 0; e < o.cls.size() && ok; ++e)
          ok = occ[p][classOf(o, e, j)] == 0;
        if (ok) {
          oiOut = oi;
          jOut = j;
          return true;
        }
      }
    return false;
  };
  auto place = [&](size_t p, uint32_t idx, unsigned oi, unsigned j) {
    best[p].push_back(
        {idx, static_cast<uint8_t>(oi), static_cast<uint16_t>(j)});
    setOcc(p, idx, oi, j, idx + 1);
  };
  uint64_t budget = 1000000000; // class checks, keeps this bounded
  auto tryMove = [&](uint32_t idx, size_t limit) {
    unsigned oi, j;
    for (size_t p = 0; p < limit; ++p) {
      budget -= std::min<uint64_t>(budget, k * 8 * 16);
      if (freeSlot(p, idx, oi, j)) {
        place(p, idx, oi, j);
        return true;
      }
    }
    for (size_t p = 0; p < limit && budget > 0; ++p)
      for (unsigned j2 = 0; j2 < k; ++j2)
        for (unsigned o2 = 0; o2 < items[idx].options.size(); ++o2) {
          const Option &o = items[idx].options[o2];
          uint32_t blocker = 0;
          bool single = true;
          for (size_t e = 0; e < o.cls.size() && single; ++e) {
            uint32_t v = occ[p][classOf(o, e, j2)];
            if (v && blocker && v != blocker)
              single = false;
            else if (v)
              blocker = v;
          }
          if (!single || !blocker)
            continue;
          uint32_t c = blocker - 1;
          auto old = removeFrom(p, c);
          place(p, idx, o2, j2);
          for (size_t q = 0; q < limit; ++q) {
            if (q == p)
              continue;
            budget -= std::min<uint64_t>(budget, k * 8 * 16);
            if (freeSlot(q, c, oi, j)) {
              place(q, c, oi, j);
              return true;
            }
          }
          // Undo.
          removeFrom(p, idx);
          place(p, c, std::get<1>(old), std::get<2>(old));
          if (budget == 0)
            return false;
        }
    return false;
  };
  rebuild();
  // Base phases are unordered, so any of them may be emptied: try the
  // sparsest ones first (a few candidates per round), each moved to the
  // end; stop when no candidate can be emptied or the budget is spent.
  auto usedCount = [&](size_t p) {
    size_t u = 0;
    for (auto [idx, oi, j] : best[p])
      u += items[idx].options[oi].cls.size();
    return u;
  };
  while (best.size() > baseTarget && budget > 0) {
    std::vector<size_t> cands(best.size());
    for (size_t p = 0; p < cands.size(); ++p)
      cands[p] = p;
    // The last phase first (the greedy's leftovers), then the sparsest.
    std::swap(cands.front(), cands.back());
    std::stable_sort(cands.begin() + 1, cands.end(), [&](size_t a, size_t b) {
      return usedCount(a) < usedCount(b);
    });
    bool emptied = false;
    for (size_t ci = 0;
         ci < std::min<size_t>(8, cands.size()) && !emptied && budget > 0;
         ++ci) {
      size_t last = best.size() - 1;
      std::swap(best[cands[ci]], best[last]);
      std::swap(occ[cands[ci]], occ[last]);
      auto savedBest = best;
      auto savedOcc = occ;
      std::vector<Placement> todo = best[last];
      bool ok = true;
      for (auto pl : todo) {
        uint32_t idx = std::get<0>(pl);
        removeFrom(last, idx);
        if (!tryMove(idx, last)) {
          ok = false;
          break;
        }
      }
      if (ok) {
        best.pop_back();
        occ.pop_back();
        emptied = true;
      } else {
        best = std::move(savedBest);
        occ = std::move(savedOcc);
        std::swap(best[cands[ci]], best[last]);
        std::swap(occ[cands[ci]], occ[last]);
      }
    }
    if (!emptied)
      break;
  }
}

/// Tabu search on the base problem (QuotientSearch.cpp) from the greedy's
/// packing, down to the bound or until its budget is spent.
static void tabuImprove(const QuotientFrame &f, const std::vector<Item> &items,
                        BasePacking &best, unsigned baseTarget, uint64_t seed,
                        std::vector<std::string> &notes) {
  const int64_t k = f.k;
  const unsigned DD = f.DD;
  if (best.size() > baseTarget && k <= 64) {
    detail::QuotientBaseProblem bp;
    bp.k = static_cast<unsigned>(k);
    bp.numChannels = DD;
    bp.items.reserve(items.size());
    for (const Item &it : items) {
      detail::QuotientItem qi;
      qi.len = it.len;
      for (const Option &o : it.options) {
        llvm::SmallVector<uint64_t, 8> m(DD, 0);
        for (auto sc : o.cls)
          m[sc.second] |= uint64_t(1) << sc.first;
        detail::QuotientOption qo;
        for (unsigned ch = 0; ch < DD; ++ch)
          if (m[ch])
            qo.masks.push_back({static_cast<uint16_t>(ch), m[ch]});
        qi.options.push_back(std::move(qo));
      }
      bp.items.push_back(std::move(qi));
    }
    detail::QuotientPacking start(best.size());
    for (size_t b = 0; b < best.size(); ++b)
      for (auto [idx, oi, j] : best[b])
        start[b].push_back({idx, oi, j});
    detail::QuotientSearchStats st;
    uint64_t budget = quotientSearchBudget(items.size());
    detail::QuotientPacking improved = detail::improveQuotientPacking(
        bp, std::move(start), baseTarget, budget, seed, st);
    std::string error;
    (void)error;
    assert(detail::checkQuotientPacking(bp, improved, error) &&
           "tabu search returned an invalid packing");
    if (improved.size() < best.size()) {
      best.assign(improved.size(), {});
      for (size_t b = 0; b < improved.size(); ++b)
        for (const detail::QuotientPlacement &pl : improved[b])
          best[b].push_back({pl.item, pl.option, pl.shift});
    }
    notes.push_back(llvm::formatv(
        "torus quotient: tabu search {0} -> {1} base phases ({2} moves)",
        st.startPhases, st.endPhases, st.iterations));
  }
}

/// The displacements not `covered` by the `numChains` chain base phases,
/// packed into base phases by the best-fit greedy (several window and
/// contact weights, down to the bound), the ejection repair and the tabu
/// search.
static Packed packRest(const QuotientFrame &f,
                       const std::vector<uint8_t> &covered, size_t numChains,
                       uint64_t seed) {
  const int64_t k = f.k;
  Packed out;
  std::vector<Item> &items = out.items;
  items = buildItems(f, covered);
  unsigned &baseTarget = out.baseTarget;
  baseTarget =
      static_cast<unsigned>(std::max(1.0, std::ceil(f.boundPhases / k - 1e-9) -
                                              static_cast<double>(numChains)));
  // bestFit's order: longest routes first.
  std::vector<uint32_t> order(items.size());
  for (uint32_t i = 0; i < order.size(); ++i)
    order[i] = i;
  llvm::stable_sort(order, [&](uint32_t a, uint32_t b) {
    return items[a].len > items[b].len;
  });
  BasePacking &best = out.best;
  unsigned &bestVariant = out.bestVariant;
  // (window, contact weight) pairs, cheapest first; stop at the bound.
  const std::pair<unsigned, int> variants[] = {
      {32, 1}, {32, 100}, {128, 1}, {128, 100}, {512, 1}, {512, 100}};
  uint64_t perEval = static_cast<uint64_t>(k) * 4 * 16;
  for (unsigned v = 0; v < std::size(variants); ++v) {
    uint64_t cost =
        static_cast<uint64_t>(items.size()) * variants[v].first * perEval;
    if (v > 0 && cost > 4000000000ull)
      break;
    auto phases =
        bestFit(f, items, order, variants[v].first, variants[v].second);
    if (best.empty() || phases.size() < best.size()) {
      best = std::move(phases);
      bestVariant = v;
    }
    if (best.size() <= baseTarget)
      break;
  }
  size_t beforeImprove = best.size();
  improveByEjection(f, items, best, baseTarget);
  if (best.size() < beforeImprove)
    out.notes.push_back(llvm::formatv(
        "torus quotient: local improvement {0} -> {1} base phases",
        beforeImprove, best.size()));
  tabuImprove(f, items, best, baseTarget, seed, out.notes);
  return out;
}

llvm::LogicalResult
phasec::scheduleTorusQuotient(const Problem &problem, Schedule &schedule,
                              const SchedulerOptions &options,
                              SchedulerReport &report) {
  const Topology &topo = problem.topology();
  if (!detail::torusQuotientApplies(problem, options, &report.error))
    return llvm::failure();
  std::optional<int64_t> block = completeUniformAlltoall(problem);
  unsigned D = topo.numDims();
  int64_t k = topo.extent(0), P = topo.numNodes(), c = topo.ranksPerNode();
  // On a one-port machine (injection bandwidth below two links) a node may
  // send and receive at most one block per phase. In an expanded phase the
  // sources of a placement (item y, shift j) are the coset {x : sum x = j}
  // and its destinations the coset sum = j + sum y, so the limit is two more
  // channels of k positions: a "send slot" j and a "receive slot"
  // j + sum y, each used once per base phase.
  bool onePort = detail::isOnePort(problem);
  unsigned DD = 2 * D + (onePort ? 2 : 0);
  // The bound routes every demand: computed once for both packings.
  double boundPhases = std::ceil(problem.bound().directBlocks / (c * c) - 1e-9);
  llvm::ArrayRef<unsigned> routeOrder = topo.dimOrder();
  const QuotientFrame frame{
      topo,        D,         k, P, onePort, DD, static_cast<size_t>(k) * DD,
      boundPhases, routeOrder};

  // Second level: the translation by e0 acts on the quotient too (it adds 1
  // to the first component of every link class). Items are the P-1
  // destinations y of node 0; placing item y with "shift" j in a base phase
  // stands for the orbit (node j -> y + j e0), whose link classes are those
  // of 0 -> y rotated by j. Every base phase is then repeated k times,
  // rotated by t = 0..k-1, which covers every orbit exactly once and keeps
  // every copy congestion-free. The base problem (P-1 items, k shifts each)
  // is small, so several deterministic greedy orders are tried.
  // Perfect base phases from gap cycles first (QuotientChains.h); the
  // displacements they leave are packed (packRest).
  std::vector<detail::ChainBasePhase> chains;
  std::vector<uint8_t> chainCovered(static_cast<size_t>(P), 0);
  if (options.quotientChains) {
    detail::ChainSearchStats cst;
    chains = detail::findChainPhases(static_cast<unsigned>(k), D, chainCovered,
                                     200000, cst);
    size_t n = 0;
    for (uint8_t c : chainCovered)
      n += c;
    report.notes.push_back(llvm::formatv(
        "torus quotient: {0} chain base phases cover {1} of {2} "
        "displacements ({3} search nodes, {4} halves without a partner)",
        chains.size(), n, P - 1, cst.nodes, cst.unpaired));
    detail::progress(problem, options, report.notes.back());
  }

  Packed packed = packRest(frame, chainCovered, chains.size(), options.seed);
  // The chains pay off from about 14x14 and 10x10x10 (their leftovers are
  // the hardest displacements); on smaller tori the packer alone is
  // sometimes better and cheap to run, so both are tried there.
  if (!chains.empty() && P <= 2048) {
    std::vector<uint8_t> none(chainCovered.size(), 0);
    Packed plain = packRest(frame, none, 0, options.seed);
    if (plain.best.size() < chains.size() + packed.best.size()) {
      report.notes.push_back(llvm::formatv(
          "torus quotient: the packer alone took {0} base phases, the chains "
          "and the packer {1}: chains not used",
          plain.best.size(), chains.size() + packed.best.size()));
      chains.clear();
      packed = std::move(plain);
    }
  }
  detail::progress(problem, options,
                   llvm::formatv("torus quotient: the rest packed into {0} "
                                 "base phases; expanding {1} phases",
                                 packed.best.size(),
                                 (chains.size() + packed.best.size()) * k));
  std::vector<Item> &items = packed.items;
  BasePacking &best = packed.best;
  unsigned bestVariant = packed.bestVariant, baseTarget = packed.baseTarget;
  report.notes.insert(report.notes.end(), packed.notes.begin(),
                      packed.notes.end());
  report.notes.push_back(llvm::formatv(
      "torus quotient: |H| = {0}, {1} link classes{6}, {2} base phases x {3} "
      "rotations (base bound {4}; order {5})",
      P / k, 2 * D * k, best.size(), k, baseTarget, bestVariant,
      onePort ? " + 2 x " + std::to_string(k) + " one-port slots"
              : std::string()));
  // Every phase holds its transfers by rule (Phase::rules): a placement is
  // the orbit of one representative transfer under H (group 0), or for a
  // chain base phase in a mirrored frame under the mirror image of H.
  std::vector<NodeId> H;
  for (NodeId u = 0; u < P; ++u)
    if (frame.sumCoord(u) == 0)
      H.push_back(u);
  schedule = Schedule();
  schedule.algorithm = "torus-quotient";
  schedule.translations.push_back(H);
  size_t numQ = (chains.size() + best.size()) * k;
  schedule.phases.resize(numQ * c * c);
  auto emit = [&](size_t q, uint32_t group, NodeId x, NodeId y, TieMask ties) {
    for (int64_t c1 = 0; c1 < c; ++c1)
      for (int64_t c2 = 0; c2 < c; ++c2) {
        Phase &phase = schedule.phases[(q * c + c1) * c + c2];
        if (phase.rules.empty() || phase.rules.back().group != group)
          phase.rules.push_back({group, {}});
        phase.rules.back().reps.push_back({static_cast<RankId>(x * c + c1),
                                           static_cast<RankId>(y * c + c2),
                                           *block, ties});
      }
  };
  // Chain base phases: the sources of an item at rotation t are the mirror
  // images M(x) of the coset {x : sum x = slot + t} = x0 + H, and M is
  // linear, so they are M(x0) + M(H): one representative per item and
  // rotation, under the mirrored group of the chain's frame.
  if (!chains.empty()) {
    std::vector<NodeId> cosetRep(k, -1);
    for (NodeId u = 0; u < P; ++u)
      if (cosetRep[frame.sumCoord(u)] < 0)
        cosetRep[frame.sumCoord(u)] = u;
    llvm::SmallVector<int64_t, 4> xc(D), yc(D);
    // The mirror image of a node in a frame (routing-order bits).
    auto mirror = [&](NodeId x, uint32_t bits) {
      for (unsigned j = 0; j < D; ++j) {
        unsigned dim = routeOrder[j];
        int64_t v = topo.coord(x, dim);
        xc[dim] = (bits >> j) & 1 ? (k - v) % k : v;
      }
      return topo.nodeAt(xc);
    };
    std::map<uint32_t, uint32_t> groupOfFrame{{0u, 0u}};
    for (size_t b = 0; b < chains.size(); ++b) {
      uint32_t bits = chains[b].frame;
      auto [it, inserted] = groupOfFrame.try_emplace(
          bits, static_cast<uint32_t>(schedule.translations.size()));
      if (inserted) {
        std::vector<NodeId> mirrored;
        mirrored.reserve(H.size());
        for (NodeId h : H)
          mirrored.push_back(mirror(h, bits));
        schedule.translations.push_back(std::move(mirrored));
      }
      uint32_t group = it->second;
      detail::forEachChainItem(
          chains[b], static_cast<unsigned>(k), D,
          [&](const detail::ChainItem &item) {
            TieMask ties = 0;
            for (unsigned j = 0; j < D; ++j)
              if (((item.minusDirs >> j) & 1) && 2 * item.disp[j] == k)
                ties |= TieMask(1) << routeOrder[j];
            for (unsigned t = 0; t < k; ++t) {
              NodeId x = mirror(cosetRep[(item.slot + t) % k], bits);
              for (unsigned j = 0; j < D; ++j) {
                unsigned dim = routeOrder[j];
                yc[dim] = (topo.coord(x, dim) + item.disp[j]) % k;
              }
              emit(b * k + t, group, x, topo.nodeAt(yc), ties);
            }
          });
    }
  }
  auto shiftE0 = [&](NodeId x, unsigned by) {
    int64_t x0 = topo.coord(x, 0);
    return static_cast<NodeId>(x - x0 + (x0 + by) % k);
  };
  for (size_t b = 0; b < best.size(); ++b)
    for (unsigned t = 0; t < k; ++t) {
      size_t q = (chains.size() + b) * k + t;
      for (auto [idx, oi, j] : best[b]) {
        const Item &it = items[idx];
        unsigned sh = (j + t) % k;
        emit(q, 0, shiftE0(0, sh), shiftE0(it.dst, sh), it.options[oi].ties);
      }
    }
  // Intra-node transfers (ranks per node > 1) cost nothing: core pair
  // (c1, c2) of every node goes into the first phase of that core pair.
  if (c > 1)
    for (NodeId u = 0; u < P; ++u)
      for (int64_t c1 = 0; c1 < c; ++c1)
        for (int64_t c2 = 0; c2 < c; ++c2)
          if (c1 != c2)
            schedule.phases[c1 * c + c2].transfers.push_back(
                {static_cast<RankId>(u * c + c1),
                 static_cast<RankId>(u * c + c2), *block, 0});
  schedule.canonicalize();
  detail::finalizeReport(problem, schedule, options, report);
  return llvm::success();
}
