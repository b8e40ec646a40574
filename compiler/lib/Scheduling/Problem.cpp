//===- Problem.cpp - Transfer sets, schedules and their verifier ----------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The verifier is the one piece every schedule must pass, whoever made it,
/// so it trusts nothing: it re-routes every transfer through the Topology,
/// tracks the owner of every directed link per phase in a flat array (reset
/// through a touched-list, so a phase costs what it contains, not the size of
/// the machine), and accounts delivered bytes per demanded pair.
///
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Problem.h"

#include "ChunkReplay.h"
#include "Orbits.h"
#include "phasec/Scheduling/Bounds.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>

using namespace phasec;
using llvm::failure;
using llvm::LogicalResult;
using llvm::success;

//===----------------------------------------------------------------------===//
// TransferSet
//===----------------------------------------------------------------------===//

TransferSet::TransferSet(std::vector<Demand> demands)
    : demands_(std::move(demands)), canonical_(false) {
  canonicalize();
}

TransferSet TransferSet::allPairs(std::vector<RankId> members, int64_t bytes) {
  assert(std::is_sorted(members.begin(), members.end()) &&
         std::adjacent_find(members.begin(), members.end()) == members.end() &&
         "members sorted and distinct");
  TransferSet set;
  if (bytes <= 0 || members.size() < 2)
    return set;
  set.allPairs_ = true;
  set.members_ = std::move(members);
  set.pairBytes_ = bytes;
  return set;
}

void TransferSet::listPairs() {
  if (!allPairs_)
    return;
  std::vector<Demand> listed(begin(), end());
  allPairs_ = false;
  members_.clear();
  demands_ = std::move(listed);
}

void TransferSet::add(RankId src, RankId dst, int64_t bytes) {
  listPairs();
  demands_.push_back({src, dst, bytes});
  canonical_ = false;
}

size_t TransferSet::size() const {
  if (allPairs_)
    return members_.size() * (members_.size() - 1);
  return demands_.size();
}

Demand TransferSet::operator[](size_t i) const {
  if (!allPairs_)
    return demands_[i];
  // Row s holds the m - 1 destinations other than member s, in order.
  size_t m1 = members_.size() - 1, s = i / m1, j = i % m1;
  return {members_[s], members_[j < s ? j : j + 1], pairBytes_};
}

void TransferSet::canonicalize() {
  if (canonical_)
    return;
  auto less = [](const Demand &a, const Demand &b) {
    return a.src != b.src ? a.src < b.src : a.dst < b.dst;
  };
  // Builders usually emit sorted demands; skip the sort then.
  if (!std::is_sorted(demands_.begin(), demands_.end(), less))
    llvm::sort(demands_, less);
  size_t out = 0;
  for (size_t i = 0; i < demands_.size();) {
    Demand d = demands_[i++];
    while (i < demands_.size() && demands_[i].src == d.src &&
           demands_[i].dst == d.dst)
      d.bytes += demands_[i++].bytes;
    if (d.src == d.dst || d.bytes == 0)
      continue;
    demands_[out++] = d;
  }
  demands_.resize(out);
  canonical_ = true;
}

int64_t TransferSet::indexOf(RankId src, RankId dst) const {
  assert(canonical_ && "TransferSet read before canonicalize()");
  if (allPairs_) {
    // Members 0 .. m-1 (or any other run) need no search: a member's
    // position is its distance from the first.
    int64_t m = static_cast<int64_t>(members_.size());
    bool run = int64_t(members_.back()) - members_.front() == m - 1;
    auto pos = [&](RankId r) -> int64_t {
      if (run) {
        int64_t at = int64_t(r) - members_.front();
        return at >= 0 && at < m ? at : -1;
      }
      auto it = std::lower_bound(members_.begin(), members_.end(), r);
      return it != members_.end() && *it == r ? it - members_.begin() : -1;
    };
    int64_t s = pos(src), d = pos(dst);
    if (s < 0 || d < 0 || s == d)
      return -1;
    return s * (m - 1) + (d < s ? d : d - 1);
  }
  auto it = std::lower_bound(
      demands_.begin(), demands_.end(), std::make_pair(src, dst),
      [](const Demand &d, std::pair<RankId, RankId> p) {
        return d.src != p.first ? d.src < p.first : d.dst < p.second;
      });
  if (it == demands_.end() || it->src != src || it->dst != dst)
    return -1;
  return it - demands_.begin();
}

