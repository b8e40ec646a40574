//===- MPIEmitter.cpp - C + MPI code from operation plans -----------------===//
//
// Part of phasec. MLIR-free.
//
//===----------------------------------------------------------------------===//
//
// The generated operation runs on a communicator of the group's members
// (split from the caller's communicator once and cached), so member index
// == rank in it and ranks outside the group take part only in that split.
//
//===----------------------------------------------------------------------===//

#include "phasec/Target/MPI/MPIEmitter.h"

#include "../common/EmitC.h"
#include "../common/Transport.h"

#include <climits>

using namespace phasec;
using namespace phasec::target;
using namespace phasec::target::detail;

namespace {

class MPIWriter : PlanWriter<MPIOptions> {
public:
  using PlanWriter::PlanWriter;

  void emitFunction();
  void emitRelease();
  void emitRunner();

private:
  void emitGroupComm();
  void emitBlockBody(bool formula);
  void emitBlockUnsynchronised();
  void emitTransposeSupport();
  void emitTransposeChainedBody(bool formula);
  void emitTransposePackingBody(bool formula);
  void emitTransposeDepositBody(bool formula);
  void emitPermuteBody(bool formula);
  void emitPhaseSync();
};

} // namespace

/// Whether plan has a NAME_release (what the finalize function calls):
/// every operation that caches a members' communicator.
static bool hasRelease(const OperationPlan &plan) {
  return plan.call.empty() &&
         (plan.aggregate == Aggregate::None || plan.movesData ||
          plan.aggregate == Aggregate::Barrier);
}

/// The members' communicator of plan `n`, at file scope.
static std::string mpiGroupComm(const std::string &n) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "/* The members' communicator, split off each communicator the "
        "operation is\n   called on, on the first call (cached as an "
        "attribute of it: freed with it,\n   or by the file's finalize "
        "function). */\n"
     << "static phasec_mpi_comm_cache " << n
     << "_gcache = PHASEC_MPI_COMM_CACHE;\n"
     << "static inline int " << n
     << "_comm(MPI_Comm comm, int me, MPI_Comm *g) {\n"
     << "  return phasec_mpi_group_comm(&" << n << "_gcache, comm, me, g);\n"
     << "}\n\n";
  return text;
}

void MPIWriter::emitGroupComm() { os << mpiGroupComm(n); }

/// MPI as detail::CTransport: two-sided, over `g`, the members'
/// communicator split off `comm` (the prologue's), returning MPI error
/// codes to the caller.
static const CTransport &mpiTransport() {
  static const CTransport transport = {
      "MPI",
      /*oneSided=*/false, ", MPI_Comm comm", ", comm", "MPI_Comm comm",
      "MPI_SUCCESS", "MPI_IN_PLACE",
      "Collective over comm: ranks outside the group only take part in\n   "
      "splitting off the members' communicator.",
      [](llvm::raw_ostream &os, const OperationPlan &plan,
         llvm::function_ref<void()>) { emitMPIPrologue(os, plan); },
      [](llvm::StringRef in, llvm::StringRef ptr, llvm::StringRef,
         llvm::StringRef bytes, llvm::StringRef) {
        return (in + "PHASEC_MPI_ALLOC(" + ptr + ", " + bytes + ");\n").str();
      },
      nullptr,
      [](llvm::StringRef in, const OperationPlan &plan, llvm::StringRef format,
         llvm::StringRef args) {
        return (in + "fprintf(stderr, \"" + plan.name + ": rank %d: " + format +
                "\\n\",\n" + in + "        rank, " + args + ");\n" + in +
                "MPI_Abort(comm, 1);\n")
            .str();
      },
      "MPI_Request",
      [](llvm::StringRef in, const OperationPlan &, llvm::StringRef buf,
         llvm::StringRef bytes, llvm::StringRef peer, llvm::StringRef tag) {
        return (in + "PHASEC_MPI_TRY(phasec_mpi_irecv(" + buf + ", " + bytes +
                ",\n" + in + "                                " + peer + ", " +
                tag + ", g, &req[nreq++]));\n")
            .str();
      },
      [](llvm::StringRef in, const OperationPlan &, llvm::StringRef buf,
         llvm::StringRef, llvm::StringRef bytes, llvm::StringRef peer,
         llvm::StringRef tag, bool synchronous) {
        return (in + "PHASEC_MPI_TRY(phasec_mpi_is" + (synchronous ? "s" : "") +
                "end(" + buf + ", " + bytes + ",\n" + in +
                (synchronous ? " " : "") + "                                " +
                peer + ", " + tag + ", g, &req[nreq++]));\n")
            .str();
      },
      [](llvm::StringRef in, const OperationPlan &) {
        return (in + "PHASEC_MPI_TRY(phasec_mpi_waitall(nreq, req));\n" + in +
                "nreq = 0;\n")
            .str();
      },
      [](llvm::StringRef in, const OperationPlan &, llvm::StringRef why) {
        return (in + "PHASEC_MPI_TRY(phasec_mpi_phase_barrier(g)); /* " + why +
                " */\n")
            .str();
      },
      // The PAPERS aggregates.
      "int rank_;\n  PHASEC_MPI_CHECK(MPI_Comm_rank(comm, &rank_));",
      "every rank of comm calls it\n   the first time (which splits off the "
      "members' communicator; NAME_free() frees it),\n   members alone after "
      "that; other ranks get no result (0, -1 for rank, their own value\n   "
      "for putget, gather leaves p as it is).",
      "MPI_Abort(comm, 1)",
      [](const std::string &x, const std::string &send,
         const std::string &recv) {
        return "PHASEC_MPI_CHECK(" + x + "(" + send + ", " + recv + ", comm))";
      },
      [](const OperationPlan &plan) { return mpiGroupComm(plan.name); },
      [](const OperationPlan &plan) {
        return "  MPI_Comm g_ = MPI_COMM_NULL;\n  PHASEC_MPI_CHECK(" +
               plan.name +
               "_comm(comm, me_, &g_));\n  if (me_ >= 0)\n"
               "    PHASEC_MPI_CHECK(MPI_Barrier(g_));\n";
      },
      false};
  return transport;
}

