//===- Diagnostics.cpp - Front-end diagnostics ----------------------------===//
//
// Part of phasec, the .sched language front end.
//
//===----------------------------------------------------------------------===//

#include "phasec/Lang/Diagnostics.h"
#include "phasec/Core/UserFiles.h"

using namespace phasec::lang;

DiagnosticEngine::DiagnosticEngine(llvm::SourceMgr &sm, llvm::raw_ostream &os)
    : sm_(sm), os_(os) {}

/// The quoted source line with every byte a terminal could act on (control
/// characters, DEL, bytes above 0x7f, which a string or comment may hold)
/// shown as '?': one column each, so that the caret stays under its column.
static std::string printableLine(llvm::StringRef line) {
  std::string out(line);
  for (char &c : out) {
    unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u >= 0x7f)
      c = '?';
  }
  return out;
}

/// Messages quote names, paths and strings from the user's files: their
/// escape sequences are escaped (escapeForTerminal), in the message, the
/// file name and the quoted line. SourceMgr prints `<unknown>:0:` for a
/// diagnostic without a location; name the main file instead
/// (`file.sched: error: ...`).
void DiagnosticEngine::print(llvm::SMLoc loc, llvm::SourceMgr::DiagKind kind,
                             const llvm::Twine &msg) {
  const std::string text = escapeForTerminal(msg.str());
  if (consumer_) {
    consumer_(kind, loc, text);
    return;
  }
  if (sm_.getNumBuffers() == 0) {
    sm_.PrintMessage(os_, loc, kind, text);
    return;
  }
  if (loc.isValid()) {
    llvm::SMDiagnostic d = sm_.GetMessage(loc, kind, text);
    llvm::SMDiagnostic(sm_, d.getLoc(), escapeForTerminal(d.getFilename()),
                       d.getLineNo(), d.getColumnNo(), kind, text,
                       printableLine(d.getLineContents()), d.getRanges())
        .print(nullptr, os_);
    return;
  }
  llvm::StringRef name =
      sm_.getMemoryBuffer(sm_.getMainFileID())->getBufferIdentifier();
  llvm::SMDiagnostic(escapeForTerminal(name), kind, text).print(nullptr, os_);
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
  const std::string text = escapeForTerminal(msg.str());
  if (consumer_) {
    consumer_(llvm::SourceMgr::DK_Error, llvm::SMLoc(),
              "<command line>: " + text);
    return;
  }
  llvm::SMDiagnostic diag("<command line>", llvm::SourceMgr::DK_Error, text);
  diag.print(nullptr, os_);
}