int64_t TransferSet::lookup(RankId src, RankId dst) const {
  int64_t i = indexOf(src, dst);
  return i < 0 ? 0 : (*this)[i].bytes;
}

int64_t TransferSet::totalBytes() const {
  if (allPairs_)
    return static_cast<int64_t>(size()) * pairBytes_;
  int64_t total = 0;
  for (const Demand &d : demands_)
    total += d.bytes;
  return total;
}

std::optional<int64_t> TransferSet::uniformBytes() const {
  if (allPairs_)
    return pairBytes_;
  if (demands_.empty())
    return std::nullopt;
  int64_t b = demands_.front().bytes;
  for (const Demand &d : demands_)
    if (d.bytes != b)
      return std::nullopt;
  return b;
}

RankId TransferSet::maxRank() const {
  if (allPairs_)
    return members_.back();
  RankId m = -1;
  for (const Demand &d : demands_)
    m = std::max({m, d.src, d.dst});
  return m;
}

bool TransferSet::operator==(const TransferSet &o) const {
  assert(canonical_ && o.canonical_ && "compare canonical sets only");
  if (allPairs_ && o.allPairs_)
    return members_ == o.members_ && pairBytes_ == o.pairBytes_;
  return size() == o.size() &&
         std::equal(begin(), end(), o.begin(),
                    [](const Demand &a, const Demand &b) {
                      return a.src == b.src && a.dst == b.dst &&
                             a.bytes == b.bytes;
                    });
}

//===----------------------------------------------------------------------===//
// Schedule
//===----------------------------------------------------------------------===//

/// The canonical order of a phase's transfers (a function object, so that
/// the sorts inline it).
static constexpr auto transferLess = [](const Transfer &a, const Transfer &b) {
  if (a.src != b.src)
    return a.src < b.src;
  if (a.dst != b.dst)
    return a.dst < b.dst;
  if (a.ties != b.ties)
    return a.ties < b.ties;
  return a.bytes < b.bytes;
};

/// How many transfers `rule` holds in `schedule` (none if it names no
/// group of the schedule).
static size_t ruleSize(const Schedule &schedule, const PhaseRule &rule) {
  if (rule.group >= schedule.translations.size())
    return 0;
  return rule.reps.size() * schedule.translations[rule.group].size();
}

size_t Schedule::numTransfers() const {
  size_t n = 0;
  for (const Phase &p : phases) {
    n += p.transfers.size();
    for (const PhaseRule &rule : p.rules)
      n += ruleSize(*this, rule);
  }
  return n;
}

bool Schedule::hasRules() const {
  return llvm::any_of(phases, [](const Phase &p) { return !p.rules.empty(); });
}

void Schedule::canonicalize() {
  llvm::erase_if(phases, [&](const Phase &p) {
    return p.transfers.empty() &&
           llvm::all_of(p.rules, [&](const PhaseRule &rule) {
             return ruleSize(*this, rule) == 0;
           });
  });
  const auto &less = transferLess;
  for (Phase &p : phases) {
    for (PhaseRule &rule : p.rules)
      llvm::sort(rule.reps, less);
    if (p.chunks.empty()) {
      llvm::sort(p.transfers, less);
      continue;
    }
    // Relaying phases sort their chunk lists along (stable: two transfers of
    // one pair keep their order, their chunks differ).
    std::vector<size_t> order(p.transfers.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return less(p.transfers[a], p.transfers[b]);
    });
    std::vector<Transfer> transfers;
    std::vector<ChunkTransfer> chunks;
    transfers.reserve(order.size());
    chunks.reserve(order.size());
    for (size_t i : order) {
      transfers.push_back(p.transfers[i]);
      chunks.push_back(std::move(p.chunks[i]));
    }
    p.transfers = std::move(transfers);
    p.chunks = std::move(chunks);
  }
}

//===----------------------------------------------------------------------===//
// Phases held by rule
//===----------------------------------------------------------------------===//

