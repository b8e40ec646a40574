//===- EmitC.cpp - C emission shared by the MPI and SHMEM back ends -------===//
//
// Part of phasec. Internal to targets/.
//
//===----------------------------------------------------------------------===//
//
// Everything a generated file needs that is the same for MPI and OpenSHMEM.
// The output is deterministic: it depends only on the plan, and tables are
// written in member / phase order.
//
//===----------------------------------------------------------------------===//

#include "EmitC.h"
#include "PlanVisitor.h"

#include "phasec/Core/GeneratedNames.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"

#include <string>
#include <tuple>

using namespace phasec;
using namespace phasec::target;
using namespace phasec::target::detail;

llvm::LogicalResult detail::checkPlans(llvm::ArrayRef<OperationPlan> plans,
                                       std::string &error) {
  if (plans.empty()) {
    error = "no operation to generate code for";
    return llvm::failure();
  }
  llvm::StringSet<> names;
  for (const OperationPlan &p : plans) {
    if (!names.insert(p.name).second) {
      error = "two operations are named '" + p.name + "'";
      return llvm::failure();
    }
    if (p.group.empty()) {
      error = "operation '" + p.name + "' has an empty group";
      return llvm::failure();
    }
  }
  // The nonblocking forms (NonblockingC.cpp) name functions and statics
  // after their operation: another operation must not have those names.
  for (const OperationPlan &p : plans)
    for (llvm::StringRef suffix : kNonblockingSuffixes)
      if (names.contains(p.name + suffix.str())) {
        error = "operation '" + p.name + suffix.str() +
                "' has the name of a function or object generated for "
                "operation '" +
                p.name + "' (its nonblocking forms); rename one of them";
        return llvm::failure();
      }
  // A local step's function is declared beside the operations' functions.
  for (const OperationPlan &p : plans)
    if (!p.call.empty() && names.contains(p.call)) {
      error = "local step '" + p.name + "' calls '" + p.call +
              "', the name of an operation's function";
      return llvm::failure();
    }
  return llvm::success();
}

void detail::emitCommonTypes(llvm::raw_ostream &os) {
  os << "#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
        "#include <string.h>\n\n"
        "/* Complex elements are moved, never computed on: plain structs. */\n"
        "typedef struct { float re, im; } phasec_c64_t;\n"
        "typedef struct { double re, im; } phasec_c128_t;\n\n"
        "/* One transfer of a per-member table: in phase `phase` move `bytes` "
        "bytes,\n   starting at byte `offset` of the data owed, to/from "
        "member `peer`. */\n"
        "typedef struct {\n  int32_t phase, peer;\n  int64_t offset, bytes;\n"
        "} phasec_xfer_t;\n\n"
        "#define PHASEC_MIN(a, b) ((a) < (b) ? (a) : (b))\n"
        "#define PHASEC_UNUSED __attribute__((unused))\n\n";
}

int64_t detail::maxSendsPerPhase(const OperationPlan &plan) {
  if (plan.hasRules())
    return plan.ruleMaxSendsPerPhase;
  int64_t best = 0;
  std::vector<int64_t> count(plan.numMembers());
  for (const PlannedPhase &ph : plan.phases) {
    std::fill(count.begin(), count.end(), 0);
    for (const PlannedTransfer &t : ph.transfers)
      best = std::max(best, ++count[t.src]);
  }
  return best;
}

int64_t detail::maxRecvsPerPhase(const OperationPlan &plan) {
  if (plan.hasRules())
    return plan.ruleMaxRecvsPerPhase;
  int64_t best = 0;
  std::vector<int64_t> count(plan.numMembers());
  for (const PlannedPhase &ph : plan.phases) {
    std::fill(count.begin(), count.end(), 0);
    for (const PlannedTransfer &t : ph.transfers)
      best = std::max(best, ++count[t.dst]);
  }
  return best;
}

static std::string describeFormula(const OperationPlan &plan) {
  if (plan.hasRules())
    return "tables by rule (" + std::to_string(plan.ruleReps.size()) +
           " representatives, " + std::to_string(plan.ruleGroups.size()) +
           " groups of translations)";
  if (!plan.tableReps.empty()) // only found without formulas
    return "tables by translation (" + std::to_string(plan.tableReps.size()) +
           " of " + std::to_string(plan.numMembers()) + " members)";
  if (!plan.useFormulas)
    return "per-member tables";
  bool shift = plan.phases[0].formula == PhaseFormula::Shift;
  if (plan.consecutiveFormula)
    return shift ? "phase j: send to (me + 1 + j) % P, receive from "
                   "(me + P - 1 - j) % P"
                 : "phase j: exchange with me ^ (j + 1)";
  return shift ? "phase j: send to (me + k[j]) % P, receive from "
                 "(me + P - k[j]) % P"
               : "phase j: exchange with me ^ k[j]";
}

