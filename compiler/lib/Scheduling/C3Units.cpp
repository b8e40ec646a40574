//===- C3Units.cpp - Seed 003's C^3 computation and communication units ---===//
//
// Part of phasec. MLIR-free: only LLVM ADT/Support and the topology.
//
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/C3Units.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

using namespace phasec;
using namespace phasec::c3;

Linear Linear::envelope(const Linear &a, const Linear &b) {
  return {std::max(a.setups, b.setups), std::max(a.perL, b.perL),
          std::max(a.constant, b.constant)};
}

static Linear scale(Linear x, double factor) {
  return {x.setups * factor, x.perL * factor, x.constant * factor};
}

//===----------------------------------------------------------------------===//
// Submachines
//===----------------------------------------------------------------------===//

/// The mean distance between two processors of a line or ring of e drawn
/// independently (a processor with itself included): (e^2 - 1) / 3e on a
/// line; e / 4 (even e) or (e^2 - 1) / 4e (odd e) on a ring.
static double meanDistance(int64_t e, bool wraps) {
  double x = static_cast<double>(e);
  if (!wraps)
    return (x * x - 1) / (3 * x);
  return e % 2 == 0 ? x / 4 : (x * x - 1) / (4 * x);
}

Submachine phasec::c3::makeSubmachine(llvm::ArrayRef<int64_t> extents,
                                      llvm::ArrayRef<bool> wraps) {
  Submachine m;
  m.extents.assign(extents.begin(), extents.end());
  m.wraps.assign(wraps.begin(), wraps.end());
  m.processors = 1;
  for (int64_t e : extents)
    m.processors *= e;
  if (m.processors <= 1)
    return m;
  // Distances add up over the dimensions; leaving out the pairs of a
  // processor with itself scales the mean by p / (p - 1) (a 16 x 16 mesh:
  // 2 * 16 / 3, the seed's h = 2 sqrt(p) / 3).
  double mean = 0;
  for (size_t d = 0; d < extents.size(); ++d)
    mean += meanDistance(extents[d], wraps[d]);
  double p = static_cast<double>(m.processors);
  m.distance = mean * p / (p - 1);
  // Cutting dimension d in the middle crosses p / e_d links (twice that on
  // a ring); the bisection width is the cheapest such cut.
  int64_t best = 0;
  for (size_t d = 0; d < extents.size(); ++d) {
    if (extents[d] < 2)
      continue;
    int64_t cut = m.processors / extents[d] * (wraps[d] ? 2 : 1);
    if (best == 0 || cut < best)
      best = cut;
  }
  m.bisection = std::max<int64_t>(best, 1);
  return m;
}

std::string Submachine::describe() const {
  if (processors <= 1)
    return "1 processor";
  std::string shape;
  unsigned dims = 0;
  bool anyWrap = false;
  for (size_t d = 0; d < extents.size(); ++d) {
    if (extents[d] < 2)
      continue;
    if (dims++)
      shape += "x";
    shape += std::to_string(extents[d]);
    anyWrap |= wraps[d];
  }
  if (dims == 1)
    return (anyWrap ? "ring " : "line ") + shape;
  return (anyWrap ? "torus " : "mesh ") + shape;
}

//===----------------------------------------------------------------------===//
// Supersteps
//===----------------------------------------------------------------------===//

namespace {
/// Union-find over dense indices.
struct Components {
  std::vector<int64_t> parent;
  explicit Components(size_t n) : parent(n) {
    std::iota(parent.begin(), parent.end(), 0);
  }
  int64_t find(int64_t x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(int64_t a, int64_t b) { parent[find(a)] = find(b); }
};
} // namespace

namespace {
/// A sub-grid by its corners (inclusive).
struct Box {
  llvm::SmallVector<int64_t, 3> lo, hi;