/// Appends the translates `rule` holds to `out`; ranks, translations or a
/// group outside the machine or the schedule give rank -1.
static void appendTranslates(const Topology &topo,
                             llvm::ArrayRef<std::vector<NodeId>> translations,
                             const PhaseRule &rule,
                             std::vector<Transfer> &out) {
  if (rule.group >= translations.size())
    return;
  llvm::ArrayRef<NodeId> group = translations[rule.group];
  const unsigned D = topo.numDims();
  const int64_t numNodes = topo.numNodes(), numRanks = topo.numRanks();
  const int64_t c = topo.ranksPerNode();
  // Translation vectors' coordinates once per rule (D per translation).
  std::vector<int64_t> vec(group.size() * D, -1);
  for (size_t i = 0; i < group.size(); ++i)
    if (group[i] >= 0 && group[i] < numNodes)
      for (unsigned d = 0; d < D; ++d)
        vec[i * D + d] = topo.coord(group[i], d);
  llvm::SmallVector<int64_t, 8> sc(D), dc(D);
  auto moved = [&](const llvm::SmallVectorImpl<int64_t> &base, size_t i,
                   int64_t core) -> RankId {
    if (D == 0 || vec[i * D] < 0)
      return -1;
    int64_t node = 0, stride = 1;
    for (unsigned d = 0; d < D; ++d) {
      int64_t k = topo.extent(d);
      node += ((base[d] + vec[i * D + d]) % k) * stride;
      stride *= k;
    }
    return static_cast<RankId>(node * c + core);
  };
  out.reserve(out.size() + rule.reps.size() * group.size());
  for (const Transfer &t : rule.reps) {
    bool inRange =
        t.src >= 0 && t.dst >= 0 && t.src < numRanks && t.dst < numRanks;
    if (inRange)
      for (unsigned d = 0; d < D; ++d) {
        sc[d] = topo.coord(topo.nodeOfRank(t.src), d);
        dc[d] = topo.coord(topo.nodeOfRank(t.dst), d);
      }
    for (size_t i = 0; i < group.size(); ++i) {
      Transfer x = t;
      x.src = inRange ? moved(sc, i, t.src % c) : -1;
      x.dst = inRange ? moved(dc, i, t.dst % c) : -1;
      out.push_back(x);
    }
  }
}

const Phase &PhaseReader::operator[](size_t j) {
  const Phase &phase = phases_[j];
  if (phase.rules.empty())
    return phase;
  buffer_.transfers.assign(phase.transfers.begin(), phase.transfers.end());
  for (const PhaseRule &rule : phase.rules)
    appendTranslates(topo_, translations_, rule, buffer_.transfers);
  if (sorted_)
    llvm::sort(buffer_.transfers, transferLess);
  return buffer_;
}

void phasec::expandRules(const Topology &topo, Schedule &schedule) {
  if (schedule.hasRules()) {
    PhaseReader read(topo, schedule);
    for (size_t j = 0; j < schedule.phases.size(); ++j) {
      if (schedule.phases[j].rules.empty())
        continue;
      std::vector<Transfer> listed = read[j].transfers;
      schedule.phases[j].transfers = std::move(listed);
      schedule.phases[j].rules.clear();
    }
  }
  schedule.translations.clear();
}

bool phasec::isRelaying(const Schedule &schedule) {
  return llvm::any_of(schedule.phases,
                      [](const Phase &p) { return !p.chunks.empty(); });
}

std::vector<size_t> phasec::sendOrder(const Phase &phase,
                                      llvm::ArrayRef<RankId> group) {
  llvm::DenseMap<RankId, int64_t> member;
  for (auto [i, r] : llvm::enumerate(group))
    member.try_emplace(r, static_cast<int64_t>(i));
  const int64_t p = static_cast<int64_t>(group.size());
  auto key = [&](size_t i) -> std::pair<int64_t, int64_t> {
    const Transfer &t = phase.transfers[i];
    auto s = member.find(t.src), d = member.find(t.dst);
    if (s == member.end() || d == member.end())
      return {p, 0};
    return {s->second, ((d->second - s->second) % p + p) % p};
  };
  std::vector<size_t> order(phase.transfers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return key(a) < key(b); });
  return order;
}

bool phasec::forwardsNothing(const Schedule &schedule) {
  return isRelaying(schedule) && relaySteps(schedule).size() <= 2;
}

