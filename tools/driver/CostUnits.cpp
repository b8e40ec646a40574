//===- CostUnits.cpp - phasec --emit=cost: C^3 units per operation --------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Where the supersteps come from (C^3 charges an algorithm's supersteps,
/// not phasec's congestion-free phases, which split a superstep further):
/// - a computed relaying schedule: its algorithm's logical rounds
///   (Relay.h's buildRelayRounds for the choice scheduleRelaying made), one
///   superstep each, before packRounds splits them into phases;
/// - direct transfers (a computed or hand-written schedule of an operation
///   lowered to a transfer set): one superstep, every message sent at once,
///   the seed's 1-lev-dir, whatever phases phasec splits it into;
/// - a hand-written relaying schedule: each phase is a superstep (its
///   author wrote the algorithm phase by phase).
///
//===----------------------------------------------------------------------===//

#include "phasec/Driver/CostUnits.h"
#include "phasec/Core/TopologyDesc.h"
#include "phasec/Scheduling/CostModel.h"
#include "phasec/Scheduling/Relay.h"
#include "phasec/Transforms/CollectiveIR.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace phasec;
using namespace phasec::driver;

namespace {
/// A machine's C^3 parameters and where they came from.
struct MachineUnits {
  std::string name, shape;
  c3::Params params;
  /// Seconds per unit: l / bandwidth.
  double unitSeconds = 0;
  /// setup_cost in seconds (0 with --c3-setup).
  double setupSeconds = 0;
  bool setupFromOption = false;
};

/// One operation charged.
struct Charged {
  const ScheduledOperation *op = nullptr;
  const MachineUnits *machine = nullptr;
  std::string algorithm, seedName;
  int64_t blockBytes = 0;
  std::vector<c3::Superstep> steps;
  c3::AlgorithmCharge charge;
};
} // namespace

/// Seed 003's name of a relaying choice ("-" where the seed has none).
static std::string seedNameOf(const RelayChoice &choice, int64_t members) {
  if (choice.algorithm != Algorithm::KLevel)
    return "-";
  const int64_t levels = choice.param;
  const bool logp = levels == 0 ||
                    levels == static_cast<int64_t>(llvm::Log2_64_Ceil(members));
  switch (choice.shape) {
  case KLevelShape::OurBr:
    return "1-lev-our-br";
  case KLevelShape::SysBr:
    return "1-lev-sys-br";
  case KLevelShape::Rc:
    return "2-lev-r,c";
  case KLevelShape::Bfly:
    return "logp-lev-bfly";
  case KLevelShape::Rec:
    if (levels == 2)
      return "2-lev-rec";
    return "logp-lev-rec(" +
           formatShortestDouble(
               (choice.gammaPercent ? choice.gammaPercent : 50) / 100.0) +
           ")";
  case KLevelShape::Sq:
    if (levels == 2)
      return "2-lev-sq";
    if (levels == 3)
      return "3-lev-sq";
    return logp ? "logp-lev-sq" : "-";
  case KLevelShape::None:
    return levels == 1 ? "1-lev-dir" : "-";
  }
  return "-";
}

/// The machine's parameters, or a diagnostic at the machine.
static FailureOr<MachineUnits> getMachineUnits(comm::MachineOp machine,
                                               const Topology &topo,
                                               const CostOptions &options) {
  MachineUnits units;
  units.name = machine.getSymName().str();
  // The machine's own switching and send protocol unless an option
  // replaces them.
  units.params.routing = options.routing.value_or(machine.getSwitching());
  units.params.sends = options.sends.value_or(machine.getSends());
  auto packet = machine.getPacketLengthAttr();
  if (!packet)
    return machine.emitError("C^3 units need the packet length l: machine '")
           << units.name << "' has no packet_length";
  units.params.packetLength = packet.getInt();
  units.unitSeconds = static_cast<double>(units.params.packetLength) /
                      machine.getBandwidth().convertToDouble();
  if (options.setupUnits) {
    units.params.setup = *options.setupUnits;
    units.setupFromOption = true;
  } else if (auto setup = machine.getSetupCostAttr()) {
    units.setupSeconds = setup.getValueAsDouble();
    units.params.setup = units.setupSeconds / units.unitSeconds;
  } else {
    return machine.emitError("C^3 units need the set-up cost s: machine '")
           << units.name
           << "' has no setup_cost (or give s in units with --c3-setup)";
  }
  if (topo.isGrid()) {
    llvm::SmallVector<bool, 3> wraps;
    for (unsigned d = 0; d < topo.numDims(); ++d)
      wraps.push_back(topo.kind() == TopologyKind::Torus && topo.extent(d) > 2);
    units.shape = c3::makeSubmachine(topo.dims(), wraps).describe();
  }
  return units;
}

