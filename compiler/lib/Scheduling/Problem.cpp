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
#include "phasec/Scheduling/Bounds.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

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
  return i < 0 ? 0 : demands_[i].bytes;
}

int64_t TransferSet::totalBytes() const {
  int64_t total = 0;
  for (const Demand &d : demands_)
    total += d.bytes;
  return total;
}

std::optional<int64_t> TransferSet::uniformBytes() const {
  if (demands_.empty())
    return std::nullopt;
  int64_t b = demands_.front().bytes;
  for (const Demand &d : demands_)
    if (d.bytes != b)
      return std::nullopt;
  return b;
}

RankId TransferSet::maxRank() const {
  RankId m = -1;
  for (const Demand &d : demands_)
    m = std::max({m, d.src, d.dst});
  return m;
}

bool TransferSet::operator==(const TransferSet &o) const {
  assert(canonical_ && o.canonical_ && "compare canonical sets only");
  return demands_.size() == o.demands_.size() &&
         std::equal(demands_.begin(), demands_.end(), o.demands_.begin(),
                    [](const Demand &a, const Demand &b) {
                      return a.src == b.src && a.dst == b.dst &&
                             a.bytes == b.bytes;
                    });
}

//===----------------------------------------------------------------------===//
// Schedule
//===----------------------------------------------------------------------===//

size_t Schedule::numTransfers() const {
  size_t n = 0;
  for (const Phase &p : phases)
    n += p.transfers.size();
  return n;
}

