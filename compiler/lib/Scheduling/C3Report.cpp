//===- C3Report.cpp - C^3 units per operation, as a report ----------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/C3Report.h"

#include "phasec/Core/TopologyDesc.h"
#include "phasec/Scheduling/CostModel.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cmath>
#include <map>

using namespace phasec;
using namespace phasec::c3;
using llvm::StringRef;

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

llvm::FailureOr<OperationRounds>
phasec::c3::operationRounds(const Topology &topo, const Problem &problem,
                            const Schedule &schedule, bool handWritten,
                            const Collective &collective,
                            const RelayChoice &choice, std::string &error) {
  const double L = static_cast<double>(collective.blockBytes);
  OperationRounds out;
  std::vector<std::vector<Message>> &rounds = out.rounds;
  auto message = [&](RankId src, RankId dst, double bytes) {
    rounds.back().push_back(
        {topo.nodeOfRank(src), topo.nodeOfRank(dst), bytes / L});
  };
  const ChunkSpec *chunks = problem.chunkSpec();
  if (!chunks) {
    // An alltoall scheduled permutation by permutation is the seed's
    // 1-lev-perm: one superstep per permutation (step d: member i sends to
    // i ^ d, or to i + d mod n).
    llvm::StringRef scheduler = schedule.algorithm;
    bool byPermutation = !handWritten &&
                         collective.kind == CollectiveKind::Alltoall &&
                         (scheduler == "xor" || scheduler == "linear_shift");
    out.algorithm = handWritten     ? "hand-written"
                    : byPermutation ? ("direct (" + scheduler + ")").str()
                                    : "direct";
    out.seedName = byPermutation ? "1-lev-perm"
                   : collective.kind == CollectiveKind::OneToAll ||
                           collective.kind == CollectiveKind::AllToOne ||
                           collective.kind == CollectiveKind::Alltoall
                       ? "1-lev-dir"
                       : "-";
    const int64_t n = collective.numMembers();
    std::map<int64_t, std::vector<Demand>> byStep;
    for (const Demand &d : problem.transfers()) {
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
    return out;
  }
  out.gathers = chunks->kind == CollectiveKind::Gather ||
                chunks->kind == CollectiveKind::Reduce;
  if (handWritten) {
    out.algorithm = "hand-written";
    out.seedName = "-";
    for (const Phase &phase : schedule.phases) {
      rounds.emplace_back();
      for (const Transfer &t : phase.transfers)
        message(t.src, t.dst, static_cast<double>(t.bytes));
    }
    return out;
  }
  // The choice the scheduler made (deterministic: the same call as
  // comm-schedule-phases), then its rounds before packRounds.
  llvm::FailureOr<RelaySchedule> relay =
      scheduleRelaying(topo, CostModel(topo), collective, choice, error);
  llvm::FailureOr<std::vector<RelayRound>> relayRounds =
      succeeded(relay)
          ? buildRelayRounds(relay->chunks, relay->choice, error, &topo)
          : llvm::FailureOr<std::vector<RelayRound>>(llvm::failure());
  if (failed(relayRounds))
    return llvm::failure();
  out.algorithm = relay->schedule.algorithm;
  out.seedName =
      seedNameOf(relay->choice, static_cast<int64_t>(collective.group.size()));
  const ChunkSpec &spec = relay->chunks;
  for (const RelayRound &round : *relayRounds) {
    rounds.emplace_back();
    for (const RelayStep &step : round)
      message(spec.group[step.src], spec.group[step.dst],
              static_cast<double>(step.chunks.size()) *
                  static_cast<double>(spec.chunkBytes));
  }
  return out;
}

/// The fastest operation of a family as L grows (the seed's form, constants
/// left out as in the seed's figures): (name, up to which L in bytes; 0 =
/// no upper end).
static std::vector<std::pair<std::string, double>>
bestBySize(llvm::ArrayRef<const ChargedOperation *> family) {
  const double s = family.front()->machine->params.setup;
  auto value = [&](const ChargedOperation *c, double L) {
    Linear t = c->charge.totalCommunication;
    return t.setups * s + t.perL * L;
  };
  std::vector<std::pair<std::string, double>> result;
  // The cheapest at L = 1 byte (ties: the smaller slope, then program order).
  const ChargedOperation *current = nullptr;
  for (const ChargedOperation *c : family)
    if (!current || value(c, 1) < value(current, 1) ||
        (value(c, 1) == value(current, 1) &&
         c->charge.totalCommunication.perL <
             current->charge.totalCommunication.perL))
      current = c;
  double from = 1;
  while (true) {
    const ChargedOperation *next = nullptr;
    double at = 0;
    for (const ChargedOperation *c : family) {
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
      result.push_back({current->name, 0});
      return result;
    }
    // A line that takes over where the last one did has no range of its
    // own (e.g. below 1 byte).
    if (at > from)
      result.push_back({current->name, at});
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

static std::string formatLinear(const Linear &x) {
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
sharedProtocol(llvm::ArrayRef<const MachineUnits *> machines) {
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
static std::vector<std::vector<const ChargedOperation *>>
families(llvm::ArrayRef<ChargedOperation> charged) {
  std::vector<std::vector<const ChargedOperation *>> result;
  std::map<std::pair<const MachineUnits *, std::string>, size_t> index;
  for (const ChargedOperation &c : charged) {
    auto [it, fresh] = index.try_emplace({c.machine, c.kind}, result.size());
    if (fresh)
      result.emplace_back();
    result[it->second].push_back(&c);
  }
  return result;
}

void phasec::c3::writeTable(llvm::ArrayRef<ChargedOperation> charged,
                            llvm::ArrayRef<const MachineUnits *> machines,
                            const ReportOptions &options,
                            llvm::raw_ostream &os) {
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
  for (const ChargedOperation &c : charged) {
    const Params &params = c.machine->params;
    os << llvm::formatv("{0,-18} {1,-11} {2,-30} {3,-18} {4,5} {5,8} "
                        "{6,9:F4} {7,9:F5}",
                        c.name, c.kind, c.algorithm, c.seedName, c.steps.size(),
                        formatCount(c.charge.totalCommunication.setups),
                        c.charge.totalCommunication.perL,
                        c.charge.totalComputation.perL);
    for (int64_t L : options.sizes)
      os << llvm::formatv(
          " {0,11:F1}",
          chargeAlgorithmAt(c.steps, params, static_cast<double>(L)));
    os << "\n";
  }
  os << "\n(set-ups, x L: communication units in the seed's form, "
        "set-ups x s + coefficient x L;\n L=N: the exact communication "
        "units at N-byte messages; comp.: computation units)\n";

  os << "\nsupersteps (the seed's form; + c: additive h terms the seed "
        "drops):\n";
  for (const ChargedOperation &c : charged) {
    os << c.name << " (" << c.algorithm << "):\n";
    for (size_t i = 0; i < c.steps.size(); ++i) {
      const Superstep &step = c.steps[i];
      // The group that costs the most names the submachine.
      const Group *largest = nullptr;
      double most = -1;
      for (const Group &g : step.groups) {
        double v = chargeGroup(g, c.machine->params)
                       .total()
                       .at(c.machine->params.setup, 1024);
        if (v > most) {
          most = v;
          largest = &g;
        }
      }
      GroupCharge parts = chargeGroup(*largest, c.machine->params);
      const Submachine &m = largest->machine;
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
    os << "  " << family.front()->kind << " on "
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

static void writeLinear(llvm::json::OStream &j, const Linear &x) {
  j.objectBegin();
  j.attribute("setups", x.setups);
  j.attribute("per_L", x.perL);
  j.attribute("constant", x.constant);
  j.objectEnd();
}

void phasec::c3::writeJSON(llvm::ArrayRef<ChargedOperation> charged,
                           llvm::ArrayRef<const MachineUnits *> machines,
                           const ReportOptions &options,
                           llvm::raw_ostream &os) {
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
    for (const ChargedOperation &c : charged) {
      const Params &params = c.machine->params;
      j.object([&] {
        j.attribute("name", c.name);
        j.attribute("kind", c.kind);
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
                          chargeAlgorithmAt(c.steps, params, x));
              j.attribute("computation",
                          computeAlgorithmAt(c.steps, params, x));
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
                for (const Group &g : c.steps[i].groups)
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
        j.attribute("kind", family.front()->kind);
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
