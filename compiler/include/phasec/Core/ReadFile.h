//===- ReadFile.h - Bounded reads of user-named files -----------*- C++ -*-===//
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
/// to print in a diagnostic.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_CORE_READFILE_H
#define PHASEC_CORE_READFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>

namespace phasec {

/// The contents of `path` ("-": standard input, which may be a pipe), at
/// most `maxBytes`; null with `error` set: "cannot read WHAT 'PATH': ...",
/// "WHAT 'PATH' is not a regular file", "WHAT 'PATH' is larger than the
/// limit of N bytes" (`what` names the file's role, "size matrix file";
/// empty for none). The buffer is named `path` ("<stdin>" for "-").
std::unique_ptr<llvm::MemoryBuffer>
readBoundedFile(llvm::StringRef path, uint64_t maxBytes, std::string &error,
                llvm::StringRef what = "");

/// `text` safe to print on a terminal: control characters (but newlines),
/// DEL and bytes above 0x7f as `\xNN`, so that a string from a user's file
/// (a path, a name) cannot send escape sequences.
std::string escapeForTerminal(llvm::StringRef text);

} // namespace phasec

#endif // PHASEC_CORE_READFILE_H
