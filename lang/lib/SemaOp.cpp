//===- SemaOp.cpp - Operations: the table of kinds and the generic checks -===//
//
// Part of phasec, the .sched language front end.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Sema: operation declarations. One table row per operation keyword gives
/// its CollectiveKind, its directives and the required ones; the checks every kind
/// shares (unknown, duplicate, misplaced and missing directives, machine,
/// group, root, the common directives, a hand-written schedule) are driven
/// by it, and the row's own check (SemaOpKinds.cpp) does the rest. Adding an
/// operation kind is adding a row and, if it needs one, its check.
///
//===----------------------------------------------------------------------===//

#include "Sema.h"

#include "phasec/Core/GeneratedNames.h"
#include "phasec/Core/TopologyDesc.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"

#include <cmath>

using namespace phasec::lang;
using namespace phasec::lang::sema;
using namespace phasec::lang::syntax;

namespace {

/// The directives every operation takes, first in every "takes:" note.
const StringRef kCommonDirectives[] = {"algorithm", "sync", "rlimit",
                                       "machine"};

/// The keys of a space-separated list of the operation table.
llvm::SmallVector<StringRef, 8> keyList(StringRef list) {
  llvm::SmallVector<StringRef, 8> keys;
  list.split(keys, ' ', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  return keys;
}

/// One root's blocks, one to each member (scatter, one_to_all).
bool isOneToAll(phasec::CollectiveKind kind) {
  phasec::DataSide send = phasec::getTraits(kind).send;
  return send.rootOnly() && send.part == phasec::DataPart::PerMember;
}

std::string joinNames(llvm::ArrayRef<StringRef> names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i)
      out += ", ";
    out += names[i].str();
  }
  return out;
}

} // namespace

// The PAPERS aggregates (seed 004) are rows too: each maps onto the CollectiveKind
// that moves its data (see docs/language.md). The order of the rows is the
// order of the "operations:" note.
/// What the "algorithms:" notes list.
static const std::string kAlgorithmList =
    "auto, direct, pairwise, linear_shift, xor, bruck, k_level(k), "
    "k_level(k, shape), k_level(logp, rec, gamma), binomial, binary, "
    "knomial(k), chain(s), ring(s), recursive_doubling, recursive_halving, "
    "rabenseifner(s), scatter_allgather, scatter_rdb_allgather, "
    "scatter_bruck_allgather, "
    "reduce_broadcast(k), dissemination, "
    "dimension_wise(p), double_chain(s), grid(c), gather_evaluate";

/// k_level's submachine shapes, from the vocabulary ('none' is the
/// default, not a name to write).
static const std::string kShapeList = [] {
  std::string out;
  for (unsigned v = 1; v <= phasec::getMaxEnumValForKLevelShape(); ++v)
    out += (v > 1 ? ", '" : "'") +
           phasec::stringifyKLevelShape(static_cast<phasec::KLevelShape>(v))
               .str() +
           "'";
  return out;
}();

/// The operations whose data is not blocks or reductions: each its own
/// directives and check.
const Sema::OpSpec Sema::ownSpecs[] = {
    {"alltoallv", CollectiveKind::Alltoallv, Aggregate::None, "sizes", "sizes",
     "alltoallv", "'sizes = EXPR SIZE_UNIT;' or 'sizes = file(\"...\");'",
     &Sema::checkAlltoallv},
    {"transpose", CollectiveKind::Transpose, Aggregate::None,
     "from to style loop_order", "from to", "transpose",
     "'from = ARRAY;' and 'to = ARRAY;'", &Sema::checkTranspose},
    {"permute", CollectiveKind::Permute, Aggregate::None,
     "pattern block from to style", "pattern", "permute", "'pattern = ...;'",
     &Sema::checkPermute},
    {"barrier", CollectiveKind::Barrier, Aggregate::None, "", "", "", "",
     nullptr},
    {"local", CollectiveKind::Local, Aggregate::None, "call", "", "", "",
     &Sema::checkLocal},
};

