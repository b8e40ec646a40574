//===- RelayRounds.cpp - the relaying algorithms as rounds ----------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Every relaying algorithm as rounds in group-index space: trees, chains,
/// rings, recursive doubling and halving, Rabenseifner, Bruck, k-level
/// (seed 003), dimension-wise. Indices: n members; trees and chains work on
/// relative indices v = (member - root) mod n, so that every root gets the
/// same shape.
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
/// Builds rounds in relative indices and maps them to member indices:
/// relative index v is the member v places after the root in `order`
/// (group order when empty).
class RoundBuilder {
public:
  RoundBuilder(int64_t n, int64_t rootMember,
               llvm::ArrayRef<int32_t> order = {})
      : n_(n), root_(rootMember), order_(order) {
    if (!order_.empty())
      root_ = llvm::find(order_, rootMember) - order_.begin();
  }

  /// The member at relative index v.
  int32_t member(int64_t v) const {
    int64_t at = ((v % n_ + n_) % n_ + root_) % n_;
    return order_.empty() ? static_cast<int32_t>(at) : order_[at];
  }
  void newRound() {
    if (rounds.empty() || !rounds.back().empty())
      rounds.emplace_back();
  }
  /// A step between relative indices.
  void step(int64_t from, int64_t to, llvm::SmallVector<int64_t, 2> chunks,
            bool reduce) {
    if (rounds.empty())
      rounds.emplace_back();
    rounds.back().push_back(
        {member(from), member(to), std::move(chunks), reduce});
  }
  std::vector<RelayRound> take() {
    if (!rounds.empty() && rounds.back().empty())
      rounds.pop_back();
    return std::move(rounds);
  }

  std::vector<RelayRound> rounds;

private:
  int64_t n_, root_;
  llvm::ArrayRef<int32_t> order_;
};
} // namespace

static llvm::SmallVector<int64_t, 2> range(int64_t lo, int64_t hi) {
  llvm::SmallVector<int64_t, 2> out;
  for (int64_t c = lo; c < hi; ++c)
    out.push_back(c);
  return out;
}

/// Broadcast trees: every round, holders send `all` to new members.
static void broadcastTree(RoundBuilder &b, int64_t n, Algorithm alg,
                          int64_t radix,
                          const llvm::SmallVector<int64_t, 2> &all) {
  switch (alg) {
  case Algorithm::Direct:
    for (int64_t v = 1; v < n; ++v)
      b.step(0, v, all, false);
    return;
  case Algorithm::Binomial:
    for (int64_t mask = 1; mask < n; mask <<= 1) {
      b.newRound();
      for (int64_t v = 0; v < mask && v + mask < n; ++v)
        b.step(v, v + mask, all, false);
    }
    return;
  case Algorithm::Binary:
    for (int64_t first = 0, width = 1; first < n; first += width, width <<= 1) {
      b.newRound();
      for (int64_t v = first; v < std::min(n, first + width); ++v)
        for (int64_t c = 2 * v + 1; c <= 2 * v + 2 && c < n; ++c)
          b.step(v, c, all, false);
    }
    return;
  case Algorithm::Knomial:
    for (int64_t s = 1; s < n; s *= radix) {
      b.newRound();
      for (int64_t v = 0; v < s; ++v)
        for (int64_t j = 1; j < radix && v + j * s < n; ++j)
          b.step(v, v + j * s, all, false);
      if (s > n / radix)
        break;
    }
    return;
  default:
    llvm_unreachable("not a broadcast tree");
  }
}

/// Reduction trees: the broadcast trees upside down, with reduce.
static void reduceTree(RoundBuilder &b, int64_t n, Algorithm alg, int64_t radix,
                       int64_t C) {
  auto all = range(0, C);
  switch (alg) {
  case Algorithm::Direct:
    for (int64_t v = 1; v < n; ++v)
      b.step(v, 0, all, true);
    return;
  case Algorithm::Binomial:
    for (int64_t mask = 1; mask < n; mask <<= 1) {
      b.newRound();
      for (int64_t v = mask; v < n; v += 2 * mask)
        b.step(v, v - mask, all, true);
    }
    return;
  case Algorithm::Binary: {
    // Deepest level first; a parent combines both children in one round.
    std::vector<std::pair<int64_t, int64_t>> levels;
    for (int64_t first = 0, width = 1; first < n; first += width, width <<= 1)
      levels.push_back({first, std::min(n, first + width)});
    for (size_t l = levels.size(); l-- > 1;) {
      b.newRound();
      for (int64_t v = levels[l].first; v < levels[l].second; ++v)
        b.step(v, (v - 1) / 2, all, true);
    }
    return;
  }
  case Algorithm::Knomial:
    for (int64_t s = 1; s < n; s *= radix) {
      b.newRound();
      for (int64_t v = s; v < n; v += s)
        if ((v / s) % radix)
          b.step(v, v - ((v / s) % radix) * s, all, true);
      if (s > n / radix)
        break;
    }
    return;
  default:
    llvm_unreachable("not a reduction tree");
  }
}

/// Ring reduce-scatter over blocks of `s` chunks: member v ends with block
/// (v + shift) mod n complete.
static void ringReduceScatter(RoundBuilder &b, int64_t n, int64_t s,
                              int64_t shift) {
  for (int64_t t = 0; t + 1 < n; ++t) {
    b.newRound();
    for (int64_t v = 0; v < n; ++v) {
      // Blocks belong to members (a reduce-scatter's results do).
      int64_t blk = b.member(v - t - 1 + shift);
      b.step(v, v + 1, range(blk * s, blk * s + s), true);
    }
  }
}

