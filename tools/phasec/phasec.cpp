//===- phasec.cpp - The phasec compiler driver ----------------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `phasec FILE.sched [--emit=ast|mlir|schedule-json|schedule-stats|cost|
/// cost-json|mpi|shmem]
/// [--main] [-o OUT]`, `phasec FILE.sched --emit=simgrid -o DIR` and
/// `phasec FILE.sched --target=sim [--compare] [--report DIR] [-o DIR]`.
/// Only option parsing and exit codes: the pipeline is
/// phasec::driver::runPhasec (tools/include/phasec/Driver/Driver.h). The
/// options live in their own category so that --help lists only them.
///
//===----------------------------------------------------------------------===//

#include "phasec/Core/UserFiles.h"
#include "phasec/Driver/Driver.h"
#include "phasec/Target/OperationPlan.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Support/ToolUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

using namespace llvm;
using namespace phasec;

static cl::OptionCategory phasecCategory("phasec options");

/// The largest .mlir input phasec reads (a scheduled module holds a line
/// per transfer).
constexpr uint64_t kMaxMLIRInputBytes = uint64_t(1) << 30;

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<input .sched or .mlir file, "
                                               "or - for .sched on stdin>"),
                                      cl::Required, cl::cat(phasecCategory));

static cl::opt<std::string> outputFile(
    "o",
    cl::desc("Output file (default: stdout); with --emit=simgrid and "
             "--target=sim the output directory (default: a new temporary "
             "directory)"),
    cl::value_desc("file"), cl::init("-"), cl::cat(phasecCategory));

static cl::opt<driver::EmitKind> emit(
    "emit", cl::desc("What to write"), cl::init(driver::EmitKind::MLIR),
    cl::values(
        clEnumValN(driver::EmitKind::AST, "ast", "the evaluated program"),
        clEnumValN(driver::EmitKind::MLIR, "mlir",
                   "the comm dialect (default)"),
        clEnumValN(driver::EmitKind::ScheduleJSON, "schedule-json",
                   "verified schedules in the phasec-schedule/1 JSON format"),
        clEnumValN(driver::EmitKind::ScheduleStats, "schedule-stats",
                   "phases, lower bound and time/bound per operation, "
                   "beside the baselines"),
        clEnumValN(driver::EmitKind::MPI, "mpi",
                   "C + MPI, one function per operation"),
        clEnumValN(driver::EmitKind::SHMEM, "shmem",
                   "C + OpenSHMEM, one function per operation"),
        clEnumValN(driver::EmitKind::MPIHeader, "mpi-header",
                   "the header of --emit=mpi's file: element and program "
                   "types, and the prototypes of its public functions"),
        clEnumValN(driver::EmitKind::SHMEMHeader, "shmem-header",
                   "the same for --emit=shmem's file"),
        clEnumValN(driver::EmitKind::SimGrid, "simgrid",
                   "a SimGrid SMPI directory per operation (platform, "
                   "program, run script) in -o DIR, not run"),
        clEnumValN(driver::EmitKind::Ns3, "ns3",
                   "an ns-3 directory per operation (packet-level program "
                   "with credit flow control, its CMake build, a scenario "
                   "of phasec's schedule, the same messages posted at once "
                   "and the baselines) in -o DIR, not run"),
        clEnumValN(driver::EmitKind::Cost, "cost",
                   "seed 003's C^3 units per operation and superstep: "
                   "set-ups x s + coefficient x L, and at --cost-sizes"),
        clEnumValN(driver::EmitKind::CostJSON, "cost-json",
                   "the same as JSON (phasec-c3-units/1)")),
    cl::cat(phasecCategory));

static cl::opt<int64_t> ns3Buffer(
    "ns3-buffer",
    cl::desc("With --emit=ns3: packets each router input buffer holds per "
             "virtual channel (default: the machine's router_buffer, or 2)"),
    cl::value_desc("packets"), cl::init(0), cl::cat(phasecCategory));

static cl::opt<int64_t> ns3Header(
    "ns3-header",
    cl::desc("With --emit=ns3: header bytes of every packet beyond its "
             "payload, the machine's packet_length (default: the "
             "machine's packet_header, or 4; at least 4, the route header)"),
    cl::value_desc("bytes"), cl::init(0), cl::cat(phasecCategory));

