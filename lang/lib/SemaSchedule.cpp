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
