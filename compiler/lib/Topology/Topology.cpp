//===- Topology.cpp - Machine models, links and routing -------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Builds the directed links of tori, meshes, hypercubes and PERCS machines
/// and routes over them. Routing is on the hot path of the verifier and the
/// bounds (hundreds of millions of hops for a 16x16x16 all-to-all), so it
/// never allocates: it walks a precomputed neighbour table.
///
//===----------------------------------------------------------------------===//

#include "phasec/Topology/Topology.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <limits>

using namespace phasec;
using llvm::failure;
using llvm::FailureOr;
using llvm::StringRef;

llvm::StringRef phasec::stringifyLinkClass(LinkClass cls) {
  switch (cls) {
  case LinkClass::Network:
    return "network";
  case LinkClass::LL:
    return "LL";
  case LinkClass::LR:
    return "LR";
  case LinkClass::D:
    return "D";
  }
  llvm_unreachable("unknown link class");
}

//===----------------------------------------------------------------------===//
// Topology
//===----------------------------------------------------------------------===//

FailureOr<Topology> Topology::create(const TopologyDesc &desc,
                                     std::string &error) {
  constexpr int64_t kMaxIds = std::numeric_limits<int32_t>::max();
  Topology t;
  t.desc_ = desc;
  if (desc.ranksPerNode < 1) {
    error = "ranks per node must be at least 1";
    return failure();
  }
  auto positive = [&](double bw, const char *what) {
    if (bw > 0 && bw < std::numeric_limits<double>::infinity())
      return true;
    error = std::string(what) + " must be positive and finite";
    return false;
  };
  if (!(desc.injectionBandwidth >= 0) || !(desc.linkLatency >= 0)) {
    error = "injection bandwidth and link latency must not be negative";
    return failure();
  }
  for (double cost :
       {desc.setupCost, desc.copyRateContiguous, desc.copyRateStrided,
        desc.copyRateGather, desc.copyRateStridedStores})
    if (!(cost >= 0) || !std::isfinite(cost)) {
      error = "set-up cost and copy rates must be finite and not negative";
      return failure();
    }
  if (desc.packetLength < 0 || !std::isfinite(desc.barrierCost)) {
    error = "packet length must not be negative and the barrier cost finite";
    return failure();
  }

  if (desc.kind == TopologyKind::Percs) {
    if (desc.supernodes < 1 || desc.drawers < 1 || desc.nodesPerDrawer < 1) {
      error = "percs needs supernodes, drawers and nodes per drawer >= 1";
      return failure();
    }
    if (!positive(desc.llBandwidth, "LL bandwidth") ||
        !positive(desc.lrBandwidth, "LR bandwidth") ||
        !positive(desc.dBandwidth, "D bandwidth"))
      return failure();
    int64_t m = desc.drawers * desc.nodesPerDrawer;
    if (desc.drawers > kMaxIds / desc.nodesPerDrawer ||
        desc.supernodes > kMaxIds / m ||
        desc.supernodes * m > kMaxIds / desc.ranksPerNode) {
      error = "percs machine too large (more than 2^31 ranks)";
      return failure();
    }
    int64_t s = desc.supernodes;
    if (desc.dLinks < 0 || desc.dLinks > m * m) {
      error = llvm::formatv("percs dlinks={0}: D links between two "
                            "supernodes must be between 1 and {1} (one per "
                            "pair of their nodes)",
                            desc.dLinks, m * m)
                  .str();
      return failure();
    }
    t.dLinks_ = desc.dLinksPerPair();
    // Every ordered pair inside a supernode, plus n D links per ordered
    // supernode pair.
    int64_t numLinks = s * m * (m - 1);
    if (s > 1 && t.dLinks_ > (kMaxIds - numLinks) / (s * (s - 1))) {
      error = "percs machine too large (more than 2^31 links)";
      return failure();
    }
    numLinks += s * (s - 1) * t.dLinks_;
    t.numNodes_ = s * m;
    t.links_.reserve(numLinks);
    for (int64_t sn = 0; sn < s; ++sn)
      for (int64_t u = 0; u < m; ++u)
        for (int64_t v = 0; v < m; ++v) {
          if (u == v)
            continue;
          bool sameDrawer = u / desc.nodesPerDrawer == v / desc.nodesPerDrawer;
          t.links_.push_back(
              {static_cast<NodeId>(sn * m + u), static_cast<NodeId>(sn * m + v),
               sameDrawer ? LinkClass::LL : LinkClass::LR, -1, 0,
               sameDrawer ? desc.llBandwidth : desc.lrBandwidth});
        }
    for (int64_t a = 0; a < s; ++a)
      for (int64_t b = 0; b < s; ++b)
        for (int64_t i = 0; a != b && i < t.dLinks_; ++i) {
          NodeId from, to;
          t.dCableEnds(a, b, i, from, to);
          t.links_.push_back({from, to, LinkClass::D, -1, 0, desc.dBandwidth});
        }
  } else {
    if (desc.dims.empty()) {
      error = "a topology needs at least one dimension";
      return failure();
    }
    if (desc.dims.size() > 32) {
      error = "at most 32 dimensions are supported";
      return failure();
    }
    if (!positive(desc.linkBandwidth, "link bandwidth"))
      return failure();
    int64_t nodes = 1;
    for (int64_t k : desc.dims) {
      if (k < 1) {
        error = "every extent must be at least 1";
        return failure();
      }
      if (desc.kind == TopologyKind::Hypercube && k != 2) {
        error = "every extent of a hypercube must be 2";
        return failure();
      }
      if (nodes > kMaxIds / k) {
        error = "machine too large (more than 2^31 nodes)";
        return failure();
      }
      nodes *= k;
    }
    if (nodes > kMaxIds / desc.ranksPerNode) {
      error = "machine too large (more than 2^31 ranks)";
      return failure();
    }
    unsigned nd = desc.dims.size();
    if (nodes * nd * 2 > kMaxIds) {
      error = "machine too large (more than 2^31 links)";
      return failure();
    }
    t.numNodes_ = nodes;
    t.dims_.assign(desc.dims.begin(), desc.dims.end());
    int64_t stride = 1;
    for (int64_t k : t.dims_) {
      t.strides_.push_back(stride);
      stride *= k;
    }
    if (desc.dimOrder.empty()) {
      for (unsigned d = 0; d < nd; ++d)
        t.order_.push_back(d);
    } else {
      llvm::SmallVector<bool, 8> seen(nd, false);
      if (desc.dimOrder.size() != nd) {
        error = "the dimension order must name every dimension once";
        return failure();
      }
      for (unsigned d : desc.dimOrder) {
        if (d >= nd || seen[d]) {
          error = "the dimension order must name every dimension once";
          return failure();
        }
        seen[d] = true;
        t.order_.push_back(d);
      }
    }
    bool wrap = desc.kind == TopologyKind::Torus;
    if (nodes * nd <= (int64_t(1) << 24)) {
      t.coordTable_.resize(nodes * nd);
      for (int64_t n = 0; n < nodes; ++n)
        for (unsigned d = 0; d < nd; ++d)
          t.coordTable_[n * nd + d] =
              static_cast<int32_t>((n / t.strides_[d]) % t.dims_[d]);
    }
    t.neighbor_.assign(nodes * nd * 2, kNoLink);
    for (int64_t n = 0; n < nodes; ++n)
      for (unsigned d = 0; d < nd; ++d) {
        int64_t k = t.dims_[d], x = t.coord(n, d), s = t.strides_[d];
        for (int dir : {+1, -1}) {
          int64_t y = x + dir;
          if (wrap) {
            if (k < 2)
              continue;
            y = (y + k) % k;
          } else if (y < 0 || y >= k) {
            continue;
          }
          NodeId m = static_cast<NodeId>(n + (y - x) * s);
          t.neighbor_[(n * nd + d) * 2 + (dir < 0 ? 1 : 0)] =
              static_cast<LinkId>(t.links_.size());
          t.links_.push_back({static_cast<NodeId>(n), m, LinkClass::Network,
                              static_cast<int8_t>(d), static_cast<int8_t>(dir),
                              desc.linkBandwidth});
        }
      }
  }
  t.minBw_ = std::numeric_limits<double>::infinity();
  t.maxBw_ = 0;
  for (const Link &l : t.links_) {
    t.minBw_ = std::min(t.minBw_, l.bandwidth);
    t.maxBw_ = std::max(t.maxBw_, l.bandwidth);
  }
  if (t.links_.empty())
    t.minBw_ = t.maxBw_ = desc.kind == TopologyKind::Percs ? desc.llBandwidth
                                                           : desc.linkBandwidth;
  return t;
}

