//===- CommDialect.cpp - The comm dialect ---------------------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Registers the comm dialect's ops and attributes.
///
//===----------------------------------------------------------------------===//

#include "phasec/Dialect/Comm/CommOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace phasec::comm;

#include "phasec/Dialect/Comm/CommOpsDialect.cpp.inc"

void CommDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "phasec/Dialect/Comm/CommOps.cpp.inc"
      >();
  registerAttributes();
}
