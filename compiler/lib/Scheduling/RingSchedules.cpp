//===- RingSchedules.cpp - Per-dimension ring schedules and their cache ---===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// A ring schedule covers every ordered pair (a, b) of a ring / line of k
// nodes, a == b included, with link-disjoint partial permutations. For k <= 8
// Z3 finds Latin squares (k full permutations; with the identity as step 0
// where one exists); larger rings and lines get a greedy schedule. Solved
// cores are cached in memory and, optionally, on disk: the cache stores
// exactly what Z3 returned, so results are byte-identical with or without it.
// A disk entry is trusted only as far as it can be checked: it names its
// whole query (ring, Z3 version, seed) and carries a digest of its text, so a
// renamed, stale or edited file is refused; its schedule must pass
// checkRingSchedule; only satisfiable cores are cached (an "unsat" entry
// would be a claim phasec cannot check without solving); only bounded
// regular files are read; entries are written through an O_EXCL temporary.
// Every entry ignored is reported (SchedulerReport::cacheIgnored; the
// scheduling pass warns).
//
//===----------------------------------------------------------------------===//

#include "phasec/Core/UserFiles.h"
#include "phasec/Scheduling/Algorithms.h"
#include "phasec/Solver/Z3Solver.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <map>
#include <mutex>
#include <tuple>

using namespace phasec;