void Topology::coords(NodeId node, llvm::SmallVectorImpl<int64_t> &out) const {
  out.clear();
  int64_t n = node;
  for (int64_t k : dims_) {
    out.push_back(n % k);
    n /= k;
  }
}

NodeId Topology::nodeAt(llvm::ArrayRef<int64_t> c) const {
  assert(c.size() == dims_.size() && "wrong number of coordinates");
  int64_t n = 0;
  for (unsigned d = 0; d < dims_.size(); ++d) {
    assert(c[d] >= 0 && c[d] < dims_[d] && "coordinate out of range");
    n += c[d] * strides_[d];
  }
  return static_cast<NodeId>(n);
}

LinkId Topology::neighborLink(NodeId node, unsigned dim, int dir) const {
  if (!isGrid() || dim >= dims_.size() || node < 0 || node >= numNodes_)
    return kNoLink;
  return neighbor_[(static_cast<int64_t>(node) * dims_.size() + dim) * 2 +
                   (dir < 0 ? 1 : 0)];
}

std::string Topology::describeLink(LinkId id) const {
  const Link &l = links_[id];
  std::string out;
  llvm::raw_string_ostream os(out);
  os << l.src << "->" << l.dst << " (";
  if (l.cls == LinkClass::Network)
    os << "dim " << int(l.dim) << ' ' << (l.dir > 0 ? '+' : '-');
  else
    os << stringifyLinkClass(l.cls);
  os << ')';
  return out;
}

