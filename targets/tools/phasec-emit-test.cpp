//===- phasec-emit-test.cpp - Drive the MPI / SHMEM generators ------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// collective request -> baseline schedule (Baselines.h) -> Problem::verify
// -> OperationPlan -> emitMPI / emitSHMEM. Lets the back ends be tested and
// benchmarked independently of the .sched front end and the phasec driver.
//
//   phasec-emit-test --op=transpose --ranks=4 --n=4096 --elem=c128 \
//       --style=direct_deposit --emit=shmem --main -o out.c
//
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Algorithms.h"
#include "phasec/Scheduling/BuildProblem.h"
#include "phasec/Scheduling/Collective.h"
#include "phasec/Target/MPI/MPIEmitter.h"
#include "phasec/Target/SHMEM/SHMEMEmitter.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace phasec;
using namespace phasec::target;
namespace cl = llvm::cl;

static cl::opt<std::string> opName("op", cl::desc("operation (alltoall, "
                                                  "alltoallv, transpose, ...)"),
                                   cl::init("alltoall"));
static cl::opt<std::string> funcName("name", cl::desc("C function name"),
                                     cl::init(""));
static cl::opt<int> numRanks("ranks", cl::desc("ranks of the machine"),
                             cl::init(4));
static cl::opt<std::string> groupList("group",
                                      cl::desc("comma-separated ranks "
                                               "(default: all)"),
                                      cl::init(""));
static cl::opt<std::string>
    machine("machine",
            cl::desc("topology spec (default torus:1;ranks=R: one node)"),
            cl::init(""));
static cl::opt<int64_t> bytes("bytes", cl::desc("block bytes"), cl::init(64));
static cl::opt<int64_t> size("n", cl::desc("transpose edge / permute length"),
                             cl::init(16));
static cl::opt<int64_t>
    cols("cols",
         cl::desc("transpose: the columns of A when it is not square (A is "
                  "n x cols; scheduled as the all-to-all of its blocks)"),
         cl::init(0));
static cl::opt<std::string> elemName("elem", cl::desc("element type"),
                                     cl::init("u8"));
static cl::opt<int> root("root", cl::desc("root rank"), cl::init(0));
static cl::opt<std::string> sizesList("sizes",
                                      cl::desc("alltoallv: P*P sizes, "
                                               "comma-separated"),
                                      cl::init(""));
static cl::opt<std::string> permKind("perm",
                                     cl::desc("random, bitrev, xor, shift"),
                                     cl::init("random"));
static cl::opt<int64_t> permArg("perm-arg",
                                cl::desc("seed / mask / shift of --perm"),
                                cl::init(1));
static cl::opt<std::string>
    algorithm("algorithm",
              cl::desc("a scheduler of Algorithms.h (auto, linear_shift or "
                       "shift, xor, greedy, product, ...)"),
              cl::init("shift"));
static cl::opt<std::string> style("style",
                                  cl::desc("packing, chained, direct_deposit"),
                                  cl::init("direct_deposit"));
static cl::opt<std::string> sync("sync", cl::desc("barrier or none"),
                                 cl::init("barrier"));
static cl::opt<std::string> order("order",
                                  cl::desc("loads (contiguous loads, strided "
                                           "stores) or stores (the reverse)"),
                                  cl::init("stores"));
static cl::opt<int64_t> tile("tile", cl::desc("transpose tile edge"),
                             cl::init(16));
static cl::opt<bool> noFormulas("no-formulas",
                                cl::desc("never emit phase formulas"));
static cl::opt<bool> noTranslations(
    "no-translations",
    cl::desc("one table per member, even where the schedule repeats under "
             "translations of the member index"));
static cl::opt<int> split("split",
                          cl::desc("split every transfer into this many "
                                   "(tests offsets)"),
                          cl::init(1));
static cl::opt<bool> splitAny("split-any",
                              cl::desc("--split ignores element boundaries"));
static cl::opt<bool> noVerify(
    "no-verify",
    cl::desc("skip Problem::verify (tests the plan builder's own checks)"));
static cl::opt<bool> dropLast("drop-last",
                              cl::desc("drop the last transfer (tests)"));
static cl::opt<std::string>
    extraTransfer("extra-transfer",
                  cl::desc("S,D,BYTES: add a transfer to phase 0 (tests)"),
                  cl::init(""));