  int64_t volume() const {
    int64_t v = 1;
    for (size_t d = 0; d < lo.size(); ++d)
      v *= hi[d] - lo[d] + 1;
    return v;
  }
  bool overlaps(const Box &o) const {
    for (size_t d = 0; d < lo.size(); ++d)
      if (hi[d] < o.lo[d] || o.hi[d] < lo[d])
        return false;
    return true;
  }
  void merge(const Box &o) {
    for (size_t d = 0; d < lo.size(); ++d) {
      lo[d] = std::min(lo[d], o.lo[d]);
      hi[d] = std::max(hi[d], o.hi[d]);
    }
  }
};
} // namespace

/// The smallest sub-grid holding every node marked in `in`.
static Box boundingBox(const Topology &topo, const std::vector<char> &in) {
  unsigned dims = topo.numDims();
  Box box;
  box.lo.assign(dims, INT64_MAX);
  box.hi.assign(dims, INT64_MIN);
  for (NodeId node = 0; node < static_cast<NodeId>(in.size()); ++node) {
    if (!in[node])
      continue;
    for (unsigned d = 0; d < dims; ++d) {
      box.lo[d] = std::min(box.lo[d], topo.coord(node, d));
      box.hi[d] = std::max(box.hi[d], topo.coord(node, d));
    }
  }
  return box;
}

static Submachine toSubmachine(const Topology &topo, const Box &box) {
  llvm::SmallVector<int64_t, 3> extents;
  llvm::SmallVector<bool, 3> wraps;
  for (unsigned d = 0; d < topo.numDims(); ++d) {
    int64_t e = box.hi[d] - box.lo[d] + 1;
    extents.push_back(e);
    // A whole ring of a torus keeps its wrap-around links (a ring of 2 is
    // a line: its two links join the same pair).
    wraps.push_back(topo.kind() == TopologyKind::Torus && e == topo.extent(d) &&
                    e > 2);
  }
  return makeSubmachine(extents, wraps);
}

llvm::FailureOr<std::vector<Superstep>>
phasec::c3::makeSupersteps(const Topology &topo,
                           llvm::ArrayRef<std::vector<Message>> rounds,
                           bool gathers, std::string &error) {
  if (!topo.isGrid() || topo.ranksPerNode() != 1) {
    error = "C^3 units charge processors of a mesh, torus or hypercube, one "
            "rank per node";
    return llvm::failure();
  }
  const size_t numNodes = static_cast<size_t>(topo.numNodes());
  std::vector<Superstep> steps;
  for (size_t r = 0; r < rounds.size(); ++r) {
    const std::vector<Message> &round = rounds[r];
    if (round.empty())
      continue;
    Components parts(numNodes);
    for (const Message &m : round)
      parts.join(m.src, m.dst);
    // Groups in the order of their first message, so output is stable.
    std::map<int64_t, size_t> groupOf;
    std::vector<std::vector<Message>> groups;
    for (const Message &m : round) {
      auto [it, fresh] = groupOf.try_emplace(parts.find(m.src), groups.size());
      if (fresh)
        groups.emplace_back();
      groups[it->second].push_back(m);
    }
    std::vector<Box> boxes;
    for (const std::vector<Message> &messages : groups) {
      std::vector<char> in(numNodes, 0);
      int64_t members = 0;
      for (const Message &m : messages)
        for (NodeId node : {m.src, m.dst})
          if (!in[node]) {
            in[node] = 1;
            ++members;
          }
      Box box = boundingBox(topo, in);
      if (box.volume() != members) {
        // Spread-out processors: the region their data spreads over.
        auto reach = [&](const Message &m) {
          NodeId from = gathers ? m.dst : m.src, to = gathers ? m.src : m.dst;
          if (in[from])
            in[to] = 1;
        };
        if (gathers) {
          for (size_t e = r; e-- > 0;)
            for (const Message &m : rounds[e])
              reach(m);
        } else {
          for (size_t e = r + 1; e < rounds.size(); ++e)
            for (const Message &m : rounds[e])
              reach(m);
        }
        box = boundingBox(topo, in);
      }
      boxes.push_back(std::move(box));
    }
    // Independent submachines are disjoint: groups whose sub-grids overlap
    // share links and processors, so they are charged as one group on the
    // union (e.g. the crossing pairs of an exclusive-or permutation).
    for (bool merged = true; merged;) {
      merged = false;
      for (size_t a = 0; a < groups.size() && !merged; ++a)
        for (size_t b = a + 1; b < groups.size() && !merged; ++b) {
          if (!boxes[a].overlaps(boxes[b]))
            continue;
          boxes[a].merge(boxes[b]);
          llvm::append_range(groups[a], groups[b]);
          groups.erase(groups.begin() + b);
          boxes.erase(boxes.begin() + b);
          merged = true;
        }
    }
    Superstep &step = steps.emplace_back();
    for (size_t g = 0; g < groups.size(); ++g)
      step.groups.push_back(
          {toSubmachine(topo, boxes[g]), std::move(groups[g])});
  }
  return steps;
}

//===----------------------------------------------------------------------===//
// Charges
//===----------------------------------------------------------------------===//

namespace {
/// The seed's form (packets L / l, "p for p - 1", term-by-term maxima), or
/// the exact charge at message size L (ceilings, actual counts, maxima of
/// values): both compute Linear values, the exact one with perL = 0 (set-up
/// counts in `setups`, everything else in `constant`).
struct Mode {
  bool exact = false;
  double L = 0, s = 0;
  int64_t l = 1;

