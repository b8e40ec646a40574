//===- HarnessC.cpp - the harness of generated programs -------------------===//
//
// Part of phasec. Internal to targets/.
//
//===----------------------------------------------------------------------===//
//
// The verifying, timing harness (`--main`) the MPI and OpenSHMEM back ends
// share: per operation the fill, check and size helpers (a PlanVisitor over
// the plan's data shape), run_NAME and main.
//
//===----------------------------------------------------------------------===//

#include "EmitC.h"
#include "PlanVisitor.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <string>

using namespace phasec;
using namespace phasec::target;
using namespace phasec::target::detail;

namespace {
/// What the harness helpers of one plan say: the buffer sizes (C
/// expressions) and the bodies of NAME_fill and NAME_check.
struct HarnessText {
  std::string sendBytes, recvBytes, size, fill, check;
};

/// The harness helpers' text per data shape.
class HarnessHelpers : public PlanVisitor<HarnessHelpers, HarnessText> {
public:
  /// Equal blocks, as the kind's DataSides place them: block d of a side
  /// that holds one per member is for or from member d, and its bytes are
  /// phasec_pattern_byte(s, d, i) where the sender has one per member, else
  /// (s, P, i).
  HarnessText visitBlocks(const OperationPlan &plan) {
    const std::string &n = plan.name;
    const CollectiveTraits &traits = plan.traits();
    HarnessText t;
    auto bytesOf = [&](DataPart part) {
      return part == DataPart::PerMember
                 ? "(size_t)" + n + "_P * " + n + "_BLOCK"
                 : n + "_BLOCK";
    };
    t.sendBytes = bytesOf(traits.send.part);
    t.recvBytes = bytesOf(traits.recv.part);
    t.size = n + "_BLOCK";
    bool personal = traits.send.part == DataPart::PerMember;
    llvm::raw_string_ostream fill(t.fill), check(t.check);
    if (personal)
      fill << "  for (int d = 0; d < " << n << "_P; ++d)\n"
           << "    phasec_fill(s + " << n << "_sdispl_of(me, d), " << n
           << "_BLOCK, me, d, 0);\n";
    else
      fill << "  phasec_fill(s, " << n << "_BLOCK, me, " << n << "_P, 0);\n";
    if (traits.recv.part == DataPart::PerMember) {
      // At the root only: one level deeper, under its test.
      std::string in = traits.recv.rootOnly() ? "  " : "";
      if (traits.recv.rootOnly())
        check << "  if (me == " << n << "_ROOT)\n";
      check << in << "  for (int s = 0; s < " << n << "_P; ++s)\n"
            << in << "    bad += phasec_check(st, \"block\", r + " << n
            << "_rdispl_of(me, s), " << n << "_BLOCK, s, "
            << (personal ? "me" : n + "_P") << ", 0, (size_t)" << n
            << "_rdispl_of(me, s));\n";
    } else {
      check << "  bad += phasec_check(st, \"block\", r, " << n << "_BLOCK, "
            << n << "_ROOT, me, 0, 0);\n";
    }
    return t;
  }

  /// Member me's block goes to rperm-inverse: it checks the block of the
  /// member that sends to it.
  HarnessText visitBlockPermute(const OperationPlan &plan) {
    const std::string &n = plan.name;
    HarnessText t;
    t.sendBytes = t.recvBytes = t.size = n + "_BLOCK";
    t.fill = "  phasec_fill(s, " + n + "_BLOCK, me, " + n + "_P, 0);\n";
    llvm::raw_string_ostream check(t.check);
    check << "  for (int s = 0; s < " << n << "_P; ++s)\n"
          << "    if (" << n << "_rperm(s) == me)\n"
          << "      bad += phasec_check(st, \"block\", r, " << n
          << "_BLOCK, s, " << n << "_P, 0, 0);\n";
    return t;
  }

