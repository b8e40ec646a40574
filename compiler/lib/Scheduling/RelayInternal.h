//===- RelayInternal.h - what the relay files share -------------*- C++ -*-===//
//
// Part of phasec. Private to PhasecSchedulingAlgorithms.
//
//===----------------------------------------------------------------------===//

#ifndef PHASEC_LIB_SCHEDULING_RELAYINTERNAL_H
#define PHASEC_LIB_SCHEDULING_RELAYINTERNAL_H

#include "phasec/Core/Vocabulary.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>
#include <string>

namespace phasec::relay_detail {

using llvm::failure;
using llvm::FailureOr;
using llvm::LogicalResult;
using llvm::success;

/// Algorithms that pair members by the bits of their index refuse other
/// group sizes, each saying why it pairs them so.
llvm::LogicalResult requirePowerOfTwo(llvm::StringRef name, int64_t n,
                                      llvm::StringRef why, std::string &error);

/// The parameter an algorithm uses when the directive gives none.
int64_t defaultParam(Algorithm algorithm);

} // namespace phasec::relay_detail

#endif // PHASEC_LIB_SCHEDULING_RELAYINTERNAL_H