namespace {

/// Bumped whenever the encoding of ring-core queries changes, so that stale
/// cache files are never used.
constexpr unsigned kRingCoreVersion = 2;

/// The largest cache entry read (a k <= 8 core is a few hundred bytes).
constexpr uint64_t kMaxCoreFileBytes = 1 << 16;


/// Largest number of ordered pairs that must cross one directed link (ties
/// split evenly, rounded up): no schedule of link-disjoint steps is shorter.
unsigned ringLinkLoad(unsigned k, bool wrap, bool two) {
  if (k <= 1)
    return 0;
  if (!wrap || (k == 2 && !two))
    return (k / 2) * ((k + 1) / 2);
  // Per directed link of a ring: sum_{s < k/2} s plus half the ties.
  unsigned load = 0;
  for (unsigned s = 1; 2 * s < k; ++s)
    load += s;
  if (k % 2 == 0)
    load +=
        (k / 2 * k + 2 * k - 1) / (2 * k); // ceil(k/2 * k / (2k)) = ceil(k/4)
  return load;
}

struct CoreKey {
  unsigned k;
  bool wrap, two, identity;
  bool operator<(const CoreKey &o) const {
    return std::tie(k, wrap, two, identity) <
           std::tie(o.k, o.wrap, o.two, o.identity);
  }
};

std::mutex cacheMutex;
/// A solved core, and what the disk cache said when it was looked up (an
/// entry ignored or not written), repeated to every later lookup's report:
/// the first lookup may be a probe whose report nobody prints.
struct CachedCore {
  solver::RingCore core;
  std::vector<std::string> cacheIgnored;
};
std::map<CoreKey, CachedCore> memoryCache;

std::string cacheFileName(const CoreKey &key, unsigned seed) {
  return llvm::formatv("ringcore-v{0}-z3-{1}-s{2}-k{3}-w{4}-t{5}-i{6}.txt",
                       kRingCoreVersion, solver::z3Version(), seed, key.k,
                       key.wrap ? 1 : 0, key.two ? 1 : 0, key.identity ? 1 : 0)
      .str();
}

/// The query an entry answers, as its second line.
std::string queryLine(const CoreKey &key, unsigned seed) {
  return llvm::formatv("query k={0} wrap={1} two={2} identity={3} z3={4} "
                       "seed={5}",
                       key.k, key.wrap ? 1 : 0, key.two ? 1 : 0,
                       key.identity ? 1 : 0, solver::z3Version(), seed)
      .str();
}

std::string digestLine(llvm::StringRef body) {
  return "digest " + llvm::utohexstr(llvm::xxh3_64bits(body), /*LowerCase=*/true);
}

/// A satisfiable core as a cache entry: its lines, then the digest of them.
std::string writeCore(const CoreKey &key, unsigned seed,
                      const solver::RingCore &core) {
  std::string body;
  llvm::raw_string_ostream os(body);
  os << "phasec-ringcore " << kRingCoreVersion << "\n";
  os << queryLine(key, seed) << "\n";
  os << "status " << solver::stringifySolveStatus(core.status) << "\n";
  os << "rlimit " << core.rlimitUsed << "\n";
  for (size_t p = 0; p < core.perms.size(); ++p) {
    os << "step";
    for (size_t a = 0; a < core.perms[p].size(); ++a)
      os << " " << core.perms[p][a] << (core.minus[p][a] ? "-" : "");
    os << "\n";
  }
  return body + digestLine(body) + "\n";
}

/// The core of an entry for `key`, or why it is refused.
llvm::FailureOr<solver::RingCore> readCore(llvm::StringRef text,
                                           const CoreKey &key, unsigned seed,
                                           std::string &why) {
  const unsigned k = key.k;
  // The digest covers everything before its line.
  size_t at = text.rfind("digest ");
  if (at == llvm::StringRef::npos || (at && text[at - 1] != '\n') ||
      text.drop_front(at).rtrim("\n") != digestLine(text.take_front(at))) {
    why = "its digest does not match its contents";
    return llvm::failure();
  }
  solver::RingCore core;
  llvm::SmallVector<llvm::StringRef, 16> lines;
  text.take_front(at).split(lines, '\n', -1, false);
  if (lines.size() < 4 ||
      lines[0] != ("phasec-ringcore " + std::to_string(kRingCoreVersion)) ||
      lines[1] != queryLine(key, seed)) {
    why = "it answers another query";
    return llvm::failure();
  }
  if (lines[2] != "status sat") {
    why = "only satisfiable cores are cached (an unsatisfiable one cannot be "
          "checked without solving)";
    return llvm::failure();
  }
  core.status = solver::SolveStatus::Sat;
  why = "it is malformed";
  if (!lines[3].consume_front("rlimit ") ||
      lines[3].getAsInteger(10, core.rlimitUsed))
    return llvm::failure();
  for (size_t i = 4; i < lines.size(); ++i) {
    llvm::StringRef line = lines[i];
    if (!line.consume_front("step"))
      return llvm::failure();
    llvm::SmallVector<llvm::StringRef, 16> fields;
    line.trim().split(fields, ' ', -1, false);
    if (fields.size() != k)
      return llvm::failure();
    std::vector<int32_t> perm;
    std::vector<uint8_t> minus;
    for (llvm::StringRef f : fields) {
      bool m = f.consume_back("-");
      int32_t v;
      if (f.getAsInteger(10, v) || v < 0 || v >= static_cast<int32_t>(k))
        return llvm::failure();
      perm.push_back(v);
      minus.push_back(m);
    }
    core.perms.push_back(std::move(perm));
    core.minus.push_back(std::move(minus));
  }
  if (core.perms.size() != k)
    return llvm::failure();
  why.clear();
  return core;
}

/// The core for `key`, from the memory cache, the disk cache or Z3.
llvm::FailureOr<solver::RingCore> lookupCore(const CoreKey &key,
                                             const SchedulerOptions &options,
                                             SchedulerReport &report) {
  {
    std::lock_guard<std::mutex> lock(cacheMutex);
    auto it = memoryCache.find(key);
    if (it != memoryCache.end()) {
      ++report.cacheHits;
      report.addCacheIgnored(it->second.cacheIgnored);
      return it->second.core;
    }
  }
  std::string path;
  std::vector<std::string> ignored;
  if (!options.cacheDir.empty()) {
    llvm::SmallString<256> p(options.cacheDir);
    llvm::sys::path::append(p, cacheFileName(key, options.seed));
    path = std::string(p);
    // An entry is used only if every check passes; otherwise it is ignored
    // (and reported) and Z3 answers, with the same result as without a
    // cache.
    std::string why;
    if (llvm::sys::fs::exists(path)) {
      std::string readError;
      std::unique_ptr<llvm::MemoryBuffer> buf =
          readBoundedFile(path, kMaxCoreFileBytes, readError);
      llvm::FailureOr<solver::RingCore> core = llvm::failure();
      if (!buf)
        why = readError;
      else
        core = readCore(buf->getBuffer(), key, options.seed, why);
      if (succeeded(core)) {
        RingSchedule rs;
        rs.k = key.k;
        rs.wrap = key.wrap;
        rs.twoLinksPerPair = key.two;
        rs.perms = core->perms;
        rs.minus = core->minus;
        std::string err;
        if (failed(checkRingSchedule(rs, err)))
          why = "its schedule does not check: " + err;
        else if (key.identity &&
                 !llvm::all_of(llvm::seq<unsigned>(0, key.k), [&](unsigned a) {
                   return core->perms[0][a] == static_cast<int32_t>(a);
                 }))
          why = "its first step is not the identity";
      }
      if (why.empty()) {
        ++report.cacheHits;
        std::lock_guard<std::mutex> lock(cacheMutex);
        memoryCache.emplace(key, CachedCore{*core, {}});
        return *core;
      }
      ignored.push_back("ignored ring-core cache entry " + path + ": " + why);
    }
  }
  ++report.cacheMisses;
  ++report.solverQueries;
  solver::RingCoreQuery q;
  q.k = key.k;
  q.wrap = key.wrap;
  q.twoLinksPerPair = key.two;
  q.withIdentity = key.identity;
  solver::SolverOptions so;
  so.rlimit = options.rlimit;
  so.seed = options.seed;
  std::string error;
  auto core = solver::solveRingCore(q, so, error);
  report.addCacheIgnored(ignored);
  if (failed(core)) {
    report.error = error;
    return llvm::failure();
  }
  report.rlimitUsed += core->rlimitUsed;
  // Unknown depends on the budget: never cached.
  if (core->status == solver::SolveStatus::Unknown)
    return *core;
  // Only satisfiable cores go to disk (an unsatisfiable one could not be
  // checked when read back).
  if (!path.empty() && core->status == solver::SolveStatus::Sat) {
    // Concurrent compiles never read half an entry.
    std::error_code ec = llvm::sys::fs::create_directories(options.cacheDir);
    if (!ec)
      ec = writeFileReplacing(path, [&](llvm::raw_ostream &os) {
        os << writeCore(key, options.seed, *core);
      });
    if (ec) {
      ignored.push_back("could not write ring-core cache entry " + path +
                        ": " + ec.message());
      report.addCacheIgnored(ignored.back());
    }
  }
  {
    std::lock_guard<std::mutex> lock(cacheMutex);
    memoryCache.emplace(key, CachedCore{*core, std::move(ignored)});
  }
  return *core;
}

/// Greedy ring schedule: steps of link-disjoint partial permutations, the
/// pairs crossing most links first, ties in the direction whose links are
/// free. Identity pairs fill idle slots.
RingSchedule greedyRing(unsigned k, bool wrap, bool two) {
  RingSchedule rs;
  rs.k = k;
  rs.wrap = wrap;
  rs.twoLinksPerPair = two;
  rs.source = "greedy";
  struct Pair {
    unsigned a, b, dist;
  };
  std::vector<Pair> pending;
  llvm::SmallVector<unsigned, 16> links;
  for (unsigned a = 0; a < k; ++a)
    for (unsigned b = 0; b < k; ++b) {
      solver::ringLinks(k, wrap, two, a, b, false, links);
      pending.push_back({a, b, static_cast<unsigned>(links.size())});
    }
  // Longest first; then by a rotation-invariant key so that the greedy
  // spreads similar pairs around the ring.
  llvm::stable_sort(pending, [&](const Pair &x, const Pair &y) {
    if (x.dist != y.dist)
      return x.dist > y.dist;
    return std::make_pair(x.a, x.b) < std::make_pair(y.a, y.b);
  });
  while (!pending.empty()) {
    std::vector<int32_t> perm(k, -1);
    std::vector<uint8_t> minus(k, 0), recv(k, 0), used(2 * k, 0);
    std::vector<Pair> rest;
    for (const Pair &pr : pending) {
      if (perm[pr.a] >= 0 || recv[pr.b]) {
        rest.push_back(pr);
        continue;
      }
      bool placed = false;
      bool tie = solver::isRingTie(k, wrap, two, pr.a, pr.b);
      for (bool m : {false, true}) {
        if (m && !tie)
          break;
        solver::ringLinks(k, wrap, two, pr.a, pr.b, m, links);
        if (llvm::any_of(links, [&](unsigned l) { return used[l]; }))
          continue;
        for (unsigned l : links)
          used[l] = 1;
        perm[pr.a] = static_cast<int32_t>(pr.b);
        minus[pr.a] = m;
        recv[pr.b] = 1;
        placed = true;
        break;
      }
      if (!placed)
        rest.push_back(pr);
    }
    rs.perms.push_back(std::move(perm));
    rs.minus.push_back(std::move(minus));
    pending = std::move(rest);
  }
  return rs;
}

RingSchedule fromCore(const solver::RingCore &core, unsigned k, bool wrap,
                      bool two, bool identity, llvm::StringRef source) {
  RingSchedule rs;
  rs.k = k;
  rs.wrap = wrap;
  rs.twoLinksPerPair = two;
  rs.perms = core.perms;
  rs.minus = core.minus;
  rs.identityFirst = identity;
  rs.source = source.str();
  return rs;
}

} // namespace

