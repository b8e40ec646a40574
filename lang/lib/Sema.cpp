//===- Sema.cpp - Checking and evaluation of .sched programs --------------===//
//
// Part of phasec, the .sched language front end.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Sema turns the syntax tree into the evaluated Program of AST.h: it
/// resolves names, evaluates every expression with overflow-checked 64-bit
/// integer arithmetic, converts units, enumerates groups, computes size
/// matrices and permutation tables, and unrolls hand-written schedules. All
/// work is bounded by FrontendOptions' limits so that no input can make it
/// run away; exceeding a limit is a user error.
///
/// Errors are reported where they occur and Sema carries on with the next
/// declaration, so one run reports several independent errors.
///
//===----------------------------------------------------------------------===//

#include "Syntax.h"
#include "phasec/Lang/AST.h"
#include "phasec/Lang/Diagnostics.h"
#include "phasec/Lang/Parser.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <optional>

using namespace phasec::lang;
using namespace phasec::lang::syntax;
using llvm::SMLoc;
using llvm::StringRef;
using llvm::Twine;

namespace {

std::string joinNames(llvm::ArrayRef<StringRef> names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i)
      out += ", ";
    out += names[i].str();
  }
  return out;
}

/// Deterministic 64-bit generator for `random(seed)` permutations
/// (SplitMix64; documented in docs/language.md so that other tools can
/// reproduce the permutation).
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

/// An evaluated integer, or std::nullopt after an error has been reported.
using OptInt = std::optional<int64_t>;

/// A keyword-like value, written `name` or `name(args...)`: topologies,
/// routings, permutation patterns and algorithms take both forms.
struct NamedValue {
  StringRef name;
  llvm::ArrayRef<ExprPtr> args;
  bool isCall;
  SMLoc loc;
};

std::optional<NamedValue> asNamedValue(const Expr *e) {
  if (auto *id = llvm::dyn_cast_or_null<IdentExpr>(e))
    return NamedValue{id->name, {}, /*isCall=*/false, id->getLoc()};
  if (auto *call = llvm::dyn_cast_or_null<CallExpr>(e))
    return NamedValue{call->callee, call->args, /*isCall=*/true,
                      call->getLoc()};
  return std::nullopt;
}

/// The text an "unknown routing" error quotes: the value's name, string or
/// operator ("" for a number).
std::string spelling(const Expr &e) {
  switch (e.getKind()) {
  case Expr::Expr_Ident:
    return llvm::cast<IdentExpr>(e).name;
  case Expr::Expr_Call:
    return llvm::cast<CallExpr>(e).callee;
  case Expr::Expr_String:
    return llvm::cast<StringExpr>(e).value;
  case Expr::Expr_Unary:
    return llvm::cast<UnaryExpr>(e).op;
  case Expr::Expr_Binary:
    return llvm::cast<BinaryExpr>(e).op;
  default:
    return "";
  }
}

/// Whether `e` is the bare name `name`.
bool isName(const Expr *e, StringRef name) {
  auto *id = llvm::dyn_cast_or_null<IdentExpr>(e);
  return id && id->name == name;
}

class Sema {
public:
  Sema(const Module &mod, const FrontendOptions &opts, DiagnosticEngine &diag)
      : mod(mod), opts(opts), diag(diag) {}

  std::unique_ptr<Program> run();

private:
  const Module &mod;
  const FrontendOptions &opts;
  DiagnosticEngine &diag;
  std::unique_ptr<Program> prog;

  struct ConstInfo {
    int64_t value;
    SMLoc loc;
  };
  llvm::StringMap<ConstInfo> constants;

  /// Evaluation environment: the machine whose coordinates are in scope and
  /// a stack of bound variables (innermost last).
  struct Env {
    const Machine *machine = nullptr;
    std::vector<std::pair<std::string, int64_t>> vars;
    /// The operation's group (for member() and group_size), if any.
    const Group *group = nullptr;
  };

  uint64_t iterations = 0;
  bool iterationLimitHit = false;
  uint64_t unrolledTransfers = 0;

  //===------------------------------------------------------------------===//
  // Expression evaluation
  //===------------------------------------------------------------------===//

  bool countIteration(SMLoc loc) {
    if (++iterations <= opts.maxLoopIterations)
      return true;
    if (!iterationLimitHit)
      diag.error(loc, "evaluation exceeds the limit of " +
                          Twine(opts.maxLoopIterations) +
                          " loop iterations; reduce the loop bounds");
    iterationLimitHit = true;
    return false;
  }

  OptInt fail(SMLoc loc, const Twine &msg) {
    diag.error(loc, msg);
    return std::nullopt;
  }

  OptInt lookupVar(const IdentExpr &e, Env &env) {
    SMLoc loc = e.getLoc();
    for (auto it = env.vars.rbegin(); it != env.vars.rend(); ++it)
      if (it->first == e.name)
        return it->second;
    auto c = constants.find(e.name);
    if (c != constants.end())
      return c->second.value;
    if (const Machine *m = env.machine) {
      if (e.name == "num_nodes")
        return m->numNodes();
      if (e.name == "num_ranks")
        return m->numRanks();
      if (e.name == "ranks_per_node")
        return m->ranksPerNode;
    }
    if (env.group && e.name == "group_size")
      return env.group->size();
    StringRef name = e.name;
    bool coordName = name == "x" || name == "y" || name == "z" || name == "w" ||
                     (name.size() > 1 && name[0] == 'd' &&
                      llvm::all_of(name.drop_front(), llvm::isDigit));
    if (const Machine *m = env.machine; m && coordName) {
      if (m->kind == TopologyKind::Percs)
        return fail(loc, "unknown name '" + name +
                             "' (PERCS nodes have the coordinates "
                             "supernode, drawer and index)");
      return fail(loc, "unknown name '" + name + "' (machine '" + m->name +
                           "' has " + Twine(m->numDims()) +
                           " dimensions: coordinates d0..d" +
                           Twine(m->numDims() - 1) +
                           ", x, y, z, w for the "
                           "first four)");
    }
    return fail(loc, "unknown name '" + e.name + "'");
  }

  OptInt evalCall(const CallExpr &e, Env &env) {
    SMLoc loc = e.getLoc();
    auto nargs = [&](size_t n) -> bool {
      if (e.args.size() == n)
        return true;
      diag.error(loc, "'" + e.callee + "' takes " + Twine(n) +
                          " argument(s), got " + Twine(e.args.size()));
      return false;
    };
    llvm::SmallVector<int64_t, 4> a;
    auto evalArgs = [&]() -> bool {
      for (const auto &arg : e.args) {
        OptInt v = evalInt(*arg, env);
        if (!v)
          return false;
        a.push_back(*v);
      }
      return true;
    };
    const Machine *m = env.machine;
    auto needMachine = [&]() -> bool {
      if (m)
        return true;
      diag.error(loc, "'" + e.callee + "' needs a machine in scope");
      return false;
    };
    if (e.callee == "min" || e.callee == "max") {
      if (e.args.empty())
        return fail(loc, "'" + e.callee + "' needs at least one argument");
      if (!evalArgs())
        return std::nullopt;
      return e.callee == "min" ? *std::min_element(a.begin(), a.end())
                               : *std::max_element(a.begin(), a.end());
    }
    if (e.callee == "abs") {
      if (!nargs(1) || !evalArgs())
        return std::nullopt;
      if (a[0] == INT64_MIN)
        return fail(loc, "integer overflow in 'abs'");
      return a[0] < 0 ? -a[0] : a[0];
    }
    if (e.callee == "log2") {
      if (!nargs(1) || !evalArgs())
        return std::nullopt;
      if (a[0] <= 0)
        return fail(loc, "log2 of a non-positive value (" + Twine(a[0]) + ")");
      return static_cast<int64_t>(63 - __builtin_clzll(a[0]));
    }
    if (e.callee == "rank") {
      if (!nargs(2) || !evalArgs() || !needMachine())
        return std::nullopt;
      if (a[0] < 0 || a[0] >= m->numNodes())
        return fail(loc, "node " + Twine(a[0]) + " does not exist (machine '" +
                             m->name + "' has " + Twine(m->numNodes()) +
                             " nodes)");
      if (a[1] < 0 || a[1] >= m->ranksPerNode)
        return fail(loc, "core " + Twine(a[1]) + " does not exist (machine '" +
                             m->name + "' has " + Twine(m->ranksPerNode) +
                             " ranks per node)");
      return a[0] * m->ranksPerNode + a[1];
    }
    if (e.callee == "node_of" || e.callee == "core_of") {
      if (!nargs(1) || !evalArgs() || !needMachine())
        return std::nullopt;
      if (a[0] < 0 || a[0] >= m->numRanks())
        return fail(loc, "rank " + Twine(a[0]) + " does not exist (machine '" +
                             m->name + "' has " + Twine(m->numRanks()) +
                             " ranks)");
      return e.callee == "node_of" ? a[0] / m->ranksPerNode
                                   : a[0] % m->ranksPerNode;
    }
    if (e.callee == "coord") {
      if (!nargs(2) || !evalArgs() || !needMachine())
        return std::nullopt;
      if (m->kind == TopologyKind::Percs)
        return fail(loc, "'coord' needs a torus, mesh or hypercube");
      if (a[0] < 0 || a[0] >= m->numNodes())
        return fail(loc, "node " + Twine(a[0]) + " does not exist");
      if (a[1] < 0 || a[1] >= m->numDims())
        return fail(loc, "dimension " + Twine(a[1]) + " does not exist");
      return m->coord(a[0], static_cast<unsigned>(a[1]));
    }
    if (e.callee == "node_at") {
      if (!evalArgs() || !needMachine())
        return std::nullopt;
      if (m->kind == TopologyKind::Percs) {
        if (a.size() != 3)
          return fail(loc, "'node_at' on a PERCS machine takes (supernode, "
                           "drawer, index)");
        if (a[0] < 0 || a[0] >= m->supernodes || a[1] < 0 ||
            a[1] >= m->drawers || a[2] < 0 || a[2] >= m->nodesPerDrawer)
          return fail(loc, "PERCS coordinates out of range");
        return (a[0] * m->drawers + a[1]) * m->nodesPerDrawer + a[2];
      }
      if (a.size() != m->numDims())
        return fail(loc, "'node_at' takes " + Twine(m->numDims()) +
                             " coordinates on machine '" + m->name + "'");
      int64_t node = 0, stride = 1;
      for (unsigned d = 0; d < a.size(); ++d) {
        if (a[d] < 0 || a[d] >= m->dims[d])
          return fail(loc, "coordinate " + Twine(a[d]) + " of dimension " +
                               Twine(d) + " is out of range");
        node += a[d] * stride;
        stride *= m->dims[d];
      }
      return node;
    }
    if (e.callee == "member") {
      if (!nargs(1) || !evalArgs())
        return std::nullopt;
      if (!env.group)
        return fail(loc, "'member' needs an operation's group in scope");
      if (a[0] < 0 || a[0] >= env.group->size())
        return fail(loc, "member index " + Twine(a[0]) + " is outside group '" +
                             env.group->name + "' of " +
                             Twine(env.group->size()) + " ranks");
      return env.group->ranks[a[0]];
    }
    return fail(loc, "unknown function '" + e.callee + "'");
  }

  OptInt evalInt(const Expr &e, Env &env) {
    switch (e.getKind()) {
    case Expr::Expr_Int:
      return llvm::cast<IntExpr>(e).value;
    case Expr::Expr_Error:
      return std::nullopt;
    case Expr::Expr_Float:
      return fail(e.getLoc(), "expected an integer, not a decimal number");
    case Expr::Expr_String:
      return fail(e.getLoc(), "expected an integer, not a string");
    case Expr::Expr_Ident:
      return lookupVar(llvm::cast<IdentExpr>(e), env);
    case Expr::Expr_Call:
      return evalCall(llvm::cast<CallExpr>(e), env);
    case Expr::Expr_Unary:
      return evalUnary(llvm::cast<UnaryExpr>(e), env);
    case Expr::Expr_Binary:
      return evalBinary(llvm::cast<BinaryExpr>(e), env);
    }
    llvm_unreachable("unknown expression kind");
  }

