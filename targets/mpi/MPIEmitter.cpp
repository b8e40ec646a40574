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

#include <climits>

using namespace phasec;
using namespace phasec::target;
using namespace phasec::target::detail;

namespace {

class MPIWriter {
public:
  MPIWriter(llvm::raw_ostream &os, const OperationPlan &plan,
            const MPIOptions &options)
      : os(os), plan(plan), options(options), n(plan.name) {}

  void emitFunction();
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

  llvm::raw_ostream &os;
  const OperationPlan &plan;
  const MPIOptions &options;
  const std::string &n;
};

} // namespace

/// The members' communicator of plan `n`, at file scope.
static std::string mpiGroupComm(const std::string &n) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "/* The members' communicator, split once from the caller's. */\n"
     << "static MPI_Comm " << n << "_gcomm = MPI_COMM_NULL, " << n
     << "_gparent = MPI_COMM_NULL;\n"
     << "static inline MPI_Comm " << n << "_comm(MPI_Comm comm, int me) {\n"
     << "  if (" << n << "_gparent != comm) {\n"
     << "    if (" << n << "_gcomm != MPI_COMM_NULL)\n"
     << "      PHASEC_MPI_CHECK(MPI_Comm_free(&" << n << "_gcomm));\n"
     << "    PHASEC_MPI_CHECK(MPI_Comm_split(comm, me >= 0 ? 0 : MPI_UNDEFINED, "
        "me, &"
     << n << "_gcomm));\n"
     << "    if (" << n << "_gcomm != MPI_COMM_NULL)\n"
     << "      PHASEC_MPI_CHECK(MPI_Comm_set_errhandler(" << n
     << "_gcomm, MPI_ERRORS_RETURN));\n"
     << "    " << n << "_gparent = comm;\n  }\n"
     << "  return " << n << "_gcomm;\n}\n\n";
  return text;
}

void MPIWriter::emitGroupComm() { os << mpiGroupComm(n); }

/// The MPI side of detail::PapersTransport.
static const PapersTransport &mpiPapers() {
  static const PapersTransport transport = {
      ", MPI_Comm comm",
      ", comm",
      "MPI_Comm comm",
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
        return "  MPI_Comm g_ = " + plan.name +
               "_comm(comm, me_);\n  if (me_ >= 0)\n"
               "    PHASEC_MPI_CHECK(MPI_Barrier(g_));\n";
      },
      false};
  return transport;
}

void MPIWriter::emitPhaseSync() {
  if (plan.options.sync != SyncKind::Barrier)
    return;
  os << "    if (j + 1 < " << n << "_NPHASES)\n"
     << "      phasec_mpi_phase_barrier(g); /* congestion control */\n";
}

