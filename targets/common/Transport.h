//===- Transport.h - One C transport under MPI and OpenSHMEM ----*- C++ -*-===//
//
// Part of phasec. Internal to targets/ (not installed).
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What the operations written once for both back ends (relays, RelayC.cpp;
/// permutes with run-time destinations, RuntimePermuteC.cpp; the PAPERS
/// aggregates, PapersC.cpp) ask of the transport they run on: how a
/// function starts, allocates, moves bytes, waits, synchronises and fails.
/// Each back end describes itself once (MPIEmitter.cpp's mpiTransport(),
/// SHMEMEmitter.cpp's shmemTransport()); the operations' text is the same
/// for both but for these statements.
///
/// Two transports, two ways of moving bytes:
/// - two-sided (MPI): the receiver posts a receive for every transfer into
///   it, the sender a send; `complete` (MPI_Waitall) ends both, so after it
///   every byte sent to the caller has arrived;
/// - one-sided (OpenSHMEM): the sender puts into the receiver's symmetric
///   memory at an address it knows; nothing is posted at the receiver, and
///   what was put into the caller is known delivered after the next
///   `barrier` (quiet + barrier). Memory a put lands in is symmetric,
///   allocated collectively by every process of the job (before those
///   outside the group leave), and reused only after a barrier says that
///   nobody still reads it.
///
/// Statements are returned whole: indented by `in` and ending in a
/// newline.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_TARGETS_COMMON_TRANSPORT_H
#define PHASEC_TARGETS_COMMON_TRANSPORT_H

#include "phasec/Target/OperationPlan.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace phasec {
namespace target {
namespace detail {

struct CTransport {
  /// "MPI", "OpenSHMEM".
  const char *name;
  /// Puts into symmetric memory (above) rather than sends and receives.
  bool oneSided;

  //===--- The functions' shape ---------------------------------------===//
  /// The trailing parameter and argument of an operation (", MPI_Comm
  /// comm", ", comm"), and the parameter list of a function that takes
  /// nothing else ("MPI_Comm comm", "void").
  const char *commParam, *commArg, *commOnly;
  /// What an operation returns when it worked.
  const char *success;
  /// The constant that asks an operation to work in place ("MPI_IN_PLACE"),
  /// or "" where the transport has none.
  const char *inPlace;
  /// Who calls an operation, for its comment (a sentence).
  const char *whoCalls;

  //===--- Starting, allocating, failing ------------------------------===//
  /// An operation's first statements: the job checked against the
  /// machine, `me` the caller's member index, and a caller outside the
  /// group gone, having taken part in `NAME_NBARRIERS` barriers on a
  /// one-sided transport. `collective` writes what every process must do
  /// before that (the symmetric allocations); on a one-sided transport the
  /// prologue ends in a barrier: the previous call is done with the
  /// symmetric memory.
  void (*prologue)(llvm::raw_ostream &os, const OperationPlan &plan,
                   llvm::function_ref<void()> collective);
  /// `ptr = (type *)` `bytes` of private memory, `what` naming them; fails
  /// as the transport's operations fail.
  std::string (*alloc)(llvm::StringRef in, llvm::StringRef ptr,
                       llvm::StringRef type, llvm::StringRef bytes,
                       llvm::StringRef what);
  /// The same, symmetric (one-sided transports; collective).
  std::string (*symmetricAlloc)(llvm::StringRef in, llvm::StringRef ptr,
                                llvm::StringRef type, llvm::StringRef bytes,
                                llvm::StringRef what);
  /// Reports `message` (printf's format and arguments: `"text", args`) as
  /// the caller's and ends the job.
  std::string (*fail)(llvm::StringRef in, const OperationPlan &plan,
                      llvm::StringRef format, llvm::StringRef args);

  //===--- Moving bytes -----------------------------------------------===//
  /// The type of a posted transfer's handle (two-sided), or nullptr. The
  /// operations keep them in `req`, `nreq` of them.
  const char *requestType;
  /// Posts the receive of `bytes` from member `peer` into `buf` (two-sided).
  std::string (*recv)(llvm::StringRef in, const OperationPlan &plan,
                      llvm::StringRef buf, llvm::StringRef bytes,
                      llvm::StringRef peer, llvm::StringRef tag);
  /// Sends `bytes` at `buf` to member `peer`: into its `remote` (the same
  /// symmetric address there) on a one-sided transport. `synchronous`: the
  /// send completes only once the receiver has it (MPI_Issend), which keeps
  /// a rank's phases in order where no barrier does.
  std::string (*send)(llvm::StringRef in, const OperationPlan &plan,
                      llvm::StringRef buf, llvm::StringRef remote,
                      llvm::StringRef bytes, llvm::StringRef peer,
                      llvm::StringRef tag, bool synchronous);
  /// Completes every transfer the caller posted (and resets `nreq`).
  std::string (*complete)(llvm::StringRef in, const OperationPlan &plan);
  /// The group's barrier; `why` is its comment.
  std::string (*barrier)(llvm::StringRef in, const OperationPlan &plan,
                         llvm::StringRef why);

  //===--- The PAPERS aggregates (PapersC.cpp) ------------------------===//
  /// Declares `rank_`, the caller's rank (a statement).
  const char *rankStatement;
  /// Who calls an aggregate, for the function comment.
  const char *whoCallsPapers;
  /// Ends the program after an error (an expression).
  const char *abort;
  /// The call of the data function X with the send and receive buffers, as
  /// a statement without ';'.
  std::string (*callXfer)(const std::string &x, const std::string &send,
                          const std::string &recv);
  /// A wait without a schedule: what it needs at file scope (the MPI
  /// communicator, an OpenSHMEM active set's pSync), and the statements of
  /// its barrier (`me_` is the caller's member index); the plan's name is
  /// the data function's prefix.
  std::string (*groupSupport)(const OperationPlan &plan);
  std::string (*groupBarrier)(const OperationPlan &plan);
  /// The data functions of direct (not relaying) operations put into the
  /// receive buffer of other PEs: it must be symmetric (OpenSHMEM). The
  /// aggregate's function then receives into a symmetric buffer of its own
  /// (NAME_PAPERS_SYM bytes, allocated on the first call) and copies out.
  bool symmetricRecv;
};

/// What makes every transfer into the caller posted before it land: the
/// posted transfers completed (two-sided), or a barrier (one-sided).
inline std::string emitDelivered(const CTransport &tr, llvm::StringRef in,
                                 const OperationPlan &plan) {
  return tr.oneSided ? tr.barrier(in, plan, "delivered")
                     : tr.complete(in, plan);
}

/// A relaying operation's function (RelayC.cpp), after emitRelayCommon.
/// It runs the plan's steps (relaySteps): a one-sided transport knows a
/// step's puts delivered after its barrier.
void emitRelayFunction(llvm::raw_ostream &os, const OperationPlan &plan,
                       const CTransport &tr);

/// A permute with run-time destinations (RuntimePermuteC.cpp): its work
/// space and its function, after emitRuntimePermuteSupport.
void emitRuntimePermuteFunction(llvm::raw_ostream &os,
                                const OperationPlan &plan,
                                const CTransport &tr);

/// The aggregate's function(s) for a plan with plan.aggregate set (after
/// the plan's own data function, if it moves data; PapersC.cpp).
void emitPapersFunction(llvm::raw_ostream &os, const OperationPlan &plan,
                        const CTransport &tr);

} // namespace detail
} // namespace target
} // namespace phasec

#endif // PHASEC_TARGETS_COMMON_TRANSPORT_H