namespace {
/// The plan comment's line(s) on the data: the array, the sizes or the
/// block.
struct PlanDescription
    : PlanVisitor<PlanDescription, void, llvm::raw_ostream &> {
  void visitMatrix(const OperationPlan &plan, llvm::raw_ostream &os) {
    if (!plan.isSquare()) {
      os << " * array: " << plan.n << " x " << plan.cols << " "
         << plan.elem.name << " (" << plan.elem.size
         << " bytes), rows block-distributed, " << plan.rowsPerMember()
         << " rows per member;\n * result: " << plan.cols << " x " << plan.n
         << ", " << plan.colsPerMember()
         << " rows per member (rectangular transpose)\n";
      return;
    }
    os << " * array: " << plan.n << " x " << plan.n << " " << plan.elem.name
       << " (" << plan.elem.size << " bytes), rows block-distributed, "
       << plan.rowsPerMember() << " rows per member\n";
  }
  void visitPairSizes(const OperationPlan &, llvm::raw_ostream &os) {
    os << " * blocks: per-pair sizes (alltoallv)\n";
  }
  void visitElementPermute(const OperationPlan &plan, llvm::raw_ostream &os) {
    os << " * array: " << plan.n << " " << plan.elem.name
       << " elements, block-distributed; element g moves to perm(g)\n";
  }
  void visitBlocks(const OperationPlan &plan, llvm::raw_ostream &os) {
    os << " * block: " << plan.blockBytes << " bytes";
    if (plan.root >= 0)
      os << ", root member " << plan.root;
    os << "\n";
  }
  /// Barriers and relays (the relay comment says the rest).
  void visitDataless(const OperationPlan &plan, llvm::raw_ostream &os) {
    visitBlocks(plan, os);
  }
};
} // namespace

void detail::emitPlanComment(llvm::raw_ostream &os, const OperationPlan &plan) {
  const std::string &n = plan.name;
  os << "/*===- " << n << ": "
     << Collective::getKindName(plan.kind, plan.elementLevel) << " -===*\n"
     << " * group: " << plan.numMembers() << " members (ranks";
  int64_t shown = 0;
  for (RankId r : plan.group) {
    if (shown++ == 16) {
      os << " ...";
      break;
    }
    os << " " << r;
  }
  os << ")\n";
  PlanDescription().dispatchPlanVisitor(plan, os);
  os << " * schedule: " << plan.phases.size() << " phases from '"
     << plan.schedule.algorithm << "'";
  // The bound in phases where the blocks are uniform, else (sizes differ:
  // `blocks` is 0) in seconds of the machine model.
  const LowerBound &bound = plan.schedule.bound;
  if (!bound.reason.empty()) {
    os << ", lower bound ";
    if (bound.blocks > 0)
      os << llvm::format("%g", bound.blocks) << " phases";
    else
      os << llvm::format("%g", bound.time) << " s";
    os << " (" << bound.reason << ")";
  }
  os << "\n * peers: " << describeFormula(plan) << "\n"
     << " * transfer style: " << stringifyTransferStyle(plan.options.style)
     << ", phase sync: "
     << stringifySyncKind(plan.options.sync);
  if (plan.isTranspose())
    os << ", loop order: "
       << (plan.options.order == LoopOrder::ContiguousLoads
               ? "contiguous loads, strided stores"
               : "strided loads, contiguous stores")
       << ", tile " << plan.options.tile;
  os << "\n *===" << std::string(64, '-') << "===*/\n";
}

/// The member map: member m is rank NAME_rank(m).
void detail::emitMemberMap(llvm::raw_ostream &os, const OperationPlan &plan) {
  const std::string &n = plan.name;
  bool identity = true;
  for (auto [i, r] : llvm::enumerate(plan.group))
    identity = identity && r == static_cast<RankId>(i);
  if (identity) {
    os << "/* The group is ranks 0.." << plan.numMembers() - 1
       << ": member m is rank m. */\n"
       << "static inline int " << n << "_rank(int m) { return m; }\n"
       << "static inline int " << n << "_member(int rank) {\n  return rank < "
       << n << "_P ? rank : -1;\n}\n\n";
    return;
  }
  os << "static const int " << n << "_ranks[" << n << "_P] = {";
  for (auto [i, r] : llvm::enumerate(plan.group))
    os << (i ? ", " : "") << r;
  os << "};\n"
     << "static inline int " << n << "_rank(int m) { return " << n
     << "_ranks[m]; }\n"
     << "static inline int " << n << "_member(int rank) {\n"
     << "  for (int m = 0; m < " << n << "_P; ++m)\n"
     << "    if (" << n << "_ranks[m] == rank)\n      return m;\n"
     << "  return -1;\n}\n\n";
}

static std::string xferEntry(int64_t phase, int64_t peer, int64_t offset,
                             int64_t bytes) {
  return "{" + std::to_string(phase) + ", " + std::to_string(peer) + ", " +
         std::to_string(offset) + ", " + std::to_string(bytes) + "}";
}

/// One side of the tables: NAME_<what>_<tag><i>[] for every non-empty row
/// i, the pointers NAME_<what>s[<size>] and the counts NAME_n<what>s.
static void emitTableSide(llvm::raw_ostream &os, const std::string &n,
                          llvm::StringRef what, llvm::StringRef tag,
                          const std::string &size,
                          const std::vector<std::vector<std::string>> &rows) {
  for (auto [m, row] : llvm::enumerate(rows)) {
    if (row.empty())
      continue;
    os << "static const phasec_xfer_t " << n << "_" << what << "_" << tag << m
       << "[] = {";
    for (auto [i, e] : llvm::enumerate(row))
      os << (i % 4 ? ", " : (i ? ",\n    " : "\n    ")) << e;
    os << "};\n";
  }
  os << "static const phasec_xfer_t *const " << n << "_" << what << "s[" << size
     << "] = {";
  for (auto [m, row] : llvm::enumerate(rows)) {
    os << (m ? ", " : "");
    if (row.empty())
      os << "NULL";
    else
      os << n << "_" << what << "_" << tag << m;
  }
  os << "};\nstatic const int32_t " << n << "_n" << what << "s[" << size
     << "] = {";
  for (auto [m, row] : llvm::enumerate(rows))
    os << (m ? ", " : "") << row.size();
  os << "};\n";
}