static cl::opt<double> ns3HopLatency(
    "ns3-hop-latency",
    cl::desc("With --emit=ns3: seconds through one router and link beyond "
             "serialisation (default: the machine's latency)"),
    cl::value_desc("seconds"), cl::init(-1), cl::cat(phasecCategory));

enum class Ns3Links { P2P, Direct };
static cl::opt<Ns3Links> ns3Links(
    "ns3-links", cl::desc("With --emit=ns3: how links are simulated"),
    cl::init(Ns3Links::P2P),
    cl::values(clEnumValN(Ns3Links::P2P, "p2p",
                          "ns-3 point-to-point devices and channels "
                          "(default)"),
               clEnumValN(Ns3Links::Direct, "direct",
                          "the same serialisation and latency as events on "
                          "ns-3's kernel, about twice as fast")),
    cl::cat(phasecCategory));

static cl::list<std::string> ns3Variants(
    "ns3-variants",
    cl::desc("With --emit=ns3: the variants to write and run, e.g. "
             "phasec,loop,posted (default: all of phasec, ordered, loop, "
             "posted, linear_shift, pairwise, xor, greedy, ring, bruck)"),
    cl::value_desc("name,..."), cl::CommaSeparated, cl::cat(phasecCategory));

static cl::opt<int> ns3Jobs(
    "ns3-jobs",
    cl::desc("With --target=ns3: simulator processes run at once, each on a "
             "share of the variants (default 1; the times do not depend "
             "on it)"),
    cl::value_desc("N"), cl::init(1), cl::cat(phasecCategory));

static cl::opt<bool> emitMain(
    "main",
    cl::desc("With --emit=mpi|shmem: also emit a main that fills, times and "
             "verifies every byte"),
    cl::cat(phasecCategory));

enum class Target { None, Sim, Ns3 };
static cl::opt<Target> targetOption(
    "target", cl::desc("Run the schedules instead of emitting them"),
    cl::init(Target::None),
    cl::values(clEnumValN(Target::Sim, "sim",
                          "build and run every operation in SimGrid SMPI "
                          "and print simulated time against the bound"),
               clEnumValN(Target::Ns3, "ns3",
                          "simulate every operation's packets in ns-3 "
                          "(--emit=ns3's directory, run by phasec-ns3) and "
                          "print simulated time against the bound")),
    cl::cat(phasecCategory));

static cl::opt<bool> compare(
    "compare",
    cl::desc("With --target=sim: also simulate the baselines and SimGrid's "
             "built-in algorithms; with --target=ns3: also the other "
             "relaying schedules a relaying operation's choice weighed, and "
             "its own with barriers"),
    cl::cat(phasecCategory));

static cl::opt<std::string>
    reportDir("report",
              cl::desc("With --target=sim or --target=ns3: write an HTML "
                       "report to this directory"),
              cl::value_desc("dir"), cl::cat(phasecCategory));

static cl::opt<std::string> topology(
    "topology",
    cl::desc("Replace every machine's topology (torus:8x4x8x2, mesh:16x16, "
             "hypercube:6, percs:supernodes=1,drawers=4,nodes=8); for a "
             ".mlir input, the machine of every mesh.mesh without a "
             "comm.machine attribute"),
    cl::value_desc("spec"), cl::cat(phasecCategory));

static cl::opt<int64_t>
    ranksPerNode("ranks-per-node",
                 cl::desc("Replace every machine's ranks per node"),
                 cl::value_desc("n"), cl::init(0), cl::cat(phasecCategory));

static cl::opt<LoopOrder> loopOrder(
    "loop-order",
    cl::desc("The loop order of every transpose without a loop_order "
             "directive (seed 001)"),
    cl::values(clEnumValN(LoopOrder::ContiguousLoads, "contiguous_loads",
                          "contiguous loads, strided stores"),
               clEnumValN(LoopOrder::ContiguousStores, "contiguous_stores",
                          "strided loads, contiguous stores"),
               clEnumValN(LoopOrder::Auto, "auto",
                          "the copy-transfer model's choice (default)")),
    cl::init(LoopOrder::Auto), cl::cat(phasecCategory));

static cl::list<std::string> defines(
    "define",
    cl::desc("Replace the value of a top-level constant (repeatable; e.g. "
             "--define N=64 to shrink an example)"),
    cl::value_desc("NAME=INTEGER"), cl::cat(phasecCategory));

