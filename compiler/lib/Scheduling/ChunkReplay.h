//===- ChunkReplay.h - Pre/postconditions and replay of chunks --*- C++ -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Private to PhasecScheduling: the chunk table of schedule JSON /2 (who
/// holds which chunk with which contributions before and after each
/// relaying collective) and the replay Problem::verify runs on relaying
/// schedules. Bounds.cpp reads the same conditions for the bytes each rank
/// must send and receive.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_SCHEDULING_CHUNKREPLAY_H
#define PHASEC_SCHEDULING_CHUNKREPLAY_H

#include "phasec/Scheduling/Problem.h"

#include "llvm/ADT/BitVector.h"

namespace phasec {

/// A chunk a member holds or must hold: `tag` indexes ChunkConditions::tags
/// (sets of members, by group index); -1 in `after` = any contributions.
struct HeldChunk {
  int64_t chunk;
  int32_t tag;
};

struct ChunkConditions {
  /// before[i] / after[i]: member i's chunks, sorted by chunk id.
  std::vector<std::vector<HeldChunk>> before, after;
  /// Tag 0..n-1 is {member i}; then whatever the kind needs.
  std::vector<llvm::BitVector> tags;
};

/// The table of the spec for `spec` (which ChunkSpec::check accepted).
ChunkConditions getChunkConditions(const ChunkSpec &spec);

/// Replays `schedule` against `spec` and appends at most `maxViolations`
/// violations (transfers with ranks outside [0, numRanks) are skipped: the
/// caller reports them). `rules` says whether a barrier's reductions may
/// overlap (ReplayRules in Problem.h).
void replayChunks(const ChunkSpec &spec, const Schedule &schedule,
                  int64_t numRanks,
                  llvm::SmallVectorImpl<ScheduleViolation> &violations,
                  unsigned maxViolations, ReplayRules rules);

} // namespace phasec

#endif // PHASEC_SCHEDULING_CHUNKREPLAY_H