/// The tables NAME_expand fills for one member at a time: static arrays
/// (no allocation, nothing to free; the member whose tables they hold is
/// remembered, another member's call fills them again).
static void emitOwnTables(llvm::raw_ostream &os, const std::string &n,
                          llvm::StringRef how, int64_t maxS, int64_t maxR) {
  os << "/* Member " << n << "_expanded - 1's tables" << how << ". */\n"
     << "static phasec_xfer_t " << n << "_own_send[" << maxS << "], " << n
     << "_own_recv[" << maxR << "];\n"
     << "static const phasec_xfer_t *" << n << "_sends[" << n << "_P], *" << n
     << "_recvs[" << n << "_P];\n"
     << "static int32_t " << n << "_nsends[" << n << "_P], " << n << "_nrecvs["
     << n << "_P];\n"
     << "static int " << n << "_expanded = 0;\n";
}

/// NAME_moved(peer, me, rep): peer + (me - rep), digit by digit in the
/// radix NAME_radix (moving a peer by a translation; with peer 0, the
/// translation from rep to me).
static void emitMoved(llvm::raw_ostream &os, const std::string &n) {
  os << "/* peer + (me - rep), digit by digit. */\n"
     << "static inline int32_t " << n << "_moved(int peer, int me, int rep) {\n"
     << "  int r = 0, mul = 1;\n"
     << "  for (int i = " << n << "_NDIGITS - 1; i >= 0; --i) {\n"
     << "    const int b = " << n << "_radix[i];\n"
     << "    r += ((peer % b + me % b - rep % b + b) % b) * mul;\n"
     << "    peer /= b;\n    me /= b;\n    rep /= b;\n    mul *= b;\n  }\n"
     << "  return r;\n}\n";
}

/// NAME_expand's start: nothing to do for the member already expanded,
/// else the previous member's tables are dropped.
static void emitExpandHead(llvm::raw_ostream &os, const std::string &n) {
  os << "static inline void " << n << "_expand(int me) {\n"
     << "  if (" << n << "_expanded == me + 1)\n    return;\n"
     << "  if (" << n << "_expanded) {\n"
     << "    const int old = " << n << "_expanded - 1;\n"
     << "    " << n << "_sends[old] = " << n << "_recvs[old] = NULL;\n"
     << "    " << n << "_nsends[old] = " << n << "_nrecvs[old] = 0;\n  }\n";
}

/// Tables by translation (OperationPlan::tableReps): the representatives'
/// tables, sorted by (phase, peer, offset) so that the moved tables of a
/// sender and a receiver list a pair's transfers in the same order, and
/// NAME_expand(me), which fills NAME_sends[me] / NAME_recvs[me] from them
/// in static arrays (no allocation, nothing to free; the member whose
/// tables they hold is remembered, another member's call fills them again).
static void emitTranslatedTables(llvm::raw_ostream &os,
                                 const OperationPlan &plan) {
  const std::string &n = plan.name;
  int64_t p = plan.numMembers();
  int64_t reps = static_cast<int64_t>(plan.tableReps.size());
  struct Row {
    int64_t phase, peer, offset, bytes;
    auto key() const { return std::tie(phase, peer, offset, bytes); }
  };
  std::vector<std::vector<Row>> sends(reps), recvs(reps);
  for (auto [j, ph] : llvm::enumerate(plan.phases))
    for (const PlannedTransfer &t : ph.transfers) {
      int64_t j64 = static_cast<int64_t>(j);
      if (plan.tableReps[plan.tableOrbit[t.src]] == t.src)
        sends[plan.tableOrbit[t.src]].push_back(
            {j64, t.dst, t.offset, t.bytes});
      if (plan.tableReps[plan.tableOrbit[t.dst]] == t.dst)
        recvs[plan.tableOrbit[t.dst]].push_back(
            {j64, t.src, t.offset, t.bytes});
    }
  size_t maxS = 1, maxR = 1;
  for (int64_t o = 0; o < reps; ++o) {
    for (auto *rows : {&sends[o], &recvs[o]})
      llvm::sort(*rows,
                 [](const Row &a, const Row &b) { return a.key() < b.key(); });
    maxS = std::max(maxS, sends[o].size());
    maxR = std::max(maxR, recvs[o].size());
  }
  os << "/* Tables by translation: the schedule is the same seen from every "
        "member of an\n   orbit of translations of the member index read in "
        "the mixed radix";
  for (auto [i, b] : llvm::enumerate(plan.tableRadix))
    os << (i ? " x " : " ") << b;
  os << "\n   (each digit modulo its base). " << reps << " of " << p
     << " members have tables; member m runs those\n   of its orbit's "
        "representative, every peer moved by m - rep digit by digit\n   ("
     << n << "_expand). */\n"
     << "#define " << n << "_NDIGITS " << plan.tableRadix.size() << "\n"
     << "static const int " << n << "_radix[" << n << "_NDIGITS] = {";
  for (auto [i, b] : llvm::enumerate(plan.tableRadix))
    os << (i ? ", " : "") << b;
  os << "};\nstatic const int32_t " << n << "_reps[" << reps << "] = {";
  for (auto [i, r] : llvm::enumerate(plan.tableReps))
    os << (i % 16 ? ", " : (i ? ",\n    " : "")) << r;
  os << "};\n/* The orbit of each member (an index into " << n
     << "_reps). */\nstatic const int32_t " << n << "_orbit[" << n << "_P] = {";
  for (auto [i, o] : llvm::enumerate(plan.tableOrbit))
    os << (i % 16 ? ", " : (i ? ",\n    " : "")) << o;
  os << "};\n/* The representatives' tables {phase, peer member, byte offset, "
        "bytes}. */\n";
  for (auto [what, side] : {std::pair{"rsend", &sends}, {"rrecv", &recvs}}) {
    std::vector<std::vector<std::string>> rows(reps);
    for (int64_t o = 0; o < reps; ++o)
      for (const Row &e : (*side)[o])
        rows[o].push_back(xferEntry(e.phase, e.peer, e.offset, e.bytes));
    emitTableSide(os, n, what, "o", std::to_string(reps), rows);
  }
  emitOwnTables(os, n, ", moved from its representative's", maxS, maxR);
  emitMoved(os, n);
  emitExpandHead(os, n);
  os << "  const int o = " << n << "_orbit[me], rep = " << n << "_reps[o];\n"
     << "  for (int i = 0; i < " << n << "_nrsends[o]; ++i) {\n"
     << "    " << n << "_own_send[i] = " << n << "_rsends[o][i];\n"
     << "    " << n << "_own_send[i].peer = " << n << "_moved(" << n
     << "_rsends[o][i].peer, me, rep);\n  }\n"
     << "  for (int i = 0; i < " << n << "_nrrecvs[o]; ++i) {\n"
     << "    " << n << "_own_recv[i] = " << n << "_rrecvs[o][i];\n"
     << "    " << n << "_own_recv[i].peer = " << n << "_moved(" << n
     << "_rrecvs[o][i].peer, me, rep);\n  }\n"
     << "  " << n << "_sends[me] = " << n << "_own_send;\n"
     << "  " << n << "_recvs[me] = " << n << "_own_recv;\n"
     << "  " << n << "_nsends[me] = " << n << "_nrsends[o];\n"
     << "  " << n << "_nrecvs[me] = " << n << "_nrrecvs[o];\n"
     << "  " << n << "_expanded = me + 1;\n}\n\n";
}

