//===- ArraysC.cpp - C for permutations and transposes --------------------===//
//
// Part of phasec. Internal to targets/.
//
//===----------------------------------------------------------------------===//
//
// What operations on distributed arrays add to an operation's data, for
// both transports: a permutation as a formula, a table or computed at run
// time, the run-time index lists of an element permute, and a transpose's
// fused copy kernels (seed 001) with its block shape.
//
//===----------------------------------------------------------------------===//

#include "EmitC.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"

#include <string>

using namespace phasec;
using namespace phasec::target;
using namespace phasec::target::detail;

TransposeShape detail::getTransposeShape(const OperationPlan &plan) {
  const std::string &n = plan.name;
  TransposeShape sh =
      plan.isSquare()
          ? TransposeShape{n + "_R", n + "_R", n + "_N", n + "_N"}
          : TransposeShape{n + "_RA", n + "_RB", n + "_NA", n + "_NB"};
  if (plan.localTranspose()) {
    sh.sb = sh.db = "0";
    sh.lda = sh.na;
    sh.ldb = sh.nb;
    return sh;
  }
  std::string block = "(" + sh.ra + " * " + sh.rb + ")";
  bool colsA = plan.fromDist == Distribution::Cols;
  bool colsB = plan.toDist == Distribution::Cols;
  sh.sb = colsA ? block : sh.rb;
  sh.lda = colsA ? sh.rb : sh.na;
  sh.db = colsB ? block : sh.ra;
  sh.ldb = colsB ? sh.ra : sh.nb;
  return sh;
}

/// Whether emitPermutation computes the permutation at run time
/// (NAME_perm_build) instead of listing it: a random element permutation
/// that its generator reproduces.
static bool isBuiltPermutation(const OperationPlan &plan) {
  if (plan.permSpec.kind != PermuteKind::Random || !plan.elementLevel)
    return false;
  std::string error;
  llvm::FailureOr<std::vector<int64_t>> again = makePermutation(
      static_cast<int64_t>(plan.perm.size()), plan.permSpec, error);
  return succeeded(again) && *again == plan.perm;
}

/// Permutations: perm(g) as a formula where one reproduces the plan's
/// permutation exactly, computed at run time (`built`), else as a table;
/// plus the run-time index lists.
static void emitPermutation(llvm::raw_ostream &os, const OperationPlan &plan,
                            bool built) {
  const std::string &n = plan.name;
  const std::vector<int64_t> &perm = plan.perm;
  int64_t size = static_cast<int64_t>(perm.size());
  auto matches = [&](auto f) {
    for (int64_t g = 0; g < size; ++g)
      if (f(g) != perm[g])
        return false;
    return true;
  };
  const PermutationSpec &spec = plan.permSpec;
  std::string fn = plan.elementLevel ? "_perm" : "_rperm";
  if (spec.kind == PermuteKind::Xor &&
      matches([&](int64_t g) { return g ^ spec.mask; })) {
    os << "/* The permutation: g -> g ^ " << spec.mask << ". */\n"
       << "static inline int64_t " << n << fn << "(int64_t g) { return g ^ "
       << spec.mask << "; }\n\n";
    return;
  }
  if (spec.kind == PermuteKind::Shift) {
    int64_t sh = ((spec.shift % size) + size) % size;
    if (matches([&](int64_t g) { return (g + sh) % size; })) {
      os << "/* The permutation: g -> (g + " << sh << ") % " << size << ". */\n"
         << "static inline int64_t " << n << fn << "(int64_t g) { return (g + "
         << sh << ") % " << size << "; }\n\n";
      return;
    }
  }
  if (spec.kind == PermuteKind::BitReversal && size > 1) {
    int bits = 0;
    while ((int64_t(1) << bits) < size)
      ++bits;
    auto rev = [&](int64_t g) {
      int64_t r = 0;
      for (int b = 0; b < bits; ++b)
        r |= ((g >> b) & 1) << (bits - 1 - b);
      return r;
    };
    if (matches(rev)) {
      os << "/* The permutation: reverse the " << bits << " index bits. */\n"
         << "static inline int64_t " << n << fn << "(int64_t g) {\n"
         << "  int64_t r = 0;\n  for (int b = 0; b < " << bits << "; ++b)\n"
         << "    r |= ((g >> b) & 1) << (" << bits - 1 << " - b);\n"
         << "  return r;\n}\n\n";
      return;
    }
  }
  // A random element permutation is computed when the lists are built
  // (NAME_init), by the generator that made it (Collective.h's
  // makePermutation: Fisher-Yates driven by SplitMix64), rather than listed:
  // a million-element array would otherwise put a million entries in the C
  // (162 MB for the 107-byte file of issue 15).
  if (built) {
    os << "/* The permutation of " << size << " elements: Fisher-Yates "
       << "driven by SplitMix64 seeded\n   with " << spec.seed
       << ", computed by " << n << "_perm_build (from " << n
       << "_init), freed with the lists. */\n"
       << "static int64_t *" << n << "_perm_table;\n"
       << "static inline int " << n << "_perm_build(void) {\n"
       << "  if (" << n << "_perm_table)\n    return 0;\n"
       << "  int64_t *t = (int64_t *)malloc(sizeof(int64_t) * " << size
       << ");\n  if (!t)\n    return 1;\n"
       << "  for (int64_t i = 0; i < " << size << "; ++i)\n    t[i] = i;\n"
       << "  uint64_t state = " << spec.seed << "ULL;\n"
       << "  for (int64_t i = " << size - 1 << "; i > 0; --i) {\n"
       << "    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);\n"
       << "    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;\n"
       << "    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;\n"
       << "    z ^= z >> 31;\n"
       << "    int64_t j = (int64_t)(z % (uint64_t)(i + 1));\n"
       << "    int64_t x = t[i];\n    t[i] = t[j];\n    t[j] = x;\n  }\n"
       << "  " << n << "_perm_table = t;\n  return 0;\n}\n"
       << "static inline int64_t " << n << fn << "(int64_t g) { return " << n
       << "_perm_table[g]; }\n\n";
    return;
  }
  os << "/* The permutation (" << size << " entries): perm[g] = destination "
     << "index of element g. */\n"
     << "static const int64_t " << n << fn << "_table[" << size << "] = {";
  for (int64_t g = 0; g < size; ++g)
    os << (g % 12 ? ", " : (g ? ",\n    " : "\n    ")) << perm[g];
  os << "};\nstatic inline int64_t " << n << fn << "(int64_t g) { return " << n
     << fn << "_table[g]; }\n\n";
}