void Topology::dCableEnds(int64_t a, int64_t b, int64_t i, NodeId &from,
                          NodeId &to) const {
  int64_t m = nodesPerSupernode();
  int64_t lo = i % m, hi = (i % m + i / m) % m;
  from = static_cast<NodeId>(a * m + (a < b ? lo : hi));
  to = static_cast<NodeId>(b * m + (a < b ? hi : lo));
}

int64_t Topology::dCable(NodeId src, NodeId dst) const {
  int64_t m = nodesPerSupernode(), n = dLinks_;
  int64_t a = src / m, b = dst / m, ul = src % m, vl = dst % m;
  assert(a != b && n > 0 && "no D cable between these nodes");
  if (n < m) {
    // Gateways: local nodes 0 .. n-1, cable i between the two of index i.
    if (ul < n)
      return ul;
    if (vl < n)
      return vl;
    return (ul + vl) % n;
  }
  // The cable at offset t from src lands at local node ul + t (src on the
  // lower supernode) or ul - t (upper): cable i = r + m t, r its local end
  // on the lower side (ul, or ul - t mod m). The offsets with a cable are
  // 0 .. q-1: every t < n / m, and t = n / m when r < n mod m.
  auto cableAt = [&](int64_t t) -> int64_t {
    int64_t i = a < b ? ul + m * t : ((ul - t) % m + m) % m + m * t;
    return t < m && i < n ? i : -1;
  };
  int64_t direct = a < b ? ((vl - ul) % m + m) % m : ((ul - vl) % m + m) % m;
  if (int64_t i = cableAt(direct); i >= 0)
    return i;
  int64_t whole = n / m;
  int64_t q = whole + (whole < m && cableAt(whole) >= 0 ? 1 : 0);
  return cableAt(direct % q);
}