void phasec::clearRingCoreMemoryCache() {
  std::lock_guard<std::mutex> lock(cacheMutex);
  memoryCache.clear();
}

llvm::LogicalResult phasec::checkRingSchedule(const RingSchedule &rs,
                                              std::string &error) {
  unsigned k = rs.k;
  if (rs.perms.size() != rs.minus.size()) {
    error = "ring schedule: perms and minus differ in length";
    return llvm::failure();
  }
  std::vector<uint8_t> covered(k * k, 0);
  llvm::SmallVector<unsigned, 16> links;
  for (size_t p = 0; p < rs.perms.size(); ++p) {
    if (rs.perms[p].size() != k || rs.minus[p].size() != k) {
      error = llvm::formatv("ring schedule: step {0} has the wrong size", p);
      return llvm::failure();
    }
    std::vector<uint8_t> recv(k, 0), used(2 * k, 0);
    for (unsigned a = 0; a < k; ++a) {
      int32_t b = rs.perms[p][a];
      if (b < 0)
        continue;
      if (static_cast<unsigned>(b) >= k || recv[b]) {
        error = llvm::formatv("ring schedule: step {0} is not a partial "
                              "permutation at {1}",
                              p, a);
        return llvm::failure();
      }
      recv[b] = 1;
      if (covered[a * k + b]++) {
        error = llvm::formatv("ring schedule: pair {0}->{1} twice", a, b);
        return llvm::failure();
      }
      if (rs.minus[p][a] &&
          !solver::isRingTie(k, rs.wrap, rs.twoLinksPerPair, a, b)) {
        error = llvm::formatv("ring schedule: {0}->{1} is no tie", a, b);
        return llvm::failure();
      }
      solver::ringLinks(k, rs.wrap, rs.twoLinksPerPair, a, b, rs.minus[p][a],
                        links);
      for (unsigned l : links)
        if (used[l]++) {
          error = llvm::formatv("ring schedule: step {0} uses link {1} twice",
                                p, l);
          return llvm::failure();
        }
    }
  }
  for (unsigned i = 0; i < k * k; ++i)
    if (!covered[i]) {
      error =
          llvm::formatv("ring schedule: pair {0}->{1} missing", i / k, i % k);
      return llvm::failure();
    }
  if (rs.identityFirst &&
      (rs.perms.empty() ||
       llvm::any_of(llvm::seq<unsigned>(0, k), [&](unsigned a) {
         return rs.perms[0][a] != static_cast<int32_t>(a);
       }))) {
    error = "ring schedule: step 0 is not the identity";
    return llvm::failure();
  }
  return llvm::success();
}

