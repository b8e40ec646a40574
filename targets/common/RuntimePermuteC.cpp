//===- RuntimePermuteC.cpp - Permutes with run-time destinations ----------===//
//
// Part of phasec. Internal to targets/.
//
//===----------------------------------------------------------------------===//
//
// `permute NAME { from = A; to = B; pattern = runtime; }`: the caller gives
// each element's destination with the call (seed 000's grouped permutation,
// whose destinations come from the keys). Nothing about the traffic is known
// when the code is generated, so the schedule is the all-to-all of what a
// uniformly random permutation moves (Collective::runtimePairBytes) and the
// generated code, per call, counts what goes where, tells the receivers,
// groups the elements by destination with their positions there (the
// presort copy), moves each pair's elements along the schedule's phases
// (a transfer covering bytes [o, o + b) of the modelled pair moves the
// elements [c o / B, c (o + b) / B) of the c the pair really has, which
// both ends compute alike) and scatters what arrived by its positions.
//
//===----------------------------------------------------------------------===//

#include "EmitC.h"

using namespace phasec;
using namespace phasec::target;
using namespace phasec::target::detail;

void detail::emitRuntimePermuteSupport(llvm::raw_ostream &os,
                                       const OperationPlan &plan) {
  const std::string &n = plan.name;
  std::string T = n + "_elem_t";
  os << "/* Run-time destinations: dest[i] is the index in the " << n
     << "_N-element array where\n   element i of this member's slice goes. "
        "The schedule is the all-to-all of\n   what a uniformly random "
        "permutation moves ("
     << n
     << "_B bytes a pair); a transfer\n   covering bytes [o, o + b) of a "
        "pair moves the elements [c o / B, c (o + b) / B)\n   of the c this "
        "call's destinations send there. */\n"
     << "#define " << n << "_B ((uint64_t)" << plan.pairBytes << ")\n"
     << "typedef uint32_t " << n
     << "_pos_t; /* a position in the destination's slice */\n"
     << "static int64_t " << n << "_scnt[" << n << "_P], " << n << "_soff[" << n
     << "_P], " << n << "_rcnt[" << n << "_P], " << n << "_roff[" << n
     << "_P];\n\n"
     << "/* Counts this member's elements per destination member; returns "
        "the first i\n   whose dest[i] is outside 0.."
     << n << "_N-1, or -1. */\n"
     << "static inline int64_t " << n << "_count(const int64_t *dest) {\n"
     << "  for (int q = 0; q < " << n << "_P; ++q)\n    " << n
     << "_scnt[q] = 0;\n"
     << "  for (int64_t i = 0; i < " << n << "_L; ++i) {\n"
     << "    const int64_t t = dest[i];\n"
     << "    if (t < 0 || t >= " << n << "_N)\n      return i;\n"
     << "    ++" << n << "_scnt[t / " << n << "_L];\n  }\n  return -1;\n}\n\n"
     << "/* Where the elements from each member start in the receive area; "
        "returns the\n   elements this member gets in all ("
     << n << "_L when the destinations are a\n   permutation). */\n"
     << "static inline int64_t " << n << "_recv_offsets(int me) {\n"
     << "  int64_t ro = 0;\n"
     << "  for (int q = 0; q < " << n << "_P; ++q) {\n"
     << "    " << n << "_roff[q] = ro;\n"
     << "    if (q != me)\n      ro += " << n << "_rcnt[q];\n  }\n"
     << "  return ro + " << n << "_scnt[me];\n}\n\n"
     << "/* The presort copy (seed 000): the elements for other members "
        "grouped by\n   destination, in order, with their positions there; "
        "what stays is stored. */\n"
     << "static inline void " << n << "_pack(" << T << " *restrict sbuf, " << n
     << "_pos_t *restrict spos,\n    const " << T << " *restrict a, " << T
     << " *restrict b, const int64_t *restrict dest, int me) {\n"
     << "  int64_t fill[" << n << "_P], so = 0;\n"
     << "  for (int q = 0; q < " << n << "_P; ++q) {\n"
     << "    " << n << "_soff[q] = fill[q] = so;\n"
     << "    if (q != me)\n      so += " << n << "_scnt[q];\n  }\n"
     << "  for (int64_t i = 0; i < " << n << "_L; ++i) {\n"
     << "    const int64_t t = dest[i];\n"
     << "    const int d = (int)(t / " << n << "_L);\n"
     << "    const int64_t pos = t - (int64_t)d * " << n << "_L;\n"
     << "    if (d == me) {\n      b[pos] = a[i];\n      continue;\n    }\n"
     << "    const int64_t k = fill[d]++;\n"
     << "    sbuf[k] = a[i];\n    spos[k] = (" << n << "_pos_t)pos;\n  }\n}\n\n"
     << "/* The first element of a transfer starting at byte o of its pair's "
        "modelled\n   B bytes, of the c elements the pair moves (c o < 2^59: "
        "the plan bounds both). */\n"
     << "static inline int64_t " << n << "_share(int64_t c, int64_t o) {\n"
     << "  return (int64_t)((uint64_t)c * (uint64_t)o / " << n << "_B);\n}\n\n"
     << "/* Scatters what arrived to its positions. */\n"
     << "static inline void " << n << "_unpack(" << T << " *restrict b, const "
     << T << " *restrict in,\n    const " << n
     << "_pos_t *restrict pos, int64_t count) {\n"
     << "  for (int64_t k = 0; k < count; ++k)\n    b[pos[k]] = in[k];\n}\n\n";
}

