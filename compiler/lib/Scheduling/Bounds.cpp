//===- Bounds.cpp - Proven lower bounds on schedule time ------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// See Bounds.h for why each bound holds for every schedule. The link-load
/// bound routes every demand once (no allocation per demand), so it costs
/// O(demands x hops + links).
///
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Bounds.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace phasec;

namespace {
/// A candidate bound and the bandwidth of the resource that yields it (to
/// express it in blocks).
struct Candidate {
  LowerBound bound;
  double bandwidth = 0;
};
} // namespace

/// Forced per-link load, and for tori the tie bytes per ring, keyed
/// dim * numNodes + (first node of the ring).
static void computeLoads(const Problem &problem, std::vector<double> &load,
                         std::vector<double> *ringTies,
                         int64_t *minPhases = nullptr) {
  const Topology &topo = problem.topology();
  load.assign(topo.numLinks(), 0.0);
  bool torus = topo.kind() == TopologyKind::Torus;
  if (ringTies)
    ringTies->assign(torus ? topo.numDims() * topo.numNodes() : 0, 0.0);
  llvm::SmallVector<int64_t, 8> strides;
  int64_t stride = 1;
  for (unsigned e = 0; e < topo.numDims(); ++e) {
    strides.push_back(stride);
    stride *= topo.extent(e);
  }
  // Distinct forced sources per link: demands come sorted by source, so a
  // per-link "last source" stamp counts each source once.
  std::vector<RankId> lastSource;
  std::vector<int32_t> sources;
  if (minPhases) {
    lastSource.assign(topo.numLinks(), -1);
    sources.assign(topo.numLinks(), 0);
  }
  auto addForced = [&](LinkId l, double bytes, RankId src) {
    load[l] += bytes;
    if (minPhases && lastSource[l] != src) {
      lastSource[l] = src;
      ++sources[l];
    }
  };
  llvm::SmallVector<LinkId, 64> route;
  for (const Demand &d : problem.transfers()) {
    NodeId s = topo.nodeOfRank(d.src), t = topo.nodeOfRank(d.dst);
    if (s == t)
      continue;
    double bytes = static_cast<double>(d.bytes);
    TieMask mask = topo.tieMask(s, t);
    topo.route(s, t, 0, route);
    if (!mask) {
      for (LinkId l : route)
        addForced(l, bytes, d.src);
      continue;
    }
    TieMask seen = 0;
    for (LinkId l : route) {
      const Link &link = topo.link(l);
      unsigned dim = static_cast<unsigned>(link.dim);
      if (!((mask >> dim) & 1)) {
        addForced(l, bytes, d.src);
        continue;
      }
      // The whole dim segment lies on one ring; count it once.
      if ((seen >> dim) & 1)
        continue;
      seen |= TieMask(1) << dim;
      if (ringTies) {
        int64_t u = link.src;
        int64_t base = u - topo.coord(u, dim) * strides[dim];
        (*ringTies)[dim * topo.numNodes() + base] += bytes;
      }
    }
  }
  if (minPhases) {
    *minPhases = 0;
    for (int32_t n : sources)
      *minPhases = std::max<int64_t>(*minPhases, n);
  }
}

std::vector<double> phasec::forcedLinkLoad(const Problem &problem) {
  std::vector<double> load;
  computeLoads(problem, load, nullptr);
  return load;
}

static std::string linkName(const Topology &topo, LinkId l) {
  const Link &link = topo.link(l);
  if (link.cls == LinkClass::Network)
    return llvm::formatv("{0}->{1}, dim {2} {3}", link.src, link.dst,
                         int(link.dim), link.dir > 0 ? "+" : "-")
        .str();
  return llvm::formatv("{0} link {1}->{2}", stringifyLinkClass(link.cls),
                       link.src, link.dst)
      .str();
}