  OptInt evalUnary(const UnaryExpr &e, Env &env) {
    SMLoc loc = e.getLoc();
    OptInt v = evalInt(*e.operand, env);
    if (!v)
      return std::nullopt;
    if (e.op == "-") {
      if (*v == INT64_MIN)
        return fail(loc, "integer overflow");
      return -*v;
    }
    if (e.op == "!")
      return static_cast<int64_t>(*v == 0);
    return ~*v;
  }

  OptInt evalBinary(const BinaryExpr &e, Env &env) {
    SMLoc loc = e.getLoc();
    // Short-circuit operators first.
    if (e.op == "&&" || e.op == "||") {
      OptInt l = evalInt(*e.lhs, env);
      if (!l)
        return std::nullopt;
      if (e.op == "&&" && *l == 0)
        return 0;
      if (e.op == "||" && *l != 0)
        return 1;
      OptInt r = evalInt(*e.rhs, env);
      if (!r)
        return std::nullopt;
      return static_cast<int64_t>(*r != 0);
    }
    OptInt l = evalInt(*e.lhs, env);
    if (!l)
      return std::nullopt;
    OptInt r = evalInt(*e.rhs, env);
    if (!r)
      return std::nullopt;
    int64_t x = *l, y = *r, out = 0;
    StringRef op = e.op;
    if (op == "+") {
      if (__builtin_add_overflow(x, y, &out))
        return fail(loc, "integer overflow in '+'");
      return out;
    }
    if (op == "-") {
      if (__builtin_sub_overflow(x, y, &out))
        return fail(loc, "integer overflow in '-'");
      return out;
    }
    if (op == "*") {
      if (__builtin_mul_overflow(x, y, &out))
        return fail(loc, "integer overflow in '*'");
      return out;
    }
    if (op == "/" || op == "%") {
      if (y == 0)
        return fail(loc, "division by zero");
      if (x == INT64_MIN && y == -1)
        return fail(loc, "integer overflow in '" + op + "'");
      if (op == "/")
        return x / y;
      // Mathematical modulo: the result has the sign of the divisor, so
      // `(node - 1) % n` stays in range.
      int64_t m = x % y;
      if (m != 0 && ((m < 0) != (y < 0)))
        m += y;
      return m;
    }
    if (op == "<<" || op == ">>") {
      if (y < 0 || y > 62)
        return fail(loc, "shift amount " + Twine(y) + " is out of range 0..62");
      if (op == ">>")
        return x >> y;
      if (x < 0 || x > (INT64_MAX >> y))
        return fail(loc, "integer overflow in '<<'");
      return x << y;
    }
    if (op == "<")
      return static_cast<int64_t>(x < y);
    if (op == "<=")
      return static_cast<int64_t>(x <= y);
    if (op == ">")
      return static_cast<int64_t>(x > y);
    if (op == ">=")
      return static_cast<int64_t>(x >= y);
    if (op == "==")
      return static_cast<int64_t>(x == y);
    if (op == "!=")
      return static_cast<int64_t>(x != y);
    if (op == "&")
      return x & y;
    if (op == "^")
      return x ^ y;
    if (op == "|")
      return x | y;
    llvm_unreachable("operator not in the grammar");
  }

  /// Real-valued evaluation for rates and times: decimal literals and
  /// + - * / over them; everything else is an integer expression.
  std::optional<double> evalReal(const Expr &e, Env &env) {
    if (auto *f = llvm::dyn_cast<FloatExpr>(&e))
      return f->value;
    if (auto *u = llvm::dyn_cast<UnaryExpr>(&e); u && u->op == "-") {
      auto v = evalReal(*u->operand, env);
      if (!v)
        return std::nullopt;
      return -*v;
    }
    auto *b = llvm::dyn_cast<BinaryExpr>(&e);
    if (b && (b->op == "+" || b->op == "-" || b->op == "*" || b->op == "/") &&
        (hasFloat(*b->lhs) || hasFloat(*b->rhs))) {
      auto l = evalReal(*b->lhs, env);
      if (!l)
        return std::nullopt;
      auto r = evalReal(*b->rhs, env);
      if (!r)
        return std::nullopt;
      double out = 0;
      if (b->op == "+")
        out = *l + *r;
      else if (b->op == "-")
        out = *l - *r;
      else if (b->op == "*")
        out = *l * *r;
      else {
        if (*r == 0) {
          diag.error(b->getLoc(), "division by zero");
          return std::nullopt;
        }
        out = *l / *r;
      }
      if (!std::isfinite(out)) {
        diag.error(b->getLoc(), "number out of range");
        return std::nullopt;
      }
      return out;
    }
    OptInt v = evalInt(e, env);
    if (!v)
      return std::nullopt;
    return static_cast<double>(*v);
  }
  static bool hasFloat(const Expr &e) {
    switch (e.getKind()) {
    case Expr::Expr_Float:
      return true;
    case Expr::Expr_Call:
      return llvm::any_of(llvm::cast<CallExpr>(e).args,
                          [](const ExprPtr &a) { return hasFloat(*a); });
    case Expr::Expr_Unary:
      return hasFloat(*llvm::cast<UnaryExpr>(e).operand);
    case Expr::Expr_Binary: {
      const auto &b = llvm::cast<BinaryExpr>(e);
      return hasFloat(*b.lhs) || hasFloat(*b.rhs);
    }
    default:
      return false;
    }
  }

  //===------------------------------------------------------------------===//
  // Units
  //===------------------------------------------------------------------===//

  static std::optional<double> sizeUnit(StringRef u) {
    return llvm::StringSwitch<std::optional<double>>(u)
        .Case("B", 1.0)
        .Case("KiB", 1024.0)
        .Case("MiB", 1024.0 * 1024)
        .Case("GiB", 1024.0 * 1024 * 1024)
        .Case("KB", 1e3)
        .Case("MB", 1e6)
        .Case("GB", 1e9)
        .Default(std::nullopt);
  }
  static std::optional<double> rateUnit(StringRef u) {
    if (!u.consume_back("/s"))
      return std::nullopt;
    return sizeUnit(u);
  }
  static std::optional<double> timeUnit(StringRef u) {
    return llvm::StringSwitch<std::optional<double>>(u)
        .Case("ns", 1e-9)
        .Case("us", 1e-6)
        .Case("ms", 1e-3)
        .Case("s", 1.0)
        .Default(std::nullopt);
  }

  void badUnit(const Value &v, StringRef what, StringRef valid) {
    SMLoc at = v.unitLoc.isValid() ? v.unitLoc : v.loc;
    if (v.unit.empty())
      diag.error(at, Twine(what) + " needs a unit (" + valid + ")");
    else
      diag.error(at, "bad unit '" + v.unit + "' for " + what + "; expected " +
                         valid);
  }

  /// A size in bytes: an integer expression with an optional size unit
  /// (none = bytes). Must be positive unless `allowZero`.
  OptInt evalSize(const Value &v, Env &env, StringRef what,
                  bool allowZero = false) {
    if (!v.expr)
      return std::nullopt;
    double scale = 1;
    if (!v.unit.empty()) {
      auto s = sizeUnit(v.unit);
      if (!s) {
        badUnit(v, what, "B, KiB, MiB, GiB, KB, MB, GB");
        return std::nullopt;
      }
      scale = *s;
    }
    OptInt n = evalInt(*v.expr, env);
    if (!n)
      return std::nullopt;
    int64_t out = 0;
    if (__builtin_mul_overflow(*n, static_cast<int64_t>(scale), &out))
      return fail(v.loc, Twine(what) + " is too large");
    if (out < 0 || (out == 0 && !allowZero))
      return fail(v.loc, Twine(what) + " must be positive, got " + Twine(out) +
                             " bytes");
    return out;
  }

  std::optional<double> evalScaled(const Value &v, Env &env, StringRef what,
                                   bool rate) {
    if (!v.expr)
      return std::nullopt;
    auto s = rate ? rateUnit(v.unit) : timeUnit(v.unit);
    if (!s) {
      badUnit(v, what,
              rate ? "B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s"
                   : "ns, us, ms, s");
      return std::nullopt;
    }
    auto x = evalReal(*v.expr, env);
    if (!x)
      return std::nullopt;
    double out = *x * *s;
    if (!std::isfinite(out) || out < 0 || (rate && out == 0)) {
      diag.error(v.loc, Twine(what) + " must be " +
                            (rate ? "positive" : "non-negative"));
      return std::nullopt;
    }
    return out;
  }

  OptInt evalPlainInt(const Value &v, Env &env, StringRef what) {
    if (!v.expr)
      return std::nullopt;
    if (!v.unit.empty()) {
      diag.error(v.unitLoc,
                 "bad unit '" + v.unit + "': " + what + " is a plain integer");
      return std::nullopt;
    }
    return evalInt(*v.expr, env);
  }

  /// The identifier a value names (`barrier`, `rows`), or "" after an error.
  std::string identValue(const Value &v, StringRef what) {
    if (!v.expr)
      return "";
    auto *id = llvm::dyn_cast<IdentExpr>(v.expr.get());
    if (!id || !v.unit.empty()) {
      diag.error(v.loc, "expected a name for " + what);
      return "";
    }
    return id->name;
  }

  void unknownValue(const Value &v, StringRef what, StringRef got,
                    StringRef valid) {
    diag.error(v.loc, "unknown " + what + " '" + got + "'");
    diag.note(v.loc, "valid values: " + valid);
  }

  //===------------------------------------------------------------------===//
  // Declarations
  //===------------------------------------------------------------------===//

  void checkConstants();
  void checkMachines();
  bool applyTopologyOverride();
  void checkGroups();
  void checkArrays();
  void checkOps();

  /// Overrides parsed from the command line.
  bool haveOverride = false;
  TopologyKind ovKind = TopologyKind::Torus;
  llvm::SmallVector<int64_t, 4> ovDims;
  int64_t ovSupernodes = 0, ovDrawers = 0, ovNodes = 0;

  bool finishMachine(Machine &m, bool hasRouting, const Property *routingProp);
  bool setTopology(Machine &m, const Value &v);

  const Machine *defaultMachine(SMLoc loc, StringRef what);
  const Group *resolveTarget(const Target &t, const Machine *machineHint,
                             StringRef what, SMLoc declLoc);

  bool checkOp(const OpDecl &d, Operation &op);
  bool runSchedule(const OpDecl &d, Operation &op);
  bool execBlock(const StmtList &body, Env &env, Operation &op, Phase *phase,
                 unsigned depth);
  void verifySchedule(Operation &op);
  bool buildPermutation(const Property &p, Operation &op, int64_t n);
  bool readIntegers(const std::string &file, SMLoc loc,
                    std::vector<int64_t> &out, int64_t expected,
                    StringRef what);
};

} // namespace

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

void Sema::checkConstants() {
  for (const ConstDecl &c : mod.constants) {
    auto prev = constants.find(c.name);
    if (prev != constants.end()) {
      diag.error(c.loc, "duplicate constant '" + c.name + "'");
      diag.note(prev->second.loc, "previous definition is here");
      continue;
    }
    Env env;
    OptInt v;
    auto override = llvm::find_if(opts.constantOverrides, [&](const auto &o) {
      return o.first == c.name;
    });
    if (override != opts.constantOverrides.end()) {
      v = override->second;
    } else if (c.value.unit.empty()) {
      v = c.value.expr ? evalInt(*c.value.expr, env) : std::nullopt;
    } else {
      v = evalSize(c.value, env, "constant '" + c.name + "'",
                   /*allowZero=*/true);
    }
    if (!v)
      continue;
    constants[c.name] = ConstInfo{*v, c.loc};
    auto k = std::make_unique<Constant>();
    k->name = c.name;
    k->loc = c.loc;
    k->value = *v;
    prog->constants.push_back(std::move(k));
  }
  for (const auto &[name, value] : opts.constantOverrides)
    if (!llvm::any_of(mod.constants,
                      [&](const ConstDecl &c) { return c.name == name; }))
      diag.commandLineError("--define " + name + "=" + Twine(value) +
                            ": the program has no constant '" + name + "'");
}