/// The transfers of phase j as [s0, s1) and [r0, r1) in formula mode too
/// (a formula phase moves every pair whole: offset 0, B bytes).
static void emitFormulaTransfers(llvm::raw_ostream &os, const std::string &n) {
  os << "    const phasec_xfer_t xs = {j, to, 0, (int64_t)" << n
     << "_B}, xr = {j, from, 0, (int64_t)" << n << "_B};\n"
     << "    const phasec_xfer_t *const s0 = &xs, *const s1 = s0 + 1;\n"
     << "    const phasec_xfer_t *const r0 = &xr, *const r1 = r0 + 1;\n"
     << "    (void)s1; (void)r1;\n";
}

/// `E0`, `E1` of transfer x against the counts `cnt`.
static std::string transferRange(const std::string &n, const char *cnt) {
  return "      const int64_t c = " + n + "_" + cnt + "[x->peer], e0 = " + n +
         "_share(c, x->offset),\n" + "                    e1 = " + n +
         "_share(c, x->offset + x->bytes);\n";
}

void detail::emitRuntimePermuteMPI(llvm::raw_ostream &os,
                                   const OperationPlan &plan) {
  const std::string &n = plan.name;
  std::string T = n + "_elem_t";
  // Barrier and local sync wait for each phase's messages; without sync
  // every message is posted at once.
  bool barrier = plan.options.sync == SyncKind::Barrier;
  bool postAll = plan.options.sync == SyncKind::None;
  os << "static " << T << " *" << n << "_sbuf, *" << n << "_rbuf;\n"
     << "static " << n << "_pos_t *" << n << "_spos, *" << n << "_rpos;\n";
  if (postAll)
    os << "static MPI_Request *" << n << "_req;\n";
  os << "static inline int " << n << "_workspace(void) {\n"
     << "  if (!" << n << "_sbuf)\n    PHASEC_MPI_ALLOC(" << n
     << "_sbuf, sizeof(" << T << ") * (" << n << "_L + 1));\n"
     << "  if (!" << n << "_rbuf)\n    PHASEC_MPI_ALLOC(" << n
     << "_rbuf, sizeof(" << T << ") * (" << n << "_L + 1));\n"
     << "  if (!" << n << "_spos)\n    PHASEC_MPI_ALLOC(" << n
     << "_spos, sizeof(" << n << "_pos_t) * (" << n << "_L + 1));\n"
     << "  if (!" << n << "_rpos)\n    PHASEC_MPI_ALLOC(" << n
     << "_rpos, sizeof(" << n << "_pos_t) * (" << n << "_L + 1));\n";
  if (postAll)
    os << "  if (!" << n << "_req)\n    PHASEC_MPI_ALLOC(" << n
       << "_req, sizeof(MPI_Request) * 2 * (" << n << "_MAXSEND + " << n
       << "_MAXRECV) * (" << n << "_NPHASES + 1));\n";
  os << "  return MPI_SUCCESS;\n";
  os << "}\n\n";

  os << "/* " << n
     << ": element permute with run-time destinations. dest[i] (0 <= "
        "dest[i] < "
     << n << "_N)\n   is where element i of this member's " << n
     << "_L goes; all members' destinations\n   together must be a "
        "permutation (each member must get "
     << n
     << "_L elements, checked:\n   an error and MPI_Abort "
        "otherwise). a and b must not overlap. Collective\n   over comm; "
        "ranks outside the group only take part in splitting off the\n   "
        "members' communicator. */\n"
     << "int " << n << "(const " << T << " *a, " << T
     << " *b, const int64_t *dest, MPI_Comm comm) {\n";
  emitMPIPrologue(os, plan);
  os << "  PHASEC_MPI_TRY(" << n << "_workspace());\n"
     << "  const int64_t bad = " << n << "_count(dest);\n"
     << "  if (bad >= 0) {\n"
     << "    fprintf(stderr, \"" << n
     << ": rank %d: dest[%lld] = %lld is not an index of the %lld "
        "elements\\n\",\n"
     << "            rank, (long long)bad, (long long)dest[bad], (long long)"
     << n << "_N);\n"
     << "    MPI_Abort(comm, 1);\n  }\n"
     << "  /* Who sends how many to whom (one int64 a pair). */\n"
     << "  PHASEC_MPI_TRY(phasec_mpi_alltoall_int64(" << n << "_scnt, " << n
     << "_rcnt, g));\n"
     << "  const int64_t got = " << n << "_recv_offsets(me);\n"
     << "  if (got != " << n << "_L) {\n"
     << "    fprintf(stderr, \"" << n
     << ": rank %d gets %lld elements, not %lld: the destinations are not "
        "a permutation\\n\",\n"
     << "            rank, (long long)got, (long long)" << n << "_L);\n"
     << "    MPI_Abort(comm, 1);\n  }\n"
     << "  " << n << "_pack(" << n << "_sbuf, " << n << "_spos, a, b, dest, "
     << "me);\n";
  if (!postAll)
    os << "  MPI_Request req[2 * (" << n << "_MAXSEND + " << n
       << "_MAXRECV)];\n";
  else
    os << "  MPI_Request *req = " << n << "_req;\n";
  os << "  int nreq = 0;\n";
  auto post = [&](const char *side, const char *cnt, const char *off,
                  const char *buf, const char *pos, const char *call) {
    os << "    for (const phasec_xfer_t *x = " << side << "0; x < " << side
       << "1; ++x) {\n"
       << transferRange(n, cnt) << "      PHASEC_MPI_TRY(" << call << "(" << n
       << "_" << buf << " + " << n << "_" << off
       << "[x->peer] + e0, (int64_t)((e1 - e0) * sizeof(" << T << ")),\n"
       << "                                 x->peer, PHASEC_TAG, g, "
          "&req[nreq++]));\n"
       << "      PHASEC_MPI_TRY(" << call << "(" << n << "_" << pos << " + "
       << n << "_" << off << "[x->peer] + e0, (int64_t)((e1 - e0) * sizeof("
       << n << "_pos_t)),\n"
       << "                                 x->peer, PHASEC_TAG + 1, "
          "g, &req[nreq++]));\n"
       << "    }\n";
  };
  emitPhaseLoop(os, plan, [&](llvm::raw_ostream &, bool formula) {
    if (formula)
      emitFormulaTransfers(os, n);
    post("r", "rcnt", "roff", "rbuf", "rpos", "phasec_mpi_irecv");
    post("s", "scnt", "soff", "sbuf", "spos", "phasec_mpi_isend");
    if (!postAll)
      os << "    PHASEC_MPI_TRY(phasec_mpi_waitall(nreq, req));\n"
         << "    nreq = 0;\n";
    if (barrier)
      os << "    if (j + 1 < " << n << "_NPHASES)\n"
         << "      PHASEC_MPI_TRY(phasec_mpi_phase_barrier(g)); /* congestion "
            "control */\n";
  });
  if (postAll)
    os << "  PHASEC_MPI_TRY(phasec_mpi_waitall(nreq, req));\n";
  os << "  " << n << "_unpack(b, " << n << "_rbuf, " << n << "_rpos, got - "
     << n << "_scnt[me]);\n"
     << "  return MPI_SUCCESS;\n}\n\n";
}

