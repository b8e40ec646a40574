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

#include "BoundsInternal.h"
#include "ChunkReplay.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace phasec;

namespace {
/// A candidate bound and the bandwidth of the resource that yields it (to
/// express it in blocks).
struct Candidate {
  LowerBound bound;
  double bandwidth = 0;
};
} // namespace

/// Calls `f(demand, srcNode, dstNode)` for every demand of `problem` whose
/// ranks sit on different nodes, in the demands' order (sorted by source).
/// Only those load links or ports; a rank out of range is Problem::check()'s
/// to reject, so the bounds pass over it.
template <typename F>
static void forEachInterNodeDemand(const Problem &problem, F f) {
  const Topology &topo = problem.topology();
  const int64_t numRanks = topo.numRanks();
  for (const Demand &d : problem.transfers()) {
    if (d.src < 0 || d.dst < 0 || d.src >= numRanks || d.dst >= numRanks)
      continue;
    NodeId s = topo.nodeOfRank(d.src), t = topo.nodeOfRank(d.dst);
    if (s != t)
      f(d, s, t);
  }
}

/// Walks the links of a route whose tie dimensions are `mask`: `forced(l)`
/// for every link outside them, `tie(link)` once per tie dimension, at the
/// link where its segment starts (the whole segment lies on one ring and
/// may go either way).
template <typename Forced, typename Tie>
static void walkRoute(const Topology &topo, llvm::ArrayRef<LinkId> route,
                      TieMask mask, Forced forced, Tie tie) {
  TieMask seen = 0;
  for (LinkId l : route) {
    const Link &link = topo.link(l);
    unsigned dim = static_cast<unsigned>(link.dim);
    if (!((mask >> dim) & 1)) {
      forced(l);
      continue;
    }
    if ((seen >> dim) & 1)
      continue;
    seen |= TieMask(1) << dim;
    tie(link);
  }
}

bool phasec::detail::isCompleteExchange(const Problem &problem) {
  const std::vector<RankId> *members = problem.transfers().allPairsMembers();
  return members &&
         static_cast<int64_t>(members->size()) == problem.topology().numRanks();
}

void phasec::detail::bytesOffNode(const Problem &problem,
                                  std::vector<double> &sent,
                                  std::vector<double> &received) {
  const Topology &topo = problem.topology();
  sent.assign(topo.numNodes(), 0.0);
  received.assign(topo.numNodes(), 0.0);
  if (isCompleteExchange(problem)) {
    // Every node sends and receives its ranks' bytes to and from the
    // ranks of every other node.
    int64_t c = topo.ranksPerNode(), others = topo.numRanks() - c;
    double bytes = problem.transfers().empty()
                       ? 0.0
                       : static_cast<double>(problem.transfers()[0].bytes);
    std::fill(sent.begin(), sent.end(),
              static_cast<double>(c * others) * bytes);
    received = sent;
    return;
  }
  forEachInterNodeDemand(problem, [&](const Demand &d, NodeId s, NodeId t) {
    sent[s] += static_cast<double>(d.bytes);
    received[t] += static_cast<double>(d.bytes);
  });
}

