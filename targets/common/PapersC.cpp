//===- PapersC.cpp - C for the PAPERS aggregates (MPI and OpenSHMEM) ------===//
//
// Part of phasec. MLIR-free.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Seed 004's aggregate operations as C functions: each takes the caller's
/// value and returns the aggregate's result (the mask, the count, the rank,
/// the reduced or scanned value). The data moves through the plan's own
/// function (NAME_xfer: a scheduled allgather, alltoallv, allreduce, scan
/// or barrier); what the aggregate makes of it is evaluated locally, as
/// the seed's libraries do (a gather and a serial evaluation, or a tree
/// where the relay chooser picked one). Masks are the seed's: bit k is
/// rank k.
///
/// The transports differ in how a function learns its rank, calls the
/// data function, synchronises and fails (CTransport); the rest is
/// one text.
///
//===----------------------------------------------------------------------===//

#include "EmitC.h"
#include "Transport.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace phasec;
using namespace phasec::target;
using namespace phasec::target::detail;

static std::string valueType(const OperationPlan &plan) {
  return plan.value ? plan.value->cType : std::string("int32_t");
}

/// The low `bits` bits, as an unsigned 64-bit C constant.
static std::string bitMask(int64_t bits) {
  uint64_t mask = bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  return llvm::formatv("{0:x}ull", mask).str();
}

/// `acc = acc OP x` on the aggregates' scalar types.
static std::string foldStatement(ReduceKind op) {
  return combineScalars(op, "acc", "x");
}

/// Seed 004's gather and local evaluation (`algorithm = gather_evaluate`):
/// the data function gathered every member's `U` into `all_`; fold the
/// members up to the caller (scan) or all of them with `op` into `acc`
/// (non-members return `none`).
static std::string evaluateGathered(const OperationPlan &plan,
                                    const std::string &U, ReduceKind op,
                                    bool scan, const std::string &none) {
  const std::string &X = plan.name;
  return "  if (me_ < 0)\n    return " + none + ";\n  " + U +
         " acc = all_[0];\n  for (int m = 1; m < " +
         (scan ? std::string("me_ + 1") : X + "_P") + "; ++m) {\n    const " +
         U + " x = all_[m];\n    " + foldStatement(op) + "\n  }\n";
}

/// The transport's note on who calls, with NAME as the aggregate's name.
static std::string whoCalls(const CTransport &tr, const std::string &P) {
  std::string text = tr.whoCallsPapers;
  size_t at = text.find("NAME");
  if (at != std::string::npos)
    text.replace(at, 4, P);
  return text;
}