/// PERCS: the D link from supernode a to supernode b over cable i.
static LinkId percsDLink(int64_t s, int64_t m, int64_t n, int64_t a, int64_t b,
                         int64_t i) {
  return static_cast<LinkId>(s * m * (m - 1) +
                             (a * (s - 1) + (b < a ? b : b - 1)) * n + i);
}

/// PERCS: the LL/LR link between two nodes of one supernode.
static LinkId percsLocalLink(int64_t m, NodeId u, NodeId v) {
  int64_t sn = u / m, ul = u % m, vl = v % m;
  return static_cast<LinkId>(sn * m * (m - 1) + ul * (m - 1) +
                             (vl < ul ? vl : vl - 1));
}

LinkId Topology::linkBetween(NodeId src, NodeId dst) const {
  if (src == dst || src < 0 || dst < 0 || src >= numNodes_ || dst >= numNodes_)
    return kNoLink;
  if (isPercs()) {
    int64_t m = nodesPerSupernode(), a = src / m, b = dst / m;
    if (a == b)
      return percsLocalLink(m, src, dst);
    int64_t i = dCable(src, dst);
    NodeId from, to;
    dCableEnds(a, b, i, from, to);
    if (from == src && to == dst)
      return percsDLink(numSupernodes(), m, dLinks_, a, b, i);
    return kNoLink;
  }
  unsigned nd = dims_.size();
  for (unsigned d = 0; d < nd; ++d)
    for (int dir : {+1, -1}) {
      LinkId l = neighborLink(src, d, dir);
      if (l != kNoLink && links_[l].dst == dst)
        return l;
    }
  return kNoLink;
}

TieMask Topology::tieMask(NodeId src, NodeId dst) const {
  if (desc_.kind != TopologyKind::Torus || src == dst)
    return 0;
  TieMask mask = 0;
  for (unsigned d = 0, nd = dims_.size(); d < nd; ++d) {
    int64_t k = dims_[d];
    if (k % 2)
      continue;
    int64_t xs = coord(src, d), xd = coord(dst, d);
    int64_t fwd = xd - xs;
    if (fwd < 0)
      fwd += k;
    if (fwd * 2 == k)
      mask |= TieMask(1) << d;
  }
  return mask;
}

FailureOr<TieMask> Topology::tiesFromDirs(NodeId src, NodeId dst,
                                          llvm::ArrayRef<int64_t> dirs,
                                          std::string &error) const {
  if (dirs.empty())
    return TieMask(0);
  if (!isGrid()) {
    error = "\"dirs\" apply to torus, mesh and hypercube routes only";
    return failure();
  }
  if (dirs.size() > dims_.size()) {
    error = "\"dirs\" has " + std::to_string(dirs.size()) +
            " entries, the machine " + std::to_string(dims_.size()) +
            " dimensions";
    return failure();
  }
  TieMask allowed = tieMask(src, dst), ties = 0;
  bool wrap = desc_.kind == TopologyKind::Torus;
  for (unsigned d = 0; d < dirs.size(); ++d) {
    int64_t v = dirs[d];
    if (v == 0)
      continue;
    if (v != 1 && v != -1) {
      error = "\"dirs\" entries must be 1, -1 or 0, got " + std::to_string(v);
      return failure();
    }
    if ((allowed >> d) & 1) {
      if (v < 0)
        ties |= TieMask(1) << d;
      continue;
    }
    // No tie: the entry must name the shorter way (or there is no travel).
    int64_t k = dims_[d], xs = coord(src, d), xd = coord(dst, d);
    int shorter = 0;
    if (xs != xd) {
      if (wrap) {
        int64_t fwd = xd - xs;
        if (fwd < 0)
          fwd += k;
        shorter = fwd < k - fwd ? 1 : -1;
      } else {
        shorter = xd > xs ? 1 : -1;
      }
    }
    if (shorter != v) {
      error =
          "\"dirs\" asks for " + std::string(v > 0 ? "+" : "-") +
          " in dimension " + std::to_string(d) + " from node " +
          std::to_string(src) + " to node " + std::to_string(dst) +
          (shorter ? ", the longer way" : ", where the route does not move");
      return failure();
    }
  }
  return ties;
}

