//===- GeneratedNames.h - C names derived from an operation's name -*- C++
//-*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The MPI and OpenSHMEM back ends name an operation's C function after the
/// operation (NAME) and its nonblocking forms and their statics NAME +
/// suffix. The front end refuses an operation whose name is another's plus
/// one of these suffixes (at the declaration), and the back ends refuse such
/// plans from any other source (MLIR input).
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_CORE_GENERATEDNAMES_H
#define PHASEC_CORE_GENERATEDNAMES_H

#include "llvm/ADT/StringRef.h"

namespace phasec {

inline constexpr llvm::StringLiteral kNonblockingSuffixes[] = {
    "_start", "_test", "_wait",    "_init",      "_start_persistent",
    "_task",  "_nb",   "_nb_body", "_nb_launch", "_sync"};

/// The suffix s such that `name` is `base` + s, or "" if there is none.
inline llvm::StringRef derivedNameSuffix(llvm::StringRef base,
                                         llvm::StringRef name) {
  if (!name.starts_with(base))
    return "";
  llvm::StringRef rest = name.drop_front(base.size());
  for (llvm::StringRef s : kNonblockingSuffixes)
    if (rest == s)
      return s;
  return "";
}

} // namespace phasec

#endif // PHASEC_CORE_GENERATEDNAMES_H
