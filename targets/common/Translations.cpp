//===- Translations.cpp - Per-member tables shared by translation ---------===//
//
// Part of phasec. Internal to targets/common.
//
//===----------------------------------------------------------------------===//
//
// The translations of a mixed radix form an abelian group; those that map
// the schedule onto itself (same phase, same offset and bytes, source and
// destination both moved) form a subgroup G. Candidates are screened by a
// hash of member 0's list moved onto member t, then each one not already in
// the group generated so far is checked exactly against every member;
// because the checked ones generate G, every element of G maps the schedule
// onto itself. Orbits come from a union-find over the generators.
//
//===----------------------------------------------------------------------===//

#include "Translations.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <numeric>
#include <tuple>

using namespace phasec;
using namespace phasec::target;

/// a + sign * b digit by digit (sign 1 or -1).
static int64_t combineDigits(llvm::ArrayRef<int64_t> radix, int64_t a,
                             int64_t b, int64_t sign) {
  int64_t r = 0, mul = 1;
  for (int64_t base : llvm::reverse(radix)) {
    r += ((a % base + sign * (b % base) + base) % base) * mul;
    a /= base;
    b /= base;
    mul *= base;
  }
  return r;
}

int64_t detail::addDigits(llvm::ArrayRef<int64_t> radix, int64_t a, int64_t b) {
  return combineDigits(radix, a, b, 1);
}

int64_t detail::subDigits(llvm::ArrayRef<int64_t> radix, int64_t a, int64_t b) {
  return combineDigits(radix, a, b, -1);
}

namespace {

struct Entry {
  int32_t phase, peer;
  int64_t offset, bytes;
  auto key() const { return std::tie(phase, peer, offset, bytes); }
  bool operator<(const Entry &o) const { return key() < o.key(); }
  bool operator==(const Entry &o) const { return key() == o.key(); }
};

uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// An order-independent hash of an entry whose peer is `peer`; `base`
/// hashes the rest (phase, offset, bytes).
uint64_t entryHash(uint64_t base, int64_t peer) {
  return mix(base ^ (static_cast<uint64_t>(peer) * 0x9e3779b97f4a7c15ULL));
}

uint64_t baseHash(const Entry &e) {
  return mix(mix(mix(static_cast<uint64_t>(e.phase) + 1) ^
                 static_cast<uint64_t>(e.offset)) ^
             static_cast<uint64_t>(e.bytes));
}

/// Ordered factorisations of p into at most three digits >= 2, fewer digits
/// first (p itself is the one-digit radix: cyclic translations), then its
/// prime factors as digits.
std::vector<std::vector<int64_t>> radices(int64_t p) {
  std::vector<std::vector<int64_t>> out{{p}};
  for (int64_t a = 2; a < p; ++a)
    if (p % a == 0)
      out.push_back({a, p / a});
  for (int64_t a = 2; a < p; ++a) {
    if (p % a)
      continue;
    for (int64_t b = 2; b < p / a; ++b)
      if ((p / a) % b == 0)
        out.push_back({a, b, p / a / b});
  }
  // All prime digits: xor-like schedules repeat under flipping any bit.
  std::vector<int64_t> primes;
  for (int64_t q = p, f = 2; q > 1;
       f = f * f > q ? q : f + (f % 2 == 0 ? 1 : 2))
    while (q % f == 0) {
      primes.push_back(f);
      q /= f;
    }
  if (primes.size() > 3)
    out.push_back(primes);
  return out;
}

/// Tables larger than this are not searched (the translation check reads
/// every entry once per radix).
constexpr int64_t kMaxEntries = int64_t(1) << 25;
/// Entries hashed over all radices before the search stops with what it has.
constexpr int64_t kWorkBudget = int64_t(1) << 28;
/// Candidates that pass the hash but fail the exact check, per radix.
constexpr int kMaxFailures = 4;

} // namespace