std::vector<size_t> phasec::relaySteps(const Schedule &schedule) {
  std::vector<size_t> starts;
  if (schedule.phases.empty())
    return starts;
  starts.push_back(0);
  // (rank, chunk) pairs received in the current step.
  llvm::DenseSet<std::pair<RankId, int64_t>> received;
  for (auto [j, phase] : llvm::enumerate(schedule.phases)) {
    // A phase's sends read the state at its start: one that sends what
    // the step delivers starts a new step, and so does one whose chunks
    // are not known (a schedule without them: what it carries may have
    // just arrived).
    bool forwards = j > 0 && phase.chunks.size() < phase.transfers.size();
    for (auto [i, t] : llvm::enumerate(phase.transfers))
      if (i < phase.chunks.size())
        for (int64_t c : phase.chunks[i].ids)
          forwards = forwards || received.contains({t.src, c});
    if (forwards) {
      starts.push_back(j);
      received.clear();
    }
    for (auto [i, t] : llvm::enumerate(phase.transfers))
      if (i < phase.chunks.size())
        for (int64_t c : phase.chunks[i].ids)
          received.insert({t.dst, c});
  }
  starts.push_back(schedule.phases.size());
  return starts;
}

//===----------------------------------------------------------------------===//
// Problem
//===----------------------------------------------------------------------===//

Problem::Problem(const Topology &topo, TransferSet transfers)
    : Problem(topo, std::move(transfers), CostModel(topo)) {}

struct Problem::BoundCache {
  std::once_flag once, machineOnce;
  LowerBound bound;
  double machineBound = 0;
};

Problem::Problem(const Topology &topo, TransferSet transfers, CostModel model)
    : topo_(&topo), transfers_(std::move(transfers)), model_(model),
      boundCache_(std::make_shared<BoundCache>()) {
  assert(&model.topology() == &topo && "cost model of another machine");
  transfers_.canonicalize();
}

Problem::Problem(const Topology &topo, ChunkSpec chunks, CostModel model)
    : topo_(&topo), model_(model), chunks_(std::move(chunks)),
      boundCache_(std::make_shared<BoundCache>()) {
  assert(&model.topology() == &topo && "cost model of another machine");
}

LowerBound Problem::bound() const {
  std::call_once(boundCache_->once,
                 [&] { boundCache_->bound = computeLowerBound(*this); });
  return boundCache_->bound;
}

ScheduleCost Problem::cost(const Schedule &schedule) const {
  ScheduleCost cost;
  cost.machine = model_.machineTime(schedule, members(), chunks_.has_value());
  // Phase after phase without message envelopes, the machine's bandwidth
  // term is the schedule time, summed the same way: not routed again.
  if (cost.machine.chosen == SyncKind::Barrier &&
      topo_->desc().messageEnvelope == 0)
    cost.time = cost.machine.bandwidth;
  else
    cost.time = model_.time(schedule);
  cost.bound = bound();
  cost.gap = CostModel::gap(cost.time, cost.bound.time);
  cost.timeOptimal = CostModel::meetsBound(cost.time, cost.bound.time);
  cost.directOptimal = CostModel::meetsBound(cost.time, cost.bound.directTime);
  cost.phaseOptimal =
      static_cast<int64_t>(schedule.phases.size()) <= cost.bound.minPhases;
  cost.machineBound = machineBound();
  return cost;
}