void MPIWriter::emitPhaseSync() {
  if (plan.options.sync != SyncKind::Barrier)
    return;
  os << "    if (j + 1 < " << n << "_NPHASES)\n"
     << "      PHASEC_MPI_TRY(phasec_mpi_phase_barrier(g)); /* congestion "
        "control */\n";
}

void MPIWriter::emitBlockBody(bool formula) {
  if (formula) {
    os << "    PHASEC_MPI_TRY(phasec_mpi_sendrecv(sb + " << n
       << "_sdispl_of(me, to), " << n << "_BLOCK, to, PHASEC_TAG,\n"
       << "                                  rb + " << n
       << "_rdispl_of(me, from), " << n << "_BLOCK, from, PHASEC_TAG,\n"
       << "                                  g, MPI_STATUS_IGNORE));\n";
    emitPhaseSync();
    return;
  }
  os << "    if (s1 - s0 == 1 && r1 - r0 == 1) { /* pairwise */\n"
     << "      PHASEC_MPI_TRY(phasec_mpi_sendrecv(sb + " << n
     << "_sdispl_of(me, s0->peer) + s0->offset, s0->bytes,\n"
     << "                                    s0->peer, PHASEC_TAG, rb + " << n
     << "_rdispl_of(me, r0->peer) + r0->offset,\n"
     << "                                    r0->bytes, "
        "r0->peer, PHASEC_TAG, g, MPI_STATUS_IGNORE));\n"
     << "    } else {\n"
     << "      MPI_Request req[" << n << "_MAXSEND + " << n << "_MAXRECV];\n"
     << "      int nreq = 0;\n"
     << "      for (const phasec_xfer_t *x = r0; x < r1; ++x)\n"
     << "        PHASEC_MPI_TRY(phasec_mpi_irecv(rb + " << n
     << "_rdispl_of(me, x->peer) + x->offset, x->bytes,\n"
     << "                                   x->peer, PHASEC_TAG, g, "
        "&req[nreq++]));\n"
     << "      for (const phasec_xfer_t *x = s0; x < s1; ++x)\n"
     << "        PHASEC_MPI_TRY(phasec_mpi_isend(sb + " << n
     << "_sdispl_of(me, x->peer) + x->offset, x->bytes,\n"
     << "                                   x->peer, PHASEC_TAG, g, "
        "&req[nreq++]));\n"
     << "      PHASEC_MPI_TRY(phasec_mpi_waitall(nreq, req));\n"
     << "    }\n";
  emitPhaseSync();
}

/// SyncKind::None: nothing separates the phases, so every receive is
/// posted up front (in phase order), then every send in phase order, and
/// one wait covers all of them; the schedule's order still decides which
/// message each peer sees first.
void MPIWriter::emitBlockUnsynchronised() {
  if (plan.useFormulas) {
    os << "  MPI_Request req[2 * " << n << "_NPHASES];\n"
       << "  for (int j = 0; j < " << n << "_NPHASES; ++j) {\n"
       << "    const int from = " << n << "_from(me, j);\n"
       << "    PHASEC_MPI_TRY(phasec_mpi_irecv(rb + " << n
       << "_rdispl_of(me, from), " << n
       << "_BLOCK, from, PHASEC_TAG, g, &req[j]));\n  }\n"
       << "  for (int j = 0; j < " << n << "_NPHASES; ++j) {\n"
       << "    const int to = " << n << "_to(me, j);\n"
       << "    PHASEC_MPI_TRY(phasec_mpi_isend(sb + " << n
       << "_sdispl_of(me, to), " << n << "_BLOCK, to, PHASEC_TAG, g, &req[" << n
       << "_NPHASES + j]));\n  }\n"
       << "  PHASEC_MPI_TRY(phasec_mpi_waitall(2 * " << n
       << "_NPHASES, req));\n";
    return;
  }
  if (!plan.tableReps.empty() || plan.hasRules())
    os << "  " << n << "_expand(me);\n";
  os << "  const int ns = " << n << "_nsends[me], nr = " << n
     << "_nrecvs[me];\n"
     << "  MPI_Request *req;\n"
     << "  PHASEC_MPI_ALLOC(req, sizeof(MPI_Request) * (size_t)(ns + nr + "
        "1));\n"
     << "  int rc = MPI_SUCCESS;\n"
     << "  for (int i = 0; i < nr && rc == MPI_SUCCESS; ++i) {\n"
     << "    const phasec_xfer_t *x = &" << n << "_recvs[me][i];\n"
     << "    rc = phasec_mpi_irecv(rb + " << n
     << "_rdispl_of(me, x->peer) + x->offset, x->bytes,\n"
     << "                   x->peer, PHASEC_TAG, g, &req[i]);\n"
     << "  }\n"
     << "  for (int i = 0; i < ns && rc == MPI_SUCCESS; ++i) {\n"
     << "    const phasec_xfer_t *x = &" << n << "_sends[me][i];\n"
     << "    rc = phasec_mpi_isend(sb + " << n
     << "_sdispl_of(me, x->peer) + x->offset, x->bytes,\n"
     << "                   x->peer, PHASEC_TAG, g, &req[nr + i]);\n"
     << "  }\n"
     << "  if (rc == MPI_SUCCESS)\n"
     << "    rc = phasec_mpi_waitall(ns + nr, req);\n"
     << "  free(req);\n"
     << "  PHASEC_MPI_TRY(rc);\n";
}

