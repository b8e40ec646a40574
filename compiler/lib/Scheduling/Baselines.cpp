//===- Baselines.cpp - The usual schedules, for comparison ----------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// First-fit packing with per-link occupancy bitsets: for a transfer, OR the
/// 64-phase words of its route's links and take the first phase where none
/// is busy. A transfer costs O(hops x phases / 64), so the T3D's 262,144
/// transfers pack in well under a second.
///
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Baselines.h"

#include "phasec/Scheduling/Bounds.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace phasec;
using llvm::failure;
using llvm::LogicalResult;
using llvm::success;

namespace {
class FirstFitPacker {
public:
  FirstFitPacker(const Topology &topo, Schedule &schedule)
      : topo_(topo), schedule_(schedule), base_(schedule.phases.size()),
        numLinks_(topo.numLinks()), firstOpen_(topo.numLinks(), 0) {}

  void place(const Transfer &t) {
    NodeId s = topo_.nodeOfRank(t.src), d = topo_.nodeOfRank(t.dst);
    topo_.route(s, d, t.ties & topo_.tieMask(s, d), route_);
    // Words before a link's first non-full word are busy for this transfer.
    size_t start = 0;
    for (LinkId l : route_)
      start = std::max<size_t>(start, firstOpen_[l]);
    for (size_t w = start;; ++w) {
      if (w == numWords_) {
        occupied_.resize(occupied_.size() + numLinks_, 0);
        ++numWords_;
      }
      uint64_t busy = 0;
      // data(), not [w * numLinks_]: a machine of one node has no links
      // (and an empty vector; UBSan, found by the schedule fuzzer).
      uint64_t *occ = occupied_.data() + w * numLinks_;
      for (LinkId l : route_)
        busy |= occ[l];
      if (busy == ~uint64_t(0))
        continue;
      unsigned bit = llvm::countr_one(busy);
      size_t phase = w * 64 + bit;
      while (numPhases_ <= phase) {
        schedule_.phases.emplace_back();
        ++numPhases_;
      }
      schedule_.phases[base_ + phase].transfers.push_back(t);
      for (LinkId l : route_) {
        occ[l] |= uint64_t(1) << bit;
        size_t &open = firstOpen_[l];
        while (open < numWords_ &&
               occupied_[open * numLinks_ + l] == ~uint64_t(0))
          ++open;
      }
      return;
    }
  }

private:
  const Topology &topo_;
  Schedule &schedule_;
  size_t base_;
  size_t numLinks_;
  size_t numWords_ = 0, numPhases_ = 0;
  /// [word * numLinks + link]: bit i = phase 64*word+i uses the link
  /// (stored word-major so that adding 64 phases is an append).
  std::vector<uint64_t> occupied_;
  /// Per link, the first word with a free phase (words fill in order).
  std::vector<size_t> firstOpen_;
  llvm::SmallVector<LinkId, 64> route_;
};
} // namespace

void phasec::packFirstFit(const Topology &topo,
                          llvm::ArrayRef<Transfer> transfers,
                          Schedule &schedule) {
  FirstFitPacker packer(topo, schedule);
  for (const Transfer &t : transfers)
    packer.place(t);
}

static LogicalResult checkProblem(const Problem &problem, std::string &error) {
  return problem.check(error);
}

/// Packs the demands step by step; `step(d)` in [1, R) names the step.
template <typename StepFn>
static void scheduleBySteps(const Problem &problem, Schedule &schedule,
                            StepFn step) {
  int64_t numRanks = problem.topology().numRanks();
  std::vector<std::vector<Transfer>> steps(numRanks);
  for (const Demand &d : problem.transfers())
    steps[step(d)].push_back({d.src, d.dst, d.bytes, 0});
  for (const std::vector<Transfer> &ts : steps)
    if (!ts.empty())
      packFirstFit(problem.topology(), ts, schedule);
}

LogicalResult phasec::scheduleLinearShift(const Problem &problem,
                                          Schedule &schedule,
                                          std::string &error) {
  if (failed(checkProblem(problem, error)))
    return failure();
  schedule = Schedule();
  int64_t numRanks = problem.topology().numRanks();
  scheduleBySteps(problem, schedule, [&](const Demand &d) {
    return ((d.dst - d.src) % numRanks + numRanks) % numRanks;
  });
  schedule.algorithm = "linear_shift";
  schedule.bound = problem.bound();
  return success();
}

bool phasec::xorApplies(const Problem &problem, std::string *whyNot) {
  int64_t numRanks = problem.topology().numRanks();
  if (llvm::isPowerOf2_64(numRanks))
    return true;
  if (whyNot)
    *whyNot = llvm::formatv("the XOR schedule needs a power-of-two number of "
                            "ranks, the machine has {0}",
                            numRanks)
                  .str();
  return false;
}

LogicalResult phasec::scheduleXor(const Problem &problem, Schedule &schedule,
                                  std::string &error) {
  if (failed(checkProblem(problem, error)) || !xorApplies(problem, &error))
    return failure();
  schedule = Schedule();
  scheduleBySteps(problem, schedule,
                  [](const Demand &d) { return d.src ^ d.dst; });
  schedule.algorithm = "xor";
  schedule.bound = problem.bound();
  return success();
}

LogicalResult phasec::scheduleGreedy(const Problem &problem, Schedule &schedule,
                                     std::string &error) {
  if (failed(checkProblem(problem, error)))
    return failure();
  schedule = Schedule();
  FirstFitPacker packer(problem.topology(), schedule);
  for (const Demand &d : problem.transfers())
    packer.place({d.src, d.dst, d.bytes, 0});
  schedule.algorithm = "greedy";
  schedule.bound = problem.bound();
  return success();
}
