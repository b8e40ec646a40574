//===- CostModel.cpp - The one definition of schedule time ----------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/CostModel.h"

#include "Orbits.h"
#include "phasec/Scheduling/Problem.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <mutex>
#include <queue>

using namespace phasec;

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

/// One cache per machine for the whole process: every Problem builds its
/// own CostModel, and the candidates, the pass and the reports of one
/// compilation ask for the same schedules on the same machine.
std::shared_ptr<CostModel::FluidCache>
CostModel::machineCache(const Topology &topo, double injection) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<CostModel::FluidCache>> caches;
  std::string key = topo.desc().str() + "|" + formatShortestDouble(injection);
  std::lock_guard<std::mutex> lock(mutex);
  std::shared_ptr<CostModel::FluidCache> &cache = caches[key];
  if (!cache)
    cache = std::make_shared<CostModel::FluidCache>();
  return cache;
}

CostModel::CostModel(const Topology &topo, double injection)
    : topo_(&topo), injection_(injection),
      fluidCache_(machineCache(topo, injection)) {}

CostModel::CostModel(const Topology &topo)
    : CostModel(topo, topo.desc().injectionBandwidth) {}

CostModel CostModel::onePort(const Topology &topo) {
  double injection = topo.desc().injectionBandwidth;
  if (injection <= 0 && topo.isGrid())
    injection = topo.desc().linkBandwidth;
  return CostModel(topo, injection);
}

CostModel::PhaseCost::PhaseCost(const CostModel &model)
    : model_(model), linkBytes_(model.topology().numLinks(), 0.0),
      linkBandwidth_(model.topology().numLinks(), 0.0) {
  // Without an injection limit only the links count: no node arrays.
  if (model.injectionBandwidth() > 0) {
    sent_.assign(model.topology().numNodes(), 0.0);
    received_.assign(model.topology().numNodes(), 0.0);
  }
}

void CostModel::PhaseCost::addLink(uint32_t link, double bandwidth,
                                   double bytes) {
  if (linkBytes_[link] == 0.0) {
    touchedLinks_.push_back(link);
    linkBandwidth_[link] = bandwidth;
  }
  linkBytes_[link] += bytes;
}

void CostModel::PhaseCost::addPorts(uint32_t src, uint32_t dst, double bytes) {
  if (sent_.empty())
    return;
  for (uint32_t n : {src, dst})
    if (sent_[n] == 0.0 && received_[n] == 0.0)
      touchedNodes_.push_back(n);
  sent_[src] += bytes;
  received_[dst] += bytes;
}

void CostModel::PhaseCost::add(NodeId src, NodeId dst,
                               llvm::ArrayRef<LinkId> route, int64_t bytes) {
  double b = static_cast<double>(bytes);
  const Topology &topo = model_.topology();
  for (LinkId l : route)
    addLink(static_cast<uint32_t>(l), topo.link(l).bandwidth, b);
  if (src != dst)
    addPorts(static_cast<uint32_t>(src), static_cast<uint32_t>(dst), b);
}

double CostModel::PhaseCost::finish() {
  double linkTime = 0;
  for (uint32_t l : touchedLinks_) {
    linkTime = std::max(linkTime, linkBytes_[l] / linkBandwidth_[l]);
    linkBytes_[l] = 0.0;
  }
  touchedLinks_.clear();
  double portBytes = 0;
  for (uint32_t n : touchedNodes_) {
    portBytes = std::max({portBytes, sent_[n], received_[n]});
    sent_[n] = received_[n] = 0.0;
  }
  touchedNodes_.clear();
  if (sent_.empty())
    return linkTime;
  return std::max(linkTime, portBytes / model_.injectionBandwidth());
}

/// A message the generated code sends: empty ones too (a relayed
/// barrier's), which pay their set-up, latency and envelope.
static bool isMessage(const Transfer &t, int64_t numRanks) {
  return t.src >= 0 && t.dst >= 0 && t.src < numRanks && t.dst < numRanks &&
         t.bytes >= 0;
}

/// Transfers that name a rank outside the machine or carry no bytes cost
/// no bandwidth (the verifier reports the former).
static bool isCharged(const Transfer &t, int64_t numRanks) {
  return isMessage(t, numRanks) && t.bytes > 0;
}