void MPIWriter::emitTransposeSupport() {
  std::string T = n + "_elem_t";
  TransposeShape sh = getTransposeShape(plan);
  os << "#define " << n << "_RR ((int64_t)" << sh.ra << " * " << sh.rb << ")\n"
     << "#define " << n << "_BLOCKBYTES ((int64_t)" << n
     << "_RR * (int64_t)sizeof(" << T << "))\n"
     << "/* Work space, allocated on first use and kept. */\n"
     << "static " << T << " *" << n << "_sbuf, *" << n << "_rbuf;\n"
     << (plan.isSquare()
             ? "/* R rows of R elements, N apart: one block of the output. */\n"
             : "/* RB rows of RA elements, NB apart: one block of the output. "
               "*/\n")
     << "static MPI_Datatype " << n << "_rowblock = MPI_DATATYPE_NULL;\n"
     << "static inline int " << n << "_workspace(void) {\n";
  bool packing = plan.options.style == TransferStyle::Packing;
  os << "  if (!" << n << "_sbuf)\n    PHASEC_MPI_ALLOC(" << n
     << "_sbuf, (size_t)" << n << (packing ? "_P" : "_MAXSEND") << " * " << n
     << "_BLOCKBYTES);\n"
     << "  if (!" << n << "_rbuf)\n    PHASEC_MPI_ALLOC(" << n
     << "_rbuf, (size_t)" << n << (packing ? "_P" : "_MAXRECV") << " * " << n
     << "_BLOCKBYTES);\n"
     << "  if (" << n << "_rowblock != MPI_DATATYPE_NULL)\n"
     << "    return MPI_SUCCESS;\n"
     << "  MPI_Datatype el, rowblock;\n"
     << "  PHASEC_MPI_TRY(MPI_Type_contiguous((int)sizeof(" << T
     << "), MPI_BYTE, &el));\n"
     << "  const int rc = MPI_Type_vector(" << sh.rb << ", " << sh.ra << ", "
     << sh.ldb << ", el, &rowblock);\n"
     << "  MPI_Type_free(&el);\n"
     << "  PHASEC_MPI_TRY(rc);\n"
     << "  const int committed = MPI_Type_commit(&rowblock);\n"
     << "  if (committed != MPI_SUCCESS) {\n"
     << "    MPI_Type_free(&rowblock);\n    return committed;\n  }\n"
     << "  " << n << "_rowblock = rowblock;\n"
     << "  return MPI_SUCCESS;\n}\n\n";
  if (plan.options.style != TransferStyle::DirectDeposit)
    return;
  os << "/* Direct deposit through an MPI_Win_allocate_shared window: the "
        "output array\n   of every member, addressable by all when they "
        "share a node. */\n"
     << "static MPI_Win " << n << "_win = MPI_WIN_NULL;\n"
     << "static " << T << " *" << n << "_win_base, *" << n << "_peer_base[" << n
     << "_P];\n"
     << "/* Allocates an output array ("
     << (plan.isSquare() ? "R x N" : "RB x NB") << " elements) for " << n
     << " into *out; collective over comm.\n   In a shared window when all "
        "ranks of comm share a node, else with malloc.\n   Returns an MPI "
        "error code (*out is NULL then). */\n"
     << "int " << n << "_alloc_output(MPI_Comm comm, " << T << " **out) {\n"
     << "  int rank, size, nsize;\n  MPI_Comm node;\n"
     << "  *out = NULL;\n"
     << "  PHASEC_MPI_TRY(MPI_Comm_rank(comm, &rank));\n"
     << "  PHASEC_MPI_TRY(MPI_Comm_size(comm, &size));\n"
     << "  PHASEC_MPI_TRY(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, "
        "MPI_INFO_NULL, &node));\n"
     << "  const int rc = MPI_Comm_size(node, &nsize);\n"
     << "  PHASEC_MPI_TRY(MPI_Comm_free(&node));\n"
     << "  PHASEC_MPI_TRY(rc);\n"
     << "  const size_t bytes = (size_t)" << sh.rb << " * " << sh.nb
     << " * sizeof(" << T << ");\n"
     << "  if (nsize != size || " << n << "_win != MPI_WIN_NULL) {\n"
     << "    PHASEC_MPI_ALLOC(*out, bytes);\n    return MPI_SUCCESS;\n  }\n"
     << "  PHASEC_MPI_TRY(MPI_Win_allocate_shared((MPI_Aint)(" << n
     << "_member(rank) >= 0 ? bytes : 0), (int)sizeof(" << T << "),\n"
     << "                                        MPI_INFO_NULL, comm, &" << n
     << "_win_base, &" << n << "_win));\n"
     << "  PHASEC_MPI_TRY(MPI_Win_set_errhandler(" << n
     << "_win, MPI_ERRORS_RETURN));\n"
     << "  for (int m = 0; m < " << n << "_P; ++m) {\n"
     << "    MPI_Aint sz;\n    int du;\n"
     << "    PHASEC_MPI_TRY(MPI_Win_shared_query(" << n << "_win, " << n
     << "_rank(m), &sz, &du, &" << n << "_peer_base[m]));\n  }\n"
     << "  PHASEC_MPI_TRY(MPI_Win_lock_all(MPI_MODE_NOCHECK, " << n
     << "_win));\n"
     << "  *out = " << n << "_win_base;\n  return MPI_SUCCESS;\n}\n"
     << "/* Frees what " << n << "_alloc_output returned; collective. */\n"
     << "int " << n << "_free_output(" << T << " *b) {\n"
     << "  if (" << n << "_win == MPI_WIN_NULL || b != " << n
     << "_win_base) {\n"
     << "    free(b);\n    return MPI_SUCCESS;\n  }\n"
     << "  " << n << "_win_base = NULL;\n"
     << "  const int rc = MPI_Win_unlock_all(" << n << "_win);\n"
     << "  PHASEC_MPI_TRY(MPI_Win_free(&" << n << "_win));\n"
     << "  return rc;\n}\n\n";
}