/// computeLoads for a complete exchange on a torus. Translations of a torus
/// keep its routes and map the demands onto themselves, so every link of
/// one dimension and direction carries the same load (and the same number
/// of distinct sources, and every node starts the same tie bytes per
/// dimension): the demands of the ranks of node 0 give them, each link of
/// a route standing for its translate through every link of its class.
/// 20x20x20: 8 K routes instead of 64 M.
static void symmetricLoads(const Problem &problem, std::vector<double> &load,
                           std::vector<double> *ringTies,
                           std::vector<int32_t> *linkSources) {
  const Topology &topo = problem.topology();
  const unsigned D = topo.numDims();
  const int64_t c = topo.ranksPerNode(), numRanks = topo.numRanks();
  auto slot = [&](const Link &l) { return l.dim * 2 + (l.dir < 0 ? 1 : 0); };
  std::vector<double> slotLoad(2 * D, 0.0), slotTies(D, 0.0);
  // Per class, the translates that cross a given link, as (where the
  // route's link starts, core of the source): distinct ones are distinct
  // sources.
  std::vector<std::vector<int64_t>> slotSources(2 * D);
  llvm::SmallVector<LinkId, 64> route;
  for (RankId src = 0; src < c; ++src)
    for (RankId dst = static_cast<RankId>(c); dst < numRanks; ++dst) {
      Demand d = problem.transfers()[problem.transfers().indexOf(src, dst)];
      double bytes = static_cast<double>(d.bytes);
      NodeId t = topo.nodeOfRank(dst);
      topo.route(0, t, 0, route);
      walkRoute(
          topo, route, topo.tieMask(0, t),
          [&](LinkId l) {
            const Link &link = topo.link(l);
            slotLoad[slot(link)] += bytes;
            if (linkSources)
              slotSources[slot(link)].push_back(int64_t(link.src) * c + src);
          },
          [&](const Link &link) { slotTies[link.dim] += bytes; });
    }
  for (size_t l = 0; l < load.size(); ++l)
    load[l] = slotLoad[slot(topo.link(static_cast<LinkId>(l)))];
  if (ringTies)
    for (unsigned dim = 0; dim < D; ++dim)
      std::fill_n(ringTies->begin() + dim * topo.numNodes(), topo.numNodes(),
                  slotTies[dim]);
  if (!linkSources)
    return;
  std::vector<int32_t> distinct(2 * D, 0);
  for (unsigned k = 0; k < 2 * D; ++k) {
    llvm::sort(slotSources[k]);
    distinct[k] = static_cast<int32_t>(
        std::unique(slotSources[k].begin(), slotSources[k].end()) -
        slotSources[k].begin());
  }
  for (size_t l = 0; l < linkSources->size(); ++l)
    (*linkSources)[l] = distinct[slot(topo.link(static_cast<LinkId>(l)))];
}

/// Forced per-link load, and for tori the tie bytes per tie segment, keyed
/// dim * numNodes + (the node where the segment starts). `paced`, if given,
/// receives per D link (PERCS) the seconds of its transfers each at the
/// slowest link of its way to it (see pacedPercsCandidate).
static void computeLoads(const Problem &problem, std::vector<double> &load,
                         std::vector<double> *ringTies,
                         std::vector<int32_t> *linkSources = nullptr,
                         std::vector<double> *paced = nullptr) {
  const Topology &topo = problem.topology();
  load.assign(topo.numLinks(), 0.0);
  if (paced)
    paced->assign(topo.numLinks(), 0.0);
  bool torus = topo.kind() == TopologyKind::Torus;
  if (ringTies)
    ringTies->assign(torus ? topo.numDims() * topo.numNodes() : 0, 0.0);
  if (linkSources)
    linkSources->assign(topo.numLinks(), 0);
  if (torus && !paced && detail::isCompleteExchange(problem)) {
    symmetricLoads(problem, load, ringTies, linkSources);
    return;
  }
  // Distinct forced sources per link: demands come sorted by source, so a
  // per-link "last source" stamp counts each source once.
  std::vector<RankId> lastSource;
  if (linkSources)
    lastSource.assign(topo.numLinks(), -1);
  auto addForced = [&](LinkId l, double bytes, RankId src) {
    load[l] += bytes;
    if (linkSources && lastSource[l] != src) {
      lastSource[l] = src;
      ++(*linkSources)[l];
    }
  };
  llvm::SmallVector<LinkId, 64> route;
  forEachInterNodeDemand(problem, [&](const Demand &d, NodeId s, NodeId t) {
    double bytes = static_cast<double>(d.bytes);
    TieMask mask = topo.tieMask(s, t);
    topo.route(s, t, 0, route);
    if (!mask) {
      double slowest = std::numeric_limits<double>::infinity();
      for (LinkId l : route) {
        addForced(l, bytes, d.src);
        if (!paced)
          continue;
        const Link &link = topo.link(l);
        slowest = std::min(slowest, link.bandwidth);
        if (link.cls == LinkClass::D)
          (*paced)[l] += bytes / slowest;
      }
      return;
    }
    walkRoute(
        topo, route, mask, [&](LinkId l) { addForced(l, bytes, d.src); },
        [&](const Link &link) {
          if (ringTies)
            (*ringTies)[link.dim * topo.numNodes() + link.src] += bytes;
        });
  });
}