/// Ring allgather of blocks of `s` chunks, member v starting with block
/// (v + shift) mod n.
static void ringAllgather(RoundBuilder &b, int64_t n, int64_t s,
                          int64_t shift) {
  for (int64_t t = 0; t + 1 < n; ++t) {
    b.newRound();
    for (int64_t v = 0; v < n; ++v) {
      int64_t blk = b.member(v - t + shift);
      b.step(v, v + 1, range(blk * s, blk * s + s), false);
    }
  }
}

/// Folds members p2..n-1 into 0..n-p2-1 (reduce) before a power-of-two
/// algorithm; unfoldExtras copies the result back.
static void foldExtras(RoundBuilder &b, int64_t n, int64_t p2, int64_t C) {
  b.newRound();
  for (int64_t v = p2; v < n; ++v)
    b.step(v, v - p2, range(0, C), true);
}
static void unfoldExtras(RoundBuilder &b, int64_t n, int64_t p2, int64_t C) {
  b.newRound();
  for (int64_t v = p2; v < n; ++v)
    b.step(v - p2, v, range(0, C), false);
}

/// Recursive halving over p2 members and B <= p2 blocks of s chunks (both
/// powers of two) until each member holds one block complete: member v
/// ends with block v / (p2 / B) (block v when B = p2, the reduce-scatter).
static void recursiveHalving(RoundBuilder &b, int64_t p2, int64_t B,
                             int64_t s) {
  std::vector<std::pair<int64_t, int64_t>> ranges(p2, {0, B});
  for (int64_t mask = p2 / 2; mask >= p2 / B; mask >>= 1) {
    b.newRound();
    for (int64_t v = 0; v < p2; ++v) {
      auto [lo, hi] = ranges[v];
      int64_t mid = (lo + hi) / 2;
      bool upper = v & mask;
      int64_t sendLo = upper ? lo : mid, sendHi = upper ? mid : hi;
      b.step(v, v ^ mask, range(sendLo * s, sendHi * s), true);
      ranges[v] = upper ? std::make_pair(mid, hi) : std::make_pair(lo, mid);
    }
  }
}

/// Recursive-doubling allgather over p2 members (a power of two) where
/// member v starts with block v / share: with mask = share, 2 share, ...,
/// v sends the aligned run of blocks it holds to v xor mask. `blocks(lo,
/// hi)` are the chunks of blocks lo..hi-1; a member that needs nothing
/// (`skipDst`, e.g. a broadcast's root) is not sent to.
template <typename ChunksOfBlocks>
static void doublingAllgather(RoundBuilder &b, int64_t p2, int64_t share,
                              ChunksOfBlocks blocks, int64_t skipDst = -1) {
  for (int64_t mask = share; mask < p2; mask <<= 1) {
    b.newRound();
    const int64_t width = mask / share; // blocks each member holds
    for (int64_t v = 0; v < p2; ++v) {
      int64_t lo = (v / share) & ~(width - 1);
      if ((v ^ mask) != skipDst)
        b.step(v, v ^ mask, blocks(lo, lo + width), false);
    }
  }
}

/// Rabenseifner's allreduce over p2 members and B <= p2 blocks of s chunks
/// (both powers of two): recursive halving until each member holds one
/// block, recursive doubling of that block among the p2 / B members that
/// share it, then the doubling allgather of the halving's masks in
/// reverse. With B = p2 it is the classic halving plus doubling; with
/// B = 1, recursive doubling.
static void rabenseifnerRounds(RoundBuilder &b, int64_t p2, int64_t B,
                               int64_t s) {
  const int64_t share = p2 / B; // members that end with the same block
  recursiveHalving(b, p2, B, s);
  for (int64_t mask = share / 2; mask >= 1; mask >>= 1) {
    b.newRound();
    for (int64_t v = 0; v < p2; ++v) {
      int64_t blk = v / share;
      b.step(v, v ^ mask, range(blk * s, (blk + 1) * s), true);
    }
  }
  doublingAllgather(b, p2, share, [s](int64_t lo, int64_t hi) {
    return range(lo * s, hi * s);
  });
}

/// Binomial scatter over relative members: the holder of [v, v + 2 mask)
/// sends [v + mask, v + 2 mask) on; `chunks(lo, hi)` is the data of
/// relative members lo..hi-1.
template <typename ChunksOf>
static void binomialScatter(RoundBuilder &b, int64_t n, ChunksOf chunks) {
  for (int64_t mask = int64_t(llvm::PowerOf2Ceil(n)) / 2; mask >= 1;
       mask >>= 1) {
    b.newRound();
    for (int64_t v = 0; v + mask < n; v += 2 * mask)
      b.step(v, v + mask, chunks(v + mask, std::min(n, v + 2 * mask)), false);
  }
}

/// Hillis-Steele over relative indices [first, n): v sends its partial to
/// v + d for d = 1, 2, 4, ...
static void hillisSteele(RoundBuilder &b, int64_t first, int64_t n, int64_t C) {
  for (int64_t d = 1; first + d < n; d <<= 1) {
    b.newRound();
    for (int64_t v = first; v + d < n; ++v)
      b.step(v, v + d, range(0, C), true);
  }
}