//===----------------------------------------------------------------------===//
// Machines
//===----------------------------------------------------------------------===//

bool Sema::setTopology(Machine &m, const Value &v) {
  if (!v.expr)
    return false;
  m.topologyLoc = v.loc;
  std::optional<NamedValue> topology = asNamedValue(v.expr.get());
  if (!topology) {
    diag.error(v.loc, "expected torus(...), mesh(...), hypercube(n) or "
                      "percs(supernodes, drawers, nodes_per_drawer)");
    return false;
  }
  StringRef kind = topology->name;
  Env env;
  llvm::SmallVector<int64_t, 4> args;
  for (const auto &a : topology->args) {
    OptInt x = evalInt(*a, env);
    if (!x)
      return false;
    if (*x <= 0) {
      diag.error(a->getLoc(),
                 "topology extents must be positive, got " + Twine(*x));
      return false;
    }
    args.push_back(*x);
  }
  m.dims.clear();
  if (kind == "torus" || kind == "mesh") {
    if (args.empty() || args.size() > 16) {
      diag.error(v.loc, Twine(kind) + " takes 1 to 16 extents");
      return false;
    }
    m.kind = kind == "torus" ? TopologyKind::Torus : TopologyKind::Mesh;
    m.dims.assign(args.begin(), args.end());
    return true;
  }
  if (kind == "hypercube") {
    if (args.size() != 1 || args[0] > 30) {
      diag.error(v.loc, "hypercube takes one dimension count from 1 to 30");
      return false;
    }
    m.kind = TopologyKind::Hypercube;
    m.dims.assign(args[0], 2);
    return true;
  }
  if (kind == "percs") {
    if (args.size() != 3) {
      diag.error(v.loc, "percs takes (supernodes, drawers, nodes_per_drawer)");
      return false;
    }
    m.kind = TopologyKind::Percs;
    m.supernodes = args[0];
    m.drawers = args[1];
    m.nodesPerDrawer = args[2];
    return true;
  }
  diag.error(v.loc, "unknown topology '" + kind + "'");
  diag.note(v.loc, "valid topologies: torus, mesh, hypercube, percs");
  return false;
}

bool Sema::applyTopologyOverride() {
  if (opts.topologyOverride.empty())
    return true;
  StringRef spec(opts.topologyOverride);
  auto [kind, rest] = spec.split(':');
  auto bad = [&](const Twine &why) {
    diag.commandLineError("invalid --topology '" + spec + "': " + why);
    return false;
  };
  auto parsePositive = [&](StringRef s, int64_t &out) {
    return !s.getAsInteger(10, out) && out > 0 && out <= (1 << 22);
  };
  if (kind == "torus" || kind == "mesh") {
    llvm::SmallVector<StringRef, 4> parts;
    rest.split(parts, 'x');
    if (rest.empty() || parts.size() > 16)
      return bad("expected extents like 8x4x8x2");
    for (StringRef p : parts) {
      int64_t x;
      if (!parsePositive(p, x))
        return bad("extent '" + p + "' is not a positive integer");
      ovDims.push_back(x);
    }
    ovKind = kind == "torus" ? TopologyKind::Torus : TopologyKind::Mesh;
  } else if (kind == "hypercube") {
    int64_t n;
    if (!parsePositive(rest, n) || n > 30)
      return bad("expected a dimension count from 1 to 30");
    ovKind = TopologyKind::Hypercube;
    ovDims.assign(n, 2);
  } else if (kind == "percs") {
    llvm::SmallVector<StringRef, 3> parts;
    rest.split(parts, ',');
    ovSupernodes = 1;
    for (StringRef p : parts) {
      auto [key, val] = p.split('=');
      int64_t x;
      if (!parsePositive(val, x))
        return bad("'" + p + "' needs a positive integer value");
      if (key == "supernodes")
        ovSupernodes = x;
      else if (key == "drawers")
        ovDrawers = x;
      else if (key == "nodes")
        ovNodes = x;
      else
        return bad("unknown key '" + key + "' (supernodes, drawers, nodes)");
    }
    if (!ovDrawers || !ovNodes)
      return bad("percs needs drawers= and nodes=");
    ovKind = TopologyKind::Percs;
  } else {
    return bad("unknown topology kind '" + kind +
               "' (torus, mesh, hypercube, percs)");
  }
  haveOverride = true;
  return true;
}

bool Sema::finishMachine(Machine &m, bool hasRouting,
                         const Property *routingProp) {
  bool ok = true;
  if (haveOverride) {
    m.kind = ovKind;
    m.dims = ovDims;
    m.supernodes = ovSupernodes;
    m.drawers = ovDrawers;
    m.nodesPerDrawer = ovNodes;
    if (!m.topologyLoc.isValid())
      m.topologyLoc = m.loc;
  }
  if (opts.ranksPerNodeOverride > 0)
    m.ranksPerNode = opts.ranksPerNodeOverride;
  if (!m.topologyLoc.isValid()) {
    diag.error(m.loc, "machine '" + m.name + "' has no topology");
    return false;
  }
  // Size limits, overflow-safe.
  int64_t nodes = 1;
  auto mulCheck = [&](int64_t x) {
    if (__builtin_mul_overflow(nodes, x, &nodes) || nodes > opts.maxRanks)
      nodes = opts.maxRanks + 1;
  };
  if (m.kind == TopologyKind::Percs) {
    mulCheck(m.supernodes);
    mulCheck(m.drawers);
    mulCheck(m.nodesPerDrawer);
  } else {
    for (int64_t x : m.dims)
      mulCheck(x);
  }
  mulCheck(m.ranksPerNode);
  if (nodes > opts.maxRanks) {
    diag.error(m.topologyLoc, "machine '" + m.name + "' has more than " +
                                  Twine(opts.maxRanks) +
                                  " ranks, which is not supported");
    return false;
  }
  if (m.kind == TopologyKind::Percs) {
    if (m.bandwidth > 0 && haveOverride) {
      // A grid machine turned into PERCS by --topology: its one link rate
      // and latency apply to every link class not given.
      for (double *bw : {&m.llBandwidth, &m.lrBandwidth, &m.dBandwidth})
        if (*bw == 0)
          *bw = m.bandwidth;
      for (double *lat : {&m.llLatency, &m.lrLatency, &m.dLatency})
        if (*lat == 0)
          *lat = m.latency;
      m.bandwidth = 0;
      m.latency = 0;
    } else if (m.bandwidth > 0) {
      diag.error(m.loc, "PERCS machine '" + m.name +
                            "' takes bandwidth.LL, bandwidth.LR and "
                            "bandwidth.D instead of one bandwidth");
      ok = false;
    }
    // Seed 002's link rates unless given.
    if (m.llBandwidth == 0)
      m.llBandwidth = 24e9;
    if (m.lrBandwidth == 0)
      m.lrBandwidth = 5e9;
    if (m.dBandwidth == 0)
      m.dBandwidth = 10e9;
    if (hasRouting && routingProp &&
        !isName(routingProp->value.expr.get(), "direct") && !haveOverride) {
      diag.error(routingProp->loc,
                 "PERCS machines route directly; use 'routing = direct'");
      ok = false;
    }
    m.routing = RoutingKind::Direct;
    m.dimOrder.clear();
  } else {
    if (haveOverride && m.bandwidth == 0 && m.llBandwidth > 0) {
      // A PERCS machine turned into a grid by --topology: its LL links
      // (the fastest class) stand for the grid's links.
      m.bandwidth = m.llBandwidth;
      m.latency = m.llLatency;
    }
    if (haveOverride) {
      m.llBandwidth = m.lrBandwidth = m.dBandwidth = 0;
      m.llLatency = m.lrLatency = m.dLatency = 0;
    }
    if (m.llBandwidth > 0 || m.lrBandwidth > 0 || m.dBandwidth > 0) {
      diag.error(m.loc, "link classes LL, LR and D exist only on PERCS "
                        "machines; use 'bandwidth'");
      ok = false;
    }
    if (m.bandwidth == 0) {
      diag.error(m.loc, "machine '" + m.name +
                            "' needs a link bandwidth ('bandwidth = ...')");
      ok = false;
    }
    unsigned n = m.numDims();
    if (m.routing == RoutingKind::Direct) {
      diag.error(routingProp ? routingProp->loc : m.loc,
                 "direct routing exists only on PERCS machines");
      ok = false;
    }
    m.routing = RoutingKind::DimensionOrder;
    // An override may change the number of dimensions: the file's order no
    // longer applies then.
    if (m.dimOrder.size() != n || (haveOverride && hasRouting)) {
      if (!m.dimOrder.empty() && !haveOverride) {
        diag.error(routingProp ? routingProp->loc : m.loc,
                   "dimension order lists " + Twine(m.dimOrder.size()) +
                       " dimensions, but machine '" + m.name + "' has " +
                       Twine(n));
        ok = false;
      }
      m.dimOrder.clear();
      for (unsigned i = 0; i < n; ++i)
        m.dimOrder.push_back(i);
    }
  }
  return ok;
}