  Linear packets(double sizeInL) const {
    if (!exact)
      return {0, sizeInL / static_cast<double>(l), 0};
    double bytes = sizeInL * L;
    // sizeInL * L is a whole number of bytes up to rounding.
    return {0, 0, std::ceil(bytes / static_cast<double>(l) - 1e-9)};
  }
  Linear max(const Linear &a, const Linear &b) const {
    if (!exact)
      return Linear::envelope(a, b);
    return a.at(s, 0) >= b.at(s, 0) ? a : b;
  }
};

/// What one processor sends and receives in a group.
struct Tally {
  int64_t sends = 0, receives = 0;
  Linear out, in, largestOut;
};
} // namespace

static GroupCharge chargeGroup(const Group &group, const Params &params,
                               const Mode &mode) {
  GroupCharge charge;
  if (group.messages.empty())
    return charge;
  std::map<NodeId, Tally> tallies;
  std::set<std::pair<NodeId, NodeId>> pairs;
  Linear allPackets;
  for (const Message &m : group.messages) {
    Linear p = mode.packets(m.sizeInL);
    Tally &src = tallies[m.src];
    ++src.sends;
    src.out += p;
    src.largestOut = mode.max(src.largestOut, p);
    Tally &dst = tallies[m.dst];
    ++dst.receives;
    dst.in += p;
    pairs.insert({m.src, m.dst});
    allPackets += p;
  }
  const double h = group.machine.distance;
  const bool wormhole = params.routing == Switching::Wormhole;
  const bool blocking = params.sends == SendProtocol::Blocking;
  int64_t cong = static_cast<int64_t>(pairs.size());
  for (const auto &[node, t] : tallies) {
    // The seed's "p for p - 1": a processor that sends (receives) several
    // messages is charged one more of their average size, its own part.
    double sends = static_cast<double>(t.sends);
    double receives = static_cast<double>(t.receives);
    Linear out = t.out, in = t.in;
    if (!mode.exact && (t.sends >= 2 || t.receives >= 2))
      ++cong;
    if (!mode.exact && t.sends >= 2) {
      out = scale(out, (sends + 1) / sends);
      sends += 1;
    }
    if (!mode.exact && t.receives >= 2) {
      in = scale(in, (receives + 1) / receives);
      receives += 1;
    }
    // Figure 1 of the seed, row by row.
    Linear send, receive;
    if (t.sends > 0) {
      if (!blocking) {
        send = {sends, 0, wormhole ? h : 0};
        send += out;
        if (!wormhole)
          send += scale(t.largestOut, h);
      } else {
        send = {2 * sends, 0, 2 * h * sends + (wormhole ? h : 0)};
        send += wormhole ? out : scale(out, h);
      }
    }
    if (t.receives > 0) {
      if (!blocking) {
        receive = in;
      } else {
        receive = {receives, 0, h * receives + (wormhole ? h : 0)};
        receive += wormhole ? in : scale(in, h);
      }
    }
    send += receive;
    // Every term is >= 0: the empty charge is the maximum's start.
    charge.sendReceive = mode.max(charge.sendReceive, send);
  }
  // L_a: packets per communicating pair (several messages between one
  // pair in a superstep, as a hand-written schedule may send, are its
  // packets together).
  Linear average = scale(allPackets, 1.0 / static_cast<double>(pairs.size()));
  auto ceilDiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  charge.linkCongestion = scale(
      average, static_cast<double>(ceilDiv(cong, group.machine.bisection)));
  charge.processorCongestion =
      scale(average,
            static_cast<double>(ceilDiv(cong, group.machine.processors)) * h);
  return charge;
}

static Mode linearMode(const Params &params) {
  Mode mode;
  mode.s = params.setup;
  mode.l = params.packetLength;
  return mode;
}

static Mode exactMode(const Params &params, double L) {
  Mode mode = linearMode(params);
  mode.exact = true;
  mode.L = L;
  return mode;
}

static Linear chargeSuperstep(const Superstep &step, const Params &params,
                              const Mode &mode) {
  Linear result;
  for (const Group &group : step.groups)
    result = mode.max(result, chargeGroup(group, params, mode).total());
  return result;
}

GroupCharge phasec::c3::chargeGroup(const Group &group, const Params &params) {
  return ::chargeGroup(group, params, linearMode(params));
}

Linear phasec::c3::chargeSuperstep(const Superstep &step,
                                   const Params &params) {
  return ::chargeSuperstep(step, params, linearMode(params));
}

double phasec::c3::chargeGroupAt(const Group &group, const Params &params,
                                 double L) {
  return ::chargeGroup(group, params, exactMode(params, L))
      .total()
      .at(params.setup, 0);
}

double phasec::c3::chargeSuperstepAt(const Superstep &step,
                                     const Params &params, double L) {
  return ::chargeSuperstep(step, params, exactMode(params, L))
      .at(params.setup, 0);
}

/// Bytes (in multiples of L) each processor receives in the superstep.
static std::map<NodeId, double> receivedInL(const Superstep &step) {
  std::map<NodeId, double> received;
  for (const Group &group : step.groups)
    for (const Message &m : group.messages)
      received[m.dst] += m.sizeInL;
  return received;
}

Linear phasec::c3::computeSuperstep(const Superstep &step,
                                    const Params &params) {
  double largest = 0;
  for (const auto &entry : receivedInL(step))
    largest = std::max(largest, entry.second);
  return {0, largest / static_cast<double>(params.packetLength), 1};
}

double phasec::c3::computeSuperstepAt(const Superstep &step,
                                      const Params &params, double L) {
  double units = 1;
  for (const auto &entry : receivedInL(step))
    units =
        std::max(units, std::ceil(entry.second * L /
                                      static_cast<double>(params.packetLength) -
                                  1e-9));
  return units;
}

AlgorithmCharge phasec::c3::chargeAlgorithm(llvm::ArrayRef<Superstep> steps,
                                            const Params &params) {
  AlgorithmCharge charge;
  for (const Superstep &step : steps) {
    charge.communication.push_back(chargeSuperstep(step, params));
    charge.computation.push_back(computeSuperstep(step, params));
    charge.totalCommunication += charge.communication.back();
    charge.totalComputation += charge.computation.back();
  }
  return charge;
}

/// The sum over the supersteps of `perStep` at message size L.
template <typename PerStep>
static double sumAt(llvm::ArrayRef<Superstep> steps, const Params &params,
                    double L, PerStep perStep) {
  double units = 0;
  for (const Superstep &step : steps)
    units += perStep(step, params, L);
  return units;
}

double phasec::c3::chargeAlgorithmAt(llvm::ArrayRef<Superstep> steps,
                                     const Params &params, double L) {
  return sumAt(steps, params, L, chargeSuperstepAt);
}

double phasec::c3::computeAlgorithmAt(llvm::ArrayRef<Superstep> steps,
                                      const Params &params, double L) {
  return sumAt(steps, params, L, computeSuperstepAt);
}
