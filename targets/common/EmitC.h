//===- EmitC.h - C emission shared by the MPI and SHMEM back ends -*- C++ -*-===//
//
// Part of phasec. Internal to targets/ (not installed).
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The parts of a generated program that do not depend on the transport:
/// element types, the member map, phase formulas or per-member tables,
/// displacements, permutation index lists, the transpose copy kernels and
/// the harness's fill / check functions. Every function writes C11 text for
/// one OperationPlan; names are prefixed with the plan's name.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_TARGETS_COMMON_EMITC_H
#define PHASEC_TARGETS_COMMON_EMITC_H

#include "phasec/Target/OperationPlan.h"

#include "llvm/Support/raw_ostream.h"

namespace phasec {
namespace target {
namespace detail {

/// Checks the plans of one output file (non-empty, distinct names).
llvm::LogicalResult checkPlans(llvm::ArrayRef<OperationPlan> plans,
                               std::string &error);

/// Typedefs every generated file carries (complex types, phasec_xfer_t).
void emitCommonTypes(llvm::raw_ostream &os);

/// A comment describing the plan: operation, group, schedule, phases.
void emitPlanComment(llvm::raw_ostream &os, const OperationPlan &plan);

/// Constants, member map, phase formulas or tables, displacements,
/// permutation support, transpose kernels.
void emitPlanData(llvm::raw_ostream &os, const OperationPlan &plan);

/// Permutations (a formula, a table, or built at run time), an element
/// permute's index lists, a transpose's copy kernels (ArraysC.cpp).
void emitArrayData(llvm::raw_ostream &os, const OperationPlan &plan);

/// NAME_rank(m) and NAME_member(rank).
void emitMemberMap(llvm::raw_ostream &os, const OperationPlan &plan);

/// Relaying operations (RelayC.cpp): the schedule tables, the reduction
/// and the copy-in/copy-out of the work space (the function itself is
/// emitRelayFunction, Transport.h), and the harness helpers (fill, check
/// against a serial evaluation, sizes).
void emitRelayCommon(llvm::raw_ostream &os, const OperationPlan &plan);
void emitRelayHarnessHelpers(llvm::raw_ostream &os, const OperationPlan &plan);

/// Permutes with run-time destinations (RuntimePermuteC.cpp): the counting,
/// presort copy and scatter helpers (the function itself is
/// emitRuntimePermuteFunction, Transport.h), and the harness's destinations
/// (a run-time random permutation, NAME_perm).
void emitRuntimePermuteSupport(llvm::raw_ostream &os,
                               const OperationPlan &plan);
void emitRuntimePermuteHarness(llvm::raw_ostream &os,
                               const OperationPlan &plan);

/// The program (docs/backends.md, "Programs"): made when a `local` step
/// names a C function (`call`); every plan with a programIndex is a step.
struct ProgramTransport {
  const char *result;     ///< "int", "void"
  const char *commParam;  ///< ", MPI_Comm comm", ""
  const char *commArg;    ///< ", comm", ""
  const char *collective; ///< " (collective over comm)", ...
  bool checkStatus;       ///< the operations return a status to check
  const char *success;    ///< "MPI_SUCCESS"
  /// The program's function; its buffer type is this + "_t".
  std::string name = "phasec_program";
};
bool hasProgram(llvm::ArrayRef<OperationPlan> plans);
/// The emitters' symbol prefix (MPIOptions/SHMEMOptions::symbolPrefix):
/// `plans` with it on every operation's names (plan.name names all of an
/// operation's C; local steps keep the caller's function) into `prefixed`,
/// which the emitter then reads instead of `plans`. Failure (`error` set)
/// for a prefix that does not start a C identifier.
llvm::LogicalResult applySymbolPrefix(llvm::ArrayRef<OperationPlan> &plans,
                                      llvm::StringRef prefix,
                                      std::vector<OperationPlan> &prefixed,
                                      std::string &error);
/// The start of an MPI operation's function: `rank`, the communicator's
/// size against the machine's (else the caller gets
/// phasec_mpi_error_comm_size()), `me` (its member index, -1 outside the
/// group, which returns after the split) and `g`, the members'
/// communicator.
void emitMPIPrologue(llvm::raw_ostream &os, const OperationPlan &plan);
/// `phasec_program`, or PREFIXprogram under a symbol prefix.
std::string programName(llvm::StringRef symbolPrefix);

/// The header of a generated C file `source` (the same back end's output
/// without a main): the element and program types and a prototype, with its
/// comment, of every function the file defines outside `static`, between
/// include guards and `extern "C"`. Taken from the source itself so that the
/// two cannot disagree. `include` is the back end's system header (`mpi.h`,
/// `shmem.h`).
void emitCHeader(llvm::StringRef source, llvm::StringRef backEnd,
                 llvm::StringRef include, llvm::StringRef symbolPrefix,
                 llvm::raw_ostream &os);

/// The first statement of a generated OpenSHMEM operation: the job's PEs
/// must be the machine's ranks (PHASEC_SHMEM_ERR_NPES otherwise).
void emitSHMEMPrologue(llvm::raw_ostream &os, const OperationPlan &plan);

/// `options.header` of a back end's emitter: its file (without a main)
/// through emitCHeader.
template <typename Options>
llvm::LogicalResult
emitHeaderOf(llvm::LogicalResult (*emit)(llvm::ArrayRef<OperationPlan>,
                                         llvm::raw_ostream &, const Options &,
                                         std::string &),
             llvm::ArrayRef<OperationPlan> plans, llvm::raw_ostream &os,
             const Options &options, std::string &error,
             llvm::StringRef backEnd, llvm::StringRef include) {
  Options source = options;
  source.header = false;
  source.main = false;
  std::string text;
  llvm::raw_string_ostream ts(text);
  if (failed(emit(plans, ts, source, error)))
    return llvm::failure();
  emitCHeader(text, backEnd, include, options.symbolPrefix, os);
  return llvm::success();
}

/// The generated file's finalize function: "phasec_finalize", or
/// PREFIX + "finalize" with a symbol prefix.
std::string finalizeName(llvm::StringRef symbolPrefix);
/// The local steps' prototypes, `phasec_program_t` (one buffer field per
/// array or operation) and `phasec_program(bufs, ctx[, comm])` (named
/// ProgramTransport::name).
void emitProgram(llvm::raw_ostream &os, llvm::ArrayRef<OperationPlan> plans,
                 const ProgramTransport &tr);

/// Block ops: `static void NAME_local(int me, const void *sendbuf, void
/// *recvbuf)`, the part of the operation that stays on the member.
void emitLocalCopy(llvm::raw_ostream &os, const OperationPlan &plan);

/// Operations on blocks called in place (sendbuf == recvbuf): the table
/// `NAME_sext[m]`, the bytes member m's call reads from sendbuf, and the
/// private copy `NAME_stage` the call puts them in before anything arrives
/// (emitStageInPlace). `NAME_stage` is freed by the operation's release.
void emitInPlaceSupport(llvm::raw_ostream &os, const OperationPlan &plan);
/// The statements that stage an in-place call's input; `inPlaceConstant`
/// (MPI_IN_PLACE) also means in place; `alloc(ptr, bytes)` is the
/// transport's statement that allocates ptr.
void emitStageInPlace(
    llvm::raw_ostream &os, const OperationPlan &plan,
    llvm::StringRef inPlaceConstant,
    llvm::function_ref<std::string(llvm::StringRef, llvm::StringRef)> alloc);
/// What the buffers of an operation on blocks or of a relay must be, as the
/// lines of a C comment (`   text`, without the comment's end): the
/// function's comment, and so the header, states it. Both may be called in
/// place.
std::string describeBuffers(const OperationPlan &plan,
                            llvm::StringRef inPlaceConstant);
/// `text` cut into lines of at most 78 columns, each starting with three
/// spaces (a comment's continuation lines).
std::string wrapComment(llvm::StringRef text);

/// Whether the harness also runs the operation in place (relays and
/// operations on blocks), in the receive buffer, which NAME_buffer_bytes()
/// sizes for both sides.
bool hasInPlaceRun(const OperationPlan &plan);

/// Harness helpers: NAME_send_bytes/recv_bytes(me), NAME_fill(me, buf),
/// NAME_check(me, buf, st), NAME_size() (the OSU "Size" column).
void emitHarnessHelpers(llvm::raw_ostream &os, const OperationPlan &plan);

struct NonblockingTransport;

/// What the harness (`--main`) of one transport writes where the MPI and
/// OpenSHMEM harnesses differ; everything else of `run_NAME` and `main` is
/// the same text (emitHarnessRunner, emitHarnessMain).
struct HarnessTransport {
  const char *name;       ///< "MPI", "OpenSHMEM" (the header line)
  const char *rankVar;    ///< "rank", "pe"
  const char *sizeVar;    ///< "size", "npes"
  const char *units;      ///< "ranks", "PEs"
  const char *launcher;   ///< "mpirun", "oshrun"
  /// The operation's arguments after the buffers: ", MPI_COMM_WORLD", "".
  const char *commArg;
  /// Wraps the call of the operation into a statement (without ';').
  std::string (*checkedCall)(const std::string &call);
  /// A statement (with indentation and newline) after poisoning the output,
  /// or "".
  const char *afterPoison;
  const char *iterationBarrier; ///< "MPI_Barrier(...)" statement, with ';'
  const char *sumBad;           ///< expression summing `bad` over all
  const char *reduceTimes;      ///< expression reducing `t`, `iters`
  const char *beforeFree;       ///< statement(s) with indentation, or ""
  const char *abortFinalize;    ///< e.g. "MPI_Finalize();"
  const char *finalize;         ///< e.g. "phasec_mpi_finalize();"
  /// The runtime's per-transport prefix: "phasec_mpi_", "phasec_shmem_"
  /// (the barrier check's arrivals counter).
  const char *runtimePrefix;
};

/// `static uint64_t run_NAME(int RANK, int iters, int warmup)`: fill,
/// warm-up, poison, timed iterations after a barrier each, the checker, the
/// OSU line; with `nonblocking`, also the nonblocking forms
/// (emitNonblockingRun). `allocRecv` / `freeRecv` are the statements (with
/// indentation and newline) that allocate `char *r` and free it. With
/// `timeLine`, rank 0 also prints `PHASEC_SIM_TIME <median seconds>` and
/// `PHASEC_SIM_VERIFIED <wrong bytes>` (what the SimGrid runner parses).
void emitHarnessRunner(llvm::raw_ostream &os, const OperationPlan &plan,
                       const HarnessTransport &transport,
                       llvm::StringRef allocRecv, llvm::StringRef freeRecv,
                       bool timeLine = false,
                       const NonblockingTransport *nonblocking = nullptr);

/// The statements (indented, with newlines) that start a timed call and
/// declare `t0`: the transport's barrier then the clock, or with
/// `timeLine` (SimGrid) the common start of phasec_sim_start.h.
std::string timedStart(const HarnessTransport &transport, bool timeLine);

/// The harness's check of a barrier: nobody leaves before every member
/// has arrived. Every member counts its arrival at the group's first rank
/// (an atomic that has completed there before it enters), the last member
/// arrives 20 ms late, and a member that leaves must read them all;
/// PHASEC_TEST_CORRUPT makes member 0 read before it enters. `call` is the
/// barrier (a statement without ';'), `x` the prefix of its member map,
/// `label` the name in the message; the runner's `me` and `bad` are in
/// scope.
void emitBarrierCheck(llvm::raw_ostream &os, const HarnessTransport &tr,
                      llvm::StringRef label, llvm::StringRef x, RankId first,
                      llvm::StringRef call);

/// `int main`: `prologue` (initialisation, declaring RANK and SIZE), the
/// iteration options, the rank-count check, one run_NAME per plan, the
/// verdict line, the file's finalize function (`fileFinalize`, called as a
/// library user would, before the transport's finalize) and the exit
/// status.
void emitHarnessMain(llvm::raw_ostream &os, llvm::ArrayRef<OperationPlan> plans,
                     const HarnessTransport &transport,
                     llvm::StringRef prologue, llvm::StringRef fileFinalize,
                     int iterations, int warmup);

/// Emits the loop over phases. `body(os, indent)` writes the statements of
/// one phase given C variables: in formula mode `to`, `from` (member
/// indices, -1 if none) and `bytes_to`, `bytes_from`; in table mode the
/// ranges [s0, s1) of sends and [r0, r1) of receives (phasec_xfer_t).
/// Formula mode is chosen by plan.useFormulas.
void emitPhaseLoop(
    llvm::raw_ostream &os, const OperationPlan &plan,
    llvm::function_ref<void(llvm::raw_ostream &, bool formula)> body);

/// `run_NAME` of a PAPERS plan for the harness: every rank calls the
/// aggregate with values it can compute for every member, and every member
/// checks its result against a serial evaluation, after each call.
void emitPapersRunner(llvm::raw_ostream &os, const OperationPlan &plan,
                      const HarnessTransport &transport, bool timeLine);

/// The value member m contributes at element (or call) i of a reduction,
/// as a C expression of the plan's element type: exact under every order
/// of combining (RelayC.cpp).
std::string reductionValueExpression(const OperationPlan &plan);
/// `ACC = ACC OP X;` on scalars (a C statement): the relays' element-wise
/// combine and the PAPERS aggregates' local evaluation.
std::string combineScalars(ReduceKind op, llvm::StringRef acc,
                           llvm::StringRef x);

/// The C macro names of a transpose's shape. Square transposes use NAME_R
/// (rows per member) and NAME_N (the edge) for all four; rectangular ones
/// NAME_RA / NAME_RB (rows of A / of B per member) and NAME_NA / NAME_NB
/// (the row lengths of A and B: A's columns and rows).
/// The names of a transpose's block (RA x RB elements: rows of A and of B
/// per member), the leading dimensions of the local arrays, and where the
/// block for (from) peer q starts: A's block q at q * sb with rows lda
/// apart, B's block from q at q * db with rows ldb apart. A slab of rows
/// has rows C (NA) and R (NB) long and its blocks side by side (sb = RB,
/// db = RA); a slab of columns has rows RB and RA long and its blocks one
/// under the other (sb = db = RA * RB). Moving block (l, m) of A to (m, l)
/// of B is then one loop for all four pairs of distributions. A local
/// transpose (rows to cols, cols to rows) is one block: the member's whole
/// slab, RA x RB, with sb = db = 0.
struct TransposeShape {
  std::string ra, rb, na, nb;
  std::string sb, lda, db, ldb;
};
TransposeShape getTransposeShape(const OperationPlan &plan);

/// Packing transposes: every block this member sends, transposed into
/// NAME_sbuf before the first phase; every block it received, from the
/// receive area `recvArea` (an expression) into b after the last.
void emitTransposePackAll(llvm::raw_ostream &os, const OperationPlan &plan);
void emitTransposeUnpackAll(llvm::raw_ostream &os, const OperationPlan &plan,
                            llvm::StringRef recvArea);

/// What a back end's writer of one operation holds: the stream, the plan,
/// the back end's options and the plan's name (the prefix of its C names).
template <typename Options> struct PlanWriter {
  PlanWriter(llvm::raw_ostream &os, const OperationPlan &plan,
             const Options &options)
      : os(os), plan(plan), options(options), n(plan.name) {}
  llvm::raw_ostream &os;
  const OperationPlan &plan;
  const Options &options;
  const std::string &n;
};

/// What the nonblocking forms (NonblockingC.cpp) of one transport write
/// where MPI and OpenSHMEM differ.
struct NonblockingTransport {
  const char *commType; ///< "MPI_Comm" (the last parameter), or ""
  const char *success, *errPending, *errNoMem, *errUnbound; ///< return codes
  const char *whoCalls;      ///< "Every rank of comm", "Every PE"
  const char *firstCallNote; ///< what a first start may block on
  const char *initNote;      ///< what NAME_init does besides binding
  /// NAME_init's statements after binding (in scope: its parameters).
  void (*emitInit)(llvm::raw_ostream &os, const OperationPlan &plan);
};

/// Whether the plan's operation has nonblocking forms: every operation but
/// the PAPERS aggregates (and the program's local steps).
bool hasNonblockingForms(const OperationPlan &plan);
/// The statics of the nonblocking forms (before NAME and its release, which
/// refers to them) and the forms themselves: NAME_start, NAME_test,
/// NAME_wait, NAME_init and NAME_start_persistent (after NAME).
void emitNonblockingState(llvm::raw_ostream &os, const OperationPlan &plan,
                          const NonblockingTransport &tr);
void emitNonblockingForms(llvm::raw_ostream &os, const OperationPlan &plan,
                          const NonblockingTransport &tr);
/// The harness's helpers for emitNonblockingRun (once per file) and the
/// run itself, a block of run_NAME where `s`, `r`, `me`, `bad` are in
/// scope: started, bound and started twice, each with computation and
/// tests before the wait, a second start refused, every byte checked.
void emitNonblockingHarnessSupport(llvm::raw_ostream &os,
                                   const NonblockingTransport &tr);
void emitNonblockingRun(llvm::raw_ostream &os, const OperationPlan &plan,
                        const HarnessTransport &htr,
                        const NonblockingTransport &tr);

/// The number of phases in which some member sends more than once, the
/// largest number of sends / receives a member has in one phase.
int64_t maxSendsPerPhase(const OperationPlan &plan);
int64_t maxRecvsPerPhase(const OperationPlan &plan);

} // namespace detail
} // namespace target
} // namespace phasec

#endif // PHASEC_TARGETS_COMMON_EMITC_H
