//===- SemaOp.cpp - Operations --------------------------------------------===//
//
// Part of phasec, the .sched language front end.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Sema: operation declarations, their directives, size matrices and
/// permutations.
///
//===----------------------------------------------------------------------===//

#include "Sema.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace phasec::lang;
using namespace phasec::lang::sema;
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

} // namespace

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