/// Element permutations: index lists built once per process.
/// `builtPerm`: the permutation is emitPermutation's run-time generator,
/// which NAME_init runs and NAME_free_lists frees.
static void emitPermuteLists(llvm::raw_ostream &os, const OperationPlan &plan,
                             bool builtPerm) {
  const std::string &n = plan.name;
  os << "/* Grouped per destination (seed 000): " << n
     << "_sidx[d] lists, ascending, the\n"
        "   local indices of the elements this member sends to member d; "
     << n
     << "_ridx[s]\n"
        "   the local positions where the elements of member s land, in s's "
        "order;\n   "
     << n
     << "_cnt[s * P + d] counts elements from s to d (the whole group, "
        "for\n   offsets into a remote receive area). Built once, not timed. "
        "*/\n"
     << "static int " << n << "_ready = 0;\n"
     << "static int64_t *" << n << "_sidx[" << n << "_P], *" << n << "_ridx["
     << n << "_P];\nstatic int64_t *" << n << "_cnt;\n"
     << "/* Frees the lists and the counts (another member's, or for the "
        "file's finalize\n   function); the next "
     << n << "_init builds them again. */\n"
     << "static inline void " << n << "_free_lists(void) {\n"
     << "  free(" << n << "_cnt);\n  " << n << "_cnt = NULL;\n"
     << "  for (int q = 0; q < " << n << "_P; ++q) {\n"
     << "    free(" << n << "_sidx[q]);\n    free(" << n << "_ridx[q]);\n"
     << "    " << n << "_sidx[q] = " << n << "_ridx[q] = NULL;\n  }\n"
     << (builtPerm
             ? "  free(" + n + "_perm_table);\n  " + n + "_perm_table = NULL;\n"
             : std::string())
     << "  " << n << "_ready = 0;\n}\n"
     << "/* Returns 0, or 1 when out of memory (what it allocated stays for "
        "the\n   next call, or for the file's finalize function). The lists "
        "are member me's\n   ("
     << n
     << "_ready == me + 1): a call for "
        "another member (an MPI communicator\n   in another rank order) "
        "builds them again. */\n"
     << "static inline int " << n << "_build_lists(int me) {\n"
     << "  if (" << n << "_ready == me + 1)\n    return 0;\n"
     << "  if (" << n << "_ready)\n    " << n << "_free_lists();\n"
     << (builtPerm ? "  if (" + n + "_perm_build())\n    return 1;\n"
                   : std::string())
     << "  if (!" << n << "_cnt && !(" << n
     << "_cnt = (int64_t *)malloc(sizeof(int64_t) * " << n << "_P * " << n
     << "_P)))\n    return 1;\n"
     << "  memset(" << n << "_cnt, 0, sizeof(int64_t) * " << n << "_P * " << n
     << "_P);\n"
     << "  for (int64_t g = 0; g < " << n << "_N; ++g)\n"
     << "    ++" << n << "_cnt[(g / " << n << "_L) * " << n << "_P + " << n
     << "_perm(g) / " << n << "_L];\n"
     << "  int64_t fill[" << n << "_P];\n"
     << "  for (int q = 0; q < " << n << "_P; ++q) {\n"
     << "    if (!" << n << "_sidx[q] && !(" << n
     << "_sidx[q] = (int64_t *)malloc(sizeof(int64_t) * (" << n << "_cnt[me * "
     << n << "_P + q] + 1))))\n      return 1;\n"
     << "    if (!" << n << "_ridx[q] && !(" << n
     << "_ridx[q] = (int64_t *)malloc(sizeof(int64_t) * (" << n << "_cnt[q * "
     << n << "_P + me] + 1))))\n      return 1;\n"
     << "    fill[q] = 0;\n  }\n"
     << "  for (int64_t i = 0; i < " << n << "_L; ++i) {\n"
     << "    int64_t g = (int64_t)me * " << n << "_L + i;\n"
     << "    int d = (int)(" << n << "_perm(g) / " << n << "_L);\n"
     << "    " << n << "_sidx[d][fill[d]++] = i;\n  }\n"
     << "  for (int q = 0; q < " << n << "_P; ++q)\n    fill[q] = 0;\n"
     << "  for (int64_t g = 0; g < " << n << "_N; ++g) {\n"
     << "    int64_t t = " << n << "_perm(g);\n"
     << "    if (t / " << n << "_L != me)\n      continue;\n"
     << "    int s = (int)(g / " << n << "_L);\n"
     << "    " << n << "_ridx[s][fill[s]++] = t - (int64_t)me * " << n
     << "_L;\n  }\n"
     << "  " << n << "_ready = me + 1;\n  return 0;\n}\n\n"
     << "/* Elements [e0, e1) of the data member me owes member d, packed. */\n"
     << "static inline void " << n << "_ppack(" << n
     << "_elem_t *restrict out, "
     << "const " << n
     << "_elem_t *restrict a, int d, int64_t e0, int64_t e1) "
        "{\n"
     << "  const int64_t *idx = " << n << "_sidx[d];\n"
     << "  for (int64_t e = e0; e < e1; ++e)\n    out[e - e0] = a[idx[e]];\n}\n"
     << "/* Elements [e0, e1) of the data from member s, unpacked. */\n"
     << "static inline void " << n << "_punpack(" << n
     << "_elem_t *restrict b, const " << n
     << "_elem_t *restrict in, int s, int64_t e0, int64_t e1) {\n"
     << "  const int64_t *idx = " << n << "_ridx[s];\n"
     << "  for (int64_t e = e0; e < e1; ++e)\n    b[idx[e]] = in[e - e0];\n}\n"
     << "/* Elements [e0, e1) for member d, stored straight into its array "
        "(direct deposit). */\n"
     << "static inline void " << n << "_pstore(" << n
     << "_elem_t *restrict rb, const " << n
     << "_elem_t *restrict a, int me, int d, int64_t e0, int64_t e1) {\n"
     << "  const int64_t *idx = " << n << "_sidx[d];\n"
     << "  for (int64_t e = e0; e < e1; ++e) {\n"
     << "    int64_t g = (int64_t)me * " << n << "_L + idx[e];\n"
     << "    rb[" << n << "_perm(g) - (int64_t)d * " << n
     << "_L] = a[idx[e]];\n  }\n}\n\n";
}