/// The algorithm's rounds as C^3 messages (sizes in multiples of L).
static FailureOr<std::vector<std::vector<c3::Message>>>
getRounds(const ScheduledOperation &op, const Collective &collective,
          Charged &charged, bool &gathers) {
  const Topology &topo = *op.topology;
  comm::CollectiveOpInterface iface = op.op;
  const double L = static_cast<double>(charged.blockBytes);
  std::vector<std::vector<c3::Message>> rounds;
  auto message = [&](RankId src, RankId dst, double bytes) {
    rounds.back().push_back(
        {topo.nodeOfRank(src), topo.nodeOfRank(dst), bytes / L});
  };
  const ChunkSpec *chunks = op.problem->chunkSpec();
  if (!chunks) {
    // An alltoall scheduled permutation by permutation is the seed's
    // 1-lev-perm: one superstep per permutation (step d: member i sends to
    // i ^ d, or to i + d mod n).
    StringRef scheduler = op.schedule.algorithm;
    bool byPermutation = !op.handWritten &&
                         collective.kind == CollectiveKind::Alltoall &&
                         (scheduler == "xor" || scheduler == "linear_shift");
    charged.algorithm = op.handWritten  ? "hand-written"
                        : byPermutation ? ("direct (" + scheduler + ")").str()
                                        : "direct";
    charged.seedName = byPermutation ? "1-lev-perm"
                       : collective.kind == CollectiveKind::OneToAll ||
                               collective.kind == CollectiveKind::AllToOne ||
                               collective.kind == CollectiveKind::Alltoall
                           ? "1-lev-dir"
                           : "-";
    const int64_t n = collective.numMembers();
    std::map<int64_t, std::vector<Demand>> byStep;
    for (const Demand &d : op.problem->transfers()) {
      int64_t i = collective.memberOf(d.src), j = collective.memberOf(d.dst);
      int64_t step = !byPermutation       ? 0
                     : scheduler == "xor" ? (i ^ j)
                                          : ((j - i) % n + n) % n;
      byStep[step].push_back(d);
    }
    for (const auto &entry : byStep) {
      rounds.emplace_back();
      for (const Demand &d : entry.second)
        message(d.src, d.dst, static_cast<double>(d.bytes));
    }
    return rounds;
  }
  gathers = chunks->kind == CollectiveKind::Gather ||
            chunks->kind == CollectiveKind::Reduce;
  if (op.handWritten) {
    charged.algorithm = "hand-written";
    charged.seedName = "-";
    for (const Phase &phase : op.schedule.phases) {
      rounds.emplace_back();
      for (const Transfer &t : phase.transfers)
        message(t.src, t.dst, static_cast<double>(t.bytes));
    }
    return rounds;
  }
  // The choice the scheduler made (deterministic: the same call as
  // comm-schedule-phases), then its rounds before packRounds.
  std::string error;
  FailureOr<RelaySchedule> relay = scheduleRelaying(
      topo, CostModel(topo), collective, comm::getRelayChoice(iface), error);
  FailureOr<std::vector<RelayRound>> relayRounds =
      succeeded(relay)
          ? buildRelayRounds(relay->chunks, relay->choice, error, &topo)
          : FailureOr<std::vector<RelayRound>>(failure());
  if (failed(relayRounds))
    return iface->emitError("cannot charge '")
           << op.name << "' in C^3 units: " << error;
  charged.algorithm = relay->schedule.algorithm;
  charged.seedName =
      seedNameOf(relay->choice, static_cast<int64_t>(collective.group.size()));
  const ChunkSpec &spec = relay->chunks;
  for (const RelayRound &round : *relayRounds) {
    rounds.emplace_back();
    for (const RelayStep &step : round)
      message(spec.group[step.src], spec.group[step.dst],
              static_cast<double>(step.chunks.size()) *
                  static_cast<double>(spec.chunkBytes));
  }
  return rounds;
}

