//===- ScheduleFuzzer.cpp - libFuzzer target for the scheduling library ---===//
//
// Part of phasec. Built with -DPHASEC_ENABLE_FUZZER=ON and clang
// (-fsanitize=fuzzer,address,undefined); see docs/fuzzing.md.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Turns the fuzzer's bytes into a small machine (a torus, mesh or hypercube
/// of at most 32 ranks) and a collective over a sub-group of it (direct:
/// every kind with direct traffic of blocks, per-pair sizes or a
/// permutation; relaying: every kind with relaying algorithms, under auto
/// or a named one; both lists from the traits table), schedules it through
/// the library as the compiler does, and checks the result with the
/// verifier, which is independent of the algorithms: a schedule that does
/// not verify aborts (a finding), as does a schedule that does not survive
/// a round trip through the schedule JSON writer and reader. A request the
/// library refuses with an error is fine; a crash, a sanitizer report or a
/// hang is not. Z3 runs with a small rlimit so that each input is quick.
///
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Algorithms.h"
#include "phasec/Scheduling/BuildProblem.h"
#include "phasec/Scheduling/Collective.h"
#include "phasec/Scheduling/Relay.h"
#include "phasec/Scheduling/ScheduleJSON.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace phasec;

namespace {

[[noreturn]] void finding(const std::string &what, const std::string &machine,
                          const Collective &c) {
  std::fprintf(stderr,
               "schedule-fuzzer: %s\n  machine %s, %s over %zu ranks, root "
               "%lld, block %lld\n",
               what.c_str(), machine.c_str(), c.kindName().str().c_str(),
               c.group.size(), static_cast<long long>(c.root),
               static_cast<long long>(c.blockBytes));
  std::abort();
}

/// The oracle: `schedule` verifies against `problem`, and again after a
/// round trip through the schedule JSON writer and reader (/1 or /2).
void check(const Problem &problem, const Schedule &schedule,
           const std::string &what, const std::string &machine,
           const Collective &c) {
  llvm::SmallVector<ScheduleViolation> violations;
  if (failed(problem.verify(schedule, violations)))
    finding(what + " does not verify: " + violations.front().message, machine,
            c);
  std::string json, error;
  // Only a barrier may have no document (a dissemination barrier on a
  // count that is not a power of two: ReplayRules).
  if (failed(checkScheduleDocument(problem, schedule, error))) {
    if (getTraits(c.kind).family != CollectiveFamily::Dataless)
      finding(what + " has no schedule JSON document: " + error, machine, c);
    return;
  }
  llvm::raw_string_ostream os(json);
  writeScheduleJSON(os, problem, schedule, {"fuzz", c.kindName().str()});
  llvm::FailureOr<std::vector<ParsedScheduleDocument>> docs =
      readScheduleJSON(json, error);
  if (failed(docs) || docs->size() != 1 ||
      docs->front().chunks.has_value() != (problem.chunkSpec() != nullptr))
    finding("the schedule JSON of " + what + " does not read back: " + error,
            machine, c);
  // The document holds the machine, not its cost model (one-port or not):
  // read it back under the model it was scheduled with.
  const ParsedScheduleDocument &doc = docs->front();
  Problem back =
      doc.chunks
          ? Problem(problem.topology(), *doc.chunks, problem.costModel())
          : Problem(problem.topology(), doc.transfers, problem.costModel());
  violations.clear();
  if (failed(back.verify(doc.schedule, violations)))
    finding(
        "the schedule JSON of " + what +
            " does not verify when read back: " + violations.front().message,
        machine, c);
}

/// A machine spec of at most 32 ranks.
std::string pickMachine(FuzzedDataProvider &in) {
  static const char *const kinds[] = {"torus", "mesh", "hypercube"};
  std::string kind = kinds[in.ConsumeIntegralInRange<int>(0, 2)];
  std::string spec = kind + ":";
  int ranks = 1;
  if (kind == "hypercube") {
    int d = in.ConsumeIntegralInRange<int>(1, 4);
    spec += std::to_string(d);
    ranks = 1 << d;
  } else {
    int dims = in.ConsumeIntegralInRange<int>(1, 3);
    for (int i = 0; i < dims; ++i) {
      int extent = in.ConsumeIntegralInRange<int>(1, 6);
      if (ranks * extent > 32)
        extent = 1;
      ranks *= extent;
      spec += (i ? "x" : "") + std::to_string(extent);
    }
  }
  if (ranks <= 16 && in.ConsumeBool())
    spec += ";ranks=2";
  spec += ";bw=1e9";
  if (in.ConsumeBool())
    spec += ";latency=1e-6";
  return spec;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider in(data, size);
  std::string spec = pickMachine(in);
  llvm::Expected<std::unique_ptr<Topology>> topo = createTopology(spec);
  if (!topo) {
    llvm::consumeError(topo.takeError());
    return 0;
  }
  const int64_t n = (*topo)->numRanks();

  // Every kind with direct traffic of blocks, sizes or a permutation, and
  // every kind with relaying algorithms (the traits table's lists).
  static const auto [direct, relaying] = [] {
    std::vector<CollectiveKind> d, r;
    for (const CollectiveTraits &t : getAllTraits()) {
      if (!t.relays && t.family != CollectiveFamily::Dataless &&
          t.shape != DataShape::Matrix)
        d.push_back(t.kind);
      if (!getRelayAlgorithms(t.kind).empty())
        r.push_back(t.kind);
    }
    return std::make_pair(d, r);
  }();
  const bool relay = in.ConsumeBool();
  const std::vector<CollectiveKind> &kinds = relay ? relaying : direct;
  Collective c;
  c.kind = kinds[in.ConsumeIntegralInRange<size_t>(0, kinds.size() - 1)];
  // A non-empty sub-group in increasing rank order.
  for (int64_t r = 0; r < n; ++r)
    if (in.ConsumeIntegralInRange<int>(0, 3) != 0)
      c.group.push_back(r);
  if (c.group.empty())
    c.group.push_back(in.ConsumeIntegralInRange<int64_t>(0, n - 1));
  const int64_t members = c.numMembers();
  c.root = c.group[in.ConsumeIntegralInRange<int64_t>(0, members - 1)];
  c.blockBytes = in.ConsumeIntegralInRange<int64_t>(1, 4096);
  const CollectiveTraits &traits = getTraits(c.kind);
  if (traits.shape == DataShape::PairSizes) {
    c.root = -1;
    for (int64_t i = 0; i < members * members; ++i)
      c.sizes.push_back(in.ConsumeIntegralInRange<int64_t>(0, 2048));
  }
  if (traits.shape == DataShape::Permutation) {
    c.root = -1;
    c.permutation.kind = PermuteKind::Random;
    c.permutation.seed = in.ConsumeIntegral<uint64_t>();
  }
  static const ElementType types[] = {ElementType::Int8, ElementType::Int32,
                                      ElementType::F64,
                                      ElementType::Complex128};
  if (relay && isReduction(c.kind)) {
    c.elementType = types[in.ConsumeIntegralInRange<size_t>(0, 3)];
    c.blockBytes = elementTypeBytes(*c.elementType) *
                   in.ConsumeIntegralInRange<int64_t>(1, 512);
  }
  if (!traits.rooted)
    c.root = -1;

  std::string error;
  if (!relay) {
    // The direct pipeline: lower, schedule (auto, small budget), verify.
    llvm::Expected<std::unique_ptr<Problem>> problem =
        lowerCollective(**topo, c, in.ConsumeBool());
    if (!problem) {
      llvm::consumeError(problem.takeError());
      return 0;
    }
    Schedule schedule;
    SchedulerOptions options;
    options.rlimit = 20000;
    SchedulerReport report;
    if (failed(scheduleAuto(**problem, schedule, options, report)))
      return 0;
    check(**problem, schedule, "scheduleAuto's schedule", spec, c);
    return 0;
  }

  // The relaying pipeline: auto or a named algorithm, verified by replay.
  RelayChoice choice;
  llvm::ArrayRef<Algorithm> named = getRelayAlgorithms(c.kind);
  if (!named.empty() && in.ConsumeBool())
    choice.algorithm =
        named[in.ConsumeIntegralInRange<size_t>(0, named.size() - 1)];
  if (choice.algorithm != Algorithm::Auto && in.ConsumeBool())
    choice.param = in.ConsumeIntegralInRange<int64_t>(2, 8);
  CostModel model(**topo);
  llvm::FailureOr<RelaySchedule> result =
      scheduleRelaying(**topo, model, c, choice, error);
  if (failed(result))
    return 0;
  check(Problem(**topo, result->chunks, model), result->schedule,
        "scheduleRelaying's " + describeRelayChoice(result->choice), spec, c);
  return 0;
}
