//===- ScheduleJSON.h - The phasec-schedule/1 and /2 writer -----*- C++ -*-===//
//
// Part of phasec. MLIR-free: only LLVM ADT/Support.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Writes `shared/spec/schedule-json.md` exactly, streaming (a 16.7 M
/// transfer schedule is never built as a JSON tree), one phase per line.
///
/// - `collective`: a complete uniform all-to-all over every rank of the
///   machine is written as {"kind": "alltoall"|"transpose", "bytes": B};
///   everything else as {"kind": "permute", "pairs": [[s, d, b], ...]} with
///   the operation's own kind in the extra key "op" (the spec's checker
///   knows only alltoall, transpose and permute, and must accept every
///   schedule phasec emits).
/// - a relaying problem (Problem::chunkSpec) is written as /2: its
///   collective as {"kind", "root", "chunks", "chunk_bytes", "group" (when
///   not every rank in order)}, each transfer's fourth element with
///   "chunks" and "reduce"; a file of several operations is /2 when any of
///   them relays.
/// - a transfer gets {"dirs": [...]} only if its node pair has a tie: 1 or -1
///   in the tie dimensions, 0 elsewhere; PERCS transfers across supernodes
///   get {"path": [nodes]}.
/// - `lower_bound`: {"phases": bound.blocks (bound.minPhases where there is
///   no uniform block), "reason", "time" (seconds)}.
/// - extra keys: "algorithm", "schedule_time".
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_SCHEDULING_SCHEDULEJSON_H
#define PHASEC_SCHEDULING_SCHEDULEJSON_H

#include "phasec/Scheduling/Problem.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace phasec {

/// What the document says about the operation.
struct CollectiveInfo {
  /// The name the source file gives the operation.
  std::string operation;
  /// "alltoall", "transpose", "permute", "gather", ...
  std::string kind;
};

/// One document of a multi-operation file.
struct ScheduleDocument {
  const Problem *problem;
  const Schedule *schedule;
  CollectiveInfo info;
};

/// Whether `schedule`, which passed problem.verify(), has a document the
/// spec's replay accepts: a barrier whose reductions overlap (a
/// dissemination barrier on a member count that is not a power of two,
/// ReplayRules) has none; `error` then says why.
llvm::LogicalResult checkScheduleDocument(const Problem &problem,
                                          const Schedule &schedule,
                                          std::string &error);

/// One document with its "format" key. The schedule must have passed
/// Problem::verify() (ranks in range) and checkScheduleDocument.
void writeScheduleJSON(llvm::raw_ostream &os, const Problem &problem,
                       const Schedule &schedule, const CollectiveInfo &info);
/// {"format": "phasec-schedule/1", "operations": [doc, ...]}.
void writeScheduleJSON(llvm::raw_ostream &os,
                       llvm::ArrayRef<ScheduleDocument> documents);

/// The deepest nesting of arrays and objects a schedule file may have (a
/// document needs 6: operations, phases, a phase, a transfer, its object,
/// its "dirs" or "chunks").
constexpr unsigned kMaxScheduleJSONDepth = 64;

/// One document read back (see readScheduleJSON).
struct ParsedScheduleDocument {
  TopologyDesc topology;
  /// What the collective asks for: alltoall/transpose = every ordered pair of
  /// distinct ranks gets `bytes`; permute = the listed pairs.
  TransferSet transfers;
  /// A relaying collective (/2): its chunks; `transfers` is then empty.
  std::optional<ChunkSpec> chunks;
  Schedule schedule;
  CollectiveInfo info;
};

/// Reads a phasec-schedule/1 file (one document or "operations"), so that
/// hand-made or foreign schedules can go through Problem::verify(). Supports
/// torus, mesh, hypercube and percs topologies; "dirs" become TieMasks
/// (errors for a longer way); a "path" must be the route phasec's routing
/// takes (PERCS: the gateway route of Topology.h). The extra topology key
/// "link_latency" (seconds per hop) is read for the simulator. This is the
/// one reader of the format (phasec-sim uses it too). lower_bound.phases and
/// .time are read into schedule.bound when present. Errors name the
/// operation, phase and transfer. A text nested deeper than
/// kMaxScheduleJSONDepth is refused before it is parsed (the parser
/// recurses per level); callers bound its size (readBoundedFile).
llvm::FailureOr<std::vector<ParsedScheduleDocument>>
readScheduleJSON(llvm::StringRef text, std::string &error);

} // namespace phasec

#endif // PHASEC_SCHEDULING_SCHEDULEJSON_H