/// The operation of `kind`: its own row, or its family's (blocks take a
/// block, reductions an operator, type and count; a root where the kind
/// has one). The keyword is the vocabulary's spelling.
Sema::OpSpec Sema::specOf(CollectiveKind kind) {
  for (const OpSpec &own : ownSpecs)
    if (own.kind == kind)
      return own;
  const CollectiveTraits &t = getTraits(kind);
  assert(t.shape == DataShape::Blocks && "a kind without an operation row");
  OpSpec spec{stringifyCollectiveKind(kind).data(),
              kind,
              Aggregate::None,
              t.rooted ? "root block" : "block",
              "block",
              "operation",
              "'block = SIZE;'",
              &Sema::checkBlockOp};
  if (t.reduces) {
    spec.directives = t.rooted ? "root op type count" : "op type count";
    // MPI_Reduce_scatter's recvcounts: a block of its own size per member.
    if (kind == CollectiveKind::ReduceScatter)
      spec.directives = "op type count counts";
    spec.required = "op";
    spec.needs = "'op = add|mul|min|max|and|or|xor;'";
    spec.check = &Sema::checkReduction;
  }
  return spec;
}

/// One row per CollectiveKind, in case order (the "operations:" note's),
/// then MPI's v-collectives: the kind's operation with a block of its own
/// size at every member.
const std::vector<Sema::OpSpec> Sema::opSpecs = [] {
  std::vector<OpSpec> specs;
  for (const CollectiveTraits &t : getAllTraits())
    specs.push_back(specOf(t.kind));
  const char *needs = "'sizes = EXPR SIZE_UNIT;' or 'sizes = file(\"...\");'";
  specs.push_back({"allgatherv", CollectiveKind::Allgather, Aggregate::None,
                   "sizes", "sizes", "allgatherv", needs,
                   &Sema::checkMemberSizes});
  specs.push_back({"gatherv", CollectiveKind::Gather, Aggregate::None,
                   "root sizes", "sizes", "gatherv", needs,
                   &Sema::checkMemberSizes});
  specs.push_back({"scatterv", CollectiveKind::Scatter, Aggregate::None,
                   "root sizes", "sizes", "scatterv", needs,
                   &Sema::checkMemberSizes});
  return specs;
}();

// The PAPERS aggregates. Each maps onto the CollectiveKind that moves its
// data; the back ends add the aggregate's own function (its value in, its
// result out: docs/language.md, "PAPERS aggregates").
const Sema::OpSpec Sema::papersSpecs[] = {
    {"wait", CollectiveKind::Barrier, Aggregate::Barrier, "", "", "", "",
     nullptr},
    {"waitvec", CollectiveKind::Allgather, Aggregate::Waitvec, "", "", "", "",
     &Sema::checkWaitvec},
    {"any", CollectiveKind::Allreduce, Aggregate::Any, "", "", "", "",
     &Sema::checkAnyAll},
    {"all", CollectiveKind::Allreduce, Aggregate::All, "", "", "", "",
     &Sema::checkAnyAll},
    {"putget", CollectiveKind::Alltoallv, Aggregate::Putget, "source type bits",
     "", "", "", &Sema::checkPutget},
    {"gather", CollectiveKind::Allgather, Aggregate::Gather, "type bits", "",
     "", "", nullptr},
    {"reduce", CollectiveKind::Allreduce, Aggregate::Reduce, "op type bits",
     "op", "reduce", "'op = add|mul|min|max|and|or|xor;'",
     &Sema::checkReduction},
    {"scan", CollectiveKind::Scan, Aggregate::Scan, "op type bits", "op",
     "scan", "'op = add|mul|min|max|and|or|xor;'", &Sema::checkReduction},
    {"bcast", CollectiveKind::Allreduce, Aggregate::Bcast, "type bits", "", "",
     "", &Sema::checkBcast},
    {"rank", CollectiveKind::Allgather, Aggregate::Rank, "type bits", "", "",
     "", nullptr},
    {"vote", CollectiveKind::Allgather, Aggregate::Vote, "type", "", "", "",
     &Sema::checkMaskFits},
    {"match", CollectiveKind::Allgather, Aggregate::Match, "type bits", "", "",
     "", &Sema::checkMaskFits},
    {"population", CollectiveKind::Local, Aggregate::Population, "", "", "", "",
     nullptr},
    {"enumerate", CollectiveKind::Local, Aggregate::Enumerate, "", "", "", "",
     nullptr},
    {"select_first", CollectiveKind::Local, Aggregate::SelectFirst, "", "", "",
     "", nullptr},
    {"select_one", CollectiveKind::Local, Aggregate::SelectOne, "", "", "", "",
     nullptr},
};

