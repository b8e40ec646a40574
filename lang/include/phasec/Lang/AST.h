//===- AST.h - The evaluated program of a .sched file -----------*- C++ -*-===//
//
// Part of phasec, the .sched language front end.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The typed, fully evaluated AST that parseAndCheck() returns. Sema has
/// already evaluated every expression: machines carry concrete topology
/// parameters and rates, groups carry sorted lists of global ranks,
/// operations carry concrete sizes, and hand-written schedules are unrolled
/// into explicit phases of (src, dst, bytes) transfers. Later layers (the
/// lowering to the comm dialect) therefore never evaluate expressions; they
/// only read these plain structs. Every closed set (operation kinds,
/// element types, directives...) is phasec's vocabulary
/// (phasec/Core/Vocabulary.h), shared with the dialect and the back ends.
///
/// Every node keeps the llvm::SMLoc of the construct that produced it so that
/// later layers can point errors back into the .sched file.
///
/// The header is usable from code compiled with -fno-exceptions and
/// -fno-rtti: plain structs, LLVM ADT and std containers only.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_LANG_AST_H
#define PHASEC_LANG_AST_H

#include "phasec/Core/TopologyDesc.h"
#include "phasec/Core/Vocabulary.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace phasec::lang {

//===----------------------------------------------------------------------===//
// Machines
//===----------------------------------------------------------------------===//

struct Machine {
  std::string name;
  llvm::SMLoc loc;
  /// Location of the `topology = ...` value (or of the machine if a
  /// --topology override replaced it).
  llvm::SMLoc topologyLoc;

  TopologyKind kind = TopologyKind::Torus;
  /// Torus/mesh: extents per dimension; hypercube(n): n extents of 2.
  /// Dimension 0 varies fastest in the node numbering. Empty for PERCS.
  llvm::SmallVector<int64_t, 4> dims;
  /// PERCS only (0 otherwise).
  int64_t supernodes = 0, drawers = 0, nodesPerDrawer = 0;
  /// percs' fourth argument: D links between two supernodes (0 = default).
  int64_t dLinks = 0;
  int64_t ranksPerNode = 1;

  /// Bytes per second of each Network link (torus/mesh/hypercube).
  double bandwidth = 0;
  /// Seconds per hop of a Network link.
  double latency = 0;
  /// PERCS link classes: bytes per second and seconds per hop.
  double llBandwidth = 0, lrBandwidth = 0, dBandwidth = 0;
  double llLatency = 0, lrLatency = 0, dLatency = 0;
  /// Bytes per second a node can inject (and receive) at once; 0 = unlimited.
  double injectionBandwidth = 0;

  Routing routing = Routing::DimensionOrder;
  /// The complete dimension order for DimensionOrder routing (a permutation
  /// of 0..numDims-1); empty for PERCS (Direct).
  llvm::SmallVector<unsigned, 4> dimOrder;
  /// What messages and copies cost beyond the links' bandwidth: C^3's
  /// set-up cost, packet length, switching and send protocol (seed 003),
  /// the barrier between phases, and local copy rates (seed 000).
  MachineCosts cost;

  int64_t numNodes() const;
  int64_t numRanks() const { return numNodes() * ranksPerNode; }
  unsigned numDims() const { return static_cast<unsigned>(dims.size()); }
  /// Coordinate `dim` of `node` (dimension 0 fastest). Grid topologies only.
  int64_t coord(int64_t node, unsigned dim) const;
  /// PERCS: supernode, drawer (within the supernode) and index (within the
  /// drawer) of a node.
  int64_t percsSupernode(int64_t node) const;
  int64_t percsDrawer(int64_t node) const;
  int64_t percsIndex(int64_t node) const;
};

//===----------------------------------------------------------------------===//
// Constants, groups, arrays
//===----------------------------------------------------------------------===//

struct Constant {
  std::string name;
  llvm::SMLoc loc;
  int64_t value = 0;
};

