//===- SHMEMEmitter.cpp - C + OpenSHMEM code from operation plans ---------===//
//
// Part of phasec. MLIR-free.
//
//===----------------------------------------------------------------------===//
//
// OpenSHMEM is one-sided: only the sends of a member's tables matter (the
// receiver does nothing but wait at the barrier). Every operation starts
// with a barrier (the previous use of the destination arrays is over), and
// ends with shmem_quiet and a barrier. PEs outside the group take part in
// the barriers only (NAME_NBARRIERS of them).
//
//===----------------------------------------------------------------------===//

#include "phasec/Target/SHMEM/SHMEMEmitter.h"

#include "../common/EmitC.h"
#include "../common/Transport.h"

#include <cstring>

using namespace phasec;
using namespace phasec::target;
using namespace phasec::target::detail;

namespace {

class SHMEMWriter : PlanWriter<SHMEMOptions> {
public:
  using PlanWriter::PlanWriter;

  void emitFunction();
  /// The operation itself (emitFunction adds its barriers' sync object and
  /// nonblocking forms around it).
  void emitOperation();
  void emitRunner();

private:
  void emitWorkspace();
  void emitBlockBody(bool formula);
  void emitTransposeBody(bool formula);
  void emitPermuteBody(bool formula);
  void emitPhaseSync();
};

} // namespace

void SHMEMWriter::emitPhaseSync() {
  // Local sync in one-sided SHMEM: a PE enters its next phase once its
  // puts of this one are delivered (the receivers take no part).
  if (plan.options.sync == SyncKind::Local) {
    os << "    shmem_quiet(); /* local sync: this PE's puts are delivered */\n";
    return;
  }
  if (plan.options.sync != SyncKind::Barrier)
    return;
  os << "    if (j + 1 < " << n << "_NPHASES)\n"
     << "      phasec_shmem_barrier(&" << n
     << "_sync); /* quiet + barrier: congestion "
        "control */\n";
}

void SHMEMWriter::emitBlockBody(bool formula) {
  const char *put = options.nonBlocking ? "shmem_putmem_nbi" : "shmem_putmem";
  if (formula) {
    os << "    " << put << "(rb + " << n << "_rdispl_of(to, me), sb + " << n
       << "_sdispl_of(me, to), " << n << "_BLOCK, " << n << "_rank(to));\n";
  } else {
    os << "    for (const phasec_xfer_t *x = s0; x < s1; ++x)\n"
       << "      " << put << "(rb + " << n
       << "_rdispl_of(x->peer, me) + x->offset, sb + " << n
       << "_sdispl_of(me, x->peer) + x->offset,\n"
       << "                      (size_t)x->bytes, " << n
       << "_rank(x->peer));\n";
  }
  emitPhaseSync();
}