/// Tables by rule (OperationPlan::ruleFirst & co.): every phase's
/// representatives and group, the groups as bitmaps over the member index,
/// and NAME_expand(me), which lists member me's transfers phase by phase:
/// me sends rep's transfer moved by t where t = me - rep.src is in the
/// phase's group, and receives it where t = me - rep.dst is. A few numbers
/// per representative instead of a table entry per transfer (20x20x20:
/// 400 K representatives for 64 M transfers).
static void emitRuleTables(llvm::raw_ostream &os, const OperationPlan &plan) {
  const std::string &n = plan.name;
  int64_t p = plan.numMembers();
  size_t reps = plan.ruleReps.size(), groups = plan.ruleGroups.size();
  auto list = [&](llvm::StringRef type, llvm::StringRef name,
                  const std::string &size, auto &&values) {
    os << "static const " << type << " " << n << "_" << name << "[" << size
       << "] = {";
    size_t i = 0;
    for (int64_t v : values) {
      os << (i % 16 ? ", " : (i ? ",\n    " : "")) << v;
      ++i;
    }
    os << "};\n";
  };
  os << "/* Tables by rule: phase j moves the translates of its "
        "representatives\n   "
     << n << "_rsrc/_rdst[" << n << "_rfirst[j] .. " << n
     << "_rfirst[j + 1]) by every translation of group " << n
     << "_rgroup[j];\n   translations are member indices read in the "
        "mixed radix";
  for (auto [i, b] : llvm::enumerate(plan.tableRadix))
    os << (i ? " x " : " ") << b;
  os << "\n   (each digit modulo its base), " << n
     << "_ingroup[g] a bit per member index. " << reps
     << " representatives,\n   " << groups
     << " groups; member me lists its own transfers at run time (" << n
     << "_expand). */\n"
     << "#define " << n << "_NDIGITS " << plan.tableRadix.size() << "\n"
     << "#define " << n << "_NREPS " << std::max<size_t>(1, reps) << "\n"
     << "static const int " << n << "_radix[" << n << "_NDIGITS] = {";
  for (auto [i, b] : llvm::enumerate(plan.tableRadix))
    os << (i ? ", " : "") << b;
  os << "};\n";
  list("int32_t", "rfirst", n + "_NPHASES + 1", plan.ruleFirst);
  list("int32_t", "rgroup", n + "_NPHASES", plan.ruleGroup);
  list("int32_t", "rsrc", n + "_NREPS",
       llvm::map_range(plan.ruleReps, [](const PlannedTransfer &t) {
         return int64_t(t.src);
       }));
  list("int32_t", "rdst", n + "_NREPS",
       llvm::map_range(plan.ruleReps, [](const PlannedTransfer &t) {
         return int64_t(t.dst);
       }));
  int64_t bytesPerMap = (p + 7) / 8;
  os << "static const uint8_t " << n << "_ingroup[" << groups << "]["
     << bytesPerMap << "] = {";
  for (auto [g, members] : llvm::enumerate(plan.ruleGroups)) {
    std::vector<uint8_t> bits(bytesPerMap, 0);
    for (int32_t m : members)
      bits[m / 8] |= uint8_t(1) << (m % 8);
    os << (g ? ",\n  {" : "\n  {");
    for (auto [i, b] : llvm::enumerate(bits))
      os << (i % 24 ? ", " : (i ? ",\n   " : "")) << int(b);
    os << "}";
  }
  os << "};\n";
  emitOwnTables(os, n, "", std::max<int64_t>(1, plan.ruleMaxSends),
                std::max<int64_t>(1, plan.ruleMaxRecvs));
  emitMoved(os, n);
  emitExpandHead(os, n);
  os << "  int ns = 0, nr = 0;\n"
     << "  for (int j = 0; j < " << n << "_NPHASES; ++j) {\n"
     << "    const uint8_t *in = " << n << "_ingroup[" << n << "_rgroup[j]];\n"
     << "    for (int i = " << n << "_rfirst[j]; i < " << n
     << "_rfirst[j + 1]; ++i) {\n"
     << "      const int32_t s = " << n << "_rsrc[i], d = " << n
     << "_rdst[i];\n"
     << "      int t = " << n << "_moved(0, me, s);\n"
     << "      if (in[t >> 3] >> (t & 7) & 1) {\n"
     << "        const phasec_xfer_t x = {j, " << n << "_moved(d, me, s), 0, "
     << n << "_BLOCK};\n"
     << "        " << n << "_own_send[ns++] = x;\n      }\n"
     << "      t = " << n << "_moved(0, me, d);\n"
     << "      if (in[t >> 3] >> (t & 7) & 1) {\n"
     << "        const phasec_xfer_t x = {j, " << n << "_moved(s, me, d), 0, "
     << n << "_BLOCK};\n"
     << "        " << n << "_own_recv[nr++] = x;\n      }\n"
     << "    }\n  }\n"
     << "  " << n << "_sends[me] = " << n << "_own_send;\n"
     << "  " << n << "_recvs[me] = " << n << "_own_recv;\n"
     << "  " << n << "_nsends[me] = ns;\n"
     << "  " << n << "_nrecvs[me] = nr;\n"
     << "  " << n << "_expanded = me + 1;\n}\n\n";
}