namespace {
/// Latency of one message over `hops` hops of `route`: wormhole pays the
/// hop latencies once; store-and-forward also lets every hop but the last
/// receive a whole packet (or the whole message) before passing it on.
double messageLatency(const TopologyDesc &d, const Topology &topo,
                      llvm::ArrayRef<LinkId> route, int64_t bytes) {
  double t = d.linkLatency * static_cast<double>(route.size());
  if (d.switching == Switching::StoreAndForward && route.size() > 1) {
    int64_t unit = d.packetLength > 0 ? std::min(bytes, d.packetLength) : bytes;
    for (size_t i = 0; i + 1 < route.size(); ++i)
      t += static_cast<double>(unit) / topo.link(route[i]).bandwidth;
  }
  return t;
}

/// What one message keeps its sender busy: its set-up, or for C^3's
/// blocking send the set-up and latency there and back.
double messageSetup(const TopologyDesc &d, size_t hops) {
  return d.sends == SendProtocol::Blocking
             ? 2 * (d.setupCost + d.linkLatency * static_cast<double>(hops))
             : d.setupCost;
}

/// The route of a message of the machine (isMessage): none between the
/// ranks of one node.
void messageRoute(const Topology &topo, const Transfer &x,
                  llvm::SmallVectorImpl<LinkId> &route) {
  NodeId s = topo.nodeOfRank(x.src), dn = topo.nodeOfRank(x.dst);
  route.clear();
  if (s != dn)
    topo.route(s, dn, x.ties & topo.tieMask(s, dn), route);
}

/// The set-up and latency terms of messages run as one (a phase, or
/// everything posted at once): set-ups are the sender's, so the busiest
/// sender pays its own, and the farthest message its latency. Senders'
/// times in a flat array (a phase of a 20x20x20 all-to-all has 8000).
class MessageTerms {
public:
  explicit MessageTerms(const Topology &topo)
      : topo_(topo), busy_(topo.numRanks(), 0.0), touched_(topo.numRanks(), 0) {
  }
  /// A message of the machine (isMessage) over `route`.
  void add(const Transfer &x, llvm::ArrayRef<LinkId> route) {
    const TopologyDesc &d = topo_.desc();
    latency_ = std::max(latency_, messageLatency(d, topo_, route, x.bytes));
    if (!touched_[x.src]) {
      touched_[x.src] = 1;
      senders_.push_back(x.src);
    }
    busy_[x.src] += messageSetup(d, route.size());
    setup_ = std::max(setup_, busy_[x.src]);
  }
  /// Adds the terms to `t` and starts again.
  void finish(MachineTime &t) {
    t.setup += setup_;
    t.latency += latency_;
    for (RankId r : senders_) {
      busy_[r] = 0;
      touched_[r] = 0;
    }
    senders_.clear();
    setup_ = latency_ = 0;
  }

private:
  const Topology &topo_;
  std::vector<double> busy_;
  std::vector<uint8_t> touched_;
  std::vector<RankId> senders_;
  double setup_ = 0, latency_ = 0;
};

/// How a phase's loads are keyed: a listed phase by its own links, nodes
/// and ranks; a phase held by rule by their orbits (Orbits.h: every link,
/// port and rank of an orbit carries what the representatives put on the
/// orbit, and orbits number fewer than links, nodes and ranks).
struct Itself {
  uint32_t link(const Topology &, LinkId l) const { return l; }
  uint32_t node(NodeId n) const { return n; }
  uint32_t rank(RankId r) const { return r; }
};
struct ByOrbit {
  const TranslationOrbits &orbits;
  uint32_t link(const Topology &topo, LinkId l) const {
    return orbits.linkOrbit(topo, l);
  }
  uint32_t node(NodeId n) const { return orbits.nodeOrbit(n); }
  uint32_t rank(RankId r) const { return orbits.rankOrbit(r); }
};

/// Bytes each rank (class) copies out and in, for the busiest's copies.
using CopiedBytes = llvm::DenseMap<uint32_t, std::pair<double, double>>;

/// Adds the well-formed `transfers` to `cost` by class, each with
/// `envelope` more bytes (an empty message, a barrier's, still carries its
/// envelope); with `terms` every message's set-up and latency (one route
/// per message serves both), with `copied` the bytes each rank copies.
template <typename Classes>
void addTransfers(const Topology &topo, llvm::ArrayRef<Transfer> transfers,
                  const Classes &classes, CostModel::PhaseCost &cost,
                  llvm::SmallVectorImpl<LinkId> &route, int64_t envelope,
                  MessageTerms *terms, CopiedBytes *copied) {
  int64_t numRanks = topo.numRanks();
  for (const Transfer &t : transfers) {
    if (!isMessage(t, numRanks))
      continue;
    if (copied && t.bytes > 0 && t.src != t.dst) {
      (*copied)[classes.rank(t.src)].first += static_cast<double>(t.bytes);
      (*copied)[classes.rank(t.dst)].second += static_cast<double>(t.bytes);
    }
    NodeId s = topo.nodeOfRank(t.src), d = topo.nodeOfRank(t.dst);
    bool charged = s != d && t.bytes + envelope != 0;
    if (!charged && !terms)
      continue;
    messageRoute(topo, t, route);
    if (charged) {
      double b = static_cast<double>(t.bytes + envelope);
      for (LinkId l : route)
        cost.addLink(classes.link(topo, l), topo.link(l).bandwidth, b);
      cost.addPorts(classes.node(s), classes.node(d), b);
    }
    if (terms) {
      Transfer sender = t;
      sender.src = static_cast<RankId>(classes.rank(t.src));
      terms->add(sender, route);
    }
  }
}

/// A listed phase (addTransfers by link, node and rank).
void addPhase(const Topology &topo, const Phase &phase,
              CostModel::PhaseCost &cost, llvm::SmallVectorImpl<LinkId> &route,
              int64_t envelope = 0, MessageTerms *terms = nullptr) {
  addTransfers(topo, phase.transfers, Itself(), cost, route, envelope, terms,
               nullptr);
}

/// A phase held by rule over one translation group, from its
/// representatives (addTransfers by orbit); with `copies`, also the
/// busiest rank's copies.
void addRulePhase(const Topology &topo, const Phase &phase,
                  const TranslationOrbits &orbits, CostModel::PhaseCost &cost,
                  llvm::SmallVectorImpl<LinkId> &route, int64_t envelope = 0,
                  MessageTerms *terms = nullptr,
                  CostModel::CopyBytes *copies = nullptr) {
  CopiedBytes copied;
  for (const PhaseRule &rule : phase.rules)
    addTransfers(topo, rule.reps, ByOrbit{orbits}, cost, route, envelope, terms,
                 copies ? &copied : nullptr);
  if (!copies)
    return;
  *copies = CostModel::CopyBytes();
  for (const auto &entry : copied) {
    auto [out, in] = entry.second;
    copies->packed = std::max(copies->packed, out + in);
    copies->streamed = std::max(copies->streamed, std::max(out, in));
  }
}
} // namespace

double CostModel::rulePhaseTime(const Phase &phase,
                                const TranslationOrbits &orbits,
                                PhaseCost &cost) const {
  llvm::SmallVector<LinkId, 64> route;
  addRulePhase(*topo_, phase, orbits, cost, route);
  return cost.finish();
}

double CostModel::phaseTime(const Phase &phase) const {
  PhaseCost cost(*this);
  llvm::SmallVector<LinkId, 64> route;
  addPhase(*topo_, phase, cost, route);
  return cost.finish();
}

double CostModel::time(const Schedule &schedule) const {
  PhaseCost cost(*this);
  ScheduleOrbits orbits(*topo_, schedule.translations);
  llvm::SmallVector<LinkId, 64> route;
  double total = 0;
  PhaseReader read(*topo_, schedule, /*sorted=*/false);
  for (size_t j = 0; j < read.size(); ++j) {
    if (const TranslationOrbits *o = orbits.of(schedule.phases[j]))
      addRulePhase(*topo_, schedule.phases[j], *o, cost, route);
    else
      addPhase(*topo_, read[j], cost, route);
    total += cost.finish();
  }
  return total;
}

double CostModel::gap(double time, double bound) {
  return bound > 0 ? time / bound : 1.0;
}

bool CostModel::meetsBound(double time, double bound) {
  return time <= bound * (1 + 1e-9);
}

//===----------------------------------------------------------------------===//
// The machine as described: set-up, latency, synchronisation, fluid sharing
//===----------------------------------------------------------------------===//

double CostModel::copyRate() const {
  if (!copyPattern_)
    return 0;
  const TopologyDesc &d = topo_->desc();
  switch (*copyPattern_) {
  case CopyPattern::Contiguous:
    return d.copyRateContiguous;
  case CopyPattern::Strided:
    return d.copyRateStrided;
  case CopyPattern::Gather:
    return d.copyRateGather;
  }
  llvm_unreachable("unknown copy pattern");
}

bool CostModel::chargesBeyondBandwidth() const {
  const TopologyDesc &d = topo_->desc();
  return d.linkLatency > 0 || d.setupCost > 0 || d.barrierCost > 0 ||
         copyRate() > 0 ||
         d.messageEnvelope > 0 ||
         d.switching == Switching::StoreAndForward ||
         d.sends == SendProtocol::Blocking;
}

