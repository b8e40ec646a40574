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
///   root sends P blocks, everyone receives 1; one_to_all and all_to_one
///   are C^3's personalized scatter and gather (the plan's kind says so);
///   rank_permute: member i
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

#include "phasec/Core/Vocabulary.h"
#include "phasec/Scheduling/Collective.h"
#include "phasec/Scheduling/Problem.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace phasec {
namespace target {

// How data moves and what separates phases are phasec's TransferStyle and
// SyncKind (phasec/Core/Vocabulary.h): packing packs everything, exchanges,
// unpacks (seed 000); chained packs, transfers and unpacks per transfer
// (MPI: unpacking through a derived datatype when
// MPIOptions::derivedDatatypes); direct deposit writes straight into the
// remote array (seed 001; SHMEM: stores through shmem_ptr, else puts per
// contiguous run; MPI: stores into an MPI_Win_allocate_shared window when all
// ranks share a node). Only transposes and element permutations have a
// choice; block operations always move contiguous blocks.

// The local copy loop of a transpose (seed 001) is the vocabulary's
// LoopOrder; a plan never holds Auto (comm-schedule-phases resolves it).

/// A C element type: the name used in .sched files and on command lines,
/// the C type and its size.
struct ElementCType {
  std::string name;  ///< "i8".."u64", "f32", "f64", "c64", "c128"
  std::string cType; ///< e.g. "double", "phasec_c128_t"
  int64_t size = 1;
};

/// The C view of an element type of the vocabulary.
ElementCType getElementCType(ElementType type);

/// Parses "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32",
/// "f64", "c64" (complex64) and "c128" (complex128); also "int8".."uint64",
/// "float", "double", "complex64", "complex128", "byte".
/// Whether `prefix` may start every public symbol of a generated file
/// (MPIOptions::symbolPrefix): it starts a C identifier.
bool isSymbolPrefix(llvm::StringRef prefix);

llvm::FailureOr<ElementCType> parseElementType(llvm::StringRef name,
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

/// What the C back ends (MPI, OpenSHMEM) write besides the operations.
struct CFileOptions {
  /// Write the header of the file instead (`--emit=mpi-header`,
  /// `--emit=shmem-header`): the element and program types and the
  /// prototypes of the public functions (each operation, the finalize
  /// function, the program); `main` is ignored.
  bool header = false;
  /// Emit `int main` (the verifying, timing harness).
  bool main = false;
  /// Default timed iterations and warm-up runs of the harness (the program
  /// takes -i N / -w N or PHASEC_ITERATIONS / PHASEC_WARMUP).
  int iterations = 10;
  int warmup = 2;
  /// Prefix of every public symbol: each operation's function (and with it
  /// its static helpers), `phasec_program` -> PREFIXprogram and
  /// `phasec_program_t` -> PREFIXprogram_t. Two files with different
  /// prefixes link into one program. Empty: the operations' own names.
  std::string symbolPrefix;
};

/// Knobs of the plan (not of one back end).
struct PlanOptions {
  TransferStyle style = TransferStyle::DirectDeposit;
  SyncKind sync = SyncKind::Barrier;
  /// Strided loads with contiguous stores by default: on this machine (x86,
  /// write-allocate caches) strided stores cost a read-for-ownership per
  /// line and the transpose ran 2-3x slower that way (docs/performance.md);
  /// the T3D of seed 001 preferred the reverse.
  LoopOrder order = LoopOrder::ContiguousStores;
  /// Transposes: tile edge in elements (0 or 1 = untiled).
  int64_t tile = 16;
  /// Use phase formulas where every phase has one (else always tables).
  bool formulas = true;
  /// Without formulas, keep tables for one member per orbit where the
  /// schedule repeats under translations of the member index (else one
  /// table per member).
  bool translations = true;
};

/// One transfer of a relaying schedule, in member indices: the chunks as
/// runs (first chunk, count), where the receiver stages them (`roff`, bytes
/// into its receive scratch of the phase) and where the sender packs them
/// (`soff`, into its send scratch, MPI only).
struct RelayTransfer {
  int32_t src, dst;
  bool reduce = false;
  std::vector<std::pair<int64_t, int64_t>> runs;
  int64_t bytes = 0, roff = 0, soff = 0;
};

struct OperationPlan {
  /// A C identifier, the generated function's name.
  std::string name;
  /// One of the direct kinds: alltoall, alltoallv, transpose, permute,
  /// gather, scatter, allgather, one_to_all, all_to_one.
  CollectiveKind kind = CollectiveKind::Alltoall;
  /// Permute: of array elements (else of whole blocks between members).
  bool elementLevel = false;
  ElementCType elem{"u8", "uint8_t", 1};
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
  /// transpose: how A and B are distributed (by rows: slabs of rows; by
  /// cols: slabs of columns, each member's slab row-major). Rows to cols
  /// and cols to rows move nothing between members (localTranspose).
  Distribution fromDist = Distribution::Rows, toDist = Distribution::Rows;
  /// Permutes: how the permutation was given, and the materialised
  /// permutation (perm[i] = destination of element or member i).
  PermutationSpec permSpec;
  std::vector<int64_t> perm;
  /// Permutes with run-time destinations (`pattern = runtime`): the bytes
  /// of every pair in the schedule (Collective::runtimePairBytes). A
  /// transfer covering bytes [o, o + b) of a pair moves the elements
  /// [c o / B, c (o + b) / B) of the c the call's destinations send there.
  int64_t pairBytes = 0;
  /// The operation's traffic (Collective::lower, global ranks): what each
  /// member owes each other one (compiler memory only; never emitted as a
  /// table).
  TransferSet demands;
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
  /// Tables by translation (without formulas, options.translations): the
  /// transfers are invariant under a group of translations of the member
  /// index read in the mixed radix `tableRadix` (most significant digit
  /// first, each digit modulo its base). Only the members `tableReps` (one
  /// per orbit, the smallest) have tables; member m runs those of
  /// tableReps[tableOrbit[m]] with every peer moved digit by digit by
  /// m - rep. Empty: one table per member.
  std::vector<int64_t> tableRadix;
  std::vector<int32_t> tableReps, tableOrbit;
  /// Tables by rule (a schedule whose phases are held by rule,
  /// Phase::rules: the torus quotient's): phase j moves the translates of
  /// the representatives ruleReps[ruleFirst[j] .. ruleFirst[j + 1]) by every
  /// translation of ruleGroups[ruleGroup[j]], translations being member
  /// indices read in the mixed radix `tableRadix` (coordinates of the
  /// torus, then the core: the core digit 0). Every transfer moves a whole
  /// pair. plan.phases[j].transfers is then empty; the generated code
  /// derives a member's tables at run time (NAME_expand). Empty: no rules.
  std::vector<int32_t> ruleFirst, ruleGroup;
  std::vector<PlannedTransfer> ruleReps;
  std::vector<std::vector<int32_t>> ruleGroups;
  /// With rules: the most transfers one member sends (receives) in one
  /// phase, and over the whole schedule.
  int64_t ruleMaxSendsPerPhase = 0, ruleMaxRecvsPerPhase = 0;
  int64_t ruleMaxSends = 0, ruleMaxRecvs = 0;
  bool hasRules() const { return !ruleFirst.empty(); }

  /// Relaying operations (a schedule with chunks, Relay.h): the chunks, the
  /// reduction operator, the schedule per phase in member indices and the
  /// largest bytes one member receives (sends) in one phase.
  bool relaying = false;
  ChunkSpec chunks;
  ReduceKind reduceOp = ReduceKind::Add;
  std::vector<std::vector<RelayTransfer>> relayPhases;
  int64_t relayRecvScratch = 0, relaySendScratch = 0;
  /// How the phases are run: the first phase of every step, then the
  /// number of phases. A member posts a step's messages at once and applies
  /// its phases, in order, once they are done. Without any sync the steps
  /// are relaySteps' (a relay that forwards nothing is one step), else one
  /// per phase. `roff` and `soff` count within a step, the scratch sizes
  /// are a step's largest.
  std::vector<int64_t> relaySteps;
  size_t numRelaySteps() const {
    return relaySteps.empty() ? 0 : relaySteps.size() - 1;
  }

  /// A PAPERS aggregate (seed 004; docs/backends.md): the generated code
  /// adds the aggregate's own function, `papersName`, which takes the
  /// caller's value (`value`, where it has one) and returns the aggregate's
  /// result; this plan's function (`name`, `papersName` + "_xfer") moves
  /// its data. Population, enumerate, select_first/select_one and a wait
  /// without a schedule move none (`movesData` false: no schedule, and
  /// `name` is `papersName`).
  Aggregate aggregate = Aggregate::None;
  std::string papersName;
  std::optional<ElementCType> value;
  /// Seed 004's Bits variants: the aggregate sees the low `valueBits` bits
  /// of each value (0: all); `valueLogical`: 1-bit logical values (any
  /// value other than 0 is 1). Aggregates that gather the values move the
  /// narrowest unsigned integer holding the bits (`blockBytes`).
  int64_t valueBits = 0;
  bool valueLogical = false;
  bool movesData = true;

  /// The program (`phasec_program`, docs/backends.md "Programs"), made
  /// when a `local` step names a C function: the operation's place in the
  /// file, the arrays a transpose or element permute moves (C names of the
  /// program's buffer fields), and a local step's function (`call`; such a
  /// plan has kind Local and moves no data).
  int64_t programIndex = -1;
  std::string fromArray, toArray, call;

  int64_t numMembers() const { return static_cast<int64_t>(group.size()); }
  /// What the vocabulary says of the plan's kind.
  const CollectiveTraits &traits() const { return getTraits(kind); }
  /// A transpose (a distributed matrix).
  bool isTranspose() const { return traits().shape == DataShape::Matrix; }
  /// Blocks or elements to the members a permutation names.
  bool isPermutation() const {
    return traits().shape == DataShape::Permutation;
  }
  /// A permutation of array elements.
  bool isElementPermute() const { return isPermutation() && elementLevel; }
  /// Every member sends to and receives from every other member, the same
  /// bytes (alltoall, allgather, transpose): phase formulas can apply.
  bool everyPairExchanges() const {
    const CollectiveTraits &t = traits();
    return isTranspose() || (t.shape == DataShape::Blocks &&
                             t.send.holders == DataHolders::Every &&
                             t.recv.holders == DataHolders::Every &&
                             t.recv.part == DataPart::PerMember);
  }
  /// Every member receives every member's block (allgather).
  bool gathersToAll() const { return phasec::gathersToAll(kind); }
  /// Blocks of per-pair sizes (alltoallv).
  bool hasPairSizes() const { return traits().shape == DataShape::PairSizes; }
  /// Moves no data (a barrier, a local step).
  bool isDataless() const { return traits().shape == DataShape::None; }
  /// An element permute whose destinations come with each call.
  bool runtimeDestinations() const {
    return isElementPermute() && permSpec.kind == PermuteKind::Runtime;
  }
  /// Bytes member `src` owes member `dst` (0 on the diagonal and where
  /// nothing is owed).
  int64_t demand(int32_t src, int32_t dst) const;
  /// Transposes: rows of A per member (RA).
  int64_t rowsPerMember() const { return n / numMembers(); }
  /// Transposes: rows of B per member (RB), = rowsPerMember() when square.
  int64_t colsPerMember() const { return cols / numMembers(); }
  /// Transposes: A is n x n (with the same distribution on both sides: a
  /// local transpose has its own shape, getTransposeShape).
  bool isSquare() const { return cols == n && !localTranspose(); }
  /// Transposes between a rows- and a cols-distributed array: every member
  /// transposes its own slab.
  bool localTranspose() const { return isTranspose() && fromDist != toDist; }
  /// The number of ranks the communicator must have at least.
  int64_t requiredRanks() const { return group.empty() ? 0 : group.back() + 1; }
  /// The machine's number of ranks, which the communicator of a call must
  /// have (0: not known, not checked).
  int64_t machineRanks = 0;
};

/// Builds a plan from the operation, the element type of its arrays
/// (transposes and element permutes; ignored otherwise) and a verified
/// schedule of its traffic. Checks that the schedule delivers exactly the
/// operation's demands (every pair exactly its bytes, nothing else), that
/// splits of transposes and permutes fall on element boundaries, that the
/// arrays are laid out as the generators lay them out (slabs of rows), and
/// that `name` is a C identifier; on failure sets `error`.
///
/// `name` becomes a C function: it must be an identifier that is not a C
/// keyword, not a function the generated files use (main, free, ...), and
/// not start with a prefix the generated code or MPI/SHMEM reserve
/// (phasec_call_, run_, MPI_, PMPI_, shmem_, SHMEM_). Both plans check it;
/// tools may check it first.
/// A local step's `call` follows the same rules (`what` names it in the
/// message).
llvm::LogicalResult checkOperationName(llvm::StringRef name, std::string &error,
                                       llvm::StringRef what = "operation name");
/// A C keyword or a name the generated files use (drivers that rename
/// operations for C append '_' to these).
bool isTakenCName(llvm::StringRef name);

/// The plan of a relaying operation: `schedule` carries chunks and was
/// verified against `chunks` by Problem::verify (the replay).
llvm::FailureOr<OperationPlan>
buildRelayPlan(llvm::StringRef name, const Collective &collective,
               const ChunkSpec &chunks, const Schedule &schedule,
               const PlanOptions &options, std::string &error);

/// `machine` is the machine whose translations the schedule's phases held
/// by rule name (a schedule with rules needs it): an all-to-all of every
/// rank of a torus keeps them (tables by rule), anything else is planned
/// from its listed transfers.
llvm::FailureOr<OperationPlan>
buildOperationPlan(llvm::StringRef name, const Collective &collective,
                   const ElementCType &elem, const Schedule &schedule,
                   const PlanOptions &options, std::string &error,
                   const Topology *machine = nullptr);

} // namespace target
} // namespace phasec

#endif // PHASEC_TARGET_OPERATIONPLAN_H
