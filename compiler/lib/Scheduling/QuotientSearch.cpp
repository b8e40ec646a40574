//===- QuotientSearch.cpp - Tabu search on the torus quotient's base ------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// The base problem of the torus quotient (see Quotient.cpp) is a small
// packing problem: a few thousand items, each a set of cyclic intervals in
// 2d link channels of k positions, to be packed into as few phases as
// possible, every phase disjoint in every channel. The best-fit greedy leaves
// 10-20 % of the channel positions empty (245 base phases for 12x12x12
// against a bound of 216). Packing problems of this shape respond well to
// the PartialCol scheme of graph colouring: fix the number of phases T, keep
// a valid partial packing plus a pool of unplaced items, and repeatedly put
// a pool item where it ejects the least work, with a tabu list that keeps
// ejected items from going straight back. A pool that runs empty is a valid
// packing with T phases; the sparsest phase is then dissolved into the pool
// and the search goes on with T - 1.
//
// Everything is deterministic: a fixed xorshift generator seeded by the
// scheduler's seed and a budget counted in placement evaluations, never in
// wall-clock time.
//
//===----------------------------------------------------------------------===//

#include "QuotientSearch.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>

using namespace phasec;
using namespace phasec::detail;

bool phasec::detail::checkQuotientPacking(const QuotientBaseProblem &problem,
                                          const QuotientPacking &packing,
                                          std::string &error) {
  unsigned k = problem.k, C = problem.numChannels;
  std::vector<uint8_t> seen(problem.items.size(), 0);
  std::vector<uint64_t> occ(C);
  for (size_t p = 0; p < packing.size(); ++p) {
    std::fill(occ.begin(), occ.end(), 0);
    for (const QuotientPlacement &pl : packing[p]) {
      if (pl.item >= problem.items.size() || seen[pl.item]) {
        error = "item " + std::to_string(pl.item) + " placed twice or unknown";
        return false;
      }
      seen[pl.item] = 1;
      const QuotientItem &it = problem.items[pl.item];
      if (pl.option >= it.options.size() || pl.shift >= k) {
        error = "bad option or shift for item " + std::to_string(pl.item);
        return false;
      }
      for (auto [ch, m] : it.options[pl.option].masks) {
        uint64_t r = rotateMask(m, pl.shift, k);
        if (occ[ch] & r) {
          error = "phase " + std::to_string(p) + " overlaps in channel " +
                  std::to_string(ch);
          return false;
        }
        occ[ch] |= r;
      }
    }
  }
  for (size_t x = 0; x < seen.size(); ++x)
    if (!seen[x]) {
      error = "item " + std::to_string(x) + " not placed";
      return false;
    }
  return true;
}

namespace {

/// xorshift64*: small, fast, and the same on every platform (the standard
/// distributions are not).
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545F4914F6CDD1Dull;
  }
  /// Uniform enough in [0, n) for n far below 2^32.
  uint32_t below(uint32_t n) {
    return static_cast<uint32_t>((next() >> 32) % n);
  }
};

class PartialPackingSearch {
public:
  PartialPackingSearch(const QuotientBaseProblem &problem, uint64_t seed)
      : bp(problem), k(problem.k), C(problem.numChannels), rng(seed) {}

  QuotientPacking run(QuotientPacking start, size_t target, uint64_t budget,
                      QuotientSearchStats &stats);

private:
  struct Assign {
    int32_t phase = -1;
    uint8_t option = 0;
    uint16_t shift = 0;
  };

  const QuotientBaseProblem &bp;
  unsigned k, C;
  Rng rng;
  size_t T = 0;
  /// occ[p * C + ch]: occupied positions; owner[(p * C + ch) * k + pos]:
  /// the item there (valid where occ is set).
  std::vector<uint64_t> occ;
  std::vector<uint32_t> owner;
  std::vector<Assign> assign;
  std::vector<uint32_t> pool;
  std::vector<int32_t> poolPos;
  /// tabu[x]: (phase p, first iteration at which x may enter p again).
  /// Per item and short (entries expire), not items x phases: repacking a
  /// mesh 8x8x8 would need 284 M entries.
  std::vector<llvm::SmallVector<std::pair<uint32_t, uint64_t>, 2>> tabu;
  void clearTabu() {
    tabu.resize(bp.items.size());
    for (auto &v : tabu)
      v.clear();
  }
  std::vector<uint64_t> phaseLoad;
  uint64_t iter = 0, work = 0;

