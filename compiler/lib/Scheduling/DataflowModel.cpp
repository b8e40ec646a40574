//===- DataflowModel.cpp - relays without barriers, as data flows ---------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// The time of a relaying schedule without barriers: each rank runs its
// phases as its data arrives, messages share the links fairly.
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
#include <queue>

using namespace phasec;
using namespace phasec::cost_detail;

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
CostModel::dataflowTime(const Schedule &schedule, Waits waits) const {
  if (std::optional<Schedule> listed = listedCopy(*topo_, schedule))
    return dataflowTime(*listed, waits);
  std::pair<uint64_t, uint64_t> key = scheduleKey(*topo_, schedule, true);
  // Each kind of wait is an entry of its own.
  key.second ^= 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(waits);
  {
    std::lock_guard<std::mutex> lock(fluidCache_->mutex);
    auto it = fluidCache_->flows.find(key);
    if (it != fluidCache_->flows.end())
      return it->second;
  }
  std::optional<DataflowTerms> terms = computeDataflowTime(schedule, waits);
  std::lock_guard<std::mutex> lock(fluidCache_->mutex);
  fluidCache_->flows.emplace(key, terms);
  return terms;
}

std::optional<CostModel::DataflowTerms>
CostModel::computeDataflowTime(const Schedule &schedule, Waits waits,
                               const PacketNetwork *network,
                               double wireFactor) const {
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
  // (or steps: those it takes part in) starts in that list.
  std::vector<std::vector<uint32_t>> byRank(numRanks), groupStart(numRanks);
  std::vector<uint32_t> lastPhase(numRanks, UINT32_MAX);
  // The wait (phase, step, or none: all 0) each phase's messages end in.
  std::vector<uint32_t> waitOf(schedule.phases.size(), 0);
  if (waits == Waits::PerPhase)
    for (size_t j = 0; j < waitOf.size(); ++j)
      waitOf[j] = static_cast<uint32_t>(j);
  std::vector<size_t> steps =
      waits == Waits::PerStep ? relaySteps(schedule) : std::vector<size_t>();
  for (size_t s = 0; s + 1 < steps.size(); ++s)
    for (size_t j = steps[s]; j < steps[s + 1]; ++j)
      waitOf[j] = static_cast<uint32_t>(s);
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
      // On a packet network the payload carries its headers and a message
      // waits for its first packet's pipeline.
      m.bytes = static_cast<double>(x.bytes) * wireFactor +
                static_cast<double>(d.messageEnvelope);
      m.latency = network ? packetPipeline(topo, route, *network)
                          : messageLatency(d, topo, route, x.bytes);
      m.busy = messageSetup(d, route.size());
      uint32_t id = static_cast<uint32_t>(msgs.size());
      msgs.push_back(m);
      for (RankId r : {x.src, x.dst}) {
        if (lastPhase[r] != waitOf[j]) {
          lastPhase[r] = waitOf[j];
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
  // set-ups of its sends up to and including this one. It then pays its hop
  // latency and moves its bytes at its fair share.
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
    uint32_t end =
        g + 1 < groupStart[r].size() ? groupStart[r][g + 1] : byRank[r].size();
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
