//===- Z3Solver.cpp - The Z3 queries of the phase scheduler ---------------===//
//
// Part of phasec. The only translation unit that includes z3++.h; it is
// compiled with exceptions enabled and never lets one escape.
//
//===----------------------------------------------------------------------===//

#include "phasec/Solver/Z3Solver.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"

#include <z3++.h>

#include <climits>
#include <map>
#include <optional>

using namespace phasec;
using namespace phasec::solver;

std::string phasec::solver::z3Version() {
  unsigned major = 0, minor = 0, build = 0, rev = 0;
  Z3_get_version(&major, &minor, &build, &rev);
  return std::to_string(major) + "." + std::to_string(minor) + "." +
         std::to_string(build);
}

namespace {

/// A solver with the deterministic settings of every phasec query: fixed
/// seeds, a resource limit, no wall-clock timeout.
z3::solver makeSolver(z3::context &ctx, const SolverOptions &options) {
  z3::solver s(ctx);
  z3::params p(ctx);
  unsigned limit = options.rlimit > UINT_MAX
                       ? UINT_MAX
                       : static_cast<unsigned>(options.rlimit);
  p.set("rlimit", limit);
  p.set("random_seed", options.seed);
  s.set(p);
  return s;
}

/// Global (process-wide) seeds of the SAT and SMT cores; set once, always to
/// the same values, so they cannot make two runs differ.
void setGlobalSeeds(unsigned seed) {
  std::string v = std::to_string(seed);
  z3::set_param("smt.random_seed", v.c_str());
  z3::set_param("sat.random_seed", v.c_str());
}

uint64_t rlimitCount(const z3::solver &s) {
  z3::stats st = s.statistics();
  for (unsigned i = 0, e = st.size(); i < e; ++i) {
    if (st.key(i) != "rlimit count")
      continue;
    return st.is_uint(i) ? st.uint_value(i)
                         : static_cast<uint64_t>(st.double_value(i));
  }
  return 0;
}

SolveStatus toStatus(z3::check_result r) {
  switch (r) {
  case z3::sat:
    return SolveStatus::Sat;
  case z3::unsat:
    return SolveStatus::Unsat;
  default:
    return SolveStatus::Unknown;
  }
}

/// Runs the query: records its verdict and the resources it used in
/// `result` (a RingCore or an AssignResult), and gives the model if it is
/// sat, for the caller to read the answer from.
template <typename Result>
std::optional<z3::model> checkInto(z3::solver &s, Result &result) {
  result.status = toStatus(s.check());
  result.rlimitUsed = rlimitCount(s);
  if (result.status != SolveStatus::Sat)
    return std::nullopt;
  return s.get_model();
}

void addExactlyOne(z3::solver &s, z3::expr_vector &v) {
  if (v.size() == 1) {
    s.add(v[0]);
    return;
  }
  s.add(z3::mk_or(v));
  s.add(z3::atmost(v, 1));
}

} // namespace

void phasec::solver::ringLinks(unsigned k, bool wrap, bool twoLinksPerPair,
                               unsigned a, unsigned b, bool minus,
                               llvm::SmallVectorImpl<unsigned> &links) {
  links.clear();
  if (a == b)
    return;
  int ik = static_cast<int>(k);
  int step, dist;
  if (!wrap || (k == 2 && !twoLinksPerPair)) {
    step = b > a ? 1 : -1;
    dist = std::abs(static_cast<int>(b) - static_cast<int>(a));
  } else {
    int fwd = (static_cast<int>(b) - static_cast<int>(a) + ik) % ik;
    int bwd = ik - fwd;
    if (fwd != bwd)
      step = fwd < bwd ? 1 : -1, dist = std::min(fwd, bwd);
    else
      step = minus ? -1 : 1, dist = fwd;
  }
  int x = static_cast<int>(a);
  for (int i = 0; i < dist; ++i) {
    links.push_back(static_cast<unsigned>(x) * 2 + (step < 0 ? 1 : 0));
    x = ((x + step) % ik + ik) % ik;
  }
}

bool phasec::solver::isRingTie(unsigned k, bool wrap, bool twoLinksPerPair,
                               unsigned a, unsigned b) {
  if (!wrap || k % 2 || a == b || (k == 2 && !twoLinksPerPair))
    return false;
  return (b + k - a) % k == k / 2;
}