  void load(const QuotientPacking &packing, size_t phases);
  void place(uint32_t x, size_t p, unsigned o, unsigned j);
  void remove(uint32_t x);
  void toPool(uint32_t x) {
    poolPos[x] = static_cast<int32_t>(pool.size());
    pool.push_back(x);
  }
  void fromPool(uint32_t x) {
    int32_t i = poolPos[x];
    uint32_t last = pool.back();
    pool[i] = last;
    poolPos[last] = i;
    pool.pop_back();
    poolPos[x] = -1;
  }
  void dissolveSparsestPhase();
  QuotientPacking snapshot() const;
  bool step();
};

void PartialPackingSearch::load(const QuotientPacking &packing, size_t phases) {
  T = phases;
  occ.assign(T * C, 0);
  owner.assign(T * C * k, 0);
  assign.assign(bp.items.size(), Assign());
  poolPos.assign(bp.items.size(), -1);
  pool.clear();
  phaseLoad.assign(T, 0);
  clearTabu();
  for (size_t p = 0; p < packing.size(); ++p)
    for (const QuotientPlacement &pl : packing[p])
      place(pl.item, p, pl.option, pl.shift);
}

void PartialPackingSearch::place(uint32_t x, size_t p, unsigned o, unsigned j) {
  for (auto [ch, m] : bp.items[x].options[o].masks) {
    uint64_t r = rotateMask(m, j, k);
    assert(!(occ[p * C + ch] & r) && "placement overlaps");
    occ[p * C + ch] |= r;
    uint32_t *own = &owner[(p * C + ch) * k];
    for (uint64_t b = r; b; b &= b - 1)
      own[llvm::countr_zero(b)] = x;
  }
  assign[x] = {static_cast<int32_t>(p), static_cast<uint8_t>(o),
               static_cast<uint16_t>(j)};
  phaseLoad[p] += bp.items[x].len;
}

void PartialPackingSearch::remove(uint32_t x) {
  Assign a = assign[x];
  assert(a.phase >= 0 && "item not placed");
  size_t p = static_cast<size_t>(a.phase);
  for (auto [ch, m] : bp.items[x].options[a.option].masks)
    occ[p * C + ch] &= ~rotateMask(m, a.shift, k);
  phaseLoad[p] -= bp.items[x].len;
  assign[x].phase = -1;
}

void PartialPackingSearch::dissolveSparsestPhase() {
  size_t victim = 0;
  for (size_t p = 1; p < T; ++p)
    if (phaseLoad[p] < phaseLoad[victim])
      victim = p;
  // Pool the victim's items, move the last phase into its slot.
  for (uint32_t x = 0; x < assign.size(); ++x)
    if (assign[x].phase == static_cast<int32_t>(victim)) {
      remove(x);
      toPool(x);
    }
  size_t last = T - 1;
  if (victim != last) {
    for (unsigned ch = 0; ch < C; ++ch) {
      occ[victim * C + ch] = occ[last * C + ch];
      std::copy_n(&owner[(last * C + ch) * k], k,
                  &owner[(victim * C + ch) * k]);
    }
    phaseLoad[victim] = phaseLoad[last];
    for (Assign &a : assign)
      if (a.phase == static_cast<int32_t>(last))
        a.phase = static_cast<int32_t>(victim);
  }
  --T;
  occ.resize(T * C);
  owner.resize(T * C * k);
  phaseLoad.resize(T);
  clearTabu();
}

QuotientPacking PartialPackingSearch::snapshot() const {
  QuotientPacking out(T);
  for (uint32_t x = 0; x < assign.size(); ++x) {
    const Assign &a = assign[x];
    assert(a.phase >= 0 && "snapshot of a partial packing");
    out[a.phase].push_back({x, a.option, a.shift});
  }
  return out;
}