void SHMEMWriter::emitWorkspace() {
  std::string T = n + "_elem_t";
  TransferStyle style = plan.options.style;
  if (plan.isTranspose()) {
    TransposeShape sh = getTransposeShape(plan);
    os << "#define " << n << "_RR ((int64_t)" << sh.ra << " * " << sh.rb
       << ")\n"
       << "#define " << n << "_BLOCKBYTES ((int64_t)" << n
       << "_RR * (int64_t)sizeof(" << T << "))\n";
    os << "/* Work space, allocated on the first (collective) call and kept: "
       << n << "_strip\n   holds TILE destination rows for puts per "
          "contiguous run";
    if (style == TransferStyle::Packing)
      os << "; " << n << "_sbuf the packed blocks;\n   " << n
         << "_scr (symmetric) block s from member s";
    os << ". */\n"
       << "PHASEC_UNUSED static " << T << " *" << n << "_strip, *" << n << "_sbuf, *" << n
       << "_scr;\n"
       << "static inline size_t " << n << "_sym_bytes(void) { return "
       << (style == TransferStyle::Packing
               ? "(size_t)" + n + "_P * " + n + "_BLOCKBYTES"
               : std::string("0"))
       << "; }\n"
       << "static inline void " << n << "_workspace(void) {\n"
       << "  if (" << n << "_strip)\n    return;\n"
       << "  " << n << "_strip = (" << T << " *)PHASEC_XMALLOC(sizeof(" << T
       << ") * " << n << "_TILE * " << sh.ra << ", \"row strip\");\n";
    if (style == TransferStyle::Packing)
      os << "  " << n << "_sbuf = (" << T << " *)PHASEC_XMALLOC((size_t)" << n
         << "_P * " << n << "_BLOCKBYTES, \"packed blocks\");\n"
         << "  " << n << "_scr = (" << T << " *)PHASEC_SHMEM_MALLOC((size_t)"
         << n << "_P * " << n << "_BLOCKBYTES, \"receive area\");\n";
    os << "}\n\n";
    os << "/* The block for member d as a put per contiguous run: TILE "
          "destination rows\n   are gathered into a strip (strided loads), "
          "then each row goes in one put. */\n"
       << "static inline void " << n << "_tput(" << T
       << " *b, int me, int d, const " << T << " *a) {\n"
       << "  const " << T << " *src = a + (int64_t)d * " << sh.sb << ";\n"
       << "  for (int64_t m0 = 0; m0 < " << sh.rb << "; m0 += " << n
       << "_TILE) {\n"
       << "    const int64_t m1 = PHASEC_MIN(m0 + " << n << "_TILE, " << sh.rb
       << ");\n"
       << "    for (int64_t l = 0; l < " << sh.ra << "; ++l)\n"
       << "      for (int64_t m = m0; m < m1; ++m)\n"
       << "        " << n << "_strip[(m - m0) * " << sh.ra << " + l] = src[l * "
       << sh.lda << " + m];\n"
       << "    for (int64_t m = m0; m < m1; ++m)\n"
       << "      shmem_putmem(b + m * " << sh.ldb << " + (int64_t)me * "
       << sh.db << ", " << n << "_strip + (m - m0) * " << sh.ra << ",\n"
       << "                   sizeof(" << T << ") * " << sh.ra << ", " << n
       << "_rank(d));\n  }\n}\n\n";
    return;
  }
  // Permutes.
  int64_t p = plan.numMembers();
  int64_t maxPair = 1, maxIn = 1;
  for (int64_t d = 0; d < p; ++d) {
    int64_t in = 0;
    for (int64_t s = 0; s < p; ++s) {
      int64_t elements = plan.demand(s, d) / plan.elem.size;
      maxPair = std::max(maxPair, elements);
      in += elements;
    }
    maxIn = std::max(maxIn, in);
  }
  // n_scroff places the elements from every member, this member's own
  // included (they are counted in n_cnt but copied locally), so the receive
  // area must hold all L of them; the demands alone leave the own out
  // (writing past the area: found by SHMEM_library.test's shmem_free).
  maxIn = std::max(maxIn, plan.n / p);
  os << "#define " << n << "_MAXPAIR " << maxPair
     << " /* most elements one pair exchanges */\n"
     << "#define " << n << "_MAXIN " << maxIn
     << " /* most elements a member receives */\n"
     << "/* " << n << "_scr (symmetric): the elements from member s start at "
     << n << "_scroff[s]\n   (computed for every destination d: " << n
     << "_scroff[d * P + s]). */\n"
     << "PHASEC_UNUSED static " << T << " *" << n << "_sbuf, *" << n
     << "_scr;\n"
     << "PHASEC_UNUSED static int64_t *" << n << "_scroff, " << n << "_soff["
     << n << "_P];\n"
     << "static inline size_t " << n << "_sym_bytes(void) { return "
     << (style == TransferStyle::DirectDeposit
             ? std::string("0")
             : "sizeof(" + T + ") * " + n + "_MAXIN")
     << "; }\n"
     << "static inline void " << n << "_workspace(int me) {\n"
     << "  if (" << n << "_scroff)\n    return;\n"
     << "  if (me >= 0 && " << n << "_build_lists(me))\n"
     << "    phasec_shmem_fail(\"out of memory for the permutation index "
        "lists\", __FILE__,\n                      __LINE__);\n"
     << "  " << n << "_scroff = (int64_t *)PHASEC_XMALLOC(sizeof(int64_t) * "
     << n << "_P * " << n << "_P, \"receive offsets\");\n"
     << "  for (int d = 0; d < " << n << "_P && me >= 0; ++d) {\n"
     << "    int64_t o = 0;\n"
     << "    for (int s = 0; s < " << n << "_P; ++s) {\n"
     << "      " << n << "_scroff[d * " << n << "_P + s] = o;\n"
     << "      o += " << n << "_cnt[s * " << n << "_P + d];\n    }\n  }\n";
  if (style != TransferStyle::DirectDeposit) {
    os << "  int64_t so = 0;\n"
       << "  for (int q = 0; q < " << n << "_P && me >= 0; ++q) {\n"
       << "    " << n << "_soff[q] = so;\n"
       << "    so += " << n << "_cnt[me * " << n << "_P + q];\n  }\n"
       << "  " << n << "_sbuf = (" << T << " *)PHASEC_XMALLOC(sizeof(" << T
       << ") * (size_t)(so + " << n << "_MAXPAIR), \"pack buffer\");\n"
       << "  " << n << "_scr = (" << T << " *)PHASEC_SHMEM_MALLOC(sizeof(" << T
       << ") * " << n << "_MAXIN, \"receive area\");\n";
  }
  os << "}\n\n";
}