struct Group {
  std::string name;
  llvm::SMLoc loc;
  const Machine *machine = nullptr;
  /// True if the group was defined over nodes (it then holds every rank of
  /// each selected node), false if over ranks.
  bool overNodes = false;
  /// True for the implicit group `all` of a machine.
  bool implicitAll = false;
  /// Sorted, duplicate-free global ranks.
  std::vector<int32_t> ranks;
  /// Sorted, duplicate-free nodes (overNodes only; empty otherwise).
  std::vector<int32_t> nodes;

  int64_t size() const { return static_cast<int64_t>(ranks.size()); }
  /// Index of `rank` in `ranks`, or -1.
  int64_t indexOf(int32_t rank) const;
  bool contains(int32_t rank) const { return indexOf(rank) >= 0; }
};

struct Array {
  std::string name;
  llvm::SMLoc loc;
  ElementType elementType = ElementType::F64;
  llvm::SmallVector<int64_t, 4> shape;
  /// Block distribution of dimension 0 (Rows) or 1 (Cols) over `group`;
  /// Sema guarantees that the group size divides that extent.
  Distribution distribution = Distribution::Rows;
  const Group *group = nullptr;
  const Machine *machine = nullptr;

  int64_t numElements() const;
  int64_t sizeBytes() const {
    return numElements() * elementTypeBytes(elementType);
  }
};

//===----------------------------------------------------------------------===//
// Operations
//===----------------------------------------------------------------------===//

/// One transfer of a hand-written schedule: global ranks and bytes, with the
/// location of the `send` statement that produced it.
struct Transfer {
  int32_t src = 0, dst = 0;
  int64_t bytes = 0;
  llvm::SMLoc loc;
  /// A relaying schedule's send: the chunk ids it carries (in the order
  /// written) and whether it reduces them into the receiver's; empty for a
  /// direct schedule.
  std::vector<int64_t> chunks;
  bool reduce = false;
};

struct Phase {
  llvm::SMLoc loc;
  std::vector<Transfer> transfers;
};

struct Directives {
  Algorithm algorithm = Algorithm::Auto;
  llvm::SMLoc algorithmLoc;
  /// KLevel: number of levels, 0 meaning log2(group size) (`logp`).
  int64_t kLevels = 0;
  KLevelShape kShape = KLevelShape::None;
  /// k_level(logp, rec, gamma): gamma in percent; 0 = one half.
  int64_t kGammaPercent = 0;
  /// Relaying algorithms: knomial(radix), chain/ring/rabenseifner(segments);
  /// 0 = the algorithm's default.
  int64_t algorithmParam = 0;
  SyncKind sync = SyncKind::Auto;
  /// Array operations default to auto (Sema); block operations have no
  /// style of their own.
  TransferStyle style = TransferStyle::Packing;
  /// Transposes: seed 001's copy loop (`auto`: the copy-transfer model's).
  LoopOrder loopOrder = LoopOrder::Auto;
  /// Solver budget (Z3 rlimit); 0 = the scheduler's default.
  int64_t rlimit = 0;
};

struct Operation {
  CollectiveKind kind = CollectiveKind::Alltoall;
  Aggregate aggregate = Aggregate::None;
  std::string name;
  llvm::SMLoc loc;
  const Machine *machine = nullptr;
  /// The group the operation runs on (the machine's `all` by default).
  const Group *group = nullptr;
  /// Global rank of the root (gather, scatter, broadcast, reduce,
  /// one_to_all, all_to_one); -1 otherwise. Sema checks it is in the group.
  int32_t root = -1;

  /// Bytes per (src, dst) block: alltoall, gather, scatter, allgather,
  /// broadcast, one_to_all, all_to_one, rank-level permute, and reductions
  /// (count * element size). 0 where not applicable.
  int64_t blockBytes = 0;

