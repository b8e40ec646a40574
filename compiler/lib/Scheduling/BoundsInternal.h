//===- BoundsInternal.h - Shared by Bounds.cpp and CutBounds.cpp -*- C++
//-*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Private to PhasecScheduling: what the link-load, injection and cut
/// bounds all read from a direct problem's demands.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_SCHEDULING_BOUNDSINTERNAL_H
#define PHASEC_SCHEDULING_BOUNDSINTERNAL_H

#include "phasec/Scheduling/Problem.h"

#include <vector>

namespace phasec::detail {

/// Every rank of the machine sends the same bytes to every other: the
/// demands are the same seen from any node.
bool isCompleteExchange(const Problem &problem);

/// Per node, the bytes its ranks send to, and receive from, ranks of other
/// nodes (demands with a rank out of range are Problem::check()'s and
/// skipped).
void bytesOffNode(const Problem &problem, std::vector<double> &sent,
                  std::vector<double> &received);

} // namespace phasec::detail

#endif // PHASEC_SCHEDULING_BOUNDSINTERNAL_H
