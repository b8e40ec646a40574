//===- RelayGrid.cpp - Relaying algorithms along grid dimensions ----------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Dimension-wise allreduce and allgather (RelayGrid.h): rings along the
/// lines of a grid, one dimension after the other, several parts of the data
/// at once on different dimensions.
///
//===----------------------------------------------------------------------===//

#include "RelayGrid.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace phasec;
using llvm::failure;
using llvm::FailureOr;

namespace {

/// One part's walk: the dimensions in order, and the direction of its
/// rings.
struct Walk {
  llvm::SmallVector<unsigned, 4> dims;
  bool reverse = false;
};

/// The grid of members: coordinates of every member (= node), and the
/// member at given coordinates. A ring along a torus line runs through the
/// coordinates in order (every step one link, the last one the wrap); a
/// mesh line has no wrap, so its ring is folded (foldedLineCoordinate).
class Grid {
public:
  explicit Grid(const Topology &topo)
      : topo_(topo), folded_(topo.kind() == TopologyKind::Mesh) {}

  int64_t extent(unsigned d) const { return topo_.extent(d); }
  /// Position of `member` on its ring along `d`, counted from the other
  /// end when the rings run backwards.
  int64_t position(int64_t member, unsigned d, bool reverse) const {
    int64_t E = extent(d), c = topo_.coord(static_cast<NodeId>(member), d);
    int64_t p = folded_ ? foldedLinePosition(E, c) : c;
    return reverse ? E - 1 - p : p;
  }
  /// The member at position `pos` along `d` on the line through `member`.
  int64_t along(int64_t member, unsigned d, int64_t pos, bool reverse) const {
    int64_t E = extent(d), p = reverse ? E - 1 - pos : pos;
    llvm::SmallVector<int64_t, 4> c;
    topo_.coords(static_cast<NodeId>(member), c);
    c[d] = folded_ ? foldedLineCoordinate(E, p) : p;
    return topo_.nodeAt(c);
  }

private:
  const Topology &topo_;
  bool folded_;
};

/// Adds `step` to round `r`, growing the list.
void addStep(std::vector<RelayRound> &rounds, size_t r, RelayStep step) {
  if (rounds.size() <= r)
    rounds.resize(r + 1);
  rounds[r].push_back(std::move(step));
}

llvm::SmallVector<int64_t, 2> range(int64_t lo, int64_t n) {
  llvm::SmallVector<int64_t, 2> out;
  for (int64_t c = lo; c < lo + n; ++c)
    out.push_back(c);
  return out;
}

} // namespace

int64_t phasec::foldedLineCoordinate(int64_t extent, int64_t pos) {
  int64_t evens = (extent + 1) / 2;
  return pos < evens ? 2 * pos : 2 * (extent - 1 - pos) + 1;
}

int64_t phasec::foldedLinePosition(int64_t extent, int64_t c) {
  return c % 2 == 0 ? c / 2 : extent - 1 - (c - 1) / 2;
}

bool phasec::isWholeGridInOrder(const Topology *topo, const ChunkSpec &spec) {
  const int64_t n = spec.numMembers();
  if (!topo || !topo->isGrid() || topo->numRanks() != topo->numNodes() ||
      topo->numRanks() != n)
    return false;
  for (int64_t i = 0; i < n; ++i)
    if (spec.group[i] != i)
      return false;
  return true;
}

