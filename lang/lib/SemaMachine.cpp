//===- SemaMachine.cpp - Machines and topologies --------------------------===//
//
// Part of phasec, the .sched language front end.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Sema: machine declarations (topology, link rates and latencies, routing,
/// cost model) and the --topology and --ranks-per-node overrides, which
/// replace what the file says.
///
//===----------------------------------------------------------------------===//

#include "Sema.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"

#include <cmath>

using namespace phasec::lang;
using namespace phasec::lang::sema;
using namespace phasec::lang::syntax;

namespace {

/// The text an "unknown routing" error quotes: the value's name, string or
/// operator ("" for a number).
std::string spelling(const Expr &e) {
  switch (e.getKind()) {
  case Expr::Expr_Ident:
    return llvm::cast<IdentExpr>(e).name;
  case Expr::Expr_Call:
    return llvm::cast<CallExpr>(e).callee;
  case Expr::Expr_String:
    return llvm::cast<StringExpr>(e).value;
  case Expr::Expr_Unary:
    return llvm::cast<UnaryExpr>(e).op;
  case Expr::Expr_Binary:
    return llvm::cast<BinaryExpr>(e).op;
  default:
    return "";
  }
}

} // namespace

bool Sema::setTopology(Machine &m, const Value &v) {
  if (!v.expr)
    return false;
  m.topologyLoc = v.loc;
  std::optional<NamedValue> topology = asNamedValue(v.expr.get());
  if (!topology) {
    diag.error(v.loc, "expected torus(...), mesh(...), hypercube(n) or "
                      "percs(supernodes, drawers, nodes_per_drawer"
                      "[, d_links])");
    return false;
  }
  StringRef kind = topology->name;
  Env env;
  llvm::SmallVector<int64_t, 4> args;
  for (const auto &a : topology->args) {
    OptInt x = evalInt(*a, env);
    if (!x)
      return false;
    if (*x <= 0) {
      diag.error(a->getLoc(),
                 "topology extents must be positive, got " + Twine(*x));
      return false;
    }
    args.push_back(*x);
  }
  m.dims.clear();
  if (kind == "torus" || kind == "mesh") {
    if (args.empty() || args.size() > kMaxGridDimensions) {
      diag.error(v.loc, Twine(kind) + " takes 1 to " +
                            Twine(kMaxGridDimensions) + " extents");
      return false;
    }
    m.kind = kind == "torus" ? TopologyKind::Torus : TopologyKind::Mesh;
    m.dims.assign(args.begin(), args.end());
    return true;
  }
  if (kind == "hypercube") {
    if (args.size() != 1 || args[0] > kMaxHypercubeDimension) {
      diag.error(v.loc, "hypercube takes one dimension count from 1 to " +
                            Twine(kMaxHypercubeDimension));
      return false;
    }
    m.kind = TopologyKind::Hypercube;
    m.dims.assign(args[0], 2);
    return true;
  }
  if (kind == "percs") {
    if (args.size() != 3 && args.size() != 4) {
      diag.error(v.loc, "percs takes (supernodes, drawers, nodes_per_drawer"
                        "[, d_links])");
      return false;
    }
    m.kind = TopologyKind::Percs;
    m.supernodes = args[0];
    m.drawers = args[1];
    m.nodesPerDrawer = args[2];
    if (args.size() == 4) {
      // D links between two supernodes: one per pair of their nodes at most.
      int64_t perSupernode = args[1] * args[2];
      if (args[3] < 1 || args[1] < 1 || args[2] < 1 ||
          perSupernode > (int64_t(1) << 31) ||
          args[3] > perSupernode * perSupernode) {
        diag.error(v.loc, "percs' d_links (D links between two supernodes) "
                          "must be between 1 and the square of the nodes per "
                          "supernode");
        return false;
      }
      m.dLinks = args[3];
    }
    return true;
  }
  diag.error(v.loc, "unknown topology '" + kind + "'");
  diag.note(v.loc, "valid topologies: torus, mesh, hypercube, percs");
  return false;
}