void detail::findTableTranslations(OperationPlan &plan) {
  plan.tableRadix.clear();
  plan.tableReps.clear();
  plan.tableOrbit.clear();
  const int64_t p = plan.numMembers();
  if (p < 2 || plan.useFormulas)
    return;
  std::vector<std::vector<Entry>> lists(static_cast<size_t>(p));
  int64_t total = 0;
  for (auto [j, ph] : llvm::enumerate(plan.phases)) {
    total += static_cast<int64_t>(ph.transfers.size());
    if (total > kMaxEntries)
      return;
    for (const PlannedTransfer &t : ph.transfers)
      lists[t.src].push_back(
          {static_cast<int32_t>(j), t.dst, t.offset, t.bytes});
  }
  if (total == 0)
    return;
  std::vector<uint64_t> memberHash(static_cast<size_t>(p), 0);
  for (auto [m, list] : llvm::enumerate(lists)) {
    llvm::sort(list);
    for (const Entry &e : list)
      memberHash[m] += entryHash(baseHash(e), e.peer);
  }
  std::vector<uint64_t> base0;
  for (const Entry &e : lists[0])
    base0.push_back(baseHash(e));

  // Whether moving every member's list by t gives the list of the member
  // it moves to.
  std::vector<Entry> moved;
  auto invariant = [&](llvm::ArrayRef<int64_t> radix, int64_t t) {
    for (int64_t m = 0; m < p; ++m) {
      const std::vector<Entry> &to = lists[addDigits(radix, m, t)];
      if (to.size() != lists[m].size())
        return false;
      moved = lists[m];
      for (Entry &e : moved)
        e.peer = static_cast<int32_t>(addDigits(radix, e.peer, t));
      llvm::sort(moved);
      if (moved != to)
        return false;
    }
    return true;
  };

  int64_t work = 0, bestSize = 1;
  std::vector<int64_t> bestRadix, bestGens;
  for (const std::vector<int64_t> &radix : radices(p)) {
    if (work > kWorkBudget || bestSize == p)
      break;
    std::vector<char> inGroup(static_cast<size_t>(p), 0);
    inGroup[0] = 1;
    std::vector<int64_t> gens, members{0};
    int failures = 0;
    for (int64_t t = 1; t < p && failures < kMaxFailures; ++t) {
      if (inGroup[t] || lists[t].size() != lists[0].size())
        continue;
      uint64_t h = 0;
      for (auto [i, e] : llvm::enumerate(lists[0]))
        h += entryHash(base0[i], addDigits(radix, e.peer, t));
      work += static_cast<int64_t>(lists[0].size());
      if (h != memberHash[t])
        continue;
      if (!invariant(radix, t)) {
        ++failures;
        continue;
      }
      // Close the group under t: every element plus multiples of t.
      gens.push_back(t);
      for (size_t i = 0; i < members.size(); ++i) {
        int64_t next = addDigits(radix, members[i], t);
        if (!inGroup[next]) {
          inGroup[next] = 1;
          members.push_back(next);
        }
      }
    }
    if (static_cast<int64_t>(members.size()) > bestSize) {
      bestSize = static_cast<int64_t>(members.size());
      bestRadix = radix;
      bestGens = gens;
    }
  }
  if (bestSize == 1)
    return;

  // Orbits: union-find over the generators; the representative is the
  // smallest member of each orbit.
  std::vector<int64_t> parent(static_cast<size_t>(p));
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int64_t x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  };
  for (int64_t m = 0; m < p; ++m)
    for (int64_t g : bestGens) {
      int64_t a = find(m), b = find(addDigits(bestRadix, m, g));
      if (a != b)
        parent[std::max(a, b)] = std::min(a, b);
    }
  plan.tableRadix = bestRadix;
  plan.tableOrbit.assign(static_cast<size_t>(p), -1);
  for (int64_t m = 0; m < p; ++m) {
    int64_t rep = find(m);
    if (rep == m) {
      plan.tableOrbit[m] = static_cast<int32_t>(plan.tableReps.size());
      plan.tableReps.push_back(static_cast<int32_t>(m));
    } else {
      plan.tableOrbit[m] = plan.tableOrbit[rep];
    }
  }
}