namespace {
/// Every transfer of several phases, as one range (what runs at once
/// without barriers), without copying them: phases held by rule are listed
/// one at a time (PhaseReader), so the range is single-pass.
class AllTransfers {
public:
  AllTransfers(const Topology &topo, llvm::ArrayRef<Phase> phases,
               llvm::ArrayRef<std::vector<NodeId>> translations = {})
      : read_(std::make_shared<PhaseReader>(topo, phases, translations)) {}
  class iterator {
  public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Transfer;
    using difference_type = std::ptrdiff_t;
    using pointer = const Transfer *;
    using reference = const Transfer &;
    iterator(std::shared_ptr<PhaseReader> read, size_t p)
        : read_(std::move(read)), p_(p) {
      if (p_ < read_->size())
        current_ = (*read_)[p_].transfers;
      skipEmpty();
    }
    const Transfer &operator*() const { return current_[i_]; }
    iterator &operator++() {
      ++i_;
      skipEmpty();
      return *this;
    }
    bool operator==(const iterator &o) const {
      return p_ == o.p_ && i_ == o.i_;
    }
    bool operator!=(const iterator &o) const { return !(*this == o); }

  private:
    void skipEmpty() {
      while (p_ < read_->size() && i_ >= current_.size()) {
        ++p_;
        i_ = 0;
        current_ = p_ < read_->size()
                       ? llvm::ArrayRef<Transfer>((*read_)[p_].transfers)
                       : llvm::ArrayRef<Transfer>();
      }
    }
    /// Shared by the range's iterators: one phase listed at a time.
    std::shared_ptr<PhaseReader> read_;
    llvm::ArrayRef<Transfer> current_;
    size_t p_, i_ = 0;
  };
  iterator begin() const { return iterator(read_, 0); }
  iterator end() const { return iterator(read_, read_->size()); }

private:
  std::shared_ptr<PhaseReader> read_;
};
} // namespace

void CostModel::addMessageTerms(
    llvm::ArrayRef<Phase> phases,
    llvm::ArrayRef<std::vector<NodeId>> translations, MachineTime &t) const {
  const int64_t numRanks = topo_->numRanks();
  const TopologyDesc &d = topo_->desc();
  llvm::SmallVector<LinkId, 64> route;
  // Every sender's set-ups, the farthest message's latency. Phases held by
  // rule (Orbits.h) add their set-ups to their group's rank orbits, spread
  // over the orbits' members at the end (by group index: a fixed order).
  std::vector<double> busy(numRanks, 0.0);
  std::map<uint32_t, std::pair<const TranslationOrbits *, std::vector<double>>>
      orbitBusy;
  double latency = 0;
  auto add = [&](const Transfer &x, std::vector<double> &into, size_t at) {
    messageRoute(*topo_, x, route);
    latency = std::max(latency, messageLatency(d, *topo_, route, x.bytes));
    into[at] += messageSetup(d, route.size());
  };
  ScheduleOrbits orbits(*topo_, translations);
  PhaseReader read(*topo_, phases, translations, /*sorted=*/false);
  for (size_t j = 0; j < read.size(); ++j) {
    if (const TranslationOrbits *o = orbits.of(phases[j])) {
      auto &[orbitsOf, acc] = orbitBusy[phases[j].rules.front().group];
      orbitsOf = o;
      acc.resize(o->numRankOrbits(), 0.0);
      for (const PhaseRule &rule : phases[j].rules)
        for (const Transfer &x : rule.reps)
          if (isMessage(x, numRanks))
            add(x, acc, o->rankOrbit(x.src));
      continue;
    }
    for (const Transfer &x : read[j].transfers)
      if (isMessage(x, numRanks))
        add(x, busy, static_cast<size_t>(x.src));
  }
  for (const auto &entry : orbitBusy) {
    const auto &[o, acc] = entry.second;
    for (int64_t r = 0; r < numRanks; ++r)
      busy[r] += acc[o->rankOrbit(static_cast<RankId>(r))];
  }
  double setup = 0;
  for (double b : busy)
    setup = std::max(setup, b);
  t.setup += setup;
  t.latency += latency;
}

double CostModel::barrierTime(llvm::ArrayRef<RankId> members) const {
  const TopologyDesc &d = topo_->desc();
  if (d.barrierCost >= 0)
    return d.barrierCost;
  size_t n = members.size();
  if (n <= 1 ||
      (d.setupCost == 0 && d.linkLatency == 0 && d.messageEnvelope == 0))
    return 0;
  llvm::SmallVector<LinkId, 64> route;
  // An empty message: set-up, hop latencies, and its envelope over the
  // slowest link of its route.
  auto exchange = [&](RankId a, RankId b) {
    NodeId na = topo_->nodeOfRank(a), nb = topo_->nodeOfRank(b);
    route.clear();
    if (na != nb)
      topo_->route(na, nb, 0, route);
    double envelope = 0;
    for (LinkId l : route)
      envelope = std::max(envelope, static_cast<double>(d.messageEnvelope) /
                                        topo_->link(l).bandwidth);
    return d.setupCost + d.linkLatency * static_cast<double>(route.size()) +
           envelope;
  };
  size_t m = 1;
  while (m * 2 <= n)
    m *= 2;
  double total = 0;
  for (size_t bit = 1; bit < m; bit *= 2) {
    double round = 0;
    for (size_t i = 0; i < m; ++i)
      round = std::max(round, exchange(members[i], members[i ^ bit]));
    total += round;
  }
  double extra = 0;
  for (size_t j = 0; j + m < n; ++j)
    extra = std::max(extra, exchange(members[m + j], members[j]));
  return total + 2 * extra;
}