/// Every operation charged, or failure after every diagnostic.
static FailureOr<std::vector<Charged>>
chargeAll(const ScheduledModule &scheduled, const CostOptions &options,
          std::map<Operation *, MachineUnits> &machines) {
  std::vector<Charged> result;
  bool failedAny = false;
  for (const ScheduledOperation &op : scheduled.operations) {
    // MLIR handles are values; their accessors are not const.
    comm::CollectiveOpInterface iface = op.op;
    Operation *operation = iface.getOperation();
    auto machine = SymbolTable::lookupNearestSymbolFrom<comm::MachineOp>(
        operation, iface.getMachineRef());
    if (!machine)
      return operation->emitError("cannot charge '")
             << op.name << "': its machine does not resolve";
    auto found = machines.find(machine.getOperation());
    if (found == machines.end()) {
      FailureOr<MachineUnits> units =
          getMachineUnits(machine, *op.topology, options);
      if (failed(units)) {
        // Once per machine; the other operations are still checked.
        machines[machine.getOperation()] = MachineUnits();
        failedAny = true;
        continue;
      }
      found = machines.emplace(machine.getOperation(), *units).first;
    }
    if (found->second.params.packetLength == 0) {
      failedAny = true;
      continue;
    }
    SymbolTable symbols(operation->getParentOfType<ModuleOp>());
    FailureOr<Collective> collective = comm::getCollective(iface, symbols);
    if (failed(collective)) {
      failedAny = true;
      continue;
    }
    Charged charged;
    charged.op = &op;
    charged.machine = &found->second;
    charged.blockBytes = collective->blockBytes;
    if (charged.blockBytes <= 0) {
      operation->emitError("cannot charge '")
          << op.name << "' in C^3 units: an operation of kind " << op.kind
          << " has no block size, the message size L the units are a "
             "function of";
      failedAny = true;
      continue;
    }
    bool gathers = false;
    auto rounds = getRounds(op, *collective, charged, gathers);
    if (failed(rounds)) {
      failedAny = true;
      continue;
    }
    std::string error;
    auto steps = c3::makeSupersteps(*op.topology, *rounds, gathers, error);
    if (failed(steps)) {
      operation->emitError("cannot charge '")
          << op.name << "' in C^3 units: " << error;
      failedAny = true;
      continue;
    }
    charged.steps = std::move(*steps);
    charged.charge = c3::chargeAlgorithm(charged.steps, found->second.params);
    result.push_back(std::move(charged));
  }
  if (failedAny)
    return failure();
  return result;
}

/// The fastest operation of a family as L grows (the seed's form, constants
/// left out as in the seed's figures): (name, up to which L in bytes; 0 =
/// no upper end).
static std::vector<std::pair<std::string, double>>
bestBySize(llvm::ArrayRef<const Charged *> family) {
  const double s = family.front()->machine->params.setup;
  auto value = [&](const Charged *c, double L) {
    c3::Linear t = c->charge.totalCommunication;
    return t.setups * s + t.perL * L;
  };
  std::vector<std::pair<std::string, double>> result;
  // The cheapest at L = 1 byte (ties: the smaller slope, then program order).
  const Charged *current = nullptr;
  for (const Charged *c : family)
    if (!current || value(c, 1) < value(current, 1) ||
        (value(c, 1) == value(current, 1) &&
         c->charge.totalCommunication.perL <
             current->charge.totalCommunication.perL))
      current = c;
  double from = 1;
  while (true) {
    const Charged *next = nullptr;
    double at = 0;
    for (const Charged *c : family) {
      double slope = c->charge.totalCommunication.perL,
             mine = current->charge.totalCommunication.perL;
      if (slope >= mine)
        continue;
      // Where c's line meets current's, beyond where current took over.
      double cross = (c->charge.totalCommunication.setups -
                      current->charge.totalCommunication.setups) *
                     s / (mine - slope);
      if (cross < from)
        cross = from;
      if (!next || cross < at) {
        next = c;
        at = cross;
      }
    }
    if (!next) {
      result.push_back({current->op->name, 0});
      return result;
    }
    // A line that takes over where the last one did has no range of its
    // own (e.g. below 1 byte).
    if (at > from)
      result.push_back({current->op->name, at});
    current = next;
    from = at;
  }
}