  HarnessText visitElementPermute(const OperationPlan &plan) {
    const std::string &n = plan.name;
    HarnessText t;
    t.sendBytes = t.recvBytes =
        "(size_t)" + n + "_L * sizeof(" + n + "_elem_t)";
    t.size = "(size_t)" + n + "_N * sizeof(" + n + "_elem_t)";
    llvm::raw_string_ostream fill(t.fill), check(t.check);
    fill << "  for (int64_t i = 0; i < " << n << "_L; ++i)\n"
         << "    phasec_fill(s + i * sizeof(" << n << "_elem_t), sizeof(" << n
         << "_elem_t), (uint64_t)me * " << n << "_L + i, " << n << "_P, 0);\n";
    check << "  /* The inverse permutation of this member's slice. */\n"
          << "  int64_t *src = (int64_t *)PHASEC_XMALLOC(sizeof(int64_t) * "
          << n << "_L, \"inverse permutation\");\n"
          << "  for (int64_t g = 0; g < " << n << "_N; ++g) {\n"
          << "    int64_t t = " << n << "_perm(g);\n"
          << "    if (t / " << n << "_L == me)\n"
          << "      src[t - (int64_t)me * " << n << "_L] = g;\n  }\n"
          << "  for (int64_t q = 0; q < " << n << "_L; ++q)\n"
          << "    bad += phasec_check(st, \"element\", r + q * sizeof(" << n
          << "_elem_t), sizeof(" << n << "_elem_t), (uint64_t)src[q], " << n
          << "_P, 0, q * sizeof(" << n << "_elem_t));\n"
          << "  free(src);\n";
    return t;
  }

  HarnessText visitMatrix(const OperationPlan &plan) {
    const std::string &n = plan.name;
    HarnessText t;
    TransposeShape sh = getTransposeShape(plan);
    std::string e = " * sizeof(" + n + "_elem_t)";
    t.sendBytes = "(size_t)" + sh.ra + " * " + sh.na + e;
    t.recvBytes =
        plan.isSquare() ? t.sendBytes : "(size_t)" + sh.rb + " * " + sh.nb + e;
    t.size = "(size_t)" + sh.nb + " * " + sh.na + e;
    llvm::raw_string_ostream fill(t.fill), check(t.check);
    if (plan.fromDist == Distribution::Rows &&
        plan.toDist == Distribution::Rows) {
      fill << "  phasec_fill_matrix(s, sizeof(" << n << "_elem_t), " << sh.ra
           << ", " << sh.na << ", " << sh.na << ", (uint64_t)me * " << sh.ra
           << ", 0);\n";
      check << "  bad += phasec_check_transposed(st, r, sizeof(" << n
            << "_elem_t), " << sh.rb << ", " << sh.nb << ", " << sh.nb
            << ", (uint64_t)me * " << sh.rb << ", 0);\n";
      return t;
    }
    // Member me's slab of an R x C array by rows or by cols: its rows,
    // columns, row length and where it starts in the whole array.
    int64_t p = plan.numMembers();
    auto slab = [&](Distribution d, int64_t rows, int64_t cols) {
      return d == Distribution::Rows
                 ? llvm::formatv("{0}, {1}, {1}, (uint64_t)me * {0}, 0",
                                 rows / p, cols)
                       .str()
                 : llvm::formatv("{0}, {1}, {1}, 0, (uint64_t)me * {1}", rows,
                                 cols / p)
                       .str();
    };
    fill << "  phasec_fill_matrix(s, sizeof(" << n << "_elem_t), "
         << slab(plan.fromDist, plan.n, plan.cols) << ");\n";
    check << "  bad += phasec_check_transposed(st, r, sizeof(" << n
          << "_elem_t), " << slab(plan.toDist, plan.cols, plan.n) << ");\n";
    return t;
  }

  HarnessText visitPairSizes(const OperationPlan &plan) {
    const std::string &n = plan.name;
    HarnessText t;
    int64_t total = 0;
    for (int64_t v : plan.sizes)
      total += v;
    t.sendBytes = "(size_t)" + n + "_SEND_MAX";
    t.recvBytes = "(size_t)" + n + "_RECV_MAX";
    t.size = std::to_string(total);
    llvm::raw_string_ostream fill(t.fill), check(t.check);
    fill << "  for (int d = 0; d < " << n << "_P; ++d)\n"
         << "    phasec_fill(s + " << n << "_sdispl[me][d], (size_t)" << n
         << "_ssize[me][d], me, d, 0);\n";
    check << "  for (int s = 0; s < " << n << "_P; ++s)\n"
          << "    bad += phasec_check(st, \"block\", r + " << n
          << "_rdispl[me][s], (size_t)" << n << "_rsize[me][s], s, me, 0, "
          << "(size_t)" << n << "_rdispl[me][s]);\n";
    return t;
  }
};
} // namespace

