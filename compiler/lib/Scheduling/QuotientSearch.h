//===- QuotientSearch.h - Packing the quotient base problem -----*- C++ -*-===//
//
// Part of phasec. Private to compiler/lib/Scheduling.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The base problem of the torus quotient construction (Quotient.cpp) as a
/// plain packing problem, and a deterministic local search that packs it
/// into fewer phases than the constructive best-fit does.
///
/// Every item (one destination of node 0) is placed in a base phase with a
/// shift j in Z_k and a tie option; it then occupies, in each of its
/// channels (a (dimension, direction) link channel, or a send / receive
/// port slot on one-port machines), the bits of its footprint rotated by j.
/// A base phase is valid iff the footprints of its items are disjoint in
/// every channel; that is exactly congestion-freedom (and the one-port
/// limit) of the k x |H| phases it expands to.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_LIB_SCHEDULING_QUOTIENTSEARCH_H
#define PHASEC_LIB_SCHEDULING_QUOTIENTSEARCH_H

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace phasec {
namespace detail {

/// One way to place an item: its footprint at shift 0, as (channel, bits)
/// pairs with bits in [0, k). Channels are distinct within an option.
struct QuotientOption {
  llvm::SmallVector<std::pair<uint16_t, uint64_t>, 5> masks;
};

struct QuotientItem {
  /// Link hops of the route (the weight of the item in the search).
  unsigned len = 0;
  llvm::SmallVector<QuotientOption, 2> options;
};

/// The base problem: k <= 64 positions per channel.
struct QuotientBaseProblem {
  unsigned k = 0;
  unsigned numChannels = 0;
  std::vector<QuotientItem> items;
};

struct QuotientPlacement {
  uint32_t item;
  uint8_t option;
  uint16_t shift;
};

/// Base phases, each a list of placements.
using QuotientPacking = std::vector<std::vector<QuotientPlacement>>;

struct QuotientSearchStats {
  size_t startPhases = 0, endPhases = 0;
  uint64_t iterations = 0, work = 0;
};

/// Rotates the k-bit mask `m` left by `j` (0 <= j < k).
inline uint64_t rotateMask(uint64_t m, unsigned j, unsigned k) {
  if (j == 0)
    return m;
  uint64_t full = k == 64 ? ~uint64_t(0) : ((uint64_t(1) << k) - 1);
  return ((m << j) | (m >> (k - j))) & full;
}

/// Checks that `packing` places every item exactly once with valid option
/// and shift and that no two placements of a phase overlap in a channel.
bool checkQuotientPacking(const QuotientBaseProblem &problem,
                          const QuotientPacking &packing, std::string &error);

/// Tabu search over partial packings with a fixed number of phases T
/// (PartialCol style): an unplaced item goes to the (phase, shift, option)
/// that ejects the least work (route hops) from that phase, ejected items
/// may not return to the phase they left for a while. When every item is
/// placed, the sparsest phase is dissolved and T drops by one; this repeats
/// down to `target` or until `workBudget` (placement evaluations) is spent.
/// Deterministic for a given seed. Returns the best complete packing seen
/// (`start` itself if nothing better was found).
QuotientPacking improveQuotientPacking(const QuotientBaseProblem &problem,
                                       QuotientPacking start, size_t target,
                                       uint64_t workBudget, uint64_t seed,
                                       QuotientSearchStats &stats);

} // namespace detail
} // namespace phasec

#endif // PHASEC_LIB_SCHEDULING_QUOTIENTSEARCH_H