namespace {
uint64_t mix(uint64_t x) {
  // splitmix64's finaliser: a well-spread hash of one transfer.
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
} // namespace

namespace {
/// The resources a message between two nodes holds, for the fluid and
/// dataflow models: the links of its route (left in `route`), then, where
/// ports are limited, the sender's injection and the receiver's ejection
/// port (numbered after the links).
void appendResources(const Topology &topo, const Transfer &x, bool ports,
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
std::vector<double> resourceCapacities(const Topology &topo,
                                       double injection) {
  size_t numLinks = topo.numLinks();
  std::vector<double> capacity(numLinks, 0.0);
  for (size_t l = 0; l < numLinks; ++l)
    capacity[l] = topo.link(static_cast<LinkId>(l)).bandwidth;
  if (injection > 0)
    capacity.resize(numLinks + 2 * topo.numNodes(), injection);
  return capacity;
}
} // namespace

/// A 128-bit hash of a schedule's transfers for the model caches: of their
/// multiset, or with `ordered` also of each one's phase and place in it.
static std::pair<uint64_t, uint64_t>
scheduleKey(const Topology &topo, const Schedule &schedule, bool ordered) {
  std::pair<uint64_t, uint64_t> key{0, 0};
  // Unordered, the key is a sum over transfers: any order gives it.
  PhaseReader read(topo, schedule, /*sorted=*/ordered);
  for (size_t j = 0; j < read.size(); ++j) {
    const std::vector<Transfer> &transfers = read[j].transfers;
    for (size_t k = 0; k < transfers.size(); ++k) {
      const Transfer &x = transfers[k];
      uint64_t h = mix(rankPairKey(x.src, x.dst));
      h = mix(h ^ uint64_t(x.bytes));
      h = mix(h ^ x.ties);
      if (ordered)
        h = mix(h ^ ((uint64_t(j) << 32) | uint64_t(k)));
      key.first += h;
      key.second += mix(h);
    }
  }
  return key;
}

/// `schedule` with every transfer on the route its pair's first transfer
/// takes, where some pair's transfers take different ones (else none):
/// posted at once, a pair's messages are routed as the network routes the
/// pair, one way (SimGrid's platform, as emitSimGrid writes it from the
/// schedule, and a torus's routing tables), whatever ties the phases
/// chose for its pieces.
static std::optional<Schedule> onPairRoutes(const Topology &topo,
                                            const Schedule &schedule) {
  llvm::DenseMap<uint64_t, TieMask> first;
  bool differ = false;
  auto mask = [&](const Transfer &t) {
    return t.ties &
           topo.tieMask(topo.nodeOfRank(t.src), topo.nodeOfRank(t.dst));
  };
  // Most schedules send each pair in one transfer: a bit per rank pair
  // finds the pairs sent twice without a map of every pair (64 M entries
  // on a 20x20x20 all-to-all), and only theirs are compared.
  int64_t numRanks = topo.numRanks();
  std::vector<uint64_t> seen, twice;
  // Where the bitmaps are smaller than a map of the pairs would be: a bit
  // per rank pair against tens of bytes per transfer (32x32x32: 128 MB
  // each, where the map of 1 G pairs ran out of memory).
  uint64_t pairs = static_cast<uint64_t>(numRanks) * numRanks;
  bool bits = pairs <= (uint64_t(1) << 28) ||
              (pairs <= (uint64_t(1) << 33) &&
               pairs <= 64 * static_cast<uint64_t>(schedule.numTransfers()));
  if (bits) {
    size_t words = (static_cast<size_t>(numRanks * numRanks) + 63) / 64;
    seen.assign(words, 0);
    twice.assign(words, 0);
  }
  bool anyTwice = false;
  auto bit = [&](const Transfer &t) {
    return static_cast<size_t>(int64_t(t.src) * numRanks + t.dst);
  };
  if (bits) {
    PhaseReader anyOrder(topo, schedule, /*sorted=*/false);
    for (size_t j = 0; j < anyOrder.size(); ++j)
      for (const Transfer &t : anyOrder[j].transfers) {
        if (!isCharged(t, numRanks))
          continue;
        size_t b = bit(t);
        if (seen[b / 64] >> (b % 64) & 1) {
          twice[b / 64] |= uint64_t(1) << (b % 64);
          anyTwice = true;
        }
        seen[b / 64] |= uint64_t(1) << (b % 64);
      }
  }
  if (bits && !anyTwice)
    return std::nullopt;
  // In the listed order: a pair's first transfer decides.
  PhaseReader read(topo, schedule);
  for (size_t j = 0; j < read.size(); ++j)
    for (const Transfer &t : read[j].transfers) {
      if (!isCharged(t, numRanks))
        continue;
      if (bits && !(twice[bit(t) / 64] >> (bit(t) % 64) & 1))
        continue;
      auto [it, inserted] =
          first.try_emplace(rankPairKey(t.src, t.dst), mask(t));
      differ |= !inserted && it->second != mask(t);
    }
  if (!differ)
    return std::nullopt;
  Schedule out = schedule;
  expandRules(topo, out);
  for (Phase &phase : out.phases)
    for (Transfer &t : phase.transfers) {
      auto it = first.find(rankPairKey(t.src, t.dst));
      if (it != first.end())
        t.ties = it->second;
    }
  return out;
}

/// `schedule` with its rules listed, or null if it has none: the
/// posted-at-once and dataflow models read every transfer at once.
static std::optional<Schedule> listedCopy(const Topology &topo,
                                          const Schedule &schedule) {
  if (!schedule.hasRules())
    return std::nullopt;
  Schedule listed = schedule;
  expandRules(topo, listed);
  return listed;
}

double CostModel::fluidTime(const Schedule &original) const {
  std::optional<Schedule> rerouted = onPairRoutes(*topo_, original);
  const Schedule &schedule = rerouted ? *rerouted : original;
  std::pair<uint64_t, uint64_t> key = scheduleKey(*topo_, schedule, false);
  {
    std::lock_guard<std::mutex> lock(fluidCache_->mutex);
    auto it = fluidCache_->times.find(key);
    if (it != fluidCache_->times.end())
      return it->second;
  }
  double t = computeFluidTime(schedule);
  std::lock_guard<std::mutex> lock(fluidCache_->mutex);
  fluidCache_->times.emplace(key, t);
  return t;
}

namespace {

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

} // namespace

double CostModel::computeFluidTime(const Schedule &schedule) const {
  const Topology &topo = *topo_;
  int64_t numRanks = topo.numRanks();
  size_t numLinks = topo.numLinks();
  size_t numNodes = topo.numNodes();
  bool ports = injection_ > 0;
  size_t numResources = numLinks + (ports ? 2 * numNodes : 0);
  // Flows in CSR form: resources of flow f are res[first[f] .. first[f+1]).
  // The first water-filling step alone visits every entry of res: where
  // that passes the work budget below, the whole exchange is charged at its
  // bottleneck (the most loaded resource over its capacity, which the fluid
  // time can only exceed) without keeping the flows (at 8x8x8 one-port the
  // arrays were half of a compile's peak memory).
  constexpr uint64_t kWorkBudget = uint64_t(8) << 20;
  std::vector<uint32_t> first{0}, res;
  std::vector<double> left;
  std::vector<double> capacity = resourceCapacities(topo, injection_);
  std::vector<double> load; // non-empty: charged at the bottleneck
  // Adds each of `flows`' bytes to each of its resources.
  auto addLoads = [&](auto &&flows, std::vector<double> &into) {
    for (uint32_t f : flows)
      for (uint32_t i = first[f]; i < first[f + 1]; ++i)
        into[res[i]] += left[f];
  };
  // The most loaded resource's load over its capacity.
  auto bottleneck = [&](const std::vector<double> &of) {
    double t = 0;
    for (size_t r = 0; r < numResources; ++r)
      t = std::max(t, of[r] / capacity[r]);
    return t;
  };
  // From now on only the loads: the flows listed so far become theirs.
  auto toLoads = [&] {
    load.assign(numResources, 0.0);
    addLoads(llvm::seq<uint32_t>(0, static_cast<uint32_t>(left.size())), load);
    std::vector<uint32_t>().swap(first);
    std::vector<double>().swap(left);
    std::vector<uint32_t>().swap(res);
  };
  const int64_t envelope = topo.desc().messageEnvelope;
  // The bytes of a transfer's flow; 0 for none (nothing charged, or
  // between the ranks of one node).
  auto flowBytes = [&](const Transfer &x) {
    if (!isCharged(x, numRanks) ||
        topo.nodeOfRank(x.src) == topo.nodeOfRank(x.dst))
      return 0.0;
    return static_cast<double>(x.bytes + envelope);
  };
  // Phases held by rule (Orbits.h) add to their group's orbits' loads
  // (links, then injection and ejection ports of node orbits), spread over
  // the orbits' members at the end: every member carries its orbit's load.
  ScheduleOrbits orbits(topo, schedule.translations);
  // By group index: summed in a fixed order.
  std::map<uint32_t, std::pair<const TranslationOrbits *, std::vector<double>>>
      orbitLoads;
  llvm::SmallVector<LinkId, 64> route;
  PhaseReader read(topo, schedule, /*sorted=*/false);
  for (size_t j = 0; j < read.size(); ++j) {
    if (const TranslationOrbits *o = orbits.of(schedule.phases[j])) {
      const Phase &phase = schedule.phases[j];
      bool big = !load.empty();
      if (!big) {
        // The entries the phase's flows would hold.
        uint64_t entries = 0;
        for (const PhaseRule &rule : phase.rules)
          for (const Transfer &x : rule.reps)
            if (isCharged(x, numRanks))
              entries += static_cast<uint64_t>(topo.hops(
                             topo.nodeOfRank(x.src), topo.nodeOfRank(x.dst))) +
                         (ports ? 2 : 0);
        big = res.size() + entries * o->size() > kWorkBudget;
      }
      if (big) {
        if (load.empty())
          toLoads();
        auto &[orbitsOf, acc] = orbitLoads[phase.rules.front().group];
        orbitsOf = o;
        size_t numLinkOrbits = o->numLinkOrbits();
        acc.resize(numLinkOrbits + (ports ? 2 * o->numNodeOrbits() : 0), 0.0);
        for (const PhaseRule &rule : phase.rules)
          for (const Transfer &x : rule.reps) {
            double bytes = flowBytes(x);
            if (bytes == 0)
              continue;
            NodeId s = topo.nodeOfRank(x.src), dn = topo.nodeOfRank(x.dst);
            messageRoute(topo, x, route);
            for (LinkId l : route)
              acc[o->linkOrbit(topo, l)] += bytes;
            if (ports) {
              acc[numLinkOrbits + o->nodeOrbit(s)] += bytes;
              acc[numLinkOrbits + o->numNodeOrbits() + o->nodeOrbit(dn)] +=
                  bytes;
            }
          }
        continue;
      }
    }
    for (const Transfer &x : read[j].transfers) {
      double bytes = flowBytes(x);
      if (bytes == 0)
        continue;
      if (!load.empty()) {
        res.clear();
        appendResources(topo, x, ports, route, res);
        for (uint32_t r : res)
          load[r] += bytes;
        continue;
      }
      appendResources(topo, x, ports, route, res);
      first.push_back(static_cast<uint32_t>(res.size()));
      left.push_back(bytes);
      if (res.size() > kWorkBudget)
        toLoads();
    }
  }
  for (const auto &entry : orbitLoads) {
    const auto &[o, acc] = entry.second;
    size_t numLinkOrbits = o->numLinkOrbits();
    for (size_t l = 0; l < numLinks; ++l)
      load[l] += acc[o->linkOrbit(topo, static_cast<LinkId>(l))];
    if (ports)
      for (size_t n = 0; n < numNodes; ++n) {
        uint32_t no = o->nodeOrbit(static_cast<NodeId>(n));
        load[numLinks + n] += acc[numLinkOrbits + no];
        load[numLinks + numNodes + n] +=
            acc[numLinkOrbits + o->numNodeOrbits() + no];
      }
  }
  if (!load.empty())
    return bottleneck(load);
  size_t numFlows = left.size();
  if (numFlows == 0)
    return 0;
  // Resource -> flows, for the water filling.
  std::vector<uint32_t> byResFirst(numResources + 1, 0), byRes(res.size());
  for (uint32_t r : res)
    ++byResFirst[r + 1];
  for (size_t r = 0; r < numResources; ++r)
    byResFirst[r + 1] += byResFirst[r];
  {
    std::vector<uint32_t> fill(byResFirst.begin(), byResFirst.end() - 1);
    for (size_t f = 0; f < numFlows; ++f)
      for (uint32_t i = first[f]; i < first[f + 1]; ++i)
        byRes[fill[res[i]]++] = static_cast<uint32_t>(f);
  }

  std::vector<char> frozen(numFlows, 1);
  std::vector<double> rate(numFlows), rem(numResources);
  std::vector<uint32_t> count(numResources), active(numFlows);
  for (size_t f = 0; f < numFlows; ++f)
    active[f] = static_cast<uint32_t>(f);
  std::vector<double> finish;
  double now = 0;
  // The water filling is exact; time advances in steps. A step ends when
  // the first 1/16 of the active flows have finished at the step's rates
  // (at least one): the flows that finish earlier in the step leave their
  // share unused until its end, so the result can only err long, by a
  // little, and the number of steps grows with the log of the flow count
  // instead of the count. Past a work budget the rest is charged at its
  // bottleneck (the most loaded resource's remaining bytes over its
  // capacity), which the fluid time can only exceed.
  uint64_t work = 0;
  ShareHeap heap(numResources);
  while (!active.empty()) {
    if (work > kWorkBudget) {
      std::vector<double> rest(numResources, 0.0);
      addLoads(active, rest);
      return now + bottleneck(rest);
    }
    // Max-min fair rates by water filling: the resource with the smallest
    // fair share fixes the rates of its flows, which then leave the others.
    std::fill(count.begin(), count.end(), 0);
    for (uint32_t f : active) {
      frozen[f] = 0;
      for (uint32_t i = first[f]; i < first[f + 1]; ++i)
        ++count[res[i]];
      work += first[f + 1] - first[f];
    }
    for (size_t r = 0; r < numResources; ++r) {
      rem[r] = capacity[r];
      if (count[r])
        heap.set(static_cast<uint32_t>(r), rem[r] / count[r]);
    }
    while (!heap.empty()) {
      uint32_t r = heap.top();
      double share = heap.keyOf(r);
      heap.erase(r);
      for (uint32_t k = byResFirst[r]; k < byResFirst[r + 1]; ++k) {
        uint32_t f = byRes[k];
        if (frozen[f])
          continue;
        frozen[f] = 1;
        rate[f] = share;
        for (uint32_t i = first[f]; i < first[f + 1]; ++i) {
          uint32_t q = res[i];
          rem[q] = std::max(0.0, rem[q] - share);
          // r itself is done once its loop ends (its count reaches 0).
          if (--count[q] > 0 && q != r)
            heap.set(q, rem[q] / count[q]);
          else if (q != r)
            heap.erase(q);
        }
      }
      work += byResFirst[r + 1] - byResFirst[r];
    }
    finish.clear();
    for (uint32_t f : active)
      finish.push_back(left[f] / rate[f]);
    size_t k = std::max<size_t>(1, finish.size() / 16) - 1;
    std::nth_element(finish.begin(), finish.begin() + k, finish.end());
    double dt = finish[k];
    now += dt;
    // Flows that end within rounding of the step's end end with it.
    llvm::erase_if(active, [&](uint32_t f) {
      left[f] -= rate[f] * dt;
      return left[f] <= 1e-9 * rate[f] * std::max(dt, now);
    });
  }
  return now;
}

//===----------------------------------------------------------------------===//
// A relaying schedule without barriers: every rank's phases as data flow
//===----------------------------------------------------------------------===//

namespace {
/// One message of the dataflow model.
struct FlowMessage {
  RankId src, dst;
  /// Bytes on the wire (data and envelope), hop latency, the sender's
  /// set-up of this message.
  double bytes, latency, busy;
  /// Resources (links, then the ports) in the model's CSR arrays.
  uint32_t first, last;
};

/// Max-min fair shares of messages that start and end at different times:
/// each resource keeps the messages on it that are moving data now, so a
/// solve costs what is active, not what the schedule has moved so far.
class FairShares {
public:
  FairShares(std::vector<double> capacity, const std::vector<uint32_t> &res)
      : capacity_(std::move(capacity)), res_(res), on_(capacity_.size()),
        rem_(capacity_.size()), count_(capacity_.size()),
        seen_(capacity_.size(), 0), heap_(capacity_.size()) {}

