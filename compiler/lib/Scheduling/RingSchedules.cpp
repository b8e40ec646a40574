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
//
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Algorithms.h"
#include "phasec/Solver/Z3Solver.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <mutex>
#include <tuple>

using namespace phasec;

namespace {

/// Bumped whenever the encoding of ring-core queries changes, so that stale
/// cache files are never used.
constexpr unsigned kRingCoreVersion = 1;


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
std::map<CoreKey, solver::RingCore> memoryCache;

std::string cacheFileName(const CoreKey &key) {
  return llvm::formatv("ringcore-v{0}-z3-{1}-k{2}-w{3}-t{4}-i{5}.txt",
                       kRingCoreVersion, solver::z3Version(), key.k,
                       key.wrap ? 1 : 0, key.two ? 1 : 0, key.identity ? 1 : 0)
      .str();
}

void writeCore(llvm::raw_ostream &os, const solver::RingCore &core) {
  os << "phasec-ringcore " << kRingCoreVersion << "\n";
  os << "status " << solver::stringifySolveStatus(core.status) << "\n";
  os << "rlimit " << core.rlimitUsed << "\n";
  for (size_t p = 0; p < core.perms.size(); ++p) {
    os << "step";
    for (size_t a = 0; a < core.perms[p].size(); ++a)
      os << " " << core.perms[p][a] << (core.minus[p][a] ? "-" : "");
    os << "\n";
  }
}

std::optional<solver::RingCore> readCore(llvm::StringRef text, unsigned k) {
  solver::RingCore core;
  llvm::SmallVector<llvm::StringRef, 16> lines;
  text.split(lines, '\n', -1, false);
  if (lines.size() < 3 ||
      lines[0] != ("phasec-ringcore " + std::to_string(kRingCoreVersion)))
    return std::nullopt;
  if (lines[1] == "status sat")
    core.status = solver::SolveStatus::Sat;
  else if (lines[1] == "status unsat")
    core.status = solver::SolveStatus::Unsat;
  else
    return std::nullopt;
  if (!lines[2].consume_front("rlimit ") ||
      lines[2].getAsInteger(10, core.rlimitUsed))
    return std::nullopt;
  for (size_t i = 3; i < lines.size(); ++i) {
    llvm::StringRef line = lines[i];
    if (!line.consume_front("step"))
      return std::nullopt;
    llvm::SmallVector<llvm::StringRef, 16> fields;
    line.trim().split(fields, ' ', -1, false);
    if (fields.size() != k)
      return std::nullopt;
    std::vector<int32_t> perm;
    std::vector<uint8_t> minus;
    for (llvm::StringRef f : fields) {
      bool m = f.consume_back("-");
      int32_t v;
      if (f.getAsInteger(10, v) || v < 0 || static_cast<unsigned>(v) >= k)
        return std::nullopt;
      perm.push_back(v);
      minus.push_back(m);
    }
    core.perms.push_back(std::move(perm));
    core.minus.push_back(std::move(minus));
  }
  if (core.status == solver::SolveStatus::Sat && core.perms.size() != k)
    return std::nullopt;
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
      return it->second;
    }
  }
  std::string path;
  if (!options.cacheDir.empty()) {
    llvm::SmallString<256> p(options.cacheDir);
    llvm::sys::path::append(p, cacheFileName(key));
    path = std::string(p);
    if (auto buf = llvm::MemoryBuffer::getFile(path)) {
      if (auto core = readCore((*buf)->getBuffer(), key.k)) {
        RingSchedule rs;
        rs.k = key.k;
        rs.wrap = key.wrap;
        rs.twoLinksPerPair = key.two;
        rs.perms = core->perms;
        rs.minus = core->minus;
        std::string err;
        bool valid =
            core->status != solver::SolveStatus::Sat ||
            (succeeded(checkRingSchedule(rs, err)) &&
             (!key.identity ||
              llvm::all_of(llvm::seq<unsigned>(0, key.k), [&](unsigned a) {
                return core->perms[0][a] == static_cast<int32_t>(a);
              })));
        if (valid) {
          ++report.cacheHits;
          std::lock_guard<std::mutex> lock(cacheMutex);
          memoryCache.emplace(key, *core);
          return *core;
        }
        report.notes.push_back("ignored an invalid ring-core cache file " +
                               path);
      }
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
  if (failed(core)) {
    report.error = error;
    return llvm::failure();
  }
  report.rlimitUsed += core->rlimitUsed;
  // Unknown depends on the budget: never cached.
  if (core->status == solver::SolveStatus::Unknown)
    return *core;
  {
    std::lock_guard<std::mutex> lock(cacheMutex);
    memoryCache.emplace(key, *core);
  }
  if (!path.empty()) {
    // Write to a temporary file and rename, so that concurrent compiles
    // never read half a file.
    if (!llvm::sys::fs::create_directories(options.cacheDir)) {
      std::string tmp =
          path + ".tmp" + std::to_string(llvm::sys::Process::getProcessId());
      std::error_code ec;
      {
        llvm::raw_fd_ostream os(tmp, ec);
        if (!ec)
          writeCore(os, *core);
      }
      if (!ec)
        ec = llvm::sys::fs::rename(tmp, path);
      if (ec)
        report.notes.push_back("could not write ring-core cache " + path +
                               ": " + ec.message());
    }
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