void MPIWriter::emitBlockBody(bool formula) {
  if (formula) {
    os << "    PHASEC_MPI_CHECK(MPI_Sendrecv(sb + " << n
       << "_sdispl_of(me, to), " << n << "_BLOCK, MPI_BYTE, to, PHASEC_TAG,\n"
       << "                                  rb + " << n
       << "_rdispl_of(me, from), " << n
       << "_BLOCK, MPI_BYTE, from, PHASEC_TAG,\n"
       << "                                  g, MPI_STATUS_IGNORE));\n";
    emitPhaseSync();
    return;
  }
  os << "    if (s1 - s0 == 1 && r1 - r0 == 1) { /* pairwise */\n"
     << "      PHASEC_MPI_CHECK(MPI_Sendrecv(sb + " << n
     << "_sdispl_of(me, s0->peer) + s0->offset, (int)s0->bytes, MPI_BYTE,\n"
     << "                                    s0->peer, PHASEC_TAG, rb + " << n
     << "_rdispl_of(me, r0->peer) + r0->offset,\n"
     << "                                    (int)r0->bytes, MPI_BYTE, "
        "r0->peer, PHASEC_TAG, g, MPI_STATUS_IGNORE));\n"
     << "    } else {\n"
     << "      MPI_Request req[" << n << "_MAXSEND + " << n << "_MAXRECV];\n"
     << "      int nreq = 0;\n"
     << "      for (const phasec_xfer_t *x = r0; x < r1; ++x)\n"
     << "        PHASEC_MPI_CHECK(MPI_Irecv(rb + " << n
     << "_rdispl_of(me, x->peer) + x->offset, (int)x->bytes, MPI_BYTE,\n"
     << "                                   x->peer, PHASEC_TAG, g, "
        "&req[nreq++]));\n"
     << "      for (const phasec_xfer_t *x = s0; x < s1; ++x)\n"
     << "        PHASEC_MPI_CHECK(MPI_Isend(sb + " << n
     << "_sdispl_of(me, x->peer) + x->offset, (int)x->bytes, MPI_BYTE,\n"
     << "                                   x->peer, PHASEC_TAG, g, "
        "&req[nreq++]));\n"
     << "      PHASEC_MPI_CHECK(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));\n"
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
       << "    PHASEC_MPI_CHECK(MPI_Irecv(rb + " << n
       << "_rdispl_of(me, from), " << n
       << "_BLOCK, MPI_BYTE, from, PHASEC_TAG, g, &req[j]));\n  }\n"
       << "  for (int j = 0; j < " << n << "_NPHASES; ++j) {\n"
       << "    const int to = " << n << "_to(me, j);\n"
       << "    PHASEC_MPI_CHECK(MPI_Isend(sb + " << n << "_sdispl_of(me, to), "
       << n << "_BLOCK, MPI_BYTE, to, PHASEC_TAG, g, &req[" << n
       << "_NPHASES + j]));\n  }\n"
       << "  PHASEC_MPI_CHECK(MPI_Waitall(2 * " << n
       << "_NPHASES, req, MPI_STATUSES_IGNORE));\n";
    return;
  }
  os << "  const int ns = " << n << "_nsends[me], nr = " << n
     << "_nrecvs[me];\n"
     << "  MPI_Request *req = (MPI_Request *)PHASEC_XMALLOC(sizeof(MPI_Request) "
        "* (size_t)(ns + nr + 1), \"requests\");\n"
     << "  for (int i = 0; i < nr; ++i) {\n"
     << "    const phasec_xfer_t *x = &" << n << "_recvs[me][i];\n"
     << "    PHASEC_MPI_CHECK(MPI_Irecv(rb + " << n
     << "_rdispl_of(me, x->peer) + x->offset, (int)x->bytes, MPI_BYTE,\n"
     << "                               x->peer, PHASEC_TAG, g, &req[i]));\n"
     << "  }\n"
     << "  for (int i = 0; i < ns; ++i) {\n"
     << "    const phasec_xfer_t *x = &" << n << "_sends[me][i];\n"
     << "    PHASEC_MPI_CHECK(MPI_Isend(sb + " << n
     << "_sdispl_of(me, x->peer) + x->offset, (int)x->bytes, MPI_BYTE,\n"
     << "                               x->peer, PHASEC_TAG, g, &req[nr + "
        "i]));\n"
     << "  }\n"
     << "  PHASEC_MPI_CHECK(MPI_Waitall(ns + nr, req, MPI_STATUSES_IGNORE));\n"
     << "  free(req);\n";
}