static cl::opt<std::string> emit("emit", cl::desc("mpi or shmem"),
                                 cl::init("mpi"));
static cl::opt<bool> withMain("main", cl::desc("emit the harness"));
static cl::opt<bool> noDatatypes("no-datatypes",
                                 cl::desc("MPI: explicit unpacking"));
static cl::opt<bool> blocking("blocking",
                              cl::desc("SHMEM: shmem_putmem, not _nbi"));
static cl::opt<bool> noShmemPtr("no-shmem-ptr",
                                cl::desc("SHMEM: never store via shmem_ptr"));
static cl::opt<std::string> outFile("o", cl::desc("output file"),
                                    cl::init("-"));

static int fail(const std::string &msg) {
  llvm::errs() << "phasec-emit-test: error: " << msg << "\n";
  return 1;
}

static bool parseList(llvm::StringRef s, std::vector<int64_t> &out) {
  llvm::SmallVector<llvm::StringRef> parts;
  s.split(parts, ',', -1, false);
  for (llvm::StringRef p : parts) {
    int64_t v;
    if (p.trim().getAsInteger(10, v))
      return false;
    out.push_back(v);
  }
  return true;
}

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv, "phasec MPI/SHMEM generator driver\n");
  std::string error;

  std::string spec = machine.empty()
                         ? "torus:1;ranks=" + std::to_string(numRanks)
                         : machine.getValue();
  llvm::Expected<std::unique_ptr<Topology>> topo = createTopology(spec);
  if (!topo)
    return fail(llvm::toString(topo.takeError()));

  // "permute" permutes array elements (--size of them), "rank_permute"
  // whole blocks between ranks.
  bool rankPermute = opName == "rank_permute";
  std::optional<CollectiveKind> kind =
      rankPermute ? CollectiveKind::Permute : symbolizeCollectiveKind(opName);
  if (!kind)
    return fail("unknown --op '" + opName + "'");
  Collective req;
  req.kind = *kind;
  if (groupList.empty()) {
    for (RankId r = 0; r < (*topo)->numRanks(); ++r)
      req.group.push_back(r);
  } else {
    std::vector<int64_t> g;
    if (!parseList(groupList, g))
      return fail("bad --group list '" + groupList + "'");
    for (int64_t r : g)
      req.group.push_back(static_cast<RankId>(r));
  }
  bool rooted = opName == "gather" || opName == "scatter" ||
                opName == "one_to_all" || opName == "all_to_one";
  if (rooted)
    req.root = root;
  req.blockBytes = bytes;
  if (!sizesList.empty() && !parseList(sizesList, req.sizes))
    return fail("bad --sizes list");
  if (permKind == "random") {
    req.permutation.kind = PermuteKind::Random;
    req.permutation.seed = static_cast<uint64_t>(permArg);
  } else if (permKind == "bitrev") {
    req.permutation.kind = PermuteKind::BitReversal;
  } else if (permKind == "xor") {
    req.permutation.kind = PermuteKind::Xor;
    req.permutation.mask = permArg;
  } else if (permKind == "shift") {
    req.permutation.kind = PermuteKind::Shift;
    req.permutation.shift = permArg;
  } else {
    return fail("unknown --perm '" + permKind + "'");
  }
  llvm::FailureOr<ElementCType> elem = parseElementType(elemName, error);
  if (failed(elem))
    return fail(error);
  if (cols.getNumOccurrences() && (opName != "transpose" || cols <= 0))
    return fail("--cols needs --op=transpose and a positive value");
  ArrayLayout array;
  array.elementBytes = elem->size;
  if (opName == "transpose") {
    // A --size x --cols array (square without --cols) and its transpose.
    int64_t c = cols > 0 ? cols : size;
    array.shape = {size, c};
    req.from = array;
    array.shape = {c, size};
    req.to = array;
  } else if (getTraits(req.kind).shape == DataShape::Permutation &&
             !rankPermute) {
    array.shape = {size};
    req.from = req.to = array;
  }

  // The transfers, scheduled by a baseline and verified.
  llvm::Expected<std::unique_ptr<Problem>> lowered =
      lowerCollective(**topo, req);
  if (!lowered)
    return fail(llvm::toString(lowered.takeError()));
  const Problem &problem = **lowered;
  Schedule schedule;
  std::optional<SchedulerAlgorithm> alg = symbolizeSchedulerAlgorithm(
      algorithm == "shift" ? llvm::StringRef("linear_shift")
                           : llvm::StringRef(algorithm));
  if (!alg)
    return fail("unknown --algorithm '" + algorithm + "'");
  SchedulerOptions sopts;
  sopts.algorithm = *alg;
  SchedulerReport report;
  if (failed(scheduleAuto(problem, schedule, sopts, report)))
    return fail(report.error.empty() ? "scheduling failed" : report.error);
  if (split > 1) {
    int64_t unit =
        (!splitAny && (opName == "transpose" || opName == "permute"))
            ? elem->size
            : 1;
    for (Phase &ph : schedule.phases) {
      std::vector<Transfer> out;
      for (const Transfer &t : ph.transfers) {
        int64_t units = t.bytes / unit, left = units;
        for (int k = 0; k < split; ++k) {
          int64_t take = k + 1 == split ? left : units / split;
          if (take <= 0)
            continue;
          out.push_back({t.src, t.dst, take * unit, t.ties});
          left -= take;
        }
      }
      ph.transfers = std::move(out);
    }
  }
  if (dropLast && !schedule.phases.empty() &&
      !schedule.phases.back().transfers.empty())
    schedule.phases.back().transfers.pop_back();
  if (!extraTransfer.empty()) {
    std::vector<int64_t> v;
    if (!parseList(extraTransfer, v) || v.size() != 3)
      return fail("--extra-transfer needs S,D,BYTES");
    if (schedule.phases.empty())
      schedule.phases.emplace_back();
    schedule.phases[0].transfers.push_back(
        {static_cast<RankId>(v[0]), static_cast<RankId>(v[1]), v[2], 0});
  }
  llvm::SmallVector<ScheduleViolation> violations;
  if (!noVerify && failed(problem.verify(schedule, violations)))
    return fail("schedule does not verify: " + violations.front().message);

  PlanOptions popts;
  // `auto` is the scheduling pass's to resolve, as `--sync=auto` is: the
  // concrete styles come first in the vocabulary.
  std::string concrete = joinSpellings<TransferStyle>(
      static_cast<unsigned>(TransferStyle::DirectDeposit));
  std::optional<TransferStyle> st = symbolizeTransferStyle(style);
  if (!st)
    return fail("unknown transfer style '" + style + "' (expected one of " +
                concrete + ")");
  if (*st == TransferStyle::Auto)
    return fail("--style must be one of " + concrete +
                " (comm-schedule-phases resolves auto)");
  popts.style = *st;
  std::optional<SyncKind> sk = symbolizeSyncKind(sync);
  if (!sk || *sk == SyncKind::Auto)
    return fail("--sync must be barrier or none");
  popts.sync = *sk;
  if (order != "loads" && order != "stores")
    return fail("--order must be loads or stores");
  popts.order = order == "loads" ? LoopOrder::ContiguousLoads
                                 : LoopOrder::ContiguousStores;
  popts.tile = tile;
  popts.formulas = !noFormulas;
  popts.translations = !noTranslations;
  std::string name = funcName.empty() ? "phasec_" + opName : funcName;
  llvm::FailureOr<OperationPlan> plan =
      buildOperationPlan(name, req, *elem, schedule, popts, error);
  if (failed(plan))
    return fail(error);

  std::error_code ec;
  llvm::ToolOutputFile out(outFile, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return fail("cannot open '" + outFile + "': " + ec.message());
  llvm::LogicalResult ok = llvm::failure();
  if (emit == "mpi") {
    MPIOptions o;
    o.main = withMain;
    o.derivedDatatypes = !noDatatypes;
    ok = emitMPI(*plan, out.os(), o, error);
  } else if (emit == "shmem") {
    SHMEMOptions o;
    o.main = withMain;
    o.nonBlocking = !blocking;
    o.useShmemPtr = !noShmemPtr;
    ok = emitSHMEM(*plan, out.os(), o, error);
  } else {
    return fail("--emit must be mpi or shmem");
  }
  if (failed(ok))
    return fail(error);
  out.keep();
  return 0;
}
