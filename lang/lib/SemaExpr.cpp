//===- SemaExpr.cpp - Expressions, units and constants --------------------===//
//
// Part of phasec, the .sched language front end.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Sema: evaluation of expressions (overflow-checked 64-bit integers, reals
/// for rates and times), unit conversion, and the top-level constants.
///
//===----------------------------------------------------------------------===//

#include "Sema.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cmath>

using namespace phasec::lang;
using namespace phasec::lang::sema;
using namespace phasec::lang::syntax;

namespace {

bool hasFloat(const Expr &e) {
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

std::optional<double> sizeUnit(StringRef u) {
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
std::optional<double> rateUnit(StringRef u) {
  if (!u.consume_back("/s"))
    return std::nullopt;
  return sizeUnit(u);
}
std::optional<double> timeUnit(StringRef u) {
  return llvm::StringSwitch<std::optional<double>>(u)
      .Case("ns", 1e-9)
      .Case("us", 1e-6)
      .Case("ms", 1e-3)
      .Case("s", 1.0)
      .Default(std::nullopt);
}

} // namespace

std::optional<NamedValue> phasec::lang::sema::asNamedValue(const Expr *e) {
  if (auto *id = llvm::dyn_cast_or_null<IdentExpr>(e))
    return NamedValue{id->name, {}, /*isCall=*/false, id->getLoc()};
  if (auto *call = llvm::dyn_cast_or_null<CallExpr>(e))
    return NamedValue{call->callee, call->args, /*isCall=*/true,
                      call->getLoc()};
  return std::nullopt;
}

/// Whether `e` is the bare name `name`.
bool phasec::lang::sema::isName(const Expr *e, StringRef name) {
  auto *id = llvm::dyn_cast_or_null<IdentExpr>(e);
  return id && id->name == name;
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

OptInt Sema::lookupVar(const IdentExpr &e, Env &env) {
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

OptInt Sema::evalCall(const CallExpr &e, Env &env) {
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
      if (a[0] < 0 || a[0] >= m->supernodes || a[1] < 0 || a[1] >= m->drawers ||
          a[2] < 0 || a[2] >= m->nodesPerDrawer)
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

OptInt Sema::evalInt(const Expr &e, Env &env) {
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

OptInt Sema::evalUnary(const UnaryExpr &e, Env &env) {
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

OptInt Sema::evalBinary(const BinaryExpr &e, Env &env) {
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

std::optional<double> Sema::evalReal(const Expr &e, Env &env) {
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

//===----------------------------------------------------------------------===//
// Units
//===----------------------------------------------------------------------===//

void Sema::badUnit(const Value &v, StringRef what, StringRef valid) {
  SMLoc at = v.unitLoc.isValid() ? v.unitLoc : v.loc;
  if (v.unit.empty())
    diag.error(at, Twine(what) + " needs a unit (" + valid + ")");
  else
    diag.error(at,
               "bad unit '" + v.unit + "' for " + what + "; expected " + valid);
}

OptInt Sema::evalSize(const Value &v, Env &env, StringRef what,
                      bool allowZero) {
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

std::optional<double> Sema::evalScaled(const Value &v, Env &env, StringRef what,
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

OptInt Sema::evalPlainInt(const Value &v, Env &env, StringRef what) {
  if (!v.expr)
    return std::nullopt;
  if (!v.unit.empty()) {
    diag.error(v.unitLoc,
               "bad unit '" + v.unit + "': " + what + " is a plain integer");
    return std::nullopt;
  }
  return evalInt(*v.expr, env);
}

OptInt Sema::evalPositiveInt(const Value &v, Env &env, StringRef what) {
  OptInt x = evalPlainInt(v, env, what);
  if (x && *x <= 0)
    return fail(v.loc, Twine(what) + " must be positive, got " + Twine(*x));
  return x;
}

std::string Sema::identValue(const Value &v, StringRef what) {
  if (!v.expr)
    return "";
  auto *id = llvm::dyn_cast<IdentExpr>(v.expr.get());
  if (!id || !v.unit.empty()) {
    diag.error(v.loc, "expected a name for " + what);
    return "";
  }
  return id->name;
}

void Sema::unknownValue(const Value &v, StringRef what, StringRef got,
                        StringRef valid) {
  diag.error(v.loc, "unknown " + what + " '" + got + "'");
  diag.note(v.loc, "valid values: " + valid);
}

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