void detail::emitHarnessHelpers(llvm::raw_ostream &os,
                                const OperationPlan &plan) {
  const std::string &n = plan.name;
  os << "/* ---- " << n << ": harness helpers (fill, check, sizes) ---- */\n";
  if (plan.runtimeDestinations())
    emitRuntimePermuteHarness(os, plan);
  HarnessText t = HarnessHelpers().dispatchPlanVisitor(plan);
  os << "/* Buffer sizes (bytes, the same on every member: the largest). */\n"
     << "static inline size_t " << n << "_send_bytes(void) { return "
     << t.sendBytes << "; }\n"
     << "static inline size_t " << n << "_recv_bytes(void) { return "
     << t.recvBytes << "; }\n"
     << "/* The receive buffer the harness allocates: large enough for the "
        "send data\n   too, for the run in place. */\n"
     << "static inline size_t " << n << "_buffer_bytes(void) { return "
     << (hasInPlaceRun(plan) ? n + "_send_bytes() > " + n + "_recv_bytes() ? " +
                                   n + "_send_bytes() : " + n + "_recv_bytes()"
                             : n + "_recv_bytes()")
     << "; }\n"
     << "/* The OSU \"Size\" column: block bytes, or the whole array. */\n"
     << "static inline size_t " << n << "_size(void) { return " << t.size
     << "; }\n\n";

  // Fill.
  os << "/* Byte i of the data member s owes member d is "
        "phasec_pattern_byte(s, d, i);\n   data every peer gets alike uses "
        "d = P. Transposes: byte k of element (r, c)\n   is "
        "phasec_pattern_byte(r, c, k); permutes: byte k of element g is\n   "
        "phasec_pattern_byte(g, P, k). */\n"
     << "static inline void " << n << "_fill(int me, void *sendbuf) {\n"
     << "  char *s = (char *)sendbuf;\n"
     << t.fill << "}\n\n";

  // Check.
  os << "/* Checks every byte this member must have received; returns the "
        "number of\n   wrong bytes (the first ones are printed). */\n"
     << "static inline uint64_t " << n
     << "_check(int me, const void *recvbuf, phasec_check_state *st) {\n"
     << "  const char *r = (const char *)recvbuf;\n  uint64_t bad = 0;\n"
     << "  (void)me;\n"
     << t.check << "  return bad;\n}\n\n";
}

void detail::emitBarrierCheck(llvm::raw_ostream &os, const HarnessTransport &tr,
                              llvm::StringRef label, llvm::StringRef x,
                              RankId first, llvm::StringRef call) {
  std::string p = tr.runtimePrefix;
  std::string comm = tr.commArg;
  os << "  {\n"
     << "    " << p << "arrivals arr;\n"
     << "    " << p << "arrivals_open(&arr" << comm << ", " << first << ");\n"
     << "    const int early = getenv(\"PHASEC_TEST_CORRUPT\") != NULL && "
        "me == 0;\n"
     << "    if (me == " << x << "_P - 1)\n      phasec_sleep_ms(20);\n"
     << "    if (me >= 0)\n      " << p << "arrive(&arr);\n"
     << "    if (!early)\n      " << call << ";\n"
     << "    if (me >= 0 && " << p << "arrived(&arr) != " << x << "_P) {\n"
     << "      ++bad;\n"
     << "      fprintf(stderr, \"phasec: " << label
     << ": rank %d left the barrier before every member arrived\\n\", "
     << tr.rankVar << ");\n    }\n"
     << "    if (early)\n      " << call << ";\n"
     << "    " << p << "arrivals_close(&arr" << comm << ");\n"
     << "  }\n";
}

bool detail::hasInPlaceRun(const OperationPlan &plan) {
  if (plan.relaying)
    return true;
  return plan.aggregate == Aggregate::None && !plan.isTranspose() &&
         !plan.isElementPermute() && !plan.isDataless() &&
         !plan.runtimeDestinations();
}