/// Phase formulas or the per-member tables.
static void emitPhaseData(llvm::raw_ostream &os, const OperationPlan &plan) {
  const std::string &n = plan.name;
  if (plan.useFormulas) {
    bool shift = plan.phases[0].formula == PhaseFormula::Shift;
    std::string k;
    if (plan.consecutiveFormula) {
      k = "(1 + j)";
    } else {
      os << "/* The shift / xor constant of each phase. */\n"
         << "static const int " << n << "_k[" << n << "_NPHASES] = {";
      for (auto [j, ph] : llvm::enumerate(plan.phases))
        os << (j ? ", " : "") << ph.k;
      os << "};\n";
      k = n + "_k[j]";
    }
    os << "static inline int " << n << "_to(int me, int j) { return ";
    if (shift)
      os << "(me + " << k << ") % " << n << "_P; }\n";
    else
      os << "me ^ " << k << "; }\n";
    os << "static inline int " << n << "_from(int me, int j) { return ";
    if (shift)
      os << "(me + " << n << "_P - " << k << ") % " << n << "_P; }\n\n";
    else
      os << "me ^ " << k << "; }\n\n";
    return;
  }
  if (plan.hasRules()) {
    emitRuleTables(os, plan);
    return;
  }
  if (!plan.tableReps.empty()) {
    emitTranslatedTables(os, plan);
    return;
  }
  int64_t p = plan.numMembers();
  std::vector<std::vector<std::string>> sends(p), recvs(p);
  for (auto [j, ph] : llvm::enumerate(plan.phases))
    for (const PlannedTransfer &t : ph.transfers) {
      auto entry = [&](int32_t peer) {
        return xferEntry(j, peer, t.offset, t.bytes);
      };
      sends[t.src].push_back(entry(t.dst));
      recvs[t.dst].push_back(entry(t.src));
    }
  os << "/* Per-member tables {phase, peer member, byte offset, bytes}, in "
        "phase order;\n   member m reads only its own (selected at run "
        "time). */\n";
  emitTableSide(os, n, "send", "m", n + "_P", sends);
  emitTableSide(os, n, "recv", "m", n + "_P", recvs);
  os << "\n";
}

/// alltoallv: where the data for / from a peer sits in the buffers, from
/// the size matrix.
static void emitPairSizeDisplacements(llvm::raw_ostream &os,
                                      const OperationPlan &plan) {
  const std::string &n = plan.name;
  int64_t p = plan.numMembers();
  os << "/* alltoallv: per-member rows of the size matrix and their "
        "prefix sums. */\n";
  for (int64_t m = 0; m < p; ++m) {
    int64_t sd = 0, rd = 0;
    std::string ssz, rsz, sdi, rdi;
    for (int64_t q = 0; q < p; ++q) {
      std::string sep = q ? ", " : "";
      ssz += sep + std::to_string(plan.sizes[m * p + q]);
      rsz += sep + std::to_string(plan.sizes[q * p + m]);
      sdi += sep + std::to_string(sd);
      rdi += sep + std::to_string(rd);
      sd += plan.sizes[m * p + q];
      rd += plan.sizes[q * p + m];
    }
    os << "static const int64_t " << n << "_ssize_m" << m << "[] = {" << ssz
       << "};\nstatic const int64_t " << n << "_rsize_m" << m << "[] = {" << rsz
       << "};\nstatic const int64_t " << n << "_sdispl_m" << m << "[] = {"
       << sdi << "};\nstatic const int64_t " << n << "_rdispl_m" << m
       << "[] = {" << rdi << "};\n";
    os << "#define " << n << "_STOTAL_M" << m << " " << sd << "\n#define " << n
       << "_RTOTAL_M" << m << " " << rd << "\n";
  }
  for (llvm::StringRef t : {"ssize", "rsize", "sdispl", "rdispl"}) {
    // Only the harness's check reads the receive sizes (a PAPERS putget
    // has no such check).
    os << (t == "rsize" ? "__attribute__((unused)) " : "")
       << "static const int64_t *const " << n << "_" << t << "[" << n
       << "_P] = {";
    for (int64_t m = 0; m < p; ++m)
      os << (m ? ", " : "") << n << "_" << t << "_m" << m;
    os << "};\n";
  }
  int64_t maxS = 0, maxR = 0;
  for (int64_t m = 0; m < p; ++m) {
    int64_t s = 0, r = 0;
    for (int64_t q = 0; q < p; ++q) {
      s += plan.sizes[m * p + q];
      r += plan.sizes[q * p + m];
    }
    maxS = std::max(maxS, s);
    maxR = std::max(maxR, r);
  }
  os << "#define " << n << "_SEND_MAX " << maxS << "\n#define " << n
     << "_RECV_MAX " << maxR << "\n"
     << "static inline int64_t " << n
     << "_sdispl_of(int me, int peer) { return " << n
     << "_sdispl[me][peer]; }\n"
     << "static inline int64_t " << n
     << "_rdispl_of(int me, int peer) { return " << n
     << "_rdispl[me][peer]; }\n\n";
}