std::vector<double> phasec::forcedLinkLoad(const Problem &problem) {
  std::vector<double> load;
  computeLoads(problem, load, nullptr);
  return load;
}

/// PERCS between supernodes: a phase gives a D link to one source rank,
/// whose transfers over it all come the same way (source node, its link to
/// the cable's gateway, the cable), so the phase lasts at least their bytes
/// over the slowest link of that way. A D link fed over 5 GB/s LR links is
/// busy at most half the time: with one cable per supernode pair, 24 of 32
/// nodes reach it over LR and no schedule comes within 1.75 of the plain
/// link load (the paced load is that bound).
static void pacedPercsCandidate(const Topology &topo,
                                const std::vector<double> &paced,
                                Candidate &best) {
  for (size_t l = 0; l < paced.size(); ++l)
    if (paced[l] > best.bound.time * (1 + 1e-12)) {
      best.bound.time = paced[l];
      best.bandwidth = topo.link(l).bandwidth;
      best.bound.reason = "max directed-link load on " + topo.describeLink(l) +
                          ", paced by the slower links that lead to it";
    }
}

/// The link-load bound; `linkSources`, if given, receives the distinct
/// forced sources per link from the same routing pass (the phase bound's
/// input: routing every demand is the bound's main cost on large tori).
static Candidate linkCandidate(const Problem &problem,
                               std::vector<int32_t> *linkSources = nullptr) {
  const Topology &topo = problem.topology();
  std::vector<double> load, ringTies, paced;
  bool percsPairs = topo.isPercs() && topo.numSupernodes() > 1;
  computeLoads(problem, load, &ringTies, linkSources,
               percsPairs ? &paced : nullptr);
  Candidate best;
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
    best.bound.reason = "max directed-link load on " + topo.describeLink(worst);
  if (percsPairs)
    pacedPercsCandidate(topo, paced, best);
  if (topo.kind() != TopologyKind::Torus)
    return best;

  // Rings. A tie segment from node u of a ring of k travels k/2 hops, all
  // "+" or all "-". Whatever the choices, the busiest "+" link carries at
  // least the average over the k "+" links, (F+ + T+ * k/2) / k, and likewise
  // for "-", where T+ + T- = T (all tie bytes of the ring). The bound is the
  // minimum over real splits of the larger average: exact for uniform
  // all-to-all (both averages equal the spec's "ties split evenly"). In a
  // ring of 2, the ties from one node can only use that node's "+" and "-"
  // links, so each node's pair of links is balanced on its own.
  auto consider = [&](double t, double bw, unsigned d, NodeId base) {
    if (t <= best.bound.time * (1 + 1e-12))
      return;
    best.bound.time = t;
    best.bandwidth = bw;
    best.bound.reason = llvm::formatv("max directed-link load, ties split "
                                      "evenly (ring of dim {0} through node "
                                      "{1})",
                                      d, base)
                            .str();
  };
  /// min over x in [0, T] of max((a + x h) / n, (b + (T - x) h) / n).
  auto balance = [](double a, double b, double ties, double h, double n) {
    double x = (b - a + ties * h) / (2 * h);
    x = std::clamp(x, 0.0, ties);
    return std::max((a + x * h) / n, (b + (ties - x) * h) / n);
  };
  int64_t stride = 1;
  for (unsigned d = 0; d < topo.numDims(); ++d) {
    int64_t k = topo.extent(d);
    if (k % 2 == 0) {
      for (NodeId base = 0; base < topo.numNodes(); ++base) {
        if (topo.coord(base, d) != 0)
          continue;
        double ties = 0, plus = 0, minus = 0, bw = 0;
        for (int64_t x = 0; x < k; ++x) {
          NodeId n = static_cast<NodeId>(base + x * stride);
          double t = ringTies[d * topo.numNodes() + n];
          LinkId lp = topo.neighborLink(n, d, +1);
          LinkId lm = topo.neighborLink(n, d, -1);
          bw = topo.link(lp).bandwidth;
          if (k == 2) {
            if (t > 0)
              consider(balance(load[lp], load[lm], t, 1, 1) / bw, bw, d, base);
            continue;
          }
          ties += t;
          plus += load[lp];
          minus += load[lm];
        }
        if (k > 2 && ties > 0)
          consider(balance(plus, minus, ties, static_cast<double>(k / 2),
                           static_cast<double>(k)) /
                       bw,
                   bw, d, base);
      }
    }
    stride *= k;
  }
  return best;
}

