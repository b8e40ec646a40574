//===- CutBounds.cpp - Bounds that hold for every route and relay ---------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The cut bound of Bounds.h. A set S of nodes and the directed links that
/// leave it: whatever a schedule does (the machine's routes, others, relays
/// through third nodes, reductions on the way), every byte some rank outside
/// S needs and only S holds crosses those links at least once. So every
/// schedule takes at least (bytes that must leave S) / (bandwidth of the
/// links leaving S). The sets tried: each node alone (also over its
/// injection port), and, per way of grouping the nodes (a grid's coordinate
/// in one dimension, PERCS's supernodes and drawers), every cyclic window of
/// consecutive groups: on a ring the halves give the bisection, on a line
/// the prefixes. On a torus's uniform all-to-all the bisection equals the
/// link-load bound of the machine's routes, so a relaying all-to-all and the
/// direct one report one bound (issue 39).
///
/// What must leave S is counted per chunk, as the replay of schedule JSON /2
/// defines holding: a chunk leaves S if some member outside S must end with
/// a contribution that only members inside S hold at the start. Chunks (and
/// direct demands) with the same requirements seen by a grouping are summed
/// first, so a window costs O(distinct requirements), not O(chunks).
/// Groupings of more than 64 groups are not tried (the bound stays valid,
/// only weaker).
///
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Bounds.h"

#include "BoundsInternal.h"
#include "ChunkReplay.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace phasec;