void MPIWriter::emitTransposeChainedBody(bool formula) {
  bool dt = options.derivedDatatypes;
  TransposeShape sh = getTransposeShape(plan);
  if (formula) {
    os << "    " << n << "_tblock(" << n << "_sbuf, " << sh.ra
       << ", a + (int64_t)to * " << sh.sb << ", " << sh.lda
       << "); /* pack, transposed */\n";
    if (dt) {
      os << "    PHASEC_MPI_TRY(phasec_mpi_sendrecv_typed(" << n
         << "_sbuf, (int)" << n << "_BLOCKBYTES, MPI_BYTE, to, PHASEC_TAG,\n"
         << "                                  b + (int64_t)from * " << sh.db
         << ", 1, " << n << "_rowblock, from, PHASEC_TAG,\n"
         << "                                  g)); /* unpacked by the "
            "datatype */\n";
    } else {
      os << "    PHASEC_MPI_TRY(phasec_mpi_sendrecv(" << n << "_sbuf, " << n
         << "_BLOCKBYTES, to, PHASEC_TAG,\n"
         << "                                  " << n << "_rbuf, " << n
         << "_BLOCKBYTES, from, PHASEC_TAG,\n"
         << "                                  g, MPI_STATUS_IGNORE));\n"
         << "    " << n << "_tunpack(b + (int64_t)from * " << sh.db << ", "
         << sh.ldb << ", " << n << "_rbuf);\n";
    }
    emitPhaseSync();
    return;
  }
  std::string full = "x->offset == 0 && x->bytes == " + n + "_BLOCKBYTES";
  std::string E = "(int64_t)sizeof(" + n + "_elem_t)";
  os << "    MPI_Request req[" << n << "_MAXSEND + " << n << "_MAXRECV];\n"
     << "    int nreq = 0;\n"
     << "    for (const phasec_xfer_t *x = r0; x < r1; ++x) {\n";
  if (dt)
    os << "      if (" << full << ") /* unpacked by the datatype */\n"
       << "        PHASEC_MPI_TRY(MPI_Irecv(b + (int64_t)x->peer * " << sh.db
       << ", 1, " << n
       << "_rowblock, x->peer, PHASEC_TAG, g, "
          "&req[nreq++]));\n      else\n  ";
  os << "      PHASEC_MPI_TRY(phasec_mpi_irecv(" << n << "_rbuf + (x - r0) * "
     << n
     << "_RR, x->bytes, x->peer, PHASEC_TAG, g, "
        "&req[nreq++]));\n"
     << "    }\n"
     << "    for (const phasec_xfer_t *x = s0; x < s1; ++x) {\n"
     << "      " << n << "_elem_t *pk = " << n << "_sbuf + (x - s0) * " << n
     << "_RR;\n"
     << "      if (" << full << ")\n"
     << "        " << n << "_tblock(pk, " << sh.ra
     << ", a + (int64_t)x->peer * " << sh.sb << ", " << sh.lda
     << "); /* pack, transposed */\n"
     << "      else\n"
     << "        " << n << "_tpart(pk, 0, 1, a + (int64_t)x->peer * " << sh.sb
     << ", " << sh.lda << ", 0, x->offset / " << E
     << ", (x->offset + x->bytes) / " << E << ");\n"
     << "      PHASEC_MPI_TRY(phasec_mpi_isend(pk, x->bytes, x->peer, "
        "PHASEC_TAG, g, &req[nreq++]));\n"
     << "    }\n"
     << "    PHASEC_MPI_TRY(phasec_mpi_waitall(nreq, req));\n"
     << "    for (const phasec_xfer_t *x = r0; x < r1; ++x) {\n"
     << "      const " << n << "_elem_t *in = " << n << "_rbuf + (x - r0) * "
     << n << "_RR;\n";
  if (dt)
    os << "      if (" << full << ")\n        continue;\n";
  os << "      if (" << full << ")\n"
     << "        " << n << "_tunpack(b + (int64_t)x->peer * " << sh.db << ", "
     << sh.ldb << ", in);\n"
     << "      else\n"
     << "        " << n << "_tpart(b + (int64_t)x->peer * " << sh.db << ", "
     << sh.ldb << ", 0, in, 0, 1, x->offset / " << E
     << ", (x->offset + x->bytes) / " << E << ");\n"
     << "    }\n";
  emitPhaseSync();
}

void MPIWriter::emitTransposePackingBody(bool formula) {
  if (formula) {
    os << "    PHASEC_MPI_TRY(phasec_mpi_sendrecv(" << n
       << "_sbuf + (int64_t)to * " << n << "_RR, " << n
       << "_BLOCKBYTES, to, PHASEC_TAG,\n"
       << "                                  " << n
       << "_rbuf + (int64_t)from * " << n << "_RR, " << n
       << "_BLOCKBYTES, from, PHASEC_TAG,\n"
       << "                                  g, MPI_STATUS_IGNORE));\n";
    emitPhaseSync();
    return;
  }
  os << "    MPI_Request req[" << n << "_MAXSEND + " << n << "_MAXRECV];\n"
     << "    int nreq = 0;\n"
     << "    for (const phasec_xfer_t *x = r0; x < r1; ++x)\n"
     << "      PHASEC_MPI_TRY(phasec_mpi_irecv((char *)(" << n
     << "_rbuf + (int64_t)x->peer * " << n << "_RR) + x->offset, x->bytes,\n"
     << "                                 x->peer, PHASEC_TAG, g, "
        "&req[nreq++]));\n"
     << "    for (const phasec_xfer_t *x = s0; x < s1; ++x)\n"
     << "      PHASEC_MPI_TRY(phasec_mpi_isend((char *)(" << n
     << "_sbuf + (int64_t)x->peer * " << n << "_RR) + x->offset, x->bytes,\n"
     << "                                 x->peer, PHASEC_TAG, g, "
        "&req[nreq++]));\n"
     << "    PHASEC_MPI_TRY(phasec_mpi_waitall(nreq, req));\n";
  emitPhaseSync();
}