static Candidate injectionCandidate(const Problem &problem) {
  const Topology &topo = problem.topology();
  Candidate best;
  double bw = problem.costModel().injectionBandwidth();
  if (bw <= 0)
    return best;
  std::vector<double> sent, recv;
  detail::bytesOffNode(problem, sent, recv);
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
  best.bound.reason =
      llvm::formatv("injection bandwidth ({0} of node {1})",
                    isSend ? "bytes sent" : "bytes received", worst)
          .str();
  return best;
}

/// Blocks: time in units of one uniform block over the binding resource.
static LowerBound finish(const Problem &problem, Candidate c) {
  if (auto b = problem.transfers().uniformBytes(); b && c.bandwidth > 0) {
    double blocks = c.bound.time * c.bandwidth / static_cast<double>(*b);
    // Undo rounding noise: loads are sums of integers.
    double r = std::round(blocks);
    c.bound.blocks =
        std::fabs(blocks - r) < 1e-9 * std::max(1.0, r) ? r : blocks;
  }
  return c.bound;
}

/// The phase-count bound. A phase gives each directed link to one source
/// rank, so the phases number at least: the distinct sources forced over one
/// link; the distinct ranks of one node that send off-node, over the links
/// leaving the node; the distinct sources sending to one node from other
/// nodes, over the links entering it; and 1 for anything to move.
static void phaseCountBound(const Problem &problem,
                            llvm::ArrayRef<int32_t> linkSources,
                            LowerBound &bound) {
  const TransferSet &transfers = problem.transfers();
  if (transfers.empty())
    return;
  const Topology &topo = problem.topology();
  bound.minPhases = 1;
  bound.phasesReason = "the operation moves data";
  auto consider = [&](int64_t phases, const llvm::Twine &why) {
    if (phases <= bound.minPhases)
      return;
    bound.minPhases = phases;
    bound.phasesReason = why.str();
  };

  auto busiest = std::max_element(linkSources.begin(), linkSources.end());
  if (busiest != linkSources.end())
    consider(*busiest,
             llvm::Twine(*busiest) + " source ranks are routed over " +
                 topo.describeLink(
                     static_cast<LinkId>(busiest - linkSources.begin())));

  std::vector<int32_t> outDegree(topo.numNodes(), 0),
      inDegree(topo.numNodes(), 0);
  for (const Link &link : topo.links()) {
    ++outDegree[link.src];
    ++inDegree[link.dst];
  }
  // Demands come sorted by source: a "last source" stamp per node counts
  // each source once.
  std::vector<int32_t> senders(topo.numNodes(), 0),
      receivedFrom(topo.numNodes(), 0);
  std::vector<RankId> lastSource(topo.numNodes(), -1);
  RankId lastSender = -1;
  if (detail::isCompleteExchange(problem)) {
    // Every rank sends to every node but its own.
    int64_t c = topo.ranksPerNode(), others = topo.numRanks() - c;
    if (others > 0) {
      std::fill(senders.begin(), senders.end(), static_cast<int32_t>(c));
      std::fill(receivedFrom.begin(), receivedFrom.end(),
                static_cast<int32_t>(others));
    }
  } else {
    forEachInterNodeDemand(problem, [&](const Demand &d, NodeId s, NodeId t) {
      if (lastSender != d.src) {
        lastSender = d.src;
        ++senders[s];
      }
      if (lastSource[t] != d.src) {
        lastSource[t] = d.src;
        ++receivedFrom[t];
      }
    });
  }
  auto ceilDiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  for (NodeId n = 0; n < topo.numNodes(); ++n) {
    if (senders[n] > 0 && outDegree[n] > 0)
      consider(ceilDiv(senders[n], outDegree[n]),
               llvm::Twine(senders[n]) + " ranks of node " + llvm::Twine(n) +
                   " send over its " + llvm::Twine(outDegree[n]) + " links");
    if (receivedFrom[n] > 0 && inDegree[n] > 0)
      consider(ceilDiv(receivedFrom[n], inDegree[n]),
               llvm::Twine(receivedFrom[n]) + " source ranks send to node " +
                   llvm::Twine(n) + " over its " + llvm::Twine(inDegree[n]) +
                   " links");
  }
}

