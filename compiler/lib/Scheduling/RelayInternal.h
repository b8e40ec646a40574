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

/// The largest r with r * r <= v (v >= 0).
int64_t floorSqrt(int64_t v);

/// The parameter an algorithm uses when the directive gives none; for
/// grid, which depends on the group, the divisor of `members` nearest
/// sqrt(members) from below that makes several rows (SimGrid's 2dmesh:
/// rows of 6 on 54, of 8 on 64), 0 where there is none (a prime count).
int64_t defaultParam(Algorithm algorithm, int64_t members = 0);

/// grid's row length on n members: `param`, or without one (0) the
/// default. Fails, saying why, unless 1 < row length < n and it divides n.
FailureOr<int64_t> gridRowLength(llvm::StringRef name, int64_t n, int64_t param,
                                 std::string &error);

} // namespace phasec::relay_detail

#endif // PHASEC_LIB_SCHEDULING_RELAYINTERNAL_H