bool Sema::applyTopologyOverride() {
  if (opts.topologyOverride.empty())
    return true;
  // The one spec syntax of every tool, the one `--emit=schedule-stats`
  // prints: `torus:4x4;injection=link` replaces the shape and the options
  // it names.
  std::string error;
  FailureOr<TopologySpec> spec =
      TopologySpec::parse(opts.topologyOverride, error);
  if (succeeded(spec) && spec->desc.kind == TopologyKind::Percs &&
      (spec->desc.drawers < 1 || spec->desc.nodesPerDrawer < 1 ||
       spec->desc.supernodes < 1)) {
    error = "percs needs supernodes, drawers= and nodes= of at least 1";
    spec = failure();
  }
  if (succeeded(spec) && spec->injectionIsLink &&
      spec->desc.kind == TopologyKind::Percs) {
    error = "injection=link needs one link bandwidth; PERCS links differ";
    spec = failure();
  }
  if (failed(spec)) {
    diag.commandLineError("invalid --topology '" + opts.topologyOverride +
                          "': " + error);
    return false;
  }
  ovSpec = *spec;
  haveOverride = true;
  return true;
}

void Sema::overrideMachine(Machine &m) {
  const TopologyDesc &d = ovSpec.desc;
  bool percs = d.kind == TopologyKind::Percs;
  m.kind = d.kind;
  m.dims = d.dims;
  m.supernodes = percs ? d.supernodes : 0;
  m.drawers = percs ? d.drawers : 0;
  m.nodesPerDrawer = percs ? d.nodesPerDrawer : 0;
  m.dLinks = percs ? d.dLinks : 0;
  unsigned given = ovSpec.given;
  if (given & TopologySpec::Ranks)
    m.ranksPerNode = d.ranksPerNode;
  // The real-valued options, each with the machine field it replaces.
  static const struct {
    TopologySpec::Option option;
    double TopologyDesc::*value;
    double Machine::*field;
  } realOverrides[] = {
      {TopologySpec::LinkBandwidth, &TopologyDesc::linkBandwidth,
       &Machine::bandwidth},
      {TopologySpec::LLBandwidth, &TopologyDesc::llBandwidth,
       &Machine::llBandwidth},
      {TopologySpec::LRBandwidth, &TopologyDesc::lrBandwidth,
       &Machine::lrBandwidth},
      {TopologySpec::DBandwidth, &TopologyDesc::dBandwidth,
       &Machine::dBandwidth},
      {TopologySpec::Latency, &TopologyDesc::linkLatency, &Machine::latency},
  };
  for (const auto &o : realOverrides)
    if (given & o.option)
      m.*o.field = d.*o.value;
  if (given & TopologySpec::Injection)
    m.injectionBandwidth =
        ovSpec.injectionIsLink ? m.bandwidth : d.injectionBandwidth;
  if (given & TopologySpec::Order)
    m.dimOrder.assign(d.dimOrder.begin(), d.dimOrder.end());
  // The cost options, each where the spec named it.
  ovSpec.applyCosts(m.cost);
  if (!m.topologyLoc.isValid())
    m.topologyLoc = m.loc;
}

