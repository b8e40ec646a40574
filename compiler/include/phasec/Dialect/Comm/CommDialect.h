//===- CommDialect.h - The comm dialect -------------------------*- C++ -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The comm dialect class. Include CommOps.h for the ops and attributes.
///
//===----------------------------------------------------------------------===//
#ifndef PHASEC_DIALECT_COMM_COMMDIALECT_H
#define PHASEC_DIALECT_COMM_COMMDIALECT_H

#include "mlir/IR/Dialect.h"

#include "phasec/Dialect/Comm/CommOpsDialect.h.inc"

#endif // PHASEC_DIALECT_COMM_COMMDIALECT_H
