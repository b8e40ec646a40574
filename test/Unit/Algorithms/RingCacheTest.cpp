//===- RingCacheTest.cpp - The ring-core disk cache proves what it loads --===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// Entries a user (or a stale or broken run) left in the cache directory
// must not change a schedule: each is refused with a reason, the schedule
// is the one computed without the cache. Issue 15 found a three-line
// "status unsat" entry that turned the T3D's optimal schedule into a 1.2x
// one for every later compile; the entries here carry valid digests, so
// that only the later checks can refuse them (test/Driver/cache.test covers
// edited entries, FIFOs and devices through phasec).
//
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Algorithms.h"
#include "phasec/Scheduling/Collective.h"
#include "phasec/Solver/Z3Solver.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include "TestUtil.h"

#include "gtest/gtest.h"

#include <numeric>

using namespace phasec;
using phasec::test::makeTopology;

namespace {

/// The cache entry of the k = 4 ring with the identity step, with `body`
/// (its lines up to the digest) and the digest phasec writes.
std::string writeEntry(llvm::StringRef dir, llvm::StringRef body) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, "ringcore-v2-z3-" + solver::z3Version() +
                                    "-s0-k4-w1-t1-i1.txt");
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  EXPECT_FALSE(ec);
  os << body << "digest "
     << llvm::utohexstr(llvm::xxh3_64bits(body), /*LowerCase=*/true) << "\n";
  return std::string(path);
}

std::string query(int identity) {
  return "query k=4 wrap=1 two=1 identity=" + std::to_string(identity) +
         " z3=" + solver::z3Version() + " seed=0\n";
}

struct Outcome {
  Schedule schedule;
  SchedulerReport report;
};

/// The 4 x 4 torus all-to-all (a product of two k = 4 rings), with the
/// cache in `dir` ("" for none) and an empty memory cache.
Outcome schedule(llvm::StringRef dir) {
  clearRingCoreMemoryCache();
  Topology t = makeTopology("torus:4x4");
  Collective c;
  c.kind = CollectiveKind::Alltoall;
  c.blockBytes = 64;
  c.group.resize(t.numRanks());
  std::iota(c.group.begin(), c.group.end(), 0);
  std::string error;
  auto transfers = c.lower(error);
  EXPECT_TRUE(succeeded(transfers)) << error;
  Problem problem(t, std::move(*transfers));
  SchedulerOptions options;
  options.cacheDir = dir.str();
  Outcome out;
  EXPECT_TRUE(succeeded(scheduleAuto(problem, out.schedule, options,
                                     out.report)))
      << out.report.error;
  llvm::SmallVector<ScheduleViolation> violations;
  EXPECT_TRUE(succeeded(problem.verify(out.schedule, violations)));
  clearRingCoreMemoryCache();
  return out;
}

/// Each refused entry leaves the cold schedule and says why.
void expectRefused(llvm::StringRef body, llvm::StringRef reason) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("phasec-ringcache", dir));
  Outcome cold = schedule("");
  std::string path = writeEntry(dir, body);
  Outcome warm = schedule(dir);
  EXPECT_TRUE(test::sameSchedule(cold.schedule, warm.schedule)) << reason.str();
  ASSERT_EQ(warm.report.cacheIgnored.size(), 1u) << reason.str();
  EXPECT_EQ(warm.report.cacheIgnored.front(),
            "ignored ring-core cache entry " + path + ": " + reason.str());
  (void)llvm::sys::fs::remove_directories(dir);
}

TEST(RingCache, UnsatisfiableEntryRefused) {
  // What issue 15 planted: the identity core "proven" impossible.
  expectRefused("phasec-ringcore 2\n" + query(1) + "status unsat\nrlimit 1\n",
                "only satisfiable cores are cached (an unsatisfiable one "
                "cannot be checked without solving)");
}

TEST(RingCache, EntryOfAnotherQueryRefused) {
  expectRefused("phasec-ringcore 2\n" + query(0) +
                    "status sat\nrlimit 1\nstep 0 1 2 3\nstep 1 0 3 2\n"
                    "step 2- 3 1 0\nstep 3 2 0 1-\n",
                "it answers another query");
}

TEST(RingCache, InvalidScheduleRefused) {
  // Four identity steps: a valid digest, no schedule of the ring.
  expectRefused("phasec-ringcore 2\n" + query(1) +
                    "status sat\nrlimit 1\nstep 0 1 2 3\nstep 0 1 2 3\n"
                    "step 0 1 2 3\nstep 0 1 2 3\n",
                "its schedule does not check: ring schedule: pair 0->0 twice");
}

TEST(RingCache, ValidEntryServesTheSameSchedule) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("phasec-ringcache", dir));
  Outcome fill = schedule(dir);
  EXPECT_GT(fill.report.solverQueries, 0u);
  EXPECT_TRUE(fill.report.cacheIgnored.empty());
  Outcome warm = schedule(dir);
  EXPECT_EQ(warm.report.solverQueries, 0u);
  EXPECT_TRUE(warm.report.cacheIgnored.empty());
  EXPECT_TRUE(test::sameSchedule(fill.schedule, warm.schedule));
  (void)llvm::sys::fs::remove_directories(dir);
}

} // namespace
