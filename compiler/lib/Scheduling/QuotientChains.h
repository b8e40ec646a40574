//===- QuotientChains.h - Perfect base phases from gap cycles ---*- C++ -*-===//
//
// Part of phasec. Private to compiler/lib/Scheduling.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Base phases of the torus quotient (Quotient.cpp) that use every link
/// class exactly once, built from cyclic gap sequences ("chains").
///
/// In the quotient a placed item is a walk on Z_k: it starts at its send
/// slot q_0, moves by its displacement in the first routed dimension to
/// q_1, and so on to its receive slot q_d; the link classes it holds in
/// routed dimension j are the cells between q_j and q_{j+1} on the circle
/// of (j, direction). Take a cyclic sequence c_1..c_n of gaps in [1, k/2]
/// with sum k and its prefix sums r_i. Item i = the window
/// (c_i, ..., c_{i+d-1}) placed at r_i holds cell i+j of the circle of
/// dimension j, "+" direction: the n items tile every "+" circle exactly,
/// and their send slots {r_i} and receive slots {r_{i+d}} are distinct. The
/// mirror image (every displacement negated) of another such sequence tiles
/// the "-" circles; rotated by u so that its slots avoid the first half's,
/// the two make a base phase with no free link class and no port used
/// twice.
///
/// A chain only reaches displacements whose coordinates all have the same
/// sign. The other sign patterns come from frames: mirroring routed
/// dimension j (x_j -> -x_j) is an automorphism of the torus that keeps
/// dimension-order routes (tie directions flip), and it maps the
/// subgroup H of the quotient to H_s = { h : sum s_j h_j = 0 }. A base
/// phase built in frame s and mirrored back is congestion-free with the
/// orbits of H_s; different base phases may use different frames, since
/// each covers whole orbits (all sources of its displacements).
///
/// A window whose gaps exceed k in total, or that needs a zero gap, has no
/// chain; those displacements are left to the general packer.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_LIB_SCHEDULING_QUOTIENTCHAINS_H
#define PHASEC_LIB_SCHEDULING_QUOTIENTCHAINS_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <vector>

namespace phasec {
namespace detail {

/// One base phase of the chain construction.
struct ChainBasePhase {
  /// Mirrored routed dimensions: bit j set mirrors the j-th dimension in
  /// routing order. Bit 0 is never set (mirroring every dimension is the
  /// "-" half).
  uint32_t frame = 0;
  /// Gap cycles of the "+" half and the "-" half (either may be empty).
  llvm::SmallVector<uint8_t, 8> plus, minus;
  /// Rotation u of the "-" half: its item i sends from slot u - r_i.
  uint16_t minusShift = 0;
};

/// One placed item of a chain base phase, in routing order. Its sources at
/// rotation t of the base phase are the mirror images M(x) (M mirrors the
/// frame's dimensions) of the nodes x whose coordinates sum to slot + t
/// mod k; each sends to M(x) + disp.
struct ChainItem {
  unsigned slot;
  llvm::SmallVector<unsigned, 4> disp;
  /// Bit j: the route in routed dimension j goes "-" (meaningful where
  /// the displacement is k/2).
  uint32_t minusDirs;
};

/// Calls `fn` for every item of `phase` on a torus of extent k with d
/// dimensions.
void forEachChainItem(const ChainBasePhase &phase, unsigned k, unsigned d,
                      llvm::function_ref<void(const ChainItem &)> fn);

/// The displacement id used by findChainPhases: sum over routed dimensions
/// j of disp[j] * k^j.
uint64_t chainDisplacementId(llvm::ArrayRef<unsigned> disp, unsigned k);

struct ChainSearchStats {
  uint64_t nodes = 0;
  /// Halves found without a partner (given back to the packer).
  unsigned unpaired = 0;
};

/// Builds chain base phases over the displacements not yet `covered`
/// (indexed by chainDisplacementId; marked as they are used), frames
/// round-robin, each half by a depth-first search over gap cycles (largest
/// gaps first) of at most `nodesPerSearch` nodes. A half whose partner
/// cannot be found is given back (its windows stay uncovered) and ends its
/// frame. Deterministic. None for k > 255 (gaps are bytes) or d > 8.
std::vector<ChainBasePhase> findChainPhases(unsigned k, unsigned d,
                                            std::vector<uint8_t> &covered,
                                            uint64_t nodesPerSearch,
                                            ChainSearchStats &stats);

} // namespace detail
} // namespace phasec

#endif // PHASEC_LIB_SCHEDULING_QUOTIENTCHAINS_H
