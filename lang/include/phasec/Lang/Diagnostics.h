//===- Diagnostics.h - Front-end diagnostics for .sched files ---*- C++ -*-===//
//
// Part of phasec, the .sched language front end.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A small diagnostic engine on top of llvm::SourceMgr. Every user error in a
/// .sched file is reported as `file:line:col: error: message` followed by the
/// source line and a caret (columns from 1), exactly as llvm::SourceMgr
/// prints them, so that FileCheck tests and editors can rely on the format.
/// The engine counts errors (the driver decides the exit code) and stops
/// printing after a limit so that a garbage input cannot flood the terminal.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_LANG_DIAGNOSTICS_H
#define PHASEC_LANG_DIAGNOSTICS_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>

namespace phasec::lang {

class DiagnosticEngine {
public:
  explicit DiagnosticEngine(llvm::SourceMgr &sm,
                            llvm::raw_ostream &os = llvm::errs());

  /// `file:line:col: error: msg` + source line + caret. An invalid `loc`
  /// prints `error: msg` without a position.
  void error(llvm::SMLoc loc, const llvm::Twine &msg);
  void warning(llvm::SMLoc loc, const llvm::Twine &msg);
  /// A note attached to the previous error or warning (suppressed if that
  /// diagnostic was suppressed by the error limit).
  void note(llvm::SMLoc loc, const llvm::Twine &msg);
  /// `<command line>: error: msg`, for options such as --topology.
  void commandLineError(const llvm::Twine &msg);

  /// Sends every diagnostic the engine would print to `consumer` instead of
  /// the stream (lang::MLIRDiagnosticForwarder routes them into MLIR's
  /// engine). Counting and the error limit stay the engine's. An invalid
  /// location means the whole file or the command line.
  using Consumer = std::function<void(llvm::SourceMgr::DiagKind, llvm::SMLoc,
                                      const llvm::Twine &)>;
  void setConsumer(Consumer consumer) { consumer_ = std::move(consumer); }

  unsigned numErrors() const { return numErrors_; }
  unsigned numWarnings() const { return numWarnings_; }
  bool hadError() const { return numErrors_ != 0; }
  llvm::SourceMgr &sourceMgr() { return sm_; }
  llvm::raw_ostream &stream() { return os_; }

  /// The error that reaches this limit is followed by one
  /// `FILE: error: too many errors emitted, stopping now` line; later errors
  /// (and notes) are counted but not printed. 0 = no limit.
  void setErrorLimit(unsigned limit) { errorLimit_ = limit; }
  unsigned errorLimit() const { return errorLimit_; }
  /// True once the error limit has been reached: callers may stop early.
  bool shouldStop() const { return errorLimit_ && numErrors_ >= errorLimit_; }

private:
  void print(llvm::SMLoc loc, llvm::SourceMgr::DiagKind kind,
             const llvm::Twine &msg);

  llvm::SourceMgr &sm_;
  llvm::raw_ostream &os_;
  unsigned numErrors_ = 0;
  unsigned numWarnings_ = 0;
  unsigned errorLimit_ = 20;
  bool lastSuppressed_ = false;
  Consumer consumer_;
};

} // namespace phasec::lang

#endif // PHASEC_LANG_DIAGNOSTICS_H
