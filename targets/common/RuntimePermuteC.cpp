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
#include "Transport.h"

#include <tuple>

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

void detail::emitRuntimePermuteFunction(llvm::raw_ostream &os,
                                        const OperationPlan &plan,
                                        const CTransport &tr) {
  const std::string &n = plan.name;
  std::string T = n + "_elem_t";
  // Barrier and local sync wait for each phase's messages; without sync
  // every message is posted at once.
  bool barrier = plan.options.sync == SyncKind::Barrier;
  bool postAll = plan.options.sync == SyncKind::None;
  // What lands by put (one-sided) is symmetric: the receive area and its
  // positions, and the counts and offsets every member sends this one.
  os << "/* The pack buffer and positions (private), the receive area and "
        "positions, and\n   what every member sends this one ("
     << n << "_cnt_in[s])"
     << (tr.oneSided
             ? ", where this member's data lands at\n   every member (" + n +
                   "_dst_in[d]): symmetric, as puts land in them"
             : std::string())
     << ". */\n"
     << "static " << T << " *" << n << "_sbuf, *" << n << "_rbuf;\n"
     << "static " << n << "_pos_t *" << n << "_spos, *" << n << "_rpos;\n"
     << "static int64_t *" << n << "_cnt_in"
     << (tr.oneSided ? ", *" + n + "_dst_in" : std::string()) << ";\n";
  if (tr.oneSided)
    os << "static inline size_t " << n << "_sym_bytes(void) {\n"
       << "  return (sizeof(" << T << ") + sizeof(" << n << "_pos_t)) * (" << n
       << "_L + 1) + 2 * sizeof(int64_t) * " << n << "_P + 256;\n}\n"
       << "#define " << n << "_NBARRIERS "
       << 4 + (barrier ? std::max<int64_t>(0, plan.phases.size() - 1) : 0)
       << " /* barriers per call, for PEs outside the group */\n";
  // Posted transfers: a phase's (two per pair: the elements, their
  // positions), all of them without sync, or the counts' exchange.
  if (tr.requestType) {
    int64_t phase = 2 * (std::max<int64_t>(1, maxSendsPerPhase(plan)) +
                         std::max<int64_t>(1, maxRecvsPerPhase(plan)));
    int64_t all = postAll ? phase * (int64_t(plan.phases.size()) + 1) : phase;
    os << "#define " << n << "_NREQ " << std::max(all, 2 * plan.numMembers())
       << " /* posted at once: " << (postAll ? "every phase's" : "a phase's")
       << " transfers, or the counts */\n"
       << "static " << tr.requestType << " *" << n << "_req;\n";
  }
  os << "\n/* " << n
     << ": element permute with run-time destinations. dest[i] (0 <= "
        "dest[i] < "
     << n << "_N)\n   is where element i of this member's " << n
     << "_L goes; all members' destinations\n   together must be a "
        "permutation (each member must get "
     << n
     << "_L elements, checked:\n   an error and the job stops otherwise). a "
        "and b must not overlap"
     << (tr.oneSided ? "; b need not\n   be symmetric" : "") << ".\n   "
     << tr.whoCalls << " */\n"
     << "int " << n << "(const " << T << " *a, " << T
     << " *b, const int64_t *dest" << tr.commParam << ") {\n";
  auto alloc = [&](const std::string &ptr, const std::string &type,
                   const std::string &count, const char *what, bool sym) {
    os << "  if (!" << n << "_" << ptr << ")\n"
       << (sym ? tr.symmetricAlloc
               : tr.alloc)("    ", n + "_" + ptr, type,
                           "sizeof(" + type + ") * (" + count + ")", what);
  };
  // The memory puts land in, allocated by every process; the rest by the
  // members.
  auto arrays = [&](bool sym) {
    alloc("rbuf", T, n + "_L + 1", "receive area", sym);
    alloc("rpos", n + "_pos_t", n + "_L + 1", "receive positions", sym);
    alloc("cnt_in", "int64_t", n + "_P", "counts", sym);
    if (tr.oneSided)
      alloc("dst_in", "int64_t", n + "_P", "offsets", sym);
  };
  tr.prologue(os, plan, [&] { arrays(true); });
  if (!tr.oneSided)
    arrays(false);
  alloc("sbuf", T, n + "_L + 1", "pack buffer", false);
  alloc("spos", n + "_pos_t", n + "_L + 1", "positions", false);
  if (tr.requestType)
    alloc("req", tr.requestType, n + "_NREQ", "requests", false);
  os << "  const int64_t bad = " << n << "_count(dest);\n"
     << "  if (bad >= 0) {\n"
     << tr.fail("    ", plan,
                "dest[%lld] = %lld is not an index of the %lld elements",
                "(long long)bad, (long long)dest[bad], (long long)" + n + "_N")
     << "  }\n";
  if (tr.requestType)
    os << "  " << tr.requestType << " *req = " << n << "_req;\n"
       << "  int nreq = 0;\n";
  // One int64 from every member to every other: `value[q]` to member q's
  // `in[me]` (posted receives on a two-sided transport), delivered.
  auto exchange = [&](const char *value, const char *in, const char *tag,
                      const char *why) {
    os << "  for (int q = 0; q < " << n << "_P; ++q) { /* " << why << " */\n"
       << "    if (q == me)\n      continue;\n";
    if (tr.recv)
      os << tr.recv("    ", plan, n + "_" + in + " + q", "sizeof(int64_t)", "q",
                    tag);
    os << tr.send("    ", plan, n + "_" + value + " + q",
                  n + "_" + in + " + me", "sizeof(int64_t)", "q", tag, false)
       << "  }\n"
       << emitDelivered(tr, "  ", plan);
  };
  exchange("scnt", "cnt_in", "PHASEC_TAG + 2", "what I send you");
  os << "  for (int q = 0; q < " << n << "_P; ++q)\n"
     << "    " << n << "_rcnt[q] = q == me ? 0 : " << n << "_cnt_in[q];\n"
     << "  const int64_t got = " << n << "_recv_offsets(me);\n"
     << "  if (got != " << n << "_L) {\n"
     << tr.fail("    ", plan,
                "gets %lld elements, not %lld: the destinations are not a "
                "permutation",
                "(long long)got, (long long)" + n + "_L")
     << "  }\n";
  // A put needs to know where its data lands at the receiver; a send
  // does not (the receiver posts it there).
  if (tr.oneSided)
    exchange("roff", "dst_in", "PHASEC_TAG + 3", "where your data lands here");
  os << "  " << n << "_pack(" << n << "_sbuf, " << n << "_spos, a, b, dest, "
     << "me);\n";
  // Both halves of a pair's transfer: the elements and their positions.
  auto post = [&](bool recv) {
    const char *side = recv ? "r" : "s";
    os << "    for (const phasec_xfer_t *x = " << side << "0; x < " << side
       << "1; ++x) {\n"
       << transferRange(n, recv ? "rcnt" : "scnt");
    for (auto [buf, type, tag] :
         {std::tuple<const char *, std::string, const char *>{"buf", T,
                                                              "PHASEC_TAG"},
          {"pos", n + "_pos_t", "PHASEC_TAG + 1"}}) {
      std::string bytes = "(int64_t)((e1 - e0) * sizeof(" + type + "))";
      if (recv) {
        os << tr.recv("      ", plan,
                      n + "_r" + buf + " + " + n + "_roff[x->peer] + e0", bytes,
                      "x->peer", tag);
        continue;
      }
      os << tr.send("      ", plan,
                    n + "_s" + buf + " + " + n + "_soff[x->peer] + e0",
                    n + "_r" + buf + " + " + n + "_dst_in[x->peer] + e0", bytes,
                    "x->peer", tag, false);
    }
    os << "    }\n";
  };
  emitPhaseLoop(os, plan, [&](llvm::raw_ostream &, bool formula) {
    if (formula)
      emitFormulaTransfers(os, n);
    if (tr.recv)
      post(true);
    post(false);
    if (!postAll)
      os << tr.complete("    ", plan);
    if (barrier)
      os << "    if (j + 1 < " << n << "_NPHASES)\n"
         << tr.barrier("      ", plan, "congestion control");
  });
  if (tr.oneSided)
    os << tr.barrier("  ", plan, "everything delivered");
  else if (postAll)
    os << tr.complete("  ", plan);
  os << "  " << n << "_unpack(b, " << n << "_rbuf, " << n << "_rpos, got - "
     << n << "_scnt[me]);\n"
     << "  return " << tr.success << ";\n}\n\n";
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