void Sema::checkMachines() {
  bool overrideOk = applyTopologyOverride();
  for (const MachineDecl &d : mod.machines) {
    if (const Machine *prev = prog->lookupMachine(d.name)) {
      diag.error(d.loc, "duplicate machine '" + d.name + "'");
      diag.note(prev->loc, "previous definition is here");
      continue;
    }
    auto m = std::make_unique<Machine>();
    m->name = d.name;
    m->loc = d.loc;
    bool ok = overrideOk;
    bool hasRouting = false;
    const Property *routingProp = nullptr;
    llvm::StringMap<SMLoc> seen;
    Env env;
    for (const Property &p : d.props) {
      std::string key = p.sub.empty() ? p.key : p.key + "." + p.sub;
      auto [it, inserted] = seen.try_emplace(key, p.loc);
      if (!inserted) {
        diag.error(p.loc, "duplicate property '" + key + "'");
        diag.note(it->second, "previous definition is here");
        ok = false;
        continue;
      }
      auto setRate = [&](double &field, StringRef what) {
        auto v = evalScaled(p.value, env, what, /*rate=*/true);
        if (v)
          field = *v;
        else
          ok = false;
      };
      auto setTime = [&](double &field, StringRef what) {
        auto v = evalScaled(p.value, env, what, /*rate=*/false);
        if (v)
          field = *v;
        else
          ok = false;
      };
      if (p.key == "topology" && p.sub.empty()) {
        ok &= setTopology(*m, p.value);
      } else if (p.key == "bandwidth" || p.key == "latency") {
        bool bw = p.key == "bandwidth";
        if (p.sub.empty())
          bw ? setRate(m->bandwidth, "bandwidth")
             : setTime(m->latency, "latency");
        else if (p.sub == "LL")
          bw ? setRate(m->llBandwidth, "bandwidth")
             : setTime(m->llLatency, "latency");
        else if (p.sub == "LR")
          bw ? setRate(m->lrBandwidth, "bandwidth")
             : setTime(m->lrLatency, "latency");
        else if (p.sub == "D")
          bw ? setRate(m->dBandwidth, "bandwidth")
             : setTime(m->dLatency, "latency");
        else {
          diag.error(p.loc, "unknown link class '" + p.sub + "'");
          diag.note(p.loc, "valid link classes: LL, LR, D (PERCS)");
          ok = false;
        }
      } else if (p.key == "injection" && p.sub.empty()) {
        setRate(m->injectionBandwidth, "injection bandwidth");
      } else if (p.key == "ranks_per_node" && p.sub.empty()) {
        OptInt v = evalPlainInt(p.value, env, "ranks_per_node");
        if (v && (*v <= 0 || *v > opts.maxRanks)) {
          diag.error(p.value.loc, "ranks_per_node must be between 1 and " +
                                      Twine(opts.maxRanks) + ", got " +
                                      Twine(*v));
          v.reset();
        }
        if (v)
          m->ranksPerNode = *v;
        else
          ok = false;
      } else if (p.key == "routing" && p.sub.empty()) {
        hasRouting = true;
        routingProp = &p;
        const Expr *e = p.value.expr.get();
        std::optional<NamedValue> routing = asNamedValue(e);
        if (isName(e, "direct")) {
          m->routing = RoutingKind::Direct;
        } else if (routing && routing->name == "dimension_order") {
          m->routing = RoutingKind::DimensionOrder;
          llvm::SmallVector<bool, 8> used(17, false);
          for (const auto &a : routing->args) {
            OptInt d = evalInt(*a, env);
            if (!d) {
              ok = false;
              break;
            }
            if (*d < 0 || *d > 15 || used[*d]) {
              diag.error(a->getLoc(), "dimension " + Twine(*d) +
                                          " is out of range or repeated in the "
                                          "dimension order");
              ok = false;
              break;
            }
            used[*d] = true;
            m->dimOrder.push_back(static_cast<unsigned>(*d));
          }
        } else {
          std::string got = e ? spelling(*e) : "";
          unknownValue(p.value, "routing", got,
                       "dimension_order, dimension_order(d, ...), direct");
          ok = false;
        }
      } else if (p.key == "setup_cost" && p.sub.empty()) {
        setTime(m->cost.setupCost, "setup_cost");
      } else if (p.key == "packet_length" && p.sub.empty()) {
        OptInt v = evalSize(p.value, env, "packet_length");
        if (v)
          m->cost.packetLength = *v;
        else
          ok = false;
      } else if (p.key == "copy_rate" &&
                 (p.sub == "contiguous" || p.sub == "strided")) {
        setRate(p.sub == "contiguous" ? m->cost.copyRateContiguous
                                      : m->cost.copyRateStrided,
                "copy rate");
      } else {
        diag.error(p.loc, "unknown machine property '" + key + "'");
        diag.note(p.loc, "machine properties: topology, bandwidth[.LL|.LR|.D], "
                         "latency[.LL|.LR|.D], ranks_per_node, routing, "
                         "injection, setup_cost, packet_length, "
                         "copy_rate.contiguous, copy_rate.strided");
        ok = false;
      }
    }
    if (ok)
      ok = finishMachine(*m, hasRouting, routingProp);
    else if (!m->topologyLoc.isValid() && !haveOverride)
      diag.error(m->loc, "machine '" + m->name + "' has no topology");
    if (!ok)
      continue;
    auto all = std::make_unique<Group>();
    all->name = "all";
    all->loc = m->loc;
    all->machine = m.get();
    all->overNodes = true;
    all->implicitAll = true;
    int64_t nodes = m->numNodes(), ranks = m->numRanks();
    all->nodes.resize(nodes);
    for (int64_t i = 0; i < nodes; ++i)
      all->nodes[i] = static_cast<int32_t>(i);
    all->ranks.resize(ranks);
    for (int64_t i = 0; i < ranks; ++i)
      all->ranks[i] = static_cast<int32_t>(i);
    prog->machines.push_back(std::move(m));
    prog->groups.push_back(std::move(all));
  }
  if (mod.machines.empty()) {
    // Point at the first declaration that needs a machine.
    SMLoc first;
    auto consider = [&](SMLoc loc) {
      if (loc.isValid() &&
          (!first.isValid() || loc.getPointer() < first.getPointer()))
        first = loc;
    };
    if (!mod.groups.empty())
      consider(mod.groups.front().loc);
    if (!mod.arrays.empty())
      consider(mod.arrays.front().loc);
    if (!mod.ops.empty())
      consider(mod.ops.front().kindLoc);
    if (first.isValid())
      diag.error(first, "the file declares no machine");
  }
}

//===----------------------------------------------------------------------===//
// Groups
//===----------------------------------------------------------------------===//

const Machine *Sema::defaultMachine(SMLoc loc, StringRef what) {
  if (prog->machines.size() == 1)
    return prog->machines.front().get();
  if (mod.machines.size() == 1)
    return nullptr; // the only machine had errors: already reported
  if (mod.machines.empty())
    return nullptr; // reported once in checkMachines
  diag.error(loc, Twine(what) + " needs a machine: the file defines " +
                      Twine(mod.machines.size()) +
                      " machines (use 'on MACHINE' or 'machine = NAME')");
  return nullptr;
}

void Sema::checkGroups() {
  for (const GroupDecl &d : mod.groups) {
    const Machine *m = nullptr;
    if (!d.machine.empty()) {
      m = prog->lookupMachine(d.machine);
      if (!m) {
        bool declared = llvm::any_of(mod.machines, [&](const MachineDecl &md) {
          return md.name == d.machine;
        });
        if (!declared)
          diag.error(d.machineLoc, "unknown machine '" + d.machine + "'");
        continue;
      }
    } else {
      m = defaultMachine(d.loc, "group '" + d.name + "'");
      if (!m)
        continue;
    }
    if (const Group *prev = prog->lookupGroup(d.name, m)) {
      diag.error(d.loc, "duplicate group '" + d.name + "' on machine '" +
                            m->name + "'");
      if (prev->implicitAll)
        diag.note(prev->loc, "'all' is the implicit group of every machine");
      else
        diag.note(prev->loc, "previous definition is here");
      continue;
    }
    bool overNodes;
    if (d.setKind == "nodes")
      overNodes = true;
    else if (d.setKind == "ranks")
      overNodes = false;
    else {
      diag.error(d.setKindLoc,
                 "expected 'nodes' or 'ranks', got '" + d.setKind + "'");
      continue;
    }
    int64_t universe = overNodes ? m->numNodes() : m->numRanks();
    std::vector<int64_t> candidates;
    bool ok = true;
    Env env;
    env.machine = m;
    auto outside = [&](SMLoc at, int64_t x) {
      diag.error(at, "group '" + d.name + "' is not inside machine '" +
                         m->name + "': " + (overNodes ? "node " : "rank ") +
                         Twine(x) + " does not exist");
      diag.note(m->loc, "machine '" + m->name + "' has " + Twine(universe) +
                            (overNodes ? " nodes" : " ranks"));
      ok = false;
    };
    if (d.hasList) {
      for (const auto &e : d.list) {
        OptInt x = evalInt(*e, env);
        if (!x) {
          ok = false;
          break;
        }
        if (*x < 0 || *x >= universe) {
          outside(e->getLoc(), *x);
          break;
        }
        candidates.push_back(*x);
      }
    } else if (d.hasRange) {
      OptInt lo = evalInt(*d.lo, env);
      OptInt hi = lo ? evalInt(*d.hi, env) : std::nullopt;
      OptInt step = int64_t(1);
      if (hi && d.step)
        step = evalInt(*d.step, env);
      if (!lo || !hi || !step) {
        ok = false;
      } else if (*step <= 0) {
        diag.error(d.step->getLoc(),
                   "range step must be positive, got " + Twine(*step));
        ok = false;
      } else if (*lo < 0 || *lo > universe) {
        outside(d.lo->getLoc(), *lo);
      } else if (*hi > universe) {
        outside(d.hi->getLoc(), *hi - 1);
      } else {
        for (int64_t x = *lo; x < *hi; x += *step)
          candidates.push_back(x);
      }
    } else {
      candidates.resize(universe);
      for (int64_t x = 0; x < universe; ++x)
        candidates[x] = x;
    }
    if (!ok)
      continue;
    std::vector<int32_t> members;
    if (d.where) {
      // Coordinates of the candidate (a node, or the node of a rank).
      for (int64_t x : candidates) {
        if (!countIteration(d.where->getLoc())) {
          ok = false;
          break;
        }
        int64_t node = overNodes ? x : x / m->ranksPerNode;
        env.vars.clear();
        env.vars.emplace_back("node", node);
        if (!overNodes) {
          env.vars.emplace_back("rank", x);
          env.vars.emplace_back("core", x % m->ranksPerNode);
        }
        if (m->kind == TopologyKind::Percs) {
          env.vars.emplace_back("supernode", m->percsSupernode(node));
          env.vars.emplace_back("drawer", m->percsDrawer(node));
          env.vars.emplace_back("index", m->percsIndex(node));
        } else {
          static const char *names[] = {"x", "y", "z", "w"};
          for (unsigned dim = 0; dim < m->numDims(); ++dim) {
            int64_t c = m->coord(node, dim);
            if (dim < 4)
              env.vars.emplace_back(names[dim], c);
            env.vars.emplace_back("d" + std::to_string(dim), c);
          }
        }
        OptInt keep = evalInt(*d.where, env);
        if (!keep) {
          ok = false;
          break;
        }
        if (*keep)
          members.push_back(static_cast<int32_t>(x));
      }
    } else {
      for (int64_t x : candidates)
        members.push_back(static_cast<int32_t>(x));
    }
    if (!ok)
      continue;
    llvm::sort(members);
    members.erase(std::unique(members.begin(), members.end()), members.end());
    if (members.empty()) {
      diag.error(d.loc, "group '" + d.name + "' is empty");
      continue;
    }
    auto g = std::make_unique<Group>();
    g->name = d.name;
    g->loc = d.loc;
    g->machine = m;
    g->overNodes = overNodes;
    if (overNodes) {
      g->nodes = members;
      for (int32_t n : members)
        for (int64_t c = 0; c < m->ranksPerNode; ++c)
          g->ranks.push_back(static_cast<int32_t>(n * m->ranksPerNode + c));
    } else {
      g->ranks = members;
    }
    prog->groups.push_back(std::move(g));
  }
}