/// The row of keyword `kind`: inside a `papers` block the aggregates only;
/// at the top level the operations, then the aggregates whose keyword no
/// operation takes.
const Sema::OpSpec *Sema::findSpec(StringRef kind, bool inPapers) {
  auto is = [&](const OpSpec &s) { return kind == s.keyword; };
  if (!inPapers) {
    auto spec = llvm::find_if(opSpecs, is);
    if (spec != opSpecs.end())
      return &*spec;
  }
  const OpSpec *spec = llvm::find_if(papersSpecs, is);
  return spec == std::end(papersSpecs) ? nullptr : spec;
}

bool Sema::checkOp(const OpDecl &d, Operation &op) {
  const OpSpec *spec = findSpec(d.kind, d.inPapers);
  if (!spec) {
    llvm::SmallVector<StringRef, 16> plain, papers, topLevel, blockOnly;
    for (const OpSpec &s : opSpecs)
      plain.push_back(s.keyword);
    for (const OpSpec &s : papersSpecs) {
      papers.push_back(s.keyword);
      (findSpec(s.keyword, false) == &s ? topLevel : blockOnly)
          .push_back(s.keyword);
    }
    if (d.inPapers) {
      diag.error(d.kindLoc, "unknown PAPERS aggregate '" + d.kind + "'");
      diag.note(d.kindLoc, "a 'papers' block takes: " + joinNames(papers));
      return false;
    }
    diag.error(d.kindLoc, "unknown operation '" + d.kind + "'");
    diag.note(d.kindLoc, "operations: " + joinNames(plain) +
                             "; PAPERS aggregates: " + joinNames(topLevel) +
                             "; in 'papers on GROUP { ... }' also " +
                             joinNames(blockOnly));
    return false;
  }
  if (d.inPapers && d.on.present) {
    diag.error(d.on.loc, "'" + d.name +
                             "' is in a 'papers' block: it runs on the "
                             "block's group, not on a group of its own");
    return false;
  }
  op.kind = spec->kind;
  op.aggregate = spec->aggregate;
  OpContext c{d, *spec, op};
  bool ok = true;

  // Index the properties (duplicates are errors).
  for (const Property &p : d.props) {
    std::string key = p.sub.empty() ? p.key : p.key + "." + p.sub;
    auto [it, inserted] = c.props.try_emplace(key, &p);
    if (!inserted) {
      diag.error(p.loc, "duplicate directive '" + key + "'");
      diag.note(it->second->loc, "previous definition is here");
      ok = false;
    }
  }

  // Which directives this operation takes. A key some other operation takes
  // is misplaced rather than unknown.
  llvm::SmallVector<StringRef, 12> allowed(std::begin(kCommonDirectives),
                                           std::end(kCommonDirectives));
  allowed.append(keyList(spec->directives));
  // `chunks = C;` cuts the data of a hand-written relaying schedule.
  if (d.hasSchedule)
    allowed.push_back("chunks");
  auto takes = [&](StringRef key) { return llvm::is_contained(allowed, key); };
  auto isDirective = [&](StringRef key) {
    auto takesKey = [&](const OpSpec &s) {
      return llvm::is_contained(keyList(s.directives), key);
    };
    return llvm::is_contained(kCommonDirectives, key) ||
           llvm::any_of(opSpecs, takesKey) ||
           llvm::any_of(papersSpecs, takesKey);
  };
  for (const Property &p : d.props) {
    std::string key = p.sub.empty() ? p.key : p.key + "." + p.sub;
    if (takes(key))
      continue;
    if (key == "chunks") {
      diag.error(p.loc, "'chunks' cuts the data of a hand-written relaying "
                        "schedule; '" +
                            d.name + "' has no 'schedule { ... }'");
      ok = false;
      continue;
    }
    if (isDirective(key))
      diag.error(p.loc, "'" + key + "' is not a directive of '" + d.kind + "'");
    else
      diag.error(p.loc, "unknown directive '" + key + "'");
    diag.note(p.loc, "'" + d.kind + "' takes: " + joinNames(allowed));
    ok = false;
  }

  // Machine and group.
  const Machine *hint = nullptr;
  if (const Property *p = c.get("machine")) {
    std::string name = identValue(p->value, "'machine'");
    if (name.empty())
      return false;
    hint = prog->lookupMachine(name);
    if (!hint) {
      if (!llvm::any_of(mod.machines,
                        [&](const MachineDecl &m) { return m.name == name; }))
        diag.error(p->value.loc, "unknown machine '" + name + "'");
      return false;
    }
  }
  // Transposes and element permutes default to their source array's group.
  for (const char *key : {"from", "to"}) {
    const Property *p = c.get(key);
    if (!p || !takes(key))
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
    (StringRef(key) == "from" ? c.fromArray : c.toArray) = a;
  }
  if (!ok)
    return false;
  if (!d.on.present && c.fromArray) {
    op.group = c.fromArray->group;
  } else {
    op.group = resolveTarget(d.inPapers ? d.papersOn : d.on, hint,
                             "operation '" + d.name + "'", d.loc);
  }
  if (!op.group)
    return false;
  op.machine = op.group->machine;
  if (hint && hint != op.machine) {
    diag.error(d.on.loc, "group '" + op.group->name + "' is on machine '" +
                             op.machine->name + "', not '" + hint->name + "'");
    return false;
  }
  c.n = op.group->size();
  c.env.machine = op.machine;
  c.env.group = op.group;

  if (takes("root") && !checkRoot(c))
    return false;
  // PAPERS aggregates that take a 'type' carry one value of it per member.
  // Checked before the required directives: a bad 'type' of a putget is
  // reported before a missing 'source'.
  if (spec->aggregate != Aggregate::None && takes("type")) {
    // Seed 004's 1-bit logical values ("1u"), carried as uint8 0 or 1.
    const Property *typeProp = c.get("type");
    if (typeProp && isName(typeProp->value.expr.get(), "bit")) {
      if (spec->aggregate == Aggregate::Vote) {
        diag.error(typeProp->value.loc,
                   "'vote' takes ranks, which do not fit in 1-bit values");
        return false;
      }
      op.elementType = ElementType::UInt8;
      op.valueLogical = true;
      op.valueBits = 1;
    } else if (!setElementType(c)) {
      return false;
    }
    if (op.elementType == ElementType::Complex64 ||
        op.elementType == ElementType::Complex128) {
      diag.error(c.get("type")->value.loc,
                 "PAPERS aggregates take integers, f32 and f64, not " +
                     stringifyElementType(op.elementType));
      return false;
    }
    op.valueType = op.elementType;
    op.count = 1;
    op.blockBytes = elementTypeBytes(op.elementType);
  }
  for (StringRef key : keyList(spec->required)) {
    if (c.get(key))
      continue;
    diag.error(d.loc,
               Twine(spec->noun) + " '" + d.name + "' needs " + spec->needs);
    return false;
  }
  if (spec->check && !(this->*spec->check)(c))
    return false;
  if (takes("bits") && !checkValueBits(c))
    return false;
  if (!checkCommonDirectives(c))
    return false;
  return !d.hasSchedule || checkHandWrittenSchedule(c);
}

