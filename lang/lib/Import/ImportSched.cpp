//===- ImportSched.cpp - .sched files to the comm dialect -----------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// parse -> Sema -> convertToComm, and the `--import-sched` translation.
/// The translation reports the front end's diagnostics through MLIR's engine
/// (MLIRDiagnosticForwarder), so that `phasec-translate --import-sched
/// -verify-diagnostics` checks them against `expected-error` comments in the
/// .sched file; `phasec` itself lets the front end print them (same format,
/// plus `<command line>` and whole-file errors MLIR has no location for).
///
//===----------------------------------------------------------------------===//

#include "phasec/Lang/ImportSched.h"
#include "phasec/Dialect/Comm/CommOps.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Tools/mlir-translate/Translation.h"

#include <optional>

using namespace mlir;
using namespace phasec;
using namespace phasec::lang;

OwningOpRef<ModuleOp>
phasec::lang::importSched(llvm::SourceMgr &sourceMgr, MLIRContext &context,
                          const FrontendOptions &options,
                          DiagnosticEngine &diag,
                          std::unique_ptr<Program> *programOut) {
  std::unique_ptr<Program> program = parseAndCheck(sourceMgr, options, diag);
  if (!program || diag.hadError())
    return nullptr;
  OwningOpRef<ModuleOp> module = convertToComm(*program, context, sourceMgr);
  if (programOut)
    *programOut = std::move(program);
  return module;
}

struct MLIRDiagnosticForwarder::Impl {
  DiagnosticEngine &diag;
  MLIRContext &context;
  /// The last error or warning, held back so that its notes can be attached
  /// (MLIR prints a diagnostic with its notes when it is reported).
  std::optional<InFlightDiagnostic> pending;

  void consume(llvm::SourceMgr::DiagKind kind, llvm::SMLoc smLoc,
               const llvm::Twine &msg) {
    Location loc = getLocation(smLoc, diag.sourceMgr(), context);
    if (kind == llvm::SourceMgr::DK_Note) {
      if (pending)
        pending->attachNote(loc) << msg.str();
      return;
    }
    flush();
    pending.emplace(kind == llvm::SourceMgr::DK_Warning ? emitWarning(loc)
                                                        : emitError(loc));
    *pending << msg.str();
  }

  void flush() {
    if (pending)
      pending->report();
    pending.reset();
  }
};

MLIRDiagnosticForwarder::MLIRDiagnosticForwarder(DiagnosticEngine &diag,
                                                 MLIRContext &context)
    : impl(new Impl{diag, context, std::nullopt}) {
  diag.setConsumer([impl = impl.get()](llvm::SourceMgr::DiagKind kind,
                                       llvm::SMLoc loc,
                                       const llvm::Twine &msg) {
    impl->consume(kind, loc, msg);
  });
}

MLIRDiagnosticForwarder::~MLIRDiagnosticForwarder() {
  impl->flush();
  impl->diag.setConsumer(nullptr);
}

OwningOpRef<ModuleOp>
phasec::lang::importSchedToContext(llvm::SourceMgr &sourceMgr,
                                   MLIRContext &context,
                                   const FrontendOptions &options) {
  // The front end prints to no stream: every diagnostic goes through the
  // forwarder (which flushes the last one when it goes) into the context's
  // handler, at FileLineColLocs that outlive `sourceMgr`.
  DiagnosticEngine diag(sourceMgr, llvm::nulls());
  MLIRDiagnosticForwarder forwarder(diag, context);
  return importSched(sourceMgr, context, options, diag);
}

void phasec::lang::registerImportSchedTranslation() {
  static TranslateToMLIRRegistration importSchedRegistration(
      "import-sched", "a .sched file to the comm dialect",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *context) -> OwningOpRef<mlir::Operation *> {
        return importSchedToContext(sourceMgr, *context);
      },
      [](DialectRegistry &registry) { registry.insert<comm::CommDialect>(); });
}
