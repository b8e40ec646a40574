//===- Setup.cpp - Configuration, MPI_Init and MPI_Finalize, the report ---===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#include "Pmpi.h"

#include "phasec/Core/TopologyDesc.h"
#include "phasec/Scheduling/BuildProblem.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace phasec;
using namespace phasec::pmpi;

namespace phasec::pmpi {

State &state() {
  static State s;
  return s;
}

[[noreturn]] void fatal(const std::string &message) {
  std::fprintf(stderr, "libphasec-pmpi: error: %s\n", message.c_str());
  std::fflush(stderr);
  PMPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

namespace {

/// The budget of a machine the library schedules on, in directed links:
/// every rank builds the machine at MPI_Init and rank 0 routes and bounds
/// over its links at a communicator's first call (torus:1024x1024, 4 M
/// links: under a second and about 300 MB a rank; docs/pmpi.md).
constexpr int64_t kMaxMachineLinks = int64_t(1) << 22;

/// The directed links of a machine, from its description alone (an upper
/// bound for meshes), before anything is built.
double estimatedLinks(const TopologyDesc &d) {
  if (d.kind == TopologyKind::Percs) {
    double m = static_cast<double>(d.drawers) * d.nodesPerDrawer;
    double sn = static_cast<double>(d.supernodes);
    return sn * m * (m - 1) + sn * (sn - 1) * d.dLinksPerPair();
  }
  double nodes = 1, perNode = 0;
  for (int64_t k : d.dims) {
    nodes *= static_cast<double>(k);
    perNode += k > 1 ? 2 : 0;
  }
  return nodes * perNode;
}

void setUp() {
  State &s = state();
  const char *machine = std::getenv("PHASEC_PMPI_MACHINE");
  const char *schedules = std::getenv("PHASEC_PMPI_SCHEDULES");
  const char *cache = std::getenv("PHASEC_PMPI_CACHE");
  const char *report = std::getenv("PHASEC_PMPI_REPORT");
  s.report = report && *report && std::strcmp(report, "0") != 0;
  if ((!machine || !*machine) && (!schedules || !*schedules))
    fatal("set PHASEC_PMPI_MACHINE (a topology spec such as "
          "'torus:2x2;bw=1e9') or PHASEC_PMPI_SCHEDULES (phasec "
          "--emit=schedule-json files, ':'-separated)");
  if (machine && *machine) {
    s.machineSpec = machine;
    std::string error;
    llvm::FailureOr<TopologyDesc> desc = TopologyDesc::parse(machine, error);
    if (llvm::failed(desc))
      fatal("PHASEC_PMPI_MACHINE='" + s.machineSpec + "': " + error);
    double links = estimatedLinks(*desc);
    if (links > static_cast<double>(kMaxMachineLinks))
      fatal("PHASEC_PMPI_MACHINE='" + s.machineSpec + "': about " +
            std::to_string(static_cast<long long>(links)) +
            " links, more than the " + std::to_string(kMaxMachineLinks) +
            " libphasec-pmpi schedules on (every rank keeps the machine, "
            "about 250 bytes a link); describe the part of the machine the "
            "job runs on");
    llvm::Expected<std::unique_ptr<Topology>> topology =
        createTopology(machine);
    if (!topology)
      fatal("PHASEC_PMPI_MACHINE='" + s.machineSpec +
            "': " + llvm::toString(topology.takeError()));
    s.machine = std::move(*topology);
  }
  if (schedules && *schedules)
    loadGivenSchedules(s, schedules);
  if (cache && *cache)
    s.cacheDir = cache;
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, deleteCommInfo, &s.keyval,
                          nullptr);
  createLayoutKey();
  s.initialized = true;
}

void printStats(const char *name, const Stats &stats) {
  long calls = stats.served;
  for (long n : stats.fellBack)
    calls += n;
  if (!calls)
    return;
  std::fprintf(stderr, "libphasec-pmpi: %s: %ld by schedule", name,
               stats.served);
  for (int r = 0; r < kNumReasons; ++r)
    if (stats.fellBack[r])
      std::fprintf(stderr, ", %ld by MPI (%s)", stats.fellBack[r],
                   kReasonText[r]);
  if (stats.fortran)
    std::fprintf(stderr, "; %ld of the calls from Fortran", stats.fortran);
  std::fprintf(stderr, "\n");
}

} // namespace
} // namespace phasec::pmpi

extern "C" {

int MPI_Init(int *argc, char ***argv) {
  int err = PMPI_Init(argc, argv);
  if (err == MPI_SUCCESS)
    setUp();
  return err;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  int err = PMPI_Init_thread(argc, argv, required, provided);
  if (err == MPI_SUCCESS)
    setUp();
  return err;
}

int MPI_Finalize(void) {
  State &s = state();
  if (s.initialized) {
    if (s.report) {
      int me;
      PMPI_Comm_rank(MPI_COMM_WORLD, &me);
      if (me == 0) {
        for (int f = 0; f < kNumFunctions; ++f)
          printStats(kFunctionName[f], s.stats[f]);
        if (s.cacheRejected)
          std::fprintf(stderr,
                       "libphasec-pmpi: cache: %ld entries ignored (not for "
                       "the call that looked them up)\n",
                       s.cacheRejected);
      }
    }
    // What phasec keeps on the world goes with its attribute; the
    // duplicates of communicators the program never freed go before MPI.
    void *attr = nullptr;
    int found = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, s.keyval, &attr, &found);
    if (found)
      PMPI_Comm_delete_attr(MPI_COMM_WORLD, s.keyval);
    std::vector<MPI_Comm> dups;
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      dups.swap(s.dups);
    }
    for (MPI_Comm &dup : dups)
      PMPI_Comm_free(&dup);
    PMPI_Comm_free_keyval(&s.keyval);
    freeLayoutKey();
    s.initialized = false;
  }
  return PMPI_Finalize();
}

} // extern "C"
