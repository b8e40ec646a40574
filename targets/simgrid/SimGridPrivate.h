//===- SimGridPrivate.h - Shared by the back end's sources ------*- C++ -*-===//
//
// Part of phasec. MLIR-free.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Private to targets/simgrid (never installed, never included by a public
/// header): the LLVM names every source of the back end uses, brought into
/// phasec::simgrid the way mlir/Support/LLVM.h brings them into mlir, and the
/// one routine that writes a generated file.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_TARGETS_SIMGRID_SIMGRIDPRIVATE_H
#define PHASEC_TARGETS_SIMGRID_SIMGRIDPRIVATE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace phasec {
namespace simgrid {

using llvm::failure;
using llvm::LogicalResult;
using llvm::StringRef;
using llvm::success;

/// Writes what `fn` prints to dir/name, through a fresh temporary renamed
/// over it (a link planted there is replaced, not followed). On failure
/// (opening, writing or renaming) `error` says "cannot write PATH: REASON"
/// and nothing is left behind.
LogicalResult writeFileIn(StringRef dir, StringRef name,
                          llvm::function_ref<void(llvm::raw_ostream &)> fn,
                          std::string &error);

} // namespace simgrid
} // namespace phasec

#endif // PHASEC_TARGETS_SIMGRID_SIMGRIDPRIVATE_H
