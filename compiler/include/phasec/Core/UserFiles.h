//===- UserFiles.h - Files a user names, and files beside them --*- C++ -*-===//
//
// Part of phasec. MLIR-free: only LLVM Support.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Every file a user names (a .sched or .mlir input, a side file of sizes or
/// a permutation table, a schedule JSON, a cache entry) is read through
/// `readBoundedFile`: only a regular file (or standard input for "-") is
/// accepted, it is opened without blocking, and reading stops once it holds
/// more than the limit. So `/dev/zero`, `/dev/urandom`, a FIFO with no
/// writer or a directory is an error at once, never a hang or an
/// exhausted memory. `escapeForTerminal` makes what such a file said safe
/// to print in a diagnostic. Files phasec writes beside the user's (cache
/// entries, a simulator directory) go through `writeFileReplacing`.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_CORE_USERFILES_H
#define PHASEC_CORE_USERFILES_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <string>
#include <system_error>

namespace phasec {

/// The contents of `path` ("-": standard input, which may be a pipe), at
/// most `maxBytes`; null with `error` set: "cannot read WHAT 'PATH': ...",
/// "WHAT 'PATH' is not a regular file", "WHAT 'PATH' is larger than the
/// limit of N bytes" (`what` names the file's role, "size matrix file";
/// empty for none). The buffer is named `path` ("<stdin>" for "-").
std::unique_ptr<llvm::MemoryBuffer>
readBoundedFile(llvm::StringRef path, uint64_t maxBytes, std::string &error,
                llvm::StringRef what = "");

/// Writes what `write` prints to `path` through a fresh temporary next to
/// it (O_EXCL, an unpredictable name) renamed over it: a symbolic link
/// planted at `path` is replaced, never followed; a concurrent reader never
/// sees half a file; a failed write (a full disk) leaves no file and is
/// returned, never LLVM's fatal "IO failure".
std::error_code
writeFileReplacing(llvm::StringRef path,
                   llvm::function_ref<void(llvm::raw_ostream &)> write);

/// The directory a back end that writes directories (SimGrid, ns-3) uses
/// when the user gave no -o: a fresh temporary directory named after
/// `prefix`, never the current directory, where runs would pile up (and, in
/// a source tree, end up in `git status`). Says so on `diag` ("note: no -o
/// given: writing to DIR"); on failure an error there and an empty string.
std::string createOutputDirectory(llvm::StringRef prefix,
                                  llvm::raw_ostream &diag);

/// The python3 a back end's report script runs with: `configured` (the
/// interpreter configure found, one with matplotlib) if it is executable,
/// else the first python3 on PATH (an installed phasec on another machine).
llvm::ErrorOr<std::string> findPython3(llvm::StringRef configured);

/// `text` safe to print on a terminal: control characters (but newlines),
/// DEL and bytes above 0x7f as `\xNN`, so that a string from a user's file
/// (a path, a name) cannot send escape sequences.
std::string escapeForTerminal(llvm::StringRef text);

} // namespace phasec

#endif // PHASEC_CORE_USERFILES_H