void MPIWriter::emitTransposeSupport() {
  std::string T = n + "_elem_t";
  TransposeShape sh = getTransposeShape(plan);
  os << "#define " << n << "_RR ((int64_t)" << sh.ra << " * " << sh.rb
     << ")\n"
     << "#define " << n << "_BLOCKBYTES ((int64_t)" << n << "_RR * (int64_t)sizeof("
     << T << "))\n"
     << "/* Work space, allocated on first use and kept. */\n"
     << "static " << T << " *" << n << "_sbuf, *" << n << "_rbuf;\n"
     << (plan.isSquare()
             ? "/* R rows of R elements, N apart: one block of the output. */\n"
             : "/* RB rows of RA elements, NB apart: one block of the output. "
               "*/\n")
     << "static MPI_Datatype " << n << "_rowblock = MPI_DATATYPE_NULL;\n"
     << "static inline void " << n << "_workspace(void) {\n"
     << "  if (" << n << "_sbuf)\n    return;\n";
  if (plan.options.style == TransferStyle::Packing) {
    os << "  " << n << "_sbuf = (" << T << " *)PHASEC_XMALLOC((size_t)" << n
       << "_P * " << n << "_BLOCKBYTES, \"packed send buffer\");\n"
       << "  " << n << "_rbuf = (" << T << " *)PHASEC_XMALLOC((size_t)" << n
       << "_P * " << n << "_BLOCKBYTES, \"packed receive buffer\");\n";
  } else {
    os << "  " << n << "_sbuf = (" << T << " *)PHASEC_XMALLOC((size_t)" << n
       << "_MAXSEND * " << n << "_BLOCKBYTES, \"pack buffer\");\n"
       << "  " << n << "_rbuf = (" << T << " *)PHASEC_XMALLOC((size_t)" << n
       << "_MAXRECV * " << n << "_BLOCKBYTES, \"receive buffer\");\n";
  }
  os << "  MPI_Datatype el;\n"
     << "  PHASEC_MPI_CHECK(MPI_Type_contiguous((int)sizeof(" << T
     << "), MPI_BYTE, &el));\n"
     << "  PHASEC_MPI_CHECK(MPI_Type_vector(" << sh.rb << ", " << sh.ra
     << ", " << sh.nb << ", el, &" << n << "_rowblock));\n"
     << "  PHASEC_MPI_CHECK(MPI_Type_commit(&" << n << "_rowblock));\n"
     << "  PHASEC_MPI_CHECK(MPI_Type_free(&el));\n}\n\n";
  if (plan.options.style != TransferStyle::DirectDeposit)
    return;
  os << "/* Direct deposit through an MPI_Win_allocate_shared window: the "
        "output array\n   of every member, addressable by all when they "
        "share a node. */\n"
     << "static MPI_Win " << n << "_win = MPI_WIN_NULL;\n"
     << "static " << T << " *" << n << "_win_base, *" << n << "_peer_base["
     << n << "_P];\n"
     << "/* Allocates an output array ("
     << (plan.isSquare() ? "R x N" : "RB x NB") << " elements) for " << n
     << "; collective over comm.\n   In a shared window when all ranks "
        "of comm share a node, else with malloc. */\n"
     << T << " *" << n << "_alloc_output(MPI_Comm comm) {\n"
     << "  int rank, size, nsize;\n  MPI_Comm node;\n"
     << "  PHASEC_MPI_CHECK(MPI_Comm_rank(comm, &rank));\n"
     << "  PHASEC_MPI_CHECK(MPI_Comm_size(comm, &size));\n"
     << "  PHASEC_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, "
        "MPI_INFO_NULL, &node));\n"
     << "  PHASEC_MPI_CHECK(MPI_Comm_size(node, &nsize));\n"
     << "  PHASEC_MPI_CHECK(MPI_Comm_free(&node));\n"
     << "  const size_t bytes = (size_t)" << sh.rb << " * " << sh.nb
     << " * sizeof(" << T << ");\n"
     << "  if (nsize != size || " << n << "_win != MPI_WIN_NULL)\n"
     << "    return (" << T << " *)PHASEC_XMALLOC(bytes, \"output array\");\n"
     << "  PHASEC_MPI_CHECK(MPI_Win_allocate_shared((MPI_Aint)(" << n
     << "_member(rank) >= 0 ? bytes : 0), (int)sizeof(" << T << "),\n"
     << "                                          MPI_INFO_NULL, comm, &" << n
     << "_win_base, &" << n << "_win));\n"
     << "  for (int m = 0; m < " << n << "_P; ++m) {\n"
     << "    MPI_Aint sz;\n    int du;\n"
     << "    PHASEC_MPI_CHECK(MPI_Win_shared_query(" << n << "_win, " << n
     << "_rank(m), &sz, &du, &" << n << "_peer_base[m]));\n  }\n"
     << "  PHASEC_MPI_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, " << n
     << "_win));\n"
     << "  return " << n << "_win_base;\n}\n"
     << "/* Frees what " << n << "_alloc_output returned; collective. */\n"
     << "void " << n << "_free_output(" << T << " *b) {\n"
     << "  if (" << n << "_win != MPI_WIN_NULL && b == " << n << "_win_base) {\n"
     << "    PHASEC_MPI_CHECK(MPI_Win_unlock_all(" << n << "_win));\n"
     << "    PHASEC_MPI_CHECK(MPI_Win_free(&" << n << "_win));\n"
     << "    " << n << "_win_base = NULL;\n    return;\n  }\n"
     << "  free(b);\n}\n\n";
}

