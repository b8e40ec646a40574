//===- ImportSched.h - .sched files to the comm dialect ---------*- C++ -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The front end as an MLIR translation (`phasec-translate --import-sched`),
/// in its own library (PhasecLangImport) so that PhasecLang itself stays
/// MLIR-free: parse and check a .sched file (Parser.h), then lower the
/// evaluated Program to a module of the comm dialect: one comm.machine per
/// machine, one comm.group per group (implicit `all` groups become
/// `@<machine>.all`), one comm.array per array, one op per communication
/// operation and a comm.user_schedule for each hand-written schedule. Every
/// op carries a FileLineColLoc of its construct in the .sched file (1-based
/// line and column); each hand-written transfer keeps the location of the
/// `send` statement that produced it.
///
/// Dependencies point one way: lang -> compiler (the dialect); the compiler
/// knows nothing of the language.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_LANG_IMPORTSCHED_H
#define PHASEC_LANG_IMPORTSCHED_H

#include "phasec/Lang/AST.h"
#include "phasec/Lang/Diagnostics.h"
#include "phasec/Lang/Parser.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>

namespace phasec::lang {

/// The MLIR location of `loc` in `sourceMgr`: file:line:col, or unknown for
/// an invalid location.
mlir::Location getLocation(llvm::SMLoc loc, llvm::SourceMgr &sourceMgr,
                           mlir::MLIRContext &context);

/// Builds the comm module of `program` (loading the comm dialect into
/// `context`). `sourceMgr` resolves the program's SMLocs. Returns null after
/// emitting an error through the context's diagnostic engine if the result
/// does not verify (a front-end bug; Sema has checked everything the
/// verifiers check).
mlir::OwningOpRef<mlir::ModuleOp> convertToComm(const Program &program,
                                                mlir::MLIRContext &context,
                                                llvm::SourceMgr &sourceMgr);

/// Parses and checks the main buffer of `sourceMgr` (errors through `diag`)
/// and converts it to the comm dialect. Returns null on error. `programOut`
/// receives the evaluated program if given (`phasec --emit=ast`).
mlir::OwningOpRef<mlir::ModuleOp>
importSched(llvm::SourceMgr &sourceMgr, mlir::MLIRContext &context,
            const FrontendOptions &options, DiagnosticEngine &diag,
            std::unique_ptr<Program> *programOut = nullptr);

/// Reports `diag`'s diagnostics through `context`'s MLIR diagnostic engine
/// (errors and warnings at their file:line:col, notes attached to the
/// diagnostic before them), so that `-verify-diagnostics` sees the front
/// end's errors like any pass's. Keep the returned object alive while `diag`
/// is used; it flushes the last diagnostic when destroyed.
class MLIRDiagnosticForwarder {
public:
  MLIRDiagnosticForwarder(DiagnosticEngine &diag, mlir::MLIRContext &context);
  ~MLIRDiagnosticForwarder();

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// importSched with every front-end diagnostic reported through `context`'s
/// engine (MLIRDiagnosticForwarder), none printed: what a translation or a
/// library caller with its own diagnostic handler wants. Null on error.
mlir::OwningOpRef<mlir::ModuleOp>
importSchedToContext(llvm::SourceMgr &sourceMgr, mlir::MLIRContext &context,
                     const FrontendOptions &options = FrontendOptions());

/// Registers `--import-sched` with mlir-translate's registry.
void registerImportSchedTranslation();

} // namespace phasec::lang

#endif // PHASEC_LANG_IMPORTSCHED_H