namespace {

/// A way of grouping the nodes; the cuts are cyclic windows of groups.
struct Grouping {
  /// "the nodes at coordinate{s} {range} of dimension 1", "supernode{s}
  /// {range}": {s} is "s" for more than one group.
  std::string name;
  unsigned numGroups = 0;
  std::vector<uint8_t> groupOf;
};

/// A requirement seen by a grouping: the groups holding a contribution
/// (it must cross when every one of them is inside the cut) and the groups
/// of the members that need it (one of them outside).
using Requirement = std::pair<uint64_t, uint64_t>;
using Requirements = std::vector<Requirement>;

/// Bytes per set of requirements (a chunk's, a demand's).
using Flows = std::map<Requirements, double>;

constexpr unsigned kMaxGroups = 64;

std::vector<Grouping> groupings(const Topology &topo) {
  std::vector<Grouping> out;
  auto add = [&](std::string name, int64_t groups, auto groupOf) {
    if (groups < 2 || groups > kMaxGroups)
      return;
    Grouping &g = out.emplace_back();
    g.name = std::move(name);
    g.numGroups = static_cast<unsigned>(groups);
    g.groupOf.resize(topo.numNodes());
    for (NodeId n = 0; n < topo.numNodes(); ++n)
      g.groupOf[n] = static_cast<uint8_t>(groupOf(n));
  };
  if (topo.isPercs()) {
    add("supernode{s} {range}", topo.numSupernodes(),
        [&](NodeId n) { return topo.supernodeOf(n); });
    int64_t drawers = topo.numNodes() / topo.desc().nodesPerDrawer;
    if (drawers != topo.numSupernodes())
      add("drawer{s} {range}", drawers,
          [&](NodeId n) { return topo.drawerOf(n); });
    return out;
  }
  for (unsigned d = 0; d < topo.numDims(); ++d)
    add(llvm::formatv("the nodes at coordinate{{s} {{range} of dimension {0}",
                      d)
            .str(),
        topo.extent(d), [&](NodeId n) { return topo.coord(n, d); });
  return out;
}

/// The requirements of the direct demands: one per (source group,
/// destination group), from the given node to node.
Flows directFlows(const Problem &problem, const Grouping &g) {
  const Topology &topo = problem.topology();
  const unsigned G = g.numGroups;
  std::vector<double> bytes(G * G, 0.0);
  const TransferSet &ts = problem.transfers();
  if (detail::isCompleteExchange(problem) && !ts.empty()) {
    // Every rank to every other, alike: nodes per group suffice.
    std::vector<double> nodes(G, 0.0);
    for (NodeId n = 0; n < topo.numNodes(); ++n)
      nodes[g.groupOf[n]] += 1;
    double c = static_cast<double>(topo.ranksPerNode());
    double block = static_cast<double>(ts[0].bytes);
    for (unsigned a = 0; a < G; ++a)
      for (unsigned b = 0; b < G; ++b)
        if (a != b)
          bytes[a * G + b] = nodes[a] * nodes[b] * c * c * block;
  } else {
    const int64_t numRanks = topo.numRanks();
    for (const Demand &d : ts) {
      if (d.src < 0 || d.dst < 0 || d.src >= numRanks || d.dst >= numRanks)
        continue;
      unsigned a = g.groupOf[topo.nodeOfRank(d.src)];
      unsigned b = g.groupOf[topo.nodeOfRank(d.dst)];
      if (a != b)
        bytes[a * G + b] += static_cast<double>(d.bytes);
    }
  }
  Flows flows;
  for (unsigned a = 0; a < G; ++a)
    for (unsigned b = 0; b < G; ++b)
      if (bytes[a * G + b] > 0)
        flows[{{uint64_t(1) << a, uint64_t(1) << b}}] += bytes[a * G + b];
  return flows;
}

/// The requirements of each chunk of a relaying collective.
Flows chunkFlows(const Problem &problem, const ChunkSpec &spec,
                 const ChunkConditions &cond, const Grouping &g) {
  const Topology &topo = problem.topology();
  const int64_t n = spec.numMembers();
  std::vector<uint64_t> bitOf(n);
  for (int64_t i = 0; i < n; ++i)
    bitOf[i] = uint64_t(1) << g.groupOf[topo.nodeOfRank(spec.group[i])];
  // Per chunk: the groups holding each contribution, and per tag the
  // groups of the members that must end with it.
  std::vector<std::vector<std::pair<int64_t, int32_t>>> holding(spec.numChunks),
      wanting(spec.numChunks);
  for (int64_t i = 0; i < n; ++i) {
    for (const HeldChunk &h : cond.before[i])
      holding[h.chunk].push_back({i, h.tag});
    for (const HeldChunk &w : cond.after[i])
      wanting[w.chunk].push_back({i, w.tag});
  }
  Flows flows;
  // Per contribution; only the touched entries are reset (an all-to-all
  // has n * n chunks of one contribution each).
  std::vector<uint64_t> holders(n, 0), sinks(n, 0);
  std::vector<int> touched;
  for (int64_t c = 0; c < spec.numChunks; ++c) {
    if (wanting[c].empty())
      continue;
    for (int m : touched)
      holders[m] = sinks[m] = 0;
    touched.clear();
    uint64_t anyHolder = 0, anySink = 0;
    for (auto [i, tag] : holding[c]) {
      anyHolder |= bitOf[i];
      for (int m : cond.tags[tag].set_bits()) {
        if (!holders[m])
          touched.push_back(m);
        holders[m] |= bitOf[i];
      }
    }
    // Sinks by tag: one pass over a tag's members however many want it.
    llvm::DenseMap<int32_t, uint64_t> byTag;
    for (auto [i, tag] : wanting[c]) {
      if (tag < 0)
        anySink |= bitOf[i];
      else
        byTag[tag] |= bitOf[i];
    }
    for (auto [tag, groups] : byTag)
      for (int m : cond.tags[tag].set_bits()) {
        if (!holders[m] && !sinks[m])
          touched.push_back(m);
        sinks[m] |= groups;
      }
    Requirements reqs;
    // `any`: a copy of the chunk from whoever holds it.
    if (anySink && anyHolder)
      reqs.push_back({anyHolder, anySink});
    for (int m : touched)
      if (sinks[m] && holders[m])
        reqs.push_back({holders[m], sinks[m]});
    if (reqs.empty())
      continue;
    llvm::sort(reqs);
    reqs.erase(std::unique(reqs.begin(), reqs.end()), reqs.end());
    flows[std::move(reqs)] += static_cast<double>(spec.sizeOfChunk(c));
  }
  return flows;
}

struct Best {
  double time = 0;
  std::string reason;
};

void consider(Best &best, double bytes, double rate,
              llvm::function_ref<std::string()> what) {
  if (bytes <= 0 || rate <= 0 || bytes / rate <= best.time * (1 + 1e-12))
    return;
  best.time = bytes / rate;
  best.reason = what();
}

/// Every cyclic window of groups as a cut.
void windows(const Topology &topo, const Grouping &g, const Flows &flows,
             Best &best) {
  const unsigned G = g.numGroups;
  std::vector<double> cap(G * G, 0.0);
  std::vector<int64_t> numLinks(G * G, 0);
  for (const Link &link : topo.links()) {
    unsigned a = g.groupOf[link.src], b = g.groupOf[link.dst];
    if (a == b)
      continue;
    cap[a * G + b] += link.bandwidth;
    ++numLinks[a * G + b];
  }
  const uint64_t full = G == 64 ? ~uint64_t(0) : (uint64_t(1) << G) - 1;
  std::vector<std::pair<const Requirements *, double>> list;
  for (const auto &[reqs, bytes] : flows)
    list.push_back({&reqs, bytes});
  for (unsigned start = 0; start < G; ++start)
    for (unsigned len = 1; len < G; ++len) {
      uint64_t in = 0;
      for (unsigned k = 0; k < len; ++k)
        in |= uint64_t(1) << ((start + k) % G);
      const uint64_t out = full & ~in;
      double rate = 0;
      int64_t links = 0;
      for (unsigned a = 0; a < G; ++a)
        if ((in >> a) & 1)
          for (unsigned b = 0; b < G; ++b)
            if ((out >> b) & 1) {
              rate += cap[a * G + b];
              links += numLinks[a * G + b];
            }
      double bytes = 0;
      for (auto [reqs, b] : list)
        for (const Requirement &r : *reqs)
          if (!(r.first & out) && (r.second & out)) {
            bytes += b;
            break;
          }
      consider(best, bytes, rate, [&] {
        unsigned last = (start + len - 1) % G;
        std::string which = g.name;
        auto replace = [&](llvm::StringRef key, const std::string &with) {
          size_t at = which.find(key.str());
          if (at != std::string::npos)
            which.replace(at, key.size(), with);
        };
        replace("{s}", len == 1 ? "" : "s");
        replace("{range}", len == 1
                               ? std::to_string(start)
                               : llvm::formatv("{0}..{1}", start, last).str());
        return llvm::formatv("{0:F0} bytes must leave {1} over {2} link{3}, "
                             "whatever the routes",
                             bytes, which, links, links == 1 ? "" : "s")
            .str();
      });
    }
}

/// Each node alone: what must leave it and what must reach it, over its
/// links and its injection port.
void singletons(const Problem &problem, llvm::ArrayRef<double> sent,
                llvm::ArrayRef<double> received, Best &best) {
  const Topology &topo = problem.topology();
  std::vector<double> outRate(topo.numNodes(), 0), inRate(topo.numNodes(), 0);
  for (const Link &link : topo.links()) {
    outRate[link.src] += link.bandwidth;
    inRate[link.dst] += link.bandwidth;
  }
  double injection = problem.costModel().injectionBandwidth();
  for (NodeId node = 0; node < topo.numNodes(); ++node)
    for (int dir = 0; dir < 2; ++dir) {
      double links = dir ? inRate[node] : outRate[node];
      bool port = injection > 0 && injection < links;
      double bytes = dir ? received[node] : sent[node];
      consider(best, bytes, port ? injection : links, [&] {
        return llvm::formatv("{0} bytes node {1} must {2} through {3}", bytes,
                             node, dir ? "receive" : "send",
                             port ? "its injection port" : "its links")
            .str();
      });
    }
}

} // namespace

LowerBound phasec::cutBound(const Problem &problem) {
  const Topology &topo = problem.topology();
  Best best;
  const ChunkSpec *spec = problem.chunkSpec();
  std::optional<ChunkConditions> cond;
  if (spec)
    cond = getChunkConditions(*spec);
  else {
    // Each node alone, for the direct demands (relayBound counts a
    // relaying collective's).
    std::vector<double> sent, received;
    detail::bytesOffNode(problem, sent, received);
    singletons(problem, sent, received, best);
  }
  for (const Grouping &g : groupings(topo))
    windows(topo, g,
            spec ? chunkFlows(problem, *spec, *cond, g)
                 : directFlows(problem, g),
            best);
  LowerBound bound;
  bound.time = best.time;
  bound.reason = std::move(best.reason);
  bound.directTime = bound.time;
  bound.directReason = bound.reason;
  return bound;
}

void phasec::cutSingletons(const Problem &problem, llvm::ArrayRef<double> sent,
                           llvm::ArrayRef<double> received, LowerBound &bound) {
  Best best{bound.time, bound.reason};
  singletons(problem, sent, received, best);
  bound.time = best.time;
  bound.reason = std::move(best.reason);
}