const Group *Sema::resolveTarget(const Target &t, const Machine *machineHint,
                                 StringRef what, SMLoc declLoc) {
  if (!t.present) {
    const Machine *m =
        machineHint ? machineHint : defaultMachine(declLoc, what);
    return m ? prog->allGroup(m) : nullptr;
  }
  auto knownGroupDecl = [&](StringRef name) {
    return llvm::any_of(mod.groups,
                        [&](const GroupDecl &g) { return g.name == name; });
  };
  auto knownMachineDecl = [&](StringRef name) {
    return llvm::any_of(mod.machines,
                        [&](const MachineDecl &m) { return m.name == name; });
  };
  if (!t.second.empty()) {
    const Machine *m = prog->lookupMachine(t.first);
    if (!m) {
      if (!knownMachineDecl(t.first))
        diag.error(t.loc, "unknown machine '" + t.first + "'");
      return nullptr;
    }
    if (const Group *g = prog->lookupGroup(t.second, m))
      return g;
    if (!knownGroupDecl(t.second))
      diag.error(t.loc, "unknown group '" + t.second + "' on machine '" +
                            t.first + "'");
    return nullptr;
  }
  const Machine *m = machineHint;
  if (!m && prog->machines.size() == 1)
    m = prog->machines.front().get();
  if (m) {
    if (const Group *g = prog->lookupGroup(t.first, m))
      return g;
  } else {
    // Several machines: a group name must be unique across them.
    const Group *found = nullptr;
    int matches = 0;
    for (const auto &g : prog->groups)
      if (g->name == t.first) {
        found = g.get();
        ++matches;
      }
    if (matches == 1)
      return found;
    if (matches > 1) {
      diag.error(t.loc, "group '" + t.first +
                            "' exists on several machines; write "
                            "MACHINE." +
                            t.first);
      return nullptr;
    }
  }
  if (const Machine *mm = prog->lookupMachine(t.first))
    return prog->allGroup(mm);
  if (m) {
    if (const Group *other = prog->lookupGroup(t.first)) {
      diag.error(t.loc, "group '" + t.first + "' is on machine '" +
                            other->machine->name + "', not on '" + m->name +
                            "'");
      return nullptr;
    }
  }
  if (knownGroupDecl(t.first) || knownMachineDecl(t.first))
    return nullptr; // its definition had errors
  diag.error(t.loc, "unknown group or machine '" + t.first + "'");
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Arrays
//===----------------------------------------------------------------------===//

void Sema::checkArrays() {
  for (const ArrayDecl &d : mod.arrays) {
    if (const Array *prev = prog->lookupArray(d.name)) {
      diag.error(d.loc, "duplicate array '" + d.name + "'");
      diag.note(prev->loc, "previous definition is here");
      continue;
    }
    auto a = std::make_unique<Array>();
    a->name = d.name;
    a->loc = d.loc;
    bool ok = true;
    std::optional<ElementType> type = symbolizeElementType(d.type);
    if (type) {
      a->elementType = *type;
    } else {
      diag.error(d.typeLoc, "unknown element type '" + d.type + "'");
      diag.note(d.typeLoc,
                std::string("element types: ") + kElementTypeSpellings);
      ok = false;
    }
    if (d.shape.empty() || d.shape.size() > 8) {
      diag.error(d.loc, "array '" + d.name + "' needs 1 to 8 dimensions");
      ok = false;
    }
    Env env;
    int64_t total = type ? elementTypeBytes(*type) : 1;
    for (const auto &e : d.shape) {
      OptInt x = evalInt(*e, env);
      if (!x) {
        ok = false;
        break;
      }
      if (*x <= 0) {
        diag.error(e->getLoc(),
                   "array extent must be positive, got " + Twine(*x));
        ok = false;
        break;
      }
      if (__builtin_mul_overflow(total, *x, &total) ||
          total > (int64_t(1) << 50)) {
        diag.error(e->getLoc(), "array '" + d.name + "' is too large");
        ok = false;
        break;
      }
      a->shape.push_back(*x);
    }
    if (d.dist == "rows")
      a->distribution = Distribution::Rows;
    else if (d.dist == "cols")
      a->distribution = Distribution::Cols;
    else {
      diag.error(d.distLoc, "unknown distribution '" + d.dist +
                                "'; expected 'rows' or 'cols'");
      ok = false;
    }
    if (ok && a->distribution == Distribution::Cols && a->shape.size() < 2) {
      diag.error(d.distLoc, "a one-dimensional array cannot be distributed "
                            "by columns");
      ok = false;
    }
    const Group *g =
        resolveTarget(d.over, nullptr, "array '" + d.name + "'", d.loc);
    if (!g || !ok)
      continue;
    a->group = g;
    a->machine = g->machine;
    unsigned dim = a->distribution == Distribution::Rows ? 0 : 1;
    int64_t extent = a->shape[dim];
    if (extent % g->size() != 0) {
      diag.error(d.loc, "array '" + d.name + "' has " + Twine(extent) +
                            (dim == 0 ? " rows" : " columns") +
                            ", which group '" + g->name + "' of " +
                            Twine(g->size()) + " ranks cannot divide evenly");
      std::string divisors;
      int shown = 0;
      int64_t maxSize = g->machine->numRanks();
      for (int64_t k = 1; k <= std::min(extent, maxSize) && shown < 24; ++k)
        if (extent % k == 0) {
          divisors += (shown ? ", " : "") + std::to_string(k);
          ++shown;
        }
      diag.note(g->loc, "group sizes that divide " + Twine(extent) +
                            " (up to the machine's " + Twine(maxSize) +
                            " ranks): " + divisors);
      continue;
    }
    prog->arrays.push_back(std::move(a));
  }
}

//===----------------------------------------------------------------------===//
// Operations
//===----------------------------------------------------------------------===//

bool Sema::readIntegers(const std::string &file, SMLoc loc,
                        std::vector<int64_t> &out, int64_t expected,
                        StringRef what) {
  if (!opts.allowFileReads) {
    diag.error(loc, "reading files is disabled");
    return false;
  }
  llvm::SmallString<256> path(file);
  if (!llvm::sys::path::is_absolute(path)) {
    StringRef mainName = diag.sourceMgr()
                             .getMemoryBuffer(diag.sourceMgr().getMainFileID())
                             ->getBufferIdentifier();
    llvm::SmallString<256> dir(llvm::sys::path::parent_path(mainName));
    llvm::sys::path::append(dir, file);
    path = dir;
  }
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf) {
    diag.error(loc, "cannot read " + what + " file '" + path +
                        "': " + buf.getError().message());
    return false;
  }
  StringRef text = (*buf)->getBuffer();
  if (text.size() > opts.maxFileBytes) {
    diag.error(loc, Twine(what) + " file '" + path + "' is too large");
    return false;
  }
  // Whitespace- or comma-separated integers; '#' starts a comment line.
  while (!text.empty()) {
    text = text.ltrim(" \t\r\n,");
    if (text.empty())
      break;
    if (text.front() == '#') {
      text = text.drop_until([](char c) { return c == '\n'; });
      continue;
    }
    StringRef tok = text.take_until([](char c) {
      return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',';
    });
    text = text.drop_front(tok.size());
    int64_t v;
    if (tok.getAsInteger(10, v)) {
      diag.error(loc, Twine(what) + " file '" + path + "' holds '" +
                          tok.take_front(40) + "', which is not an integer");
      return false;
    }
    if (static_cast<int64_t>(out.size()) >= expected) {
      // Count the rest for the message without storing it.
      int64_t extra = 1;
      while (!text.empty()) {
        text = text.ltrim(" \t\r\n,");
        StringRef t2 = text.take_until([](char c) {
          return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',';
        });
        if (t2.empty())
          break;
        text = text.drop_front(t2.size());
        ++extra;
      }
      diag.error(loc, Twine(what) + " file '" + path + "' has " +
                          Twine(expected + extra) + " entries, but " +
                          Twine(expected) + " are needed");
      return false;
    }
    out.push_back(v);
  }
  if (static_cast<int64_t>(out.size()) != expected) {
    diag.error(loc, Twine(what) + " file '" + path + "' has " +
                        Twine(out.size()) + " entries, but " + Twine(expected) +
                        " are needed");
    return false;
  }
  return true;
}

bool Sema::buildPermutation(const Property &p, Operation &op, int64_t n) {
  std::optional<NamedValue> e = asNamedValue(p.value.expr.get());
  if (!e) {
    diag.error(p.value.loc, "expected a permutation pattern");
    diag.note(p.value.loc, "patterns: random(seed), bit_reversal, xor(mask), "
                           "shift(k), table(\"file\")");
    return false;
  }
  Env env;
  env.machine = op.machine;
  env.group = op.group;
  auto oneArg = [&]() -> OptInt {
    if (e->args.size() != 1)
      return fail(e->loc, "'" + e->name + "' takes one argument");
    return evalInt(*e->args[0], env);
  };
  bool pow2 = n > 0 && (n & (n - 1)) == 0;
  op.permutation.resize(n);
  if (e->name == "random") {
    OptInt seed = oneArg();
    if (!seed)
      return false;
    op.permuteKind = PermuteKind::Random;
    op.seed = static_cast<uint64_t>(*seed);
    for (int64_t i = 0; i < n; ++i)
      op.permutation[i] = i;
    SplitMix64 rng{op.seed};
    // Fisher-Yates from the back: swap i with j uniform in [0, i].
    for (int64_t i = n - 1; i > 0; --i) {
      uint64_t j = rng.next() % static_cast<uint64_t>(i + 1);
      std::swap(op.permutation[i], op.permutation[j]);
    }
    return true;
  }
  if (e->name == "bit_reversal") {
    if (!e->args.empty()) {
      diag.error(e->loc, "'bit_reversal' takes no arguments");
      return false;
    }
    if (!pow2) {
      diag.error(
          p.value.loc,
          "bit_reversal needs a power-of-two size, but " +
              Twine(op.elementLevel ? "the array has " : "the group has ") +
              Twine(n) + (op.elementLevel ? " elements" : " ranks"));
      return false;
    }
    op.permuteKind = PermuteKind::BitReversal;
    unsigned bits = static_cast<unsigned>(63 - __builtin_clzll(n));
    for (int64_t i = 0; i < n; ++i) {
      int64_t r = 0;
      for (unsigned b = 0; b < bits; ++b)
        if (i & (int64_t(1) << b))
          r |= int64_t(1) << (bits - 1 - b);
      op.permutation[i] = r;
    }
    return true;
  }
  if (e->name == "xor") {
    OptInt mask = oneArg();
    if (!mask)
      return false;
    if (!pow2 || *mask < 0 || *mask >= n) {
      diag.error(p.value.loc, "xor(" + Twine(*mask) +
                                  ") is not a permutation of " + Twine(n) +
                                  " items: it needs a power-of-two size and a "
                                  "mask below it");
      return false;
    }
    op.permuteKind = PermuteKind::Xor;
    op.mask = *mask;
    for (int64_t i = 0; i < n; ++i)
      op.permutation[i] = i ^ *mask;
    return true;
  }
  if (e->name == "shift") {
    OptInt k = oneArg();
    if (!k)
      return false;
    op.permuteKind = PermuteKind::Shift;
    op.shift = *k;
    int64_t s = ((*k % n) + n) % n;
    for (int64_t i = 0; i < n; ++i)
      op.permutation[i] = (i + s) % n;
    return true;
  }
  if (e->name == "table") {
    auto *file = e->args.size() == 1
                     ? llvm::dyn_cast<StringExpr>(e->args[0].get())
                     : nullptr;
    if (!file) {
      diag.error(e->loc, "'table' takes one file name string");
      return false;
    }
    op.permuteKind = PermuteKind::Table;
    op.tableFile = file->value;
    std::vector<int64_t> table;
    if (!readIntegers(op.tableFile, p.value.loc, table, n, "permutation table"))
      return false;
    std::vector<bool> seen(n, false);
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = table[i];
      if (v < 0 || v >= n || seen[v]) {
        diag.error(p.value.loc,
                   "permutation table is not a permutation: entry " + Twine(i) +
                       " is " + Twine(v) +
                       (v < 0 || v >= n ? " (out of range)" : " (repeated)"));
        return false;
      }
      seen[v] = true;
      op.permutation[i] = v;
    }
    return true;
  }
  unknownValue(p.value, "permutation pattern", e->name,
               "random(seed), bit_reversal, xor(mask), shift(k), "
               "table(\"file\")");
  return false;
}

namespace {
struct OpInfo {
  const char *name;
  OpKind kind;
  Aggregate agg;
};
const OpInfo kOps[] = {
    {"alltoall", OpKind::Alltoall, Aggregate::None},
    {"alltoallv", OpKind::Alltoallv, Aggregate::None},
    {"transpose", OpKind::Transpose, Aggregate::None},
    {"permute", OpKind::Permute, Aggregate::None},
    {"gather", OpKind::Gather, Aggregate::None},
    {"scatter", OpKind::Scatter, Aggregate::None},
    {"allgather", OpKind::Allgather, Aggregate::None},
    {"broadcast", OpKind::Broadcast, Aggregate::None},
    {"reduce", OpKind::Reduce, Aggregate::None},
    {"allreduce", OpKind::Allreduce, Aggregate::None},
    {"scan", OpKind::Scan, Aggregate::None},
    {"one_to_all", OpKind::OneToAll, Aggregate::None},
    {"all_to_one", OpKind::AllToOne, Aggregate::None},
    {"barrier", OpKind::Barrier, Aggregate::None},
    {"local", OpKind::Local, Aggregate::None},
    {"putget", OpKind::Alltoallv, Aggregate::Putget},
    {"waitvec", OpKind::Allgather, Aggregate::Waitvec},
    {"vote", OpKind::Allgather, Aggregate::Vote},
    {"match", OpKind::Allgather, Aggregate::Match},
    {"rank", OpKind::Allgather, Aggregate::Rank},
    {"population", OpKind::Local, Aggregate::Population},
    {"enumerate", OpKind::Local, Aggregate::Enumerate},
    {"any", OpKind::Allreduce, Aggregate::Any},
    {"all", OpKind::Allreduce, Aggregate::All},
};

bool hasRoot(OpKind k) {
  return k == OpKind::Gather || k == OpKind::Scatter ||
         k == OpKind::Broadcast || k == OpKind::Reduce ||
         k == OpKind::OneToAll || k == OpKind::AllToOne;
}
bool hasBlock(OpKind k) {
  return k == OpKind::Alltoall || k == OpKind::Gather || k == OpKind::Scatter ||
         k == OpKind::Allgather || k == OpKind::Broadcast ||
         k == OpKind::OneToAll || k == OpKind::AllToOne;
}
bool isReduction(OpKind k) {
  return k == OpKind::Reduce || k == OpKind::Allreduce || k == OpKind::Scan;
}
} // namespace