/// "256", "24.5": counts stay integers where they are.
static std::string formatCount(double v) {
  if (v == static_cast<double>(static_cast<int64_t>(v)))
    return std::to_string(static_cast<int64_t>(v));
  return llvm::formatv("{0:F2}", v).str();
}

static std::string formatLinear(const c3::Linear &x) {
  return llvm::formatv("{0}s + {1:F4}L", formatCount(x.setups), x.perL).str();
}

static StringRef routingName(Switching r) {
  return r == Switching::Wormhole ? "wormhole" : "store-and-forward";
}
static StringRef sendsName(SendProtocol s) {
  return s == SendProtocol::Nonblocking ? "nonblocking" : "blocking";
}

/// The routing and sends every machine shares, if they all share them.
static std::optional<std::pair<Switching, SendProtocol>>
sharedProtocol(const std::vector<const MachineUnits *> &machines) {
  std::optional<std::pair<Switching, SendProtocol>> shared;
  for (const MachineUnits *m : machines) {
    std::pair<Switching, SendProtocol> mine{m->params.routing, m->params.sends};
    if (shared && *shared != mine)
      return std::nullopt;
    shared = mine;
  }
  if (!shared)
    return std::make_pair(Switching::Wormhole, SendProtocol::Nonblocking);
  return shared;
}

/// (machine, kind) -> its operations, in program order.
static std::vector<std::vector<const Charged *>>
families(const std::vector<Charged> &charged) {
  std::vector<std::vector<const Charged *>> result;
  std::map<std::pair<const MachineUnits *, std::string>, size_t> index;
  for (const Charged &c : charged) {
    auto [it, fresh] =
        index.try_emplace({c.machine, c.op->kind}, result.size());
    if (fresh)
      result.emplace_back();
    result[it->second].push_back(&c);
  }
  return result;
}

