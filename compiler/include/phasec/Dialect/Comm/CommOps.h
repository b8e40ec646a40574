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

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"

namespace phasec::comm {
class ScheduleOp;
class UserScheduleOp;
} // namespace phasec::comm

#include "phasec/Dialect/Comm/CommInterfaces.h.inc"

#define GET_OP_CLASSES
#include "phasec/Dialect/Comm/CommOps.h.inc"

#endif // PHASEC_DIALECT_COMM_COMMOPS_H