bool Sema::checkRoot(OpContext &c) {
  Operation &op = c.op;
  op.root = op.group->ranks.front();
  const Property *p = c.get("root");
  if (!p)
    return true;
  OptInt r = evalPlainInt(p->value, c.env, "root");
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
                                   "' is defined here (" + Twine(c.n) +
                                   " ranks, from " +
                                   Twine(op.group->ranks.front()) + " to " +
                                   Twine(op.group->ranks.back()) + ")");
    return false;
  }
  op.root = static_cast<int32_t>(*r);
  return true;
}

bool Sema::checkCommonDirectives(OpContext &c) {
  const OpDecl &d = c.decl;
  Operation &op = c.op;
  Env &env = c.env;
  Directives &dir = op.directives;
  if (const Property *p = c.get("algorithm")) {
    dir.algorithmLoc = p->value.loc;
    std::optional<NamedValue> e = asNamedValue(p->value.expr.get());
    std::string name = e ? e->name.str() : "";
    // The vocabulary's spellings; `schedule` is what a schedule block
    // selects, not a name to write.
    std::optional<Algorithm> alg = symbolizeAlgorithm(name);
    if (alg == Algorithm::Schedule)
      alg = std::nullopt;
    if (name.empty()) {
      diag.error(p->value.loc, "expected an algorithm name");
      diag.note(p->value.loc, "algorithms: " + kAlgorithmList);
      return false;
    }
    if (alg && e->isCall && *alg != Algorithm::KLevel &&
        !takesRelayParameter(*alg)) {
      diag.error(p->value.loc, "algorithm '" + name + "' takes no arguments");
      return false;
    }
    if (!alg) {
      unknownValue(p->value, "algorithm", name,
                   kAlgorithmList + "; a 'schedule { ... }' block selects "
                                    "the hand-written schedule");
      return false;
    }
    dir.algorithm = *alg;
    if (takesRelayParameter(*alg) && e->isCall) {
      if (e->args.size() != 1) {
        diag.error(p->value.loc, "algorithm '" + name +
                                     "' takes one argument (" +
                                     describeRelayParameter(*alg) + ")");
        return false;
      }
      OptInt v = evalInt(*e->args[0], env);
      if (!v)
        return false;
      int64_t least = leastRelayParameter(*alg);
      if (*v < least || *v > (int64_t(1) << 20)) {
        diag.error(e->args[0]->getLoc(),
                   "the argument of '" + name + "' must be in " +
                       Twine(least) + " .. 1048576, got " + Twine(*v));
        return false;
      }
      dir.algorithmParam = *v;
    }
    if (*alg == Algorithm::KLevel) {
      if (!e->isCall || e->args.empty() || e->args.size() > 3) {
        diag.error(p->value.loc,
                   "k_level takes (levels), (levels, shape) or (logp, rec, "
                   "gamma); levels may be 'logp', shape is one of " +
                       kShapeList);
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
      if (e->args.size() >= 2) {
        const Expr &s = *e->args[1];
        std::optional<NamedValue> shapeName = asNamedValue(&s);
        std::optional<KLevelShape> shape;
        if (shapeName && !shapeName->isCall)
          shape = symbolizeKLevelShape(shapeName->name);
        if (!shape || *shape == KLevelShape::None) {
          diag.error(s.getLoc(), "unknown k_level submachine shape; expected " +
                                     kShapeList);
          return false;
        }
        dir.kShape = *shape;
        // The broadcasting one-to-alls are one level (seed 003's 1-lev-*).
        bool broadcasts =
            *shape == KLevelShape::SysBr || *shape == KLevelShape::OurBr;
        if (broadcasts && dir.kLevels != 1) {
          diag.error(k.getLoc(),
                     "k_level(..., " + stringifyKLevelShape(*shape) +
                         ") broadcasts in one level (seed 003's 1-lev-*-br): "
                         "the levels must be 1");
          return false;
        }
        if (!broadcasts && dir.kLevels == 1) {
          diag.error(s.getLoc(), "k_level(1) is the direct transfers: it has "
                                 "no submachines, so no shape '" +
                                     stringifyKLevelShape(*shape) + "'");
          return false;
        }
        if (broadcasts && !isOneToAll(op.kind)) {
          diag.error(s.getLoc(), "k_level(1, " +
                                     stringifyKLevelShape(*shape) +
                                     ") is a one-to-all algorithm (seed 003's "
                                     "1-lev-*-br); '" +
                                     d.kind + "' is not one");
          return false;
        }
      }
      if (e->args.size() == 3) {
        const Expr &g = *e->args[2];
        if (dir.kLevels != 0 || dir.kShape != KLevelShape::Rec) {
          diag.error(g.getLoc(), "only k_level(logp, rec, gamma) takes a "
                                 "gamma (seed 003's logp-lev-rec)");
          return false;
        }
        std::optional<double> gamma = evalReal(g, env);
        if (!gamma)
          return false;
        double percent = *gamma * 100;
        if (!(percent >= 50 - 1e-9 && percent <= 99 + 1e-9) ||
            std::abs(percent - std::round(percent)) > 1e-6) {
          diag.error(g.getLoc(),
                     "gamma must be a multiple of 0.01 in 0.5 .. 0.99 (the "
                     "source's submachine is the larger part), got " +
                         formatShortestDouble(*gamma));
          return false;
        }
        dir.kGammaPercent = static_cast<int64_t>(std::round(percent));
      }
    }
    // Which algorithms exist for which operations.
    bool supported = true;
    switch (*alg) {
    case Algorithm::Auto:
    case Algorithm::Direct:
      break;
    default:
      // The vocabulary's tables (phasec/Core/Vocabulary.h): the direct
      // exchange's orders and the relaying algorithms (k_level included)
      // each kind has.
      supported = llvm::is_contained(getTraits(op.kind).directOrders, *alg) ||
                  llvm::is_contained(getRelayAlgorithms(op.kind), *alg);
      break;
    case Algorithm::Schedule:
      break;
    case Algorithm::GatherEvaluate:
      // Seed 004's gather and local evaluation: the aggregates whose
      // result is a function of every member's value.
      supported = evaluatesEveryValue(op.aggregate);
      if (!supported) {
        diag.error(p->value.loc,
                   "not supported: algorithm 'gather_evaluate' for '" + d.kind +
                       "': it is the PAPERS aggregates' gather and local "
                       "evaluation (reduce, scan, any, all, bcast in a "
                       "'papers' block)");
        return false;
      }
      break;
    }
    if (!supported) {
      diag.error(p->value.loc, "not supported: algorithm '" +
                                   stringifyAlgorithm(*alg) + "' for '" +
                                   d.kind + "'");
      return false;
    }
  }
  if (const Property *p = c.get("sync")) {
    std::string s = identValue(p->value, "'sync'");
    std::optional<SyncKind> sync = symbolizeSyncKind(s);
    if (!sync) {
      if (!s.empty())
        unknownValue(p->value, "sync", s,
                     joinSpellings<SyncKind>(getMaxEnumValForSyncKind()));
      return false;
    }
    dir.sync = *sync;
  }
  if (const Property *p = c.get("style")) {
    if (!isArrayOperation(op.kind, op.elementLevel)) {
      diag.error(p->loc, "'style' applies to array operations (transpose, "
                         "element-level permute)");
      return false;
    }
    std::string s = identValue(p->value, "'style'");
    std::optional<TransferStyle> style = symbolizeTransferStyle(s);
    if (!style) {
      if (!s.empty())
        unknownValue(
            p->value, "transfer style", s,
            joinSpellings<TransferStyle>(getMaxEnumValForTransferStyle()));
      return false;
    }
    dir.style = *style;
    // Destinations known only at run time are grouped per destination as
    // they are read (seed 000's presort copy): there is nothing to chain or
    // deposit by before the call.
    if (op.permuteKind == PermuteKind::Runtime &&
        dir.style != TransferStyle::Packing &&
        dir.style != TransferStyle::Auto) {
      diag.error(p->value.loc,
                 "a permute with run-time destinations is packed: "
                 "'style = " +
                     stringifyTransferStyle(dir.style) +
                     "' needs destinations known when the code is generated");
      return false;
    }
    if (op.permuteKind == PermuteKind::Runtime)
      dir.style = TransferStyle::Packing;
  } else if (op.permuteKind == PermuteKind::Runtime) {
    dir.style = TransferStyle::Packing;
  } else if (isArrayOperation(op.kind, op.elementLevel)) {
    // The copy-transfer model chooses for array operations; it keeps
    // packing where copies are free (docs/machine-model.md).
    dir.style = TransferStyle::Auto;
  }
  // Seed 001's loop order: written, else --loop-order, else the
  // copy-transfer model's choice (`auto`). Only transposes take it (the
  // directive list says so).
  if (const Property *p = c.get("loop_order")) {
    std::string s = identValue(p->value, "'loop_order'");
    std::optional<LoopOrder> order = symbolizeLoopOrder(s);
    if (!order) {
      if (!s.empty())
        unknownValue(p->value, "loop order", s,
                     joinSpellings<LoopOrder>(getMaxEnumValForLoopOrder()));
      return false;
    }
    dir.loopOrder = *order;
  } else if (op.kind == CollectiveKind::Transpose && opts.loopOrderOverride) {
    dir.loopOrder = *opts.loopOrderOverride;
  }
  if (const Property *p = c.get("rlimit")) {
    OptInt r = evalPositiveInt(p->value, env, "rlimit");
    if (!r)
      return false;
    dir.rlimit = *r;
  }

  return true;
}

bool Sema::checkHandWrittenSchedule(OpContext &c) {
  const OpDecl &d = c.decl;
  Operation &op = c.op;
  Directives &dir = op.directives;
  if (c.get("algorithm") && dir.algorithm != Algorithm::Schedule) {
    diag.error(c.get("algorithm")->loc, "operation '" + d.name +
                                            "' has a hand-written schedule and "
                                            "'algorithm = " +
                                            stringifyAlgorithm(dir.algorithm) +
                                            "'");
    diag.note(d.scheduleLoc, "the schedule is here; remove one of them");
    return false;
  }
  if (getTraits(op.kind).family == CollectiveFamily::Dataless) {
    diag.error(d.scheduleLoc, "'" + d.kind +
                                  "' moves no data and takes no "
                                  "schedule");
    return false;
  }
  dir.algorithm = Algorithm::Schedule;
  op.hasSchedule = true;
  op.scheduleLoc = d.scheduleLoc;
  // Whether the schedule delivers the operation's traffic is
  // Problem::verify's to say (comm-verify-schedule), the one completeness
  // check of every schedule.
  int64_t chunks = 0;
  llvm::SMLoc chunksLoc;
  if (const Property *p = c.get("chunks")) {
    OptInt v = evalPositiveInt(p->value, c.env, "chunks");
    if (!v)
      return false;
    chunks = *v;
    chunksLoc = p->value.loc;
  }
  return runSchedule(d, op, chunks, chunksLoc);
}

void Sema::checkOps() {
  for (const OpDecl &d : mod.ops) {
    auto op = newDefinition(d, prog->lookupOperation(d.name), "operation");
    if (!op)
      continue;
    // The C back ends name functions NAME_start, NAME_wait, ... after each
    // operation (its nonblocking forms): no operation may have one of them.
    auto clash = llvm::find_if(prog->operations, [&](const auto &other) {
      return !derivedNameSuffix(other->name, d.name).empty() ||
             !derivedNameSuffix(d.name, other->name).empty();
    });
    if (clash != prog->operations.end()) {
      const Operation &other = **clash;
      bool mine = !derivedNameSuffix(d.name, other.name).empty();
      diag.error(d.loc, "operation '" + d.name + "' " +
                            (mine ? "names, with '" + other.name +
                                        "', a function generated for it"
                                  : "has the name of a function generated "
                                    "for operation '" +
                                        other.name + "'") +
                            " (its nonblocking forms are NAME_start, "
                            "NAME_test, NAME_wait, NAME_init, "
                            "NAME_start_persistent); rename one of them");
      diag.note(other.loc, "operation '" + other.name + "' is here");
      continue;
    }
    unsigned before = diag.numErrors();
    bool ok = checkOp(d, *op);
    if (ok && diag.numErrors() == before)
      prog->operations.push_back(std::move(op));
    if (iterationLimitHit || diag.shouldStop())
      return;
  }
}