static cl::list<std::string> includeDirs(
    "include-dir",
    cl::desc("A directory besides the .sched file's whose files "
             "file(\"...\") and table(\"...\") may name (repeatable)"),
    cl::value_desc("dir"), cl::cat(phasecCategory));
static cl::alias includeDirsShort("I", cl::desc("Alias for --include-dir"),
                                  cl::aliasopt(includeDirs), cl::Prefix,
                                  cl::cat(phasecCategory));

static cl::opt<int64_t> maxTransfers(
    "max-transfers",
    cl::desc("Refuse an operation of more transfers than this before "
             "building them (default 2^28: 6 GiB where a schedule lists "
             "every transfer)"),
    cl::value_desc("n"), cl::init(Collective::kDefaultMaxTransfers),
    cl::cat(phasecCategory));

static cl::opt<uint64_t> solverRlimit(
    "solver-rlimit",
    cl::desc("Z3 resource limit per solver query (overrides the operations' "
             "rlimit directives)"),
    cl::value_desc("n"), cl::init(0), cl::cat(phasecCategory));

static cl::opt<std::string> algorithm(
    "algorithm",
    cl::desc("Schedule every operation with this algorithm (auto, product, "
             "percs, torus-quotient, mesh-quotient, greedy-priority, z3-exact, "
             "linear_shift, xor, greedy)"),
    cl::value_desc("name"), cl::cat(phasecCategory));

static cl::opt<std::string>
    cacheDir("cache-dir", cl::desc("Directory caching solved Z3 ring cores"),
             cl::value_desc("dir"), cl::cat(phasecCategory));

static cl::opt<bool> allowUnsupported(
    "allow-unsupported",
    cl::desc("Skip operations phasec cannot schedule yet (k_level(k > 1) "
             "of an alltoall) with a warning instead of an error"),
    cl::cat(phasecCategory));

static cl::list<int64_t> costSizes(
    "cost-sizes",
    cl::desc("With --emit=cost|cost-json: the message sizes L (bytes) to "
             "evaluate the units at (default 16,512,4096,16384)"),
    cl::value_desc("L,L,..."), cl::CommaSeparated, cl::cat(phasecCategory));

static cl::opt<double>
    c3Setup("c3-setup",
            cl::desc("With --emit=cost|cost-json: the set-up cost s in units "
                     "(default: the machine's setup_cost / (packet_length / "
                     "bandwidth)); seed 003 uses 8 on the Delta"),
            cl::value_desc("units"), cl::init(-1), cl::cat(phasecCategory));

static cl::opt<Switching> c3Routing(
    "c3-routing",
    cl::desc("With --emit=cost|cost-json: the routing schema (default: the "
             "machine's switching)"),
    cl::values(clEnumValN(Switching::Wormhole, "wormhole", "wormhole routing"),
               clEnumValN(Switching::StoreAndForward, "store-and-forward",
                          "store-and-forward routing")),
    cl::cat(phasecCategory));

static cl::opt<SendProtocol> c3Sends(
    "c3-sends",
    cl::desc("With --emit=cost|cost-json: the send primitive (default: the "
             "machine's sends)"),
    cl::values(clEnumValN(SendProtocol::Nonblocking, "nonblocking",
                          "nonblocking sends"),
               clEnumValN(SendProtocol::Blocking, "blocking",
                          "blocking sends")),
    cl::cat(phasecCategory));

static cl::opt<bool> scheduleMLIR(
    "schedule", cl::desc("With --emit=mlir: run the scheduling pipeline first"),
    cl::cat(phasecCategory));

static cl::opt<bool>
    printLocations("print-locations",
                   cl::desc("With --emit=mlir: print source locations"),
                   cl::cat(phasecCategory));

static cl::opt<bool> verbose(
    "v",
    cl::desc("Progress on stderr: a remark per operation as it is scheduled "
             "(phases, algorithm, time over the bound, seconds); on by "
             "default when stderr is a terminal"),
    cl::cat(phasecCategory));

static cl::opt<bool> noBaselines(
    "no-baselines",
    cl::desc("With --emit=schedule-stats: print phasec's schedules only, "
             "without scheduling the baselines and other algorithms again"),
    cl::cat(phasecCategory));

static cl::opt<std::string> symbolPrefix(
    "symbol-prefix",
    cl::desc("With --emit=mpi or --emit=shmem: prefix every public symbol "
             "(each operation's function, phasec_program -> PREFIXprogram), "
             "so that two generated files link into one program"),
    cl::value_desc("prefix"), cl::cat(phasecCategory));