/// grid(c): relative indices as a logical grid of rows of c, v = r c + j.
/// Each exchange is direct (everyone in a row, or a column, to everyone
/// else in it, one round), so a member sends (c - 1) + (n / c - 1)
/// messages in two rounds where the direct exchange sends n - 1 in one and
/// Bruck log2 n in log2 n rounds. `blocks(lo, hi)` are the chunks of the
/// blocks of relative members lo..hi-1 (a member's own block for allgather
/// and reduce_scatter; any fixed block per index for allreduce, whose data
/// is one vector).
template <typename BlocksOf>
static void gridRounds(RoundBuilder &b, CollectiveKind kind, int64_t n,
                       int64_t c, BlocksOf blocks) {
  const int64_t rows = n / c;
  // Everyone in each line (a row, or a column) sends everyone else in it
  // what(line, from, to), `from` and `to` positions along the line.
  auto exchange = [&](bool alongRows, auto what, bool reduce) {
    b.newRound();
    const int64_t lines = alongRows ? rows : c;
    const int64_t length = alongRows ? c : rows;
    auto at = [&](int64_t line, int64_t p) {
      return alongRows ? line * c + p : p * c + line;
    };
    for (int64_t line = 0; line < lines; ++line)
      for (int64_t p = 0; p < length; ++p)
        for (int64_t q = 0; q < length; ++q)
          if (p != q)
            b.step(at(line, p), at(line, q), what(line, p, q), reduce);
  };
  auto row = [&](int64_t r) { return blocks(r * c, r * c + c); };
  auto one = [&](int64_t v) { return blocks(v, v + 1); };
  // Reduce-scatter: down the columns each member passes on the partials of
  // the receiver's row's blocks, then along the rows each the partial of
  // the receiver's own block (nothing a round sends is written in it).
  if (kind != CollectiveKind::Allgather) {
    exchange(
        false, [&](int64_t, int64_t, int64_t r2) { return row(r2); }, true);
    exchange(
        true, [&](int64_t r, int64_t, int64_t j2) { return one(r * c + j2); },
        true);
  }
  // Allgather: each member's block along its row, then each row's blocks
  // down the columns.
  if (kind != CollectiveKind::ReduceScatter) {
    exchange(
        true, [&](int64_t r, int64_t j, int64_t) { return one(r * c + j); },
        false);
    exchange(
        false, [&](int64_t, int64_t r, int64_t) { return row(r); }, false);
  }
}

namespace {
/// A rectangle of a 2-D grid.
struct Region {
  int64_t x0, y0, w, h;
  bool contains(int64_t x, int64_t y) const {
    return x >= x0 && x < x0 + w && y >= y0 && y < y0 + h;
  }
};
/// How one level of a k-level algorithm partitions a region.
enum class Cut { Rows, Squares, Single, Halve, Uneven };
} // namespace