void detail::emitPapersFunction(llvm::raw_ostream &os,
                                const OperationPlan &plan,
                                const CTransport &tr) {
  const std::string &P = plan.papersName, &X = plan.name;
  const std::string T = valueType(plan);
  const Aggregate a = plan.aggregate;
  if (!plan.movesData) {
    // No data function: the member map and (MPI) communicator are the
    // aggregate's own.
    os << "/*===---- " << P << ": PAPERS " << stringifyAggregate(a) << " over "
       << plan.numMembers() << " members ----===*/\n"
       << "#define " << X << "_P " << plan.numMembers() << "\n";
    emitMemberMap(os, plan);
    if (a == Aggregate::Barrier)
      os << tr.groupSupport(plan);
  }
  uint64_t mask = 0;
  bool maskFits = plan.group.back() < 64;
  for (RankId r : plan.group)
    if (r < 64)
      mask |= uint64_t(1) << r;
  os << "/* " << P << ": PAPERS " << stringifyAggregate(a)
     << " (seed 004) over ranks {";
  for (auto [i, r] : llvm::enumerate(plan.group))
    os << (i ? ", " : "") << r;
  os << "}";
  if (maskFits)
    os << llvm::format(" = mask 0x%llx", (unsigned long long)mask);
  bool local = a == Aggregate::Population || a == Aggregate::Enumerate ||
               a == Aggregate::SelectFirst || a == Aggregate::SelectOne;
  if (local)
    os << ". From the mask alone: any rank may call it"
       << (a == Aggregate::Enumerate ? " (-1 outside the group)" : "")
       << ". */\n";
  else
    os << ". Members call it; " << whoCalls(tr, P) << " */\n";

  // The prologue every communicating function shares: the caller's rank
  // and member index.
  std::string prologue = std::string("  ") + tr.rankStatement + "\n" +
                         "  const int me_ = " + X + "_member(rank_);\n";
  // The data function's receive buffer, where it must be symmetric.
  int64_t symBytes = 0;
  if (tr.symmetricRecv && plan.movesData && !plan.relaying)
    symBytes = plan.gathersToAll() ? plan.numMembers() * plan.blockBytes
                                   : (plan.value ? plan.value->size : 1);
  if (tr.symmetricRecv)
    os << "#define " << P << "_PAPERS_SYM ((size_t)" << symBytes
       << ") /* symmetric bytes of its own */\n";
  if (symBytes)
    os << "static char *" << P << "_sym;\n";
  auto xfer = [&](const std::string &send, const std::string &recv) {
    if (!symBytes)
      return "  " + tr.callXfer(X, send, recv) + ";\n";
    return "  if (!" + P + "_sym) /* every PE calls the first time */\n" +
           tr.symmetricAlloc("    ", P + "_sym", "char", P + "_PAPERS_SYM",
                             "receive buffer") +
           "  " + tr.callXfer(X, send, P + "_sym") + ";\n  memcpy(" + recv +
           ", " + P + "_sym, " + P + "_PAPERS_SYM);\n";
  };
  std::string comm = tr.commParam, commOnly = tr.commOnly;
  // Seed 004's 1-bit values and Bits variants: what the aggregate sees of
  // the caller's value, and the narrower integer the gathered values move
  // as.
  auto normalize = [&](const std::string &var) -> std::string {
    if (plan.valueLogical)
      return "  " + var + " = (" + T + ")(" + var + " != 0);\n";
    if (plan.valueBits)
      return "  " + var + " = (" + T + ")(" + var + " & " +
             bitMask(plan.valueBits) + ");\n";
    return "";
  };
  const bool narrow =
      plan.gathersToAll() && plan.value && plan.blockBytes < plan.value->size;
  auto gatherAll = [&](const std::string &var) -> std::string {
    if (!narrow)
      return xfer("&" + var, "all_");
    std::string W = "uint" + std::to_string(8 * plan.blockBytes) + "_t";
    return "  " + W + " wire_ = (" + W + ")" + var + ", wires_[" + X +
           "_P]; /* the low bits on the wire */\n" + xfer("&wire_", "wires_") +
           "  for (int m = 0; m < " + X + "_P; ++m)\n    all_[m] = (" + T +
           ")wires_[m];\n";
  };
  // `algorithm = gather_evaluate`: the data function is an allgather of
  // one value whatever the aggregate; the result is evaluated here.
  const bool gathered = plan.gathersToAll() && evaluatesEveryValue(a);
  switch (a) {
  case Aggregate::Population:
    os << "static inline int " << P << "(void) { return " << X << "_P; }\n\n";
    return;
  case Aggregate::SelectFirst:
  case Aggregate::SelectOne:
    // The seed's library answers both with the lowest member.
    os << "static inline int " << P << "(void) { return " << X
       << "_rank(0); }\n\n";
    return;
  case Aggregate::Enumerate:
    os << "int " << P << "(" << commOnly << ") {\n"
       << "  " << tr.rankStatement << "\n"
       << "  return " << X << "_member(rank_); /* members below the caller */\n"
       << "}\n\n";
    return;
  case Aggregate::Barrier:
    os << "void " << P << "(" << commOnly << ") {\n" << prologue;
    if (plan.movesData)
      os << "  char none_ = 0;\n" << xfer("&none_", "&none_");
    else
      os << tr.groupBarrier(plan);
    os << "  (void)me_;\n}\n\n";
    return;
  case Aggregate::Any:
  case Aggregate::All:
    if (gathered) {
      os << "int " << P << "(int f" << comm << ") {\n"
         << prologue << "  uint8_t in_ = f != 0, all_[" << X << "_P];\n"
         << xfer("&in_", "all_")
         << evaluateGathered(plan, "uint8_t",
                             a == Aggregate::Any ? ReduceKind::Or
                                                 : ReduceKind::And,
                             false, "0")
         << "  return acc;\n}\n\n";
      return;
    }
    os << "int " << P << "(int f" << comm << ") {\n"
       << prologue << "  uint8_t in_ = f != 0, out_ = 0;\n"
       << xfer("&in_", "&out_") << "  return me_ >= 0 ? out_ : 0;\n}\n\n";
    return;
  case Aggregate::Reduce:
  case Aggregate::Scan:
    if (gathered) {
      // The element and the operator as a relay's (the harness's serial
      // evaluation uses them).
      os << "typedef " << T << " " << X << "_elem_t; /* the gathered value */\n"
         << "static void " << X
         << "_combine(void *dst, const void *src, size_t bytes) {\n"
         << "  " << T << " *d = (" << T << " *)dst;\n"
         << "  const " << T << " *s = (const " << T << " *)src;\n"
         << "  for (size_t i = 0; i < bytes / sizeof(" << T << "); ++i) {\n"
         << "    " << T << " acc = d[i];\n    const " << T << " x = s[i];\n    "
         << foldStatement(plan.reduceOp) << "\n    d[i] = acc;\n  }\n}\n"
         << T << " " << P << "(" << T << " d" << comm << ") {\n"
         << prologue << normalize("d") << "  " << T << " all_[" << X << "_P];\n"
         << xfer("&d", "all_") << "  " << T
         << " zero_;\n  memset(&zero_, 0, sizeof zero_);\n"
         << evaluateGathered(plan, T, plan.reduceOp, a == Aggregate::Scan,
                             "zero_")
         << "  return acc;\n}\n\n";
      return;
    }
    os << T << " " << P << "(" << T << " d" << comm << ") {\n"
       << prologue << normalize("d") << "  " << T
       << " out_;\n  memset(&out_, 0, sizeof out_);\n"
       << xfer("&d", "&out_") << "  (void)me_;\n  return out_;\n}\n\n";
    return;
  case Aggregate::Bcast: {
    std::string U = "uint" + std::to_string(8 * plan.value->size) + "_t";
    os << "/* p_bcastPut / p_bcastGet: a bitwise or in which only the "
          "sender's value is not 0. */\n"
       << "static " << T << " " << P << "_or(" << T << " d" << comm << ") {\n"
       << prologue << normalize("d") << "  " << U << " in_ = 0, out_ = 0;\n"
       << "  memcpy(&in_, &d, sizeof d);\n";
    if (gathered)
      os << "  " << U << " all_[" << X << "_P];\n"
         << xfer("&in_", "all_") << "  for (int m = 0; me_ >= 0 && m < " << X
         << "_P; ++m)\n"
         << "    out_ |= all_[m];\n";
    else
      os << xfer("&in_", "&out_") << "  (void)me_;\n";
    os << "  memcpy(&d, &out_, sizeof d);\n  return d;\n}\n"
       << "void " << P << "_put(" << T << " d" << comm << ") {\n"
       << "  (void)" << P << "_or(d" << tr.commArg << ");\n}\n"
       << T << " " << P << "_get(" << commOnly << ") {\n"
       << "  " << T << " zero_;\n  memset(&zero_, 0, sizeof zero_);\n"
       << "  return " << P << "_or(zero_" << tr.commArg << ");\n}\n\n";
    return;
  }
  case Aggregate::Putget:
    if (plan.hasPairSizes()) {
      // `source` fixed: the scheduled alltoallv brings the one value.
      // Every member that reads this member's value gets a copy.
      os << T << " " << P << "(" << T << " d" << comm << ") {\n"
         << prologue << normalize("d") << "  " << T << " in_[" << X
         << "_P], out_;\n"
         << "  for (int m = 0; m < " << X << "_P; ++m)\n    in_[m] = d;\n"
         << "  memset(&out_, 0, sizeof out_);\n"
         << xfer("in_", "&out_") << "  (void)me_;\n  return out_;\n}\n\n";
      return;
    }
    os << T << " " << P << "(" << T << " d, int s" << comm << ") {\n"
       << prologue << normalize("d") << "  " << T << " all_[" << X << "_P];\n"
       << gatherAll("d") << "  if (me_ < 0)\n    return d;\n"
       << "  const int m = " << X << "_member(s);\n"
       << "  if (m < 0) {\n"
       << "    fprintf(stderr, \"phasec: " << P
       << ": rank %d reads from rank %d, which is not a member\\n\", rank_, "
          "s);\n"
       << "    " << tr.abort << ";\n  }\n"
       << "  return all_[m];\n}\n\n";
    return;
  case Aggregate::Gather:
    os << "/* p[r] = the value of member rank r; other entries are left as "
          "they are. */\n"
       << "void " << P << "(" << T << " *p, " << T << " d" << comm << ") {\n"
       << prologue << normalize("d") << "  " << T << " all_[" << X << "_P];\n"
       << gatherAll("d") << "  if (me_ < 0)\n    return;\n"
       << "  for (int m = 0; m < " << X << "_P; ++m)\n"
       << "    p[" << X << "_rank(m)] = all_[m];\n}\n\n";
    return;
  case Aggregate::Waitvec:
    os << "uint64_t " << P << "(int f" << comm << ") {\n"
       << prologue << "  uint8_t in_ = f != 0, all_[" << X << "_P];\n"
       << xfer("&in_", "all_") << "  uint64_t mask = 0;\n"
       << "  for (int m = 0; me_ >= 0 && m < " << X << "_P; ++m)\n"
       << "    mask |= (uint64_t)(all_[m] != 0) << " << X << "_rank(m);\n"
       << "  return mask;\n}\n\n";
    return;
  case Aggregate::Rank:
    os << "/* The number of members with a smaller value (ties: by rank). */\n"
       << "int " << P << "(" << T << " d" << comm << ") {\n"
       << prologue << normalize("d") << "  " << T << " all_[" << X << "_P];\n"
       << gatherAll("d") << "  if (me_ < 0)\n    return -1;\n  int r = 0;\n"
       << "  for (int m = 0; m < " << X << "_P; ++m)\n"
       << "    r += all_[m] < d || (!(d < all_[m]) && m < me_);\n"
       << "  return r;\n}\n\n";
    return;
  case Aggregate::Vote:
  case Aggregate::Match: {
    bool vote = a == Aggregate::Vote;
    os << "/* "
       << (vote ? "The members that voted for the caller's rank."
                : "The members whose value has the caller's bits.")
       << " */\n"
       << "static uint64_t " << P << "_mask(" << T << " v" << comm << ") {\n"
       << prologue << normalize("v") << "  " << T << " all_[" << X << "_P];\n"
       << gatherAll("v") << "  uint64_t mask = 0;\n"
       << "  for (int m = 0; me_ >= 0 && m < " << X << "_P; ++m)\n"
       << (vote ? "    mask |= (uint64_t)((int64_t)all_[m] == rank_) << "
                : "    mask |= (uint64_t)!memcmp(&all_[m], &v, sizeof v) << ")
       << X << "_rank(m);\n"
       << "  return mask;\n}\n"
       << "uint64_t " << P << "(" << T << " v" << comm << ") {\n"
       << "  return " << P << "_mask(v" << tr.commArg << ");\n}\n"
       << "int " << P << "_count(" << T << " v" << comm << ") {\n"
       << "  return __builtin_popcountll(" << P << "_mask(v" << tr.commArg
       << "));\n}\n\n";
    return;
  }
  case Aggregate::None:
    break;
  }
  llvm_unreachable("not a PAPERS aggregate");
}

