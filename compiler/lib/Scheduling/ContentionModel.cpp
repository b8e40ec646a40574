//===- ContentionModel.cpp - what phases without barriers cost on packets -===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// The contention term of the cost model (CostModel.h, `Contention`): a
// direct schedule run without barriers on a packet network with finite
// router buffers and credit flow control. Its phases are congestion-free
// only while every sender is in the same phase; a sender that finishes a
// phase early (it sends nothing there, its messages are shorter or travel
// fewer hops) starts its next phase while the others are still in theirs,
// its messages meet theirs on shared links, and the delay spreads: once
// the phases have drifted into each other the schedule runs as a mixture
// of them. What that mixture costs beyond the fluid model's fair sharing
// is a sender sending its messages one after another (a message held up at
// one link holds up the sender's next one) and, where a message is longer
// than a router buffer holds, blocking: a stalled message holds the
// buffers and links behind it back to its sender (seed 000's T3D).
//
// The term's form follows that story and its three constants are fitted
// to phasec-ns3 runs (bench/ns3/contention.py and contention_fit.py;
// docs/contention-fit.md gives the fit and its residuals):
//
//   factor = 1 + (kOrdering + kBlocking * min(1, P / B) * h)
//                * (1 - exp(-kDrift * drift))
//
// with P the mean packets per message, B the router buffer (packets per
// virtual channel), h the mean hops and drift the sum over phases of the
// phase's skew: (latest - earliest finish) / latest over the operation's
// senders, a sender's finish being its packets' serialisation plus the
// store-and-forward pipeline over its longest route (0 where it sends
// nothing in the phase). Lockstep phases (every sender alike, as a
// hypercube's exchanges) have no drift and cost the fluid time.
//
//===----------------------------------------------------------------------===//

#include "CostModelDetail.h"

#include "phasec/Scheduling/CostModel.h"
#include "phasec/Scheduling/Problem.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace phasec;
using namespace phasec::cost_detail;

namespace {
/// Fitted by bench/ns3/contention_fit.py (docs/contention-fit.md).
constexpr double kOrdering = 0.135;
constexpr double kBlocking = 0.227;
constexpr double kDrift = 1.26;

/// One sender's share of a phase: its packets and its longest route.
struct SenderLoad {
  double packets = 0;
  size_t hops = 0;
  double packetTime = 0;
};
} // namespace

double CostModel::Contention::factorFor(double packets, double buffer,
                                        double hops, double drift) {
  if (packets <= 0 || buffer <= 0)
    return 1;
  double penalty =
      kOrdering + kBlocking * std::min(1.0, packets / buffer) * hops;
  return 1 + penalty * (1 - std::exp(-kDrift * drift));
}

std::optional<CostModel::PacketNetwork> CostModel::packetNetwork() const {
  const TopologyDesc &d = topo_->desc();
  if (d.packetLength <= 0)
    return std::nullopt;
  PacketNetwork net;
  net.payload = d.packetLength;
  net.header =
      d.packetHeader > 0 ? d.packetHeader : TopologyDesc::kMinPacketHeader;
  net.buffer =
      d.routerBuffer > 0 ? d.routerBuffer : TopologyDesc::kDefaultRouterBuffer;
  net.hopLatency = d.linkLatency;
  return net;
}

CostModel::Contention CostModel::contention(const Schedule &schedule) const {
  std::optional<PacketNetwork> net = packetNetwork();
  return net ? contention(schedule, *net) : Contention();
}

CostModel::Contention CostModel::contention(const Schedule &schedule,
                                            const PacketNetwork &net) const {
  Contention out;
  if (net.payload <= 0 || net.buffer <= 0)
    return out;
  out.buffer = net.buffer;
  double wire = static_cast<double>(net.payload + net.header);
  int64_t numRanks = topo_->numRanks();
  llvm::SmallVector<LinkId, 64> route;
  auto sender = [&](const Transfer &x) -> std::optional<NodeId> {
    NodeId s = topo_->nodeOfRank(x.src);
    if (!isCharged(x, numRanks) || s == topo_->nodeOfRank(x.dst))
      return std::nullopt;
    return s;
  };
  // A phase's listed transfers and its rules' representatives: every
  // translate of one has its hops and bytes (Orbits.h), so they finish
  // together.
  auto forEachListed = [](const Phase &phase, auto &&fn) {
    for (const Transfer &x : phase.transfers)
      fn(x);
    for (const PhaseRule &rule : phase.rules)
      for (const Transfer &x : rule.reps)
        fn(x);
  };
  // The operation's senders first: one idle in a phase finishes it at
  // once. Then phase by phase, so that memory stays per node.
  llvm::DenseSet<NodeId> senders;
  for (const Phase &phase : schedule.phases)
    forEachListed(phase, [&](const Transfer &x) {
      if (std::optional<NodeId> s = sender(x))
        senders.insert(*s);
    });
  if (senders.empty())
    return out;
  llvm::DenseMap<NodeId, SenderLoad> phaseLoad;
  double messages = 0, packets = 0, hops = 0;
  auto add = [&](const Transfer &x) {
    std::optional<NodeId> s = sender(x);
    if (!s)
      return;
    messageRoute(*topo_, x, route);
    double p = std::ceil(static_cast<double>(x.bytes) /
                         static_cast<double>(net.payload));
    SenderLoad &load = phaseLoad[*s];
    load.packets += p;
    load.hops = std::max(load.hops, route.size());
    load.packetTime =
        std::max(load.packetTime, wire / topo_->link(route.front()).bandwidth);
    messages += 1;
    packets += p;
    hops += static_cast<double>(route.size());
  };
  for (const Phase &phase : schedule.phases) {
    phaseLoad.clear();
    forEachListed(phase, add);
    if (phaseLoad.empty())
      continue;
    double latest = 0, earliest = std::numeric_limits<double>::infinity();
    for (const auto &[node, load] : phaseLoad) {
      double h = static_cast<double>(load.hops);
      double t = (load.packets + h - 1) * load.packetTime + h * net.hopLatency;
      latest = std::max(latest, t);
      earliest = std::min(earliest, t);
    }
    // Senders that send nothing here finish it at once. (A phase held by
    // rule lists its representatives only: its orbits cover its senders.)
    if (phase.rules.empty() && phaseLoad.size() < senders.size())
      earliest = 0;
    if (latest > 0)
      out.drift += (latest - earliest) / latest;
  }
  out.packets = packets / messages;
  out.hops = hops / messages;
  out.factor = Contention::factorFor(
      out.packets, static_cast<double>(out.buffer), out.hops, out.drift);
  return out;
}