llvm::FailureOr<bool> detail::planByRule(OperationPlan &plan,
                                         const Schedule &schedule,
                                         const Topology &topo,
                                         std::string &error) {
  const int64_t p = plan.numMembers();
  const int64_t c = topo.ranksPerNode(), numNodes = topo.numNodes();
  const unsigned D = topo.numDims();
  if (topo.kind() != TopologyKind::Torus ||
      plan.kind != CollectiveKind::Alltoall || p != topo.numRanks() ||
      plan.blockBytes <= 0)
    return false;
  for (auto [i, r] : llvm::enumerate(plan.group))
    if (r != static_cast<RankId>(i))
      return false;
  for (const Phase &phase : schedule.phases) {
    if (!phase.transfers.empty() || phase.rules.empty() ||
        llvm::any_of(phase.rules, [&](const PhaseRule &r) {
          return r.group != phase.rules.front().group ||
                 r.group >= schedule.translations.size();
        }))
      return false;
  }
  for (const std::vector<NodeId> &group : schedule.translations)
    for (NodeId v : group)
      if (v < 0 || v >= numNodes)
        return false;

  // Member index = rank = node * c + core, the node's coordinates with
  // dimension 0 least significant: most significant digit first, the
  // coordinates from the last dimension, then the core.
  std::vector<int64_t> radix;
  for (unsigned d = D; d-- > 0;)
    radix.push_back(topo.extent(d));
  radix.push_back(c);
  // Digits of a member index, and a member moved by a translation: digit
  // by digit without dividing (a 20x20x20 all-to-all has 64 M translates).
  llvm::SmallVector<int64_t, 8> srcDigits, dstDigits, shiftDigits;
  auto digitsOf = [&](int64_t m, llvm::SmallVectorImpl<int64_t> &out) {
    out.resize(radix.size());
    for (size_t i = radix.size(); i-- > 0;) {
      out[i] = m % radix[i];
      m /= radix[i];
    }
  };
  auto moved = [&](llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b) {
    int64_t r = 0;
    for (size_t i = 0; i < radix.size(); ++i) {
      int64_t x = a[i] + b[i];
      r = r * radix[i] + (x >= radix[i] ? x - radix[i] : x);
    }
    return r;
  };
  std::vector<std::vector<int64_t>> groupDigits;
  for (const std::vector<NodeId> &group : schedule.translations) {
    std::vector<int64_t> &all = groupDigits.emplace_back();
    for (NodeId v : group) {
      digitsOf(int64_t(v) * c, shiftDigits);
      all.insert(all.end(), shiftDigits.begin(), shiftDigits.end());
    }
  }
  // Every translate, checked as the listed path checks every transfer: a
  // demanded pair (its whole block, once), and counted per member.
  std::vector<uint64_t> delivered((static_cast<size_t>(p * p) + 63) / 64, 0);
  std::vector<int32_t> sends(p, 0), recvs(p, 0), phaseSends(p, 0),
      phaseRecvs(p, 0);
  std::vector<int32_t> touched;
  OperationPlan out;
  for (auto [j, phase] : llvm::enumerate(schedule.phases)) {
    out.ruleFirst.push_back(static_cast<int32_t>(out.ruleReps.size()));
    out.ruleGroup.push_back(static_cast<int32_t>(phase.rules.front().group));
    llvm::ArrayRef<NodeId> group =
        schedule.translations[phase.rules.front().group];
    for (const PhaseRule &rule : phase.rules)
      for (const Transfer &t : rule.reps) {
        // A copy inside a member is the generated code's own business.
        if (t.src == t.dst)
          continue;
        if (t.src < 0 || t.dst < 0 || t.src >= p || t.dst >= p ||
            t.bytes != plan.blockBytes) {
          error = "schedule phase " + std::to_string(j) + " sends " +
                  std::to_string(t.bytes) + " bytes from " +
                  std::to_string(t.src) + " to " + std::to_string(t.dst) +
                  " by rule, where the operation owes " +
                  std::to_string(plan.blockBytes) + " bytes of every pair";
          return llvm::failure();
        }
        out.ruleReps.push_back({t.src, t.dst, 0, t.bytes});
        digitsOf(t.src, srcDigits);
        digitsOf(t.dst, dstDigits);
        const std::vector<int64_t> &shifts =
            groupDigits[phase.rules.front().group];
        for (size_t i = 0; i < group.size(); ++i) {
          llvm::ArrayRef<int64_t> shift(&shifts[i * radix.size()],
                                        radix.size());
          int64_t s = moved(srcDigits, shift), d = moved(dstDigits, shift);
          size_t bit = static_cast<size_t>(s * p + d);
          if (delivered[bit / 64] >> (bit % 64) & 1) {
            error = "schedule phase " + std::to_string(j) +
                    " delivers the block rank " + std::to_string(s) +
                    " owes rank " + std::to_string(d) + " again";
            return llvm::failure();
          }
          delivered[bit / 64] |= uint64_t(1) << (bit % 64);
          for (int64_t m : {s, d})
            if (!phaseSends[m] && !phaseRecvs[m])
              touched.push_back(static_cast<int32_t>(m));
          ++sends[s];
          ++recvs[d];
          out.ruleMaxSendsPerPhase =
              std::max<int64_t>(out.ruleMaxSendsPerPhase, ++phaseSends[s]);
          out.ruleMaxRecvsPerPhase =
              std::max<int64_t>(out.ruleMaxRecvsPerPhase, ++phaseRecvs[d]);
        }
      }
    for (int32_t m : touched)
      phaseSends[m] = phaseRecvs[m] = 0;
    touched.clear();
  }
  out.ruleFirst.push_back(static_cast<int32_t>(out.ruleReps.size()));
  for (int64_t s = 0; s < p; ++s)
    for (int64_t d = 0; d < p; ++d) {
      size_t bit = static_cast<size_t>(s * p + d);
      if (s != d && !(delivered[bit / 64] >> (bit % 64) & 1)) {
        error = "the schedule delivers 0 of the " +
                std::to_string(plan.blockBytes) + " bytes rank " +
                std::to_string(s) + " owes rank " + std::to_string(d);
        return llvm::failure();
      }
    }
  for (const std::vector<NodeId> &group : schedule.translations) {
    std::vector<int32_t> members;
    for (NodeId v : group)
      members.push_back(static_cast<int32_t>(int64_t(v) * c));
    out.ruleGroups.push_back(std::move(members));
  }
  plan.tableRadix = std::move(radix);
  plan.ruleFirst = std::move(out.ruleFirst);
  plan.ruleGroup = std::move(out.ruleGroup);
  plan.ruleReps = std::move(out.ruleReps);
  plan.ruleGroups = std::move(out.ruleGroups);
  plan.ruleMaxSendsPerPhase = out.ruleMaxSendsPerPhase;
  plan.ruleMaxRecvsPerPhase = out.ruleMaxRecvsPerPhase;
  plan.ruleMaxSends = *std::max_element(sends.begin(), sends.end());
  plan.ruleMaxRecvs = *std::max_element(recvs.begin(), recvs.end());
  plan.phases.assign(schedule.phases.size(), PlannedPhase());
  return true;
}