llvm::FailureOr<RingSchedule>
phasec::getRingSchedule(unsigned k, bool wrap, bool two,
                        const SchedulerOptions &options,
                        SchedulerReport &report, unsigned maxCoreK) {
  if (k == 0) {
    report.error = "ring schedule of zero nodes";
    return llvm::failure();
  }
  if (k == 1) {
    RingSchedule rs;
    rs.k = 1;
    rs.wrap = wrap;
    rs.twoLinksPerPair = two;
    rs.perms = {{0}};
    rs.minus = {{0}};
    rs.identityFirst = true;
    rs.source = "trivial";
    return rs;
  }
  std::string what = llvm::formatv("{0} of {1}", wrap ? "ring" : "line", k);
  if (k <= maxCoreK) {
    unsigned load = ringLinkLoad(k, wrap, two);
    for (bool identity : {true, false}) {
      // Counting proof: k (or k-1) link-disjoint steps carry at most k (k-1)
      // pairs over one directed link.
      unsigned steps = identity ? k - 1 : k;
      if (load > steps) {
        report.notes.push_back(llvm::formatv(
            "no {0}ring core for a {1}: a link must carry {2} pairs in {3} "
            "steps (counting proof)",
            identity ? "identity " : "", what, load, steps));
        continue;
      }
      CoreKey key{k, wrap, two, identity};
      unsigned hitsBefore = report.cacheHits;
      auto core = lookupCore(key, options, report);
      if (failed(core))
        return llvm::failure();
      bool cached = report.cacheHits != hitsBefore;
      if (core->status == solver::SolveStatus::Sat)
        return fromCore(*core, k, wrap, two, identity,
                        cached ? "z3-cache" : "z3");
      if (core->status == solver::SolveStatus::Unsat) {
        report.notes.push_back(
            llvm::formatv("no {0}ring core for a {1}: z3 unsat (proof)",
                          identity ? "identity " : "", what));
        continue;
      }
      report.fellBack = true;
      report.notes.push_back(
          llvm::formatv("z3 budget exhausted for the {0}ring core of a {1} "
                        "(rlimit {2}); greedy ring schedule used",
                        identity ? "identity " : "", what, options.rlimit));
      break;
    }
  }
  return greedyRing(k, wrap, two);
}
