//===- Sema.cpp - Checking and evaluation of .sched programs --------------===//
//
// Part of phasec, the .sched language front end.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The driver of Sema (see Sema.h for how its files divide the work) and
/// the loop-iteration budget every evaluation shares.
///
//===----------------------------------------------------------------------===//

#include "Sema.h"

using namespace phasec::lang;
using namespace phasec::lang::sema;
using namespace phasec::lang::syntax;

bool Sema::countIteration(SMLoc loc) {
  if (++iterations <= opts.maxLoopIterations)
    return true;
  if (!iterationLimitHit)
    diag.error(loc, "evaluation exceeds the limit of " +
                        Twine(opts.maxLoopIterations) +
                        " loop iterations; reduce the loop bounds");
  iterationLimitHit = true;
  return false;
}

OptInt Sema::fail(SMLoc loc, const Twine &msg) {
  diag.error(loc, msg);
  return std::nullopt;
}

std::unique_ptr<Program> Sema::run() {
  prog = std::make_unique<Program>();
  llvm::SourceMgr &sm = diag.sourceMgr();
  prog->fileName =
      sm.getMemoryBuffer(sm.getMainFileID())->getBufferIdentifier().str();
  unsigned before = diag.numErrors();
  checkConstants();
  checkMachines();
  checkGroups();
  checkArrays();
  checkOps();
  if (diag.numErrors() != before)
    return nullptr;
  return std::move(prog);
}

std::unique_ptr<Program> phasec::lang::runSema(const Module &module,
                                               const FrontendOptions &opts,
                                               DiagnosticEngine &diag) {
  return sema::Sema(module, opts, diag).run();
}