void MPIWriter::emitTransposeDepositBody(bool formula) {
  std::string E = "(int64_t)sizeof(" + n + "_elem_t)";
  TransposeShape sh = getTransposeShape(plan);
  if (formula) {
    os << "    " << n << "_tblock(" << n << "_peer_base[to] + (int64_t)me * "
       << sh.db << ", " << sh.ldb << ", a + (int64_t)to * " << sh.sb << ", "
       << sh.lda << ");\n";
  } else {
    os << "    for (const phasec_xfer_t *x = s0; x < s1; ++x) {\n"
       << "      " << n << "_elem_t *dst = " << n
       << "_peer_base[x->peer] + (int64_t)me * " << sh.db << ";\n"
       << "      const " << n << "_elem_t *src = a + (int64_t)x->peer * "
       << sh.sb << ";\n"
       << "      if (x->offset == 0 && x->bytes == " << n << "_BLOCKBYTES)\n"
       << "        " << n << "_tblock(dst, " << sh.ldb << ", src, " << sh.lda
       << ");\n"
       << "      else\n"
       << "        " << n << "_tpart(dst, " << sh.ldb << ", 0, src, " << sh.lda
       << ", 0, x->offset / " << E << ", (x->offset + x->bytes) / " << E
       << ");\n    }\n";
  }
  if (plan.options.sync == SyncKind::Barrier)
    os << "    if (j + 1 < " << n << "_NPHASES) { /* congestion control */\n"
       << "      PHASEC_MPI_TRY(MPI_Win_sync(" << n << "_win));\n"
       << "      PHASEC_MPI_TRY(phasec_mpi_phase_barrier(g));\n    }\n";
}

void MPIWriter::emitPermuteBody(bool formula) {
  (void)formula; // permutes always use tables
  std::string E = "(int64_t)sizeof(" + n + "_elem_t)";
  bool packing = plan.options.style == TransferStyle::Packing;
  os << "    MPI_Request req[" << n << "_MAXSEND + " << n << "_MAXRECV];\n"
     << "    int nreq = 0;\n"
     << "    for (const phasec_xfer_t *x = r0; x < r1; ++x)\n"
     << "      PHASEC_MPI_TRY(phasec_mpi_irecv("
     << (packing
             ? "(char *)(" + n + "_rbuf + " + n + "_roff[x->peer]) + x->offset"
             : n + "_rbuf + (x - r0) * " + n + "_MAXPAIR")
     << ", x->bytes,\n"
     << "                                 x->peer, PHASEC_TAG, g, "
        "&req[nreq++]));\n"
     << "    for (const phasec_xfer_t *x = s0; x < s1; ++x) {\n";
  if (packing) {
    os << "      const char *pk = (const char *)(" << n << "_sbuf + " << n
       << "_soff[x->peer]) + x->offset;\n";
  } else {
    os << "      " << n << "_elem_t *pk = " << n << "_sbuf + (x - s0) * " << n
       << "_MAXPAIR;\n"
       << "      " << n << "_ppack(pk, a, x->peer, x->offset / " << E
       << ", (x->offset + x->bytes) / " << E << ");\n";
  }
  os << "      PHASEC_MPI_TRY(phasec_mpi_isend(pk, x->bytes, x->peer, "
        "PHASEC_TAG, g, &req[nreq++]));\n"
     << "    }\n"
     << "    PHASEC_MPI_TRY(phasec_mpi_waitall(nreq, req));\n";
  if (!packing)
    os << "    for (const phasec_xfer_t *x = r0; x < r1; ++x)\n"
       << "      " << n << "_punpack(b, " << n << "_rbuf + (x - r0) * " << n
       << "_MAXPAIR, x->peer, x->offset / " << E << ", (x->offset + x->bytes) / "
       << E << ");\n";
  emitPhaseSync();
}