FailureOr<std::vector<RelayRound>>
phasec::dimensionWiseRounds(const ChunkSpec &spec, int64_t parts,
                            const Topology *topo, std::string &error) {
  const int64_t n = spec.numMembers();
  if (!isWholeGridInOrder(topo, spec)) {
    error = "dimension_wise runs rings along the lines of a torus, mesh or "
            "hypercube: the group must be every node of one, one rank per "
            "node";
    return failure();
  }
  llvm::SmallVector<unsigned, 4> dims;
  for (unsigned d = 0; d < topo->numDims(); ++d)
    if (topo->extent(d) > 1)
      dims.push_back(d);
  const int64_t D = static_cast<int64_t>(dims.size());
  if (D == 0)
    return std::vector<RelayRound>();
  if (parts < 1 || parts > 2 * D) {
    error = llvm::formatv("{0} parts: the machine has {1} dimension(s) of "
                          "extent > 1, so 1 to {2} (one per dimension and "
                          "direction)",
                          parts, D, 2 * D)
                .str();
    return failure();
  }
  const bool reduces = spec.kind == CollectiveKind::Allreduce;
  if (!reduces && spec.kind != CollectiveKind::Allgather) {
    error = "dimension_wise serves allreduce and allgather";
    return failure();
  }
  std::vector<Walk> walks(parts);
  for (int64_t p = 0; p < parts; ++p) {
    for (int64_t i = 0; i < D; ++i)
      walks[p].dims.push_back(dims[(p + i) % D]);
    walks[p].reverse = p >= D;
  }
  Grid grid(*topo);
  // Stage i of every part starts in the same round: after the longest ring
  // of every earlier stage.
  auto stageLength = [&](int64_t i) {
    int64_t len = 0;
    for (const Walk &w : walks)
      len = std::max(len, grid.extent(w.dims[i]) - 1);
    return len;
  };
  std::vector<RelayRound> rounds;
  size_t offset = 0;

  if (reduces) {
    // Part p owns chunks [p * n * s, (p + 1) * n * s). Before stage i a
    // member holds, reduced over the lines of stages 0..i-1, the range its
    // positions along those dimensions select; stage i cuts it into
    // extent blocks, and ring reduce-scatter leaves block v at position v.
    const int64_t s = spec.numChunks / (parts * n);
    // The chunk range a member works on before stage i of walk w.
    auto heldRange = [&](const Walk &w, int64_t member, int64_t i) {
      int64_t lo = 0, size = n * s;
      for (int64_t j = 0; j < i; ++j) {
        size /= grid.extent(w.dims[j]);
        lo += grid.position(member, w.dims[j], w.reverse) * size;
      }
      return std::pair<int64_t, int64_t>(lo, size);
    };
    auto ring = [&](int64_t i, bool gather, size_t base) {
      for (int64_t p = 0; p < parts; ++p) {
        const Walk &w = walks[p];
        const unsigned d = w.dims[i];
        const int64_t E = grid.extent(d);
        for (int64_t t = 0; t + 1 < E; ++t)
          for (int64_t m = 0; m < n; ++m) {
            int64_t v = grid.position(m, d, w.reverse);
            auto [lo, size] = heldRange(w, m, i);
            int64_t blockSize = size / E;
            // Reduce-scatter: block v ends at position v; allgather: the
            // block of position v starts there.
            int64_t blk =
                gather ? ((v - t) % E + E) % E : ((v - t - 1) % E + E) % E;
            int64_t to = grid.along(m, d, (v + 1) % E, w.reverse);
            addStep(rounds, base + t,
                    {static_cast<int32_t>(m), static_cast<int32_t>(to),
                     range(p * n * s + lo + blk * blockSize, blockSize),
                     !gather});
          }
      }
    };
    for (int64_t i = 0; i < D; ++i) {
      ring(i, /*gather=*/false, offset);
      offset += stageLength(i);
    }
    for (int64_t i = D - 1; i >= 0; --i) {
      ring(i, /*gather=*/true, offset);
      offset += stageLength(i);
    }
  } else {
    // Chunk m * parts + p is part p of member m's block. Stage i gathers
    // along dims[i] everything gathered along the earlier dimensions: the
    // block of a position is the parts of every member that agrees with it
    // on dims[i..].
    const int64_t k = spec.chunksPerMember();
    if (k != parts) {
      error = "dimension_wise allgather needs one chunk per part and member";
      return failure();
    }
    for (int64_t i = 0; i < D; ++i) {
      for (int64_t p = 0; p < parts; ++p) {
        const Walk &w = walks[p];
        const unsigned d = w.dims[i];
        const int64_t E = grid.extent(d);
        // The chunks of part p that the member at `origin` contributes to
        // stage i: those of every member that differs from it only along
        // dims[0..i-1], i.e. that has its coordinates along dims[i..].
        // Grouped once per stage and part: every step of the stage reads
        // them.
        auto key = [&](int64_t m) {
          int64_t kv = 0;
          for (int64_t j = i; j < D; ++j)
            kv = kv * grid.extent(w.dims[j]) +
                 topo->coord(static_cast<NodeId>(m), w.dims[j]);
          return kv;
        };
        std::map<int64_t, llvm::SmallVector<int64_t, 2>> byKey;
        for (int64_t m = 0; m < n; ++m)
          byKey[key(m)].push_back(m * k + p);
        auto blockOf = [&](int64_t origin) { return byKey[key(origin)]; };
        for (int64_t t = 0; t + 1 < E; ++t)
          for (int64_t m = 0; m < n; ++m) {
            int64_t v = grid.position(m, d, w.reverse);
            int64_t from = grid.along(m, d, ((v - t) % E + E) % E, w.reverse);
            int64_t to = grid.along(m, d, (v + 1) % E, w.reverse);
            addStep(rounds, offset + t,
                    {static_cast<int32_t>(m), static_cast<int32_t>(to),
                     blockOf(from), false});
          }
      }
      offset += stageLength(i);
    }
  }
  return rounds;
}