void SHMEMWriter::emitTransposeBody(bool formula) {
  std::string E = "(int64_t)sizeof(" + n + "_elem_t)";
  std::string T = n + "_elem_t";
  TransferStyle style = plan.options.style;
  if (style == TransferStyle::Packing) {
    if (formula)
      os << "    shmem_putmem(" << n << "_scr + (int64_t)me * " << n << "_RR, "
         << n << "_sbuf + (int64_t)to * " << n << "_RR, " << n
         << "_BLOCKBYTES, " << n << "_rank(to));\n";
    else
      os << "    for (const phasec_xfer_t *x = s0; x < s1; ++x)\n"
         << "      shmem_putmem((char *)(" << n << "_scr + (int64_t)me * " << n
         << "_RR) + x->offset,\n"
         << "                   (const char *)(" << n
         << "_sbuf + (int64_t)x->peer * " << n << "_RR) + x->offset, "
            "(size_t)x->bytes,\n"
         << "                   " << n << "_rank(x->peer));\n";
    emitPhaseSync();
    return;
  }
  bool dd = style == TransferStyle::DirectDeposit && options.useShmemPtr;
  TransposeShape sh = getTransposeShape(plan);
  auto full = [&](const std::string &peer, const std::string &in) {
    if (dd) {
      os << in << T << " *rb = (" << T << " *)shmem_ptr(b, " << n << "_rank("
         << peer << "));\n"
         << in << "if (rb) /* direct deposit: stores into the remote array */\n"
         << in << "  " << n << "_tblock(rb + (int64_t)me * " << sh.db << ", "
         << sh.ldb << ", a + (int64_t)" << peer << " * " << sh.sb << ", "
         << sh.lda << ");\n"
         << in << "else /* not mapped: a put per contiguous run */\n"
         << in << "  " << n << "_tput(b, me, " << peer << ", a);\n";
      return;
    }
    os << in << n << "_tput(b, me, " << peer << ", a);\n";
  };
  if (formula) {
    os << "    {\n";
    full("to", "      ");
    os << "    }\n";
    emitPhaseSync();
    return;
  }
  os << "    for (const phasec_xfer_t *x = s0; x < s1; ++x) {\n"
     << "      if (x->offset == 0 && x->bytes == " << n << "_BLOCKBYTES) {\n";
  full("x->peer", "        ");
  os << "        continue;\n      }\n"
     << "      /* A split block: elements [e0, e1) in transfer order. */\n"
     << "      const int64_t e0 = x->offset / " << E
     << ", e1 = (x->offset + x->bytes) / " << E << ";\n"
     << "      const " << T << " *src = a + (int64_t)x->peer * " << sh.sb
     << ";\n";
  if (dd)
    os << "      " << T << " *rp = (" << T << " *)shmem_ptr(b, " << n
       << "_rank(x->peer));\n"
       << "      if (rp) {\n"
       << "        " << n << "_tpart(rp + (int64_t)me * " << sh.db << ", "
       << sh.ldb << ", 0, src, " << sh.lda << ", 0, e0, e1);\n"
       << "        continue;\n      }\n";
  os << "      for (int64_t e = e0; e < e1; ++e) {\n"
     << "        const int64_t m = e / " << sh.ra << ", l = e % " << sh.ra
     << ";\n"
     << "        shmem_putmem(b + m * " << sh.ldb << " + (int64_t)me * "
     << sh.db << " + l, src + l * " << sh.lda << " + m, sizeof(" << T << "), "
     << n << "_rank(x->peer));\n      }\n"
     << "    }\n";
  emitPhaseSync();
}

