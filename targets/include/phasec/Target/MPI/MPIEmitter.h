//===- MPIEmitter.h - C + MPI code from operation plans ---------*- C++ -*-===//
//
// Part of phasec. MLIR-free.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Emits C11 + MPI for OperationPlans: one function per operation,
///   int NAME(const void *sendbuf, void *recvbuf, MPI_Comm comm)   (blocks)
///   int NAME(const T *a, T *b, MPI_Comm comm)                     (transpose,
///                                                                  permute)
/// collective over `comm`, whose ranks are the plan's global ranks. Per
/// phase: receives posted, then sends, then a wait (MPI_Sendrecv when the
/// member has one send and one receive in the phase), then the phase sync
/// the plan asks for. Transposes: buffer packing, chained (transposing pack
/// per block; the receive side unpacks through an MPI_Type_vector when
/// derivedDatatypes, else explicitly), or direct deposit: stores into an
/// MPI_Win_allocate_shared window when every rank shares a node (the output
/// must come from NAME_alloc_output(comm); other buffers take the chained
/// path). With `main`, a harness that fills, warms up, times, verifies
/// every byte and exits non-zero on a wrong byte.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_TARGET_MPI_MPIEMITTER_H
#define PHASEC_TARGET_MPI_MPIEMITTER_H

#include "phasec/Target/OperationPlan.h"

#include "llvm/Support/raw_ostream.h"

namespace phasec {
namespace target {

struct MPIOptions : CFileOptions {
  /// Transposes (chained): receive through a derived datatype instead of
  /// into a buffer plus an unpack loop.
  bool derivedDatatypes = true;
  /// With `main`: rank 0 also prints `PHASEC_SIM_TIME <median seconds>` and
  /// `PHASEC_SIM_VERIFIED <wrong bytes>`, the lines the SimGrid runner
  /// parses (the simulator target builds this harness with smpicc).
  bool simTimeLine = false;
};

/// Writes one C file for `plans`. Fails (setting `error`) on an empty list,
/// duplicate names, or a transfer larger than MPI's int count.
llvm::LogicalResult emitMPI(llvm::ArrayRef<OperationPlan> plans,
                            llvm::raw_ostream &os, const MPIOptions &options,
                            std::string &error);

} // namespace target
} // namespace phasec

#endif // PHASEC_TARGET_MPI_MPIEMITTER_H