LowerBound phasec::linkLoadBound(const Problem &problem) {
  return finish(problem, linkCandidate(problem));
}

LowerBound phasec::injectionBound(const Problem &problem) {
  return finish(problem, injectionCandidate(problem));
}

/// The bound of a relaying collective (Problem with a ChunkSpec). Its
/// schedules choose their own routes and relays, so link loads bound
/// nothing; what holds is what every node must receive and send through its
/// port (the injection bandwidth, else the sum of its links):
/// - receive: a chunk some rank of the node must end with, whose required
///   contributions the node's ranks do not hold at the start, arrives over
///   the network at least once (chunk_bytes);
/// - send: a chunk with a contribution of a rank of the node that a rank of
///   another node needs and does not start with leaves the node at least
///   once;
/// - allreduce with one member per node: every member sends and receives at
///   least 2(n-1)/n of the data (Patarasuk and Yuan 2009), as the shared
///   verifier counts it.
/// The phase bound is 1: one source may drive every link in a phase (a root
/// can send to every member in one congestion-free phase), so ceil(log2 n)
/// holds only where a rank sends one message per phase, which phasec's
/// phases do not require.
static LowerBound relayBound(const Problem &problem, const ChunkSpec &spec) {
  const Topology &topo = problem.topology();
  LowerBound bound;
  const int64_t n = spec.numMembers(), C = spec.numChunks;
  if (n < 2 || spec.totalBytes() == 0)
    return bound;
  ChunkConditions cond = getChunkConditions(spec);
  const NodeId numNodes = topo.numNodes();
  std::vector<NodeId> nodeOf(n);
  for (int64_t i = 0; i < n; ++i)
    nodeOf[i] = topo.nodeOfRank(spec.group[i]);
  // Per node and chunk: the union of the tags its members start with.
  llvm::DenseMap<std::pair<NodeId, int64_t>, llvm::BitVector> start;
  for (int64_t i = 0; i < n; ++i)
    for (const HeldChunk &h : cond.before[i]) {
      llvm::BitVector &u = start[{nodeOf[i], h.chunk}];
      if (u.empty())
        u.resize(n);
      u |= cond.tags[h.tag];
    }
  // The contributions a requirement asks for; `any` (scatter) asks for the
  // chunk's one initial holder's.
  std::vector<llvm::BitVector> holders(C, llvm::BitVector(n));
  for (int64_t i = 0; i < n; ++i)
    for (const HeldChunk &h : cond.before[i])
      holders[h.chunk].set(i);
  std::vector<double> sent(numNodes, 0), recv(numNodes, 0);
  llvm::DenseSet<std::pair<NodeId, int64_t>> recvs;
  // Per chunk, every member whose contribution some other node lacks; each
  // such member's node sends the chunk at least once.
  std::vector<llvm::BitVector> leaving(C, llvm::BitVector(n));
  for (int64_t i = 0; i < n; ++i)
    for (const HeldChunk &want : cond.after[i]) {
      const llvm::BitVector &need =
          want.tag >= 0 ? cond.tags[want.tag] : holders[want.chunk];
      NodeId node = nodeOf[i];
      llvm::BitVector missing = need;
      auto it = start.find({node, want.chunk});
      if (it != start.end())
        missing.reset(it->second);
      if (missing.none())
        continue;
      if (recvs.insert({node, want.chunk}).second)
        recv[node] += spec.sizeOfChunk(want.chunk);
      leaving[want.chunk] |= missing;
    }
  llvm::DenseSet<std::pair<NodeId, int64_t>> sends;
  for (int64_t c = 0; c < C; ++c)
    for (int m : leaving[c].set_bits())
      if (sends.insert({nodeOf[m], c}).second)
        sent[nodeOf[m]] += spec.sizeOfChunk(c);
  std::vector<NodeId> distinct(nodeOf);
  llvm::sort(distinct);
  bool onePerNode =
      std::adjacent_find(distinct.begin(), distinct.end()) == distinct.end();
  if (spec.kind == CollectiveKind::Allreduce && onePerNode) {
    double least =
        2.0 * (n - 1) / n * static_cast<double>(spec.totalBytes());
    for (NodeId node : distinct) {
      sent[node] = std::max(sent[node], least);
      recv[node] = std::max(recv[node], least);
    }
  }
  cutSingletons(problem, sent, recv, bound);
  if (!sends.empty() || !recvs.empty()) {
    bound.minPhases = 1;
    bound.phasesReason = "the operation moves data";
  }
  return bound;
}