/// Blocks: where the data for / from a peer sits in the buffers: block
/// `peer` where a side holds one per member, else the start.
static void emitBlockDisplacements(llvm::raw_ostream &os,
                                   const OperationPlan &plan) {
  const std::string &n = plan.name;
  const CollectiveTraits &traits = plan.traits();
  std::string perPeer = "(int64_t)peer * " + n + "_BLOCK";
  std::string sd = traits.send.part == DataPart::PerMember ? perPeer : "0";
  std::string rd = traits.recv.part == DataPart::PerMember ? perPeer : "0";
  os << "/* Where the data for `peer` starts in member me's send buffer and "
        "the data\n   from `peer` in its receive buffer. */\n"
     << "static inline int64_t " << n
     << "_sdispl_of(int me, int peer) { (void)me; (void)peer; return " << sd
     << "; }\n"
     << "static inline int64_t " << n
     << "_rdispl_of(int me, int peer) { (void)me; (void)peer; return " << rd
     << "; }\n\n";
}

namespace {
/// NAME_sdispl_of / NAME_rdispl_of, for the operations on blocks.
struct Displacements : PlanVisitor<Displacements, void, llvm::raw_ostream &> {
  void visitBlocks(const OperationPlan &plan, llvm::raw_ostream &os) {
    emitBlockDisplacements(os, plan);
  }
  void visitPairSizes(const OperationPlan &plan, llvm::raw_ostream &os) {
    emitPairSizeDisplacements(os, plan);
  }
  void visitDataless(const OperationPlan &plan, llvm::raw_ostream &os) {
    emitBlockDisplacements(os, plan);
  }
  /// Arrays move elements: their index lists say where.
  void visitArrays(const OperationPlan &, llvm::raw_ostream &) {}
};
} // namespace

void detail::emitPlanData(llvm::raw_ostream &os, const OperationPlan &plan) {
  const std::string &n = plan.name;
  os << "#define " << n << "_P " << plan.numMembers() << "\n"
     << "#define " << n << "_NPHASES " << plan.phases.size() << "\n"
     << "#define " << n << "_MAXSEND " << std::max<int64_t>(1, maxSendsPerPhase(plan))
     << " /* most sends of a member in one phase */\n"
     << "#define " << n << "_MAXRECV " << std::max<int64_t>(1, maxRecvsPerPhase(plan))
     << " /* most receives of a member in one phase */\n";
  if (plan.localTranspose()) {
    // The member's whole slab is the block: RA x RB of A, rows NA apart,
    // into RB x RA of B, rows NB apart.
    bool rowsA = plan.fromDist == Distribution::Rows;
    int64_t p = plan.numMembers();
    int64_t ra = rowsA ? plan.n / p : plan.n;
    int64_t rb = rowsA ? plan.cols : plan.cols / p;
    os << "/* A local transpose: A by " << stringifyDistribution(plan.fromDist)
       << ", B by " << stringifyDistribution(plan.toDist)
       << ", so every member transposes its own slab. */\n"
       << "#define " << n << "_NA " << rb << " /* row length of A's slab */\n"
       << "#define " << n << "_NB " << ra << " /* row length of B's slab */\n"
       << "#define " << n << "_RA " << ra << " /* rows of A's slab */\n"
       << "#define " << n << "_RB " << rb << " /* rows of B's slab */\n"
       << "#define " << n << "_TILE " << std::max<int64_t>(1, plan.options.tile)
       << "\n";
  } else if (plan.isTranspose() && !plan.isSquare()) {
    os << "#define " << n << "_NA " << plan.cols << " /* columns of A */\n"
       << "#define " << n << "_NB " << plan.n << " /* columns of B */\n"
       << "#define " << n << "_RA " << plan.rowsPerMember()
       << " /* rows of A per member */\n"
       << "#define " << n << "_RB " << plan.colsPerMember()
       << " /* rows of B per member */\n"
       << "#define " << n << "_TILE " << std::max<int64_t>(1, plan.options.tile)
       << "\n";
  } else if (plan.isTranspose()) {
    os << "#define " << n << "_N " << plan.n << "\n#define " << n << "_R "
       << plan.rowsPerMember() << "\n#define " << n << "_TILE "
       << std::max<int64_t>(1, plan.options.tile) << "\n";
  } else if (plan.isElementPermute()) {
    os << "#define " << n << "_N " << plan.n << "\n#define " << n << "_L "
       << plan.n / plan.numMembers() << "\n";
  } else {
    os << "#define " << n << "_BLOCK " << plan.blockBytes << "\n";
  }
  if (plan.root >= 0)
    os << "#define " << n << "_ROOT " << plan.root << "\n";
  // Arrays move elements of a C type; blocks are bytes.
  if (isArrayOperation(plan.kind, plan.elementLevel))
    os << "typedef " << plan.elem.cType << " " << n << "_elem_t; /* "
       << plan.elem.name << " */\n";
  os << "\n";
  emitMemberMap(os, plan);
  // A local transpose has no phases, and no tables to read.
  if (!plan.localTranspose())
    emitPhaseData(os, plan);
  Displacements().dispatchPlanVisitor(plan, os);
  if (plan.runtimeDestinations()) {
    emitRuntimePermuteSupport(os, plan);
    return;
  }
  emitArrayData(os, plan);
}