static cl::opt<std::string> statsFile(
    "stats-file",
    cl::desc("Also write the schedule statistics (what --emit=schedule-stats "
             "--no-baselines prints) to this file: statistics and code from "
             "one scheduling run"),
    cl::value_desc("file"), cl::cat(phasecCategory));

static cl::opt<bool> verifyDiagnostics(
    "verify-diagnostics",
    cl::desc("Check the diagnostics against the input's expected-error, "
             "expected-warning and expected-note comments (as mlir-opt "
             "does) instead of printing them; writes no output"),
    cl::cat(phasecCategory));

static cl::opt<bool> splitInputFile(
    "split-input-file",
    cl::desc("Compile each '// -----'-separated chunk of the input on its "
             "own (outputs separated by '// -----')"),
    cl::cat(phasecCategory));

/// The exit codes (docs/language.md, "Diagnostics").
enum ExitCode {
  ExitSuccess = 0,
  ExitInputError = 1,
  ExitUsage = 2,
  ExitSolverBudget = 3
};

/// A usage error: the message and exit code 2.
static int usage(const Twine &message) {
  WithColor::error(errs(), "phasec")
      << escapeForTerminal(message.str()) << "\n";
  return ExitUsage;
}

/// Memory ran out beyond what --max-transfers predicts (a schedule, the
/// code, a simulation): a diagnostic and exit 1, no stack dump. Runs inside
/// the failed allocation, so it allocates nothing.
static void outOfMemory(void *, const char *, bool) {
  static const char message[] =
      "phasec: error: out of memory; make the machine or the operation "
      "smaller (or lower --max-transfers to be told before scheduling)\n";
  (void)!::write(2, message, sizeof message - 1);
  ::_exit(ExitInputError);
}