void SHMEMWriter::emitPermuteBody(bool formula) {
  (void)formula;
  std::string E = "(int64_t)sizeof(" + n + "_elem_t)";
  std::string T = n + "_elem_t";
  TransferStyle style = plan.options.style;
  os << "    for (const phasec_xfer_t *x = s0; x < s1; ++x) {\n"
     << "      const int64_t e0 = x->offset / " << E
     << ", e1 = (x->offset + x->bytes) / " << E << ";\n";
  if (style == TransferStyle::DirectDeposit) {
    if (options.useShmemPtr)
      os << "      " << T << " *rb = (" << T << " *)shmem_ptr(b, " << n
         << "_rank(x->peer));\n"
         << "      if (rb) { /* direct deposit: stores into the remote array "
            "*/\n"
         << "        " << n << "_pstore(rb, a, me, x->peer, e0, e1);\n"
         << "        continue;\n      }\n";
    os << "      const int64_t *idx = " << n << "_sidx[x->peer];\n"
       << "      for (int64_t e = e0; e < e1; ++e) /* a put per element */\n"
       << "        shmem_putmem(b + " << n << "_perm((int64_t)me * " << n
       << "_L + idx[e]) - (int64_t)x->peer * " << n
       << "_L, a + idx[e], sizeof(" << T << "),\n"
       << "                     " << n << "_rank(x->peer));\n"
       << "    }\n";
    emitPhaseSync();
    return;
  }
  std::string dst = n + "_scr + " + n + "_scroff[x->peer * " + n +
                    "_P + me] + e0";
  if (style == TransferStyle::Packing)
    os << "      shmem_putmem(" << dst << ", " << n << "_sbuf + " << n
       << "_soff[x->peer] + e0, sizeof(" << T << ") * (size_t)(e1 - e0),\n"
       << "                   " << n << "_rank(x->peer));\n";
  else
    os << "      " << n << "_ppack(" << n << "_sbuf, a, x->peer, e0, e1); /* "
          "chained: pack, put */\n"
       << "      shmem_putmem(" << dst << ", " << n << "_sbuf, sizeof(" << T
       << ") * (size_t)(e1 - e0), " << n << "_rank(x->peer));\n";
  os << "    }\n";
  emitPhaseSync();
}

/// OpenSHMEM 1.4's active set of a group, when it is one: PEs start,
/// start + 2^logStride, ..., size of them.
struct ActiveSet {
  int64_t start = 0, logStride = 0, size = 0;
};
static std::optional<ActiveSet> getActiveSet(llvm::ArrayRef<RankId> group) {
  ActiveSet set{group.front(), 0, static_cast<int64_t>(group.size())};
  if (group.size() > 1) {
    int64_t stride = group[1] - group[0];
    if (!llvm::isPowerOf2_64(stride))
      return std::nullopt;
    set.logStride = llvm::Log2_64(stride);
    for (size_t i = 1; i < group.size(); ++i)
      if (group[i] - group[i - 1] != stride)
        return std::nullopt;
  }
  return set;
}

/// OpenSHMEM's put of `bytes` at `buf` to `remote` at member `peer`'s PE:
/// `shmem_putmem`, or its nonblocking form (SHMEMOptions::nonBlocking),
/// which the next quiet or barrier completes.
template <bool NonBlocking>
static std::string shmemPut(llvm::StringRef in, const OperationPlan &plan,
                            llvm::StringRef buf, llvm::StringRef remote,
                            llvm::StringRef bytes, llvm::StringRef peer,
                            llvm::StringRef, bool) {
  const char *put = NonBlocking ? "shmem_putmem_nbi(" : "shmem_putmem(";
  return (in + put + remote + ", " + buf + ",\n" + in +
          std::string(strlen(put), ' ') + "(size_t)(" + bytes + "), " +
          plan.name + "_rank(" + peer + "));\n")
      .str();
}