std::vector<RankId> Problem::members() const {
  if (chunks_)
    return chunks_->group;
  if (const std::vector<RankId> *all = transfers_.allPairsMembers())
    return *all;
  // A mark per rank of the machine (not every demand's ranks sorted);
  // ranks outside it, which check() rejects, are kept too.
  int64_t numRanks = topo_->numRanks();
  std::vector<uint8_t> in(numRanks, 0);
  std::vector<RankId> ranks;
  for (const Demand &d : transfers_)
    for (RankId r : {d.src, d.dst}) {
      if (r >= 0 && r < numRanks)
        in[r] = 1;
      else
        ranks.push_back(r);
    }
  for (int64_t r = 0; r < numRanks; ++r)
    if (in[r])
      ranks.push_back(static_cast<RankId>(r));
  llvm::sort(ranks);
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

double Problem::machineBound() const {
  std::call_once(boundCache_->machineOnce, [&] {
    boundCache_->machineBound = machineBoundAbove(bound().time);
  });
  return boundCache_->machineBound;
}

/// Set-ups one after the other before `holders` ranks can hold a piece that
/// one held: they at most double per set-up, ceil(log2 holders).
static int64_t setupRounds(int64_t holders) {
  return holders > 1 ? static_cast<int64_t>(
                           llvm::Log2_64_Ceil(static_cast<uint64_t>(holders)))
                     : 0;
}

double Problem::machineBoundAbove(double bandwidth) const {
  const TopologyDesc &d = topo_->desc();
  double s = d.setupCost;
  if (chunks_) {
    int64_t n = chunks_->numMembers();
    return std::max(bandwidth, static_cast<double>(setupRounds(n)) * s);
  }
  int64_t numRanks = topo_->numRanks();
  // Per source: destinations, and the smallest latency among them.
  llvm::DenseMap<RankId, std::pair<int64_t, double>> perSource;
  double result = bandwidth;
  for (const Demand &dm : transfers_) {
    if (dm.src < 0 || dm.dst < 0 || dm.src >= numRanks ||
        dm.dst >= numRanks || dm.bytes <= 0)
      continue;
    double latency =
        d.linkLatency * static_cast<double>(topo_->hops(
                            topo_->nodeOfRank(dm.src), topo_->nodeOfRank(dm.dst)));
    auto [it, inserted] = perSource.try_emplace(dm.src, 0, latency);
    ++it->second.first;
    it->second.second = std::min(it->second.second, latency);
    result = std::max(result, s + latency);
  }
  // A source's data reaches its m destinations in at least ceil(log2(m +
  // 1)) set-ups one after the other: the informed ranks at most double per
  // set-up, relaying (seed 003's trees) included. Direct, the source sets
  // up m messages itself, but the bound is the operation's (issue 39): on
  // the Delta with 8-unit set-ups k_level(3, sq) runs below 255 set-ups.
  for (const auto &entry : perSource)
    result = std::max(
        result, static_cast<double>(setupRounds(entry.second.first + 1)) * s +
                    entry.second.second);
  return std::max(result, copyBoundAbove(bandwidth));
}

double Problem::copyBoundAbove(double bandwidth) const {
  double rate = model_.copyRate();
  if (rate <= 0 || chunks_)
    return 0;
  // Every rank copies all it sends and receives, whatever the phases.
  CostModel::CopyBytes busiest = CostModel::busiestCopies(transfers_);
  // Packing adds its copies to the transfers; a chained transfer (the
  // faster of auto's two) takes at least as long as its copies.
  if (model_.style() == TransferStyle::Packing)
    return bandwidth + busiest.packed / rate;
  return busiest.streamed / rate;
}

LogicalResult Problem::check(std::string &error) const {
  int64_t numRanks = topo_->numRanks();
  if (chunks_)
    return chunks_->check(numRanks, error);
  int64_t total = 0;
  for (const Demand &d : transfers_) {
    if (d.src < 0 || d.src >= numRanks || d.dst < 0 || d.dst >= numRanks) {
      error = llvm::formatv("transfer {0} -> {1}: rank out of range (the "
                            "machine has {2} ranks)",
                            d.src, d.dst, numRanks)
                  .str();
      return failure();
    }
    if (d.bytes < 0) {
      error = llvm::formatv("transfer {0} -> {1}: negative size {2}", d.src,
                            d.dst, d.bytes)
                  .str();
      return failure();
    }
    // Every figure (totals, per-rank loads, bounds) sums bytes in int64.
    if (llvm::AddOverflow(total, d.bytes, total)) {
      error = "the transfers total more than 2^63 - 1 bytes";
      return failure();
    }
  }
  return success();
}

LogicalResult
Problem::verify(const Schedule &schedule,
                llvm::SmallVectorImpl<ScheduleViolation> &violations,
                unsigned maxViolations) const {
  const Topology &topo = *topo_;
  const int64_t numRanks = topo.numRanks();
  const TransferSet &demands = transfers_;
  size_t before = violations.size();
  auto full = [&] { return violations.size() - before >= maxViolations; };
  auto report = [&](ScheduleViolation v) {
    if (!full())
      violations.push_back(std::move(v));
  };
  // Every violation about one transfer names its phase, its index and its
  // pair the same way.
  auto transferViolation = [](ViolationKind kind, size_t phase,
                              size_t index, const Transfer &t) {
    ScheduleViolation v{kind};
    v.phase = phase;
    v.transferA = index;
    v.src = t.src;
    v.dst = t.dst;
    return v;
  };

  // Row index: demands of source s are demands[rowStart[s], rowStart[s+1]),
  // for a listed set (one held by rule computes its indices).
  std::vector<int64_t> rowStart;
  bool rangeOk = !demands.allPairsMembers();
  if (rangeOk) {
    rowStart.assign(numRanks + 1, 0);
    for (const Demand &d : demands) {
      if (d.src < 0 || d.src >= numRanks || d.dst < 0 || d.dst >= numRanks) {
        rangeOk = false; // check() fails; fall back to plain binary search
        continue;
      }
      ++rowStart[d.src + 1];
    }
    for (int64_t r = 0; r < numRanks; ++r)
      rowStart[r + 1] += rowStart[r];
  }
  auto findDemand = [&](RankId s, RankId d) -> int64_t {
    if (!rangeOk)
      return transfers_.indexOf(s, d);
    int64_t b = rowStart[s], e = rowStart[s + 1];
    // Dense rows (all-to-all) index directly.
    if (e - b == numRanks - 1)
      return b + (d < s ? d : d - 1);
    int64_t at = *llvm::partition_point(
        llvm::seq(b, e), [&](int64_t i) { return demands[i].dst < d; });
    return at < e && demands[at].dst == d ? at : -1;
  };

  // Delivered bytes per demand: a bit per demand delivered whole once (8 MB
  // for a 20x20x20 all-to-all: the int64 per pair was 512 MB, a byte per
  // pair 64 MB and a cache miss per transfer), the further whole
  // deliveries of a pair, and the bytes of the pieces of split pairs.
  std::vector<uint64_t> once((demands.size() + 63) / 64, 0);
  llvm::DenseMap<int64_t, int64_t> again, pieces;
  // Counts a delivery of `bytes` to demand `di`.
  auto count = [&](int64_t di, int64_t bytes) {
    uint64_t bit = uint64_t(1) << (di % 64);
    if (bytes != demands[di].bytes)
      pieces[di] += bytes;
    else if (once[di / 64] & bit)
      ++again[di];
    else
      once[di / 64] |= bit;
  };
  std::vector<RankId> owner(topo.numLinks(), -1);
  std::vector<int64_t> ownerIndex(topo.numLinks(), -1);
  std::vector<LinkId> touched;
  CostModel::PhaseCost phaseCost(model_);
  llvm::SmallVector<LinkId, 64> route;
  double time = 0;

  // Rules must name groups of translations of this machine; their
  // translates are then checked one by one like listed transfers.
  for (size_t g = 0; g < schedule.translations.size(); ++g)
    for (NodeId v : schedule.translations[g])
      if (v < 0 || v >= topo.numNodes()) {
        ScheduleViolation bad{ViolationKind::BadTransfer};
        bad.message = llvm::formatv("translation group {0} lists node {1}, "
                                    "outside the machine",
                                    g, v)
                          .str();
        report(std::move(bad));
        break;
      }
  for (size_t p = 0; p < schedule.phases.size(); ++p)
    for (const PhaseRule &rule : schedule.phases[p].rules) {
      const char *why = nullptr;
      if (chunks_ || !schedule.phases[p].chunks.empty())
        why = "a relaying schedule lists its transfers";
      else if (topo.numDims() == 0)
        why = "only a grid machine (torus, mesh, hypercube) has translations";
      else if (rule.group >= schedule.translations.size())
        why = "it names a translation group the schedule does not have";
      if (!why)
        continue;
      ScheduleViolation bad{ViolationKind::BadTransfer};
      bad.phase = p;
      bad.message =
          llvm::formatv("phase {0}: a rule of {1} transfers (group {2}): {3}",
                        p, rule.reps.size(), rule.group, why)
              .str();
      report(std::move(bad));
    }

  // A phase held by rule over a group of translations (Orbits.h) is
  // checked from its representatives where that proves it right: every
  // representative well-formed and on its shorter way, no two
  // representatives' translates on one link (links of an orbit are
  // crossed by the same relative sources), and every translate a demanded
  // pair. Anything else is read again transfer by transfer below, which
  // says what is wrong in the listed phase's terms.
  ScheduleOrbits orbits(topo, schedule.translations);
  const int64_t c = topo.ranksPerNode();
  std::vector<int64_t> orbitOwner;
  std::vector<uint32_t> ownedOrbits;
  std::vector<std::pair<int64_t, int64_t>> delivered; // demand, bytes
  auto verifyByOrbits = [&](const Phase &phase, const TranslationOrbits &o) {
    if (chunks_)
      return false;
    orbitOwner.resize(o.numLinkOrbits(), -1);
    auto clean = [&] {
      for (uint32_t l : ownedOrbits)
        orbitOwner[l] = -1;
      ownedOrbits.clear();
      return false;
    };
    for (const PhaseRule &rule : phase.rules)
      for (const Transfer &t : rule.reps) {
        if (t.src < 0 || t.dst < 0 || t.src >= numRanks || t.dst >= numRanks ||
            t.bytes <= 0)
          return clean();
        if (t.src == t.dst)
          continue;
        NodeId sn = topo.nodeOfRank(t.src), dn = topo.nodeOfRank(t.dst);
        TieMask allowed = topo.tieMask(sn, dn);
        if (t.ties & ~allowed)
          return clean();
        topo.route(sn, dn, t.ties, route);
        for (LinkId l : route) {
          // The source relative to the link: the same for every link of
          // the orbit and the translate that crosses it.
          int64_t rel =
              int64_t(o.difference(sn, topo.link(l).src)) * c + t.src % c;
          uint32_t lo = o.linkOrbit(topo, l);
          if (orbitOwner[lo] < 0) {
            orbitOwner[lo] = rel;
            ownedOrbits.push_back(lo);
          } else if (orbitOwner[lo] != rel) {
            return clean();
          }
        }
      }
    clean();
    // Every translate a demanded pair, found before any is counted.
    delivered.clear();
    for (const PhaseRule &rule : phase.rules)
      for (const Transfer &t : rule.reps) {
        if (t.src == t.dst)
          continue;
        NodeId sn = topo.nodeOfRank(t.src), dn = topo.nodeOfRank(t.dst);
        for (size_t i = 0; i < o.size(); ++i) {
          int64_t di = findDemand(o.translate(sn, i) * c + t.src % c,
                                  o.translate(dn, i) * c + t.dst % c);
          if (di < 0)
            return false;
          delivered.push_back({di, t.bytes});
        }
      }
    for (auto [di, bytes] : delivered)
      count(di, bytes);
    time += model_.rulePhaseTime(phase, o, phaseCost);
    return true;
  };

  PhaseReader read(topo, schedule);
  for (size_t p = 0; p < schedule.phases.size() && !full(); ++p) {
    if (const TranslationOrbits *o = orbits.of(schedule.phases[p]))
      if (verifyByOrbits(schedule.phases[p], *o))
        continue;
    llvm::ArrayRef<Transfer> ts = read[p].transfers;
    for (size_t i = 0; i < ts.size() && !full(); ++i) {
      const Transfer &t = ts[i];
      // A relaying transfer's bytes are its chunks' (a barrier's, or a
      // v-collective's empty chunks, have none): the replay checks them.
      bool badSize = chunks_ ? t.bytes < 0 : t.bytes <= 0;
      if (t.src < 0 || t.dst < 0 || t.src >= numRanks || t.dst >= numRanks ||
          badSize) {
        ScheduleViolation v =
            transferViolation(ViolationKind::BadTransfer, p, i, t);
        v.message = llvm::formatv("phase {0}: transfer {1} ({2} -> {3}, {4} "
                                  "bytes): {5}",
                                  p, i, t.src, t.dst, t.bytes,
                                  badSize ? "size must be positive"
                                          : "rank out of range")
                        .str();
        report(std::move(v));
        continue;
      }
      // A local copy (src == dst) is harmless and needs no accounting.
      if (t.src == t.dst)
        continue;
      NodeId sn = topo.nodeOfRank(t.src), dn = topo.nodeOfRank(t.dst);
      TieMask allowed = topo.tieMask(sn, dn);
      if (t.ties & ~allowed) {
        ScheduleViolation v =
            transferViolation(ViolationKind::BadRoute, p, i, t);
        v.message = llvm::formatv("phase {0}: transfer {1} ({2} -> {3}) takes "
                                  "the longer way round (tie mask {4:x} where "
                                  "only {5:x} has a tie)",
                                  p, i, t.src, t.dst, t.ties, allowed)
                        .str();
        report(std::move(v));
      }
      // A relaying transfer's contents are the chunk replay's to check.
      if (!chunks_) {
        int64_t di = findDemand(t.src, t.dst);
        if (di >= 0) {
          count(di, t.bytes);
        } else {
          ScheduleViolation v =
              transferViolation(ViolationKind::Unrequested, p, i, t);
          v.message = llvm::formatv("phase {0}: transfer {1} ({2} -> {3}) "
                                    "delivers {4} bytes nobody asked for",
                                    p, i, t.src, t.dst, t.bytes)
                          .str();
          report(std::move(v));
        }
      }
      topo.route(sn, dn, t.ties & allowed, route);
      if (sn != dn)
        phaseCost.add(sn, dn, route, t.bytes);
      for (LinkId l : route) {
        if (owner[l] < 0) {
          owner[l] = t.src;
          ownerIndex[l] = i;
          touched.push_back(l);
          continue;
        }
        if (owner[l] == t.src)
          continue;
        const Transfer &a = ts[ownerIndex[l]];
        ScheduleViolation v =
            transferViolation(ViolationKind::Congestion, p, i, t);
        v.link = l;
        v.transferA = ownerIndex[l];
        v.transferB = i;
        v.message =
            llvm::formatv("phase {0}: link {1} carries source ranks {2} "
                          "(transfer {3}: {2} -> {4}) and {5} (transfer {6}: "
                          "{5} -> {7})",
                          p, topo.describeLink(l), a.src, ownerIndex[l], a.dst,
                          t.src, i, t.dst)
                .str();
        report(std::move(v));
        break; // one report per transfer is enough
      }
    }
    for (LinkId l : touched)
      owner[l] = -1;
    touched.clear();
    time += phaseCost.finish();
  }
  if (full())
    return failure();

  if (chunks_)
    replayChunks(*chunks_, schedule, numRanks, violations,
                 maxViolations - (violations.size() - before),
                 ReplayRules::Phasec);

  bool exact = again.empty() && pieces.empty();
  for (size_t i = 0; i < demands.size() && !full(); ++i) {
    bool delivered1 = once[i / 64] >> (i % 64) & 1;
    if (exact) {
      // Only demands without their bit need a look: 64 at a time.
      if (i % 64 == 0 && i + 64 <= demands.size() && once[i / 64] == ~0ull) {
        i += 63;
        continue;
      }
      if (delivered1)
        continue;
    }
    const Demand d = demands[i];
    // Saturating: a pair delivered many times over is a duplicate all the
    // same.
    int64_t whole = delivered1 ? 1 + again.lookup(static_cast<int64_t>(i)) : 0;
    int64_t delivered = 0;
    if (llvm::MulOverflow(whole, d.bytes, delivered))
      delivered = INT64_MAX;
    if (auto it = pieces.find(static_cast<int64_t>(i)); it != pieces.end())
      if (llvm::AddOverflow(delivered, it->second, delivered))
        delivered = INT64_MAX;
    if (delivered == d.bytes)
      continue;
    bool less = delivered < d.bytes;
    ScheduleViolation v{less ? ViolationKind::Incomplete
                             : ViolationKind::Duplicate};
    v.src = d.src;
    v.dst = d.dst;
    v.message = llvm::formatv("pair {0} -> {1} receives {2} bytes, expected "
                              "{3}{4}",
                              d.src, d.dst, delivered, d.bytes,
                              less ? "" : " (delivered more than once)")
                    .str();
    report(std::move(v));
  }

  if (schedule.bound.time > time * (1 + 1e-9) + 1e-300) {
    ScheduleViolation v{ViolationKind::Bound};
    v.message = llvm::formatv("the recorded lower bound {0:e} s exceeds the "
                              "schedule time {1:e} s",
                              schedule.bound.time, time)
                    .str();
    report(std::move(v));
  }
  if (schedule.bound.minPhases > static_cast<int64_t>(schedule.phases.size())) {
    ScheduleViolation v{ViolationKind::Bound};
    v.message = llvm::formatv("the recorded lower bound of {0} phases exceeds "
                              "the schedule's {1} phases",
                              schedule.bound.minPhases, schedule.phases.size())
                    .str();
    report(std::move(v));
  }
  return success(violations.size() == before);
}
