//===- SemaOpKinds.cpp - Operations: the checks specific to a kind --------===//
//
// Part of phasec, the .sched language front end.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Sema: the check each row of the operation table (SemaOp.cpp) names, run
/// after the generic part has checked the directives, the group, the root
/// and the required directives: block sizes, reductions, PAPERS aggregates,
/// size matrices, transposes and permutations (patterns and tables).
///
//===----------------------------------------------------------------------===//

#include "Sema.h"
#include "phasec/Core/UserFiles.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace phasec::lang;
using namespace phasec::lang::sema;
using namespace phasec::lang::syntax;

bool Sema::setElementType(OpContext &c) {
  Operation &op = c.op;
  op.elementType = ElementType::Int32;
  const Property *p = c.get("type");
  if (!p)
    return true;
  std::string t = identValue(p->value, "'type'");
  if (t.empty())
    return false;
  if (std::optional<ElementType> type = symbolizeElementType(t)) {
    op.elementType = *type;
    return true;
  }
  unknownValue(p->value, "element type", t,
               joinSpellings<ElementType>(getMaxEnumValForElementType()));
  return false;
}

bool Sema::checkBlockOp(OpContext &c) {
  OptInt b = evalSize(c.get("block")->value, c.env, "block size");
  if (!b)
    return false;
  c.op.blockBytes = *b;
  return true;
}

bool Sema::checkReduction(OpContext &c) {
  Operation &op = c.op;
  Env &env = c.env;
  const Property *opProp = c.get("op");
  std::string o = identValue(opProp->value, "'op'");
  if (o.empty())
    return false;
  std::optional<ReduceKind> r = symbolizeReduceKind(o);
  if (!r) {
    unknownValue(opProp->value, "reduction operator", o,
                 joinSpellings<ReduceKind>(getMaxEnumValForReduceKind()));
    return false;
  }
  op.reduceOp = *r;
  // A PAPERS aggregate's type was read with its value (1-bit values too).
  if (!op.valueType && !setElementType(c))
    return false;
  op.count = 1;
  if (const Property *p = c.get("count")) {
    OptInt count = evalPositiveInt(p->value, env, "count");
    if (!count)
      return false;
    op.count = *count;
  }
  bool isFloat = op.elementType == ElementType::F32 ||
                 op.elementType == ElementType::F64 ||
                 op.elementType == ElementType::Complex64 ||
                 op.elementType == ElementType::Complex128;
  bool isComplex = op.elementType == ElementType::Complex64 ||
                   op.elementType == ElementType::Complex128;
  bool bitwise = op.reduceOp == ReduceKind::And ||
                 op.reduceOp == ReduceKind::Or ||
                 op.reduceOp == ReduceKind::Xor;
  if (bitwise && isFloat) {
    diag.error(opProp->value.loc, "bitwise reduction '" +
                                      stringifyReduceKind(op.reduceOp) +
                                      "' needs an integer element type, not " +
                                      stringifyElementType(op.elementType));
    return false;
  }
  if (isComplex &&
      (op.reduceOp == ReduceKind::Min || op.reduceOp == ReduceKind::Max)) {
    diag.error(opProp->value.loc, "complex numbers have no order for '" +
                                      stringifyReduceKind(op.reduceOp) + "'");
    return false;
  }
  if (const Property *p = c.get("counts")) {
    // reduce_scatter's counts: elements of each member's block, a rule of
    // `member` and `rank` (0 allowed); `count` is then the largest.
    if (c.get("count")) {
      diag.error(p->loc, "reduce_scatter takes 'count' or 'counts', not both");
      return false;
    }
    int64_t bytes = elementTypeBytes(op.elementType);
    op.memberBytes.assign(c.n, 0);
    op.count = 0;
    if (!forEachMember(c, p, [&](int64_t i) {
          OptInt k = evalPlainInt(p->value, env, "counts");
          if (!k)
            return false;
          if (*k < 0 || __builtin_mul_overflow(*k, bytes, &op.memberBytes[i])) {
            diag.error(p->value.loc,
                       "counts must be 0 or more elements and fit, got " +
                           Twine(*k) + " for member " + Twine(i));
            return false;
          }
          op.count = std::max(op.count, *k);
          return true;
        }))
      return false;
  }
  if (__builtin_mul_overflow(op.count, elementTypeBytes(op.elementType),
                             &op.blockBytes)) {
    diag.error(c.get("count")->value.loc, "count is too large");
    return false;
  }
  return true;
}

