//===- LangToComm.h - The evaluated .sched program to comm IR ---*- C++ -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Lowers the front end's evaluated Program to a module of the comm dialect:
/// one comm.machine per machine, one comm.group per group (implicit `all`
/// groups become `@<machine>.all`), one comm.array per array, one op per
/// communication operation and a comm.user_schedule for each hand-written
/// schedule. Every op carries a FileLineColLoc of its construct in the .sched
/// file (1-based line and column); each hand-written transfer keeps the
/// location of the `send` statement that produced it.
///
//===----------------------------------------------------------------------===//
#ifndef PHASEC_CONVERSION_LANGTOCOMM_H
#define PHASEC_CONVERSION_LANGTOCOMM_H

#include "phasec/Lang/AST.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

namespace phasec {

/// Builds the comm module of `program` (loading the comm dialect into
/// `context`). `sourceMgr` resolves the program's SMLocs. Returns null after
/// emitting an error through the context's diagnostic engine if the result
/// does not verify (a front-end bug; Sema has checked everything the
/// verifiers check).
mlir::OwningOpRef<mlir::ModuleOp> convertToComm(const lang::Program &program,
                                                mlir::MLIRContext &context,
                                                llvm::SourceMgr &sourceMgr);

} // namespace phasec

#endif // PHASEC_CONVERSION_LANGTOCOMM_H