llvm::FailureOr<RingCore> phasec::solver::solveRingCore(
    const RingCoreQuery &q, const SolverOptions &options, std::string &error) {
  if (q.k < 1 || q.k > 64) {
    error = "ring core: extent " + std::to_string(q.k) + " out of range 1..64";
    return llvm::failure();
  }
  try {
    setGlobalSeeds(options.seed);
    z3::context ctx;
    z3::solver s = makeSolver(ctx, options);
    unsigned k = q.k;
    auto name = [](const char *p, unsigned a, unsigned b, unsigned c) {
      return std::string(p) + "_" + std::to_string(a) + "_" +
             std::to_string(b) + "_" + std::to_string(c);
    };
    // x[p][a][b]: in phase p node a sends to node b.
    std::vector<z3::expr> x;
    x.reserve(k * k * k);
    for (unsigned p = 0; p < k; ++p)
      for (unsigned a = 0; a < k; ++a)
        for (unsigned b = 0; b < k; ++b)
          x.push_back(ctx.bool_const(name("x", p, a, b).c_str()));
    auto X = [&](unsigned p, unsigned a, unsigned b) -> z3::expr & {
      return x[(p * k + a) * k + b];
    };
    // m[a][b]: the tie a -> b travels "-".
    std::vector<z3::expr> m;
    m.reserve(k * k);
    for (unsigned a = 0; a < k; ++a)
      for (unsigned b = 0; b < k; ++b)
        m.push_back(ctx.bool_const(name("m", a, b, 0).c_str()));
    // Permutations (rows and columns) and the Latin property.
    for (unsigned p = 0; p < k; ++p)
      for (unsigned a = 0; a < k; ++a) {
        z3::expr_vector row(ctx), col(ctx);
        for (unsigned b = 0; b < k; ++b) {
          row.push_back(X(p, a, b));
          col.push_back(X(p, b, a));
        }
        addExactlyOne(s, row);
        addExactlyOne(s, col);
      }
    for (unsigned a = 0; a < k; ++a)
      for (unsigned b = 0; b < k; ++b) {
        z3::expr_vector cover(ctx);
        for (unsigned p = 0; p < k; ++p)
          cover.push_back(X(p, a, b));
        addExactlyOne(s, cover);
      }
    // Symmetry breaking: phases are labelled by where node 0 sends.
    for (unsigned p = 0; p < k; ++p)
      s.add(X(p, 0, p));
    if (q.withIdentity)
      for (unsigned a = 0; a < k; ++a)
        s.add(X(0, a, a));
    // Link-disjointness per phase.
    llvm::SmallVector<unsigned, 16> route;
    // users[link] = terms "pair (a,b) uses the link" (without the phase).
    std::vector<std::vector<std::pair<unsigned, std::optional<bool>>>> users(2 *
                                                                             k);
    for (unsigned a = 0; a < k; ++a)
      for (unsigned b = 0; b < k; ++b) {
        if (a == b)
          continue;
        if (!isRingTie(q.k, q.wrap, q.twoLinksPerPair, a, b)) {
          ringLinks(q.k, q.wrap, q.twoLinksPerPair, a, b, false, route);
          for (unsigned l : route)
            users[l].push_back({a * k + b, std::nullopt});
          continue;
        }
        for (bool minus : {false, true}) {
          ringLinks(q.k, q.wrap, q.twoLinksPerPair, a, b, minus, route);
          for (unsigned l : route)
            users[l].push_back({a * k + b, minus});
        }
      }
    for (unsigned p = 0; p < k; ++p)
      for (unsigned l = 0; l < 2 * k; ++l) {
        if (users[l].size() < 2)
          continue;
        z3::expr_vector terms(ctx);
        for (auto &[pair, dir] : users[l]) {
          unsigned a = pair / k, b = pair % k;
          if (!dir)
            terms.push_back(X(p, a, b));
          else
            terms.push_back(X(p, a, b) && (*dir ? m[pair] : !m[pair]));
        }
        s.add(z3::atmost(terms, 1));
      }

    RingCore result;
    std::optional<z3::model> model = checkInto(s, result);
    if (!model)
      return result;
    result.perms.assign(k, std::vector<int32_t>(k, -1));
    result.minus.assign(k, std::vector<uint8_t>(k, 0));
    for (unsigned p = 0; p < k; ++p)
      for (unsigned a = 0; a < k; ++a)
        for (unsigned b = 0; b < k; ++b) {
          if (!model->eval(X(p, a, b), true).is_true())
            continue;
          result.perms[p][a] = static_cast<int32_t>(b);
          if (isRingTie(q.k, q.wrap, q.twoLinksPerPair, a, b))
            result.minus[p][a] = model->eval(m[a * k + b], true).is_true();
        }
    return result;
  } catch (const z3::exception &e) {
    error = std::string("z3: ") + e.msg();
    return llvm::failure();
  }
}

