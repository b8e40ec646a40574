//===- CollectiveIR.h - A comm operation as a Collective --------*- C++ -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The one translation of a comm communication operation into the
/// scheduling library's Collective (phasec/Scheduling/Collective.h):
/// comm-lower-collectives lowers it to a transfer set, and the back ends
/// build their plans from the same value, so that the traffic that was
/// scheduled and the traffic the generated code moves come from one place.
///
//===----------------------------------------------------------------------===//
#ifndef PHASEC_TRANSFORMS_COLLECTIVEIR_H
#define PHASEC_TRANSFORMS_COLLECTIVEIR_H

#include "phasec/Dialect/Comm/CommOps.h"
#include "phasec/Scheduling/Collective.h"
#include "phasec/Scheduling/Relay.h"

#include "mlir/IR/SymbolTable.h"

namespace phasec::comm {

/// The Collective of `op` (group, root, sizes, array layouts, permutation),
/// with its group and arrays looked up in `symbols`. failure() after an
/// error reported on `op` (a group or array that does not resolve, a
/// transpose of arrays not distributed by rows over the operation's group).
/// Whether the operation can be lowered is Collective::lower's to say.
mlir::FailureOr<Collective> getCollective(CollectiveOpInterface op,
                                          mlir::SymbolTable &symbols);

/// The operation is scheduled by relaying (Relay.h), not as direct
/// transfers: its kind forwards or combines data (broadcast, reductions,
/// scans), or its `algorithm` directive names a relaying algorithm (trees,
/// rings, Bruck, ...), or `auto` chose a relay over its direct schedule
/// (kRelayedByAutoAttr). Such operations get no comm.transfer_set.
bool isRelayedOperation(CollectiveOpInterface op);

/// Set by comm-schedule-phases on an operation left to `auto` whose
/// relaying schedule beat its direct one (chooseRelayOverDirect): a string,
/// the two machine times, for the reports. The directive stays `auto`.
inline constexpr llvm::StringLiteral kRelayedByAutoAttr =
    "comm.relayed_by_auto";

/// The relaying algorithm (and parameter) the operation's directive asks
/// for; Auto where it names none.
RelayChoice getRelayChoice(CollectiveOpInterface op);

} // namespace phasec::comm

#endif // PHASEC_TRANSFORMS_COLLECTIVEIR_H
