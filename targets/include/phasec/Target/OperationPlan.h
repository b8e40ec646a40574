//===- OperationPlan.h - What the MPI / SHMEM back ends generate --*- C++ -*-===//
//
// Part of phasec. MLIR-free: only LLVM ADT/Support and the scheduling core.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// An `OperationPlan` is everything the MPI and OpenSHMEM code generators
/// need to emit one communication operation: what the operation is (kind,
/// element type, group, block sizes or array shape), how to move the data
/// (buffer packing, chained pack-transfer-unpack, direct deposit), how to
/// synchronise phases, and the verified phase `Schedule` that says who talks
/// to whom in which phase. The back ends never re-derive routes or phases:
/// they only translate the schedule's transfers, in group-index space, into
/// C. `buildOperationPlan` checks that the schedule delivers exactly the
/// operation's demands (it does not re-check routes or congestion, that is
/// `Problem::verify`'s job, done before).
///
/// Data layout, per group member r (P members, all sizes in bytes):
/// - alltoall: send P blocks of `blockBytes` (block d for member d), receive
///   P blocks (block s from member s); allgather: send 1 block, receive P;
///   gather / all_to_one: send 1 block, the root receives P; scatter: the
///   root sends P blocks, everyone receives 1; one_to_all: the root sends the
///   same block to everyone, everyone receives 1; rank_permute: member i
///   sends 1 block to member perm(i); alltoallv: send blocks of
///   sizes[r*P+d] bytes back to back, receive blocks of sizes[s*P+r].
/// - transpose: an n x cols array A of `elem` elements (cols == n: square),
///   rows block-distributed (RA = n/P rows per member), and its transpose
///   B = A^T (cols x n, RB = cols/P rows per member). Member s owes member d
///   the RA x RB block of A's rows of s and columns of d.
/// - permute: an array of n elements block-distributed (n/P per member);
///   element g moves to position perm[g].
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_TARGET_OPERATIONPLAN_H
#define PHASEC_TARGET_OPERATIONPLAN_H

#include "phasec/Scheduling/Collectives.h"
#include "phasec/Scheduling/Problem.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>
#include <string>
#include <vector>

namespace phasec {
namespace target {

enum class OpKind {
  Alltoall,
  Alltoallv,
  Transpose,
  Permute,
  RankPermute,
  Gather,
  Scatter,
  Allgather,
  OneToAll,
  AllToOne,
};

/// How data moves (seed 000: buffer packing vs chained; seed 001: direct
/// deposit). Only transposes and element permutations have a choice; block
/// operations always move contiguous blocks.
enum class TransferStyle {
  /// Pack everything into a buffer, exchange, unpack everything.
  Packing,
  /// Per transfer: pack, transfer, unpack (MPI: the receive side unpacks
  /// through a derived datatype when MPIOptions::derivedDatatypes).
  Chained,
  /// The copy loop writes straight into the remote array (SHMEM: stores
  /// through shmem_ptr, else puts per contiguous run; MPI: stores into an
  /// MPI_Win_allocate_shared window when all ranks share a node).
  DirectDeposit,
};

/// What separates two phases.
enum class PhaseSync { Barrier, None };

/// The local copy loop of a transpose (seed 001).
enum class LoopOrder { ContiguousLoads, ContiguousStores };

/// A C element type: the name used in .sched files and on command lines,
/// the C type and its size.
struct ElementType {
  std::string name;  ///< "i8".."u64", "f32", "f64", "c64", "c128"
  std::string cType; ///< e.g. "double", "phasec_c128_t"
  int64_t size = 1;
};

/// Parses "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32",
/// "f64", "c64" (complex64) and "c128" (complex128); also "int8".."uint64",
/// "float", "double", "complex64", "complex128", "byte".
llvm::FailureOr<ElementType> parseElementType(llvm::StringRef name,
                                              std::string &error);

llvm::StringRef stringifyOpKind(OpKind kind);
llvm::StringRef stringifyTransferStyle(TransferStyle style);
llvm::FailureOr<TransferStyle> parseTransferStyle(llvm::StringRef s,
                                                  std::string &error);

/// One transfer of the schedule in group-index space: `bytes` bytes starting
/// at byte `offset` of the data member `src` owes member `dst`.
struct PlannedTransfer {
  int32_t src, dst;
  int64_t offset, bytes;
};

/// How the peers of a phase can be computed instead of tabulated.
enum class PhaseFormula {
  /// Per-member tables (one small table per member, chosen at run time).
  Table,
  /// Every member sends to (me + k) mod P, receives from (me - k) mod P.
  Shift,
  /// Every member exchanges with me xor k.
  Xor,
};

struct PlannedPhase {
  std::vector<PlannedTransfer> transfers;
  PhaseFormula formula = PhaseFormula::Table;
  int64_t k = 0; ///< the shift or xor constant
};

/// Knobs of the plan (not of one back end).
struct PlanOptions {
  TransferStyle style = TransferStyle::DirectDeposit;
  PhaseSync sync = PhaseSync::Barrier;
  /// Strided loads with contiguous stores by default: on this machine (x86,
  /// write-allocate caches) strided stores cost a read-for-ownership per
  /// line and the transpose ran 2-3x slower that way (docs/performance.md);
  /// the T3D of seed 001 preferred the reverse.
  LoopOrder order = LoopOrder::ContiguousStores;
  /// Transposes: tile edge in elements (0 or 1 = untiled).
  int64_t tile = 16;
  /// Use phase formulas where every phase has one (else always tables).
  bool formulas = true;
};

struct OperationPlan {
  /// A C identifier, the generated function's name.
  std::string name;
  OpKind kind = OpKind::Alltoall;
  ElementType elem{"u8", "uint8_t", 1};
  /// Global ranks (ranks of the communicator), sorted.
  std::vector<RankId> group;
  /// Group index of the root (gather, scatter, one_to_all, all_to_one).
  int32_t root = -1;
  /// Block ops: bytes per block.
  int64_t blockBytes = 0;
  /// alltoallv: P x P bytes, row = source member.
  std::vector<int64_t> sizes;
  /// transpose: the rows of A; permute: the number of elements.
  int64_t n = 0;
  /// transpose: the columns of A (= the rows of B); n when square.
  int64_t cols = 0;
  /// permute / rank_permute: how the permutation was given, and the
  /// materialised permutation (perm[i] = destination of element i).
  PermutationSpec permSpec;
  std::vector<int64_t> perm;
  /// permute: P x P bytes per (source member, destination member), computed
  /// once at plan time (compiler memory only; never emitted as a table).
  std::vector<int64_t> permPairBytes;
  PlanOptions options;
  /// The verified schedule, as given (global ranks).
  Schedule schedule;
  /// The schedule in group-index space with byte offsets, formulas found.
  std::vector<PlannedPhase> phases;
  /// True when every phase has a formula of the same kind (and
  /// options.formulas): the generators emit no per-member tables.
  bool useFormulas = false;
  /// True when the shift/xor constants are 1, 2, ..., so that the phase
  /// loop needs no table at all: peer = (me + 1 + j) % P or me ^ (j + 1).
  bool consecutiveFormula = false;

