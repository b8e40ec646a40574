//===- Ns3TargetTest.cpp - --target=ns3's process handling ---------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// What the CLI cannot reach: a simulator that fails in one of several
// parallel jobs (the others are stopped, not waited for), one that cannot
// be started, one that crashes. A shell script stands in for phasec-ns3:
// these tests are about the runner, the simulator has its own
// (test/Integration/ns3-model.test).
//
//===----------------------------------------------------------------------===//

#include "TestSchedules.h"

#include "phasec/Scheduling/Registry.h"
#include "phasec/Target/Ns3/Ns3Target.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace phasec;
using namespace phasec::ns3target;

namespace {

struct Ns3Run : ::testing::Test {
  void SetUp() override {
    std::string error;
    auto desc = TopologyDesc::parse("torus:4;packet=512", error);
    ASSERT_TRUE(succeeded(desc)) << error;
    auto t = Topology::create(*desc, error);
    ASSERT_TRUE(succeeded(t)) << error;
    topo.emplace(std::move(*t));
    auto ts = target::test::alltoall(4, 4096).lower(error);
    ASSERT_TRUE(succeeded(ts)) << error;
    problem.emplace(*topo, std::move(*ts));
    SchedulerReport report;
    ASSERT_TRUE(
        succeeded(runScheduler(getScheduler(SchedulerAlgorithm::LinearShift),
                               *problem, schedule, SchedulerOptions(), report)))
        << report.error;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("phasec-ns3-test", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  /// An executable script in the test's directory.
  std::string script(llvm::StringRef name, llvm::StringRef body) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, name);
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    EXPECT_FALSE(ec);
    os << "#!/bin/sh\n" << body << "\n";
    os.close();
    llvm::sys::fs::setPermissions(path, llvm::sys::fs::all_exe |
                                            llvm::sys::fs::owner_read |
                                            llvm::sys::fs::owner_write);
    return std::string(path);
  }

  /// Runs `--target=ns3` with `simulator`: its diagnostics, failed or not.
  std::string run(const std::string &simulator, int jobs, bool &failedRun,
                  double &seconds) {
    Ns3Operation op{"aapc", &*topo, &*problem, &schedule, SyncKind::Barrier};
    Ns3Options options;
    llvm::SmallString<256> out(dir);
    llvm::sys::path::append(out, "out");
    options.outDir = std::string(out);
    options.run = true;
    options.simulator = simulator;
    options.jobs = jobs;
    options.variants = {"phasec", "loop"};
    std::string text, diag;
    llvm::raw_string_ostream os(text), ds(diag);
    auto start = std::chrono::steady_clock::now();
    failedRun = failed(emitNs3({op}, options, os, ds));
    seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    return diag;
  }

  std::optional<Topology> topo;
  std::optional<Problem> problem;
  Schedule schedule;
  llvm::SmallString<128> dir;
};

TEST_F(Ns3Run, AFailedJobStopsTheOthers) {
  // The job given `loop` fails at once; the one given `phasec` would run a
  // minute unless stopped.
  std::string sim = script("sim", "case \"$*\" in *loop*) echo 'no route' "
                                  ">&2; exit 2;; esac\nexec sleep 60");
  bool failedRun = false;
  double seconds = 0;
  std::string diag = run(sim, 2, failedRun, seconds);
  EXPECT_TRUE(failedRun);
  EXPECT_LT(seconds, 30);
  EXPECT_NE(diag.find("error: aapc: the ns-3 simulation failed (exit 2; "),
            std::string::npos)
      << diag;
  EXPECT_NE(diag.find("no route"), std::string::npos) << diag;
}

TEST_F(Ns3Run, ASimulatorThatCannotStart) {
  bool failedRun = false;
  double seconds = 0;
  std::string diag = run("/nonexistent/phasec-ns3", 2, failedRun, seconds);
  EXPECT_TRUE(failedRun);
  EXPECT_NE(diag.find("error: aapc: cannot run /nonexistent/phasec-ns3: "),
            std::string::npos)
      << diag;
}

TEST_F(Ns3Run, ASimulatorThatCrashes) {
  std::string sim = script("crash", "kill -KILL $$");
  bool failedRun = false;
  double seconds = 0;
  std::string diag = run(sim, 1, failedRun, seconds);
  EXPECT_TRUE(failedRun);
  EXPECT_NE(diag.find("error: aapc: cannot run " + sim + ": "),
            std::string::npos)
      << diag;
}

TEST_F(Ns3Run, NoResultForAVariant) {
  // Exits 0 with a line for phasec only.
  std::string sim =
      script("partial", "echo 'variant phasec time 1e-3 bound_pct 50'; exit 0");
  bool failedRun = false;
  double seconds = 0;
  std::string diag = run(sim, 1, failedRun, seconds);
  EXPECT_TRUE(failedRun);
  EXPECT_NE(diag.find("error: aapc: no result for variant loop in "),
            std::string::npos)
      << diag;
}

} // namespace
