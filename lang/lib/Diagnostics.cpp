//===- Diagnostics.cpp - Front-end diagnostics ----------------------------===//
//
// Part of phasec, the .sched language front end.
//
//===----------------------------------------------------------------------===//

#include "phasec/Lang/Diagnostics.h"

using namespace phasec::lang;

DiagnosticEngine::DiagnosticEngine(llvm::SourceMgr &sm, llvm::raw_ostream &os)
    : sm_(sm), os_(os) {}

/// SourceMgr prints `<unknown>:0:` for a diagnostic without a location; name
/// the main file instead (`file.sched: error: ...`).
void DiagnosticEngine::print(llvm::SMLoc loc, llvm::SourceMgr::DiagKind kind,
                             const llvm::Twine &msg) {
  if (consumer_) {
    consumer_(kind, loc, msg);
    return;
  }
  if (loc.isValid() || sm_.getNumBuffers() == 0) {
    sm_.PrintMessage(os_, loc, kind, msg);
    return;
  }
  llvm::StringRef name =
      sm_.getMemoryBuffer(sm_.getMainFileID())->getBufferIdentifier();
  llvm::SMDiagnostic(name, kind, msg.str()).print(nullptr, os_);
}

void DiagnosticEngine::error(llvm::SMLoc loc, const llvm::Twine &msg) {
  ++numErrors_;
  if (errorLimit_ && numErrors_ > errorLimit_) {
    lastSuppressed_ = true;
    return;
  }
  lastSuppressed_ = false;
  print(loc, llvm::SourceMgr::DK_Error, msg);
  // Say so once, right away: callers stop early once shouldStop() is true.
  if (errorLimit_ && numErrors_ == errorLimit_) {
    print(llvm::SMLoc(), llvm::SourceMgr::DK_Error,
          "too many errors emitted, stopping now");
    lastSuppressed_ = true; // its notes would follow the line above
  }
}

void DiagnosticEngine::warning(llvm::SMLoc loc, const llvm::Twine &msg) {
  ++numWarnings_;
  lastSuppressed_ = errorLimit_ && numErrors_ > errorLimit_;
  if (!lastSuppressed_)
    print(loc, llvm::SourceMgr::DK_Warning, msg);
}

void DiagnosticEngine::note(llvm::SMLoc loc, const llvm::Twine &msg) {
  if (lastSuppressed_)
    return;
  print(loc, llvm::SourceMgr::DK_Note, msg);
}

void DiagnosticEngine::commandLineError(const llvm::Twine &msg) {
  ++numErrors_;
  lastSuppressed_ = false;
  if (consumer_) {
    consumer_(llvm::SourceMgr::DK_Error, llvm::SMLoc(),
              "<command line>: " + msg);
    return;
  }
  llvm::SMDiagnostic diag("<command line>", llvm::SourceMgr::DK_Error,
                          msg.str());
  diag.print(nullptr, os_);
}
