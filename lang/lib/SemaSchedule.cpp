//===- SemaSchedule.cpp - Hand-written schedules --------------------------===//
//
// Part of phasec, the .sched language front end.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Sema: runs an operation's `schedule { ... }` block, unrolling its loops
/// into phases of explicit transfers within the unrolling limits, and checks
/// that the result delivers exactly the operation's traffic.
///
//===----------------------------------------------------------------------===//

#include "Sema.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace phasec::lang;
using namespace phasec::lang::sema;
using namespace phasec::lang::syntax;

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

bool Sema::runSchedule(const OpDecl &d, Operation &op,
                       int64_t requestedChunks, llvm::SMLoc requestedLoc) {
  Env env;
  env.machine = op.machine;
  env.group = op.group;
  scheduleRun = ScheduleRun();
  scheduleRun.requestedChunks = requestedChunks;
  scheduleRun.requestedLoc = requestedLoc;
  if (!execBlock(d.schedule, env, op, nullptr, 0))
    return false;
  if (requestedChunks && !op.numChunks) {
    diag.error(requestedLoc, "'chunks' cuts the data of a relaying schedule, "
                             "but no send of '" +
                                 op.name + "' carries chunks");
    return false;
  }
  return true;
}

bool Sema::cutIntoChunks(Operation &op, llvm::SMLoc at) {
  const std::string kind = stringifyCollectiveKind(op.kind).str();
  const int64_t n = op.group->size();
  const int64_t parts = getChunkParts(op.kind, n);
  if (!parts) {
    // The kinds schedule JSON /2 cuts into chunks, from the vocabulary.
    llvm::SmallVector<llvm::StringRef> relaying;
    for (const CollectiveTraits &t : getAllTraits())
      if (getChunkParts(t.kind, 1) != 0)
        relaying.push_back(stringifyCollectiveKind(t.kind));
    std::string list = llvm::join(llvm::ArrayRef(relaying).drop_back(), ", ") +
                       " and " + relaying.back().str();
    diag.error(at, "sends of '" + op.name + "' (" + kind +
                       ") carry bytes, not chunks (relaying schedules exist "
                       "for " +
                       list + ")");
    return false;
  }
  int64_t chunks = scheduleRun.requestedChunks ? scheduleRun.requestedChunks : parts;
  llvm::SMLoc where = scheduleRun.requestedChunks ? scheduleRun.requestedLoc : at;
  if (chunks % parts) {
    diag.error(where, "chunks = " + Twine(chunks) + ": " + kind + " over " +
                          Twine(n) + " members cuts its data into " +
                          Twine(parts) +
                          " equal parts, so it needs a multiple of " +
                          Twine(parts) + " chunks");
    return false;
  }
  if (chunks > opts.maxMatrixEntries / n) {
    diag.error(where, Twine(chunks) + " chunks over " + Twine(n) +
                          " members exceed the limit of " +
                          Twine(opts.maxMatrixEntries) +
                          " chunk states; use fewer chunks");
    return false;
  }
  // Chunks fall on element boundaries: a reduction combines whole elements.
  const int64_t perPart = chunks / parts;
  const int64_t elementBytes = op.count > 0 ? elementTypeBytes(op.elementType) : 1;
  const int64_t elements = op.blockBytes / elementBytes;
  if (op.blockBytes <= 0 || elements % perPart) {
    diag.error(where, "chunks = " + Twine(chunks) + " cuts every block of " +
                          Twine(elements) + " element(s) of '" + op.name +
                          "' into " + Twine(perPart) +
                          " chunks, which does not divide it");
    return false;
  }
  op.numChunks = chunks;
  op.chunkBytes = op.blockBytes / perPart;
  return true;
}