bool Sema::checkOp(const OpDecl &d, Operation &op) {
  const OpInfo *info = nullptr;
  for (const OpInfo &i : kOps)
    if (d.kind == i.name)
      info = &i;
  if (!info) {
    diag.error(d.kindLoc, "unknown operation '" + d.kind + "'");
    diag.note(d.kindLoc,
              "operations: alltoall, alltoallv, transpose, permute, gather, "
              "scatter, allgather, broadcast, reduce, allreduce, scan, "
              "one_to_all, all_to_one, barrier, local; PAPERS aggregates: "
              "putget, waitvec, vote, match, rank, population, enumerate, "
              "any, all");
    return false;
  }
  op.kind = info->kind;
  op.aggregate = info->agg;
  op.name = d.name;
  op.loc = d.loc;
  bool papers = info->agg != Aggregate::None;
  bool ok = true;

  // Index the properties (duplicates are errors).
  llvm::StringMap<const Property *> props;
  for (const Property &p : d.props) {
    std::string key = p.sub.empty() ? p.key : p.key + "." + p.sub;
    auto [it, inserted] = props.try_emplace(key, &p);
    if (!inserted) {
      diag.error(p.loc, "duplicate directive '" + key + "'");
      diag.note(it->second->loc, "previous definition is here");
      ok = false;
    }
  }
  auto get = [&](StringRef key) -> const Property * {
    auto it = props.find(key);
    return it == props.end() ? nullptr : it->second;
  };

  // Which directives this operation takes.
  llvm::SmallVector<StringRef, 12> allowed = {"algorithm", "sync", "rlimit",
                                              "machine"};
  if (hasRoot(op.kind))
    allowed.push_back("root");
  if (hasBlock(op.kind) && !papers)
    allowed.push_back("block");
  if (op.kind == OpKind::Alltoallv && !papers)
    allowed.push_back("sizes");
  if (op.kind == OpKind::Transpose)
    allowed.append({"from", "to", "style"});
  if (op.kind == OpKind::Permute)
    allowed.append({"pattern", "block", "from", "to", "style"});
  if (isReduction(op.kind) && !papers)
    allowed.append({"op", "type", "count"});
  if (info->agg == Aggregate::Putget)
    allowed.push_back("source");
  if (papers && info->agg != Aggregate::Barrier &&
      info->agg != Aggregate::Population && info->agg != Aggregate::Enumerate &&
      info->agg != Aggregate::Any && info->agg != Aggregate::All &&
      info->agg != Aggregate::Waitvec)
    allowed.push_back("type");
  for (const Property &p : d.props) {
    std::string key = p.sub.empty() ? p.key : p.key + "." + p.sub;
    if (!llvm::is_contained(allowed, StringRef(key))) {
      static const char *known[] = {"algorithm", "sync",  "rlimit",  "machine",
                                    "root",      "block", "sizes",   "from",
                                    "to",        "style", "pattern", "op",
                                    "type",      "count", "source"};
      bool isKnown = llvm::is_contained(known, key);
      if (isKnown)
        diag.error(p.loc,
                   "'" + key + "' is not a directive of '" + d.kind + "'");
      else
        diag.error(p.loc, "unknown directive '" + key + "'");
      diag.note(p.loc, "'" + d.kind + "' takes: " + joinNames(allowed));
      ok = false;
    }
  }

  // Machine and group.
  const Machine *hint = nullptr;
  if (const Property *p = get("machine")) {
    std::string name = identValue(p->value, "'machine'");
    if (!name.empty()) {
      hint = prog->lookupMachine(name);
      if (!hint) {
        if (!llvm::any_of(mod.machines,
                          [&](const MachineDecl &m) { return m.name == name; }))
          diag.error(p->value.loc, "unknown machine '" + name + "'");
        return false;
      }
    } else {
      return false;
    }
  }
  // Transposes and element permutes default to their source array's group.
  const Array *fromArray = nullptr, *toArray = nullptr;
  for (const char *key : {"from", "to"}) {
    const Property *p = get(key);
    if (!p || !llvm::is_contained(allowed, StringRef(key)))
      continue;
    std::string name = identValue(p->value, std::string("'") + key + "'");
    if (name.empty()) {
      ok = false;
      continue;
    }
    const Array *a = prog->lookupArray(name);
    if (!a) {
      if (!llvm::any_of(mod.arrays,
                        [&](const ArrayDecl &ad) { return ad.name == name; }))
        diag.error(p->value.loc, "unknown array '" + name + "'");
      ok = false;
      continue;
    }
    (StringRef(key) == "from" ? fromArray : toArray) = a;
  }
  if (!ok)
    return false;
  if (!d.on.present && fromArray) {
    op.group = fromArray->group;
  } else {
    op.group = resolveTarget(d.on, hint, "operation '" + d.name + "'", d.loc);
  }
  if (!op.group)
    return false;
  op.machine = op.group->machine;
  if (hint && hint != op.machine) {
    diag.error(d.on.loc, "group '" + op.group->name + "' is on machine '" +
                             op.machine->name + "', not '" + hint->name + "'");
    return false;
  }
  int64_t n = op.group->size();
  Env env;
  env.machine = op.machine;
  env.group = op.group;

  // Root.
  if (hasRoot(op.kind)) {
    op.root = op.group->ranks.front();
    if (const Property *p = get("root")) {
      OptInt r = evalPlainInt(p->value, env, "root");
      if (!r)
        return false;
      if (*r < 0 || *r > INT32_MAX ||
          !op.group->contains(static_cast<int32_t>(*r))) {
        diag.error(p->value.loc, "root " + Twine(*r) + " is not in group '" +
                                     op.group->name + "'");
        if (op.group->implicitAll)
          diag.note(op.machine->loc, "machine '" + op.machine->name +
                                         "' has ranks 0.." +
                                         Twine(op.machine->numRanks() - 1));
        else
          diag.note(op.group->loc, "group '" + op.group->name +
                                       "' is defined here (" + Twine(n) +
                                       " ranks, from " +
                                       Twine(op.group->ranks.front()) + " to " +
                                       Twine(op.group->ranks.back()) + ")");
        return false;
      }
      op.root = static_cast<int32_t>(*r);
    }
  }

  // Block sizes.
  if (hasBlock(op.kind) && !papers) {
    if (const Property *p = get("block")) {
      OptInt b = evalSize(p->value, env, "block size");
      if (!b)
        return false;
      op.blockBytes = *b;
    } else {
      diag.error(d.loc, "operation '" + d.name + "' needs 'block = SIZE;'");
      return false;
    }
  }

  // Reductions.
  auto elementType = [&](const Property *p, ElementType dflt) -> bool {
    op.elementType = dflt;
    if (!p)
      return true;
    std::string t = identValue(p->value, "'type'");
    if (t.empty())
      return false;
    if (std::optional<ElementType> type = symbolizeElementType(t)) {
      op.elementType = *type;
      return true;
    }
    unknownValue(p->value, "element type", t, kElementTypeSpellings);
    return false;
  };
  if (isReduction(op.kind) && !papers) {
    if (const Property *p = get("op")) {
      std::string o = identValue(p->value, "'op'");
      if (o.empty())
        return false;
      auto r = llvm::StringSwitch<std::optional<ReduceOp>>(o)
                   .Case("add", ReduceOp::Add)
                   .Case("mul", ReduceOp::Mul)
                   .Case("min", ReduceOp::Min)
                   .Case("max", ReduceOp::Max)
                   .Case("and", ReduceOp::And)
                   .Case("or", ReduceOp::Or)
                   .Case("xor", ReduceOp::Xor)
                   .Default(std::nullopt);
      if (!r) {
        unknownValue(p->value, "reduction operator", o,
                     "add, mul, min, max, and, or, xor");
        return false;
      }
      op.reduceOp = *r;
    } else {
      diag.error(d.loc, "operation '" + d.name +
                            "' needs 'op = add|mul|min|"
                            "max|and|or|xor;'");
      return false;
    }
    if (!elementType(get("type"), ElementType::Int32))
      return false;
    op.count = 1;
    if (const Property *p = get("count")) {
      OptInt c = evalPlainInt(p->value, env, "count");
      if (!c)
        return false;
      if (*c <= 0) {
        diag.error(p->value.loc, "count must be positive, got " + Twine(*c));
        return false;
      }
      op.count = *c;
    }
    bool isFloat = op.elementType == ElementType::F32 ||
                   op.elementType == ElementType::F64 ||
                   op.elementType == ElementType::Complex64 ||
                   op.elementType == ElementType::Complex128;
    bool isComplex = op.elementType == ElementType::Complex64 ||
                     op.elementType == ElementType::Complex128;
    bool bitwise = op.reduceOp == ReduceOp::And ||
                   op.reduceOp == ReduceOp::Or || op.reduceOp == ReduceOp::Xor;
    if (bitwise && isFloat) {
      diag.error(get("op")->value.loc,
                 "bitwise reduction '" + stringifyReduceOp(op.reduceOp) +
                     "' needs an integer element type, not " +
                     stringifyElementType(op.elementType));
      return false;
    }
    if (isComplex &&
        (op.reduceOp == ReduceOp::Min || op.reduceOp == ReduceOp::Max)) {
      diag.error(get("op")->value.loc, "complex numbers have no order for '" +
                                           stringifyReduceOp(op.reduceOp) +
                                           "'");
      return false;
    }
    if (__builtin_mul_overflow(op.count, elementTypeBytes(op.elementType),
                               &op.blockBytes)) {
      diag.error(get("count")->value.loc, "count is too large");
      return false;
    }
  }

  // PAPERS aggregates.
  if (papers) {
    switch (info->agg) {
    case Aggregate::Any:
    case Aggregate::All:
      op.reduceOp = info->agg == Aggregate::Any ? ReduceOp::Or : ReduceOp::And;
      op.elementType = ElementType::UInt8;
      op.count = 1;
      op.blockBytes = 1;
      break;
    case Aggregate::Waitvec:
      // One vote bit per member, carried in a byte.
      op.elementType = ElementType::UInt8;
      op.count = 1;
      op.blockBytes = 1;
      break;
    case Aggregate::Vote:
    case Aggregate::Match:
    case Aggregate::Rank:
    case Aggregate::Putget:
      if (!elementType(get("type"), ElementType::Int32))
        return false;
      op.count = 1;
      op.blockBytes = elementTypeBytes(op.elementType);
      break;
    default:
      break;
    }
    if (info->agg == Aggregate::Putget) {
      const Property *p = get("source");
      if (!p) {
        diag.error(d.loc, "putget '" + d.name +
                              "' needs 'source = EXPR;' (the rank each "
                              "member reads from, over 'rank')");
        return false;
      }
      if (n * n > opts.maxMatrixEntries) {
        diag.error(d.loc, "group '" + op.group->name + "' of " + Twine(n) +
                              " ranks is too large for a size matrix");
        return false;
      }
      op.sizes.assign(n * n, 0);
      for (int64_t i = 0; i < n; ++i) {
        if (!countIteration(p->value.loc))
          return false;
        env.vars.clear();
        env.vars.emplace_back("rank", op.group->ranks[i]);
        env.vars.emplace_back("index", i);
        OptInt s = evalPlainInt(p->value, env, "source");
        if (!s)
          return false;
        int64_t si = (*s >= 0 && *s <= INT32_MAX)
                         ? op.group->indexOf(static_cast<int32_t>(*s))
                         : -1;
        if (si < 0) {
          diag.error(p->value.loc, "source rank " + Twine(*s) + " of rank " +
                                       Twine(op.group->ranks[i]) +
                                       " is not in group '" + op.group->name +
                                       "'");
          return false;
        }
        op.sizes[si * n + i] += op.blockBytes;
      }
      op.blockBytes = 0;
      env.vars.clear();
    }
  }

  // Alltoallv sizes.
  if (op.kind == OpKind::Alltoallv && !papers) {
    const Property *p = get("sizes");
    if (!p) {
      diag.error(d.loc, "alltoallv '" + d.name +
                            "' needs 'sizes = EXPR SIZE_UNIT;' or "
                            "'sizes = file(\"...\");'");
      return false;
    }
    if (n * n > opts.maxMatrixEntries) {
      diag.error(d.loc, "group '" + op.group->name + "' of " + Twine(n) +
                            " ranks is too large for a size matrix (limit " +
                            Twine(opts.maxMatrixEntries) + " entries)");
      return false;
    }
    auto *call = llvm::dyn_cast_or_null<CallExpr>(p->value.expr.get());
    if (call && call->callee == "file") {
      auto *file = call->args.size() == 1
                       ? llvm::dyn_cast<StringExpr>(call->args[0].get())
                       : nullptr;
      if (!file) {
        diag.error(call->getLoc(), "'file' takes one file name string");
        return false;
      }
      if (!readIntegers(file->value, p->value.loc, op.sizes, n * n,
                        "size matrix"))
        return false;
      for (int64_t s : op.sizes)
        if (s < 0) {
          diag.error(p->value.loc,
                     "size matrix holds a negative size " + Twine(s));
          return false;
        }
    } else {
      op.sizes.assign(n * n, 0);
      for (int64_t si = 0; si < n; ++si)
        for (int64_t di = 0; di < n; ++di) {
          if (!countIteration(p->value.loc))
            return false;
          env.vars.clear();
          env.vars.emplace_back("src", op.group->ranks[si]);
          env.vars.emplace_back("dst", op.group->ranks[di]);
          env.vars.emplace_back("src_index", si);
          env.vars.emplace_back("dst_index", di);
          OptInt s = evalSize(p->value, env, "size", /*allowZero=*/true);
          if (!s)
            return false;
          op.sizes[si * n + di] = *s;
        }
      env.vars.clear();
    }
  }

  // Transposes.
  if (op.kind == OpKind::Transpose) {
    if (!fromArray || !toArray) {
      diag.error(d.loc, "transpose '" + d.name +
                            "' needs 'from = ARRAY;' and "
                            "'to = ARRAY;'");
      return false;
    }
    op.from = fromArray;
    op.to = toArray;
    if (fromArray->shape.size() != 2 || toArray->shape.size() != 2) {
      diag.error(d.loc,
                 "transpose '" + d.name + "' needs two-dimensional arrays");
      return false;
    }
    if (toArray->shape[0] != fromArray->shape[1] ||
        toArray->shape[1] != fromArray->shape[0]) {
      diag.error(get("to")->value.loc,
                 "array '" + toArray->name + "' is " +
                     Twine(toArray->shape[0]) + " x " +
                     Twine(toArray->shape[1]) + ", but the transpose of '" +
                     fromArray->name + "' is " + Twine(fromArray->shape[1]) +
                     " x " + Twine(fromArray->shape[0]));
      return false;
    }
    if (toArray->elementType != fromArray->elementType) {
      diag.error(get("to")->value.loc,
                 "array '" + toArray->name + "' holds " +
                     stringifyElementType(toArray->elementType) + ", but '" +
                     fromArray->name + "' holds " +
                     stringifyElementType(fromArray->elementType));
      return false;
    }
    if (toArray->group->ranks != fromArray->group->ranks ||
        op.group->ranks != fromArray->group->ranks) {
      diag.error(d.loc, "not supported: transpose '" + d.name +
                            "' between arrays on different groups");
      diag.note(fromArray->loc, "'" + fromArray->name + "' is over group '" +
                                    fromArray->group->name + "'");
      return false;
    }
    if (toArray->distribution != fromArray->distribution) {
      diag.error(d.loc, "not supported: transpose '" + d.name +
                            "' between a rows- and a cols-distributed array "
                            "(it moves no data between ranks)");
      return false;
    }
    int64_t rowsPer = fromArray->shape[0] / n,
            colsPer = fromArray->shape[1] / n;
    // Both extents divide by n: Sema checked that each array's group
    // divides its distributed extent, and the two arrays are transposes.
    op.blockBytes =
        rowsPer * colsPer * elementTypeBytes(fromArray->elementType);
    op.elementType = fromArray->elementType;
  }

  // Permutations.
  if (op.kind == OpKind::Permute) {
    const Property *pat = get("pattern");
    if (!pat) {
      diag.error(d.loc, "permute '" + d.name + "' needs 'pattern = ...;'");
      return false;
    }
    if (fromArray) {
      op.elementLevel = true;
      op.from = fromArray;
      op.to = toArray ? toArray : fromArray;
      if (get("block")) {
        diag.error(get("block")->loc, "an element-level permute moves array "
                                      "elements; it takes no 'block'");
        return false;
      }
      if (op.to->shape != op.from->shape ||
          op.to->elementType != op.from->elementType ||
          op.to->group->size() != n) {
        diag.error(get("to")->value.loc,
                   "array '" + op.to->name + "' must match '" + op.from->name +
                       "' in shape, element type and group "
                       "size");
        return false;
      }
      int64_t elems = op.from->numElements();
      if (elems > opts.maxPermutationElements) {
        diag.error(pat->value.loc,
                   "not supported: an element-level permutation of " +
                       Twine(elems) + " elements (limit " +
                       Twine(opts.maxPermutationElements) + ")");
        return false;
      }
      if (n * n > opts.maxMatrixEntries) {
        diag.error(d.loc, "group too large for a size matrix");
        return false;
      }
      if (!buildPermutation(*pat, op, elems))
        return false;
      // The rank-to-rank traffic of the element permutation.
      op.elementType = op.from->elementType;
      int64_t eb = elementTypeBytes(op.elementType);
      auto owner = [&](const Array *a, int64_t e) -> int64_t {
        int64_t inner = 1;
        for (size_t k = 1; k < a->shape.size(); ++k)
          inner *= a->shape[k];
        if (a->distribution == Distribution::Rows)
          return (e / inner) / (a->shape[0] / n);
        int64_t inner2 = inner / a->shape[1];
        return ((e / inner2) % a->shape[1]) / (a->shape[1] / n);
      };
      op.sizes.assign(n * n, 0);
      for (int64_t e = 0; e < elems; ++e)
        op.sizes[owner(op.from, e) * n + owner(op.to, op.permutation[e])] += eb;
    } else {
      if (toArray) {
        diag.error(get("to")->loc, "'to' needs 'from' (an element-level "
                                   "permute)");
        return false;
      }
      if (get("style")) {
        diag.error(get("style")->loc, "'style' applies to array operations "
                                      "(transpose, element-level permute)");
        return false;
      }
      const Property *b = get("block");
      if (!b) {
        diag.error(d.loc, "permute '" + d.name +
                              "' needs 'block = SIZE;' "
                              "(rank level) or 'from = "
                              "ARRAY;' (element level)");
        return false;
      }
      OptInt bytes = evalSize(b->value, env, "block size");
      if (!bytes)
        return false;
      op.blockBytes = *bytes;
      if (!buildPermutation(*pat, op, n))
        return false;
    }
  }

  // Directives.
  Directives &dir = op.directives;
  if (const Property *p = get("algorithm")) {
    dir.algorithmLoc = p->value.loc;
    std::optional<NamedValue> e = asNamedValue(p->value.expr.get());
    std::string name = e ? e->name.str() : "";
    auto alg = llvm::StringSwitch<std::optional<Algorithm>>(name)
                   .Case("auto", Algorithm::Auto)
                   .Case("pairwise", Algorithm::Pairwise)
                   .Case("linear_shift", Algorithm::LinearShift)
                   .Case("xor", Algorithm::Xor)
                   .Case("bruck", Algorithm::Bruck)
                   .Case("k_level", Algorithm::KLevel)
                   .Case("direct", Algorithm::Direct)
                   .Default(std::nullopt);
    if (name.empty()) {
      diag.error(p->value.loc, "expected an algorithm name");
      diag.note(p->value.loc, "algorithms: auto, pairwise, linear_shift, xor, "
                              "bruck, direct, k_level(k), k_level(k, rec|sq), "
                              "k_level(logp, sq)");
      return false;
    }
    if (alg && e->isCall && *alg != Algorithm::KLevel) {
      diag.error(p->value.loc, "algorithm '" + name + "' takes no arguments");
      return false;
    }
    if (!alg) {
      unknownValue(p->value, "algorithm", name,
                   "auto, pairwise, linear_shift, xor, bruck, direct, "
                   "k_level(k), k_level(k, rec|sq), k_level(logp, sq); a "
                   "'schedule { ... }' block selects the hand-written "
                   "schedule");
      return false;
    }
    dir.algorithm = *alg;
    if (*alg == Algorithm::KLevel) {
      if (!e->isCall || e->args.empty() || e->args.size() > 2) {
        diag.error(p->value.loc, "k_level takes (levels) or (levels, rec|sq); "
                                 "levels may be 'logp'");
        return false;
      }
      const Expr &k = *e->args[0];
      if (isName(&k, "logp")) {
        dir.kLevels = 0;
      } else {
        OptInt kv = evalInt(k, env);
        if (!kv)
          return false;
        if (*kv < 1 || *kv > 64) {
          diag.error(k.getLoc(),
                     "k_level needs 1 to 64 levels, got " + Twine(*kv));
          return false;
        }
        dir.kLevels = *kv;
      }
      if (e->args.size() == 2) {
        const Expr &s = *e->args[1];
        if (isName(&s, "rec"))
          dir.kShape = KLevelShape::Rec;
        else if (isName(&s, "sq"))
          dir.kShape = KLevelShape::Sq;
        else {
          diag.error(s.getLoc(),
                     "unknown k_level submachine shape; expected 'rec' "
                     "or 'sq'");
          return false;
        }
      }
    }
    // Which algorithms exist for which operations.
    bool supported = true;
    switch (*alg) {
    case Algorithm::Auto:
    case Algorithm::Direct:
      break;
    case Algorithm::Pairwise:
    case Algorithm::LinearShift:
    case Algorithm::Xor:
      supported = op.kind == OpKind::Alltoall || op.kind == OpKind::Alltoallv ||
                  op.kind == OpKind::Transpose;
      break;
    case Algorithm::Bruck:
      supported = op.kind == OpKind::Alltoall || op.kind == OpKind::Allgather;
      break;
    case Algorithm::KLevel:
      supported = op.kind == OpKind::OneToAll || op.kind == OpKind::AllToOne ||
                  op.kind == OpKind::Alltoall || op.kind == OpKind::Broadcast ||
                  op.kind == OpKind::Scatter || op.kind == OpKind::Gather;
      break;
    case Algorithm::Schedule:
      break;
    }
    if (!supported) {
      diag.error(p->value.loc, "not supported: algorithm '" +
                                   stringifyAlgorithm(*alg) + "' for '" +
                                   d.kind + "'");
      return false;
    }
  }
  if (const Property *p = get("sync")) {
    std::string s = identValue(p->value, "'sync'");
    if (s == "barrier")
      dir.sync = SyncKind::Barrier;
    else if (s == "none")
      dir.sync = SyncKind::None;
    else {
      if (!s.empty())
        unknownValue(p->value, "sync", s, "barrier, none");
      return false;
    }
  }
  if (const Property *p = get("style")) {
    if (op.kind != OpKind::Transpose && !op.elementLevel) {
      diag.error(p->loc, "'style' applies to array operations (transpose, "
                         "element-level permute)");
      return false;
    }
    std::string s = identValue(p->value, "'style'");
    if (s == "packing")
      dir.style = TransferStyle::Packing;
    else if (s == "chained")
      dir.style = TransferStyle::Chained;
    else if (s == "direct_deposit")
      dir.style = TransferStyle::DirectDeposit;
    else {
      if (!s.empty())
        unknownValue(p->value, "transfer style", s,
                     "packing, chained, direct_deposit");
      return false;
    }
  }
  if (const Property *p = get("rlimit")) {
    OptInt r = evalPlainInt(p->value, env, "rlimit");
    if (!r)
      return false;
    if (*r <= 0) {
      diag.error(p->value.loc, "rlimit must be positive, got " + Twine(*r));
      return false;
    }
    dir.rlimit = *r;
  }

  // Hand-written schedule.
  if (d.hasSchedule) {
    if (get("algorithm") && dir.algorithm != Algorithm::Schedule) {
      diag.error(get("algorithm")->loc, "operation '" + d.name +
                                            "' has a hand-written schedule and "
                                            "'algorithm = " +
                                            stringifyAlgorithm(dir.algorithm) +
                                            "'");
      diag.note(d.scheduleLoc, "the schedule is here; remove one of them");
      return false;
    }
    if (op.kind == OpKind::Barrier || op.kind == OpKind::Local) {
      diag.error(d.scheduleLoc, "'" + d.kind +
                                    "' moves no data and takes no "
                                    "schedule");
      return false;
    }
    dir.algorithm = Algorithm::Schedule;
    op.hasSchedule = true;
    op.scheduleLoc = d.scheduleLoc;
    if (!runSchedule(d, op))
      return false;
    verifySchedule(op);
    if (diag.hadError() && op.phases.empty())
      return false;
  }
  return ok;
}