std::string detail::timedStart(const HarnessTransport &tr, bool timeLine) {
  // Under SimGrid a barrier lets the ranks go at different times and the
  // skew would be timed with the call: every rank starts at one instant
  // instead (phasec_sim_start.h, which the simulator target copies in).
  if (timeLine)
    return "    const double t0 = phasec_sim_synchronized_start();\n";
  return "    " + std::string(tr.iterationBarrier) +
         "\n    const double t0 = phasec_wtime();\n";
}

void detail::emitHarnessRunner(llvm::raw_ostream &os, const OperationPlan &plan,
                               const HarnessTransport &tr,
                               llvm::StringRef allocRecv,
                               llvm::StringRef freeRecv, bool timeLine,
                               const NonblockingTransport *nonblocking) {
  const std::string &n = plan.name;
  bool typed = plan.isTranspose() || plan.isElementPermute();
  std::string T = n + "_elem_t";
  std::string rank = tr.rankVar;
  // The runner's locals (s, r, t, me, ...) may shadow the operation's
  // name: it calls it through a pointer whose name the plan reserves.
  std::string fn = "phasec_call_" + n;
  std::string dest =
      plan.runtimeDestinations() ? ", " + n + "_hdest(me)" : std::string();
  std::string call = typed ? fn + "((const " + T + " *)s, (" + T + " *)r" +
                                 dest + tr.commArg + ")"
                           : fn + "(s, r" + tr.commArg + ")";
  std::string stmt = tr.checkedCall(call);
  os << "static __typeof__(" << n << ") *const " << fn << " = " << n << ";\n\n";
  os << "/* Runs " << n
     << ": warm-up, timed iterations, verification of every byte. Returns "
        "the\n   number of wrong bytes over all "
     << tr.units << ". */\n"
     << "static uint64_t run_" << n << "(int " << rank
     << ", int iters, int warmup) {\n"
     << "  const int me = " << n << "_member(" << rank << ");\n"
     << "  char *s = (char *)PHASEC_XMALLOC(" << n
     << "_send_bytes(), \"send buffer\");\n"
     << allocRecv << "  if (me >= 0)\n    " << n << "_fill(me, s);\n"
     << "  for (int i = 0; i < warmup; ++i)\n    " << stmt
     << ";\n"
     // A rank outside the group owns no receive buffer: under direct deposit
     // its window share is 0 bytes, so poisoning there would write into a
     // neighbour's share (or past the segment when it is the last rank).
     << "  if (me >= 0)\n    phasec_poison(r, " << n << "_recv_bytes());\n"
     << tr.afterPoison
     << "  double *t = (double *)PHASEC_XMALLOC(sizeof(double) * "
        "(size_t)iters, "
        "\"times\");\n"
     << "  for (int i = 0; i < iters; ++i) {\n"
     << timedStart(tr, timeLine) << "    " << stmt << ";\n"
     << "    t[i] = phasec_wtime() - t0;\n  }\n"
     << "  if (getenv(\"PHASEC_TEST_CORRUPT\") && " << n
     << "_recv_bytes() > 0) /* tests of the checker */\n"
     << "    r[0] ^= 0x5a;\n"
     << "  phasec_check_state st;\n"
     << "  phasec_check_init(&st, " << rank << ", \"" << n << "\");\n"
     << "  uint64_t bad = me >= 0 ? " << n << "_check(me, r, &st) : 0;\n";
  // A barrier moves no bytes: what it promises is checked instead.
  if (plan.isDataless())
    emitBarrierCheck(os, tr, n, n, plan.group.front(),
                     tr.checkedCall(fn + "(s, r" + tr.commArg + ")"));
  // Relays and operations on blocks also run once in place, in the receive
  // buffer (NAME_buffer_bytes() holds either side): it holds the input when
  // the call starts and the output when it returns (the generated code
  // copies the input it sends before anything arrives).
  if (hasInPlaceRun(plan))
    os << "  {\n"
       << "    if (me >= 0) {\n"
       << "      phasec_poison(r, " << n << "_buffer_bytes());\n"
       << "      " << n << "_fill(me, r);\n    }\n"
       << "    " << tr.checkedCall(fn + "(r, r" + tr.commArg + ")") << ";\n"
       << "    phasec_check_state ipst;\n"
       << "    phasec_check_init(&ipst, " << rank << ", \"" << n
       << " (in place)\");\n"
       << "    if (me >= 0)\n      bad += " << n << "_check(me, r, &ipst);\n"
       << "  }\n";
  if (nonblocking && hasNonblockingForms(plan))
    emitNonblockingRun(os, plan, tr, *nonblocking);
  os << "  bad = " << tr.sumBad << ";\n"
     << "  phasec_stats stats = " << tr.reduceTimes << ";\n"
     << "  if (" << rank << " == 0) {\n"
     << "    phasec_print_header(\"phasec " << n << ": "
     << Collective::getKindName(plan.kind, plan.elementLevel) << ", "
     << plan.numMembers() << " members, "
     << stringifyTransferStyle(plan.options.style) << ", " << tr.name
     << "\");\n"
     << "    phasec_print_timing(" << n << "_size(), &stats);\n"
     << "    printf(\"# " << n
     << ": median %.2f us; %s\\n\", stats.median * 1e6,\n"
     << "           bad ? \"WRONG BYTES\" : \"every byte verified"
     << (hasInPlaceRun(plan) ? ", also in place" : "")
     << (nonblocking && hasNonblockingForms(plan)
             ? ", nonblocking and persistent"
             : "")
     << "\");\n";
  if (timeLine)
    os << "    printf(\"PHASEC_SIM_TIME %.9e\\nPHASEC_SIM_VERIFIED %llu\\n\", "
          "stats.median,\n"
       << "           (unsigned long long)bad);\n";
  os << "  }\n"
     << tr.beforeFree << "  free(t);\n  free(s);\n"
     << freeRecv << "  return bad;\n}\n\n";
}