void Topology::dirsFromTies(NodeId src, NodeId dst, TieMask ties,
                            llvm::SmallVectorImpl<int64_t> &dirs) const {
  dirs.assign(dims_.size(), 0);
  TieMask allowed = tieMask(src, dst);
  for (unsigned d = 0; d < dims_.size(); ++d)
    if ((allowed >> d) & 1)
      dirs[d] = ((ties >> d) & 1) ? -1 : 1;
}

void Topology::route(NodeId src, NodeId dst, TieMask ties,
                     llvm::SmallVectorImpl<LinkId> &out) const {
  out.clear();
  if (src == dst)
    return;
  if (isPercs()) {
    int64_t m = nodesPerSupernode(), a = src / m, b = dst / m;
    if (a == b) {
      out.push_back(percsLocalLink(m, src, dst));
      return;
    }
    int64_t i = dCable(src, dst);
    NodeId ga, gb;
    dCableEnds(a, b, i, ga, gb);
    if (src != ga)
      out.push_back(percsLocalLink(m, src, ga));
    out.push_back(percsDLink(numSupernodes(), m, dLinks_, a, b, i));
    if (gb != dst)
      out.push_back(percsLocalLink(m, gb, dst));
    return;
  }
  bool wrap = desc_.kind == TopologyKind::Torus;
  int64_t nd = dims_.size();
  int64_t cur = src;
  for (unsigned d : order_) {
    int64_t k = dims_[d];
    int64_t xs = coord(static_cast<NodeId>(cur), d), xd = coord(dst, d);
    if (xs == xd)
      continue;
    int64_t steps;
    int dirIndex; // 0 = "+", 1 = "-"
    if (wrap) {
      int64_t fwd = xd - xs;
      if (fwd < 0)
        fwd += k;
      int64_t bwd = k - fwd;
      if (fwd < bwd || (fwd == bwd && !((ties >> d) & 1))) {
        steps = fwd;
        dirIndex = 0;
      } else {
        steps = bwd;
        dirIndex = 1;
      }
    } else {
      steps = xd > xs ? xd - xs : xs - xd;
      dirIndex = xd > xs ? 0 : 1;
    }
    // Next node by arithmetic, not through links_[l].dst: the table loads
    // of successive hops then do not depend on each other.
    int64_t stride = strides_[d], x = xs, step = dirIndex ? -1 : 1;
    for (int64_t i = 0; i < steps; ++i) {
      out.push_back(neighbor_[(cur * nd + d) * 2 + dirIndex]);
      int64_t y = x + step;
      if (y == k)
        y = 0;
      else if (y < 0)
        y = k - 1;
      cur += (y - x) * stride;
      x = y;
    }
  }
}

void Topology::routeNodes(NodeId src, NodeId dst, TieMask ties,
                          llvm::SmallVectorImpl<NodeId> &out) const {
  llvm::SmallVector<LinkId, 32> links;
  route(src, dst, ties, links);
  out.clear();
  out.push_back(src);
  for (LinkId l : links)
    out.push_back(links_[l].dst);
}

int64_t Topology::hops(NodeId src, NodeId dst) const {
  if (src == dst)
    return 0;
  if (isPercs()) {
    int64_t m = nodesPerSupernode(), a = src / m, b = dst / m;
    if (a == b)
      return 1;
    NodeId ga, gb;
    dCableEnds(a, b, dCable(src, dst), ga, gb);
    return 1 + (src != ga) + (dst != gb);
  }
  bool wrap = desc_.kind == TopologyKind::Torus;
  int64_t total = 0;
  for (unsigned d = 0, nd = dims_.size(); d < nd; ++d) {
    int64_t k = dims_[d], diff = coord(src, d) - coord(dst, d);
    if (diff < 0)
      diff = -diff;
    total += wrap ? std::min(diff, k - diff) : diff;
  }
  return total;
}