void MPIWriter::emitTransposeChainedBody(bool formula) {
  bool dt = options.derivedDatatypes;
  TransposeShape sh = getTransposeShape(plan);
  if (formula) {
    os << "    " << n << "_tblock(" << n << "_sbuf, " << sh.ra
       << ", a + (int64_t)to * " << sh.rb << ", " << sh.na
       << "); /* pack, transposed */\n";
    if (dt) {
      os << "    PHASEC_MPI_CHECK(MPI_Sendrecv(" << n << "_sbuf, (int)" << n
         << "_BLOCKBYTES, MPI_BYTE, to, PHASEC_TAG,\n"
         << "                                  b + (int64_t)from * " << sh.ra
         << ", 1, " << n << "_rowblock, from, PHASEC_TAG,\n"
         << "                                  g, MPI_STATUS_IGNORE)); /* "
            "unpacked by the datatype */\n";
    } else {
      os << "    PHASEC_MPI_CHECK(MPI_Sendrecv(" << n << "_sbuf, (int)" << n
         << "_BLOCKBYTES, MPI_BYTE, to, PHASEC_TAG,\n"
         << "                                  " << n << "_rbuf, (int)" << n
         << "_BLOCKBYTES, MPI_BYTE, from, PHASEC_TAG,\n"
         << "                                  g, MPI_STATUS_IGNORE));\n"
         << "    " << n << "_tunpack(b + (int64_t)from * " << sh.ra << ", "
         << sh.nb << ", " << n << "_rbuf);\n";
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
       << "        PHASEC_MPI_CHECK(MPI_Irecv(b + (int64_t)x->peer * " << sh.ra
       << ", 1, " << n << "_rowblock, x->peer, PHASEC_TAG, g, "
          "&req[nreq++]));\n      else\n  ";
  os << "      PHASEC_MPI_CHECK(MPI_Irecv(" << n << "_rbuf + (x - r0) * " << n
     << "_RR, (int)x->bytes, MPI_BYTE, x->peer, PHASEC_TAG, g, "
        "&req[nreq++]));\n"
     << "    }\n"
     << "    for (const phasec_xfer_t *x = s0; x < s1; ++x) {\n"
     << "      " << n << "_elem_t *pk = " << n << "_sbuf + (x - s0) * " << n
     << "_RR;\n"
     << "      if (" << full << ")\n"
     << "        " << n << "_tblock(pk, " << sh.ra << ", a + (int64_t)x->peer * "
     << sh.rb << ", " << sh.na << "); /* pack, transposed */\n"
     << "      else\n"
     << "        " << n << "_tpart(pk, 0, 1, a + (int64_t)x->peer * " << sh.rb
     << ", " << sh.na << ", 0, x->offset / " << E << ", (x->offset + x->bytes) / "
     << E << ");\n"
     << "      PHASEC_MPI_CHECK(MPI_Isend(pk, (int)x->bytes, MPI_BYTE, x->peer, "
        "PHASEC_TAG, g, &req[nreq++]));\n"
     << "    }\n"
     << "    PHASEC_MPI_CHECK(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));\n"
     << "    for (const phasec_xfer_t *x = r0; x < r1; ++x) {\n"
     << "      const " << n << "_elem_t *in = " << n << "_rbuf + (x - r0) * "
     << n << "_RR;\n";
  if (dt)
    os << "      if (" << full << ")\n        continue;\n";
  os << "      if (" << full << ")\n"
     << "        " << n << "_tunpack(b + (int64_t)x->peer * " << sh.ra << ", "
     << sh.nb << ", in);\n"
     << "      else\n"
     << "        " << n << "_tpart(b + (int64_t)x->peer * " << sh.ra << ", "
     << sh.nb << ", 0, in, 0, 1, x->offset / " << E << ", (x->offset + x->bytes) / "
     << E << ");\n"
     << "    }\n";
  emitPhaseSync();
}

void MPIWriter::emitTransposePackingBody(bool formula) {
  if (formula) {
    os << "    PHASEC_MPI_CHECK(MPI_Sendrecv(" << n << "_sbuf + (int64_t)to * "
       << n << "_RR, (int)" << n << "_BLOCKBYTES, MPI_BYTE, to, PHASEC_TAG,\n"
       << "                                  " << n
       << "_rbuf + (int64_t)from * " << n << "_RR, (int)" << n
       << "_BLOCKBYTES, MPI_BYTE, from, PHASEC_TAG,\n"
       << "                                  g, MPI_STATUS_IGNORE));\n";
    emitPhaseSync();
    return;
  }
  os << "    MPI_Request req[" << n << "_MAXSEND + " << n << "_MAXRECV];\n"
     << "    int nreq = 0;\n"
     << "    for (const phasec_xfer_t *x = r0; x < r1; ++x)\n"
     << "      PHASEC_MPI_CHECK(MPI_Irecv((char *)(" << n
     << "_rbuf + (int64_t)x->peer * " << n
     << "_RR) + x->offset, (int)x->bytes, MPI_BYTE,\n"
     << "                                 x->peer, PHASEC_TAG, g, "
        "&req[nreq++]));\n"
     << "    for (const phasec_xfer_t *x = s0; x < s1; ++x)\n"
     << "      PHASEC_MPI_CHECK(MPI_Isend((char *)(" << n
     << "_sbuf + (int64_t)x->peer * " << n
     << "_RR) + x->offset, (int)x->bytes, MPI_BYTE,\n"
     << "                                 x->peer, PHASEC_TAG, g, "
        "&req[nreq++]));\n"
     << "    PHASEC_MPI_CHECK(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));\n";
  emitPhaseSync();
}

void MPIWriter::emitTransposeDepositBody(bool formula) {
  std::string E = "(int64_t)sizeof(" + n + "_elem_t)";
  TransposeShape sh = getTransposeShape(plan);
  if (formula) {
    os << "    " << n << "_tblock(" << n << "_peer_base[to] + (int64_t)me * "
       << sh.ra << ", " << sh.nb << ", a + (int64_t)to * " << sh.rb << ", "
       << sh.na << ");\n";
  } else {
    os << "    for (const phasec_xfer_t *x = s0; x < s1; ++x) {\n"
       << "      " << n << "_elem_t *dst = " << n
       << "_peer_base[x->peer] + (int64_t)me * " << sh.ra << ";\n"
       << "      const " << n << "_elem_t *src = a + (int64_t)x->peer * "
       << sh.rb << ";\n"
       << "      if (x->offset == 0 && x->bytes == " << n << "_BLOCKBYTES)\n"
       << "        " << n << "_tblock(dst, " << sh.nb << ", src, " << sh.na
       << ");\n"
       << "      else\n"
       << "        " << n << "_tpart(dst, " << sh.nb << ", 0, src, " << sh.na
       << ", 0, x->offset / " << E << ", (x->offset + x->bytes) / " << E
       << ");\n    }\n";
  }
  if (plan.options.sync == SyncKind::Barrier)
    os << "    if (j + 1 < " << n << "_NPHASES) { /* congestion control */\n"
       << "      PHASEC_MPI_CHECK(MPI_Win_sync(" << n << "_win));\n"
       << "      phasec_mpi_phase_barrier(g);\n    }\n";
}

void MPIWriter::emitPermuteBody(bool formula) {
  (void)formula; // permutes always use tables
  std::string E = "(int64_t)sizeof(" + n + "_elem_t)";
  bool packing = plan.options.style == TransferStyle::Packing;
  os << "    MPI_Request req[" << n << "_MAXSEND + " << n << "_MAXRECV];\n"
     << "    int nreq = 0;\n"
     << "    for (const phasec_xfer_t *x = r0; x < r1; ++x)\n"
     << "      PHASEC_MPI_CHECK(MPI_Irecv("
     << (packing ? "(char *)(" + n + "_rbuf + " + n + "_roff[x->peer]) + x->offset"
                 : n + "_rbuf + (x - r0) * " + n + "_MAXPAIR")
     << ", (int)x->bytes, MPI_BYTE,\n"
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
  os << "      PHASEC_MPI_CHECK(MPI_Isend(pk, (int)x->bytes, MPI_BYTE, x->peer, "
        "PHASEC_TAG, g, &req[nreq++]));\n"
     << "    }\n"
     << "    PHASEC_MPI_CHECK(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));\n";
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
    emitPapersFunction(os, plan, mpiPapers());
    const std::string &P = plan.papersName;
    if (plan.movesData || plan.aggregate == Aggregate::Barrier)
      os << "/* Frees the members' communicator " << P
         << " split off (the members call it). */\n"
         << "void " << P << "_free(void) {\n"
         << "  if (" << n << "_gcomm != MPI_COMM_NULL)\n"
         << "    PHASEC_MPI_CHECK(MPI_Comm_free(&" << n << "_gcomm));\n"
         << "  " << n << "_gparent = MPI_COMM_NULL;\n}\n\n";
    return;
  }
  if (plan.relaying) {
    emitRelayCommon(os, plan);
    emitGroupComm();
    emitRelayMPI(os, plan);
    return;
  }
  emitPlanComment(os, plan);
  emitPlanData(os, plan);
  if (plan.runtimeDestinations()) {
    emitGroupComm();
    emitRuntimePermuteMPI(os, plan);
    return;
  }
  emitLocalCopy(os, plan);
  emitGroupComm();
  bool transpose = isTranspose(plan), permute = isPermute(plan);
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
    os << "static inline void " << n << "_workspace(int me) {\n"
       << "  if (" << n << "_sbuf)\n    return;\n"
       << "  " << n << "_init(me);\n";
    if (packing)
      os << "  int64_t so = 0, ro = 0;\n"
         << "  for (int q = 0; q < " << n << "_P; ++q) {\n"
         << "    " << n << "_soff[q] = so;\n    " << n << "_roff[q] = ro;\n"
         << "    so += " << n << "_cnt[me * " << n << "_P + q];\n"
         << "    ro += " << n << "_cnt[q * " << n << "_P + me];\n  }\n"
         << "  " << n << "_sbuf = (" << T << " *)PHASEC_XMALLOC(sizeof(" << T
         << ") * (size_t)(so + 1), \"packed send buffer\");\n"
         << "  " << n << "_rbuf = (" << T << " *)PHASEC_XMALLOC(sizeof(" << T
         << ") * (size_t)(ro + 1), \"packed receive buffer\");\n";
    else
      os << "  " << n << "_sbuf = (" << T << " *)PHASEC_XMALLOC(sizeof(" << T
         << ") * " << n << "_MAXSEND * " << n << "_MAXPAIR, \"pack buffer\");\n"
         << "  " << n << "_rbuf = (" << T << " *)PHASEC_XMALLOC(sizeof(" << T
         << ") * " << n << "_MAXRECV * " << n
         << "_MAXPAIR, \"receive buffer\");\n";
    os << "}\n\n";
  }

  // The operation.
  os << "/* " << n << ": " << Collective::getKindName(plan.kind, plan.elementLevel)
     << ". Collective over comm (its ranks are the plan's ranks);\n   ranks "
        "outside the group only take part in splitting off the members' "
        "communicator. */\n";
  if (transpose || permute)
    os << "int " << n << "(const " << T << " *a, " << T
       << " *b, MPI_Comm comm) {\n";
  else
    os << "int " << n
       << "(const void *sendbuf, void *recvbuf, MPI_Comm comm) {\n";
  emitMPIPrologue(os, plan);
  if (!transpose && !permute) {
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
    return;
  }
  if (permute) {
    os << "  " << n << "_workspace(me);\n"
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
    return;
  }
  // Transposes.
  os << "  " << n << "_workspace();\n"
     << "  " << n << "_local(me, a, b);\n";
  TransferStyle style = plan.options.style;
  if (style == TransferStyle::DirectDeposit) {
    os << "  if (" << n << "_win != MPI_WIN_NULL && b == " << n
       << "_win_base) {\n"
       << "    /* Direct deposit: the copy loop stores into the destination's "
          "window. */\n"
       << "    PHASEC_MPI_CHECK(MPI_Win_sync(" << n << "_win));\n"
       << "    phasec_mpi_phase_barrier(g); /* every output is free */\n";
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
    os << "    PHASEC_MPI_CHECK(MPI_Win_sync(" << n << "_win));\n"
       << "    phasec_mpi_phase_barrier(g); /* all deposits are done */\n"
       << "    PHASEC_MPI_CHECK(MPI_Win_sync(" << n << "_win));\n"
       << "    return MPI_SUCCESS;\n  }\n"
       << "  /* Not a window of " << n
       << "_alloc_output (or ranks on several nodes): chained. */\n";
  }
  if (style == TransferStyle::Packing) {
    TransposeShape sh = getTransposeShape(plan);
    os << "  for (int q = 0; q < " << n
       << "_P; ++q) /* pack everything, transposed */\n"
       << "    if (q != me)\n      " << n << "_tblock(" << n
       << "_sbuf + (int64_t)q * " << n << "_RR, " << sh.ra
       << ", a + (int64_t)q * " << sh.rb << ", " << sh.na << ");\n";
    emitPhaseLoop(os, plan, [&](llvm::raw_ostream &, bool f) {
      emitTransposePackingBody(f);
    });
    os << "  for (int q = 0; q < " << n << "_P; ++q) /* unpack everything */\n"
       << "    if (q != me)\n      " << n << "_tunpack(b + (int64_t)q * "
       << sh.ra << ", " << sh.nb << ", " << n << "_rbuf + (int64_t)q * " << n
       << "_RR);\n";
  } else {
    emitPhaseLoop(os, plan, [&](llvm::raw_ostream &, bool f) {
      emitTransposeChainedBody(f);
    });
  }
  os << "  return MPI_SUCCESS;\n}\n\n";
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
                          "_recv_bytes(), \"receive buffer\");\n",
                      "  free(r);\n", options.simTimeLine);
    return;
  }
  emitHarnessHelpers(os, plan);
  // Direct-deposit transposes put their output into a shared window.
  bool dd = isTranspose(plan) &&
            plan.options.style == TransferStyle::DirectDeposit;
  std::string allocRecv =
      dd ? "  char *r = (char *)" + n + "_alloc_output(MPI_COMM_WORLD);\n"
         : "  char *r = (char *)PHASEC_XMALLOC(" + n +
               "_recv_bytes(), \"receive buffer\");\n";
  std::string freeRecv = dd ? "  " + n + "_free_output((" + n +
                                  "_elem_t *)r);\n"
                            : std::string("  free(r);\n");
  emitHarnessRunner(os, plan, mpiHarness(), allocRecv, freeRecv,
                    options.simTimeLine);
}