  void add(uint32_t m, const FlowMessage &x) {
    for (uint32_t i = x.first; i < x.last; ++i)
      on_[res_[i]].push_back(m);
  }
  void remove(uint32_t m, const FlowMessage &x) {
    for (uint32_t i = x.first; i < x.last; ++i) {
      std::vector<uint32_t> &v = on_[res_[i]];
      auto it = std::find(v.begin(), v.end(), m);
      assert(it != v.end() && "removing a message that is not moving");
      *it = v.back();
      v.pop_back();
    }
  }
  /// Water filling over the resources the active messages use; returns the
  /// incidences it touched (the work).
  uint64_t solve(llvm::ArrayRef<uint32_t> active,
                 const std::vector<FlowMessage> &msgs,
                 std::vector<double> &rate, std::vector<char> &frozen) {
    uint64_t work = 0;
    touched_.clear();
    for (uint32_t m : active) {
      frozen[m] = 0;
      for (uint32_t i = msgs[m].first; i < msgs[m].last; ++i) {
        uint32_t r = res_[i];
        if (!seen_[r]) {
          seen_[r] = 1;
          touched_.push_back(r);
          rem_[r] = capacity_[r];
          count_[r] = 0;
        }
        ++count_[r];
      }
      work += msgs[m].last - msgs[m].first;
    }
    for (uint32_t r : touched_)
      heap_.set(r, rem_[r] / count_[r]);
    while (!heap_.empty()) {
      uint32_t r = heap_.top();
      double share = heap_.keyOf(r);
      heap_.erase(r);
      for (uint32_t m : on_[r]) {
        if (frozen[m])
          continue;
        frozen[m] = 1;
        rate[m] = share;
        for (uint32_t i = msgs[m].first; i < msgs[m].last; ++i) {
          uint32_t q = res_[i];
          rem_[q] = std::max(0.0, rem_[q] - share);
          if (--count_[q] > 0 && q != r)
            heap_.set(q, rem_[q] / count_[q]);
          else if (q != r)
            heap_.erase(q);
        }
      }
      work += on_[r].size();
    }
    for (uint32_t r : touched_)
      seen_[r] = 0;
    return work;
  }

private:
  std::vector<double> capacity_;
  const std::vector<uint32_t> &res_;
  std::vector<std::vector<uint32_t>> on_;
  std::vector<double> rem_;
  std::vector<uint32_t> count_;
  std::vector<char> seen_;
  std::vector<uint32_t> touched_;
  ShareHeap heap_;
};

/// What delayed something: the set-ups and hop latencies on the chain of
/// messages and phases that ended last (the rest of its time is bandwidth).
struct CriticalPath {
  double setup = 0, latency = 0;
};
} // namespace

std::optional<CostModel::DataflowTerms>
CostModel::dataflowTime(const Schedule &schedule) const {
  if (std::optional<Schedule> listed = listedCopy(*topo_, schedule))
    return dataflowTime(*listed);
  std::pair<uint64_t, uint64_t> key = scheduleKey(*topo_, schedule, true);
  {
    std::lock_guard<std::mutex> lock(fluidCache_->mutex);
    auto it = fluidCache_->flows.find(key);
    if (it != fluidCache_->flows.end())
      return it->second;
  }
  std::optional<DataflowTerms> terms = computeDataflowTime(schedule);
  std::lock_guard<std::mutex> lock(fluidCache_->mutex);
  fluidCache_->flows.emplace(key, terms);
  return terms;
}

std::optional<CostModel::DataflowTerms>
CostModel::computeDataflowTime(const Schedule &schedule) const {
  // Incidences the water fillings may touch before the model gives up and
  // the caller charges phase after phase (a fraction of a second).
  constexpr uint64_t kWorkBudget = uint64_t(4) << 20;
  const Topology &topo = *topo_;
  const TopologyDesc &d = topo.desc();
  int64_t numRanks = topo.numRanks();
  bool ports = injection_ > 0;
  std::vector<FlowMessage> msgs;
  std::vector<uint32_t> res;
  // Every rank's messages in phase order, and where each of its phases
  // (those it takes part in) starts in that list.
  std::vector<std::vector<uint32_t>> byRank(numRanks), groupStart(numRanks);
  std::vector<uint32_t> lastPhase(numRanks, UINT32_MAX);
  llvm::SmallVector<LinkId, 64> route;
  for (size_t j = 0; j < schedule.phases.size(); ++j)
    for (const Transfer &x : schedule.phases[j].transfers) {
      // A rank's message to itself holds no link and waits for nothing;
      // an empty message (a barrier's) is still sent and waited for.
      if (!isMessage(x, numRanks) || x.src == x.dst)
        continue;
      NodeId s = topo.nodeOfRank(x.src), dn = topo.nodeOfRank(x.dst);
      route.clear();
      FlowMessage m;
      m.src = x.src;
      m.dst = x.dst;
      m.first = static_cast<uint32_t>(res.size());
      if (s != dn)
        appendResources(topo, x, ports, route, res);
      m.last = static_cast<uint32_t>(res.size());
      // Every message is in at least one water filling.
      if (res.size() > kWorkBudget)
        return std::nullopt;
      m.bytes = static_cast<double>(x.bytes + d.messageEnvelope);
      m.latency = messageLatency(d, topo, route, x.bytes);
      m.busy = messageSetup(d, route.size());
      uint32_t id = static_cast<uint32_t>(msgs.size());
      msgs.push_back(m);
      for (RankId r : {x.src, x.dst}) {
        if (lastPhase[r] != j) {
          lastPhase[r] = static_cast<uint32_t>(j);
          groupStart[r].push_back(static_cast<uint32_t>(byRank[r].size()));
        }
        byRank[r].push_back(id);
      }
    }
  if (msgs.empty())
    return DataflowTerms();

  FairShares shares(resourceCapacities(topo, injection_), res);

  size_t n = msgs.size();
  // A message starts when both ends have entered its phase: the receiver
  // has posted its receive, the sender its (synchronous) send after the
  // set-ups of its sends up to and including this one. It then pays its hop latency and
  // moves its bytes at its fair share.
  std::vector<double> posted(n, -1), left(n), rate(n);
  std::vector<CriticalPath> path(n);
  std::vector<char> frozen(n, 1);
  std::vector<uint32_t> group(numRanks, 0), outstanding(numRanks, 0);
  std::vector<uint32_t> active, done;
  using Start = std::pair<double, uint32_t>;
  std::priority_queue<Start, std::vector<Start>, std::greater<Start>> starts;
  auto post = [&](uint32_t m, double when, CriticalPath p) {
    if (posted[m] < 0) {
      posted[m] = when;
      path[m] = p;
      return;
    }
    if (when < posted[m])
      p = path[m];
    when = std::max(when, posted[m]);
    p.latency += msgs[m].latency;
    path[m] = p;
    starts.push({when + msgs[m].latency, m});
  };
  auto enter = [&](RankId r, double now, CriticalPath p) {
    uint32_t g = group[r];
    uint32_t end = g + 1 < groupStart[r].size() ? groupStart[r][g + 1]
                                                : byRank[r].size();
    outstanding[r] = end - groupStart[r][g];
    double busy = 0;
    for (uint32_t k = groupStart[r][g]; k < end; ++k) {
      uint32_t m = byRank[r][k];
      if (msgs[m].dst == r)
        post(m, now, p);
      if (msgs[m].src == r) {
        busy += msgs[m].busy;
        CriticalPath q = p;
        q.setup += busy;
        post(m, now + busy, q);
      }
    }
  };
  for (RankId r = 0; r < numRanks; ++r)
    if (!groupStart[r].empty())
      enter(r, 0, {});

  double now = 0;
  CriticalPath last;
  uint64_t work = 0;
  while (!starts.empty() || !active.empty()) {
    if (work > kWorkBudget)
      return std::nullopt;
    // Every event starts or ends a message: share the links anew.
    work += shares.solve(active, msgs, rate, frozen);
    double next = starts.empty() ? std::numeric_limits<double>::infinity()
                                 : starts.top().first;
    for (uint32_t m : active)
      next = std::min(next, now + left[m] / rate[m]);
    // Nothing can move (a share rounded to zero): the model cannot say.
    if (!std::isfinite(next))
      return std::nullopt;
    double before = now, dt = next - now;
    now = next;
    done.clear();
    // A message ends at the event its own finish time set (the same
    // expression as above, so the earliest always ends, even where the
    // step is below the clock's resolution), or within rounding of it.
    llvm::erase_if(active, [&](uint32_t m) {
      bool ends = before + left[m] / rate[m] <= next;
      left[m] -= rate[m] * dt;
      if (!ends && left[m] > 1e-9 * msgs[m].bytes)
        return false;
      shares.remove(m, msgs[m]);
      done.push_back(m);
      return true;
    });
    while (!starts.empty() && starts.top().first <= now) {
      uint32_t m = starts.top().second;
      starts.pop();
      if (msgs[m].first == msgs[m].last) {
        done.push_back(m);
        continue;
      }
      left[m] = msgs[m].bytes;
      shares.add(m, msgs[m]);
      active.push_back(m);
    }
    // A rank's phase ends with its last message; it enters its next phase
    // then (Waitall, then the next phase's receives and sends).
    for (uint32_t m : done) {
      last = path[m];
      for (RankId r : {msgs[m].src, msgs[m].dst}) {
        if (--outstanding[r] > 0)
          continue;
        if (++group[r] < groupStart[r].size())
          enter(r, now, path[m]);
      }
    }
  }
  DataflowTerms terms;
  terms.setup = last.setup;
  terms.latency = last.latency;
  terms.bandwidth = std::max(0.0, now - last.setup - last.latency);
  return terms;
}

MachineTime CostModel::machineTime(const Schedule &schedule,
                                   llvm::ArrayRef<RankId> members,
                                   bool relaying) const {
  if (sync_ != SyncKind::Auto)
    return machineTimeWithSync(sync_, schedule, members, relaying);
  MachineTime barrier =
      machineTimeWithSync(SyncKind::Barrier, schedule, members, relaying);
  // One phase, or nothing charged beyond bandwidth: barriers cost nothing
  // and keep the phases congestion-free. (A relay could still overlap its
  // phases without them, but a machine whose barriers are free is the
  // spec's, where phases run one after another.) Copies are the exception: a
  // phase waits for its busiest rank's copy, so where they cost anything
  // streaming everything at once can still win.
  if (barrier.sync == 0 && barrier.copy == 0)
    return barrier;
  MachineTime none =
      machineTimeWithSync(SyncKind::None, schedule, members, relaying);
  // A tie up to rounding keeps the barriers.
  return none.total() < barrier.total() * (1 - 1e-9) ? none : barrier;
}

MachineTime CostModel::machineTimeWithSync(SyncKind sync,
                                           const Schedule &schedule,
                                           llvm::ArrayRef<RankId> members,
                                           bool relaying) const {
  // Free copies: both styles take the same time, and packing (the
  // language's old default) keeps its generated code.
  if (style_ != TransferStyle::Auto || copyRate() <= 0)
    return machineTimeWith(sync,
                           style_ == TransferStyle::Auto
                               ? TransferStyle::Packing
                               : style_,
                           schedule, members, relaying);
  MachineTime packing = machineTimeWith(sync, TransferStyle::Packing,
                                        schedule, members, relaying);
  MachineTime chained = machineTimeWith(sync, TransferStyle::Chained,
                                        schedule, members, relaying);
  return chained.total() < packing.total() ? chained : packing;
}

double CostModel::phaseCopy(llvm::ArrayRef<Phase> phases,
                            llvm::ArrayRef<std::vector<NodeId>> translations,
                            TransferStyle style, double transfer) const {
  double rate = copyRate();
  if (rate <= 0)
    return 0;
  int64_t numRanks = topo_->numRanks();
  // Transfers between ranks of one node cost no bandwidth but are copied
  // all the same.
  auto charged = llvm::make_filter_range(
      AllTransfers(*topo_, phases, translations),
      [&](const Transfer &x) { return isCharged(x, numRanks); });
  return copyTerm(busiestCopies(charged), style, transfer);
}

double CostModel::copyTerm(const CopyBytes &busiest, TransferStyle style,
                           double transfer) const {
  double rate = copyRate();
  if (rate <= 0)
    return 0;
  if (style == TransferStyle::Packing)
    return busiest.packed / rate;
  return std::max(0.0, busiest.streamed / rate - transfer);
}

MachineTime CostModel::machineTimeWith(SyncKind sync, TransferStyle style,
                                       const Schedule &schedule,
                                       llvm::ArrayRef<RankId> members,
                                       bool relaying) const {
  assert(style != TransferStyle::Auto && "resolved by machineTimeWithSync");
  MachineTime t;
  t.chosen = sync;
  t.style = style;
  t.copyRate = copyRate();
  if (copyPattern_)
    t.copyPattern = *copyPattern_;
  // Without barriers a schedule that forwards nothing (every direct one, a
  // relay such as a direct scan) is posted at once: the messages share the
  // network, each sender sets up all of its messages, the farthest pays its
  // latency.
  if (sync == SyncKind::None && (!relaying || forwardsNothing(schedule))) {
    t.bandwidth = fluidTime(schedule);
    addMessageTerms(schedule.phases, schedule.translations, t);
    t.copy =
        phaseCopy(schedule.phases, schedule.translations, style, t.bandwidth);
    return t;
  }
  PhaseCost cost(*this);
  llvm::SmallVector<LinkId, 64> route;
  // Without barriers a relay's ranks run their phases as their data
  // arrives; past the dataflow model's work budget, phase after phase.
  std::optional<DataflowTerms> flow;
  if (sync == SyncKind::None)
    flow = dataflowTime(schedule);
  // Phase after phase; with the dataflow model only the copies (which
  // need each phase's bandwidth term) are charged per phase.
  std::optional<MessageTerms> terms;
  if (!flow)
    terms.emplace(*topo_);
  ScheduleOrbits orbits(*topo_, schedule.translations);
  PhaseReader read(*topo_, schedule, /*sorted=*/false);
  for (size_t j = 0; j < read.size(); ++j) {
    double bandwidth;
    if (const TranslationOrbits *o = orbits.of(schedule.phases[j])) {
      // Held by rule: from the representatives, copies included.
      CopyBytes copies;
      addRulePhase(*topo_, schedule.phases[j], *o, cost, route,
                   topo_->desc().messageEnvelope, terms ? &*terms : nullptr,
                   &copies);
      bandwidth = cost.finish();
      t.copy += copyTerm(copies, style, bandwidth);
    } else {
      const Phase &phase = read[j];
      addPhase(*topo_, phase, cost, route, topo_->desc().messageEnvelope,
               terms ? &*terms : nullptr);
      bandwidth = cost.finish();
      t.copy += phaseCopy(phase, {}, style, bandwidth);
    }
    if (flow)
      continue;
    t.bandwidth += bandwidth;
    terms->finish(t);
  }
  if (flow) {
    t.bandwidth = flow->bandwidth;
    t.setup = flow->setup;
    t.latency = flow->latency;
  }
  if (sync == SyncKind::Barrier && schedule.phases.size() > 1) {
    t.barriers = static_cast<int64_t>(schedule.phases.size()) - 1;
    t.sync = static_cast<double>(t.barriers) * barrierTime(members);
  }
  return t;
}

std::vector<MachineTime>
CostModel::phaseMachineTimes(const Schedule &schedule, bool relaying) const {
  // A phase alone is a one-phase schedule: no barrier, whatever the sync.
  std::vector<MachineTime> out;
  out.reserve(schedule.phases.size());
  Schedule one;
  one.phases.resize(1);
  PhaseReader read(*topo_, schedule, /*sorted=*/false);
  for (size_t j = 0; j < read.size(); ++j) {
    one.phases[0] = read[j];
    out.push_back(machineTimeWithSync(SyncKind::Barrier, one, {}, relaying));
  }
  return out;
}

static std::string formatSeconds(double s) {
  char buf[64];
  double a = std::fabs(s);
  if (a == 0)
    return "0 s";
  if (a < 1e-6)
    std::snprintf(buf, sizeof(buf), "%.4g ns", s * 1e9);
  else if (a < 1e-3)
    std::snprintf(buf, sizeof(buf), "%.4g us", s * 1e6);
  else if (a < 1)
    std::snprintf(buf, sizeof(buf), "%.4g ms", s * 1e3);
  else
    std::snprintf(buf, sizeof(buf), "%.4g s", s);
  return buf;
}

std::string CostModel::describe(const MachineTime &t) {
  std::string out = formatSeconds(t.total()) + " = " +
                    formatSeconds(t.bandwidth) + " bandwidth + " +
                    formatSeconds(t.setup) + " set-up + " +
                    formatSeconds(t.latency) + " latency";
  if (t.barriers > 0)
    out += " + " + std::to_string(t.barriers) + " barriers x " +
           formatSeconds(t.sync / static_cast<double>(t.barriers));
  if (t.copyRate > 0) {
    char rate[32];
    std::snprintf(rate, sizeof(rate), "%.4g MB/s", t.copyRate / 1e6);
    out += " + " + formatSeconds(t.copy) + " copy (" +
           stringifyTransferStyle(t.style).str() + ", " +
           stringifyCopyPattern(t.copyPattern).str() + " at " + rate + ")";
  }
  return out;
}
