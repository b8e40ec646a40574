//===- QuotientChains.cpp - Perfect base phases from gap cycles -----------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// See QuotientChains.h for why a gap cycle tiles the link classes. The
// search below looks for one cycle at a time among the displacements still
// uncovered: a depth-first search over gap sequences with sum k, largest
// gaps first (a large gap fits in few cycles, so it goes early), checking
// each window as soon as it is complete and the windows that wrap around
// when the sum reaches k.
//
//===----------------------------------------------------------------------===//

#include "QuotientChains.h"

#include "llvm/ADT/ArrayRef.h"

#include <algorithm>

using namespace phasec;
using namespace phasec::detail;

uint64_t phasec::detail::chainDisplacementId(llvm::ArrayRef<unsigned> disp,
                                             unsigned k) {
  uint64_t id = 0, stride = 1;
  for (unsigned v : disp) {
    id += v * stride;
    stride *= k;
  }
  return id;
}

namespace {

/// The displacement of window `t` of a half: +t for the "+" half, -t for
/// the "-" half, then mirrored by the frame.
void windowDisplacement(llvm::ArrayRef<uint8_t> t, uint32_t frame, int sign,
                        unsigned k, llvm::SmallVectorImpl<unsigned> &disp,
                        uint32_t &minusDirs) {
  disp.clear();
  minusDirs = 0;
  for (unsigned j = 0; j < t.size(); ++j) {
    bool minus = (sign < 0) != (((frame >> j) & 1) != 0);
    disp.push_back(minus ? (k - t[j]) % k : t[j]);
    if (minus)
      minusDirs |= uint32_t(1) << j;
  }
}

/// Window i of the cyclic sequence `seq` (length d, wrapping as often as
/// needed).
void windowAt(llvm::ArrayRef<uint8_t> seq, size_t i, unsigned d,
              llvm::SmallVectorImpl<uint8_t> &out) {
  out.clear();
  for (unsigned j = 0; j < d; ++j)
    out.push_back(seq[(i + j) % seq.size()]);
}

class CycleSearch {
public:
  CycleSearch(unsigned k, unsigned d, const std::vector<uint8_t> &covered,
              uint32_t frame, int sign, uint64_t nodeLimit)
      : k(k), d(d), maxGap(k / 2), covered(covered), frame(frame), sign(sign),
        nodeLimit(nodeLimit) {}

  /// Finds a cycle whose windows are all uncovered and distinct and, if
  /// `avoid` is non-empty, whose prefix sums R leave some u with
  /// (u - R) disjoint from `avoid`. Returns false if none was found within
  /// the node limit.
  bool find(llvm::ArrayRef<unsigned> avoid, llvm::SmallVectorImpl<uint8_t> &out,
            uint64_t &nodesUsed) {
    this->avoid = avoid;
    seq.clear();
    ids.clear();
    nodes = 0;
    bool found = dfs(0);
    nodesUsed += nodes;
    if (found)
      out.assign(seq.begin(), seq.end());
    return found;
  }

  /// The displacement id of window `t` in this search's frame and sign.
  uint64_t idOf(llvm::ArrayRef<uint8_t> t) const {
    llvm::SmallVector<unsigned, 4> disp;
    uint32_t dirs;
    windowDisplacement(t, frame, sign, k, disp, dirs);
    return chainDisplacementId(disp, k);
  }

private:
  bool usable(uint64_t id) const {
    return !covered[id] && llvm::find(ids, id) == ids.end();
  }

  /// Whether the cycle so far can be rotated clear of `avoid`.
  bool compatible() const {
    if (avoid.empty())
      return true;
    return minusShiftFor(avoid, seq, k) >= 0;
  }

public:
  /// The rotation of a "-" half `seq` against the "+" half's slots
  /// `avoid`: the smallest u with (u - R) disjoint from avoid, or -1.
  static int minusShiftFor(llvm::ArrayRef<unsigned> avoid,
                           llvm::ArrayRef<uint8_t> seq, unsigned k) {
    llvm::SmallVector<uint8_t, 64> bad(k, 0);
    for (unsigned a : avoid) {
      unsigned r = 0;
      for (uint8_t c : seq) {
        bad[(a + r) % k] = 1; // u - r == a
        r += c;
      }
    }
    for (unsigned u = 0; u < k; ++u)
      if (!bad[u])
        return static_cast<int>(u);
    return -1;
  }

private:
  bool dfs(unsigned sum) {
    if (++nodes > nodeLimit)
      return false;
    if (sum == k) {
      // Close the cycle: the windows starting in the last d - 1 positions
      // (all of them if the cycle is shorter than d) wrap around.
      size_t n = seq.size();
      size_t first = n >= d ? n - d + 1 : 0;
      llvm::SmallVector<uint64_t, 8> extra;
      llvm::SmallVector<uint8_t, 4> w;
      for (size_t i = first; i < n; ++i) {
        windowAt(seq, i, d, w);
        uint64_t id = idOf(w);
        if (!usable(id) || llvm::is_contained(extra, id))
          return false;
        extra.push_back(id);
      }
      return compatible();
    }
    for (unsigned v = std::min(maxGap, k - sum); v >= 1; --v) {
      seq.push_back(static_cast<uint8_t>(v));
      bool pushed = false;
      if (seq.size() >= d) {
        uint64_t id = idOf(llvm::ArrayRef<uint8_t>(seq).take_back(d));
        if (!usable(id)) {
          seq.pop_back();
          if (nodes > nodeLimit)
            return false;
          continue;
        }
        ids.push_back(id);
        pushed = true;
      }
      if (dfs(sum + v))
        return true;
      if (pushed)
        ids.pop_back();
      seq.pop_back();
      if (nodes > nodeLimit)
        return false;
    }
    return false;
  }