/// Seed 003's k-level trees on a 2-D grid: each level's holders send every
/// sub-region's data to that sub-region's leader (the node at the holder's
/// place inside it), the sub-regions then work independently.
static LogicalResult kLevelRounds(RoundBuilder &b, const ChunkSpec &spec,
                                  RelayChoice choice, const Topology *topo,
                                  std::string &error) {
  const int64_t n = spec.numMembers();
  // Seed 003's 1-level broadcasting one-to-all (1-lev-sys-br,
  // 1-lev-our-br): the whole message, every block but the source's own,
  // down one broadcast tree; every rank keeps its block. No submachines,
  // so any group.
  llvm::SmallVector<int64_t, 2> wholeMessage;
  if (choice.shape == KLevelShape::SysBr ||
      choice.shape == KLevelShape::OurBr) {
    if (spec.kind != CollectiveKind::Scatter || choice.param != 1) {
      error = describeRelayChoice(choice) +
              " broadcasts a one-to-all's whole message in one level: it "
              "needs k_level(1, ...) of a one_to_all or scatter";
      return failure();
    }
    const int64_t k = spec.chunksPerMember();
    for (int64_t c = 0; c < spec.numChunks; ++c)
      if (c / k != b.member(0))
        wholeMessage.push_back(c);
  }
  // 1-lev-our-br's "binomial heap as a broadcasting tree" is the seed's
  // binomial heap: halve the machine, the holder sends to the leader of the
  // other half (the tree of logp-lev-sq below, every edge carrying the whole
  // message). Far halves first matters to C^3: each step's send then runs
  // on the half it serves, which is what the seed's Figure 3 charges.
  bool heapOnGrid = choice.shape == KLevelShape::OurBr &&
                    isWholeGridInOrder(topo, spec) && topo->numDims() <= 2;
  if (!heapOnGrid && (choice.shape == KLevelShape::SysBr ||
                      choice.shape == KLevelShape::OurBr)) {
    Algorithm tree =
        choice.shape == KLevelShape::OurBr ? Algorithm::Binomial : choice.tree;
    if (tree != Algorithm::Direct && tree != Algorithm::Binomial &&
        tree != Algorithm::Binary && tree != Algorithm::Knomial) {
      error = describeRelayChoice(choice) +
              " needs its broadcast tree chosen (scheduleRelaying does)";
      return failure();
    }
    broadcastTree(b, n, tree, defaultParam(tree), wholeMessage);
    return success();
  }
  if (!isWholeGridInOrder(topo, spec) || topo->numDims() > 2) {
    error = describeRelayChoice(choice) +
            " partitions a 1-D or 2-D mesh or torus into submachines: the "
            "group must be every node of one, one rank per node";
    return failure();
  }
  // A line is a grid of one row.
  const int64_t W = topo->extent(0),
                H = topo->numDims() == 2 ? topo->extent(1) : 1;
  int64_t levels = choice.param;
  KLevelShape shape = choice.shape;
  if (shape == KLevelShape::None)
    shape = levels == 2 ? KLevelShape::Rec : KLevelShape::Sq;
  std::vector<std::pair<Cut, int64_t>> cuts;
  auto isqrt = [](int64_t v) { return std::max<int64_t>(floorSqrt(v), 1); };
  if (heapOnGrid)
    cuts = {{Cut::Halve, 0}};
  else if (levels == 1)
    cuts = {{Cut::Single, 0}};
  else if (levels == 2 && shape == KLevelShape::Rec)
    cuts = {{Cut::Rows, 0}, {Cut::Single, 0}};
  else if (levels == 2 && shape == KLevelShape::Sq)
    cuts = {{Cut::Squares, isqrt(std::max(W, H))}, {Cut::Single, 0}};
  else if (levels == 3 && shape == KLevelShape::Sq)
    cuts = {{Cut::Squares, isqrt(isqrt(n))}, {Cut::Rows, 0}, {Cut::Single, 0}};
  else if ((levels == 0 ||
            levels == static_cast<int64_t>(llvm::Log2_64_Ceil(n))) &&
           shape == KLevelShape::Sq && choice.gammaPercent == 0)
    cuts = {{Cut::Halve, 0}};
  else if (levels == 0 && shape == KLevelShape::Rec)
    cuts = {{Cut::Uneven, choice.gammaPercent ? choice.gammaPercent : 50}};
  else {
    error = describeRelayChoice(choice) +
            " is not one of seed 003's k-level algorithms (k_level(1), "
            "k_level(2, rec), k_level(2, sq), k_level(3, sq), "
            "k_level(logp, sq), k_level(logp, rec, gamma), "
            "k_level(1, sys_br), k_level(1, our_br))";
    return failure();
  }
  if (cuts.front().first == Cut::Uneven &&
      (cuts.front().second < 50 || cuts.front().second > 99)) {
    error = describeRelayChoice(choice) +
            " needs 0.5 <= gamma <= 0.99: the source keeps the larger part "
            "of every cut";
    return failure();
  }
  const int64_t k = spec.chunksPerMember();
  // A broadcast sends the root's whole vector down, a gather brings the
  // members' blocks up, a scatter sends each its own down.
  const bool everything = getTraits(spec.kind).send.part == DataPart::Whole;
  const bool up = getTraits(spec.kind).recv.rootOnly();
  int64_t rootMember =
      spec.root >= 0 ? llvm::find(spec.group, spec.root) - spec.group.begin()
                     : 0;
  // Member index of the node at (x, y): the group is every rank in order.
  auto memberAt = [&](int64_t x, int64_t y) { return x + W * y; };
  auto chunksOf = [&](const Region &r) {
    llvm::SmallVector<int64_t, 2> out;
    if (heapOnGrid)
      return wholeMessage;
    if (everything) {
      for (int64_t c = 0; c < spec.numChunks; ++c)
        out.push_back(c);
      return out;
    }
    for (int64_t y = r.y0; y < r.y0 + r.h; ++y)
      for (int64_t x = r.x0; x < r.x0 + r.w; ++x)
        for (int64_t m = 0; m < k; ++m)
          out.push_back(memberAt(x, y) * k + m);
    llvm::sort(out);
    return out;
  };
  // Steps by depth, in member indices (not relative to the root).
  std::vector<RelayRound> byDepth;
  struct Work {
    Region region;
    int64_t hx, hy;
    size_t level;
    int64_t depth;
  };
  std::vector<Work> stack{{{0, 0, W, H}, rootMember % W, rootMember / W, 0, 0}};
  while (!stack.empty()) {
    Work w = stack.back();
    stack.pop_back();
    if (w.region.w * w.region.h <= 1 || w.level >= cuts.size())
      continue;
    auto [cut, side] = cuts[w.level];
    std::vector<Region> parts;
    const Region &r = w.region;
    switch (cut) {
    case Cut::Rows:
      for (int64_t y = r.y0; y < r.y0 + r.h; ++y)
        parts.push_back({r.x0, y, r.w, 1});
      break;
    case Cut::Single:
      for (int64_t y = r.y0; y < r.y0 + r.h; ++y)
        for (int64_t x = r.x0; x < r.x0 + r.w; ++x)
          parts.push_back({x, y, 1, 1});
      break;
    case Cut::Squares:
      for (int64_t y = r.y0; y < r.y0 + r.h; y += side)
        for (int64_t x = r.x0; x < r.x0 + r.w; x += side)
          parts.push_back({x, y, std::min(side, r.x0 + r.w - x),
                           std::min(side, r.y0 + r.h - y)});
      break;
    case Cut::Halve: {
      // Vertical cuts at even depths (while the region is wider than 1).
      bool vertical = (w.depth % 2 == 0 && r.w > 1) || r.h == 1;
      if (vertical) {
        int64_t a = (r.w + 1) / 2;
        parts = {{r.x0, r.y0, a, r.h}, {r.x0 + a, r.y0, r.w - a, r.h}};
      } else {
        int64_t a = (r.h + 1) / 2;
        parts = {{r.x0, r.y0, r.w, a}, {r.x0, r.y0 + a, r.w, r.h - a}};
      }
      break;
    }
    case Cut::Uneven: {
      // logp-lev-rec(gamma): cut the longer side; the holder's part keeps
      // gamma of it (at least one line, at most all but one), on whichever
      // end of the region the holder is.
      bool vertical = r.w >= r.h;
      int64_t len = vertical ? r.w : r.h;
      int64_t at = vertical ? w.hx - r.x0 : w.hy - r.y0;
      int64_t a = std::clamp<int64_t>((len * side + 50) / 100, 1, len - 1);
      int64_t c = at < a ? a : len - a;
      if (vertical)
        parts = {{r.x0, r.y0, c, r.h}, {r.x0 + c, r.y0, r.w - c, r.h}};
      else
        parts = {{r.x0, r.y0, r.w, c}, {r.x0, r.y0 + c, r.w, r.h - c}};
      break;
    }
    }
    // The holder's place inside its own part.
    const Region *own = nullptr;
    for (const Region &p : parts)
      if (p.contains(w.hx, w.hy))
        own = &p;
    int64_t dx = w.hx - own->x0, dy = w.hy - own->y0;
    if (static_cast<int64_t>(byDepth.size()) <= w.depth)
      byDepth.resize(w.depth + 1);
    size_t next =
        cut == Cut::Halve || cut == Cut::Uneven ? w.level : w.level + 1;
    for (const Region &p : parts) {
      int64_t lx = p.x0 + std::min(dx, p.w - 1),
              ly = p.y0 + std::min(dy, p.h - 1);
      if (&p == own) {
        lx = w.hx;
        ly = w.hy;
      } else {
        int32_t from = static_cast<int32_t>(memberAt(w.hx, w.hy));
        int32_t to = static_cast<int32_t>(memberAt(lx, ly));
        auto chunks = chunksOf(p);
        if (up)
          byDepth[w.depth].push_back({to, from, std::move(chunks), false});
        else
          byDepth[w.depth].push_back({from, to, std::move(chunks), false});
      }
      stack.push_back({p, lx, ly, next, w.depth + 1});
    }
  }
  if (up)
    std::reverse(byDepth.begin(), byDepth.end());
  for (RelayRound &round : byDepth)
    if (!round.empty())
      b.rounds.push_back(std::move(round));
  return success();
}

