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

/// D-link ports per PERCS node (the Power 775 hub has 16), shared evenly
/// among the other supernodes when the machine does not say how many D
/// links join two supernodes.
constexpr int64_t kDPortsPerNode = 16;

/// What a message costs beyond the links' bandwidth (CostModel.h says how
/// each term is charged; seed 003's C^3 parameters and seed 000's copy
/// rates). Zero means "not given" and costs nothing. A machine's costs as
/// the front end reads them and as every tool's TopologyDesc holds them.
struct MachineCosts {
  /// Seconds a rank is busy setting up each message it sends (C^3's `s`).
  double setupCost = 0;
  /// Bytes per packet (C^3's `l`); 0: messages are not cut into packets.
  int64_t packetLength = 0;
  Switching switching = Switching::Wormhole;
  SendProtocol sends = SendProtocol::Nonblocking;
  /// Seconds one barrier between two phases takes; < 0: the model's own
  /// estimate from the latencies and set-ups of a pairwise-exchange barrier.
  double barrierCost = -1;
  /// Local copies, bytes per second: contiguous (memcpy), strided (a column
  /// packed or unpacked: a transposing copy with strided loads and
  /// contiguous stores) and gather/scatter through an index (an element
  /// permutation). copyRateStridedStores: the transposing copy the other way
  /// round (contiguous loads, strided stores: seed 001's loop order on the
  /// T3D); 0 = as copyRateStrided.
  double copyRateContiguous = 0, copyRateStrided = 0, copyRateGather = 0;
  double copyRateStridedStores = 0;
  /// Bytes every message carries beyond its data (an MPI envelope: tag,
  /// source, communicator), charged by the machine time's bandwidth terms:
  /// what makes a message cost something even with no set-up cost, so
  /// that a schedule of more, smaller messages is not free. `envelope` in
  /// .sched, `envelope=` in specs; the SimGrid target's predictions use
  /// what SMPI adds (16) whatever the machine says.
  int64_t messageEnvelope = 0;
  /// The packet network of the ns-3 target (docs/simulator.md): bytes of
  /// header every packet carries beyond its packet_length payload, and
  /// packets each router input buffer holds per virtual channel. 0: not
  /// given (the defaults, 4 bytes and kDefaultRouterBuffer packets). The
  /// cost model's contention term (CostModel::contention) reads them.
  int64_t packetHeader = 0;
  int64_t routerBuffer = 0;
  static constexpr int64_t kDefaultRouterBuffer = 2;
  /// Their ranges, wherever they are given (.sched, --topology, the
  /// comm.machine op, the ns-3 options): the 4-byte route header at least.
  static constexpr int64_t kMinPacketHeader = 4, kMaxPacketHeader = 4096;
  static constexpr int64_t kMaxRouterBuffer = 1 << 20;
};

/// The parameters of a machine, as the language or a command line gives them.
struct TopologyDesc : MachineCosts {
  TopologyKind kind = TopologyKind::Torus;
  /// Extents per dimension (torus, mesh, hypercube: all 2).
  llvm::SmallVector<int64_t, 4> dims;
  /// PERCS only.
  int64_t supernodes = 1, drawers = 0, nodesPerDrawer = 0;
  /// PERCS: D links (cables) between every two supernodes; 0 = the default
  /// of dLinksPerPair().
  int64_t dLinks = 0;
  /// The D links between two supernodes: dLinks if given, else
  /// kDPortsPerNode ports of each of the m nodes of a supernode shared among
  /// the others, between 1 and m^2 (each joins a different pair of nodes).
  /// 0 with one supernode.
  int64_t dLinksPerPair() const;
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
  /// order=2.0.1 (dimension order), and the costs: setup=S, packet=BYTES,
  /// switching=wormhole|store_and_forward, sends=nonblocking|blocking,
  /// barrier=S, copy=B, copy_strided=B, copy_strided_stores=B, copy_gather=B
  /// (bytes per second),
  /// envelope=BYTES, and the packet network's header=BYTES, buffer=PACKETS.
  /// Separators ',' and ';' are equivalent.
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
    /// Any of the cost options (setup=, packet=, switching=, sends=,
    /// barrier=, copy*=): the result's cost fields replace a machine's
    /// where `costGiven` says so.
    Costs = 1u << 8,
  };
  TopologyDesc desc;
  /// The options named, a set of Option bits.
  unsigned given = 0;
  /// `injection=link`: the link bandwidth of the result, whatever it is.
  bool injectionIsLink = false;
  /// Which cost options were named, as CostOption bits.
  unsigned costGiven = 0;
  enum CostOption : unsigned {
    Setup = 1u << 0,
    Packet = 1u << 1,
    SwitchingGiven = 1u << 2,
    Sends = 1u << 3,
    Barrier = 1u << 4,
    Copy = 1u << 5,
    CopyStrided = 1u << 6,
    CopyGather = 1u << 7,
    Envelope = 1u << 8,
    Header = 1u << 9,
    Buffer = 1u << 10,
    CopyStridedStores = 1u << 11,
  };

  static llvm::FailureOr<TopologySpec> parse(llvm::StringRef spec,
                                             std::string &error);
  /// Replaces the cost options the spec named in `costs`.
  void applyCosts(MachineCosts &costs) const;
};

} // namespace phasec

#endif // PHASEC_CORE_TOPOLOGYDESC_H