void MPIWriter::emitFunction() {
  if (plan.aggregate != Aggregate::None) {
    if (plan.movesData) {
      OperationPlan data = plan;
      data.aggregate = Aggregate::None;
      MPIWriter(os, data, options).emitFunction();
    }
    emitPapersFunction(os, plan, mpiTransport());
    const std::string &P = plan.papersName;
    if (hasRelease(plan)) {
      if (!plan.movesData) // else the data function's
        emitRelease();
      os << "/* Frees what " << P
         << " cached (the members' communicator it split off, its\n   work "
            "space); returns an MPI error code. The file's finalize function "
            "does\n   this for every operation. */\n"
         << "int " << P << "_free(void) {\n  return " << n
         << "_release();\n}\n\n";
    }
    return;
  }
  if (plan.relaying) {
    emitRelayCommon(os, plan);
    emitGroupComm();
    emitRelayFunction(os, plan, mpiTransport());
    emitRelease();
    return;
  }
  emitPlanComment(os, plan);
  emitPlanData(os, plan);
  if (plan.runtimeDestinations()) {
    emitGroupComm();
    emitRuntimePermuteFunction(os, plan, mpiTransport());
    emitRelease();
    return;
  }
  emitLocalCopy(os, plan);
  emitGroupComm();
  bool transpose = plan.isTranspose(), permute = plan.isElementPermute();
  std::string T = n + "_elem_t";
  if (transpose)
    emitTransposeSupport();
  if (permute) {
    int64_t maxPair = 1;
    for (const Demand &d : plan.demands)
      maxPair = std::max(maxPair, d.bytes / plan.elem.size);
    bool packing = plan.options.style == TransferStyle::Packing;
    os << "#define " << n << "_MAXPAIR " << maxPair
       << " /* most elements one pair exchanges */\n"
       << "static " << T << " *" << n << "_sbuf, *" << n << "_rbuf;\n";
    if (packing)
      os << "static int64_t " << n << "_soff[" << n << "_P], " << n << "_roff["
         << n << "_P]; /* element offsets per peer in the packed buffers */\n";
    os << "static int " << n
       << "_wme = -1; /* the member the work space was sized for */\n"
       << "static inline int " << n << "_workspace(int me) {\n"
       << "  if (" << n << "_rbuf && " << n << "_wme == me)\n"
       << "    return MPI_SUCCESS;\n"
       << "  /* First call, a failed one, or another member (another "
          "communicator's rank\n     order): sized again. */\n"
       << "  free(" << n << "_sbuf);\n  free(" << n << "_rbuf);\n"
       << "  " << n << "_sbuf = " << n << "_rbuf = NULL;\n"
       << "  if (" << n << "_build_lists(me))\n    return MPI_ERR_NO_MEM;\n";
    if (packing)
      os << "  int64_t so = 0, ro = 0;\n"
         << "  for (int q = 0; q < " << n << "_P; ++q) {\n"
         << "    " << n << "_soff[q] = so;\n    " << n << "_roff[q] = ro;\n"
         << "    so += " << n << "_cnt[me * " << n << "_P + q];\n"
         << "    ro += " << n << "_cnt[q * " << n << "_P + me];\n  }\n"
         << "  PHASEC_MPI_ALLOC(" << n << "_sbuf, sizeof(" << T
         << ") * (size_t)(so + 1));\n"
         << "  PHASEC_MPI_ALLOC(" << n << "_rbuf, sizeof(" << T
         << ") * (size_t)(ro + 1));\n";
    else
      os << "  PHASEC_MPI_ALLOC(" << n << "_sbuf, sizeof(" << T << ") * " << n
         << "_MAXSEND * " << n << "_MAXPAIR);\n"
         << "  PHASEC_MPI_ALLOC(" << n << "_rbuf, sizeof(" << T << ") * " << n
         << "_MAXRECV * " << n << "_MAXPAIR);\n";
    os << "  " << n << "_wme = me;\n  return MPI_SUCCESS;\n}\n\n";
  }

  // The operation.
  if (!transpose && !permute)
    emitInPlaceSupport(os, plan);
  os << "/* " << n << ": "
     << Collective::getKindName(plan.kind, plan.elementLevel)
     << ". Collective over comm (its ranks are the plan's ranks);\n   ranks "
        "outside the group only take part in splitting off the members' "
        "communicator.";
  if (!transpose && !permute)
    os << "\n" << describeBuffers(plan, "MPI_IN_PLACE");
  else
    os << "\n   a and b must not overlap: a member that passes a == b gets "
          "MPI_ERR_BUFFER.";
  os << " */\n";
  if (transpose || permute)
    os << "int " << n << "(const " << T << " *a, " << T
       << " *b, MPI_Comm comm) {\n";
  else
    os << "int " << n
       << "(const void *sendbuf, void *recvbuf, MPI_Comm comm) {\n";
  emitMPIPrologue(os, plan);
  if (!transpose && !permute) {
    emitStageInPlace(os, plan, "MPI_IN_PLACE",
                     [](llvm::StringRef ptr, llvm::StringRef bytes) {
                       return "PHASEC_MPI_ALLOC(" + ptr.str() + ", " +
                              bytes.str() + ")";
                     });
    os << "  const char *sb = (const char *)sendbuf;\n"
       << "  char *rb = (char *)recvbuf;\n"
       << "  " << n << "_local(me, sendbuf, recvbuf);\n";
    if (plan.options.sync == SyncKind::None)
      emitBlockUnsynchronised();
    else
      emitPhaseLoop(os, plan, [&](llvm::raw_ostream &, bool f) {
        emitBlockBody(f);
      });
    os << "  return MPI_SUCCESS;\n}\n\n";
    emitRelease();
    return;
  }
  // Past the prologue: every rank took part in splitting the members'
  // communicator, so a refusal cannot leave another rank waiting there.
  os << "  if ((const void *)a == (const void *)b)\n"
     << "    return MPI_ERR_BUFFER; /* the output would overwrite the input "
        "*/\n";
  if (permute) {
    os << "  PHASEC_MPI_TRY(" << n << "_workspace(me));\n"
       << "  " << n << "_local(me, a, b);\n";
    if (plan.options.style == TransferStyle::Packing)
      os << "  for (int q = 0; q < " << n << "_P; ++q) /* pack everything */\n"
         << "    if (q != me)\n      " << n << "_ppack(" << n << "_sbuf + "
         << n << "_soff[q], a, q, 0, " << n << "_cnt[me * " << n
         << "_P + q]);\n";
    emitPhaseLoop(os, plan, [&](llvm::raw_ostream &, bool f) {
      emitPermuteBody(f);
    });
    if (plan.options.style == TransferStyle::Packing)
      os << "  for (int q = 0; q < " << n << "_P; ++q) /* unpack everything */\n"
         << "    if (q != me)\n      " << n << "_punpack(b, " << n
         << "_rbuf + " << n << "_roff[q], q, 0, " << n << "_cnt[q * " << n
         << "_P + me]);\n";
    os << "  return MPI_SUCCESS;\n}\n\n";
    emitRelease();
    return;
  }
  // Transposes.
  if (plan.localTranspose()) {
    os << "  " << n
       << "_local(me, a, b); /* nothing moves between members "
          "*/\n"
       << "  return MPI_SUCCESS;\n}\n\n";
    emitRelease();
    return;
  }
  os << "  PHASEC_MPI_TRY(" << n << "_workspace());\n"
     << "  " << n << "_local(me, a, b);\n";
  TransferStyle style = plan.options.style;
  if (style == TransferStyle::DirectDeposit) {
    os << "  if (" << n << "_win != MPI_WIN_NULL && b == " << n
       << "_win_base) {\n"
       << "    /* Direct deposit: the copy loop stores into the destination's "
          "window. */\n"
       << "    PHASEC_MPI_TRY(MPI_Win_sync(" << n << "_win));\n"
       << "    PHASEC_MPI_TRY(phasec_mpi_phase_barrier(g)); /* every output is "
          "free */\n";
    // The deposit loop sits inside the `if`: indent it by two more.
    std::string text;
    {
      llvm::raw_string_ostream ts(text);
      MPIWriter inner(ts, plan, options);
      emitPhaseLoop(ts, plan, [&](llvm::raw_ostream &, bool f) {
        inner.emitTransposeDepositBody(f);
      });
    }
    llvm::StringRef rest(text);
    while (!rest.empty()) {
      auto [line, tail] = rest.split('\n');
      os << "  " << line << "\n";
      rest = tail;
    }
    os << "    PHASEC_MPI_TRY(MPI_Win_sync(" << n << "_win));\n"
       << "    PHASEC_MPI_TRY(phasec_mpi_phase_barrier(g)); /* all deposits "
          "are done */\n"
       << "    PHASEC_MPI_TRY(MPI_Win_sync(" << n << "_win));\n"
       << "    return MPI_SUCCESS;\n  }\n"
       << "  /* Not a window of " << n
       << "_alloc_output (or ranks on several nodes): chained. */\n";
  }
  if (style == TransferStyle::Packing) {
    emitTransposePackAll(os, plan);
    emitPhaseLoop(os, plan, [&](llvm::raw_ostream &, bool f) {
      emitTransposePackingBody(f);
    });
    emitTransposeUnpackAll(os, plan, n + "_rbuf");
  } else {
    emitPhaseLoop(os, plan, [&](llvm::raw_ostream &, bool f) {
      emitTransposeChainedBody(f);
    });
  }
  os << "  return MPI_SUCCESS;\n}\n\n";
  emitRelease();
}