  unsigned k, d, maxGap;
  const std::vector<uint8_t> &covered;
  uint32_t frame;
  int sign;
  uint64_t nodeLimit, nodes = 0;
  llvm::ArrayRef<unsigned> avoid;
  llvm::SmallVector<uint8_t, 32> seq;
  llvm::SmallVector<uint64_t, 32> ids;
};

/// Prefix sums (slots) of a cycle.
llvm::SmallVector<unsigned, 32> slotsOf(llvm::ArrayRef<uint8_t> seq) {
  llvm::SmallVector<unsigned, 32> r;
  unsigned s = 0;
  for (uint8_t c : seq) {
    r.push_back(s);
    s += c;
  }
  return r;
}

} // namespace

void phasec::detail::forEachChainItem(
    const ChainBasePhase &phase, unsigned k, unsigned d,
    llvm::function_ref<void(const ChainItem &)> fn) {
  llvm::SmallVector<uint8_t, 4> w;
  ChainItem item;
  for (int sign : {1, -1}) {
    llvm::ArrayRef<uint8_t> seq = sign > 0 ? phase.plus : phase.minus;
    auto slots = slotsOf(seq);
    for (size_t i = 0; i < seq.size(); ++i) {
      windowAt(seq, i, d, w);
      windowDisplacement(w, phase.frame, sign, k, item.disp, item.minusDirs);
      item.slot = sign > 0 ? slots[i] : (phase.minusShift + k - slots[i]) % k;
      fn(item);
    }
  }
}

std::vector<ChainBasePhase> phasec::detail::findChainPhases(
    unsigned k, unsigned d, std::vector<uint8_t> &covered,
    uint64_t nodesPerSearch, ChainSearchStats &stats) {
  std::vector<ChainBasePhase> phases;
  if (d == 0 || d > 8 || k < 3 || k > 255)
    return phases;
  unsigned numFrames = 1u << (d - 1);
  // A frame is done once neither half finds a cycle any more.
  std::vector<uint8_t> done(numFrames, 0);
  auto setCovered = [&](const CycleSearch &cs, llvm::ArrayRef<uint8_t> seq,
                        uint8_t value) {
    llvm::SmallVector<uint8_t, 4> w;
    for (size_t i = 0; i < seq.size(); ++i) {
      windowAt(seq, i, d, w);
      covered[cs.idOf(w)] = value;
    }
  };
  bool progress = true;
  while (progress) {
    progress = false;
    for (unsigned f = 0; f < numFrames; ++f) {
      if (done[f])
        continue;
      uint32_t frame = f << 1;
      ChainBasePhase phase;
      phase.frame = frame;
      CycleSearch plus(k, d, covered, frame, 1, nodesPerSearch);
      bool hasPlus = plus.find({}, phase.plus, stats.nodes);
      // The "-" half must not reuse the "+" half's windows.
      if (hasPlus)
        setCovered(plus, phase.plus, 1);
      auto avoid = slotsOf(phase.plus);
      CycleSearch minus(k, d, covered, frame, -1, nodesPerSearch);
      bool hasMinus = minus.find(avoid, phase.minus, stats.nodes);
      if (!hasPlus || !hasMinus) {
        // A half alone leaves half the link classes free: give its windows
        // back to the packer, which fills such phases better, and stop this
        // frame (the other half found nothing).
        if (hasPlus)
          setCovered(plus, phase.plus, 0);
        stats.unpaired += hasPlus || hasMinus;
        done[f] = 1;
        continue;
      }
      setCovered(minus, phase.minus, 1);
      phase.minusShift = static_cast<uint16_t>(
          CycleSearch::minusShiftFor(avoid, phase.minus, k));
      phases.push_back(std::move(phase));
      progress = true;
    }
  }
  return phases;
}
