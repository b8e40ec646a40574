//===- SHMEMEmitter.h - C + OpenSHMEM code from operation plans -*- C++ -*-===//
//
// Part of phasec. MLIR-free.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Emits C11 + OpenSHMEM 1.4 (Open MPI's oshmem: no teams) for
/// OperationPlans, one function per operation:
///   void NAME(const void *sendbuf, void *recvbuf)   (blocks)
///   void NAME(const T *a, T *b)                      (transpose, permute)
/// collective over all PEs (PE numbers are the plan's ranks); the receive
/// buffer / output array must be symmetric (shmem_malloc). The data move by
/// one-sided writes: per phase each member writes what it owes its peers of
/// the phase straight into their arrays, then shmem_quiet and a barrier
/// (PhaseSync::Barrier). Transposes and permutes with direct deposit store
/// through shmem_ptr when the peer's memory is mapped (same node) and fall
/// back to a shmem_putmem per contiguous run; chained packs a strip of runs
/// and puts them; packing packs everything, puts whole blocks into a
/// symmetric receive area and unpacks after the last phase.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_TARGET_SHMEM_SHMEMEMITTER_H
#define PHASEC_TARGET_SHMEM_SHMEMEMITTER_H

#include "phasec/Target/OperationPlan.h"

#include "llvm/Support/raw_ostream.h"

namespace phasec {
namespace target {

struct SHMEMOptions : CFileOptions {
  /// Block transfers with shmem_putmem_nbi (completed by the phase's
  /// shmem_quiet) instead of shmem_putmem.
  bool nonBlocking = true;
  /// Direct deposit: try shmem_ptr stores first (else always puts).
  bool useShmemPtr = true;
};

/// Writes one C file for `plans`. Fails (setting `error`) on an empty list
/// or duplicate names.
llvm::LogicalResult emitSHMEM(llvm::ArrayRef<OperationPlan> plans,
                              llvm::raw_ostream &os,
                              const SHMEMOptions &options, std::string &error);

} // namespace target
} // namespace phasec

#endif // PHASEC_TARGET_SHMEM_SHMEMEMITTER_H