/// The MPI side of detail::NonblockingTransport.
static const NonblockingTransport &mpiNonblocking() {
  static const NonblockingTransport transport = {
      "MPI_Comm",
      "MPI_SUCCESS",
      "MPI_ERR_PENDING",
      "MPI_ERR_NO_MEM",
      "MPI_ERR_REQUEST",
      "Every rank of comm",
      "The first call on a communicator splits the members' communicator "
      "off it before it returns (collective over comm, as NAME does); "
      "NAME_init does that ahead.",
      "it also splits the members' communicator off comm (collective over "
      "comm), so that no start waits for it.",
      [](llvm::raw_ostream &os, const OperationPlan &plan) {
        emitMPIPrologue(os, plan);
      }};
  return transport;
}

/// `static int NAME_release(void)`: frees what the operation cached (its
/// members' communicators, work space, datatype), so that the
/// file's finalize function leaves nothing behind; the next call of the
/// operation builds them again. Every statement runs even after an error
/// (the first error is returned).
void MPIWriter::emitRelease() {
  bool transpose =
      !plan.relaying && plan.aggregate == Aggregate::None && plan.isTranspose();
  bool permute = !plan.relaying && plan.aggregate == Aggregate::None &&
                 plan.isElementPermute();
  bool runtimePermute = plan.runtimeDestinations();
  bool blocks = !plan.relaying && plan.aggregate == Aggregate::None &&
                !transpose && !permute && !runtimePermute;
  bool nonblocking = hasNonblockingForms(plan);
  if (nonblocking)
    emitNonblockingState(os, plan, mpiNonblocking());
  os << "static int " << n << "_release(void) {\n";
  if (nonblocking)
    os << "  if (" << n << "_nb.pending) /* a started call is in flight */\n"
       << "    return MPI_ERR_PENDING;\n"
       << "  phasec_task_free(" << n << "_task);\n  " << n
       << "_task = NULL;\n  " << n << "_nb.bound = 0;\n";
  os << "  int rc = MPI_SUCCESS, r;\n";
  auto freeBuf = [&](const std::string &b) {
    os << "  free(" << b << ");\n  " << b << " = NULL;\n";
  };
  if (blocks) {
    freeBuf(n + "_stage");
    os << "  " << n << "_stage_cap = 0;\n";
  }
  if (plan.relaying) {
    freeBuf(n + "_D");
    freeBuf(n + "_rscr");
    freeBuf(n + "_sscr");
  } else if (runtimePermute) {
    for (const char *b :
         {"_sbuf", "_rbuf", "_spos", "_rpos", "_cnt_in", "_req"})
      freeBuf(n + b);
  } else if (permute) {
    freeBuf(n + "_sbuf");
    freeBuf(n + "_rbuf");
    os << "  " << n << "_free_lists();\n";
  } else if (transpose) {
    freeBuf(n + "_sbuf");
    freeBuf(n + "_rbuf");
    os << "  if (" << n << "_rowblock != MPI_DATATYPE_NULL && (r = "
       << "MPI_Type_free(&" << n << "_rowblock)) != MPI_SUCCESS && rc == "
       << "MPI_SUCCESS)\n    rc = r;\n";
    // A direct-deposit output's window is the caller's array: freed by
    // NAME_free_output, not here (the caller may still hold it).
  }
  os << "  if ((r = phasec_mpi_comm_cache_release(&" << n << "_gcache)) != "
     << "MPI_SUCCESS && rc == MPI_SUCCESS)\n    rc = r;\n"
     << "  return rc;\n}\n\n";
  if (nonblocking)
    emitNonblockingForms(os, plan, mpiNonblocking());
}

/// The MPI harness's side of detail::HarnessTransport.
static const HarnessTransport &mpiHarness() {
  static const HarnessTransport transport = {
      "MPI",
      "rank",
      "size",
      "ranks",
      "mpirun",
      ", MPI_COMM_WORLD",
      [](const std::string &call) {
        return "PHASEC_MPI_CHECK(" + call + ")";
      },
      "  PHASEC_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));\n",
      "PHASEC_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));",
      "phasec_mpi_sum(MPI_COMM_WORLD, bad)",
      "phasec_mpi_reduce_times(MPI_COMM_WORLD, t, iters)",
      "",
      "MPI_Finalize();",
      "phasec_mpi_finalize();",
      "phasec_mpi_"};
  return transport;
}