  int64_t numMembers() const { return static_cast<int64_t>(group.size()); }
  /// Bytes member `src` owes member `dst` (0 on the diagonal and where
  /// nothing is owed).
  int64_t demand(int32_t src, int32_t dst) const;
  /// Transposes: rows of A per member (RA).
  int64_t rowsPerMember() const { return n / numMembers(); }
  /// Transposes: rows of B per member (RB), = rowsPerMember() when square.
  int64_t colsPerMember() const { return cols / numMembers(); }
  /// Transposes: A is n x n.
  bool isSquare() const { return cols == n; }
  /// The number of ranks the communicator must have at least.
  int64_t requiredRanks() const { return group.empty() ? 0 : group.back() + 1; }
};

/// Builds a plan from the operation (`request`, as for buildCollective; for
/// transposes and permutes request.bytes is ignored in favour of elem.size),
/// the element type and a verified schedule of the request's transfers.
/// Checks that the schedule delivers exactly the demands of the operation
/// (every pair exactly its bytes, nothing else), that splits of transposes
/// and permutes fall on element boundaries, and that `name` is a C
/// identifier; on failure sets `error`.
llvm::FailureOr<OperationPlan>
buildOperationPlan(llvm::StringRef name, const CollectiveRequest &request,
                   const ElementType &elem, const Schedule &schedule,
                   const PlanOptions &options, std::string &error);

/// Builds the plan of a transpose of a `rows` x `cols` array A (rows
/// block-distributed over request.group) into B = A^T (cols x rows, rows
/// block-distributed). `request` is the scheduled request: a square
/// transpose ("transpose", n = rows = cols) or, for a rectangular one, the
/// all-to-all of its (rows/P) x (cols/P) blocks that comm-lower-collectives
/// schedules. Checks as buildOperationPlan does; a square transpose gives
/// the same plan as buildOperationPlan.
llvm::FailureOr<OperationPlan>
buildTransposePlan(llvm::StringRef name, const CollectiveRequest &request,
                   int64_t rows, int64_t cols, const ElementType &elem,
                   const Schedule &schedule, const PlanOptions &options,
                   std::string &error);

} // namespace target
} // namespace phasec

#endif // PHASEC_TARGET_OPERATIONPLAN_H