llvm::FailureOr<AssignResult> phasec::solver::solvePhaseAssignment(
    const AssignQuery &q, const SolverOptions &options, std::string &error) {
  if (q.numPhases == 0) {
    error = "phase assignment: zero phases";
    return llvm::failure();
  }
  for (const AssignItem &item : q.items) {
    if (item.options.empty()) {
      error = "phase assignment: an item without route options";
      return llvm::failure();
    }
    for (const auto &opt : item.options)
      for (int32_t r : opt)
        if (r < 0 || static_cast<unsigned>(r) >= q.numResources) {
          error = "phase assignment: resource out of range";
          return llvm::failure();
        }
  }
  try {
    setGlobalSeeds(options.seed);
    z3::context ctx;
    z3::solver s = makeSolver(ctx, options);
    unsigned n = q.items.size(), T = q.numPhases;
    std::vector<z3::expr> x, o;
    x.reserve(static_cast<size_t>(n) * T);
    std::vector<unsigned> optBase(n + 1, 0);
    for (unsigned i = 0; i < n; ++i) {
      z3::expr_vector one(ctx);
      for (unsigned t = 0; t < T; ++t) {
        x.push_back(ctx.bool_const(
            ("x_" + std::to_string(i) + "_" + std::to_string(t)).c_str()));
        one.push_back(x.back());
      }
      addExactlyOne(s, one);
      optBase[i + 1] = optBase[i] + q.items[i].options.size();
      z3::expr_vector opts(ctx);
      for (unsigned j = 0; j < q.items[i].options.size(); ++j) {
        o.push_back(ctx.bool_const(
            ("o_" + std::to_string(i) + "_" + std::to_string(j)).c_str()));
        opts.push_back(o.back());
      }
      addExactlyOne(s, opts);
    }
    // Symmetry breaking: the first item goes into phase 0.
    if (n > 0)
      s.add(x[0]);
    // For every resource, who may use it: group -> (item, option) list, in
    // a deterministic order.
    std::vector<llvm::MapVector<
        int32_t, llvm::SmallVector<std::pair<unsigned, unsigned>, 4>>>
        users(q.numResources);
    for (unsigned i = 0; i < n; ++i)
      for (unsigned j = 0; j < q.items[i].options.size(); ++j)
        for (int32_t r : q.items[i].options[j])
          users[r][q.items[i].group].push_back({i, j});
    for (unsigned r = 0; r < q.numResources; ++r) {
      if (users[r].size() < 2)
        continue;
      for (unsigned t = 0; t < T; ++t) {
        z3::expr_vector terms(ctx);
        for (auto &entry : users[r]) {
          z3::expr_vector alts(ctx);
          for (auto [i, j] : entry.second) {
            z3::expr use = x[static_cast<size_t>(i) * T + t];
            if (q.items[i].options.size() > 1)
              use = use && o[optBase[i] + j];
            alts.push_back(use);
          }
          terms.push_back(alts.size() == 1 ? alts[0] : z3::mk_or(alts));
        }
        s.add(z3::atmost(terms, 1));
      }
    }
    AssignResult result;
    std::optional<z3::model> model = checkInto(s, result);
    if (!model)
      return result;
    result.phase.assign(n, -1);
    result.option.assign(n, 0);
    for (unsigned i = 0; i < n; ++i) {
      for (unsigned t = 0; t < T; ++t)
        if (model->eval(x[static_cast<size_t>(i) * T + t], true).is_true()) {
          result.phase[i] = static_cast<int32_t>(t);
          break;
        }
      for (unsigned j = 0; j < q.items[i].options.size(); ++j)
        if (model->eval(o[optBase[i] + j], true).is_true()) {
          result.option[i] = static_cast<int32_t>(j);
          break;
        }
    }
    return result;
  } catch (const z3::exception &e) {
    error = std::string("z3: ") + e.msg();
    return llvm::failure();
  }
}