bool Sema::finishMachine(Machine &m, bool hasRouting,
                         const Property *routingProp) {
  bool ok = true;
  if (haveOverride)
    overrideMachine(m);
  if (opts.ranksPerNodeOverride > 0)
    m.ranksPerNode = opts.ranksPerNodeOverride;
  if (!m.topologyLoc.isValid()) {
    diag.error(m.loc, "machine '" + m.name + "' has no topology");
    return false;
  }
  // Size limits, overflow-safe.
  int64_t nodes = 1;
  auto mulCheck = [&](int64_t x) {
    if (__builtin_mul_overflow(nodes, x, &nodes) || nodes > opts.maxRanks)
      nodes = opts.maxRanks + 1;
  };
  if (m.kind == TopologyKind::Percs) {
    mulCheck(m.supernodes);
    mulCheck(m.drawers);
    mulCheck(m.nodesPerDrawer);
  } else {
    for (int64_t x : m.dims)
      mulCheck(x);
  }
  mulCheck(m.ranksPerNode);
  if (nodes > opts.maxRanks) {
    diag.error(m.topologyLoc, "machine '" + m.name + "' has more than " +
                                  Twine(opts.maxRanks) +
                                  " ranks, which is not supported");
    return false;
  }
  if (m.kind == TopologyKind::Percs) {
    if (m.bandwidth > 0 && haveOverride) {
      // A grid machine turned into PERCS by --topology: its one link rate
      // and latency apply to every link class not given.
      for (double *bw : {&m.llBandwidth, &m.lrBandwidth, &m.dBandwidth})
        if (*bw == 0)
          *bw = m.bandwidth;
      for (double *lat : {&m.llLatency, &m.lrLatency, &m.dLatency})
        if (*lat == 0)
          *lat = m.latency;
      m.bandwidth = 0;
      m.latency = 0;
    } else if (m.bandwidth > 0) {
      diag.error(m.loc, "PERCS machine '" + m.name +
                            "' takes bandwidth.LL, bandwidth.LR and "
                            "bandwidth.D instead of one bandwidth");
      ok = false;
    }
    // Seed 002's link rates unless given.
    if (m.llBandwidth == 0)
      m.llBandwidth = kDefaultLLBandwidth;
    if (m.lrBandwidth == 0)
      m.lrBandwidth = kDefaultLRBandwidth;
    if (m.dBandwidth == 0)
      m.dBandwidth = kDefaultDBandwidth;
    if (hasRouting && routingProp &&
        !isName(routingProp->value.expr.get(), "direct") && !haveOverride) {
      diag.error(routingProp->loc,
                 "PERCS machines route directly; use 'routing = direct'");
      ok = false;
    }
    m.routing = Routing::Direct;
    m.dimOrder.clear();
  } else {
    if (haveOverride && m.bandwidth == 0 && m.llBandwidth > 0) {
      // A PERCS machine turned into a grid by --topology: its LL links
      // (the fastest class) stand for the grid's links.
      m.bandwidth = m.llBandwidth;
      m.latency = m.llLatency;
    }
    if (haveOverride) {
      m.llBandwidth = m.lrBandwidth = m.dBandwidth = 0;
      m.llLatency = m.lrLatency = m.dLatency = 0;
    }
    if (m.llBandwidth > 0 || m.lrBandwidth > 0 || m.dBandwidth > 0) {
      diag.error(m.loc, "link classes LL, LR and D exist only on PERCS "
                        "machines; use 'bandwidth'");
      ok = false;
    }
    if (m.bandwidth == 0) {
      diag.error(m.loc, "machine '" + m.name +
                            "' needs a link bandwidth ('bandwidth = ...')");
      ok = false;
    }
    unsigned n = m.numDims();
    if (m.routing == Routing::Direct) {
      diag.error(routingProp ? routingProp->loc : m.loc,
                 "direct routing exists only on PERCS machines");
      ok = false;
    }
    m.routing = Routing::DimensionOrder;
    // An override may change the number of dimensions: the file's order no
    // longer applies then, unless the override gives one.
    bool orderGiven = haveOverride && (ovSpec.given & TopologySpec::Order);
    if (orderGiven && m.dimOrder.size() != n) {
      diag.commandLineError("invalid --topology '" + opts.topologyOverride +
                            "': order lists " + Twine(m.dimOrder.size()) +
                            " dimensions, the topology has " + Twine(n));
      ok = false;
    }
    if (!orderGiven &&
        (m.dimOrder.size() != n || (haveOverride && hasRouting))) {
      if (!m.dimOrder.empty() && !haveOverride) {
        diag.error(routingProp ? routingProp->loc : m.loc,
                   "dimension order lists " + Twine(m.dimOrder.size()) +
                       " dimensions, but machine '" + m.name + "' has " +
                       Twine(n));
        ok = false;
      }
      m.dimOrder.clear();
      for (unsigned i = 0; i < n; ++i)
        m.dimOrder.push_back(i);
    }
  }
  return ok;
}