void MPIWriter::emitRunner() {
  if (plan.aggregate != Aggregate::None) {
    emitPapersRunner(os, plan, mpiHarness(), options.simTimeLine);
    return;
  }
  if (plan.relaying) {
    emitRelayHarnessHelpers(os, plan);
    emitHarnessRunner(os, plan, mpiHarness(),
                      "  char *r = (char *)PHASEC_XMALLOC(" + n +
                          "_buffer_bytes(), \"receive buffer\");\n",
                      "  free(r);\n", options.simTimeLine,
                      options.simTimeLine ? nullptr : &mpiNonblocking());
    return;
  }
  emitHarnessHelpers(os, plan);
  // Direct-deposit transposes put their output into a shared window.
  bool dd =
      plan.isTranspose() && plan.options.style == TransferStyle::DirectDeposit;
  std::string allocRecv =
      dd ? "  " + n + "_elem_t *out = NULL;\n  PHASEC_MPI_CHECK(" + n +
               "_alloc_output(MPI_COMM_WORLD, &out));\n"
               "  char *r = (char *)out;\n"
         : "  char *r = (char *)PHASEC_XMALLOC(" + n +
               "_buffer_bytes(), \"receive buffer\");\n";
  std::string freeRecv =
      dd ? "  PHASEC_MPI_CHECK(" + n + "_free_output((" + n + "_elem_t *)r));\n"
         : std::string("  free(r);\n");
  emitHarnessRunner(os, plan, mpiHarness(), allocRecv, freeRecv,
                    options.simTimeLine,
                    options.simTimeLine ? nullptr : &mpiNonblocking());
}

llvm::LogicalResult phasec::target::emitMPI(llvm::ArrayRef<OperationPlan> plans,
                                            llvm::raw_ostream &os,
                                            const MPIOptions &options,
                                            std::string &error) {
  if (options.header)
    return emitHeaderOf(emitMPI, plans, os, options, error, "MPI", "mpi.h");
  std::vector<OperationPlan> prefixed;
  if (failed(applySymbolPrefix(plans, options.symbolPrefix, prefixed, error)) ||
      failed(checkPlans(plans, error)))
    return llvm::failure();
  // Transfers of any size go as bytes (phasec_mpi_isend & co. switch to a
  // derived datatype above INT_MAX), but a chained transpose that receives
  // through its MPI_Type_vector (direct deposit's fallback included) sends
  // the block with MPI_Sendrecv's int count.
  for (const OperationPlan &p : plans) {
    if (p.relaying || p.aggregate != Aggregate::None || !p.isTranspose() ||
        p.options.style == TransferStyle::Packing || !options.derivedDatatypes)
      continue;
    for (const PlannedPhase &ph : p.phases)
      for (const PlannedTransfer &t : ph.transfers)
        if (t.bytes > INT_MAX) {
          error = "operation '" + p.name + "': a block of " +
                  std::to_string(t.bytes) +
                  " bytes exceeds MPI's int count of the derived-datatype "
                  "transpose; emit it without derived datatypes";
          return llvm::failure();
        }
  }
  os << "/* Generated by phasec (MPI back end). Do not edit.\n"
     << " * Build: mpicc -O3 out.c $(pkg-config --cflags --libs "
        "phasec-runtime)\n */\n";
  emitCommonTypes(os);
  os << "#include \"phasec_runtime_mpi.h\"\n";
  // The simulator's harness times every call from one instant.
  if (options.main && options.simTimeLine)
    os << "#include \"phasec_sim_start.h\"\n";
  os << "\n#define PHASEC_TAG 0x7068\n\n";
  for (const OperationPlan &p : plans)
    if (p.call.empty())
      MPIWriter(os, p, options).emitFunction();
  std::string finalize = finalizeName(options.symbolPrefix);
  os << "/* Frees everything the operations of this file cached (communicators "
        "split\n   off, datatypes, work space), so that nothing is left for a "
        "leak checker;\n   an operation called afterwards builds its own again "
        "(a direct-deposit\n   output is the caller's: NAME_free_output frees "
        "it). Collective: every rank\n   that called an operation calls it, "
        "before MPI_Finalize. Returns the first\n   MPI error code (it frees "
        "the rest regardless). */\n"
     << "int " << finalize << "(void) {\n  int rc = MPI_SUCCESS, r;\n";
  for (const OperationPlan &p : plans)
    if (hasRelease(p))
      os << "  if ((r = " << p.name
         << "_release()) != MPI_SUCCESS && rc == MPI_SUCCESS)\n    rc = r;\n";
  os << "  (void)r;\n  return rc;\n}\n\n";
  // The harness tests the operations one by one; a program calls the
  // caller's C, which the harness does not have.
  if (!options.main) {
    if (hasProgram(plans))
      emitProgram(os, plans,
                  {"int", ", MPI_Comm comm", ", comm",
                   "Collective over comm; returns the first error of an "
                   "operation, else\n   MPI_SUCCESS",
                   true, "MPI_SUCCESS", programName(options.symbolPrefix)});
    return llvm::success();
  }
  if (!options.simTimeLine)
    emitNonblockingHarnessSupport(os, mpiNonblocking());
  for (const OperationPlan &p : plans)
    if (p.call.empty())
      MPIWriter(os, p, options).emitRunner();
  emitHarnessMain(os, plans, mpiHarness(),
                  "  phasec_mpi_init(&argc, &argv);\n"
                  "  int rank, size;\n"
                  "  MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n"
                  "  MPI_Comm_size(MPI_COMM_WORLD, &size);\n",
                  finalize, options.iterations, options.warmup);
  return llvm::success();
}
