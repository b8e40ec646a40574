//===- CostUnits.cpp - --emit=cost / --export-cost: C^3 units ------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The IR's side of `--emit=cost`: each machine's C^3 parameters from its
/// comm.machine, each operation's collective and relaying choice from its
/// op; the rounds, the charging and the report are the scheduling
/// library's (phasec/Scheduling/C3Report.h).
///
//===----------------------------------------------------------------------===//

#include "phasec/Transforms/CostUnits.h"
#include "phasec/Scheduling/C3Report.h"
#include "phasec/Transforms/CollectiveIR.h"

#include "mlir/IR/SymbolTable.h"

#include <map>

using namespace mlir;
using namespace phasec;

/// The machine's parameters, or a diagnostic at the machine.
static FailureOr<c3::MachineUnits> getMachineUnits(comm::MachineOp machine,
                                                   const Topology &topo,
                                                   const CostOptions &options) {
  c3::MachineUnits units;
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

/// Every operation charged, or failure after every diagnostic.
static FailureOr<std::vector<c3::ChargedOperation>>
chargeAll(const ScheduledModule &scheduled, const CostOptions &options,
          std::map<Operation *, c3::MachineUnits> &machines) {
  std::vector<c3::ChargedOperation> result;
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
      FailureOr<c3::MachineUnits> units =
          getMachineUnits(machine, *op.topology, options);
      if (failed(units)) {
        // Once per machine; the other operations are still checked.
        machines[machine.getOperation()] = c3::MachineUnits();
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
    c3::ChargedOperation charged;
    charged.name = op.name;
    charged.kind = op.kind;
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
    std::string error;
    FailureOr<c3::OperationRounds> rounds = c3::operationRounds(
        *op.topology, *op.problem, op.schedule, op.handWritten, *collective,
        comm::getRelayChoice(iface), error);
    if (failed(rounds)) {
      operation->emitError("cannot charge '")
          << op.name << "' in C^3 units: " << error;
      failedAny = true;
      continue;
    }
    charged.algorithm = rounds->algorithm;
    charged.seedName = rounds->seedName;
    auto steps = c3::makeSupersteps(*op.topology, rounds->rounds,
                                    rounds->gathers, error);
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

LogicalResult phasec::writeCostUnits(const ScheduledModule &scheduled,
                                     const CostOptions &options,
                                     llvm::raw_ostream &out) {
  std::map<Operation *, c3::MachineUnits> machineUnits;
  FailureOr<std::vector<c3::ChargedOperation>> charged =
      chargeAll(scheduled, options, machineUnits);
  if (failed(charged))
    return failure();
  // Machines in the order operations first use them.
  std::vector<const c3::MachineUnits *> machines;
  for (const c3::ChargedOperation &c : *charged)
    if (!llvm::is_contained(machines, c.machine))
      machines.push_back(c.machine);
  if (options.json)
    c3::writeJSON(*charged, machines, options, out);
  else
    c3::writeTable(*charged, machines, options, out);
  return success();
}
