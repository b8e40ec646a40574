//===- ScheduleIR.h - Between comm IR and the scheduling library -*- C++ -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The translation between comm ops and the MLIR-free scheduling library
/// (Topology, TransferSet, Schedule). The passes, the driver and the back
/// ends use these helpers so that there is exactly one encoding of transfer
/// sets and phases in the IR.
///
//===----------------------------------------------------------------------===//
#ifndef PHASEC_TRANSFORMS_SCHEDULEIR_H
#define PHASEC_TRANSFORMS_SCHEDULEIR_H

#include "phasec/Dialect/Comm/CommOps.h"
#include "phasec/Scheduling/Problem.h"
#include "phasec/Topology/Topology.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"

#include <memory>
#include <string>

namespace phasec::comm {

/// Everything the module says about one communication operation.
struct OperationRecord {
  CollectiveOpInterface op;
  MachineOp machine;
  GroupOp group;
  TransferSetOp transferSet;
  ScheduleOp schedule;
  UserScheduleOp userSchedule;
};

/// The communication operations of `module` in program order, keyed by name,
/// with their machine, group, transfer set and schedules (null where absent
/// or unresolvable; the verifier reports unresolvable references).
llvm::MapVector<mlir::StringAttr, OperationRecord>
collectOperations(mlir::ModuleOp module);

/// Builds machines once per MachineOp (the topology is immutable).
class TopologyCache {
public:
  /// The machine's topology, or failure() after reporting an error on it.
  mlir::FailureOr<const Topology *> get(MachineOp machine);

private:
  llvm::DenseMap<mlir::Operation *, std::unique_ptr<Topology>> cache_;
};

/// The demands of a transfer set (already canonical).
TransferSet getTransferSet(TransferSetOp op);
/// A comm.transfer_set of `collective` holding `set`: its demands as
/// (src, dst, bytes) triples, or a set held by rule as its rule (all_pairs).
TransferSetOp createTransferSetOp(mlir::OpBuilder &builder, mlir::Location loc,
                                  llvm::StringRef collective,
                                  const TransferSet &set);

/// The phases of a schedule body (bound and algorithm left empty).
void getPhases(mlir::Region &body, Schedule &schedule);
/// The schedule a comm.schedule describes (phases, bound, algorithm).
Schedule getSchedule(ScheduleOp op);
/// The phases of a hand-written schedule; bound from its attributes if set.
Schedule getSchedule(UserScheduleOp op);

/// Appends one comm.phase per phase of `schedule` to `body` (at `loc`);
/// phases held by rule keep their rules, and the schedule's translation
/// groups go on the comm.schedule that owns `body`.
void appendPhases(mlir::OpBuilder &builder, mlir::Location loc,
                  mlir::Region &body, const Schedule &schedule);

/// The record's schedule relays (it has `num_chunks`): its problem is a
/// chunk spec, not a transfer set.
bool isRelaying(OperationRecord record);

/// A comm.permute of array elements (it names a `from` array).
bool isElementPermute(mlir::Operation *op);

/// The cost model of the operation on `topo`: the machine as described,
/// with the operation's `sync` (comm ops default to barrier) and its copies
/// (Collective::getCopyPattern; array operations with their `style`, which
/// comm ops default to packing).
CostModel getCostModel(mlir::Operation *op, const Topology &topo);

/// The problem the record's schedule solves on `topo`: its transfer set, or
/// for a relaying schedule the ChunkSpec of the operation (kind, group,
/// root) with the schedule's chunks. Errors are emitted.
mlir::FailureOr<std::unique_ptr<Problem>>
getProblem(OperationRecord record, const Topology &topo);

} // namespace phasec::comm

#endif // PHASEC_TRANSFORMS_SCHEDULEIR_H