void detail::emitRuntimePermuteSHMEM(llvm::raw_ostream &os,
                                     const OperationPlan &plan,
                                     bool nonBlocking) {
  const std::string &n = plan.name;
  std::string T = n + "_elem_t";
  bool barrier = plan.options.sync == SyncKind::Barrier;
  const char *put = nonBlocking ? "shmem_putmem_nbi" : "shmem_putmem";
  int64_t barriers =
      4 + (barrier ? std::max<int64_t>(0, plan.phases.size() - 1) : 0);
  os << "/* Symmetric: the receive area and its positions, what every member "
        "sends this\n   one ("
     << n
     << "_rcnt_sym[s]) and where this member's data lands at every\n   "
        "member ("
     << n << "_dst_sym[d]). The pack buffer is private. */\n"
     << "static " << T << " *" << n << "_sbuf, *" << n << "_rbuf;\n"
     << "static " << n << "_pos_t *" << n << "_spos, *" << n << "_rpos;\n"
     << "static int64_t *" << n << "_rcnt_sym, *" << n << "_dst_sym;\n"
     << "static inline size_t " << n << "_sym_bytes(void) {\n"
     << "  return (sizeof(" << T << ") + sizeof(" << n << "_pos_t)) * (" << n
     << "_L + 1) + 2 * sizeof(int64_t) * " << n << "_P + 256;\n}\n"
     << "static inline void " << n
     << "_workspace(void) { /* every PE calls the first time */\n"
     << "  if (" << n << "_rbuf)\n    return;\n"
     << "  " << n << "_sbuf = (" << T << " *)PHASEC_XMALLOC(sizeof(" << T
     << ") * (" << n << "_L + 1), \"pack buffer\");\n"
     << "  " << n << "_spos = (" << n << "_pos_t *)PHASEC_XMALLOC(sizeof(" << n
     << "_pos_t) * (" << n << "_L + 1), \"positions\");\n"
     << "  " << n << "_rbuf = (" << T << " *)PHASEC_SHMEM_MALLOC(sizeof(" << T
     << ") * (" << n << "_L + 1), \"receive area\");\n"
     << "  " << n << "_rpos = (" << n << "_pos_t *)PHASEC_SHMEM_MALLOC(sizeof("
     << n << "_pos_t) * (" << n << "_L + 1), \"receive positions\");\n"
     << "  " << n
     << "_rcnt_sym = (int64_t *)PHASEC_SHMEM_MALLOC(sizeof("
        "int64_t) * "
     << n << "_P, \"counts\");\n"
     << "  " << n
     << "_dst_sym = (int64_t *)PHASEC_SHMEM_MALLOC(sizeof("
        "int64_t) * "
     << n << "_P, \"offsets\");\n}\n"
     << "#define " << n << "_NBARRIERS " << barriers
     << " /* barriers per call, for PEs outside the group */\n\n";

  os << "/* " << n
     << ": element permute with run-time destinations. dest[i] (0 <= "
        "dest[i] < "
     << n << "_N)\n   is where element i of this PE's " << n
     << "_L goes; all members' destinations\n   together must be a "
        "permutation (each member must get "
     << n
     << "_L elements, checked:\n   an error and the job stops "
        "otherwise). a and b must not overlap; b need not\n   be symmetric. "
        "Collective over all PEs. */\n"
     << "int " << n << "(const " << T << " *a, " << T
     << " *b, const int64_t *dest) {\n";
  emitSHMEMPrologue(os, plan);
  os << "  const int me = " << n << "_member(shmem_my_pe());\n"
     << "  " << n << "_workspace();\n"
     << "  if (me < 0) {\n"
     << "    for (int i = 0; i < " << n << "_NBARRIERS; ++i)\n"
     << "      phasec_shmem_barrier(&" << n
     << "_sync);\n    return PHASEC_SHMEM_SUCCESS;\n  }\n"
     << "  phasec_shmem_barrier(&" << n
     << "_sync); /* every member has unpacked the previous "
        "call */\n"
     << "  const int64_t bad = " << n << "_count(dest);\n"
     << "  if (bad >= 0) {\n"
     << "    char msg[160];\n"
     << "    snprintf(msg, sizeof msg, \"" << n
     << ": dest[%lld] = %lld is not an index of the %lld elements\",\n"
     << "             (long long)bad, (long long)dest[bad], (long long)" << n
     << "_N);\n"
     << "    phasec_shmem_fail(msg, __FILE__, __LINE__);\n  }\n"
     << "  for (int q = 0; q < " << n << "_P; ++q) /* what I send you */\n"
     << "    if (q != me)\n      shmem_int64_p(" << n << "_rcnt_sym + me, " << n
     << "_scnt[q], " << n << "_rank(q));\n"
     << "  phasec_shmem_barrier(&" << n << "_sync);\n"
     << "  for (int q = 0; q < " << n << "_P; ++q)\n"
     << "    " << n << "_rcnt[q] = q == me ? 0 : " << n << "_rcnt_sym[q];\n"
     << "  const int64_t got = " << n << "_recv_offsets(me);\n"
     << "  if (got != " << n << "_L) {\n"
     << "    char msg[160];\n"
     << "    snprintf(msg, sizeof msg, \"" << n
     << ": gets %lld elements, not %lld: the destinations are not a "
        "permutation\",\n"
     << "             (long long)got, (long long)" << n << "_L);\n"
     << "    phasec_shmem_fail(msg, __FILE__, __LINE__);\n  }\n"
     << "  for (int q = 0; q < " << n
     << "_P; ++q) /* where your data lands here */\n"
     << "    if (q != me)\n      shmem_int64_p(" << n << "_dst_sym + me, " << n
     << "_roff[q], " << n << "_rank(q));\n"
     << "  phasec_shmem_barrier(&" << n << "_sync);\n"
     << "  " << n << "_pack(" << n << "_sbuf, " << n << "_spos, a, b, dest, "
     << "me);\n";
  emitPhaseLoop(os, plan, [&](llvm::raw_ostream &, bool formula) {
    if (formula)
      emitFormulaTransfers(os, n);
    os << "    for (const phasec_xfer_t *x = s0; x < s1; ++x) {\n"
       << transferRange(n, "scnt") << "      const int64_t at = " << n
       << "_dst_sym[x->peer] + e0;\n"
       << "      " << put << "(" << n << "_rbuf + at, " << n << "_sbuf + " << n
       << "_soff[x->peer] + e0,\n"
       << "                       (size_t)(e1 - e0) * sizeof(" << T << "), "
       << n << "_rank(x->peer));\n"
       << "      " << put << "(" << n << "_rpos + at, " << n << "_spos + " << n
       << "_soff[x->peer] + e0,\n"
       << "                       (size_t)(e1 - e0) * sizeof(" << n
       << "_pos_t), " << n << "_rank(x->peer));\n"
       << "    }\n";
    if (barrier)
      os << "    if (j + 1 < " << n << "_NPHASES)\n"
         << "      phasec_shmem_barrier(&" << n
         << "_sync); /* quiet + barrier: "
            "congestion control */\n";
    else if (plan.options.sync == SyncKind::Local)
      os << "    shmem_quiet(); /* local sync: this PE's puts are delivered "
            "*/\n";
  });
  os << "  phasec_shmem_barrier(&" << n
     << "_sync); /* everything delivered */\n"
     << "  " << n << "_unpack(b, " << n << "_rbuf, " << n << "_rpos, got - "
     << n << "_scnt[me]);\n  return PHASEC_SHMEM_SUCCESS;\n}\n\n";
}