/// OpenSHMEM as detail::CTransport: one-sided, every PE calls (OpenSHMEM
/// 1.4 has no teams, and the symmetric allocations are collective over all
/// PEs); an operation's barriers are its own (`NAME_sync`). The PAPERS
/// aggregates' data functions are collective over all PEs too (a PAPERS
/// mask need not be a strided active set); a wait without a schedule over
/// a group that is an active set is the members' shmem_barrier.
static const CTransport &shmemTransport(bool nonBlocking) {
  static const CTransport transport = {
      "OpenSHMEM",
      /*oneSided=*/true, "", "", "void", "PHASEC_SHMEM_SUCCESS", "",
      "Collective over all PEs (the first call allocates its symmetric\n   "
      "memory).",
      [](llvm::raw_ostream &os, const OperationPlan &plan,
         llvm::function_ref<void()> collective) {
        const std::string &n = plan.name;
        emitSHMEMPrologue(os, plan);
        collective();
        os << "  const int me = " << n << "_member(shmem_my_pe());\n"
           << "  if (me < 0) {\n"
           << "    for (int i = 0; i < " << n << "_NBARRIERS; ++i)\n"
           << "      phasec_shmem_barrier(&" << n << "_sync);\n"
           << "    return PHASEC_SHMEM_SUCCESS;\n  }\n"
           << "  phasec_shmem_barrier(&" << n
           << "_sync); /* the previous call is done with the symmetric "
              "memory */\n";
      },
      [](llvm::StringRef in, llvm::StringRef ptr, llvm::StringRef type,
         llvm::StringRef bytes, llvm::StringRef what) {
        return (in + ptr + " = (" + type + " *)PHASEC_XMALLOC(" + bytes +
                ", \"" + what + "\");\n")
            .str();
      },
      [](llvm::StringRef in, llvm::StringRef ptr, llvm::StringRef type,
         llvm::StringRef bytes, llvm::StringRef what) {
        return (in + ptr + " = (" + type + " *)PHASEC_SHMEM_MALLOC(" + bytes +
                ", \"" + what + "\");\n")
            .str();
      },
      [](llvm::StringRef in, const OperationPlan &plan, llvm::StringRef format,
         llvm::StringRef args) {
        return (in + "char msg[160];\n" + in + "snprintf(msg, sizeof msg, \"" +
                plan.name + ": " + format + "\",\n" + in + "         " + args +
                ");\n" + in + "phasec_shmem_fail(msg, __FILE__, __LINE__);\n")
            .str();
      },
      nullptr, nullptr, shmemPut<true>,
      [](llvm::StringRef in, const OperationPlan &) {
        return (in + "shmem_quiet(); /* this PE's puts are delivered */\n")
            .str();
      },
      [](llvm::StringRef in, const OperationPlan &plan, llvm::StringRef why) {
        return (in + "phasec_shmem_barrier(&" + plan.name +
                "_sync); /* quiet + barrier: " + why + " */\n")
            .str();
      },
      // The PAPERS aggregates.
      "const int rank_ = shmem_my_pe();",
      "every PE calls it (the data\n   moves by functions collective over "
      "all PEs); PEs outside the group get no result (0, -1 for\n   "
      "rank, their own value for putget, gather leaves p as it is).",
      "shmem_global_exit(1)",
      [](const std::string &x, const std::string &send,
         const std::string &recv) {
        return x + "(" + send + ", " + recv + ")";
      },
      [](const OperationPlan &plan) {
        if (!getActiveSet(plan.group))
          return std::string();
        return "/* The members' active set's pSync (symmetric). */\n"
               "static long " +
               plan.name + "_psync[SHMEM_BARRIER_SYNC_SIZE];\nstatic int " +
               plan.name + "_psync_ready;\n";
      },
      [](const OperationPlan &plan) {
        std::optional<ActiveSet> set = getActiveSet(plan.group);
        if (!set)
          return std::string("  shmem_barrier_all(); /* every PE calls: the "
                             "group is no active set */\n");
        const std::string &x = plan.name;
        return "  if (!" + x +
               "_psync_ready) { /* every PE calls the first time */\n"
               "    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; ++i)\n"
               "      " +
               x +
               "_psync[i] = SHMEM_SYNC_VALUE;\n"
               "    " +
               x +
               "_psync_ready = 1;\n"
               "    shmem_barrier_all();\n  }\n"
               "  if (me_ >= 0) /* the members' active set, alone */\n"
               "    shmem_barrier(" +
               std::to_string(set->start) + ", " +
               std::to_string(set->logStride) + ", " +
               std::to_string(set->size) + ", " + x + "_psync);\n";
      },
      true};
  static const CTransport blocking = [] {
    CTransport t = transport;
    t.send = shmemPut<false>;
    return t;
  }();
  return nonBlocking ? transport : blocking;
}

/// The OpenSHMEM side of detail::NonblockingTransport.
static const NonblockingTransport &shmemNonblocking() {
  static const NonblockingTransport transport = {
      "",
      "PHASEC_SHMEM_SUCCESS",
      "PHASEC_SHMEM_ERR_PENDING",
      "PHASEC_SHMEM_ERR_NO_MEM",
      "PHASEC_SHMEM_ERR_UNBOUND",
      "Every PE",
      "The first call allocates what NAME keeps in the symmetric heap "
      "(its work space, its barriers' counters) before it returns "
      "(collective over all PEs, as NAME's first call is).",
      "it also checks the job's number of PEs (PHASEC_SHMEM_ERR_NPES).",
      [](llvm::raw_ostream &os, const OperationPlan &plan) {
        emitSHMEMPrologue(os, plan);
      }};
  return transport;
}

