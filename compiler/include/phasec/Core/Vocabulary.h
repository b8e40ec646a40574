//===- Vocabulary.h - phasec's closed sets, declared once -------*- C++ -*-===//
//
// Part of phasec. Links LLVM only (the generated code names mlir::FailureOr
// in a header-only parser hook; no MLIR library is needed).
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The enums generated from Vocabulary.td, with `stringifyX(X)` (the one
/// spelling of each case) and `symbolizeX(StringRef)` (its inverse), plus
/// the facts about a case that a spelling cannot carry (element sizes).
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_CORE_VOCABULARY_H
#define PHASEC_CORE_VOCABULARY_H

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/DenseMapInfo.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>

#include "phasec/Core/Vocabulary.h.inc"

namespace phasec {

/// Size of one element in bytes.
int64_t elementTypeBytes(ElementType type);

/// Every spelling of an enum, in case order, joined by ", ": for "expected
/// one of" diagnostics. `maxValue` is the generated getMaxEnumValForX().
template <typename Enum> std::string joinSpellings(unsigned maxValue) {
  std::string out;
  for (unsigned v = 0; v <= maxValue; ++v) {
    if (v)
      out += ", ";
    out += stringifyEnum(static_cast<Enum>(v)).str();
  }
  return out;
}

} // namespace phasec

#endif // PHASEC_CORE_VOCABULARY_H
