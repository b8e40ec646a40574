//===- CostModel.cpp - The one definition of schedule time ----------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/CostModel.h"

#include "CostModelDetail.h"
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
using namespace phasec::cost_detail;

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

namespace {
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
    if (loopOrder_ == LoopOrder::ContiguousLoads && d.copyRateStridedStores > 0)
      return d.copyRateStridedStores;
    return d.copyRateStrided;
  case CopyPattern::Gather:
    return d.copyRateGather;
  }
  llvm_unreachable("unknown copy pattern");
}

LoopOrder CostModel::chooseLoopOrder(const MachineCosts &machine) {
  if (machine.copyRateStrided > 0 && machine.copyRateStridedStores > 0 &&
      machine.copyRateStridedStores > machine.copyRateStrided)
    return LoopOrder::ContiguousLoads;
  return LoopOrder::ContiguousStores;
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
  // Local waits: each rank enters its next phase once its own messages are
  // done. Where posting at once shares links unevenly (a far message's
  // flow is slowed by every near one on its links) and barriers cost more
  // than the drift they stop, they are the fastest.
  MachineTime local =
      machineTimeWithSync(SyncKind::Local, schedule, members, relaying);
  // A tie up to rounding keeps the barriers, then posting at once (a
  // relay runs the same code under both).
  MachineTime best =
      none.total() < barrier.total() * (1 - 1e-9) ? none : barrier;
  return local.total() < best.total() * (1 - 1e-9) ? local : best;
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
    FluidTimes fluid = fluidTimes(schedule, messagesHaveLatency());
    // On a packet network the phases drift into each other (the
    // contention term); on the fluid model's machine they share fairly.
    if (schedule.phases.size() > 1)
      t.contention = fluid.fluid * (contention(schedule).factor - 1);
    addMessageTerms(schedule.phases, schedule.translations, t);
    // The near messages move their bytes while the far ones are on their
    // way: the bandwidth term is what the exchange takes beyond the
    // farthest message's latency (the whole fluid time without latency).
    t.bandwidth = messagesHaveLatency()
                      ? std::max(0.0, fluid.makespan - t.latency)
                      : fluid.fluid;
    // With set-ups, a sender's first messages move while it sets up the
    // next: the data flow of messages released one set-up apart (within
    // the model's work budget; else the set-ups one after another).
    if (topo_->desc().setupCost > 0)
      if (std::optional<DataflowTerms> flow =
              dataflowTime(schedule, Waits::Never)) {
        t.bandwidth = flow->bandwidth;
        t.setup = flow->setup;
        t.latency = flow->latency;
      }
    t.copy =
        phaseCopy(schedule.phases, schedule.translations, style, fluid.fluid);
    return t;
  }
  PhaseCost cost(*this);
  llvm::SmallVector<LinkId, 64> route;
  // Without barriers a relay's ranks run their phases as their data
  // arrives, and so does any schedule under `sync = local` (a rank enters
  // its next phase once its messages of this one are done); past the
  // dataflow model's work budget, phase after phase.
  // (A relay without any sync runs by steps: relaySteps.)
  std::optional<DataflowTerms> flow;
  if (sync == SyncKind::None || sync == SyncKind::Local)
    flow = dataflowTime(schedule, sync == SyncKind::None && relaying
                                      ? Waits::PerStep
                                      : Waits::PerPhase);
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
  // A direct schedule under local sync drifts too: phasec-ns3 runs the
  // T3D's 4 KiB all-to-all so at 31% of the bound, as without any sync
  // (docs/machine-model.md).
  if (sync == SyncKind::Local && !relaying && schedule.phases.size() > 1)
    t.contention = t.bandwidth * (contention(schedule).factor - 1);
  // A relay's step of several phases posts them at once: they drift into
  // each other as a direct schedule's do, for the step's share of the
  // bytes.
  if (sync == SyncKind::None && relaying)
    t.contention = t.bandwidth * stepContention(schedule);
  if (sync == SyncKind::Barrier && schedule.phases.size() > 1) {
    t.barriers = static_cast<int64_t>(schedule.phases.size()) - 1;
    t.sync = static_cast<double>(t.barriers) * barrierTime(members);
  }
  return t;
}

double CostModel::stepContention(const Schedule &schedule,
                                 const PacketNetwork *network) const {
  std::optional<PacketNetwork> machineNet;
  if (!network && (machineNet = packetNetwork()))
    network = &*machineNet;
  if (!network)
    return 0;
  std::vector<size_t> steps = relaySteps(schedule);
  double all = 0, extra = 0;
  for (const Phase &phase : schedule.phases)
    for (const Transfer &x : phase.transfers)
      all += static_cast<double>(x.bytes);
  if (all <= 0)
    return 0;
  for (size_t s = 0; s + 1 < steps.size(); ++s) {
    if (steps[s + 1] - steps[s] < 2)
      continue;
    Schedule step;
    step.phases.assign(schedule.phases.begin() + steps[s],
                       schedule.phases.begin() + steps[s + 1]);
    double bytes = 0;
    for (const Phase &phase : step.phases)
      for (const Transfer &x : phase.transfers)
        bytes += static_cast<double>(x.bytes);
    extra += (contention(step, *network).factor - 1) * bytes / all;
  }
  return extra;
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
  if (t.contention > 0)
    out += " + " + formatSeconds(t.contention) + " contention";
  if (t.copyRate > 0) {
    char rate[32];
    std::snprintf(rate, sizeof(rate), "%.4g MB/s", t.copyRate / 1e6);
    out += " + " + formatSeconds(t.copy) + " copy (" +
           stringifyTransferStyle(t.style).str() + ", " +
           stringifyCopyPattern(t.copyPattern).str() + " at " + rate + ")";
  }
  return out;
}