  /// Alltoallv (and putget): size matrix in bytes, row-major
  /// [src index][dst index] over the group's ranks (group->size()^2 entries).
  std::vector<int64_t> sizes;
  /// allgatherv, gatherv, scatterv: each member's block, bytes in group
  /// order (0 allowed); blockBytes is then the largest.
  std::vector<int64_t> memberBytes;

  /// Transpose and element-level permute: source and destination arrays.
  const Array *from = nullptr, *to = nullptr;

  /// Permute: the rule and its parameters; `permutation` holds only a
  /// `table` pattern's entries (the other rules are materialised by
  /// Collective::getPermutation, in the scheduling library): for a
  /// rank-level permute `permutation[i]` is the group index receiving group
  /// index i's block; for an element-level permute (over `from`) it is the
  /// destination element (row-major linear index) of element i.
  PermuteKind permuteKind = PermuteKind::Random;
  uint64_t seed = 0;
  int64_t mask = 0;
  int64_t shift = 0;
  std::string tableFile;
  bool elementLevel = false;
  std::vector<int64_t> permutation;

  /// PAPERS aggregates that take a value (`type`): its type, which the
  /// generated function takes and returns. The data moved may be of
  /// another type (bcast moves the value's bits as an unsigned integer).
  std::optional<ElementType> valueType;
  /// Seed 004's Bits variants (`bits = K`): the aggregate sees the low
  /// `valueBits` bits of each value (0: all of them); its 1-bit logical
  /// values (`type = bit`, "1u") are `valueLogical`, one bit, any value
  /// other than 0 being 1.
  int64_t valueBits = 0;
  bool valueLogical = false;

  /// `local NAME { call = f; }`: the user's C function the generated
  /// program calls for this step (docs/language.md, "Local steps").
  std::string call;

  /// Reduce, allreduce, scan (and the PAPERS typed aggregates).
  ReduceKind reduceOp = ReduceKind::Add;
  ElementType elementType = ElementType::Int32;
  int64_t count = 0;

  Directives directives;

  /// Hand-written schedule (directives.algorithm == Schedule), unrolled.
  bool hasSchedule = false;
  /// A hand-written relaying schedule (its sends carry chunks): the number
  /// of chunks the data is cut into (`chunks = C;`, else the fewest the
  /// kind's chunk table allows) and the bytes of each; 0 otherwise.
  int64_t numChunks = 0;
  int64_t chunkBytes = 0;
  llvm::SMLoc scheduleLoc;
  std::vector<Phase> phases;

  uint64_t numScheduledTransfers() const;
};

//===----------------------------------------------------------------------===//
// Program
//===----------------------------------------------------------------------===//

struct Program {
  /// The buffer the program came from (the SourceMgr's main file).
  std::string fileName;
  std::vector<std::unique_ptr<Machine>> machines;
  std::vector<std::unique_ptr<Constant>> constants;
  /// Every machine's implicit `all` group comes first, in machine order,
  /// then the named groups in source order.
  std::vector<std::unique_ptr<Group>> groups;
  std::vector<std::unique_ptr<Array>> arrays;
  std::vector<std::unique_ptr<Operation>> operations;

  const Machine *lookupMachine(llvm::StringRef name) const;
  /// Looks a group up by name within `machine` (nullptr: any machine).
  const Group *lookupGroup(llvm::StringRef name,
                           const Machine *machine = nullptr) const;
  const Array *lookupArray(llvm::StringRef name) const;
  const Operation *lookupOperation(llvm::StringRef name) const;
  /// The implicit group `all` of `machine`.
  const Group *allGroup(const Machine *machine) const;

  /// Deterministic, readable dump for `phasec --emit=ast` (golden tests
  /// depend on its format). Long rank lists, size matrices, permutation
  /// tables and transfer lists are summarised after `maxItems` entries
  /// (0 = print everything).
  void print(llvm::raw_ostream &os, unsigned maxItems = 16) const;
};

} // namespace phasec::lang

#endif // PHASEC_LANG_AST_H