bool Sema::checkAnyAll(OpContext &c) {
  Operation &op = c.op;
  op.reduceOp =
      op.aggregate == Aggregate::Any ? ReduceKind::Or : ReduceKind::And;
  op.elementType = ElementType::UInt8;
  op.count = 1;
  op.blockBytes = 1;
  return true;
}

bool Sema::checkWaitvec(OpContext &c) {
  // One vote bit per member, carried in a byte.
  Operation &op = c.op;
  op.elementType = ElementType::UInt8;
  op.count = 1;
  op.blockBytes = 1;
  return checkMaskFits(c);
}

bool Sema::checkMaskFits(OpContext &c) {
  const Group &g = *c.op.group;
  if (g.ranks.back() < 64)
    return true;
  diag.error(c.decl.loc, "'" + c.decl.name +
                             "' returns a PAPERS bit mask of "
                             "64 ranks, but group '" +
                             g.name + "' has rank " + Twine(g.ranks.back()));
  return false;
}

bool Sema::checkBcast(OpContext &c) {
  // p_bcastPut(d) / p_bcastGet(): a bitwise or in which every member but
  // the sender contributes 0 (seed 004); the bits move as an unsigned
  // integer of the value's size.
  Operation &op = c.op;
  op.reduceOp = ReduceKind::Or;
  switch (op.blockBytes) {
  case 1:
    op.elementType = ElementType::UInt8;
    break;
  case 2:
    op.elementType = ElementType::UInt16;
    break;
  case 4:
    op.elementType = ElementType::UInt32;
    break;
  default:
    op.elementType = ElementType::UInt64;
    break;
  }
  return true;
}

bool Sema::sizeMatrixFits(const OpContext &c, bool quoteLimit) {
  if (c.n * c.n <= opts.maxMatrixEntries)
    return true;
  std::string limit =
      quoteLimit
          ? (" (limit " + Twine(opts.maxMatrixEntries) + " entries)").str()
          : "";
  diag.error(c.decl.loc, "group '" + c.op.group->name + "' of " + Twine(c.n) +
                             " ranks is too large for a size matrix" + limit);
  return false;
}

bool Sema::bindIteration(
    Env &env, SMLoc loc,
    std::initializer_list<std::pair<StringRef, int64_t>> vars) {
  if (!countIteration(loc))
    return false;
  env.vars.clear();
  for (const auto &[name, value] : vars)
    env.vars.emplace_back(name.str(), value);
  return true;
}

bool Sema::forEachMember(OpContext &c, const Property *p,
                         llvm::function_ref<bool(int64_t)> each) {
  for (int64_t i = 0; i < c.n; ++i)
    if (!bindIteration(c.env, p->value.loc,
                       {{"rank", c.op.group->ranks[i]}, {"member", i}}) ||
        !each(i))
      return false;
  c.env.vars.clear();
  return true;
}

bool Sema::checkPutget(OpContext &c) {
  const Property *p = c.get("source");
  Operation &op = c.op;
  // Without `source` each member names its source when it calls (seed
  // 004's p_putget(d, s)): every member's value reaches every member.
  if (!p) {
    op.kind = CollectiveKind::Allgather;
    return true;
  }
  if (!sizeMatrixFits(c, /*quoteLimit=*/false))
    return false;
  const int64_t n = c.n;
  op.sizes.assign(n * n, 0);
  for (int64_t i = 0; i < n; ++i) {
    if (!bindIteration(c.env, p->value.loc,
                       {{"rank", op.group->ranks[i]}, {"index", i}}))
      return false;
    OptInt s = evalPlainInt(p->value, c.env, "source");
    if (!s)
      return false;
    int64_t si = (*s >= 0 && *s <= INT32_MAX)
                     ? op.group->indexOf(static_cast<int32_t>(*s))
                     : -1;
    if (si < 0) {
      diag.error(p->value.loc, "source rank " + Twine(*s) + " of rank " +
                                   Twine(op.group->ranks[i]) +
                                   " is not in group '" + op.group->name + "'");
      return false;
    }
    op.sizes[si * n + i] += op.blockBytes;
  }
  op.blockBytes = 0;
  c.env.vars.clear();
  return true;
}

