//===- CommOps.h - comm dialect operations ----------------------*- C++ -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Everything of the comm dialect: the dialect, attributes, enums, the
/// collective op interface and the ops.
///
//===----------------------------------------------------------------------===//
#ifndef PHASEC_DIALECT_COMM_COMMOPS_H
#define PHASEC_DIALECT_COMM_COMMOPS_H

#include "phasec/Dialect/Comm/CommAttrs.h"
#include "phasec/Dialect/Comm/CommDialect.h"
#include "phasec/Scheduling/Problem.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"

#include <type_traits>

namespace phasec::comm {
class ScheduleOp;
class UserScheduleOp;
class CollectiveOpInterface;
namespace detail {
/// The verifiers of the op families (Comm_BlocksOp, Comm_RootedOp,
/// Comm_ReductionOp): directives, block or element type and count, root;
/// machine, group and root against the symbols.
mlir::LogicalResult verifyFamilyOp(CollectiveOpInterface op);
mlir::LogicalResult
verifyFamilySymbolUses(CollectiveOpInterface op,
                       mlir::SymbolTableCollection &symbolTable);
/// Whether an op class has `member_bytes` (the families whose kinds have
/// v-forms): CollectiveOpInterface::getMemberBlockBytes reads it where it
/// exists, by its typed accessor.
template <typename Op, typename = void>
struct HasMemberBytes : std::false_type {};
template <typename Op>
struct HasMemberBytes<
    Op, std::void_t<decltype(std::declval<Op &>().getMemberBytes())>>
    : std::true_type {};
} // namespace detail
} // namespace phasec::comm

#include "phasec/Dialect/Comm/CommInterfaces.h.inc"

#define GET_OP_CLASSES
#include "phasec/Dialect/Comm/CommOps.h.inc"

namespace phasec::comm {
/// The IR type of an element type of the vocabulary: signless integers for
/// the signed kinds, unsigned integers, f32, f64, complex<f32>,
/// complex<f64>.
mlir::Type getElementIRType(ElementType type, mlir::MLIRContext *context);
/// The element type an IR type stands for (signless or unsigned integers of
/// 8..64 bits are the signed / unsigned kinds), or none for a type arrays and
/// reductions do not allow.
std::optional<ElementType> getElementTypeKind(mlir::Type type);

/// A comm.machine named `name` describing `desc` (the inverse of
/// MachineOp::getTopologyDesc), for passes that build machines from a
/// topology spec (comm-import-mesh).
MachineOp createMachineOp(mlir::OpBuilder &builder, mlir::Location loc,
                          llvm::StringRef name, const TopologyDesc &desc);
} // namespace phasec::comm

#endif // PHASEC_DIALECT_COMM_COMMOPS_H
