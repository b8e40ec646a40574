//===- SemaGroup.cpp - Groups, arrays and targets -------------------------===//
//
// Part of phasec, the .sched language front end.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Sema: group declarations (enumerated over nodes or ranks, filtered by
/// `where`), distributed arrays, and the resolution of `on` targets to a
/// group of a machine.
///
//===----------------------------------------------------------------------===//

#include "Sema.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace phasec::lang;
using namespace phasec::lang::sema;
using namespace phasec::lang::syntax;

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
      // A member listed twice is a mistake (a typo for another member),
      // never silently one member.
      llvm::DenseMap<int64_t, SMLoc> seen;
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
        auto [it, fresh] = seen.try_emplace(*x, e->getLoc());
        if (!fresh) {
          diag.error(e->getLoc(), "group '" + d.name + "' lists " +
                                      (overNodes ? "node " : "rank ") +
                                      Twine(*x) + " twice");
          diag.note(it->second, "listed here first");
          ok = false;
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
    auto a = newDefinition(d, prog->lookupArray(d.name), "array");
    if (!a)
      continue;
    bool ok = true;
    std::optional<ElementType> type = symbolizeElementType(d.type);
    if (type) {
      a->elementType = *type;
    } else {
      diag.error(d.typeLoc, "unknown element type '" + d.type + "'");
      diag.note(d.typeLoc,
                std::string("element types: ") +
                    joinSpellings<ElementType>(getMaxEnumValForElementType()));
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
    if (std::optional<Distribution> dist = symbolizeDistribution(d.dist))
      a->distribution = *dist;
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