//===----------------------------------------------------------------------===//
// The harness
//===----------------------------------------------------------------------===//

/// The value member m passes at call i, as a C expression of T (the
/// aggregate's value type, or its flag): small, with ties and collisions
/// where the aggregate is about them, every bit pattern exact.
static std::string harnessValueOf(const OperationPlan &plan);

/// The value member m passes at call i, within the bits the aggregate
/// sees (1-bit values: 0 or 1).
static std::string harnessValue(const OperationPlan &plan) {
  std::string v = harnessValueOf(plan);
  const std::string T = valueType(plan);
  if (plan.valueLogical)
    return "(" + T + ")((" + v + ") & 1)";
  if (plan.valueBits)
    return "(" + T + ")((" + v + ") & " + bitMask(plan.valueBits) + ")";
  return v;
}

static std::string harnessValueOf(const OperationPlan &plan) {
  const std::string T = valueType(plan), &X = plan.name;
  switch (plan.aggregate) {
  case Aggregate::Reduce:
  case Aggregate::Scan:
    return reductionValueExpression(plan);
  case Aggregate::Waitvec:
  case Aggregate::Any:
  case Aggregate::All:
    // Flags: some calls all true, some all false, most mixed.
    return "(int)((i % 5 == 0) || (i % 5 != 1 && (m * 5 + i * 3) % 4 == 0))";
  case Aggregate::Rank:
    return "(" + T + ")((m * 5 + i) % 4)";
  case Aggregate::Match:
    return "(" + T + ")((m + i) % 3)";
  case Aggregate::Vote:
    // A member's rank, or now and then a rank outside the group.
    return "(" + T + ")((m * 3 + i) % (" + X + "_P + 1) < " + X + "_P ? " + X +
           "_rank((int)((m * 3 + i) % (" + X + "_P + 1))) : 127)";
  default:
    return "(" + T + ")((m * 7 + i * 3) % 100 + 1)";
  }
}