/// The number of sends `body` makes on every execution, whatever the values
/// (loops and conditionals count as none): a lower bound for the limit check.
static uint64_t minSends(const StmtList &body) {
  uint64_t n = 0;
  for (const StmtPtr &s : body) {
    if (llvm::isa<SendStmt>(*s))
      ++n;
    else if (auto *phase = llvm::dyn_cast<PhaseStmt>(s.get()))
      n += minSends(phase->body);
  }
  return n;
}

bool Sema::runSchedule(const OpDecl &d, Operation &op) {
  Env env;
  env.machine = op.machine;
  env.group = op.group;
  return execBlock(d.schedule, env, op, nullptr, 0);
}

bool Sema::execBlock(const StmtList &body, Env &env, Operation &op,
                     Phase *phase, unsigned depth) {
  size_t scope = env.vars.size();
  auto done = [&](bool r) {
    env.vars.resize(scope);
    return r;
  };
  for (const StmtPtr &stmt : body) {
    switch (stmt->getKind()) {
    case Stmt::Stmt_Let: {
      const auto &s = llvm::cast<LetStmt>(*stmt);
      OptInt v = evalInt(*s.value, env);
      if (!v)
        return done(false);
      env.vars.emplace_back(s.var, *v);
      break;
    }
    case Stmt::Stmt_If: {
      const auto &s = llvm::cast<IfStmt>(*stmt);
      OptInt c = evalInt(*s.cond, env);
      if (!c)
        return done(false);
      if (!execBlock(*c ? s.thenBody : s.elseBody, env, op, phase, depth + 1))
        return done(false);
      break;
    }
    case Stmt::Stmt_For: {
      const auto &s = llvm::cast<ForStmt>(*stmt);
      OptInt lo = evalInt(*s.lo, env);
      if (!lo)
        return done(false);
      OptInt hi = evalInt(*s.hi, env);
      if (!hi)
        return done(false);
      int64_t step = 1;
      if (s.step) {
        OptInt st = evalInt(*s.step, env);
        if (!st)
          return done(false);
        if (*st <= 0) {
          diag.error(s.step->getLoc(),
                     "loop step must be positive, got " + Twine(*st));
          return done(false);
        }
        step = *st;
      }
      // Refuse a loop that would certainly exceed a limit before running
      // it: its trip count against the iteration budget, and the sends its
      // body makes unconditionally against the transfer budget.
      if (*hi > *lo) {
        uint64_t trips =
            (static_cast<uint64_t>(*hi) - static_cast<uint64_t>(*lo) - 1) /
                static_cast<uint64_t>(step) +
            1;
        if (trips > opts.maxLoopIterations -
                        std::min(iterations, opts.maxLoopIterations)) {
          diag.error(s.getLoc(),
                     "loop of " + Twine(trips) +
                         " iterations exceeds the limit of " +
                         Twine(opts.maxLoopIterations) +
                         " loop iterations; reduce the loop bounds");
          return done(false);
        }
        uint64_t perTrip = minSends(s.body);
        if (perTrip &&
            trips > (opts.maxUnrolledTransfers -
                     std::min(unrolledTransfers, opts.maxUnrolledTransfers)) /
                        perTrip) {
          diag.error(s.getLoc(), "hand-written schedules unroll to more than " +
                                     Twine(opts.maxUnrolledTransfers) +
                                     " transfers; reduce the loop bounds");
          return done(false);
        }
      }
      size_t varSlot = env.vars.size();
      env.vars.emplace_back(s.var, *lo);
      for (int64_t i = *lo; i < *hi;) {
        if (!countIteration(s.getLoc()))
          return done(false);
        env.vars[varSlot].second = i;
        if (!execBlock(s.body, env, op, phase, depth + 1))
          return done(false);
        if (__builtin_add_overflow(i, step, &i))
          break;
      }
      env.vars.resize(varSlot);
      break;
    }
    case Stmt::Stmt_Phase: {
      const auto &s = llvm::cast<PhaseStmt>(*stmt);
      if (phase) {
        diag.error(s.getLoc(), "a phase cannot contain another phase");
        return done(false);
      }
      Phase p;
      p.loc = s.getLoc();
      op.phases.push_back(std::move(p));
      size_t idx = op.phases.size() - 1;
      // Sema never holds a pointer across push_back: pass a stable copy.
      Phase current;
      current.loc = s.getLoc();
      if (!execBlock(s.body, env, op, &current, depth + 1))
        return done(false);
      if (current.transfers.empty())
        op.phases.erase(op.phases.begin() + idx);
      else
        op.phases[idx] = std::move(current);
      break;
    }
    case Stmt::Stmt_Send: {
      const auto &s = llvm::cast<SendStmt>(*stmt);
      if (!phase) {
        diag.error(s.getLoc(), "'send' must be inside a 'phase { ... }'");
        return done(false);
      }
      OptInt src = evalInt(*s.src, env);
      if (!src)
        return done(false);
      OptInt dst = evalInt(*s.dst, env);
      if (!dst)
        return done(false);
      for (auto [r, e] :
           {std::pair{*src, s.src.get()}, std::pair{*dst, s.dst.get()}}) {
        if (r < 0 || r > INT32_MAX ||
            !op.group->contains(static_cast<int32_t>(r))) {
          diag.error(e->getLoc(), "rank " + Twine(r) + " is not in group '" +
                                      op.group->name + "' of operation '" +
                                      op.name + "'");
          return done(false);
        }
      }
      int64_t bytes = op.blockBytes;
      if (s.bytes) {
        OptInt b = evalSize(*s.bytes, env, "transfer size");
        if (!b)
          return done(false);
        bytes = *b;
      } else if (bytes <= 0) {
        diag.error(s.getLoc(), "'send' needs a size ('send A -> B : SIZE;'): "
                               "operation '" +
                                   op.name + "' has no block size");
        return done(false);
      }
      if (++unrolledTransfers > opts.maxUnrolledTransfers) {
        diag.error(s.getLoc(), "hand-written schedules unroll to more than " +
                                   Twine(opts.maxUnrolledTransfers) +
                                   " transfers; reduce the loop bounds");
        return done(false);
      }
      phase->transfers.push_back(Transfer{static_cast<int32_t>(*src),
                                          static_cast<int32_t>(*dst), bytes,
                                          s.getLoc()});
      break;
    }
    }
  }
  return done(true);
}