void detail::emitHarnessMain(llvm::raw_ostream &os,
                             llvm::ArrayRef<OperationPlan> plans,
                             const HarnessTransport &tr,
                             llvm::StringRef prologue,
                             llvm::StringRef fileFinalize, int iterations,
                             int warmup) {
  int64_t required = 0;
  for (const OperationPlan &p : plans)
    required = std::max(required, p.requiredRanks());
  // Operations that know their machine refuse a communicator of another
  // size, larger too (a direct-deposit window sized for the machine would
  // be written past its end): the harness says so before any of them runs.
  bool exact = !plans.empty() && llvm::all_of(plans, [&](const auto &p) {
    return p.machineRanks > 0 && p.machineRanks == plans.front().machineRanks;
  });
  if (exact)
    required = plans.front().machineRanks;
  std::string rank = tr.rankVar, size = tr.sizeVar;
  os << "int main(int argc, char **argv) {\n"
     << prologue << "  int iters = (int)phasec_env_long(\"PHASEC_ITERATIONS\", "
     << iterations << ");\n"
     << "  int warmup = (int)phasec_env_long(\"PHASEC_WARMUP\", " << warmup
     << ");\n"
     << "  for (int i = 1; i + 1 < argc; ++i) {\n"
     << "    if (!strcmp(argv[i], \"-i\"))\n      iters = atoi(argv[++i]);\n"
     << "    else if (!strcmp(argv[i], \"-w\"))\n      warmup = "
        "atoi(argv[++i]);\n  }\n"
     << "  if (iters < 1)\n    iters = 1;\n"
     << "  if (" << size << (exact ? " != " : " < ") << required << ") {\n"
     << "    if (" << rank << " == 0)\n"
     << "      fprintf(stderr, \"error: this program needs " << required << " "
     << tr.units << " (" << tr.launcher << " -np " << required
     << "), got %d\\n\", " << size << ");\n"
     << "    " << tr.abortFinalize << "\n    return 2;\n  }\n"
     << "  uint64_t bad = 0;\n";
  for (const OperationPlan &p : plans)
    if (p.call.empty()) // local steps are the caller's C
      os << "  bad += run_" << p.name << "(" << rank << ", iters, warmup);\n";
  os << "  if (" << rank << " == 0)\n"
     << "    printf(bad ? \"# FAILED: %llu wrong bytes\\n\" : \"# OK: every "
        "byte verified\\n\", (unsigned long long)bad);\n"
     << "  " << tr.checkedCall(fileFinalize.str() + "()") << ";\n"
     << "  " << tr.finalize << "\n"
     << "  return bad ? 1 : 0;\n}\n";
}