void Sema::checkMachines() {
  bool overrideOk = applyTopologyOverride();
  for (const MachineDecl &d : mod.machines) {
    auto m = newDefinition(d, prog->lookupMachine(d.name), "machine");
    if (!m)
      continue;
    bool ok = overrideOk;
    bool hasRouting = false;
    const Property *routingProp = nullptr;
    llvm::StringMap<SMLoc> seen;
    Env env;
    for (const Property &p : d.props) {
      std::string key = p.sub.empty() ? p.key : p.key + "." + p.sub;
      auto [it, inserted] = seen.try_emplace(key, p.loc);
      if (!inserted) {
        diag.error(p.loc, "duplicate property '" + key + "'");
        diag.note(it->second, "previous definition is here");
        ok = false;
        continue;
      }
      // A rate or a time, with its unit.
      auto setScaled = [&](double &field, StringRef what, bool rate) {
        if (std::optional<double> v = evalScaled(p.value, env, what, rate))
          field = *v;
        else
          ok = false;
      };
      // An integer between lo and hi ("KEY must be RANGE, got V" outside).
      auto setInRange = [&](auto &field, OptInt v, int64_t lo, int64_t hi,
                            const Twine &range) {
        if (v && (*v < lo || *v > hi)) {
          diag.error(p.value.loc,
                     p.key + " must be " + range + ", got " + Twine(*v));
          v.reset();
        }
        if (v)
          field = *v;
        else
          ok = false;
      };
      if (p.key == "topology" && p.sub.empty()) {
        ok &= setTopology(*m, p.value);
      } else if (p.key == "bandwidth" || p.key == "latency") {
        // The link class's bandwidth or latency, as the key says.
        bool bw = p.key == "bandwidth";
        auto setLinkClass = [&](double &bandwidth, double &latency) {
          setScaled(bw ? bandwidth : latency, p.key, /*rate=*/bw);
        };
        if (p.sub.empty())
          setLinkClass(m->bandwidth, m->latency);
        else if (p.sub == "LL")
          setLinkClass(m->llBandwidth, m->llLatency);
        else if (p.sub == "LR")
          setLinkClass(m->lrBandwidth, m->lrLatency);
        else if (p.sub == "D")
          setLinkClass(m->dBandwidth, m->dLatency);
        else {
          diag.error(p.loc, "unknown link class '" + p.sub + "'");
          diag.note(p.loc, "valid link classes: LL, LR, D (PERCS)");
          ok = false;
        }
      } else if (p.key == "injection" && p.sub.empty()) {
        setScaled(m->injectionBandwidth, "injection bandwidth", /*rate=*/true);
      } else if (p.key == "ranks_per_node" && p.sub.empty()) {
        setInRange(m->ranksPerNode,
                   evalPlainInt(p.value, env, "ranks_per_node"), 1,
                   opts.maxRanks, "between 1 and " + Twine(opts.maxRanks));
      } else if (p.key == "routing" && p.sub.empty()) {
        hasRouting = true;
        routingProp = &p;
        const Expr *e = p.value.expr.get();
        std::optional<NamedValue> routing = asNamedValue(e);
        if (isName(e, "direct")) {
          m->routing = Routing::Direct;
        } else if (routing && routing->name == "dimension_order") {
          m->routing = Routing::DimensionOrder;
          llvm::SmallVector<bool, 8> used(17, false);
          for (const auto &a : routing->args) {
            OptInt d = evalInt(*a, env);
            if (!d) {
              ok = false;
              break;
            }
            if (*d < 0 || *d > 15 || used[*d]) {
              diag.error(a->getLoc(), "dimension " + Twine(*d) +
                                          " is out of range or repeated in the "
                                          "dimension order");
              ok = false;
              break;
            }
            used[*d] = true;
            m->dimOrder.push_back(static_cast<unsigned>(*d));
          }
        } else {
          std::string got = e ? spelling(*e) : "";
          unknownValue(p.value, "routing", got,
                       "dimension_order, dimension_order(d, ...), direct");
          ok = false;
        }
      } else if (p.key == "setup_cost" && p.sub.empty()) {
        setScaled(m->cost.setupCost, "setup_cost", /*rate=*/false);
      } else if ((p.key == "packet_length" || p.key == "envelope") &&
                 p.sub.empty()) {
        OptInt v = evalSize(p.value, env, p.key);
        if (v)
          (p.key == "envelope" ? m->cost.messageEnvelope
                               : m->cost.packetLength) = *v;
        else
          ok = false;
      } else if (p.key == "packet_header" && p.sub.empty()) {
        // The route header the ns-3 network's routers read takes 4 bytes.
        setInRange(m->cost.packetHeader, evalSize(p.value, env, p.key),
                   TopologyDesc::kMinPacketHeader,
                   TopologyDesc::kMaxPacketHeader,
                   Twine(TopologyDesc::kMinPacketHeader) + " to " +
                       Twine(TopologyDesc::kMaxPacketHeader) + " bytes");
      } else if (p.key == "router_buffer" && p.sub.empty()) {
        setInRange(
            m->cost.routerBuffer, evalPlainInt(p.value, env, "router_buffer"),
            1, TopologyDesc::kMaxRouterBuffer,
            "1 to " + Twine(TopologyDesc::kMaxRouterBuffer) + " packets");
      } else if (p.key == "copy_rate" &&
                 (p.sub == "contiguous" || p.sub == "strided" ||
                  p.sub == "strided_stores" || p.sub == "gather")) {
        setScaled(p.sub == "contiguous"       ? m->cost.copyRateContiguous
                  : p.sub == "strided"        ? m->cost.copyRateStrided
                  : p.sub == "strided_stores" ? m->cost.copyRateStridedStores
                                              : m->cost.copyRateGather,
                  "copy rate", /*rate=*/true);
      } else if (p.key == "barrier_cost" && p.sub.empty()) {
        setScaled(m->cost.barrierCost, "barrier_cost", /*rate=*/false);
      } else if ((p.key == "switching" || p.key == "sends") && p.sub.empty()) {
        const Expr *e = p.value.expr.get();
        std::string got = e ? spelling(*e) : "";
        bool switching = p.key == "switching";
        if (switching && symbolizeSwitching(got)) {
          m->cost.switching = *symbolizeSwitching(got);
        } else if (!switching && symbolizeSendProtocol(got)) {
          m->cost.sends = *symbolizeSendProtocol(got);
        } else {
          unknownValue(p.value, p.key, got,
                       switching ? "wormhole, store_and_forward"
                                 : "nonblocking, blocking");
          ok = false;
        }
      } else {
        diag.error(p.loc, "unknown machine property '" + key + "'");
        diag.note(p.loc, "machine properties: topology, bandwidth[.LL|.LR|.D], "
                         "latency[.LL|.LR|.D], ranks_per_node, routing, "
                         "injection, setup_cost, packet_length, envelope, "
                         "packet_header, router_buffer, "
                         "switching, sends, barrier_cost, "
                         "copy_rate.contiguous, copy_rate.strided, "
                         "copy_rate.strided_stores, copy_rate.gather");
        ok = false;
      }
    }
    if (ok)
      ok = finishMachine(*m, hasRouting, routingProp);
    else if (!m->topologyLoc.isValid() && !haveOverride)
      diag.error(m->loc, "machine '" + m->name + "' has no topology");
    if (!ok)
      continue;
    auto all = std::make_unique<Group>();
    all->name = "all";
    all->loc = m->loc;
    all->machine = m.get();
    all->overNodes = true;
    all->implicitAll = true;
    int64_t nodes = m->numNodes(), ranks = m->numRanks();
    all->nodes.resize(nodes);
    for (int64_t i = 0; i < nodes; ++i)
      all->nodes[i] = static_cast<int32_t>(i);
    all->ranks.resize(ranks);
    for (int64_t i = 0; i < ranks; ++i)
      all->ranks[i] = static_cast<int32_t>(i);
    prog->machines.push_back(std::move(m));
    prog->groups.push_back(std::move(all));
  }
  if (mod.machines.empty()) {
    // Point at the first declaration that needs a machine.
    SMLoc first;
    auto consider = [&](SMLoc loc) {
      if (loc.isValid() &&
          (!first.isValid() || loc.getPointer() < first.getPointer()))
        first = loc;
    };
    if (!mod.groups.empty())
      consider(mod.groups.front().loc);
    if (!mod.arrays.empty())
      consider(mod.arrays.front().loc);
    if (!mod.ops.empty())
      consider(mod.ops.front().kindLoc);
    if (first.isValid())
      diag.error(first, "the file declares no machine");
  }
}