/// One move: a pool item goes to the best non-tabu (phase, shift, option),
/// ejecting whatever overlaps it there. Returns false if no move exists.
bool PartialPackingSearch::step() {
  ++iter;
  uint32_t x = pool[rng.below(static_cast<uint32_t>(pool.size()))];
  const QuotientItem &it = bp.items[x];
  uint64_t bestCost = std::numeric_limits<uint64_t>::max();
  size_t bestP = 0;
  unsigned bestO = 0, bestJ = 0, ties = 0;
  llvm::SmallVector<uint32_t, 16> owners;
  llvm::SmallVector<uint32_t, 8> tabuPhases;
  for (auto [p, until] : tabu[x])
    if (until > iter)
      tabuPhases.push_back(p);
  for (size_t p = 0; p < T; ++p) {
    bool isTabu = llvm::is_contained(tabuPhases, static_cast<uint32_t>(p));
    const uint64_t *po = &occ[p * C];
    for (unsigned o = 0; o < it.options.size(); ++o) {
      const QuotientOption &opt = it.options[o];
      for (unsigned j = 0; j < k; ++j) {
        ++work;
        uint64_t cost = 0;
        owners.clear();
        bool abandoned = false;
        for (auto [ch, m] : opt.masks) {
          uint64_t conf = rotateMask(m, j, k) & po[ch];
          const uint32_t *own = &owner[(p * C + ch) * k];
          for (; conf; conf &= conf - 1) {
            uint32_t z = own[llvm::countr_zero(conf)];
            if (llvm::is_contained(owners, z))
              continue;
            owners.push_back(z);
            cost += bp.items[z].len;
            if (cost > bestCost)
              break;
          }
          if (cost > bestCost) {
            abandoned = true;
            break;
          }
        }
        if (abandoned || (isTabu && cost > 0))
          continue;
        if (cost < bestCost) {
          bestCost = cost;
          ties = 1;
          bestP = p;
          bestO = o;
          bestJ = j;
        } else if (cost == bestCost && rng.below(++ties) == 0) {
          bestP = p;
          bestO = o;
          bestJ = j;
        }
      }
    }
  }
  if (bestCost == std::numeric_limits<uint64_t>::max())
    return false;
  // Eject the overlapping items, then place x.
  owners.clear();
  for (auto [ch, m] : it.options[bestO].masks) {
    uint64_t conf = rotateMask(m, bestJ, k) & occ[bestP * C + ch];
    const uint32_t *own = &owner[(bestP * C + ch) * k];
    for (; conf; conf &= conf - 1) {
      uint32_t z = own[llvm::countr_zero(conf)];
      if (!llvm::is_contained(owners, z))
        owners.push_back(z);
    }
  }
  fromPool(x);
  // PartialCol's dynamic tenure: a random base plus 0.6 x the pool size.
  uint64_t tenure = 10 + rng.below(10) + (pool.size() + owners.size()) * 6 / 10;
  for (uint32_t z : owners) {
    remove(z);
    toPool(z);
    auto &v = tabu[z];
    llvm::erase_if(v, [&](const std::pair<uint32_t, uint64_t> &e) {
      return e.second <= iter || e.first == bestP;
    });
    v.push_back({static_cast<uint32_t>(bestP), iter + tenure});
  }
  place(x, bestP, bestO, bestJ);
  return true;
}

QuotientPacking PartialPackingSearch::run(QuotientPacking start, size_t target,
                                          uint64_t budget,
                                          QuotientSearchStats &stats) {
  QuotientPacking best = std::move(start);
  stats.startPhases = best.size();
  if (best.size() <= target || best.size() < 2) {
    stats.endPhases = best.size();
    return best;
  }
  load(best, best.size());
  dissolveSparsestPhase();
  while (work < budget) {
    if (pool.empty()) {
      best = snapshot();
      if (T <= target || T < 2)
        break;
      dissolveSparsestPhase();
      continue;
    }
    if (!step())
      break;
  }
  stats.endPhases = best.size();
  stats.iterations = iter;
  stats.work = work;
  return best;
}

} // namespace

QuotientPacking phasec::detail::improveQuotientPacking(
    const QuotientBaseProblem &problem, QuotientPacking start, size_t target,
    uint64_t workBudget, uint64_t seed, QuotientSearchStats &stats) {
  PartialPackingSearch search(problem, seed);
  return search.run(std::move(start), target, workBudget, stats);
}