llvm::LogicalResult phasec::target::emitMPI(llvm::ArrayRef<OperationPlan> plans,
                                            llvm::raw_ostream &os,
                                            const MPIOptions &options,
                                            std::string &error) {
  std::vector<OperationPlan> prefixed;
  if (failed(applySymbolPrefix(plans, options.symbolPrefix, prefixed, error)) ||
      failed(checkPlans(plans, error)))
    return llvm::failure();
  for (const OperationPlan &p : plans) {
    int64_t limit = INT_MAX;
    for (const PlannedPhase &ph : p.phases)
      for (const PlannedTransfer &t : ph.transfers)
        if (t.bytes > limit) {
          error = "operation '" + p.name + "': a transfer of " +
                  std::to_string(t.bytes) +
                  " bytes exceeds MPI's int count; split it in the schedule";
          return llvm::failure();
        }
  }
  os << "/* Generated by phasec (MPI back end). Do not edit.\n"
     << " * Build: mpicc -O3 out.c $(pkg-config --cflags --libs "
        "phasec-runtime)\n */\n";
  emitCommonTypes(os);
  os << "#include \"phasec_runtime_mpi.h\"\n\n"
     << "#define PHASEC_TAG 0x7068\n\n";
  for (const OperationPlan &p : plans)
    if (p.call.empty())
      MPIWriter(os, p, options).emitFunction();
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
  for (const OperationPlan &p : plans)
    if (p.call.empty())
      MPIWriter(os, p, options).emitRunner();
  emitHarnessMain(os, plans, mpiHarness(),
                  "  phasec_mpi_init(&argc, &argv);\n"
                  "  int rank, size;\n"
                  "  MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n"
                  "  MPI_Comm_size(MPI_COMM_WORLD, &size);\n",
                  options.iterations, options.warmup);
  return llvm::success();
}
