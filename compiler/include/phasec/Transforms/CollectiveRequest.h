//===- CollectiveRequest.h - comm op -> scheduling request ------*- C++ -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The one translation of a comm communication operation into the
/// scheduling library's CollectiveRequest (phasec/Scheduling/Collectives.h).
/// comm-lower-collectives builds transfer sets from it, and the driver hands
/// the same request to the MPI / OpenSHMEM plan builder, so that the traffic
/// that was scheduled and the traffic the generated code moves come from the
/// same place.
///
//===----------------------------------------------------------------------===//
#ifndef PHASEC_TRANSFORMS_COLLECTIVEREQUEST_H
#define PHASEC_TRANSFORMS_COLLECTIVEREQUEST_H

#include "phasec/Dialect/Comm/CommOps.h"
#include "phasec/Scheduling/Collectives.h"

#include "mlir/IR/SymbolTable.h"

namespace phasec::comm {

/// True for operations that move no data (barrier, local): they have no
/// request, transfer set or schedule.
bool movesNoData(CollectiveOpInterface op);

/// The library request for `op` (group, root, sizes, array extents and
/// element bytes, permutation), with its group and arrays looked up in
/// `symbols`. A rectangular transpose becomes the all-to-all it is on the
/// wire. failure() after an error reported on `op` (unresolved group,
/// arrays not distributed by rows, indivisible extents, operations that move
/// no data). Whether the library supports the request is decided by
/// buildCollective, not here.
mlir::FailureOr<CollectiveRequest>
buildCollectiveRequest(CollectiveOpInterface op, mlir::SymbolTable &symbols);

} // namespace phasec::comm

#endif // PHASEC_TRANSFORMS_COLLECTIVEREQUEST_H
