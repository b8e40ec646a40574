//===- FluidModel.cpp - messages posted at once, as fluid flows -----------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// The time of a schedule posted at once (a direct schedule without
// barriers): every message a flow over its route's links (and ports), the
// links shared fairly (water filling), as SimGrid's fluid network does.
//
//===----------------------------------------------------------------------===//

#include "CostModelDetail.h"
#include "Orbits.h"

#include "phasec/Scheduling/Problem.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <mutex>

using namespace phasec;
using namespace phasec::cost_detail;

namespace {
uint64_t mix(uint64_t x) {
  // splitmix64's finaliser: a well-spread hash of one transfer.
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
} // namespace


std::pair<uint64_t, uint64_t> cost_detail::scheduleKey(const Topology &topo,
                                                       const Schedule &schedule,
                                                       bool ordered) {
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

// atOnceRoutes (CostModel.h): from the routes of each pair's first
// transfer, pairs by bytes, largest first, move to the tie that lowers their
// route's most loaded link (over its bandwidth), then the route's total; a
// move only where it is strictly better, so the most loaded link never
// gets more. Two passes.
std::optional<Schedule> phasec::atOnceRoutes(const Topology &topo,
                                             const Schedule &schedule) {
  constexpr size_t kBalanceTransfers = size_t(1) << 21;
  if (schedule.numTransfers() > kBalanceTransfers)
    return onPairRoutes(topo, schedule);
  int64_t numRanks = topo.numRanks();
  struct Pair {
    uint64_t key;
    NodeId src, dst;
    TieMask options, ties;
    double bytes;
  };
  std::vector<Pair> pairs;
  llvm::DenseMap<uint64_t, uint32_t> index;
  {
    PhaseReader read(topo, schedule);
    for (size_t j = 0; j < read.size(); ++j)
      for (const Transfer &t : read[j].transfers) {
        if (!isCharged(t, numRanks))
          continue;
        NodeId s = topo.nodeOfRank(t.src), d = topo.nodeOfRank(t.dst);
        auto [it, inserted] = index.try_emplace(
            rankPairKey(t.src, t.dst), static_cast<uint32_t>(pairs.size()));
        if (inserted) {
          TieMask options = topo.tieMask(s, d);
          pairs.push_back({rankPairKey(t.src, t.dst), s, d, options,
                           t.ties & options, 0.0});
        }
        pairs[it->second].bytes += static_cast<double>(t.bytes);
      }
  }
  std::vector<double> capacity =
      resourceCapacities(topo, /*injection=*/0); // links first
  std::vector<double> load(topo.numLinks(), 0.0);
  llvm::SmallVector<LinkId, 64> route;
  auto place = [&](const Pair &p, TieMask ties, double sign) {
    topo.route(p.src, p.dst, ties, route);
    for (LinkId l : route)
      load[l] += sign * p.bytes / capacity[l];
  };
  std::vector<uint32_t> tied;
  for (uint32_t i = 0; i < pairs.size(); ++i) {
    place(pairs[i], pairs[i].ties, 1);
    if (pairs[i].options)
      tied.push_back(i);
  }
  if (tied.empty())
    return onPairRoutes(topo, schedule);
  llvm::stable_sort(tied, [&](uint32_t a, uint32_t b) {
    if (pairs[a].bytes != pairs[b].bytes)
      return pairs[a].bytes > pairs[b].bytes;
    return pairs[a].key < pairs[b].key;
  });
  // The route's most loaded link and total with `p` on it (p's own bytes
  // taken off first by the caller).
  auto score = [&](const Pair &p, TieMask ties) {
    topo.route(p.src, p.dst, ties, route);
    double worst = 0, sum = 0;
    for (LinkId l : route) {
      double v = load[l] + p.bytes / capacity[l];
      worst = std::max(worst, v);
      sum += v;
    }
    return std::make_pair(worst, sum);
  };
  for (int pass = 0; pass < 2; ++pass)
    for (uint32_t i : tied) {
      Pair &p = pairs[i];
      place(p, p.ties, -1);
      std::pair<double, double> best = score(p, p.ties);
      for (TieMask s = p.options;; s = (s - 1) & p.options) {
        std::pair<double, double> v = score(p, s);
        // Relative slack: loads summed in another order must not move a
        // pair back and forth.
        if (v.first < best.first * (1 - 1e-12) ||
            (v.first <= best.first * (1 + 1e-12) &&
             v.second < best.second * (1 - 1e-12))) {
          best = v;
          p.ties = s;
        }
        if (s == 0)
          break;
      }
      place(p, p.ties, 1);
    }
  Schedule out = schedule;
  expandRules(topo, out);
  bool changed = false;
  for (Phase &phase : out.phases)
    for (Transfer &t : phase.transfers) {
      auto it = index.find(rankPairKey(t.src, t.dst));
      if (it == index.end())
        continue;
      const Pair &p = pairs[it->second];
      TieMask ties = (t.ties & ~p.options) | p.ties;
      changed |= ties != t.ties;
      t.ties = ties;
    }
  if (!changed)
    return std::nullopt;
  return out;
}

std::optional<Schedule> cost_detail::listedCopy(const Topology &topo,
                                                const Schedule &schedule) {
  if (!schedule.hasRules())
    return std::nullopt;
  Schedule listed = schedule;
  expandRules(topo, listed);
  return listed;
}

double CostModel::fluidTime(const Schedule &original) const {
  return fluidTimes(original, /*withMakespan=*/false).fluid;
}

bool CostModel::messagesHaveLatency() const {
  // messageLatency: hops, and store-and-forward packets.
  const TopologyDesc &d = topo_->desc();
  return d.linkLatency > 0 || d.switching == Switching::StoreAndForward;
}

double CostModel::fluidMakespan(const Schedule &original) const {
  if (!messagesHaveLatency())
    return fluidTime(original);
  return fluidTimes(original, /*withMakespan=*/true).makespan;
}

CostModel::FluidTimes CostModel::fluidTimes(const Schedule &original,
                                            bool withMakespan) const {
  // Keyed by the schedule as given, its order included (where each pair
  // starts atOnceRoutes' search), so that a hit skips the rerouting; the
  // makespan under the key's complement.
  std::pair<uint64_t, uint64_t> key = scheduleKey(*topo_, original, true);
  std::pair<uint64_t, uint64_t> spanKey{key.first, ~key.second};
  FluidTimes out;
  bool haveFluid = false, haveSpan = !withMakespan;
  {
    std::lock_guard<std::mutex> lock(fluidCache_->mutex);
    if (auto it = fluidCache_->times.find(key);
        it != fluidCache_->times.end()) {
      out.fluid = it->second;
      haveFluid = true;
    }
    if (auto it = fluidCache_->times.find(spanKey);
        withMakespan && it != fluidCache_->times.end()) {
      out.makespan = it->second;
      haveSpan = true;
    }
  }
  if (haveFluid && haveSpan)
    return out;
  std::optional<Schedule> rerouted = atOnceRoutes(*topo_, original);
  const Schedule &schedule = rerouted ? *rerouted : original;
  if (!haveFluid)
    out.fluid = computeFluidTime(schedule, /*released=*/false);
  if (!haveSpan)
    out.makespan = computeFluidTime(schedule, /*released=*/true);
  std::lock_guard<std::mutex> lock(fluidCache_->mutex);
  fluidCache_->times.emplace(key, out.fluid);
  if (withMakespan)
    fluidCache_->times.emplace(spanKey, out.makespan);
  return out;
}

double CostModel::computeFluidTime(const Schedule &schedule,
                                   bool released) const {
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
  // `released`: when each flow starts (its message's latency; nothing is
  // kept otherwise), and the latest start, which the bottleneck paths
  // below add.
  std::vector<double> release;
  double lastRelease = 0;
  // Each flow's share weight. SimGrid's CM02 gives a flow's variable the
  // sharing penalty of its route's latency (TCP's bias against long round
  // trips): where flows meet on a resource, each gets a share in inverse
  // proportion to its latency, so near messages finish first and the far
  // ones, left to themselves, may leave an injection port idle. The
  // platform gives every link the machine's latency and the ports none:
  // the penalty is the route's hops. Without latency every weight is 1,
  // and so on a packet network (`packet_length`): its routers share a
  // link packet by packet, whatever the route (the contention term, fitted
  // to phasec-ns3, covers what else it does).
  std::vector<double> weight;
  const bool weighted =
      topo.desc().linkLatency > 0 && topo.desc().packetLength <= 0;
  auto noteRelease = [&](const Transfer &x,
                         llvm::ArrayRef<LinkId> onRoute) -> double {
    if (!released)
      return 0;
    double r = messageLatency(topo.desc(), topo, onRoute, x.bytes);
    lastRelease = std::max(lastRelease, r);
    return r;
  };
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
    std::vector<double>().swap(weight);
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
            noteRelease(x, route);
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
        noteRelease(x, route);
        for (uint32_t r : res)
          load[r] += bytes;
        continue;
      }
      appendResources(topo, x, ports, route, res);
      if (double r = noteRelease(x, route); released)
        release.push_back(r);
      first.push_back(static_cast<uint32_t>(res.size()));
      left.push_back(bytes);
      weight.push_back(weighted && !route.empty() ? 1.0 / double(route.size())
                                                  : 1.0);
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
  // Past the budget: the bytes at their bottleneck after the latest start
  // (the fluid time can only be shorter).
  if (!load.empty())
    return lastRelease + bottleneck(load);
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
  std::vector<double> rate(numFlows), rem(numResources), weights(numResources);
  std::vector<uint32_t> count(numResources), active;
  // Flows join at their start (all at once without `released`).
  std::vector<uint32_t> byStart(numFlows);
  for (size_t f = 0; f < numFlows; ++f)
    byStart[f] = static_cast<uint32_t>(f);
  if (released)
    llvm::stable_sort(byStart, [&](uint32_t a, uint32_t b) {
      return release[a] < release[b];
    });
  size_t started = 0;
  std::vector<double> finish;
  double now = 0;
  auto admit = [&] {
    while (started < numFlows &&
           (!released || release[byStart[started]] <= now))
      active.push_back(byStart[started++]);
  };
  admit();
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
  while (!active.empty() || started < numFlows) {
    if (active.empty()) {
      now = release[byStart[started]];
      admit();
      continue;
    }
    if (work > kWorkBudget) {
      std::vector<double> rest(numResources, 0.0);
      addLoads(active, rest);
      addLoads(llvm::ArrayRef<uint32_t>(byStart).drop_front(started), rest);
      return std::max(now, lastRelease) + bottleneck(rest);
    }
    // Weighted max-min fair rates by water filling: the resource with the
    // smallest share per unit of weight fixes the rates of its flows (the
    // share times each one's weight), which then leave the others.
    std::fill(count.begin(), count.end(), 0);
    std::fill(weights.begin(), weights.end(), 0.0);
    for (uint32_t f : active) {
      frozen[f] = 0;
      for (uint32_t i = first[f]; i < first[f + 1]; ++i) {
        ++count[res[i]];
        weights[res[i]] += weight[f];
      }
      work += first[f + 1] - first[f];
    }
    for (size_t r = 0; r < numResources; ++r) {
      rem[r] = capacity[r];
      if (count[r])
        heap.set(static_cast<uint32_t>(r), rem[r] / weights[r]);
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
        rate[f] = share * weight[f];
        for (uint32_t i = first[f]; i < first[f + 1]; ++i) {
          uint32_t q = res[i];
          rem[q] = std::max(0.0, rem[q] - rate[f]);
          weights[q] = std::max(0.0, weights[q] - weight[f]);
          // r itself is done once its loop ends (its count reaches 0).
          if (--count[q] > 0 && q != r)
            heap.set(q, rem[q] / std::max(weights[q], 1e-300));
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
    // A step also ends where the next flow starts.
    if (started < numFlows)
      dt = std::min(dt, release[byStart[started]] - now);
    now += dt;
    // Flows that end within rounding of the step's end end with it.
    llvm::erase_if(active, [&](uint32_t f) {
      left[f] -= rate[f] * dt;
      return left[f] <= 1e-9 * rate[f] * std::max(dt, now);
    });
    admit();
  }
  return now;
}

double CostModel::executionTime(const Schedule &schedule, Execution mode,
                                double wireFactor, double barrier,
                                const PacketNetwork *network, bool relaying,
                                bool bySteps) const {
  const bool perPhase = mode == Execution::Stepped || mode == Execution::Phased;
  const Topology &topo = topology();
  std::optional<PacketNetwork> machineNet;
  if (!network && (machineNet = packetNetwork()))
    network = &*machineNet;
  // A relay's steps are data flow: each rank runs its phases as its data
  // arrives (the generated code's execution without barriers), every
  // message paying its pipeline on the packet network.
  if (mode == Execution::Stepped && relaying && network)
    if (std::optional<DataflowTerms> flow = computeDataflowTime(
            schedule, bySteps ? Waits::PerStep : Waits::PerPhase, network,
            wireFactor))
      return flow->bandwidth *
                 (1 + (bySteps ? stepContention(schedule, network) : 0)) +
             flow->latency + flow->setup;
  double setups = 0;
  if (double setup = topo.desc().setupCost; setup > 0) {
    std::vector<int64_t> sends(topo.numNodes(), 0);
    int64_t most = 0;
    PhaseReader read(topo, schedule, /*sorted=*/false);
    for (size_t j = 0; j < read.size(); ++j) {
      if (perPhase) {
        setups += setup * double(most);
        std::fill(sends.begin(), sends.end(), 0);
        most = 0;
      }
      for (const Transfer &t : read[j].transfers) {
        NodeId s = topo.nodeOfRank(t.src);
        if (s != topo.nodeOfRank(t.dst))
          most = std::max(most, ++sends[s]);
      }
    }
    setups += setup * double(most);
  }
  // Phased, each phase also waits for its slowest message's pipeline:
  // packets are stored and forwarded, so past the first hop every hop
  // takes a packet's serialisation, and every hop the hop latency.
  // (Stepped, a node's next step overlaps its neighbours' pipelines.)
  double pipeline = 0;
  if (mode == Execution::Phased && network && network->payload > 0) {
    llvm::SmallVector<LinkId, 64> route;
    PhaseReader read(topo, schedule, /*sorted=*/false);
    for (size_t j = 0; j < read.size(); ++j) {
      double slowest = 0;
      for (const Transfer &t : read[j].transfers) {
        if (t.bytes <= 0)
          continue;
        messageRoute(topo, t, route);
        if (route.empty())
          continue;
        slowest = std::max(slowest, packetPipeline(topo, route, *network));
      }
      pipeline += slowest;
    }
  }
  double drift = 1;
  if ((mode == Execution::Ordered ||
       (mode == Execution::Stepped && !relaying)) &&
      schedule.phases.size() > 1)
    drift = network ? contention(schedule, *network).factor : 1;
  switch (mode) {
  case Execution::Stepped:
    // Steps without barriers drift as phases in order do.
    return time(schedule) * wireFactor * drift + setups;
  case Execution::Phased:
    return time(schedule) * wireFactor + setups + pipeline +
           barrier *
               double(schedule.phases.empty() ? 0 : schedule.phases.size() - 1);
  case Execution::Ordered:
    // In phase order without barriers: the phases drift into each other
    // (the contention term, fitted to this mode).
    return fluidTime(schedule) * wireFactor * drift + setups;
  case Execution::Posted:
    break;
  }
  return fluidTime(schedule) * wireFactor + setups;
}