static void printVersion(raw_ostream &os) {
  os << "phasec version " << PHASEC_VERSION_STRING
     << " (LLVM/MLIR " LLVM_VERSION_STRING ")\n";
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  llvm::install_bad_alloc_error_handler(outOfMemory);
  // MLIR's own options, as phasec-opt has them: --mlir-timing,
  // --mlir-pass-statistics, --mlir-print-ir-after-all, ...
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  cl::HideUnrelatedOptions(phasecCategory);
  cl::SetVersionPrinter(printVersion);
  // Errors of the command line itself exit with 2 (a usage error), not
  // with LLVM's 1.
  bool parsed = cl::ParseCommandLineOptions(
      argc, argv,
      "phasec: congestion-free communication schedules for .sched files\n"
      "\n"
      "  phasec FILE.sched --emit=schedule-stats         phases vs the bound\n"
      "  phasec FILE.sched --emit=mpi --main -o out.c    C + MPI with a main\n"
      "  phasec FILE.sched --emit=cost [--cost-sizes=16,4096]  C^3 units\n"
      "  phasec FILE.sched --emit=shmem --main -o out.c  C + OpenSHMEM\n"
      "    mpicc|oshcc out.c $(pkg-config --cflags --libs phasec-runtime)\n"
      "  phasec FILE.sched --emit=simgrid -o DIR         SimGrid SMPI files\n"
      "  phasec FILE.sched --target=sim [--compare] [--report DIR] [-o DIR]\n"
      "                                                  run in SimGrid\n"
      "  phasec FILE.mlir --topology=SPEC --emit=mpi     upstream mesh "
      "collectives\n"
      "\n"
      "Exit codes: 0 success, 1 an error in the input, 2 a usage error, 3 a "
      "solver\nbudget that ran out without a schedule.\n"
      "MLIR's --mlir-timing, --mlir-pass-statistics and "
      "--mlir-print-ir-after-all\n(--help-hidden lists them) apply to the "
      "scheduling pipeline.\n",
      &errs());
  if (!parsed)
    return ExitUsage;
  // LLVM's own --time-passes and --stats come with libLLVM and would be
  // accepted and print nothing: phasec runs MLIR's pass manager.
  StringMap<cl::Option *> &registered = cl::getRegisteredOptions();
  auto given = [&](StringRef name) {
    auto it = registered.find(name);
    return it != registered.end() && it->second->getNumOccurrences() > 0;
  };
  if (given("time-passes"))
    return usage("--time-passes times LLVM's legacy passes, which phasec "
                 "does not run; use --mlir-timing");
  if (given("stats"))
    return usage("--stats prints LLVM's statistics, which phasec's passes do "
                 "not keep; use --mlir-pass-statistics");

  if (maxTransfers <= 0)
    return usage("--max-transfers must be positive, not " +
                 Twine(maxTransfers));
  if (ranksPerNode.getNumOccurrences() && ranksPerNode <= 0)
    return usage("--ranks-per-node must be positive, not " +
                 Twine(ranksPerNode));
  // An option given with an empty value is a mistake, never "not given".
  for (cl::opt<std::string> *option :
       {&outputFile, &reportDir, &topology, &algorithm, &cacheDir,
        &symbolPrefix, &statsFile})
    if (option->getNumOccurrences() && option->empty())
      return usage((option->ArgStr.size() == 1 ? "-" : "--") + option->ArgStr +
                   " needs a value");

  bool simulate = targetOption == Target::Sim;
  if (simulate && emit.getNumOccurrences())
    return usage("--target=sim cannot be combined with --emit");
  if (targetOption == Target::Ns3) {
    if (emit.getNumOccurrences())
      return usage("--target=ns3 cannot be combined with --emit");
    emit = driver::EmitKind::Ns3;
  }
  if (!simulate && targetOption != Target::Ns3 && compare)
    return usage("--compare needs --target=sim or --target=ns3");
  if (!simulate && targetOption != Target::Ns3 && reportDir.getNumOccurrences())
    return usage("--report needs --target=sim or --target=ns3");
  if (emitMain && emit != driver::EmitKind::MPI &&
      emit != driver::EmitKind::SHMEM)
    return usage("--main needs --emit=mpi or --emit=shmem");
  if (noBaselines && emit != driver::EmitKind::ScheduleStats)
    return usage("--no-baselines needs --emit=schedule-stats");
  if (!symbolPrefix.empty() && emit != driver::EmitKind::MPI &&
      emit != driver::EmitKind::SHMEM && emit != driver::EmitKind::MPIHeader &&
      emit != driver::EmitKind::SHMEMHeader)
    return usage("--symbol-prefix needs --emit=mpi, shmem, mpi-header or "
                 "shmem-header");
  if (!symbolPrefix.empty() && !phasec::target::isSymbolPrefix(symbolPrefix))
    return usage("--symbol-prefix '" + symbolPrefix +
                 "' does not start a C identifier");
  if (!statsFile.empty() &&
      (emit == driver::EmitKind::AST || emit == driver::EmitKind::MLIR ||
       simulate || verifyDiagnostics || splitInputFile))
    return usage(
        "--stats-file needs an --emit that schedules (schedule-json, "
        "schedule-stats, mpi, shmem, simgrid, ns3, cost), one input and no "
        "--verify-diagnostics");
  bool writesDirectory = simulate || emit == driver::EmitKind::SimGrid ||
                         emit == driver::EmitKind::Ns3;
  if (verifyDiagnostics && writesDirectory)
    return usage("--verify-diagnostics does not run with --target=sim, "
                 "--emit=simgrid or --emit=ns3");
  if (splitInputFile && writesDirectory)
    return usage("--split-input-file does not run with --target=sim, "
                 "--emit=simgrid or --emit=ns3");
  if ((ns3Buffer.getNumOccurrences() || ns3Header.getNumOccurrences() ||
       ns3HopLatency.getNumOccurrences() || ns3Links.getNumOccurrences() ||
       ns3Variants.getNumOccurrences()) &&
      emit != driver::EmitKind::Ns3)
    return usage("--ns3-buffer, --ns3-header, --ns3-hop-latency, "
                 "--ns3-links and --ns3-variants need --emit=ns3 or "
                 "--target=ns3");
  if (ns3Jobs.getNumOccurrences() && targetOption != Target::Ns3)
    return usage("--ns3-jobs needs --target=ns3");
  if (ns3Jobs < 1 || ns3Jobs > ns3target::kMaxJobs)
    return usage("--ns3-jobs must be 1.." + Twine(ns3target::kMaxJobs) +
                 ", not " + Twine(ns3Jobs));
  for (const std::string &name : ns3Variants)
    if (!llvm::is_contained(ns3target::variantNames(), StringRef(name)))
      return usage("--ns3-variants: unknown variant '" + name + "' (" +
                   llvm::join(ns3target::variantNames(), ", ") + ")");
  if (ns3HopLatency.getNumOccurrences() &&
      !(ns3HopLatency >= 0 && ns3HopLatency < 1))
    return usage("--ns3-hop-latency must be at least 0 and below 1 second");
  if (ns3Buffer.getNumOccurrences() && ns3Buffer < 1)
    return usage("--ns3-buffer must be at least 1 packet");
  if (ns3Header.getNumOccurrences() &&
      (ns3Header < TopologyDesc::kMinPacketHeader ||
       ns3Header > TopologyDesc::kMaxPacketHeader))
    return usage("--ns3-header must be 4..4096 bytes (the route header "
                 "takes 4)");

  bool costEmit =
      emit == driver::EmitKind::Cost || emit == driver::EmitKind::CostJSON;
  if (!costEmit &&
      (costSizes.getNumOccurrences() || c3Setup.getNumOccurrences() ||
       c3Routing.getNumOccurrences() || c3Sends.getNumOccurrences()))
    return usage("--cost-sizes, --c3-setup, --c3-routing and --c3-sends need "
                 "--emit=cost or --emit=cost-json");
  for (int64_t size : costSizes)
    if (size <= 0)
      return usage("--cost-sizes expects positive byte counts, not " +
                   Twine(size));
  if (c3Setup.getNumOccurrences() && !(c3Setup >= 0))
    return usage("--c3-setup expects a non-negative number of units, not " +
                 formatv("{0}", c3Setup.getValue()).str());

  std::vector<std::pair<std::string, int64_t>> constantOverrides;
  for (StringRef define : defines) {
    auto [name, value] = define.split('=');
    int64_t parsed;
    if (name.empty() || value.getAsInteger(0, parsed))
      return usage("--define expects NAME=INTEGER, not '" + define + "'");
    constantOverrides.emplace_back(name.str(), parsed);
  }

  // A .mlir input holds comm operations or upstream mesh collectives
  // (docs/embedding.md, "Sharding compilers"); it has no constants and no
  // program to print.
  bool mlirInput = StringRef(inputFile).ends_with(".mlir");
  if (mlirInput && emit == driver::EmitKind::AST)
    return usage("--emit=ast needs a .sched input, not '" + inputFile + "'");
  if (mlirInput && !defines.empty())
    return usage("--define needs a .sched input, not '" + inputFile + "'");
  if (mlirInput && ranksPerNode.getNumOccurrences())
    return usage("--ranks-per-node needs a .sched input, not '" + inputFile +
                 "'");
  if (mlirInput && loopOrder.getNumOccurrences())
    return usage("--loop-order needs a .sched input, not '" + inputFile + "'");

  // Writing the output over the input would destroy the source before a
  // second look (the output is written only after a successful compile, but
  // a compile that succeeds replaces the .sched file with C).
  if (inputFile != "-" && outputFile != "-" && sys::fs::exists(outputFile) &&
      sys::fs::equivalent(inputFile, outputFile))
    return usage("-o '" + outputFile + "' is the input file");

  // Only regular files and standard input, read up to a limit: a FIFO or
  // /dev/zero is an error at once. A scheduled .mlir module may be large
  // (one line per transfer); a .sched file is the language's size.
  std::string readError;
  std::unique_ptr<MemoryBuffer> buffer =
      readBoundedFile(inputFile,
                      mlirInput ? kMaxMLIRInputBytes
                                : driver::DriverOptions().frontend.maxFileBytes,
                      readError);
  if (!buffer) {
    WithColor::error(errs(), "phasec") << escapeForTerminal(readError) << "\n";
    return ExitInputError;
  }

  driver::DriverOptions options;
  options.emit = emit;
  options.frontend.topologyOverride = topology;
  options.mlirInput = mlirInput;
  options.frontend.ranksPerNodeOverride = ranksPerNode;
  if (loopOrder != LoopOrder::Auto)
    options.frontend.loopOrderOverride = loopOrder;
  options.frontend.constantOverrides = std::move(constantOverrides);
  options.frontend.includeDirs.assign(includeDirs.begin(), includeDirs.end());
  options.scheduling.rlimit = solverRlimit;
  options.scheduling.algorithm = algorithm;
  options.scheduling.cacheDir = cacheDir;
  options.scheduling.maxTransfers = maxTransfers;
  options.scheduling.allowUnsupported = allowUnsupported;
  options.scheduling.applyMLIRCLOptions = true;
  // Progress where somebody watches, never into a checked diagnostic list.
  options.scheduling.progress =
      !verifyDiagnostics && (verbose || sys::Process::StandardErrIsDisplayed());
  options.scheduleMLIR = scheduleMLIR;
  options.printDebugInfo = printLocations;
  options.emitMain = emitMain;
  options.simulate = simulate;
  options.compare = compare;
  options.reportDir = reportDir;
  options.verifyDiagnostics = verifyDiagnostics;
  options.statsBaselines = !noBaselines;
  options.statsFile = statsFile;
  options.symbolPrefix = symbolPrefix;
  options.ns3.bufferPackets = ns3Buffer;
  options.ns3.headerBytes = ns3Header;
  options.ns3.hopLatency = ns3HopLatency;
  options.ns3.directLinks = ns3Links == Ns3Links::Direct;
  options.ns3.variants.assign(ns3Variants.begin(), ns3Variants.end());
  options.ns3.jobs = ns3Jobs;
  options.ns3.compare = compare;
  if (targetOption == Target::Ns3)
    options.ns3.reportDir = reportDir;
  options.ns3.run = targetOption == Target::Ns3;
  if (options.ns3.run) {
    // The simulator is built and installed beside phasec.
    std::string self =
        sys::fs::getMainExecutable(argv[0], reinterpret_cast<void *>(&main));
    SmallString<256> sim(sys::path::parent_path(self));
    sys::path::append(sim, "phasec-ns3");
    if (sys::fs::can_execute(sim))
      options.ns3.simulator = std::string(sim);
  }
  if (!costSizes.empty())
    options.cost.sizes.assign(costSizes.begin(), costSizes.end());
  if (c3Setup.getNumOccurrences())
    options.cost.setupUnits = c3Setup;
  if (c3Routing.getNumOccurrences())
    options.cost.routing = c3Routing;
  if (c3Sends.getNumOccurrences())
    options.cost.sends = c3Sends;

  // The SimGrid and ns-3 back ends write directories themselves and print
  // their progress and tables as they go.
  if (writesDirectory) {
    if (outputFile != "-")
      options.outDir = outputFile;
    SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(buffer), SMLoc());
    return static_cast<int>(
        driver::runPhasecWithStatus(sourceMgr, options, outs(), errs()));
  }

  // Buffer the output so that a failed compile leaves no partial file. With
  // --split-input-file every chunk is a program of its own; the worst
  // status wins (a budget over an input error).
  std::string result;
  raw_string_ostream resultOS(result);
  driver::RunStatus status = driver::RunStatus::Success;
  auto compile = [&](std::unique_ptr<MemoryBuffer> chunk,
                     raw_ostream &os) -> LogicalResult {
    SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(chunk), SMLoc());
    driver::RunStatus chunkStatus =
        driver::runPhasecWithStatus(sourceMgr, options, os, errs());
    if (static_cast<int>(chunkStatus) > static_cast<int>(status))
      status = chunkStatus;
    return success(chunkStatus == driver::RunStatus::Success);
  };
  if (splitInputFile)
    (void)mlir::splitAndProcessBuffer(std::move(buffer), compile, resultOS,
                                      "// -----", "// -----");
  else
    (void)compile(std::move(buffer), resultOS);
  if (status != driver::RunStatus::Success)
    return static_cast<int>(status);
  // --verify-diagnostics checks; it writes nothing.
  if (verifyDiagnostics)
    return ExitSuccess;
  std::error_code ec;
  ToolOutputFile output(outputFile, ec, sys::fs::OF_Text);
  if (ec) {
    WithColor::error(errs(), "phasec")
        << "cannot write '" << escapeForTerminal(outputFile)
        << "': " << ec.message() << "\n";
    return ExitInputError;
  }
  output.os() << result;
  // A full disk or a closed pipe is the user's to hear about, as an error
  // (and no partial file), never LLVM's fatal "IO failure".
  output.os().close();
  if (output.os().has_error()) {
    WithColor::error(errs(), "phasec")
        << "cannot write '" << escapeForTerminal(outputFile)
        << "': " << output.os().error().message() << "\n";
    output.os().clear_error();
    return ExitInputError;
  }
  output.keep();
  return ExitSuccess;
}