/// Seed 003's all-to-all k-level algorithms on a 1-D or 2-D grid whose
/// every node holds one member (member x + W y at (x, y)); chunk
/// (i n + j) k + m goes from member i to member j:
/// - k_level(2, sq), 2-lev-sq: q = sqrt(n) submachines ("tiles") of q nodes,
///   as square as the grid allows; member u of tile t is P(t, u). Step 1,
///   inside each tile: P(t, u) sends P(t, u') its data for tile u'. Step 2,
///   one message each: P(t, u), now holding everything tile t sends to tile
///   u, passes it to P(u, t). Step 3, inside each tile: P(t', s) hands each
///   P(t', u') what tile s sends it. Steps 1 and 3 are q - 1 messages of
///   q blocks, step 2 one message of q^2 blocks: pL bytes each step.
/// - k_level(2, rc), 2-lev-r,c: along the row to the node in the
///   destination's column (everything for that column), then along the
///   column to the destination (everything the row sends it).
/// - k_level(logp, bfly), logp-lev-bfly: step b exchanges with member
///   i ^ 2^b every held block whose destination differs from i in bit b
///   (half of what each member holds), lowest bit first.
static LogicalResult kLevelAlltoallRounds(std::vector<RelayRound> &rounds,
                                          const ChunkSpec &spec,
                                          RelayChoice choice,
                                          const Topology *topo,
                                          std::string &error) {
  const int64_t n = spec.numMembers(), k = spec.chunksPerMember();
  const std::string name = describeRelayChoice(choice);
  if (!isWholeGridInOrder(topo, spec) || topo->numDims() > 2) {
    error = name + " partitions a 1-D or 2-D mesh or torus into "
                   "submachines: the group must be every node of one, one "
                   "rank per node";
    return failure();
  }
  const int64_t W = topo->extent(0),
                H = topo->numDims() == 2 ? topo->extent(1) : 1;
  const bool butterfly =
      (choice.shape == KLevelShape::Bfly ||
       choice.shape == KLevelShape::None) &&
      (choice.param == 0 ||
       choice.param == static_cast<int64_t>(llvm::Log2_64_Ceil(n)));
  // The chunks of (source member i, destination member j).
  auto pair = [&](llvm::SmallVector<int64_t, 2> &out, int64_t i, int64_t j) {
    for (int64_t m = 0; m < k; ++m)
      out.push_back((i * n + j) * k + m);
  };
  auto add = [&](RelayRound &round, int64_t from, int64_t to,
                 llvm::SmallVector<int64_t, 2> chunks) {
    llvm::sort(chunks);
    round.push_back({static_cast<int32_t>(from), static_cast<int32_t>(to),
                     std::move(chunks), false});
  };
  // packRounds places a round's transfers first fit in order: the longest
  // routes first leave the short ones to fill the gaps.
  auto longestFirst = [&](RelayRound round) {
    llvm::stable_sort(round, [&](const RelayStep &a, const RelayStep &b) {
      return topo->hops(a.src, a.dst) > topo->hops(b.src, b.dst);
    });
    return round;
  };
  if (choice.param == 2 && choice.shape == KLevelShape::Rc) {
    RelayRound rows, cols;
    for (int64_t y = 0; y < H; ++y)
      for (int64_t x = 0; x < W; ++x)
        for (int64_t x2 = 0; x2 < W; ++x2) {
          if (x2 == x)
            continue;
          llvm::SmallVector<int64_t, 2> chunks;
          for (int64_t y2 = 0; y2 < H; ++y2)
            pair(chunks, x + W * y, x2 + W * y2);
          add(rows, x + W * y, x2 + W * y, std::move(chunks));
        }
    for (int64_t y = 0; y < H; ++y)
      for (int64_t x = 0; x < W; ++x)
        for (int64_t y2 = 0; y2 < H; ++y2) {
          if (y2 == y)
            continue;
          llvm::SmallVector<int64_t, 2> chunks;
          for (int64_t x2 = 0; x2 < W; ++x2)
            pair(chunks, x2 + W * y, x + W * y2);
          add(cols, x + W * y, x + W * y2, std::move(chunks));
        }
    for (RelayRound *round : {&rows, &cols})
      if (!round->empty())
        rounds.push_back(longestFirst(std::move(*round)));
    return success();
  }
  if (choice.param == 2 && choice.shape == KLevelShape::Sq) {
    const int64_t q = floorSqrt(n);
    if (q * q != n) {
      error = llvm::formatv("{0} forms sqrt(p) submachines of sqrt(p) nodes "
                            "each: it needs a square number of members, got "
                            "{1}",
                            name, n)
                  .str();
      return failure();
    }
    // The tile w x h (w h = q) that fits the grid and is closest to a
    // square, the wider one on a tie; one always exists when W H = q^2.
    int64_t w = 0, h = 0;
    for (int64_t a = 1; a <= q; ++a) {
      int64_t b2 = q / a;
      if (q % a || W % a || H % b2)
        continue;
      if (!w || std::abs(a - b2) < std::abs(w - h) ||
          (std::abs(a - b2) == std::abs(w - h) && a > w)) {
        w = a;
        h = b2;
      }
    }
    assert(w && "a tile exists when W H = q^2");
    const int64_t tilesPerRow = W / w;
    // P(t, u): member u of tile t.
    auto proc = [&](int64_t t, int64_t u) {
      int64_t x = (t % tilesPerRow) * w + u % w,
              y = (t / tilesPerRow) * h + u / w;
      return x + W * y;
    };
    RelayRound inside, across, back;
    for (int64_t t = 0; t < q; ++t)
      for (int64_t u = 0; u < q; ++u) {
        for (int64_t u2 = 0; u2 < q; ++u2) {
          if (u2 == u)
            continue;
          llvm::SmallVector<int64_t, 2> chunks;
          for (int64_t v = 0; v < q; ++v)
            pair(chunks, proc(t, u), proc(u2, v));
          add(inside, proc(t, u), proc(t, u2), std::move(chunks));
        }
        if (u != t) {
          llvm::SmallVector<int64_t, 2> chunks;
          for (int64_t a = 0; a < q; ++a)
            for (int64_t b2 = 0; b2 < q; ++b2)
              pair(chunks, proc(t, a), proc(u, b2));
          add(across, proc(t, u), proc(u, t), std::move(chunks));
        }
        // P(t, u) holds what tile u sends to tile t.
        for (int64_t u2 = 0; u2 < q; ++u2) {
          if (u2 == u)
            continue;
          llvm::SmallVector<int64_t, 2> chunks;
          for (int64_t v = 0; v < q; ++v)
            pair(chunks, proc(u, v), proc(t, u2));
          add(back, proc(t, u), proc(t, u2), std::move(chunks));
        }
      }
    for (RelayRound *round : {&inside, &across, &back})
      if (!round->empty())
        rounds.push_back(longestFirst(std::move(*round)));
    return success();
  }
  if (butterfly) {
    if (failed(requirePowerOfTwo(
            name, n, "it exchanges along the bits of the member index", error)))
      return failure();
    // at[i * n + j]: the member that holds the blocks from i to j.
    std::vector<int64_t> at(n * n);
    for (int64_t c = 0; c < n * n; ++c)
      at[c] = c / n;
    for (int64_t bit = 1; bit < n; bit <<= 1) {
      std::vector<llvm::SmallVector<int64_t, 2>> out(n);
      for (int64_t c = 0; c < n * n; ++c)
        if ((at[c] ^ (c % n)) & bit) {
          pair(out[at[c]], c / n, c % n);
          at[c] ^= bit;
        }
      RelayRound round;
      for (int64_t i = 0; i < n; ++i)
        add(round, i, i ^ bit, std::move(out[i]));
      rounds.push_back(longestFirst(std::move(round)));
    }
    return success();
  }
  error = name + " is not one of seed 003's all-to-all k-level algorithms "
                 "(k_level(2, sq), k_level(2, rc), k_level(logp, bfly)); "
                 "k_level(1) is the direct transfers";
  return failure();
}