llvm::FailureOr<CycleResult>
phasec::solver::solveCycleEmbedding(const CycleQuery &q,
                                    const SolverOptions &options,
                                    std::string &error) {
  const unsigned n = q.numMembers;
  if (n < 2 || q.first >= n ||
      q.resources.size() != static_cast<size_t>(n) * n) {
    error = "cycle embedding: malformed query";
    return llvm::failure();
  }
  for (const auto &links : q.resources)
    for (int32_t r : links)
      if (r < 0 || static_cast<unsigned>(r) >= q.numResources) {
        error = "cycle embedding: resource out of range";
        return llvm::failure();
      }
  try {
    setGlobalSeeds(options.seed);
    z3::context ctx;
    z3::solver s = makeSolver(ctx, options);
    // next[a * n + b]: b follows a. pos orders the cycle from `first`, which
    // rules out sub-cycles that avoid it.
    std::vector<z3::expr> next, pos;
    next.reserve(static_cast<size_t>(n) * n);
    for (unsigned a = 0; a < n; ++a) {
      pos.push_back(ctx.int_const(("pos_" + std::to_string(a)).c_str()));
      s.add(pos.back() >= 0 && pos.back() < static_cast<int>(n));
    }
    s.add(pos[q.first] == 0);
    for (unsigned a = 0; a < n; ++a)
      for (unsigned b = 0; b < n; ++b)
        next.push_back(ctx.bool_const(
            ("next_" + std::to_string(a) + "_" + std::to_string(b)).c_str()));
    for (unsigned a = 0; a < n; ++a) {
      z3::expr_vector out(ctx), in(ctx);
      s.add(!next[static_cast<size_t>(a) * n + a]);
      for (unsigned b = 0; b < n; ++b) {
        out.push_back(next[static_cast<size_t>(a) * n + b]);
        in.push_back(next[static_cast<size_t>(b) * n + a]);
        if (a != b && b != q.first)
          s.add(z3::implies(next[static_cast<size_t>(a) * n + b],
                            pos[b] == pos[a] + 1));
      }
      addExactlyOne(s, out);
      addExactlyOne(s, in);
    }
    // Per resource: at most one member's chosen edge uses it (a member has
    // one successor, so its own edges never meet).
    std::vector<llvm::MapVector<unsigned, llvm::SmallVector<unsigned, 4>>>
        users(q.numResources);
    for (unsigned a = 0; a < n; ++a)
      for (unsigned b = 0; b < n; ++b)
        if (a != b)
          for (int32_t r : q.resources[static_cast<size_t>(a) * n + b])
            users[r][a].push_back(b);
    for (unsigned r = 0; r < q.numResources; ++r) {
      if (users[r].size() < 2)
        continue;
      z3::expr_vector terms(ctx);
      for (auto &[a, succs] : users[r]) {
        z3::expr_vector alts(ctx);
        for (unsigned b : succs)
          alts.push_back(next[static_cast<size_t>(a) * n + b]);
        terms.push_back(alts.size() == 1 ? alts[0] : z3::mk_or(alts));
      }
      s.add(z3::atmost(terms, 1));
    }
    CycleResult result;
    std::optional<z3::model> model = checkInto(s, result);
    if (!model)
      return result;
    result.order.assign(n, -1);
    for (unsigned a = 0; a < n; ++a) {
      int64_t p = model->eval(pos[a], true).get_numeral_int64();
      if (p < 0 || p >= static_cast<int64_t>(n) || result.order[p] != -1) {
        error = "cycle embedding: the model is not a cycle";
        return llvm::failure();
      }
      result.order[p] = static_cast<int32_t>(a);
    }
    return result;
  } catch (const z3::exception &e) {
    error = std::string("z3: ") + e.msg();
    return llvm::failure();
  }
}
