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

//===----------------------------------------------------------------------===//
// The simulators' comparison patterns
//===----------------------------------------------------------------------===//

Schedule phasec::scheduleLoop(const Problem &problem,
                              const Schedule &schedule) {
  const Topology &topo = problem.topology();
  std::vector<RankId> members = problem.members();
  std::vector<int64_t> index(topo.numRanks(), 0);
  for (size_t i = 0; i < members.size(); ++i)
    index[members[i]] = static_cast<int64_t>(i);
  int64_t n = std::max<int64_t>(1, static_cast<int64_t>(members.size()));
  Schedule loop;
  loop.phases.resize(n);
  PhaseReader read(topo, schedule);
  for (size_t j = 0; j < read.size(); ++j)
    for (const Transfer &t : read[j].transfers)
      loop.phases[((index[t.dst] - index[t.src]) % n + n) % n]
          .transfers.push_back(t);
  loop.phases.erase(
      std::remove_if(loop.phases.begin(), loop.phases.end(),
                     [](const Phase &p) { return p.transfers.empty(); }),
      loop.phases.end());
  loop.bound = schedule.bound;
  loop.algorithm = "loop";
  return loop;
}

/// A relaying exchange `name` among the members of a complete all-to-all
/// of uniform blocks: step k sends each member i's `blocks(k)` blocks to
/// member i + `offset(k)` (mod n), for the steps `steps(n)` lists.
static LogicalResult
relayingExchange(const Problem &problem, llvm::StringRef name,
                 std::vector<std::pair<int64_t, int64_t>> (*steps)(int64_t),
                 Schedule &out, std::string &error) {
  const std::vector<RankId> *members = problem.transfers().allPairsMembers();
  std::optional<int64_t> block = problem.transfers().uniformBytes();
  if (!members || !block || members->size() < 2) {
    error = "it needs a complete all-to-all of equal blocks";
    return failure();
  }
  int64_t n = static_cast<int64_t>(members->size());
  out = Schedule();
  out.algorithm = name.str();
  for (auto [offset, blocks] : steps(n)) {
    Phase &step = out.phases.emplace_back();
    for (int64_t i = 0; i < n; ++i)
      step.transfers.push_back(
          {(*members)[i], (*members)[(i + offset) % n], blocks * *block});
  }
  return success();
}

LogicalResult phasec::scheduleRelayingRing(const Problem &problem,
                                           Schedule &out, std::string &error) {
  return relayingExchange(
      problem, "ring",
      [](int64_t n) {
        std::vector<std::pair<int64_t, int64_t>> steps;
        for (int64_t k = 1; k < n; ++k)
          steps.push_back({1, n - k});
        return steps;
      },
      out, error);
}

LogicalResult phasec::scheduleRelayingBruck(const Problem &problem,
                                            Schedule &out, std::string &error) {
  return relayingExchange(
      problem, "bruck",
      [](int64_t n) {
        std::vector<std::pair<int64_t, int64_t>> steps;
        for (int64_t bit = 1; bit < n; bit <<= 1) {
          int64_t blocks = 0;
          for (int64_t d = 1; d < n; ++d)
            blocks += (d & bit) ? 1 : 0;
          steps.push_back({bit, blocks});
        }
        return steps;
      },
      out, error);
}

LogicalResult phasec::schedulePercsSeed(const Problem &problem, Schedule &out,
                                        std::string &error) {
  const Topology &topo = problem.topology();
  if (!topo.isPercs() || topo.numSupernodes() != 1) {
    error = "percs-seed needs a PERCS machine of one supernode";
    return failure();
  }
  int64_t n = topo.numNodes(), c = topo.ranksPerNode();
  out = Schedule();
  out.algorithm = "percs-seed";
  for (int64_t i = 0; i < n; ++i) {
    Phase phase;
    for (int64_t m = 0; m < n; ++m)
      for (int64_t j = 0; j < c; ++j) {
        RankId src = static_cast<RankId>(m * c + j);
        int64_t node = (m + j + i) % n;
        for (int64_t k = 0; k < c; ++k) {
          RankId dst = static_cast<RankId>(node * c + k);
          int64_t bytes = problem.transfers().lookup(src, dst);
          if (src != dst && bytes > 0)
            phase.transfers.push_back({src, dst, bytes, 0});
        }
      }
    out.phases.push_back(std::move(phase));
  }
  out.bound = computeLowerBound(problem);
  return success();
}

/// A comparison built from the problem alone.
template <LogicalResult (*Build)(const Problem &, Schedule &, std::string &)>
static LogicalResult fromProblem(const Problem &problem, const Schedule &,
                                 Schedule &out, std::string &error) {
  return Build(problem, out, error);
}

static LogicalResult loopOf(const Problem &problem, const Schedule &scheduled,
                            Schedule &out, std::string &) {
  out = scheduleLoop(problem, scheduled);
  return success();
}

llvm::ArrayRef<ComparisonEntry> phasec::getComparisons() {
  static const ComparisonEntry entries[] = {
      {"loop", loopOf},
      {"ring", fromProblem<scheduleRelayingRing>},
      {"bruck", fromProblem<scheduleRelayingBruck>},
      {"percs-seed", fromProblem<schedulePercsSeed>},
  };
  return entries;
}

LogicalResult phasec::runComparison(llvm::StringRef name,
                                    const Problem &problem,
                                    const Schedule &scheduled, Schedule &out,
                                    std::string &error) {
  for (const ComparisonEntry &entry : getComparisons())
    if (entry.name == name)
      return entry.build(problem, scheduled, out, error);
  error = ("unknown comparison '" + name + "'").str();
  return failure();
}
