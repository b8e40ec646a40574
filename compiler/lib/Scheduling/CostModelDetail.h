//===- CostModelDetail.h - what the cost model's files share ----*- C++ -*-===//
//
// Part of phasec. Private to PhasecScheduling.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The pieces the cost model's files share: the phase model
/// (CostModel.cpp), the fluid model of messages posted at once
/// (FluidModel.cpp) and the dataflow model of relays without barriers
/// (DataflowModel.cpp).
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_LIB_SCHEDULING_COSTMODELDETAIL_H
#define PHASEC_LIB_SCHEDULING_COSTMODELDETAIL_H

#include "phasec/Scheduling/CostModel.h"
#include "phasec/Scheduling/Problem.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace phasec {

/// Fluid times already computed, by the multiset of transfers (the order
/// of phases does not matter when everything is posted at once): auto's
/// candidates, the pass and the reports ask for the same schedules.
struct CostModel::FluidCache {
  std::mutex mutex;
  std::map<std::pair<uint64_t, uint64_t>, double> times;
  /// The dataflow model's terms by schedule, the order of phases and of
  /// transfers in a phase included (set-ups add up in transfer order);
  /// none past its work budget.
  std::map<std::pair<uint64_t, uint64_t>, std::optional<DataflowTerms>> flows;
};