bool Sema::isFileCall(const Property *p) {
  auto *call = llvm::dyn_cast_or_null<CallExpr>(p->value.expr.get());
  return call && call->callee == "file";
}

bool Sema::readSizesFile(const Property *p, std::vector<int64_t> &out,
                         int64_t count, llvm::StringRef what) {
  auto *call = llvm::cast<CallExpr>(p->value.expr.get());
  auto *file = call->args.size() == 1
                   ? llvm::dyn_cast<StringExpr>(call->args[0].get())
                   : nullptr;
  if (!file) {
    diag.error(call->getLoc(), "'file' takes one file name string");
    return false;
  }
  if (!readIntegers(file->value, p->value.loc, out, count, what))
    return false;
  for (int64_t s : out)
    if (s < 0) {
      diag.error(p->value.loc, what + " holds a negative size " + Twine(s));
      return false;
    }
  return true;
}

bool Sema::checkAlltoallv(OpContext &c) {
  Operation &op = c.op;
  Env &env = c.env;
  int64_t n = c.n;
  const Property *p = c.get("sizes");
  if (!sizeMatrixFits(c, /*quoteLimit=*/true))
    return false;
  if (isFileCall(p))
    return readSizesFile(p, op.sizes, n * n, "size matrix");
  op.sizes.assign(n * n, 0);
  for (int64_t si = 0; si < n; ++si)
    for (int64_t di = 0; di < n; ++di) {
      if (!bindIteration(env, p->value.loc,
                         {{"src", op.group->ranks[si]},
                          {"dst", op.group->ranks[di]},
                          {"src_index", si},
                          {"dst_index", di}}))
        return false;
      OptInt s = evalSize(p->value, env, "size", /*allowZero=*/true);
      if (!s)
        return false;
      op.sizes[si * n + di] = *s;
    }
  env.vars.clear();
  return true;
}

bool Sema::checkMemberSizes(OpContext &c) {
  Operation &op = c.op;
  const Property *p = c.get("sizes");
  if (isFileCall(p)) {
    if (!readSizesFile(p, op.memberBytes, c.n, "member sizes"))
      return false;
  } else {
    op.memberBytes.assign(c.n, 0);
    if (!forEachMember(c, p, [&](int64_t i) {
          OptInt s = evalSize(p->value, c.env, "size", /*allowZero=*/true);
          op.memberBytes[i] = s.value_or(0);
          return s.has_value();
        }))
      return false;
  }
  op.blockBytes = *llvm::max_element(op.memberBytes);
  return true;
}