void detail::emitPhaseLoop(
    llvm::raw_ostream &os, const OperationPlan &plan,
    llvm::function_ref<void(llvm::raw_ostream &, bool formula)> body) {
  const std::string &n = plan.name;
  if (plan.useFormulas) {
    os << "  for (int j = 0; j < " << n << "_NPHASES; ++j) {\n"
       << "    const int to = " << n << "_to(me, j), from = " << n
       << "_from(me, j);\n"
       << "    (void)to; (void)from;\n";
    body(os, true);
    os << "  }\n";
    return;
  }
  if (!plan.tableReps.empty() || plan.hasRules())
    os << "  " << n << "_expand(me);\n";
  os << "  const phasec_xfer_t *sp = " << n << "_sends[me], *const se = sp + "
     << n << "_nsends[me];\n"
     << "  const phasec_xfer_t *rp = " << n << "_recvs[me], *const re = rp + "
     << n << "_nrecvs[me];\n"
     << "  for (int j = 0; j < " << n << "_NPHASES; ++j) {\n"
     << "    /* This member's sends [s0, s1) and receives [r0, r1) of phase j. "
        "*/\n"
     << "    const phasec_xfer_t *const s0 = sp, *const r0 = rp;\n"
     << "    while (sp < se && sp->phase == j)\n      ++sp;\n"
     << "    while (rp < re && rp->phase == j)\n      ++rp;\n"
     << "    const phasec_xfer_t *const s1 = sp, *const r1 = rp;\n"
     << "    (void)s0; (void)s1; (void)r0; (void)r1;\n";
  body(os, false);
  os << "  }\n";
}

namespace {
/// The body of NAME_local: the data a member keeps.
class LocalCopy : public PlanVisitor<LocalCopy, std::string> {
public:
  /// Its own block, from and to the block of its index where a side has
  /// one per member; only at the root where a side is the root's.
  std::string visitBlocks(const OperationPlan &plan) {
    const std::string &n = plan.name;
    const CollectiveTraits &traits = plan.traits();
    std::string B = n + "_BLOCK", own = " + (int64_t)me * " + B;
    bool atRoot = traits.send.rootOnly() || traits.recv.rootOnly();
    return (atRoot ? "  if (me == " + n + "_ROOT)\n    " : "  ") + "memcpy(r" +
           (traits.recv.part == DataPart::PerMember ? own : "") + ", s" +
           (traits.send.part == DataPart::PerMember ? own : "") + ", " + B +
           ");\n";
  }
  std::string visitBlockPermute(const OperationPlan &plan) {
    const std::string &n = plan.name;
    return "  if (" + n + "_rperm(me) == me)\n    memcpy(r, s, " + n +
           "_BLOCK);\n";
  }
  std::string visitElementPermute(const OperationPlan &plan) {
    const std::string &n = plan.name;
    return "  " + n + "_pstore((" + n + "_elem_t *)r, (const " + n +
           "_elem_t *)s, me, me, 0, " + n + "_cnt[me * " + n + "_P + me]);\n";
  }
  std::string visitMatrix(const OperationPlan &plan) {
    const std::string &n = plan.name;
    TransposeShape sh = getTransposeShape(plan);
    if (plan.localTranspose())
      return "  " + n + "_tblock((" + n + "_elem_t *)r, " + sh.ldb +
             ", (const " + n + "_elem_t *)s, " + sh.lda + ");\n";
    return "  " + n + "_tblock((" + n + "_elem_t *)r + (int64_t)me * " + sh.db +
           ", " + sh.ldb + ", (const " + n + "_elem_t *)s + (int64_t)me * " +
           sh.sb + ", " + sh.lda + ");\n";
  }
  std::string visitPairSizes(const OperationPlan &plan) {
    const std::string &n = plan.name;
    return "  memcpy(r + " + n + "_rdispl[me][me], s + " + n +
           "_sdispl[me][me], (size_t)" + n + "_ssize[me][me]);\n";
  }
};
} // namespace

void detail::emitLocalCopy(llvm::raw_ostream &os, const OperationPlan &plan) {
  const std::string &n = plan.name;
  os << "/* The data member me keeps (no transfer). */\n"
     << "static inline void " << n
     << "_local(int me, const void *sendbuf, void *recvbuf) {\n"
     << "  const char *s = (const char *)sendbuf;\n"
     << "  char *r = (char *)recvbuf;\n  (void)s; (void)r; (void)me;\n";
  os << LocalCopy().dispatchPlanVisitor(plan);
  os << "}\n\n";
}