static void writeTable(const std::vector<Charged> &charged,
                       const std::vector<const MachineUnits *> &machines,
                       const CostOptions &options, llvm::raw_ostream &os) {
  std::optional<std::pair<Switching, SendProtocol>> shared =
      sharedProtocol(machines);
  os << "C^3 units (seed 003): ";
  if (shared)
    os << routingName(shared->first) << " routing, "
       << sendsName(shared->second) << " sends";
  else
    os << "routing and sends per machine";
  os << ", nonblocking receives; L = each operation's block size\n";
  for (const MachineUnits *m : machines) {
    os << llvm::formatv("machine {0}: {1}, ", m->name, m->shape);
    if (!shared)
      os << routingName(m->params.routing) << " routing, "
         << sendsName(m->params.sends) << " sends, ";
    os << llvm::formatv("l = {0} B, one unit = l / bandwidth = {1:e} s, s = ",
                        m->params.packetLength, m->unitSeconds);
    if (m->setupFromOption)
      os << formatShortestDouble(m->params.setup) << " units (--c3-setup)\n";
    else
      os << llvm::formatv("setup_cost / unit = {0:e} s / {1:e} s = {2:F3} "
                          "units\n",
                          m->setupSeconds, m->unitSeconds, m->params.setup);
  }
  os << "\n";
  os << llvm::formatv("{0,-18} {1,-11} {2,-30} {3,-18} {4,5} {5,8} {6,9} "
                      "{7,9}",
                      "operation", "kind", "algorithm", "seed 003", "steps",
                      "set-ups", "x L", "comp. x L");
  for (int64_t L : options.sizes)
    os << llvm::formatv(" {0,11}", "L=" + std::to_string(L));
  os << "\n";
  for (const Charged &c : charged) {
    const c3::Params &params = c.machine->params;
    os << llvm::formatv(
        "{0,-18} {1,-11} {2,-30} {3,-18} {4,5} {5,8} "
        "{6,9:F4} {7,9:F5}",
        c.op->name, c.op->kind, c.algorithm, c.seedName, c.steps.size(),
        formatCount(c.charge.totalCommunication.setups),
        c.charge.totalCommunication.perL, c.charge.totalComputation.perL);
    for (int64_t L : options.sizes)
      os << llvm::formatv(
          " {0,11:F1}",
          c3::chargeAlgorithmAt(c.steps, params, static_cast<double>(L)));
    os << "\n";
  }
  os << "\n(set-ups, x L: communication units in the seed's form, "
        "set-ups x s + coefficient x L;\n L=N: the exact communication "
        "units at N-byte messages; comp.: computation units)\n";

  os << "\nsupersteps (the seed's form; + c: additive h terms the seed "
        "drops):\n";
  for (const Charged &c : charged) {
    os << c.op->name << " (" << c.algorithm << "):\n";
    for (size_t i = 0; i < c.steps.size(); ++i) {
      const c3::Superstep &step = c.steps[i];
      // The group that costs the most names the submachine.
      const c3::Group *largest = nullptr;
      double most = -1;
      for (const c3::Group &g : step.groups) {
        double v = c3::chargeGroup(g, c.machine->params)
                       .total()
                       .at(c.machine->params.setup, 1024);
        if (v > most) {
          most = v;
          largest = &g;
        }
      }
      c3::GroupCharge parts = c3::chargeGroup(*largest, c.machine->params);
      const c3::Submachine &m = largest->machine;
      os << llvm::formatv(
          "  {0,3}: {1} group{2}, largest {3} (p {4}, b {5}, "
          "h {6:F2}): {7} + {8:F2}; S+R {9}, C_l {10:F4}L, "
          "C_p {11:F4}L; comp. {12:F5}L\n",
          i + 1, step.groups.size(), step.groups.size() == 1 ? "" : "s",
          m.describe(), m.processors, m.bisection, m.distance,
          formatLinear(c.charge.communication[i]),
          c.charge.communication[i].constant, formatLinear(parts.sendReceive),
          parts.linkCongestion.perL, parts.processorCongestion.perL,
          c.charge.computation[i].perL);
    }
  }

  os << "\nbest by message size (the seed's form):\n";
  for (const auto &family : families(charged)) {
    if (family.size() < 2)
      continue;
    os << "  " << family.front()->op->kind << " on "
       << family.front()->machine->name << ":";
    double from = 0;
    bool first = true;
    for (const auto &[name, upTo] : bestBySize(family)) {
      os << (first ? " " : ", ") << name;
      first = false;
      if (upTo == 0)
        os << (from == 0 ? " at every L"
                         : llvm::formatv(" above {0:F0} B", from).str());
      else if (from == 0)
        os << llvm::formatv(" below {0:F0} B", upTo);
      else
        os << llvm::formatv(" from {0:F0} to {1:F0} B", from, upTo);
      from = upTo;
    }
    os << "\n";
  }
}

static void writeLinear(llvm::json::OStream &j, const c3::Linear &x) {
  j.objectBegin();
  j.attribute("setups", x.setups);
  j.attribute("per_L", x.perL);
  j.attribute("constant", x.constant);
  j.objectEnd();
}