static Candidate linkCandidate(const Problem &problem) {
  const Topology &topo = problem.topology();
  std::vector<double> load, ringTies;
  int64_t minPhases = 0;
  computeLoads(problem, load, &ringTies, &minPhases);
  Candidate best;
  best.bound.minPhases = minPhases;
  LinkId worst = kNoLink;
  for (size_t l = 0; l < load.size(); ++l) {
    if (load[l] == 0)
      continue;
    double t = load[l] / topo.link(l).bandwidth;
    if (t > best.bound.time) {
      best.bound.time = t;
      best.bandwidth = topo.link(l).bandwidth;
      worst = static_cast<LinkId>(l);
    }
  }
  if (worst != kNoLink)
    best.bound.reason =
        "max directed-link load (" + linkName(topo, worst) + ")";
  if (topo.kind() != TopologyKind::Torus)
    return best;

  // Rings: forced load plus tie bytes * k/2 spread over the 2k links.
  int64_t stride = 1;
  for (unsigned d = 0; d < topo.numDims(); ++d) {
    int64_t k = topo.extent(d);
    if (k % 2 == 0) {
      for (NodeId base = 0; base < topo.numNodes(); ++base) {
        if (topo.coord(base, d) != 0)
          continue;
        double ties = ringTies[d * topo.numNodes() + base];
        if (ties == 0)
          continue;
        double sum = ties * static_cast<double>(k / 2);
        double bw = 0;
        for (int64_t x = 0; x < k; ++x) {
          NodeId n = static_cast<NodeId>(base + x * stride);
          for (int dir : {+1, -1}) {
            LinkId l = topo.neighborLink(n, d, dir);
            sum += load[l];
            bw = topo.link(l).bandwidth;
          }
        }
        double t = sum / static_cast<double>(2 * k) / bw;
        if (t > best.bound.time * (1 + 1e-12)) {
          best.bound.time = t;
          best.bandwidth = bw;
          best.bound.reason = llvm::formatv("max directed-link load, ties "
                                            "split evenly (ring of dim {0} "
                                            "through node {1})",
                                            d, base)
                                  .str();
        }
      }
    }
    stride *= k;
  }
  return best;
}

static Candidate injectionCandidate(const Problem &problem,
                                    const BoundOptions &options) {
  const Topology &topo = problem.topology();
  Candidate best;
  double bw = topo.desc().injectionBandwidth;
  if (bw <= 0 && options.onePort)
    bw = topo.isPercs() ? topo.maxBandwidth() : topo.desc().linkBandwidth;
  if (bw <= 0)
    return best;
  std::vector<double> sent(topo.numNodes(), 0.0), recv(topo.numNodes(), 0.0);
  for (const Demand &d : problem.transfers()) {
    NodeId s = topo.nodeOfRank(d.src), t = topo.nodeOfRank(d.dst);
    if (s == t)
      continue;
    sent[s] += static_cast<double>(d.bytes);
    recv[t] += static_cast<double>(d.bytes);
  }
  NodeId worst = -1;
  bool isSend = true;
  double most = 0;
  for (NodeId n = 0; n < topo.numNodes(); ++n) {
    if (sent[n] > most) {
      most = sent[n];
      worst = n;
      isSend = true;
    }
    if (recv[n] > most) {
      most = recv[n];
      worst = n;
      isSend = false;
    }
  }
  if (worst < 0)
    return best;
  best.bound.time = most / bw;
  best.bandwidth = bw;
  best.bound.reason = llvm::formatv("injection bandwidth ({0} of node {1})",
                                    isSend ? "bytes sent" : "bytes received",
                                    worst)
                          .str();
  return best;
}

/// Blocks: time in units of one uniform block over the binding resource.
static LowerBound finish(const Problem &problem, Candidate c) {
  if (auto b = problem.transfers().uniformBytes(); b && c.bandwidth > 0) {
    double blocks = c.bound.time * c.bandwidth / static_cast<double>(*b);
    // Undo rounding noise: loads are sums of integers.
    double r = std::round(blocks);
    c.bound.blocks = std::fabs(blocks - r) < 1e-9 * std::max(1.0, r) ? r
                                                                      : blocks;
  }
  return c.bound;
}

LowerBound phasec::linkLoadBound(const Problem &problem) {
  return finish(problem, linkCandidate(problem));
}

LowerBound phasec::injectionBound(const Problem &problem,
                                  const BoundOptions &options) {
  return finish(problem, injectionCandidate(problem, options));
}

LowerBound phasec::computeLowerBound(const Problem &problem,
                                     const BoundOptions &options) {
  Candidate link = linkCandidate(problem);
  Candidate inj = injectionCandidate(problem, options);
  inj.bound.minPhases = link.bound.minPhases;
  return finish(problem, inj.bound.time > link.bound.time ? inj : link);
}