void detail::emitRuntimePermuteHarness(llvm::raw_ostream &os,
                                       const OperationPlan &plan) {
  const std::string &n = plan.name;
  os << "/* The harness's destinations: a random permutation of the " << n
     << "_N elements\n   (Fisher-Yates driven by splitmix64, seed 1), the "
        "same on every member. */\n"
     << "static int64_t *" << n << "_hperm, *" << n << "_hdest_table;\n"
     << "static inline int64_t " << n << "_perm(int64_t g) {\n"
     << "  if (!" << n << "_hperm) {\n"
     << "    " << n << "_hperm = (int64_t *)PHASEC_XMALLOC(sizeof(int64_t) * "
     << n << "_N, \"permutation\");\n"
     << "    for (int64_t i = 0; i < " << n << "_N; ++i)\n"
     << "      " << n << "_hperm[i] = i;\n"
     << "    uint64_t state = 1;\n"
     << "    for (int64_t i = " << n << "_N - 1; i > 0; --i) {\n"
     << "      uint64_t z = (state += 0x9e3779b97f4a7c15ull);\n"
     << "      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;\n"
     << "      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;\n"
     << "      z ^= z >> 31;\n"
     << "      const int64_t j = (int64_t)(z % (uint64_t)(i + 1));\n"
     << "      const int64_t t = " << n << "_hperm[i];\n"
     << "      " << n << "_hperm[i] = " << n << "_hperm[j];\n"
     << "      " << n << "_hperm[j] = t;\n    }\n  }\n"
     << "  return " << n << "_hperm[g];\n}\n"
     << "/* This member's destinations (NULL outside the group). */\n"
     << "static inline const int64_t *" << n << "_hdest(int me) {\n"
     << "  if (me < 0)\n    return NULL;\n"
     << "  if (!" << n << "_hdest_table) {\n"
     << "    " << n
     << "_hdest_table = (int64_t *)PHASEC_XMALLOC(sizeof("
        "int64_t) * "
     << n << "_L, \"destinations\");\n"
     << "    for (int64_t i = 0; i < " << n << "_L; ++i)\n"
     << "      " << n << "_hdest_table[i] = " << n << "_perm((int64_t)me * "
     << n << "_L + i);\n  }\n"
     << "  return " << n << "_hdest_table;\n}\n\n";
}