void SHMEMWriter::emitFunction() {
  if (plan.aggregate != Aggregate::None) {
    if (plan.movesData) {
      OperationPlan data = plan;
      data.aggregate = Aggregate::None;
      SHMEMWriter(os, data, options).emitFunction();
    }
    emitPapersFunction(os, plan, shmemTransport(options.nonBlocking));
    return;
  }
  os << "/* " << n << "'s barriers (phasec_shmem_barrier), its own. */\n"
     << "static phasec_shmem_sync " << n << "_sync;\n\n";
  emitOperation();
  if (!hasNonblockingForms(plan))
    return;
  emitNonblockingState(os, plan, shmemNonblocking());
  emitNonblockingForms(os, plan, shmemNonblocking());
}

void SHMEMWriter::emitOperation() {
  if (plan.relaying) {
    emitRelayCommon(os, plan);
    emitRelayFunction(os, plan, shmemTransport(options.nonBlocking));
    return;
  }
  emitPlanComment(os, plan);
  emitPlanData(os, plan);
  if (plan.runtimeDestinations()) {
    emitRuntimePermuteFunction(os, plan, shmemTransport(options.nonBlocking));
    return;
  }
  emitLocalCopy(os, plan);
  bool transpose = plan.isTranspose(), permute = plan.isElementPermute();
  std::string T = n + "_elem_t";
  if (transpose || permute)
    emitWorkspace();
  else
    os << "static inline size_t " << n << "_sym_bytes(void) { return 0; }\n\n";
  int64_t barriers = 2 + (plan.options.sync == SyncKind::Barrier
                              ? std::max<int64_t>(0, plan.phases.size() - 1)
                              : 0);
  os << "#define " << n << "_NBARRIERS " << barriers
     << " /* barriers per call, for PEs outside the group */\n\n";
  if (!transpose && !permute)
    emitInPlaceSupport(os, plan);
  os << "/* " << n << ": " << Collective::getKindName(plan.kind, plan.elementLevel)
     << ". Collective over all PEs; the ";
  if (transpose || permute)
    os << "output array b";
  else
    os << "receive buffer";
  os << " must be\n   symmetric (shmem_malloc).";
  if (!transpose && !permute)
    os << "\n" << describeBuffers(plan, "");
  else
    os << "\n   a and b must not overlap (the output would overwrite the "
          "input).";
  os << " */\n";
  if (transpose || permute)
    os << "int " << n << "(const " << T << " *a, " << T << " *b) {\n";
  else
    os << "int " << n << "(const void *sendbuf, void *recvbuf) {\n";
  emitSHMEMPrologue(os, plan);
  os << "  const int me = " << n << "_member(shmem_my_pe());\n";
  if (transpose)
    os << "  " << n << "_workspace();\n";
  if (permute)
    os << "  " << n << "_workspace(me);\n";
  os << "  if (me < 0) {\n"
     << "    for (int i = 0; i < " << n << "_NBARRIERS; ++i)\n"
     << "      phasec_shmem_barrier(&" << n
     << "_sync);\n    return PHASEC_SHMEM_SUCCESS;\n  }\n";
  // Before the barrier: once past it, other PEs put into recvbuf.
  if (!transpose && !permute)
    emitStageInPlace(os, plan, "",
                     [](llvm::StringRef ptr, llvm::StringRef bytes) {
                       return ptr.str() + " = (char *)PHASEC_XMALLOC(" +
                              bytes.str() + ", \"in-place copy\")";
                     });
  os << "  phasec_shmem_barrier(&" << n
     << "_sync); /* the previous use of every destination is "
        "over */\n";
  if (!transpose && !permute) {
    os << "  const char *sb = (const char *)sendbuf;\n"
       << "  char *rb = (char *)recvbuf;\n"
       << "  " << n << "_local(me, sendbuf, recvbuf);\n";
    emitPhaseLoop(os, plan, [&](llvm::raw_ostream &, bool f) {
      emitBlockBody(f);
    });
    os << "  phasec_shmem_barrier(&" << n
       << "_sync); /* everything delivered */\n"
       << "  return PHASEC_SHMEM_SUCCESS;\n}\n\n";
    return;
  }
  os << "  " << n << "_local(me, a, b);\n";
  TransferStyle style = plan.options.style;
  if (plan.localTranspose()) {
    // Nothing moves between members; the barriers stay those the other PEs
    // count (NAME_NBARRIERS).
    os << "  phasec_shmem_barrier(&" << n << "_sync);\n"
       << "  return PHASEC_SHMEM_SUCCESS;\n}\n\n";
    return;
  }
  if (transpose) {
    if (style == TransferStyle::Packing)
      emitTransposePackAll(os, plan);
    emitPhaseLoop(os, plan, [&](llvm::raw_ostream &, bool f) {
      emitTransposeBody(f);
    });
    os << "  phasec_shmem_barrier(&" << n
       << "_sync); /* everything delivered */\n";
    if (style == TransferStyle::Packing)
      emitTransposeUnpackAll(os, plan, n + "_scr");
    os << "  return PHASEC_SHMEM_SUCCESS;\n}\n\n";
    return;
  }
  if (style == TransferStyle::Packing)
    os << "  for (int q = 0; q < " << n << "_P; ++q) /* pack everything */\n"
       << "    if (q != me)\n      " << n << "_ppack(" << n << "_sbuf + " << n
       << "_soff[q], a, q, 0, " << n << "_cnt[me * " << n << "_P + q]);\n";
  emitPhaseLoop(os, plan, [&](llvm::raw_ostream &, bool f) {
    emitPermuteBody(f);
  });
  os << "  phasec_shmem_barrier(&" << n
     << "_sync); /* everything delivered */\n";
  if (style != TransferStyle::DirectDeposit)
    os << "  for (int q = 0; q < " << n << "_P; ++q) /* unpack */\n"
       << "    if (q != me)\n      " << n << "_punpack(b, " << n << "_scr + "
       << n << "_scroff[me * " << n << "_P + q], q, 0, " << n << "_cnt[q * "
       << n << "_P + me]);\n";
  os << "  return PHASEC_SHMEM_SUCCESS;\n}\n\n";
}