/// Transposes: the fused copy kernels.
static void emitTransposeKernels(llvm::raw_ostream &os,
                                 const OperationPlan &plan) {
  const std::string &n = plan.name;
  bool loads = plan.options.order == LoopOrder::ContiguousLoads;
  int64_t tile = plan.options.tile <= 1 ? 0 : plan.options.tile;
  std::string T = n + "_elem_t";
  TransposeShape sh = getTransposeShape(plan);
  os << "/* dst[m * ldd + l] = src[l * lds + m] for the "
     << (plan.isSquare() ? "R x R" : "RA x RB")
     << " block: the transposing copy\n   loop, "
     << (tile ? "in " + std::to_string(tile) + " x " + std::to_string(tile) +
                    " tiles, "
              : std::string("untiled, "))
     << (loads ? "contiguous loads and strided stores"
               : "strided loads and contiguous stores")
     << " (seed 001). */\n"
     << "static inline void " << n << "_tblock(" << T
     << " *restrict dst, int64_t ldd, "
     << "const " << T << " *restrict src, int64_t lds) {\n";
  const char *outer = loads ? "l" : "m";
  const char *inner = loads ? "m" : "l";
  if (tile) {
    os << "  for (int64_t l0 = 0; l0 < " << sh.ra << "; l0 += " << n
       << "_TILE)\n"
       << "    for (int64_t m0 = 0; m0 < " << sh.rb << "; m0 += " << n
       << "_TILE) {\n"
       << "      const int64_t l1 = PHASEC_MIN(l0 + " << n << "_TILE, " << sh.ra
       << "), m1 = PHASEC_MIN(m0 + " << n << "_TILE, " << sh.rb << ");\n"
       << "      for (int64_t " << outer << " = " << outer << "0; " << outer
       << " < " << outer << "1; ++" << outer << ")\n"
       << "        for (int64_t " << inner << " = " << inner << "0; " << inner
       << " < " << inner << "1; ++" << inner << ")\n"
       << "          dst[m * ldd + l] = src[l * lds + m];\n    }\n}\n";
  } else {
    os << "  for (int64_t " << outer << " = 0; " << outer << " < "
       << (loads ? sh.ra : sh.rb) << "; ++" << outer << ")\n"
       << "    for (int64_t " << inner << " = 0; " << inner << " < "
       << (loads ? sh.rb : sh.ra) << "; ++" << inner << ")\n"
       << "      dst[m * ldd + l] = src[l * lds + m];\n}\n";
  }
  os << "/* A received block in transfer order (row m of the destination "
        "first) into\n   the destination rows. */\n"
     << "static inline void " << n << "_tunpack(" << T
     << " *restrict dst, int64_t ldd, "
     << "const " << T << " *restrict in) {\n"
     << "  for (int64_t m = 0; m < " << sh.rb << "; ++m)\n"
     << "    memcpy(dst + m * ldd, in + m * " << sh.ra << ", sizeof(" << T
     << ") * " << sh.ra << ");\n}\n"
     << "/* Split transfers: elements [e0, e1) of a block in transfer order "
        "e = m * "
     << (plan.isSquare() ? "R" : "RA") << " + l. */\n"
     << "static inline void " << n << "_tpart(" << T
     << " *restrict dst, int64_t ldd, "
     << "int packed_dst, const " << T
     << " *restrict src, int64_t lds, int packed_src, int64_t e0, int64_t e1) "
        "{\n"
     << "  for (int64_t e = e0; e < e1; ++e) {\n"
     << "    const int64_t m = e / " << sh.ra << ", l = e % " << sh.ra << ";\n"
     << "    dst[packed_dst ? e - e0 : m * ldd + l] = src[packed_src ? e - e0 "
        ": l * lds + m];\n  }\n}\n\n";
}