void Sema::verifySchedule(Operation &op) {
  // Checks that a hand-written schedule delivers exactly the traffic of its
  // operation, for the operations whose traffic is a matrix. Self-transfers
  // (local copies) are optional.
  int64_t n = op.group->size();
  if (n * n > opts.maxMatrixEntries)
    return;
  std::vector<int64_t> need;
  switch (op.kind) {
  case OpKind::Alltoall:
  case OpKind::Transpose:
    need.assign(n * n, op.blockBytes);
    break;
  case OpKind::Alltoallv:
    need = op.sizes;
    break;
  case OpKind::Permute:
    if (op.elementLevel) {
      need = op.sizes;
    } else {
      need.assign(n * n, 0);
      for (int64_t i = 0; i < n; ++i)
        need[i * n + op.permutation[i]] = op.blockBytes;
    }
    break;
  default:
    return;
  }
  std::vector<int64_t> got(n * n, 0);
  for (const Phase &p : op.phases)
    for (const Transfer &t : p.transfers) {
      int64_t &slot =
          got[op.group->indexOf(t.src) * n + op.group->indexOf(t.dst)];
      if (__builtin_add_overflow(slot, t.bytes, &slot))
        slot = INT64_MAX;
    }
  unsigned reported = 0;
  uint64_t mismatches = 0;
  for (int64_t s = 0; s < n; ++s)
    for (int64_t d = 0; d < n; ++d) {
      int64_t i = s * n + d;
      if (got[i] == need[i] || (s == d && got[i] == 0))
        continue;
      ++mismatches;
      if (reported++ < 3)
        diag.error(op.scheduleLoc,
                   "hand-written schedule of '" + op.name + "' sends " +
                       Twine(got[i]) + " bytes from rank " +
                       Twine(op.group->ranks[s]) + " to rank " +
                       Twine(op.group->ranks[d]) + ", but " +
                       stringifyOpKind(op.kind) + " needs " + Twine(need[i]));
    }
  if (mismatches > 3)
    diag.note(op.scheduleLoc,
              Twine(mismatches) + " (src, dst) pairs differ in total");
}

void Sema::checkOps() {
  for (const OpDecl &d : mod.ops) {
    if (const Operation *prev = prog->lookupOperation(d.name)) {
      diag.error(d.loc, "duplicate operation '" + d.name + "'");
      diag.note(prev->loc, "previous definition is here");
      continue;
    }
    auto op = std::make_unique<Operation>();
    unsigned before = diag.numErrors();
    bool ok = checkOp(d, *op);
    if (ok && diag.numErrors() == before)
      prog->operations.push_back(std::move(op));
    if (iterationLimitHit || diag.shouldStop())
      return;
  }
}

std::unique_ptr<Program> Sema::run() {
  prog = std::make_unique<Program>();
  llvm::SourceMgr &sm = diag.sourceMgr();
  prog->fileName =
      sm.getMemoryBuffer(sm.getMainFileID())->getBufferIdentifier().str();
  unsigned before = diag.numErrors();
  checkConstants();
  checkMachines();
  checkGroups();
  checkArrays();
  checkOps();
  if (diag.numErrors() != before)
    return nullptr;
  return std::move(prog);
}

std::unique_ptr<Program> phasec::lang::runSema(const Module &module,
                                               const FrontendOptions &opts,
                                               DiagnosticEngine &diag) {
  Sema sema(module, opts, diag);
  return sema.run();
}