/// The statements of the file's finalize function that free what plan
/// allocated on its first call (see each kind's work space); every PE runs
/// them alike, so the symmetric frees stay collective.
static void emitSHMEMRelease(llvm::raw_ostream &os, const OperationPlan &plan) {
  const std::string &n = plan.name;
  auto heap = [&](const std::string &b) {
    os << "  free(" << b << ");\n  " << b << " = NULL;\n";
  };
  auto symmetric = [&](const std::string &b) {
    os << "  PHASEC_SHMEM_FREE(" << b << ");\n";
  };
  if (hasNonblockingForms(plan))
    // A call still in flight is abandoned (the caller completes every call
    // before finalizing).
    os << "  phasec_task_free(" << n << "_task);\n  " << n
       << "_task = NULL;\n  " << n << "_nb.bound = " << n
       << "_nb.pending = 0;\n";
  if (plan.aggregate == Aggregate::None)
    os << "  phasec_shmem_sync_free(&" << n << "_sync);\n";
  if (plan.aggregate != Aggregate::None) {
    if (!plan.movesData)
      return; // a barrier's pSync is a static array
    OperationPlan data = plan;
    data.aggregate = Aggregate::None;
    emitSHMEMRelease(os, data);
    if (!plan.relaying)
      symmetric(plan.papersName + "_sym");
    return;
  }
  if (plan.relaying) {
    symmetric(n + "_rscr");
    heap(n + "_D");
    heap(n + "_sscr");
    return;
  }
  if (plan.runtimeDestinations()) {
    heap(n + "_sbuf");
    heap(n + "_spos");
    for (const char *b : {"_rbuf", "_rpos", "_cnt_in", "_dst_in"})
      symmetric(n + b);
    return;
  }
  if (plan.isTranspose()) {
    heap(n + "_strip");
    heap(n + "_sbuf");
    symmetric(n + "_scr");
    return;
  }
  if (!plan.isElementPermute()) {
    // Blocks: the copy of an in-place call's input.
    heap(n + "_stage");
    os << "  " << n << "_stage_cap = 0;\n";
    return;
  }
  heap(n + "_sbuf");
  heap(n + "_scroff");
  symmetric(n + "_scr");
  os << "  " << n << "_free_lists();\n";
}

/// The OpenSHMEM harness's side of detail::HarnessTransport.
static const HarnessTransport &shmemHarness() {
  static const HarnessTransport transport = {
      "OpenSHMEM",
      "pe",
      "npes",
      "PEs",
      "oshrun",
      "",
      [](const std::string &call) { return call; },
      "",
      "shmem_barrier_all();",
      "phasec_shmem_sum(bad)",
      "phasec_shmem_reduce_times(t, iters)",
      "  shmem_barrier_all();\n",
      "shmem_finalize();",
      "phasec_shmem_finalize();",
      "phasec_shmem_"};
  return transport;
}