void detail::emitArrayData(llvm::raw_ostream &os, const OperationPlan &plan) {
  const bool builtPerm = isBuiltPermutation(plan);
  if (plan.isPermutation())
    emitPermutation(os, plan, builtPerm);
  if (plan.isElementPermute())
    emitPermuteLists(os, plan, builtPerm);
  if (plan.isTranspose())
    emitTransposeKernels(os, plan);
}

void detail::emitTransposePackAll(llvm::raw_ostream &os,
                                  const OperationPlan &plan) {
  const std::string &n = plan.name;
  TransposeShape sh = getTransposeShape(plan);
  os << "  for (int q = 0; q < " << n
     << "_P; ++q) /* pack everything, transposed */\n"
     << "    if (q != me)\n      " << n << "_tblock(" << n
     << "_sbuf + (int64_t)q * " << n << "_RR, " << sh.ra
     << ", a + (int64_t)q * " << sh.sb << ", " << sh.lda << ");\n";
}

void detail::emitTransposeUnpackAll(llvm::raw_ostream &os,
                                    const OperationPlan &plan,
                                    llvm::StringRef recvArea) {
  const std::string &n = plan.name;
  TransposeShape sh = getTransposeShape(plan);
  os << "  for (int q = 0; q < " << n << "_P; ++q) /* unpack everything */\n"
     << "    if (q != me)\n      " << n << "_tunpack(b + (int64_t)q * " << sh.db
     << ", " << sh.ldb << ", " << recvArea << " + (int64_t)q * " << n
     << "_RR);\n";
}
