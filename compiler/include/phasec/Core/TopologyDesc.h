//===- TopologyDesc.h - Machine descriptions, one parser --------*- C++ -*-===//
//
// Part of phasec. Links LLVM only.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What a machine is, before any link is built: the description the language,
/// the dialect's topology attributes, `--topology` and the JSON reader all
/// fill in, the one spec syntax (`torus:8x4x8x2;injection=link`) that
/// `TopologyDesc::str` prints and `TopologyDesc::parse` reads back, and the
/// limits every layer enforces.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_CORE_TOPOLOGYDESC_H
#define PHASEC_CORE_TOPOLOGYDESC_H

#include "phasec/Core/Vocabulary.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>
#include <string>

namespace phasec {

/// Most ranks a machine may have: keeps per-rank tables and P x P size
/// matrices of the front end within memory.
constexpr int64_t kMaxRanks = int64_t(1) << 22;
/// Most extents a torus or mesh may have.
constexpr unsigned kMaxGridDimensions = 16;
/// Largest hypercube dimension (2^30 nodes).
constexpr int64_t kMaxHypercubeDimension = 30;
/// PERCS link bandwidths (seed 002), bytes per second: inside a drawer,
/// across drawers, between supernodes.
constexpr double kDefaultLLBandwidth = 24e9;
constexpr double kDefaultLRBandwidth = 5e9;
constexpr double kDefaultDBandwidth = 10e9;

/// The parameters of a machine, as the language or a command line gives them.
struct TopologyDesc {
  TopologyKind kind = TopologyKind::Torus;
  /// Extents per dimension (torus, mesh, hypercube: all 2).
  llvm::SmallVector<int64_t, 4> dims;
  /// PERCS only.
  int64_t supernodes = 1, drawers = 0, nodesPerDrawer = 0;
  int64_t ranksPerNode = 1;
  /// Bytes per second of every torus/mesh/hypercube link.
  double linkBandwidth = 1.0;
  /// PERCS link classes, bytes per second.
  double llBandwidth = kDefaultLLBandwidth, lrBandwidth = kDefaultLRBandwidth,
         dBandwidth = kDefaultDBandwidth;
  /// Seconds per hop; informational (the spec's time model ignores it).
  double linkLatency = 0;
  /// Bytes per second a node can inject (and receive) at once; 0 = unlimited.
  /// A one-port machine (the T3D) has injectionBandwidth == linkBandwidth.
  double injectionBandwidth = 0;
  /// Order in which dimensions are routed; empty = 0, 1, ..., n-1.
  llvm::SmallVector<unsigned, 4> dimOrder;

  /// Parses "torus:8x4x8x2", "mesh:16x16", "hypercube:6",
  /// "percs:supernodes=1,drawers=4,nodes=8", optionally followed by
  /// ";key=value" options: ranks=R, bw=B (link bandwidth), ll=, lr=, d=,
  /// injection=B (or injection=link: the link bandwidth), latency=S,
  /// order=2.0.1 (dimension order). Separators ',' and ';' are equivalent.
  /// On failure returns failure() and sets `error`. The one parser of
  /// topology specs: `--topology`, every tool and the JSON reader's tests.
  static llvm::FailureOr<TopologyDesc> parse(llvm::StringRef spec,
                                             std::string &error);
  /// The inverse of parse() (round-trips).
  std::string str() const;
};

/// The shortest decimal text that reads back as the same double: exact and
/// deterministic, unlike a stream's default 6 digits (TopologyDesc::str and
/// the SimGrid back end's platform data).
std::string formatShortestDouble(double v);

/// A parsed spec that remembers which options it named, so that it can
/// replace part of a machine (`phasec --topology`, lang's Sema): the shape
/// always, the options only where given.
struct TopologySpec {
  enum Option : unsigned {
    Ranks = 1u << 0,
    LinkBandwidth = 1u << 1,
    LLBandwidth = 1u << 2,
    LRBandwidth = 1u << 3,
    DBandwidth = 1u << 4,
    Latency = 1u << 5,
    Injection = 1u << 6,
    Order = 1u << 7,
  };
  TopologyDesc desc;
  /// The options named, a set of Option bits.
  unsigned given = 0;
  /// `injection=link`: the link bandwidth of the result, whatever it is.
  bool injectionIsLink = false;

  static llvm::FailureOr<TopologySpec> parse(llvm::StringRef spec,
                                             std::string &error);
};

} // namespace phasec

#endif // PHASEC_CORE_TOPOLOGYDESC_H