void SHMEMWriter::emitRunner() {
  if (plan.aggregate != Aggregate::None) {
    emitPapersRunner(os, plan, shmemHarness(), false);
    return;
  }
  if (plan.relaying)
    emitRelayHarnessHelpers(os, plan);
  else
    emitHarnessHelpers(os, plan);
  emitHarnessRunner(
      os, plan, shmemHarness(),
      "  char *r = (char *)PHASEC_SHMEM_MALLOC(" + n +
          (hasInPlaceRun(plan) ? "_buffer_bytes()" : "_recv_bytes()") +
          ", \"receive buffer\");\n",
      "  shmem_free(r);\n", false, &shmemNonblocking());
}

llvm::LogicalResult phasec::target::emitSHMEM(
    llvm::ArrayRef<OperationPlan> plans, llvm::raw_ostream &os,
    const SHMEMOptions &options, std::string &error) {
  if (options.header)
    return emitHeaderOf(emitSHMEM, plans, os, options, error, "OpenSHMEM",
                        "shmem.h");
  std::vector<OperationPlan> prefixed;
  if (failed(applySymbolPrefix(plans, options.symbolPrefix, prefixed, error)) ||
      failed(checkPlans(plans, error)))
    return llvm::failure();
  os << "/* Generated by phasec (OpenSHMEM back end). Do not edit.\n"
     << " * Build: oshcc -O3 out.c $(pkg-config --cflags --libs "
        "phasec-runtime)\n"
     << " * Run:   oshrun --mca osc ^rdma -np P ./a.out\n */\n";
  emitCommonTypes(os);
  os << "#include \"phasec_runtime_shmem.h\"\n\n";
  for (const OperationPlan &p : plans)
    if (p.call.empty())
      SHMEMWriter(os, p, options).emitFunction();
  os << "/* Frees everything the operations of this file allocated on their "
        "first call\n   (symmetric receive areas and scratch, private work "
        "space, index lists), so\n   that nothing is left for a leak checker; "
        "an operation called afterwards\n   allocates its own again. "
        "Collective over all PEs (shmem_free is), before\n   "
        "shmem_finalize. */\n"
     << "void " << finalizeName(options.symbolPrefix) << "(void) {\n";
  for (const OperationPlan &p : plans)
    if (p.call.empty())
      emitSHMEMRelease(os, p);
  os << "}\n\n";
  // The harness tests the operations one by one; a program calls the
  // caller's C, which the harness does not have.
  if (!options.main) {
    if (hasProgram(plans))
      emitProgram(os, plans,
                  {"int", "", "",
                   "Collective over all PEs; returns the first error of an "
                   "operation\n   (PHASEC_SHMEM_ERR_NPES), else "
                   "PHASEC_SHMEM_SUCCESS",
                   true, "PHASEC_SHMEM_SUCCESS",
                   programName(options.symbolPrefix)});
    return llvm::success();
  }
  emitNonblockingHarnessSupport(os, shmemNonblocking());
  for (const OperationPlan &p : plans)
    if (p.call.empty())
      SHMEMWriter(os, p, options).emitRunner();
  // Symmetric data: each operation's receive buffer and work space, plus
  // room for the timing reductions.
  std::string prologue =
      "  /* Symmetric data: each operation's receive buffer and work "
      "space, plus\n     room for the timing reductions. */\n"
      "  size_t heap = (size_t)1 << 20;\n";
  for (const OperationPlan &p : plans) {
    if (!p.call.empty())
      continue;
    if (p.aggregate == Aggregate::None)
      prologue +=
          "  heap += " + p.name +
          (hasInPlaceRun(p) ? "_buffer_bytes() + " : "_recv_bytes() + ") +
          p.name + "_sym_bytes();\n";
    else
      prologue += "  heap += " +
                  (p.movesData ? p.name + "_sym_bytes() + " : std::string()) +
                  p.papersName + "_PAPERS_SYM;\n";
  }
  prologue += "  phasec_shmem_init(heap);\n"
              "  const int pe = shmem_my_pe(), npes = shmem_n_pes();\n";
  emitHarnessMain(os, plans, shmemHarness(), prologue,
                  finalizeName(options.symbolPrefix), options.iterations,
                  options.warmup);
  return llvm::success();
}