namespace {
/// The bytes member m reads from sendbuf, and how its buffers are laid out.
struct SendExtent : PlanVisitor<SendExtent, int64_t, int64_t> {
  int64_t visitBlocks(const OperationPlan &plan, int64_t m) {
    DataSide side = plan.traits().send;
    bool holds = side.holders == DataHolders::Every ||
                 (side.holders == DataHolders::Root && m == plan.root) ||
                 (side.holders == DataHolders::AllButFirst && m > 0);
    if (!holds || side.part == DataPart::None)
      return 0;
    return side.part == DataPart::PerMember
               ? plan.numMembers() * plan.blockBytes
               : plan.blockBytes;
  }
  int64_t visitPairSizes(const OperationPlan &plan, int64_t m) {
    int64_t p = plan.numMembers(), sum = 0;
    for (int64_t q = 0; q < p; ++q)
      sum += plan.sizes[m * p + q];
    return sum;
  }
  int64_t visitDataless(const OperationPlan &, int64_t) { return 0; }
  int64_t visitArrays(const OperationPlan &, int64_t) { return 0; }
};

/// "P blocks of B bytes (block d for member d)", as the side's part says.
std::string describeSide(const OperationPlan &plan, DataSide side,
                         llvm::StringRef what, llvm::StringRef toOrFrom) {
  if (side.part == DataPart::None)
    return "";
  std::string B = std::to_string(plan.blockBytes);
  // A relay's whole vector is all of its chunks.
  std::string whole = std::to_string(plan.relaying ? plan.chunks.totalBytes()
                                                   : plan.blockBytes);
  // A v-collective's blocks, member by member, where they differ.
  std::string sizes;
  if (plan.relaying && plan.traits().chunkParts == ChunkParts::PerMember) {
    std::vector<int64_t> blocks = plan.chunks.blockBytesByMember();
    if (llvm::any_of(blocks, [&](int64_t b) { return b != blocks.front(); })) {
      llvm::raw_string_ostream os(sizes);
      llvm::interleave(blocks, os, ", ");
    }
  }
  std::string text;
  if (!sizes.empty())
    text = side.part == DataPart::PerMember
               ? std::to_string(plan.numMembers()) +
                     " blocks back to back, block d " + toOrFrom.str() +
                     " member d, of " + sizes + " bytes"
               : "member m's block, of " + sizes + " bytes";
  else
    text = side.part == DataPart::PerMember
               ? std::to_string(plan.numMembers()) + " blocks of " + B +
                     " bytes, block d " + toOrFrom.str() + " member d"
           : side.part == DataPart::Own ? B + " bytes"
                                        : whole + " bytes";
  text = what.str() + ": " + text;
  if (side.rootOnly())
    text += " (at the root only)";
  else if (side.holders == DataHolders::AllButFirst)
    text += " (at members > 0 only)";
  return text;
}
} // namespace

void detail::emitInPlaceSupport(llvm::raw_ostream &os,
                                const OperationPlan &plan) {
  const std::string &n = plan.name;
  os << "/* The bytes member m's call reads from sendbuf; called in place "
        "(sendbuf ==\n   recvbuf), it copies them into "
     << n << "_stage first (grown as needed). */\n"
     << "static const int64_t " << n << "_sext[" << n << "_P] = {";
  for (int64_t m = 0; m < plan.numMembers(); ++m)
    os << (m ? ", " : "") << SendExtent().dispatchPlanVisitor(plan, m);
  os << "};\nstatic char *" << n << "_stage;\nstatic size_t " << n
     << "_stage_cap;\n\n";
}

void detail::emitStageInPlace(
    llvm::raw_ostream &os, const OperationPlan &plan,
    llvm::StringRef inPlaceConstant,
    llvm::function_ref<std::string(llvm::StringRef, llvm::StringRef)> alloc) {
  const std::string &n = plan.name;
  if (!inPlaceConstant.empty())
    os << "  if (sendbuf == " << inPlaceConstant << ")\n"
       << "    sendbuf = recvbuf;\n";
  os << "  if (sendbuf == recvbuf && " << n << "_sext[me] > 0) {\n"
     << "    /* In place: what arrives would overwrite data still to be sent. "
        "*/\n"
     << "    if (" << n << "_stage_cap < (size_t)" << n << "_sext[me]) {\n"
     << "      free(" << n << "_stage);\n"
     << "      " << n << "_stage = NULL;\n"
     << "      " << n << "_stage_cap = 0;\n"
     << "      " << alloc(n + "_stage", "(size_t)" + n + "_sext[me]") << ";\n"
     << "      " << n << "_stage_cap = (size_t)" << n << "_sext[me];\n"
     << "    }\n"
     << "    memcpy(" << n << "_stage, sendbuf, (size_t)" << n
     << "_sext[me]);\n"
     << "    sendbuf = " << n << "_stage;\n  }\n";
}

std::string detail::describeBuffers(const OperationPlan &plan,
                                    llvm::StringRef inPlaceConstant) {
  const CollectiveTraits &traits = plan.traits();
  std::string text;
  if (plan.traits().shape == DataShape::PairSizes) {
    text = "sendbuf: member m's row of " + plan.name +
           "'s size table, the data for member d at its displacement; "
           "recvbuf: the column, likewise. ";
  } else {
    std::string send = describeSide(plan, traits.send, "sendbuf", "for");
    std::string recv = describeSide(plan, traits.recv, "recvbuf", "from");
    if (!send.empty())
      text += send + "; ";
    if (!recv.empty())
      text += recv + "; ";
  }
  text += "the buffers must not overlap, except that they may be one buffer "
          "(sendbuf == recvbuf";
  if (!inPlaceConstant.empty())
    text += ", or sendbuf " + inPlaceConstant.str();
  text += "): the call then copies its input first.";
  return wrapComment(text);
}

std::string detail::wrapComment(llvm::StringRef text) {
  std::string out, line = "  ";
  llvm::SmallVector<llvm::StringRef> words;
  text.split(words, ' ', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef w : words) {
    if (line.size() + 1 + w.size() > 78 && line.size() > 2) {
      out += line + "\n";
      line = "  ";
    }
    line += " " + w.str();
  }
  return out + line;
}