void Schedule::canonicalize() {
  llvm::erase_if(phases, [](const Phase &p) { return p.transfers.empty(); });
  auto less = [](const Transfer &a, const Transfer &b) {
    if (a.src != b.src)
      return a.src < b.src;
    if (a.dst != b.dst)
      return a.dst < b.dst;
    if (a.ties != b.ties)
      return a.ties < b.ties;
    return a.bytes < b.bytes;
  };
  for (Phase &p : phases) {
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

bool phasec::isRelaying(const Schedule &schedule) {
  return llvm::any_of(schedule.phases,
                      [](const Phase &p) { return !p.chunks.empty(); });
}

bool phasec::forwardsNothing(const Schedule &schedule) {
  if (!isRelaying(schedule))
    return false;
  // (rank, chunk) pairs received so far.
  llvm::DenseSet<std::pair<RankId, int64_t>> received;
  for (const Phase &phase : schedule.phases) {
    // A phase's sends read the state at its start.
    for (auto [i, t] : llvm::enumerate(phase.transfers))
      if (i < phase.chunks.size())
        for (int64_t c : phase.chunks[i].ids)
          if (received.contains({t.src, c}))
            return false;
    for (auto [i, t] : llvm::enumerate(phase.transfers))
      if (i < phase.chunks.size())
        for (int64_t c : phase.chunks[i].ids)
          received.insert({t.dst, c});
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Problem
//===----------------------------------------------------------------------===//

Problem::Problem(const Topology &topo, TransferSet transfers)
    : Problem(topo, std::move(transfers), CostModel(topo)) {}

Problem::Problem(const Topology &topo, TransferSet transfers, CostModel model)
    : topo_(&topo), transfers_(std::move(transfers)), model_(model) {
  assert(&model.topology() == &topo && "cost model of another machine");
  transfers_.canonicalize();
}

Problem::Problem(const Topology &topo, ChunkSpec chunks, CostModel model)
    : topo_(&topo), model_(model), chunks_(std::move(chunks)) {
  assert(&model.topology() == &topo && "cost model of another machine");
}

LowerBound Problem::bound() const { return computeLowerBound(*this); }

ScheduleCost Problem::cost(const Schedule &schedule) const {
  ScheduleCost cost;
  cost.time = model_.time(schedule);
  cost.bound = bound();
  cost.gap = CostModel::gap(cost.time, cost.bound.time);
  cost.timeOptimal = CostModel::meetsBound(cost.time, cost.bound.time);
  cost.phaseOptimal =
      static_cast<int64_t>(schedule.phases.size()) <= cost.bound.minPhases;
  cost.machine = model_.machineTime(schedule, members(), chunks_.has_value());
  cost.machineBound = machineBoundAbove(cost.bound.time);
  return cost;
}

std::vector<RankId> Problem::members() const {
  if (chunks_)
    return chunks_->group;
  std::vector<RankId> ranks;
  for (const Demand &d : transfers_) {
    ranks.push_back(d.src);
    ranks.push_back(d.dst);
  }
  llvm::sort(ranks);
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

double Problem::machineBound() const { return machineBoundAbove(bound().time); }

double Problem::machineBoundAbove(double bandwidth) const {
  const TopologyDesc &d = topo_->desc();
  double s = d.setupCost;
  if (chunks_) {
    int64_t n = chunks_->numMembers();
    int64_t rounds = 0;
    while ((int64_t(1) << rounds) < n)
      ++rounds;
    return std::max(bandwidth, static_cast<double>(rounds) * s);
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
  for (const auto &entry : perSource)
    result = std::max(result, static_cast<double>(entry.second.first) * s +
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
  llvm::ArrayRef<Demand> demands = transfers_.demands();
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

  // Row index: demands of source s are demands[rowStart[s], rowStart[s+1]).
  std::vector<int64_t> rowStart(numRanks + 1, 0);
  bool rangeOk = true;
  for (const Demand &d : demands) {
    if (d.src < 0 || d.src >= numRanks || d.dst < 0 || d.dst >= numRanks) {
      rangeOk = false; // check() fails; fall back to plain binary search
      continue;
    }
    ++rowStart[d.src + 1];
  }
  for (int64_t r = 0; r < numRanks; ++r)
    rowStart[r + 1] += rowStart[r];
  auto findDemand = [&](RankId s, RankId d) -> int64_t {
    if (!rangeOk)
      return transfers_.indexOf(s, d);
    const Demand *b = demands.data() + rowStart[s];
    const Demand *e = demands.data() + rowStart[s + 1];
    // Dense rows (all-to-all) index directly.
    if (e - b == numRanks - 1)
      return rowStart[s] + (d < s ? d : d - 1);
    const Demand *it = std::lower_bound(
        b, e, d, [](const Demand &x, RankId v) { return x.dst < v; });
    if (it == e || it->dst != d)
      return -1;
    return it - demands.data();
  };

  std::vector<int64_t> delivered(demands.size(), 0);
  std::vector<RankId> owner(topo.numLinks(), -1);
  std::vector<int64_t> ownerIndex(topo.numLinks(), -1);
  std::vector<LinkId> touched;
  CostModel::PhaseCost phaseCost(model_);
  llvm::SmallVector<LinkId, 64> route;
  double time = 0;

  for (size_t p = 0; p < schedule.phases.size() && !full(); ++p) {
    llvm::ArrayRef<Transfer> ts = schedule.phases[p].transfers;
    for (size_t i = 0; i < ts.size() && !full(); ++i) {
      const Transfer &t = ts[i];
      // Only a barrier's chunks have no bytes.
      bool badSize = chunks_ && chunks_->chunkBytes == 0 ? t.bytes != 0
                                                          : t.bytes <= 0;
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
          delivered[di] += t.bytes;
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
                 maxViolations - (violations.size() - before));

  for (size_t i = 0; i < demands.size() && !full(); ++i) {
    const Demand &d = demands[i];
    if (delivered[i] == d.bytes)
      continue;
    bool less = delivered[i] < d.bytes;
    ScheduleViolation v{less ? ViolationKind::Incomplete
                             : ViolationKind::Duplicate};
    v.src = d.src;
    v.dst = d.dst;
    v.message = llvm::formatv("pair {0} -> {1} receives {2} bytes, expected "
                              "{3}{4}",
                              d.src, d.dst, delivered[i], d.bytes,
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