static void writeJSON(const std::vector<Charged> &charged,
                      const std::vector<const MachineUnits *> &machines,
                      const CostOptions &options, llvm::raw_ostream &os) {
  llvm::json::OStream j(os, 2);
  j.objectBegin();
  j.attribute("format", "phasec-c3-units/1");
  // Shared by every machine, or given per machine.
  std::optional<std::pair<Switching, SendProtocol>> shared =
      sharedProtocol(machines);
  j.attribute("routing", shared ? routingName(shared->first) : "per machine");
  j.attribute("sends", shared ? sendsName(shared->second) : "per machine");
  j.attributeArray("machines", [&] {
    for (const MachineUnits *m : machines)
      j.object([&] {
        j.attribute("name", m->name);
        j.attribute("shape", m->shape);
        j.attribute("packet_length", m->params.packetLength);
        j.attribute("unit_seconds", m->unitSeconds);
        j.attribute("setup_units", m->params.setup);
        j.attribute("setup_from",
                    m->setupFromOption ? "--c3-setup" : "setup_cost");
        if (!shared) {
          j.attribute("routing", routingName(m->params.routing));
          j.attribute("sends", sendsName(m->params.sends));
        }
      });
  });
  j.attributeArray("operations", [&] {
    for (const Charged &c : charged) {
      const c3::Params &params = c.machine->params;
      j.object([&] {
        j.attribute("name", c.op->name);
        j.attribute("kind", c.op->kind);
        j.attribute("machine", c.machine->name);
        j.attribute("algorithm", c.algorithm);
        j.attribute("seed_name", c.seedName);
        j.attribute("block_bytes", c.blockBytes);
        j.attributeBegin("communication");
        writeLinear(j, c.charge.totalCommunication);
        j.attributeEnd();
        j.attributeBegin("computation");
        writeLinear(j, c.charge.totalComputation);
        j.attributeEnd();
        j.attributeArray("at", [&] {
          for (int64_t L : options.sizes)
            j.object([&] {
              double x = static_cast<double>(L);
              j.attribute("L", L);
              j.attribute("communication",
                          c3::chargeAlgorithmAt(c.steps, params, x));
              j.attribute("computation",
                          c3::computeAlgorithmAt(c.steps, params, x));
            });
        });
        j.attributeArray("supersteps", [&] {
          for (size_t i = 0; i < c.steps.size(); ++i)
            j.object([&] {
              j.attributeBegin("communication");
              writeLinear(j, c.charge.communication[i]);
              j.attributeEnd();
              j.attributeBegin("computation");
              writeLinear(j, c.charge.computation[i]);
              j.attributeEnd();
              j.attributeArray("groups", [&] {
                for (const c3::Group &g : c.steps[i].groups)
                  j.object([&] {
                    j.attribute("submachine", g.machine.describe());
                    j.attribute("p", g.machine.processors);
                    j.attribute("b", g.machine.bisection);
                    j.attribute("h", g.machine.distance);
                    j.attribute("messages",
                                static_cast<int64_t>(g.messages.size()));
                  });
              });
            });
        });
      });
    }
  });
  j.attributeArray("best_by_size", [&] {
    for (const auto &family : families(charged)) {
      if (family.size() < 2)
        continue;
      j.object([&] {
        j.attribute("kind", family.front()->op->kind);
        j.attribute("machine", family.front()->machine->name);
        j.attributeArray("ranges", [&] {
          for (const auto &[name, upTo] : bestBySize(family))
            j.object([&] {
              j.attribute("operation", name);
              // Hundredths of a byte: the crossing's own rounding noise
              // (12287.999999999978 for 12288) stays out of the JSON.
              if (upTo > 0)
                j.attribute("up_to_bytes", std::round(upTo * 100) / 100);
            });
        });
      });
    }
  });
  j.objectEnd();
  os << "\n";
}

LogicalResult phasec::driver::writeCostUnits(const ScheduledModule &scheduled,
                                             const CostOptions &options,
                                             llvm::raw_ostream &out) {
  std::map<Operation *, MachineUnits> machineUnits;
  FailureOr<std::vector<Charged>> charged =
      chargeAll(scheduled, options, machineUnits);
  if (failed(charged))
    return failure();
  // Machines in the order operations first use them.
  std::vector<const MachineUnits *> machines;
  for (const Charged &c : *charged)
    if (!llvm::is_contained(machines, c.machine))
      machines.push_back(c.machine);
  if (options.json)
    writeJSON(*charged, machines, options, out);
  else
    writeTable(*charged, machines, options, out);
  return success();
}