LowerBound phasec::computeLowerBound(const Problem &problem) {
  if (const ChunkSpec *spec = problem.chunkSpec()) {
    LowerBound bound = relayBound(problem, *spec);
    LowerBound cut = cutBound(problem);
    if (cut.time > bound.time * (1 + 1e-12)) {
      bound.time = cut.time;
      bound.reason = cut.reason;
    }
    bound.directTime = bound.time;
    bound.directReason = bound.reason;
    return bound;
  }
  std::vector<int32_t> linkSources;
  Candidate link = linkCandidate(problem, &linkSources);
  Candidate inj = injectionCandidate(problem);
  LowerBound bound =
      finish(problem, inj.bound.time > link.bound.time ? inj : link);
  phaseCountBound(problem, linkSources, bound);
  // The operation's: injection and cuts, whatever the routes. They hold for
  // direct schedules too, and beat the link load where it averages ties
  // over a ring that a few demands cannot fill (the blocks stay, a weaker
  // target for the one-block-per-phase algorithms).
  LowerBound cut = cutBound(problem);
  double any = std::max(cut.time, inj.bound.time);
  std::string anyReason =
      cut.time >= inj.bound.time ? cut.reason : inj.bound.reason;
  bound.directBlocks = bound.blocks;
  if (any > bound.time * (1 + 1e-9)) {
    bound.time = any;
    bound.reason = anyReason;
    bound.blocks = 0;
  }
  bound.directTime = bound.time;
  bound.directReason = bound.reason;
  // Where the cuts come to the direct bound (a torus's uniform all-to-all)
  // the direct reason and blocks stay.
  if (any < bound.directTime * (1 - 1e-9)) {
    bound.time = any;
    bound.reason = anyReason;
    bound.blocks = 0;
  }
  return bound;
}