namespace cost_detail {

/// A message the generated code sends: empty ones too (a relayed
/// barrier's), which pay their set-up, latency and envelope.
inline bool isMessage(const Transfer &t, int64_t numRanks) {
  return t.src >= 0 && t.dst >= 0 && t.src < numRanks && t.dst < numRanks &&
         t.bytes >= 0;
}

/// Transfers that name a rank outside the machine or carry no bytes cost
/// no bandwidth (the verifier reports the former).
inline bool isCharged(const Transfer &t, int64_t numRanks) {
  return isMessage(t, numRanks) && t.bytes > 0;
}

// Called for every message of the models' hot loops: defined here, so
// that every model's file inlines them.

/// Latency of one message over `hops` hops of `route`: wormhole pays the
/// hop latencies once; store-and-forward also lets every hop but the last
/// receive a whole packet (or the whole message) before passing it on.
inline double messageLatency(const TopologyDesc &d, const Topology &topo,
                             llvm::ArrayRef<LinkId> route, int64_t bytes) {
  double t = d.linkLatency * static_cast<double>(route.size());
  if (d.switching == Switching::StoreAndForward && route.size() > 1) {
    int64_t unit = d.packetLength > 0 ? std::min(bytes, d.packetLength) : bytes;
    for (size_t i = 0; i + 1 < route.size(); ++i)
      t += static_cast<double>(unit) / topo.link(route[i]).bandwidth;
  }
  return t;
}

/// The pipeline of a message's first packet over `route` on a packet
/// network: packets are stored and forwarded, so every hop pays the hop
/// latency and every hop past the first a packet's serialisation.
inline double packetPipeline(const Topology &topo, llvm::ArrayRef<LinkId> route,
                             const CostModel::PacketNetwork &network) {
  const double wire = static_cast<double>(network.payload + network.header);
  double t = network.hopLatency * static_cast<double>(route.size());
  for (size_t k = 1; k < route.size(); ++k)
    t += wire / topo.link(route[k]).bandwidth;
  return t;
}

/// What one message keeps its sender busy: its set-up, or for C^3's
/// blocking send the set-up and latency there and back.
inline double messageSetup(const TopologyDesc &d, size_t hops) {
  return d.sends == SendProtocol::Blocking
             ? 2 * (d.setupCost + d.linkLatency * static_cast<double>(hops))
             : d.setupCost;
}

/// The route of a message of the machine (isMessage): none between the
/// ranks of one node.
inline void messageRoute(const Topology &topo, const Transfer &x,
                         llvm::SmallVectorImpl<LinkId> &route) {
  NodeId s = topo.nodeOfRank(x.src), dn = topo.nodeOfRank(x.dst);
  route.clear();
  if (s != dn)
    topo.route(s, dn, x.ties & topo.tieMask(s, dn), route);
}

/// The resources a message between two nodes holds, for the fluid and
/// dataflow models: the links of its route (left in `route`), then, where
/// ports are limited, the sender's injection and the receiver's ejection
/// port (numbered after the links).
inline void appendResources(const Topology &topo, const Transfer &x, bool ports,
                            llvm::SmallVectorImpl<LinkId> &route,
                            std::vector<uint32_t> &res) {
  NodeId s = topo.nodeOfRank(x.src), dn = topo.nodeOfRank(x.dst);
  size_t numLinks = topo.numLinks(), numNodes = topo.numNodes();
  topo.route(s, dn, x.ties & topo.tieMask(s, dn), route);
  for (LinkId l : route)
    res.push_back(static_cast<uint32_t>(l));
  if (ports) {
    res.push_back(static_cast<uint32_t>(numLinks + s));
    res.push_back(static_cast<uint32_t>(numLinks + numNodes + dn));
  }
}

/// The capacity of every resource appendResources numbers: the links'
/// bandwidths, then, where `injection` limits the ports, every node's
/// injection and ejection port.
inline std::vector<double> resourceCapacities(const Topology &topo,
                                              double injection) {
  size_t numLinks = topo.numLinks();
  std::vector<double> capacity(numLinks, 0.0);
  for (size_t l = 0; l < numLinks; ++l)
    capacity[l] = topo.link(static_cast<LinkId>(l)).bandwidth;
  if (injection > 0)
    capacity.resize(numLinks + 2 * topo.numNodes(), injection);
  return capacity;
}

/// A 128-bit hash of a schedule's transfers for the model caches: of their
/// multiset, or with `ordered` also of each one's phase and place in it.
std::pair<uint64_t, uint64_t>
scheduleKey(const Topology &topo, const Schedule &schedule, bool ordered);
/// `schedule` with its rules listed, or null if it has none: the
/// posted-at-once and dataflow models read every transfer at once.
std::optional<Schedule> listedCopy(const Topology &topo,
                                   const Schedule &schedule);

/// The water filling's resources by fair share (smallest first, then the
/// lowest resource id), with the share of a resource raised in place: one
/// entry per resource. (A lazy priority queue pushed an entry per flow and
/// hop, 16 bytes each: the largest allocation of a 16x16x16 compile.)
class ShareHeap {
public:
  explicit ShareHeap(size_t n) : pos_(n, -1), key_(n, 0.0) {}
  bool empty() const { return heap_.empty(); }
  uint32_t top() const { return heap_.front(); }
  double keyOf(uint32_t r) const { return key_[r]; }
  /// Inserts r or changes its share.
  void set(uint32_t r, double share) {
    key_[r] = share;
    if (pos_[r] < 0) {
      pos_[r] = static_cast<int32_t>(heap_.size());
      heap_.push_back(r);
      up(heap_.size() - 1);
      return;
    }
    size_t i = static_cast<size_t>(pos_[r]);
    up(i);
    down(static_cast<size_t>(pos_[r]));
  }
  void erase(uint32_t r) {
    if (pos_[r] < 0)
      return;
    size_t i = static_cast<size_t>(pos_[r]);
    pos_[r] = -1;
    uint32_t last = heap_.back();
    heap_.pop_back();
    if (i == heap_.size())
      return;
    heap_[i] = last;
    pos_[last] = static_cast<int32_t>(i);
    up(i);
    down(static_cast<size_t>(pos_[last]));
  }

private:
  bool less(uint32_t a, uint32_t b) const {
    return key_[a] < key_[b] || (key_[a] == key_[b] && a < b);
  }
  void place(size_t i, uint32_t r) {
    heap_[i] = r;
    pos_[r] = static_cast<int32_t>(i);
  }
  void up(size_t i) {
    uint32_t r = heap_[i];
    while (i > 0) {
      size_t parent = (i - 1) / 2;
      if (!less(r, heap_[parent]))
        break;
      place(i, heap_[parent]);
      i = parent;
    }
    place(i, r);
  }
  void down(size_t i) {
    uint32_t r = heap_[i];
    size_t n = heap_.size();
    while (true) {
      size_t c = 2 * i + 1;
      if (c >= n)
        break;
      if (c + 1 < n && less(heap_[c + 1], heap_[c]))
        ++c;
      if (!less(heap_[c], r))
        break;
      place(i, heap_[c]);
      i = c;
    }
    place(i, r);
  }

  std::vector<uint32_t> heap_;
  std::vector<int32_t> pos_;
  std::vector<double> key_;
};

} // namespace cost_detail
} // namespace phasec

#endif // PHASEC_LIB_SCHEDULING_COSTMODELDETAIL_H