FailureOr<std::vector<RelayRound>>
phasec::buildRelayRounds(const ChunkSpec &spec, RelayChoice choice,
                         std::string &error, const Topology *topo) {
  const int64_t n = spec.numMembers(), C = spec.numChunks;
  const int64_t k = spec.chunksPerMember();
  int64_t rootMember = 0;
  if (spec.root >= 0)
    rootMember = llvm::find(spec.group, spec.root) - spec.group.begin();
  RoundBuilder b(n, rootMember, choice.order);
  const Algorithm alg = choice.algorithm;
  const int64_t param =
      choice.param > 0 ? choice.param : defaultParam(choice.algorithm, n);
  const int64_t p2 = int64_t(1) << llvm::Log2_64(n);
  // The chunks of relative member u (kinds cut by members).
  auto chunksOf = [&](int64_t u) {
    int64_t m = b.member(u);
    return range(m * k, m * k + k);
  };
  auto chunksOfRange = [&](int64_t lo, int64_t hi) {
    llvm::SmallVector<int64_t, 2> out;
    for (int64_t u = lo; u < hi; ++u)
      out.append(chunksOf(u));
    return out;
  };
  if (n <= 1)
    return std::vector<RelayRound>();
  if (alg == Algorithm::DimensionWise)
    return dimensionWiseRounds(spec, param, topo, error);
  if (alg == Algorithm::Grid) {
    FailureOr<int64_t> c =
        gridRowLength(describeRelayChoice(choice), n, choice.param, error);
    if (failed(c))
      return failure();
    if (spec.kind == CollectiveKind::Allreduce) {
      const int64_t s = C / n; // one block per member (getRelayChunks)
      gridRounds(b, spec.kind, n, *c,
                 [&](int64_t lo, int64_t hi) { return range(lo * s, hi * s); });
    } else {
      gridRounds(b, spec.kind, n, *c, chunksOfRange);
    }
    return b.take();
  }
  if (alg == Algorithm::KLevel && spec.kind == CollectiveKind::Alltoall) {
    if (failed(kLevelAlltoallRounds(b.rounds, spec, choice, topo, error)))
      return failure();
    return b.take();
  }
  if (alg == Algorithm::KLevel) {
    if (failed(kLevelRounds(b, spec, choice, topo, error)))
      return failure();
    return b.take();
  }

  switch (spec.kind) {
  case CollectiveKind::Broadcast:
    if (alg == Algorithm::Chain) {
      for (int64_t t = 0; t < C + n - 2; ++t) {
        b.newRound();
        for (int64_t v = 0; v + 1 < n; ++v)
          if (t - v >= 0 && t - v < C)
            b.step(v, v + 1, {t - v}, false);
      }
    } else if (alg == Algorithm::DoubleChain) {
      // Two pipelines from the root: the first half of the segments to
      // relative members 1, 2, ..., the second half the other way round,
      // to n - 1, n - 2, ...: each link of the ring carries one of them.
      const int64_t a = (C + 1) / 2;
      auto back = [&](int64_t u) { return u == 0 ? 0 : n - u; };
      for (int64_t t = 0; t < a + n - 2; ++t) {
        b.newRound();
        for (int64_t v = 0; v + 1 < n; ++v) {
          if (t - v >= 0 && t - v < a)
            b.step(v, v + 1, {t - v}, false);
          if (t - v >= 0 && t - v < C - a)
            b.step(back(v), back(v + 1), {a + t - v}, false);
        }
      }
    } else if (alg == Algorithm::ScatterRdbAllgather) {
      // MPICH's scatter_rdb_allgather: the binomial scatter, then a
      // recursive-doubling allgather in log2 n rounds instead of the ring's
      // n - 1 (fewer latencies; each member still receives n - 1 chunks).
      // Member v sends the chunks of its aligned block of `mask` members to
      // v xor mask; the root already holds every chunk and gets nothing.
      binomialScatter(b, n, range);
      doublingAllgather(b, n, 1, range, /*skipDst=*/0);
    } else if (alg == Algorithm::ScatterBruckAllgather) {
      // The binomial scatter, then Bruck's allgather on any count: in the
      // round of distance d member v sends member v - d the chunks
      // v .. v + d - 1 (mod n) it has gathered, but none the receiver
      // already holds: the root holds everything, and the scatter left
      // each member its subtree's chunks [u, u + lowbit(u)).
      binomialScatter(b, n, range);
      auto holds = [&](int64_t u, int64_t chunk) {
        if (u == 0)
          return true;
        int64_t low = u & -u;
        return chunk >= u && chunk < std::min(n, u + low);
      };
      for (int64_t d = 1; d < n; d <<= 1) {
        b.newRound();
        const int64_t count = std::min(d, n - d);
        for (int64_t v = 0; v < n; ++v) {
          const int64_t to = ((v - d) % n + n) % n;
          llvm::SmallVector<int64_t, 2> chunks;
          for (int64_t j = 0; j < count; ++j)
            if (!holds(to, (v + j) % n))
              chunks.push_back((v + j) % n);
          if (!chunks.empty())
            b.step(v, to, std::move(chunks), false);
        }
      }
    } else if (alg == Algorithm::ScatterAllgather) {
      // Chunk j belongs to relative member j: a binomial scatter, then a
      // ring allgather that never sends back to the root.
      binomialScatter(b, n, range);
      for (int64_t t = 0; t + 1 < n; ++t) {
        b.newRound();
        for (int64_t v = 0; v + 1 < n; ++v)
          b.step(v, v + 1, {((v - t) % n + n) % n}, false);
      }
    } else {
      broadcastTree(b, n, alg, param, range(0, C));
    }
    break;
  case CollectiveKind::Reduce:
    if (alg == Algorithm::Chain) {
      for (int64_t t = 0; t < C + n - 2; ++t) {
        b.newRound();
        for (int64_t v = 1; v < n; ++v) {
          int64_t c = t - (n - 1 - v);
          if (c >= 0 && c < C)
            b.step(v, v - 1, {c}, true);
        }
      }
    } else if (alg == Algorithm::DoubleChain) {
      // The double-chain broadcast backwards: the first half of the
      // segments flows ... -> 2 -> 1 -> root, the second half ... -> n - 2
      // -> n - 1 -> root, reducing on the way.
      const int64_t a = (C + 1) / 2;
      auto back = [&](int64_t u) { return u == 0 ? 0 : n - u; };
      for (int64_t t = 0; t < a + n - 2; ++t) {
        b.newRound();
        for (int64_t u = 1; u < n; ++u) {
          int64_t c = t - (n - 1 - u);
          if (c >= 0 && c < a)
            b.step(u, u - 1, {c}, true);
          if (c >= 0 && c < C - a)
            b.step(back(u), back(u - 1), {a + c}, true);
        }
      }
    } else {
      reduceTree(b, n, alg, param, C);
    }
    break;
  case CollectiveKind::Allreduce:
    switch (alg) {
    case Algorithm::Direct: {
      // Everything to everyone at once would have every member read the
      // chunk every other member overwrites in the same phase; instead a
      // direct reduce-scatter (block w to member w) and a direct allgather.
      int64_t s = C / n;
      for (int64_t v = 0; v < n; ++v)
        for (int64_t w = 0; w < n; ++w)
          if (v != w)
            b.step(v, w, range(w * s, w * s + s), true);
      b.newRound();
      for (int64_t v = 0; v < n; ++v)
        for (int64_t w = 0; w < n; ++w)
          if (v != w)
            b.step(v, w, range(v * s, v * s + s), false);
      break;
    }
    case Algorithm::ReduceBroadcast: {
      // k-nomial trees of radix `param` (2, the default, is the binomial
      // tree; n or more the flat one): a wider tree has fewer rounds and
      // more messages into and out of the root in each.
      const int64_t radix = choice.param ? choice.param : 2;
      reduceTree(b, n, Algorithm::Knomial, radix, C);
      b.newRound();
      broadcastTree(b, n, Algorithm::Knomial, radix, range(0, C));
      break;
    }
    case Algorithm::RecursiveDoubling:
      if (p2 < n)
        foldExtras(b, n, p2, C);
      for (int64_t mask = 1; mask < p2; mask <<= 1) {
        b.newRound();
        for (int64_t v = 0; v < p2; ++v)
          b.step(v, v ^ mask, range(0, C), true);
      }
      if (p2 < n)
        unfoldExtras(b, n, p2, C);
      break;
    case Algorithm::Ring:
      ringReduceScatter(b, n, C / n, 1);
      ringAllgather(b, n, C / n, 1);
      break;
    case Algorithm::Rabenseifner:
      if (p2 < n)
        foldExtras(b, n, p2, C);
      {
        // The chunk spec cut B * param chunks, B <= p2 (getRelayChunks).
        int64_t blocks = std::min(p2, C / param);
        rabenseifnerRounds(b, p2, blocks, C / blocks);
      }
      if (p2 < n)
        unfoldExtras(b, n, p2, C);
      break;
    default:
      llvm_unreachable("checked by getRelayChunks");
    }
    break;
  case CollectiveKind::ReduceScatter:
    switch (alg) {
    case Algorithm::Direct:
      for (int64_t v = 0; v < n; ++v)
        for (int64_t w = 0; w < n; ++w)
          if (v != w)
            b.step(v, w, chunksOf(w), true);
      break;
    case Algorithm::Ring:
      ringReduceScatter(b, n, k, 0);
      break;
    case Algorithm::RecursiveHalving:
      recursiveHalving(b, n, n, k);
      break;
    default:
      llvm_unreachable("checked by getRelayChunks");
    }
    break;
  case CollectiveKind::Scan:
  case CollectiveKind::Exscan: {
    // The direct exclusive scan: every member sends its own data to every
    // higher member, the next one's copy and the others' reductions (one
    // round: packRounds puts each member's sends before what it receives
    // and the copy before the reductions, so nothing is forwarded and the
    // whole schedule can be posted at once, as MPI's linear exscan is).
    if (spec.kind == CollectiveKind::Exscan && alg == Algorithm::Direct) {
      for (int64_t v = 0; v < n; ++v)
        for (int64_t w = v + 1; w < n; ++w)
          b.step(v, w, range(0, C), w != v + 1);
      break;
    }
    // Otherwise an exclusive scan shifts every member's data one member
    // up, then scans members 1..n-1 inclusively.
    int64_t first = 0;
    if (spec.kind == CollectiveKind::Exscan) {
      for (int64_t v = 0; v + 1 < n; ++v)
        b.step(v, v + 1, range(0, C), false);
      first = 1;
    }
    b.newRound();
    switch (alg) {
    case Algorithm::Direct:
      for (int64_t v = first; v < n; ++v)
        for (int64_t w = v + 1; w < n; ++w)
          b.step(v, w, range(0, C), true);
      break;
    case Algorithm::RecursiveDoubling:
      hillisSteele(b, first, n, C);
      break;
    case Algorithm::Chain:
      for (int64_t t = 0; t < C + n - first - 2; ++t) {
        b.newRound();
        for (int64_t v = first; v + 1 < n; ++v)
          if (t - (v - first) >= 0 && t - (v - first) < C)
            b.step(v, v + 1, {t - (v - first)}, true);
      }
      break;
    default:
      llvm_unreachable("checked by getRelayChunks");
    }
    break;
  }
  case CollectiveKind::Scatter:
    binomialScatter(b, n, chunksOfRange);
    break;
  case CollectiveKind::Gather:
    for (int64_t mask = 1; mask < n; mask <<= 1) {
      b.newRound();
      for (int64_t v = mask; v < n; v += 2 * mask)
        b.step(v, v - mask, chunksOfRange(v, std::min(n, v + mask)), false);
    }
    break;
  case CollectiveKind::Allgather:
    switch (alg) {
    case Algorithm::Ring:
      for (int64_t t = 0; t + 1 < n; ++t) {
        b.newRound();
        for (int64_t v = 0; v < n; ++v)
          b.step(v, v + 1, chunksOf(v - t), false);
      }
      break;
    case Algorithm::RecursiveDoubling:
      doublingAllgather(b, n, 1, chunksOfRange);
      break;
    case Algorithm::Bruck:
      for (int64_t d = 1; d < n; d <<= 1) {
        b.newRound();
        int64_t count = std::min(d, n - d);
        for (int64_t v = 0; v < n; ++v) {
          llvm::SmallVector<int64_t, 2> chunks;
          for (int64_t j = 0; j < count; ++j)
            chunks.append(chunksOf(v + j));
          b.step(v, v - d, std::move(chunks), false);
        }
      }
      break;
    default:
      llvm_unreachable("checked by getRelayChunks");
    }
    break;
  case CollectiveKind::Alltoall: {
    // Bruck: the chunk from i to j travels (j - i) mod n members forward,
    // bit b of the distance in round b, relayed by whoever holds it.
    std::vector<int64_t> at(C);
    for (int64_t c = 0; c < C; ++c)
      at[c] = c / (n * k);
    for (int64_t d = 1, bit = 0; d < n; d <<= 1, ++bit) {
      b.newRound();
      std::vector<llvm::SmallVector<int64_t, 2>> out(n);
      for (int64_t c = 0; c < C; ++c) {
        int64_t i = c / (n * k), j = (c / k) % n;
        int64_t dist = ((j - i) % n + n) % n;
        if ((dist >> bit) & 1) {
          out[at[c]].push_back(c);
          at[c] = (at[c] + d) % n;
        }
      }
      // Members in group order (the builder maps relative indices; the
      // root is member 0 for alltoall).
      for (int64_t h = 0; h < n; ++h)
        if (!out[h].empty())
          b.step(h, h + d, std::move(out[h]), false);
    }
    break;
  }
  case CollectiveKind::Barrier:
    if (alg == Algorithm::Dissemination) {
      for (int64_t d = 1; d < n; d <<= 1) {
        b.newRound();
        for (int64_t v = 0; v < n; ++v)
          b.step(v, v + d, {0}, true);
      }
    } else {
      if (p2 < n)
        foldExtras(b, n, p2, 1);
      for (int64_t mask = 1; mask < p2; mask <<= 1) {
        b.newRound();
        for (int64_t v = 0; v < p2; ++v)
          b.step(v, v ^ mask, {0}, true);
      }
      if (p2 < n)
        unfoldExtras(b, n, p2, 1);
    }
    break;
  default:
    error = ("'" + stringifyCollectiveKind(spec.kind) +
             "' has no relaying algorithms")
                .str();
    return failure();
  }
  return b.take();
}
