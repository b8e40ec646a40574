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