bool Sema::checkTranspose(OpContext &c) {
  const OpDecl &d = c.decl;
  Operation &op = c.op;
  int64_t n = c.n;
  const Array *fromArray = c.fromArray, *toArray = c.toArray;
  op.from = fromArray;
  op.to = toArray;
  if (fromArray->shape.size() != 2 || toArray->shape.size() != 2) {
    diag.error(d.loc,
               "transpose '" + d.name + "' needs two-dimensional arrays");
    return false;
  }
  if (toArray->shape[0] != fromArray->shape[1] ||
      toArray->shape[1] != fromArray->shape[0]) {
    diag.error(c.get("to")->value.loc,
               "array '" + toArray->name + "' is " + Twine(toArray->shape[0]) +
                   " x " + Twine(toArray->shape[1]) +
                   ", but the transpose of '" + fromArray->name + "' is " +
                   Twine(fromArray->shape[1]) + " x " +
                   Twine(fromArray->shape[0]));
    return false;
  }
  if (toArray->elementType != fromArray->elementType) {
    diag.error(c.get("to")->value.loc,
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
  op.elementType = fromArray->elementType;
  // Between a rows- and a cols-distributed array every member transposes
  // its own slab: nothing moves, no block.
  if (toArray->distribution != fromArray->distribution)
    return true;
  // The block of one pair: what a hand-written `send` moves by default
  // (docs/language.md). Both extents divide by n: Sema checked that each
  // array's group divides its distributed extent, and the two arrays are
  // transposes distributed alike.
  int64_t rowsPer = fromArray->shape[0] / n, colsPer = fromArray->shape[1] / n;
  op.blockBytes = rowsPer * colsPer * elementTypeBytes(fromArray->elementType);
  return true;
}

bool Sema::checkValueBits(OpContext &c) {
  Operation &op = c.op;
  if (const Property *p = c.get("bits")) {
    ElementType t = op.valueType.value_or(op.elementType);
    bool isUnsigned = t == ElementType::UInt8 || t == ElementType::UInt16 ||
                      t == ElementType::UInt32 || t == ElementType::UInt64;
    if (op.valueLogical || !isUnsigned) {
      diag.error(p->loc,
                 "'bits' restricts an unsigned integer value (seed "
                 "004's Bits variants), not " +
                     Twine(op.valueLogical ? "a 1-bit value"
                                           : stringifyElementType(t).str()));
      return false;
    }
    int64_t width = 8 * elementTypeBytes(t);
    OptInt k = evalPositiveInt(p->value, c.env, "bits");
    if (!k)
      return false;
    if (*k > width) {
      diag.error(p->value.loc, "bits = " + Twine(*k) + " is wider than " +
                                   stringifyElementType(t) + " (" +
                                   Twine(width) + " bits)");
      return false;
    }
    op.valueBits = *k == width ? 0 : *k;
  }
  if (op.valueLogical && op.aggregate != Aggregate::Bcast &&
      (op.reduceOp == ReduceKind::Add || op.reduceOp == ReduceKind::Mul) &&
      (op.aggregate == Aggregate::Reduce || op.aggregate == Aggregate::Scan)) {
    diag.error(c.get("op")->value.loc,
               "1-bit values combine with and, or, xor, min or max, not " +
                   stringifyReduceKind(op.reduceOp));
    return false;
  }
  // What every member's value becomes on the wire where the aggregate
  // gathers the values themselves: the narrowest unsigned integer that
  // holds the bits (the seed's reason for the Bits variants).
  if (op.valueBits && gathersToAll(op.kind))
    op.blockBytes = op.valueBits <= 8    ? 1
                    : op.valueBits <= 16 ? 2
                    : op.valueBits <= 32 ? 4
                                         : 8;
  return true;
}

bool Sema::checkLocal(OpContext &c) {
  const Property *p = c.get("call");
  if (!p)
    return true;
  // An identifier is all Sema can check; whether it is a C name the
  // generated file may declare is the back ends' (checkOperationName).
  std::string name = identValue(p->value, "'call'");
  if (name.empty())
    return false;
  c.op.call = name;
  return true;
}

/// `pattern = runtime`: the destinations come with the call.
static bool isRuntimePattern(const Property &p) {
  std::optional<NamedValue> e = asNamedValue(p.value.expr.get());
  return e && e->name == "runtime";
}

bool Sema::checkPermute(OpContext &c) {
  const OpDecl &d = c.decl;
  Operation &op = c.op;
  Env &env = c.env;
  int64_t n = c.n;
  const Array *fromArray = c.fromArray, *toArray = c.toArray;
  const Property *pat = c.get("pattern");
  if (fromArray) {
    op.elementLevel = true;
    op.from = fromArray;
    op.to = toArray ? toArray : fromArray;
    if (c.get("block")) {
      diag.error(c.get("block")->loc, "an element-level permute moves array "
                                      "elements; it takes no 'block'");
      return false;
    }
    if (op.to->shape != op.from->shape ||
        op.to->elementType != op.from->elementType ||
        op.to->group->size() != n) {
      diag.error(c.get("to")->value.loc,
                 "array '" + op.to->name + "' must match '" + op.from->name +
                     "' in shape, element type and group "
                     "size");
      return false;
    }
    int64_t elems = op.from->numElements();
    // Run-time destinations materialise nothing here.
    bool runtime = pat && isRuntimePattern(*pat);
    if (!runtime && elems > opts.maxPermutationElements) {
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
    // The rank-to-rank traffic is Collective::lower's to derive (it knows
    // both distributions); Sema only checks the program.
    op.elementType = op.from->elementType;
  } else {
    if (toArray) {
      diag.error(c.get("to")->loc, "'to' needs 'from' (an element-level "
                                   "permute)");
      return false;
    }
    if (c.get("style")) {
      diag.error(c.get("style")->loc, "'style' applies to array operations "
                                      "(transpose, element-level permute)");
      return false;
    }
    const Property *b = c.get("block");
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
  return true;
}

bool Sema::resolveSideFile(const std::string &file, SMLoc loc,
                           StringRef what, std::string &out) {
  // Relative paths name files next to the .sched file (standard input's
  // are relative to the current directory).
  StringRef mainName = diag.sourceMgr()
                           .getMemoryBuffer(diag.sourceMgr().getMainFileID())
                           ->getBufferIdentifier();
  llvm::SmallString<256> base;
  if (mainName != "<stdin>")
    base = llvm::sys::path::parent_path(mainName);
  llvm::SmallString<256> path(file);
  if (!llvm::sys::path::is_absolute(path)) {
    llvm::SmallString<256> joined(base);
    llvm::sys::path::append(joined, file);
    path = joined;
  }
  out = path.str().str();
  // Where it really is (links followed, `..` gone): inside the .sched
  // file's directory or an include directory, or refused.
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(path, real))
    return true; // readBoundedFile says why it cannot be read
  auto inside = [&](StringRef dir) {
    llvm::SmallString<256> root;
    if (llvm::sys::fs::real_path(dir, root))
      return false;
    StringRef r = real;
    return r.starts_with(root) &&
           (r.size() == root.size() ||
            llvm::sys::path::is_separator(r[root.size()]) ||
            llvm::sys::path::is_separator(root.back()));
  };
  if (inside(base.empty() ? "." : base.str()) ||
      llvm::any_of(opts.includeDirs, inside))
    return true;
  diag.error(loc, Twine(what) + " file '" + out +
                      "' lies outside the directory of the .sched file and "
                      "every include directory");
  diag.note(loc, "name its directory with -I DIR (--include-dir) to read it");
  return false;
}

bool Sema::readIntegers(const std::string &file, SMLoc loc,
                        std::vector<int64_t> &out, int64_t expected,
                        StringRef what) {
  if (!opts.allowFileReads) {
    diag.error(loc, "reading files is disabled");
    return false;
  }
  std::string path;
  if (!resolveSideFile(file, loc, what, path))
    return false;
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> buf = readBoundedFile(
      path, opts.maxFileBytes, error, (Twine(what) + " file").str());
  if (!buf) {
    diag.error(loc, error);
    return false;
  }
  StringRef text = buf->getBuffer();
  const StringRef whole = text;
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
      // The file's contents are never echoed (it may be anything the
      // user can read): say where, not what.
      size_t line = 1 + whole.take_front(tok.data() - whole.data()).count('\n');
      diag.error(loc, Twine(what) + " file '" + path + "' holds something "
                          "that is not an integer on line " + Twine(line));
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
                           "shift(k), table(\"file\"), runtime");
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
  // Sema checks the pattern and records it; Collective::getPermutation is
  // the one place that materialises it. Only a table, which is data, is kept.
  bool pow2 = n > 0 && (n & (n - 1)) == 0;
  if (e->name == "random") {
    OptInt seed = oneArg();
    if (!seed)
      return false;
    op.permuteKind = PermuteKind::Random;
    op.seed = static_cast<uint64_t>(*seed);
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
    return true;
  }
  if (e->name == "shift") {
    OptInt k = oneArg();
    if (!k)
      return false;
    op.permuteKind = PermuteKind::Shift;
    op.shift = *k;
    return true;
  }
  if (e->name == "runtime") {
    if (!e->args.empty()) {
      diag.error(e->loc, "'runtime' takes no arguments");
      return false;
    }
    if (!op.elementLevel) {
      diag.error(p.value.loc, "run-time destinations need an element-level "
                              "permute ('from = ARRAY;'): a rank-level permute "
                              "is a fixed pairing of ranks");
      return false;
    }
    op.permuteKind = PermuteKind::Runtime;
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
    op.permutation.resize(n);
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
               "table(\"file\"), runtime");
  return false;
}