void detail::emitPapersRunner(llvm::raw_ostream &os, const OperationPlan &plan,
                              const HarnessTransport &tr, bool timeLine) {
  const std::string &P = plan.papersName, &X = plan.name;
  const std::string T = valueType(plan);
  const std::string rank = tr.rankVar, comm = tr.commArg;
  // The communicator alone, for the functions that take nothing else.
  const std::string commOnlyArg = comm.empty() ? "" : comm.substr(2);
  const Aggregate a = plan.aggregate;
  const bool flag =
      a == Aggregate::Waitvec || a == Aggregate::Any || a == Aggregate::All;
  const bool valued = plan.movesData && a != Aggregate::Barrier;
  if (valued)
    os << "static inline " << (flag ? std::string("int") : T) << " " << P
       << "_val(int64_t m, int64_t i) {\n  return " << harnessValue(plan)
       << ";\n}\n\n";
  // 1-bit values and Bits variants: the values above are what the
  // aggregate sees; the calls pass them with other bits set, which it must
  // ignore.
  const bool restricted = plan.valueBits || plan.valueLogical;
  const std::string arg = restricted ? P + "_in(mine)" : "mine";
  if (restricted) {
    os << "static inline " << T << " " << P << "_in(" << T
       << " v) {\n  return ";
    if (plan.valueLogical)
      os << "(" << T << ")(v ? v + 4 : 0);";
    else
      os << "(" << T << ")(v | (" << T << ")~" << bitMask(plan.valueBits)
         << ");";
    os << " /* other bits set */\n}\n\n";
  }
  if (a == Aggregate::Putget && plan.hasPairSizes()) {
    // Which member each member reads from (the `source` directive).
    int64_t n = plan.numMembers();
    os << "static const int " << P << "_src[" << X << "_P] = {";
    for (int64_t d = 0; d < n; ++d) {
      int64_t src = -1;
      for (int64_t s2 = 0; s2 < n; ++s2)
        if (plan.sizes[s2 * n + d] > 0)
          src = s2;
      os << (d ? ", " : "") << src;
    }
    os << "};\n\n";
  }
  // Called through pointers: the runner's locals may shadow the names.
  const std::string F = "phasec_call_" + P;
  auto pointer = [&](const std::string &suffix) {
    os << "static __typeof__(" << P << suffix << ") *const " << F << suffix
       << " = " << P << suffix << ";\n";
  };
  if (a == Aggregate::Bcast) {
    pointer("_put");
    pointer("_get");
  } else {
    pointer("");
  }
  if (a == Aggregate::Vote || a == Aggregate::Match)
    pointer("_count");
  os << "\n";
  os << "/* Runs " << P
     << ": every rank calls it, every member checks its "
        "result against\n   a serial evaluation, every call. Returns the "
        "wrong results over all "
     << tr.units << ". */\n"
     << "static uint64_t run_" << X << "(int " << rank
     << ", int iters, int warmup) {\n"
     << "  const int me = " << X << "_member(" << rank << ");\n"
     << "  const int total = warmup + iters;\n"
     << "  const int corrupt = getenv(\"PHASEC_TEST_CORRUPT\") != NULL;\n"
     << "  uint64_t bad = 0;\n  int printed = 0;\n"
     << "  double *t = (double *)PHASEC_XMALLOC(sizeof(double) * "
        "(size_t)iters, \"times\");\n";
  if (a == Aggregate::Gather)
    os << "  " << T << " p[" << plan.requiredRanks() << "];\n";
  os << "  for (int k = 0; k < total; ++k) {\n"
     << "    const int64_t i = k;\n"
     << "    /* The last call checks the checker: member 0's input or "
        "result is off. */\n"
     << "    const int off = corrupt && me == 0 && k == total - 1;\n"
     << "    int ok = 1;\n    (void)i;\n    (void)off;\n";
  if (valued)
    os << "    " << (flag ? std::string("int") : T) << " mine = me >= 0 ? " << P
       << "_val(me, i) : " << (flag ? "0" : "(" + T + ")0") << ";\n"
       << "    if (off)\n      "
       << (flag ? "mine = !mine;" : "((unsigned char *)&mine)[0] ^= 1;")
       << "\n";
  if (a == Aggregate::Gather)
    os << "    for (int r = 0; r < " << plan.requiredRanks()
       << "; ++r)\n      p[r] = (" << T << ")99;\n";
  os << timedStart(tr, timeLine);
  // The call (timed), then the expected result (not timed).
  std::string check, expectText;
  llvm::raw_string_ostream es(expectText);
  switch (a) {
  case Aggregate::Population:
    os << "    const int got = " << F << "();\n";
    check = "got == " + X + "_P";
    break;
  case Aggregate::SelectFirst:
  case Aggregate::SelectOne:
    os << "    const int got = " << F << "();\n";
    check = "got == " + X + "_rank(0)";
    break;
  case Aggregate::Enumerate:
    os << "    const int got = " << F << "(" << commOnlyArg << ");\n";
    check = "got == me";
    break;
  case Aggregate::Barrier:
    // Timed here; what it promises is checked after the loop.
    os << "    " << F << "(" << commOnlyArg << ");\n";
    check = "1";
    break;
  case Aggregate::Any:
  case Aggregate::All:
  case Aggregate::Waitvec: {
    std::string res = a == Aggregate::Waitvec ? "uint64_t" : "int";
    os << "    const " << res << " got = " << F << "(mine" << comm << ");\n";
    es << "    " << res << " want = " << (a == Aggregate::All ? "1" : "0")
       << ";\n"
       << "    for (int m = 0; m < " << X << "_P; ++m) {\n"
       << "      const int f = m == me ? mine : " << P << "_val(m, i);\n";
    if (a == Aggregate::Waitvec)
      es << "      want |= (uint64_t)(f != 0) << " << X << "_rank(m);\n";
    else if (a == Aggregate::Any)
      es << "      want = want || f;\n";
    else
      es << "      want = want && f;\n";
    es << "    }\n";
    check = "got == want";
    break;
  }
  case Aggregate::Reduce:
  case Aggregate::Scan:
    os << "    const " << T << " got = " << F << "(" << arg << comm << ");\n";
    es << "    " << T << " want = " << P << "_val(0, i);\n"
       << "    for (int m = 1; m < "
       << (a == Aggregate::Scan ? std::string("me + 1") : X + "_P")
       << "; ++m) {\n"
       << "      const " << T << " v = " << P << "_val(m, i);\n"
       << "      " << X << "_combine(&want, &v, sizeof v);\n    }\n";
    check = "!memcmp(&got, &want, sizeof got)";
    break;
  case Aggregate::Bcast:
    // The sender puts, the others get: one call each.
    os << "    const int sender = (int)(i % " << X << "_P);\n"
       << "    " << T << " got = mine;\n"
       << "    if (me == sender)\n      " << F << "_put(" << arg << comm
       << ");\n"
       << "    else\n      got = " << F << "_get(" << commOnlyArg << ");\n";
    es << "    const " << T << " want = me == sender ? mine : " << P
       << "_val(sender, i);\n";
    check = "!memcmp(&got, &want, sizeof got)";
    break;
  case Aggregate::Putget:
    if (plan.hasPairSizes()) {
      os << "    const " << T << " got = " << F << "(" << arg << comm << ");\n";
      es << "    const " << T << " want = me >= 0 ? " << P << "_val(" << P
         << "_src[me], i) : got;\n";
    } else {
      os << "    const int src = " << X << "_rank((int)((me + 1 + i) % " << X
         << "_P));\n"
         << "    const " << T << " got = " << F << "(" << arg
         << ", me >= 0 ? src : " << X << "_rank(0)" << comm << ");\n";
      es << "    const " << T << " want = me >= 0 ? " << P << "_val(" << X
         << "_member(src), i) : got;\n";
    }
    check = "!memcmp(&got, &want, sizeof got)";
    break;
  case Aggregate::Gather:
    os << "    " << F << "(p, " << arg << comm << ");\n";
    check = "1";
    es << "    for (int r = 0; me >= 0 && r < " << plan.requiredRanks()
       << "; ++r) {\n"
       << "      const int m = " << X << "_member(r);\n"
       << "      const " << T << " want = m < 0 ? (" << T << ")99 : " << P
       << "_val(m, i);\n"
       << "      ok = ok && !memcmp(&p[r], &want, sizeof want);\n    }\n";
    break;
  case Aggregate::Rank:
    os << "    const int got = " << F << "(" << arg << comm << ");\n";
    es << "    int want = 0;\n"
       << "    for (int m = 0; m < " << X << "_P; ++m) {\n"
       << "      const " << T << " v = " << P << "_val(m, i);\n"
       << "      want += v < mine || (!(mine < v) && m < me);\n    }\n";
    check = "got == want";
    break;
  case Aggregate::Vote:
  case Aggregate::Match:
    // The count is one more call: after the timed one.
    os << "    const uint64_t got = " << F << "(" << arg << comm << ");\n";
    es << "    const int count = " << F << "_count(" << arg << comm << ");\n"
       << "    uint64_t want = 0;\n"
       << "    for (int m = 0; m < " << X << "_P; ++m) {\n"
       << "      const " << T << " v = m == me ? mine : " << P
       << "_val(m, i);\n"
       << (a == Aggregate::Vote
               ? "      want |= (uint64_t)((int64_t)v == " + rank + ") << "
               : "      want |= (uint64_t)!memcmp(&v, &mine, sizeof v) << ")
       << X << "_rank(m);\n    }\n";
    check = "got == want && count == __builtin_popcountll(want)";
    break;
  case Aggregate::None:
    llvm_unreachable("not a PAPERS aggregate");
  }
  os << "    const double dt = phasec_wtime() - t0;\n"
     << "    if (k >= warmup)\n      t[k - warmup] = dt;\n"
     << expectText;
  // Where member 0's input need not change anybody's result (a bcast
  // from another member, an any or all), its wrong result is made up.
  if ((!valued && a != Aggregate::Barrier) || a == Aggregate::Bcast ||
      a == Aggregate::Any || a == Aggregate::All)
    os << "    ok = ok && (" << check << ") != off;\n";
  else
    os << "    ok = ok && (" << check << ");\n";
  os << "    if (me >= 0 && !ok) {\n      ++bad;\n"
     << "      if (printed++ < 5)\n"
     << "        fprintf(stderr, \"phasec: " << P
     << ": rank %d, call %d: wrong result\\n\", " << rank << ", k);\n"
     << "    }\n  }\n";
  // What a barrier promises, after the timed calls.
  if (a == Aggregate::Barrier)
    emitBarrierCheck(os, tr, P, X, plan.group.front(),
                     F + "(" + commOnlyArg + ")");
  os << "  bad = " << tr.sumBad << ";\n"
     << "  phasec_stats stats = " << tr.reduceTimes << ";\n"
     << "  if (" << rank << " == 0) {\n"
     << "    phasec_print_header(\"phasec " << P << ": PAPERS "
     << stringifyAggregate(a) << ", " << plan.numMembers() << " members, "
     << tr.name << "\");\n"
     << "    phasec_print_timing(" << (plan.value ? plan.value->size : 1)
     << ", &stats);\n"
     << "    printf(\"# " << P
     << ": median %.2f us; %s\\n\", stats.median * 1e6,\n"
     << "           bad ? \"WRONG RESULTS\" : \"every result verified\");\n";
  if (timeLine)
    os << "    printf(\"PHASEC_SIM_TIME %.9e\\nPHASEC_SIM_VERIFIED %llu\\n\", "
          "stats.median,\n"
       << "           (unsigned long long)bad);\n";
  os << "  }\n" << tr.beforeFree << "  free(t);\n  return bad;\n}\n\n";
}