bool Sema::evalChunkIds(const ChunkSet &set, Env &env, const Operation &op,
                        std::vector<int64_t> &ids) {
  auto exists = [&](int64_t id, llvm::SMLoc at) {
    if (id >= 0 && id < op.numChunks)
      return true;
    diag.error(at, "chunk " + Twine(id) + " does not exist: '" + op.name +
                       "' has " + Twine(op.numChunks) +
                       (op.numChunks == 1 ? " chunk" : " chunks") + " (0 .. " +
                       Twine(op.numChunks - 1) + ")");
    return false;
  };
  if (set.lo) {
    OptInt lo = evalInt(*set.lo, env);
    if (!lo)
      return false;
    OptInt hi = evalInt(*set.hi, env);
    if (!hi)
      return false;
    if (*hi <= *lo) {
      diag.error(set.loc, "empty chunk range " + Twine(*lo) + " .. " +
                              Twine(*hi) + " (the range is half-open)");
      return false;
    }
    if (!exists(*lo, set.lo->getLoc()) || !exists(*hi - 1, set.hi->getLoc()))
      return false;
    for (int64_t c = *lo; c < *hi; ++c)
      ids.push_back(c);
    return true;
  }
  for (const ExprPtr &e : set.ids) {
    OptInt id = evalInt(*e, env);
    if (!id || !exists(*id, e->getLoc()))
      return false;
    if (llvm::is_contained(ids, *id)) {
      diag.error(e->getLoc(), "chunk " + Twine(*id) +
                                  " appears twice in this send's chunks");
      return false;
    }
    ids.push_back(*id);
  }
  return true;
}

bool Sema::execSend(const SendStmt &s, Env &env, Operation &op,
                    Phase &phase) {
  OptInt src = evalInt(*s.src, env);
  if (!src)
    return false;
  OptInt dst = evalInt(*s.dst, env);
  if (!dst)
    return false;
  for (auto [r, e] :
       {std::pair{*src, s.src.get()}, std::pair{*dst, s.dst.get()}}) {
    if (r < 0 || r > INT32_MAX ||
        !op.group->contains(static_cast<int32_t>(r))) {
      diag.error(e->getLoc(), "rank " + Twine(r) + " is not in group '" +
                                  op.group->name + "' of operation '" +
                                  op.name + "'");
      return false;
    }
  }
  const bool chunked = s.chunks.has_value();
  const std::string kind = stringifyCollectiveKind(op.kind).str();
  if (!chunked && needsRelaying(op.kind)) {
    diag.error(s.getLoc(), "'" + op.name + "' (" + kind +
                               ") forwards or combines data: its sends "
                               "must say which chunks they carry ('send A -> "
                               "B chunks IDS [reduce];')");
    return false;
  }
  if (!scheduleRun.relaying) {
    scheduleRun.relaying = chunked;
    scheduleRun.firstSend = s.getLoc();
    if (chunked && !cutIntoChunks(op, s.chunks->loc))
      return false;
  } else if (*scheduleRun.relaying != chunked) {
    diag.error(s.getLoc(),
               chunked ? "this send carries chunks, but the first send of the "
                         "schedule carries bytes: a schedule either relays "
                         "chunks or sends bytes"
                       : "this send carries bytes, but the first send of the "
                         "schedule carries chunks: a schedule either relays "
                         "chunks or sends bytes");
    diag.note(scheduleRun.firstSend, "the first send is here");
    return false;
  }
  // Only reductions' sends may reduce: the other kinds' chunks have one
  // contribution each, so a reduce would always count one twice.
  if (s.reduces() && !isReduction(op.kind)) {
    diag.error(s.reduceLoc, "'reduce' combines contributions, but '" +
                                op.name + "' (" + kind +
                                ") has no reduction");
    return false;
  }

  Transfer t{static_cast<int32_t>(*src), static_cast<int32_t>(*dst), 0,
             s.getLoc()};
  uint64_t units = 1;
  if (chunked) {
    if (!evalChunkIds(*s.chunks, env, op, t.chunks))
      return false;
    t.reduce = s.reduces();
    t.bytes = static_cast<int64_t>(t.chunks.size()) * op.chunkBytes;
    // Chunk ids cost memory like transfers: they share the budget.
    units = t.chunks.size();
  } else if (s.bytes) {
    OptInt b = evalSize(*s.bytes, env, "transfer size");
    if (!b)
      return false;
    t.bytes = *b;
  } else if (op.blockBytes > 0) {
    t.bytes = op.blockBytes;
  } else {
    diag.error(s.getLoc(), "'send' needs a size ('send A -> B : SIZE;'): "
                           "operation '" +
                               op.name + "' has no block size");
    return false;
  }
  unrolledTransfers += units;
  if (unrolledTransfers > opts.maxUnrolledTransfers) {
    diag.error(s.getLoc(), "hand-written schedules unroll to more than " +
                               Twine(opts.maxUnrolledTransfers) +
                               " transfers; reduce the loop bounds");
    return false;
  }
  phase.transfers.push_back(std::move(t));
  return true;
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
      if (!execSend(s, env, op, *phase))
        return done(false);
      break;
    }
    }
  }
  return done(true);
}
