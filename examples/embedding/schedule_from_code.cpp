//===- schedule_from_code.cpp - phasec's scheduling library from C++ ------===//
//
// Part of phasec (examples/embedding; docs/embedding.md).
//
//===----------------------------------------------------------------------===//
//
// A machine and a collective built in code, no .sched file and no MLIR:
//
//   schedule-from-code SPEC BLOCK_BYTES OUT.json OUT.c
//
// e.g. `schedule-from-code "torus:4x4" 1024 a2a.json a2a.c` schedules the
// all-to-all of 1 KiB blocks on a 4 x 4 torus, verifies the schedule
// against the machine's routes (Problem::verify), prints its phases and the
// proven bound, and writes the schedule (phasec-schedule/1) and the MPI
// function `a2a` that runs it.
//
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Algorithms.h"
#include "phasec/Scheduling/BuildProblem.h"
#include "phasec/Scheduling/Collective.h"
#include "phasec/Scheduling/ScheduleJSON.h"
#include "phasec/Target/MPI/MPIEmitter.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>

using namespace phasec;

static int fail(const std::string &message) {
  llvm::errs() << "schedule-from-code: error: " << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 5)
    return fail("usage: schedule-from-code SPEC BLOCK_BYTES OUT.json OUT.c");

  // The machine: any topology spec phasec knows ("torus:8x8x8",
  // "mesh:16x16", "hypercube:6", "percs:...").
  llvm::Expected<std::unique_ptr<Topology>> topology =
      createTopology(argv[1]);
  if (!topology)
    return fail(llvm::toString(topology.takeError()));

  // The collective: an all-to-all over every rank, BLOCK_BYTES a pair.
  Collective alltoall;
  alltoall.kind = CollectiveKind::Alltoall;
  for (RankId r = 0; r < (*topology)->numRanks(); ++r)
    alltoall.group.push_back(r);
  alltoall.blockBytes = std::atoll(argv[2]);

  // Its traffic on the machine's routes, checked (Problem::check).
  llvm::Expected<std::unique_ptr<Problem>> problem =
      lowerCollective(**topology, alltoall);
  if (!problem)
    return fail(llvm::toString(problem.takeError()));

  // Congestion-free phases: `auto` tries the constructions, the greedy and
  // Z3 (deterministic: fixed rlimit and seed) and keeps the best.
  Schedule schedule;
  SchedulerOptions options;
  SchedulerReport report;
  if (llvm::failed(scheduleAuto(**problem, schedule, options, report)))
    return fail(report.error);

  // The verifier is independent of the algorithms: routes, congestion and
  // the demands, every byte.
  llvm::SmallVector<ScheduleViolation> violations;
  if (llvm::failed((*problem)->verify(schedule, violations)))
    return fail("schedule does not verify: " + violations.front().message);

  llvm::outs() << "algorithm " << report.algorithm << ", " << report.phases
               << " phases, time " << report.time << " s, bound "
               << report.boundTime << " s, gap " << report.gap
               << (report.timeOptimal ? " (time-optimal)" : "") << "\n";

  std::error_code ec;
  llvm::raw_fd_ostream json(argv[3], ec);
  if (ec)
    return fail(std::string("cannot write ") + argv[3] + ": " + ec.message());
  writeScheduleJSON(json, **problem, schedule, {"a2a", "alltoall"});

  // The MPI back end: per-member transfers of the verified schedule, then C.
  std::string error;
  llvm::FailureOr<target::ElementCType> elem =
      target::parseElementType("u8", error);
  if (llvm::failed(elem))
    return fail(error);
  target::PlanOptions planOptions;
  llvm::FailureOr<target::OperationPlan> plan = target::buildOperationPlan(
      "a2a", alltoall, *elem, schedule, planOptions, error);
  if (llvm::failed(plan))
    return fail(error);
  llvm::raw_fd_ostream c(argv[4], ec);
  if (ec)
    return fail(std::string("cannot write ") + argv[4] + ": " + ec.message());
  target::MPIOptions mpiOptions;
  if (llvm::failed(target::emitMPI(*plan, c, mpiOptions, error)))
    return fail(error);
  return 0;
}
