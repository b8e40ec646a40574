//===- Pipeline.cpp - The scheduling pipeline and its results -------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#include "phasec/Transforms/Pipeline.h"
#include "phasec/Scheduling/Bounds.h"
#include "phasec/Scheduling/Collective.h"
#include "phasec/Scheduling/Registry.h"
#include "phasec/Scheduling/ScheduleJSON.h"
#include "phasec/Transforms/CollectiveIR.h"
#include "phasec/Transforms/CostUnits.h"
#include "phasec/Transforms/Passes.h"
#include "phasec/Transforms/ScheduleIR.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/Mesh/IR/MeshDialect.h"
#include "mlir/Dialect/Mesh/IR/MeshOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace phasec;

void phasec::buildSchedulingPipeline(OpPassManager &pm,
                                     const SchedulingPipelineOptions &options) {
  comm::CommLowerCollectivesOptions lower;
  lower.allowUnsupported = options.allowUnsupported;
  lower.maxTransfers = options.maxTransfers;
  pm.addPass(comm::createLowerCollectivesPass(lower));
  comm::CommSchedulePhasesOptions schedule;
  schedule.algorithm = options.algorithm;
  schedule.rlimit = options.rlimit;
  schedule.progress = options.progress;
  schedule.cacheDir = options.cacheDir;
  pm.addPass(comm::createSchedulePhasesPass(schedule));
  pm.addPass(comm::createVerifySchedulePass());
}

LogicalResult
phasec::runSchedulingPipeline(ModuleOp module,
                              const SchedulingPipelineOptions &options) {
  PassManager pm(module.getContext());
  buildSchedulingPipeline(pm, options);
  if (options.applyMLIRCLOptions) {
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    applyDefaultTimingPassManagerCLOptions(pm);
  }
  return pm.run(module);
}

void phasec::registerSchedulingPipeline() {
  PassPipelineRegistration<>(
      "comm-schedule-pipeline",
      "comm-lower-collectives, comm-schedule-phases and comm-verify-schedule "
      "with their defaults (what phasec runs)",
      [](OpPassManager &pm) {
        buildSchedulingPipeline(pm, SchedulingPipelineOptions());
      });
}

FailureOr<ScheduledModule> phasec::collectSchedules(ModuleOp module,
                                                    bool requireEveryOperation,
                                                    bool keepRules) {
  ScheduledModule result;
  llvm::DenseMap<Operation *, const Topology *> topologies;
  for (auto &entry : comm::collectOperations(module)) {
    comm::OperationRecord &record = entry.second;
    bool relaying = comm::isRelaying(record);
    if ((!record.transferSet && !relaying) ||
        (!record.schedule && !record.userSchedule)) {
      CollectiveKind kind = record.op.getCollectiveKind();
      if (!requireEveryOperation ||
          getTraits(kind).family == CollectiveFamily::Dataless)
        continue;
      return record.op.emitError("operation '")
             << record.op.getCollectiveName()
             << "' has no verified schedule (run comm-schedule-pipeline "
                "first)";
    }
    const Topology *&topo = topologies[record.machine.getOperation()];
    if (!topo) {
      std::string error;
      FailureOr<Topology> created =
          Topology::create(record.machine.getTopologyDesc(), error);
      if (failed(created))
        return record.machine.emitError("invalid machine: ") << error;
      result.topologies.push_back(
          std::make_unique<Topology>(std::move(*created)));
      topo = result.topologies.back().get();
    }
    ScheduledOperation &op = result.operations.emplace_back();
    op.name = record.op.getCollectiveName().str();
    op.kind = Collective::getKindName(record.op.getCollectiveKind(),
                                      comm::isElementPermute(record.op))
                  .str();
    op.op = record.op;
    op.topology = topo;
    FailureOr<std::unique_ptr<Problem>> problem =
        comm::getProblem(record, *topo);
    if (failed(problem))
      return failure();
    op.problem = std::move(*problem);
    if (record.userSchedule) {
      op.handWritten = true;
      op.schedule = comm::getSchedule(record.userSchedule);
    } else {
      op.schedule = comm::getSchedule(record.schedule);
      op.fellBack = record.schedule.getFellBack();
    }
    if (!keepRules)
      expandRules(*topo, op.schedule);
    op.cost = op.problem->cost(op.schedule);
    op.schedule.bound = op.cost.bound;
    if (record.schedule && record.schedule.getPhaseOptimal())
      op.cost.phaseOptimal = true;
  }
  return result;
}

LogicalResult phasec::writeScheduleJSON(const ScheduledModule &scheduled,
                                        llvm::raw_ostream &os) {
  std::vector<ScheduleDocument> documents;
  for (const ScheduledOperation &op : scheduled.operations) {
    std::string error;
    if (failed(checkScheduleDocument(*op.problem, op.schedule, error)))
      return op.op->emitError("'") << op.name << "': " << error;
    documents.push_back({op.problem.get(), &op.schedule, {op.name, op.kind}});
  }
  if (documents.size() == 1) {
    writeScheduleJSON(os, *documents[0].problem, *documents[0].schedule,
                      documents[0].info);
    return success();
  }
  writeScheduleJSON(os, documents);
  return success();
}

namespace {
/// One row of the schedule-stats table as the "why" sentence needs it: the
/// schedule's name, phases and time (on the machine where it charges more
/// than bandwidth, else the bandwidth time), computed once, for the row.
struct StatsRow {
  std::string algorithm;
  size_t phases = 0;
  MachineTime time;
};
} // namespace

static std::string describeRow(const StatsRow &row, bool machine) {
  std::string out = row.algorithm + " (" + std::to_string(row.phases) +
                    (row.phases == 1 ? " phase" : " phases");
  if (machine && row.phases > 1)
    out += std::string(", sync ") + stringifySyncKind(row.time.chosen).str();
  return out + ")";
}

/// One line after the rows: why phasec's schedule (`won`) won against the
/// fastest other row, named by the term of the machine model that decided.
static void writeWhy(llvm::raw_ostream &os, const ScheduledOperation &op,
                     const StatsRow &won, llvm::ArrayRef<StatsRow> others) {
  if (op.handWritten || won.time.total() <= 0)
    return;
  // `auto` relayed an operation that moves data directly: say against what.
  if (op.op)
    if (auto relayed =
            op.op->getAttrOfType<mlir::StringAttr>(comm::kRelayedByAutoAttr))
      os << "  relayed by auto: " << relayed.getValue() << "\n";
  const bool relaying = op.problem->chunkSpec() != nullptr;
  const bool machine = op.problem->costModel().chargesBeyondBandwidth();
  const StatsRow *next = nullptr;
  for (const StatsRow &r : others) {
    // The report lists the chosen algorithm again among the others.
    if (r.algorithm == won.algorithm && r.phases == won.phases)
      continue;
    if (!next || r.time.total() < next->time.total())
      next = &r;
  }
  if (!next)
    return;
  const MachineTime &nextTime = next->time;
  // A named algorithm was not chosen: say what the model would prefer.
  comm::CollectiveOpInterface source = op.op;
  if (source && source.getAlgorithmDirective() != Algorithm::Auto) {
    os << "  why: asked for by `algorithm`";
    if (nextTime.total() < won.time.total() * (1 - 1e-9))
      os << "; the model prefers " << describeRow(*next, machine)
         << llvm::formatv(" at {0:e} s (x{1:F3} of this one)", nextTime.total(),
                          nextTime.total() / won.time.total());
    os << "\n";
    return;
  }
  os << "  why: " << describeRow(won, machine) << " takes "
     << llvm::formatv("{0:e}", won.time.total()) << " s";
  const double ratio = nextTime.total() / won.time.total();
  if (ratio < 1 + 1e-9) {
    os << "; it ties with " << describeRow(*next, machine)
       << (ratio < 1 - 1e-9 ? " (which the report shows faster)" : "")
       << (!relaying && won.time.chosen == SyncKind::None
               ? ": with every message posted at once, schedules of the "
                 "same messages cost the same"
               : ": among equal times the scheduler keeps its own")
       << "\n";
    return;
  }
  os << ", the next best " << describeRow(*next, machine)
     << llvm::formatv(" {0:e} s (x{1:F3})", nextTime.total(), ratio);
  if (!machine) {
    os << ": the machine charges bandwidth only\n";
    return;
  }
  // The term that saves the most decides.
  struct Term {
    const char *what;
    double saved;
  } terms[] = {
      {"bandwidth", nextTime.bandwidth - won.time.bandwidth},
      {"set-ups", nextTime.setup - won.time.setup},
      {"latency", nextTime.latency - won.time.latency},
      {"barriers", nextTime.sync - won.time.sync},
      {"copies", nextTime.copy - won.time.copy},
  };
  const Term *best = &terms[0];
  for (const Term &t : terms)
    if (t.saved > best->saved)
      best = &t;
  os << ": it saves " << llvm::formatv("{0:e}", best->saved) << " s of "
     << best->what;
  // Copies that take most of the time make it copy-bound (seed 000's
  // element permutes), whatever the network does.
  const MachineTime &t = won.time;
  if (t.copy > 0.5 * t.total()) {
    os << llvm::formatv(" (copy-bound: copies are {0:F0}% of its time)\n",
                        t.copy / t.total() * 100);
    return;
  }
  const double share = (t.latency + t.setup + t.sync) / t.total();
  os << llvm::formatv(" ({0}-bound: latency, set-ups and barriers are "
                      "{1:F0}% of its time)\n",
                      share > 0.5 ? "latency" : "bandwidth", share * 100);
}

/// Seed 000's figure of merit for the copy-transfer model: the bytes a
/// processor sends over the operation's machine time, for each style an
/// array operation could use (block operations stream theirs).
static void writeCopyRates(llvm::raw_ostream &os, const Problem &problem,
                           const Schedule &schedule) {
  const CostModel &model = problem.costModel();
  std::optional<CopyPattern> pattern = model.copyPattern();
  if (!pattern || model.copyRate() <= 0 || problem.chunkSpec() ||
      problem.transfers().empty())
    return;
  std::vector<RankId> members = problem.members();
  double perProcessor = static_cast<double>(problem.transfers().totalBytes()) /
                        static_cast<double>(members.size());
  auto line = [&](StringRef label, TransferStyle style, bool used) {
    CostModel withStyle = model;
    withStyle.setCopy(*pattern, style);
    double time = withStyle.machineTime(schedule, members, false).total();
    os << "  copy-transfer rate, " << label << (used ? " (used)" : "")
       << llvm::formatv(": {0:F2} MB/s per processor ({1:F0} bytes per "
                        "processor in {2:e} s; {3} copies at {4} MB/s)\n",
                        perProcessor / time / 1e6, perProcessor, time,
                        stringifyCopyPattern(*pattern),
                        model.copyRate() / 1e6);
  };
  if (*pattern == CopyPattern::Contiguous) {
    line("blocks, streamed", TransferStyle::Chained, false);
    return;
  }
  // Direct deposit streams as a chained transfer does.
  TransferStyle streamed = model.style() == TransferStyle::DirectDeposit
                               ? TransferStyle::DirectDeposit
                               : TransferStyle::Chained;
  for (TransferStyle style : {TransferStyle::Packing, streamed})
    line(("style " + stringifyTransferStyle(style)).str(), style,
         style == model.style());
}

void phasec::writeScheduleStats(const ScheduledModule &scheduled,
                                llvm::raw_ostream &os, bool baselines) {
  bool first = true;
  for (const ScheduledOperation &op : scheduled.operations) {
    if (!first)
      os << "\n";
    first = false;
    const Problem &problem = *op.problem;
    const Topology &topo = *op.topology;
    const LowerBound &bound = op.cost.bound;
    const ChunkSpec *chunks = problem.chunkSpec();
    if (chunks)
      os << "operation " << op.name << " (" << op.kind << ", "
         << chunks->numChunks << " chunks of " << chunks->describeChunkBytes()
         << " bytes, relayed) on " << topo.desc().str() << "\n";
    else
      os << "operation " << op.name << " (" << op.kind << ", "
         << problem.transfers().size() << " transfers, "
         << problem.transfers().totalBytes() << " bytes) on "
         << topo.desc().str() << "\n";
    os << llvm::formatv("  lower bound: {0:e} s", bound.time);
    if (bound.blocks > 0)
      os << llvm::formatv(" = {0:F2} blocks", bound.blocks);
    if (!bound.reason.empty())
      os << " (" << bound.reason << ")";
    os << "\n";
    // The direct schedules' own bound, where routing every demand straight
    // costs more than the operation must (a relaying schedule may beat it).
    if (bound.directTime > bound.time * (1 + 1e-9)) {
      os << llvm::formatv("  direct-routing bound: {0:e} s", bound.directTime);
      if (bound.directBlocks > 0)
        os << llvm::formatv(" = {0:F2} blocks", bound.directBlocks);
      os << " (" << bound.directReason << ")\n";
    }
    if (bound.minPhases > 0)
      os << "  at least " << bound.minPhases
         << (bound.minPhases == 1 ? " phase (" : " phases (")
         << bound.phasesReason << ")\n";
    // Where the machine charges more than bandwidth, every row also gives
    // its time on the machine as described (under the operation's sync).
    const CostModel &model = problem.costModel();
    bool machine = model.chargesBeyondBandwidth();
    std::vector<RankId> members = problem.members();
    // op.cost has phasec's schedule under the sync it chose: not routed
    // again (64 M transfers on a 20x20x20 all-to-all).
    auto machineTime = [&](const Schedule &schedule, SyncKind sync) {
      if (&schedule == &op.schedule &&
          (sync == model.sync() || sync == op.cost.machine.chosen))
        return op.cost.machine;
      CostModel withSync = model;
      withSync.setSync(sync);
      return withSync.machineTime(schedule, members, chunks != nullptr);
    };
    // Every row's name and time, for the sentence that says why phasec's
    // row (the first) won.
    std::vector<StatsRow> rows;
    auto row = [&](StringRef label, const Schedule &schedule,
                   StringRef suffix) {
      double time =
          &schedule == &op.schedule ? op.cost.time : model.time(schedule);
      StatsRow &r = rows.emplace_back();
      r.algorithm = schedule.algorithm;
      r.phases = schedule.phases.size();
      if (machine) {
        r.time = machineTime(schedule, model.sync());
      } else {
        r.time.bandwidth = time;
        r.time.chosen = model.sync();
      }
      std::string ratio = bound.time > 0
                              ? llvm::formatv("{0:F3}", time / bound.time).str()
                              : std::string("-");
      os << llvm::formatv("  {0,-14} {1,-18} {2,8} {3,14:e} {4,10}", label,
                          schedule.algorithm, schedule.phases.size(), time,
                          ratio)
         << suffix;
      if (machine)
        os << llvm::formatv("  machine {0:e} s", r.time.total());
      os << "\n";
    };
    if (machine) {
      // The machine model of phasec's schedule, both ways of separating
      // its phases, and the bound that sees latency and set-ups.
      os << llvm::formatv("  machine lower bound: {0:e} s (bandwidth, "
                          "set-ups and latency)\n",
                          op.cost.machineBound);
      // `sync = auto` resolved to the faster (CostModel::machineTime).
      for (SyncKind sync : {SyncKind::Barrier, SyncKind::Local, SyncKind::None})
        os << "  machine, sync " << stringifySyncKind(sync)
           << (sync == op.cost.machine.chosen ? " (used): " : ": ")
           << CostModel::describe(machineTime(op.schedule, sync)) << "\n";
      // Why the two differ on a packet network (the contention term).
      if (!chunks && op.schedule.phases.size() > 1)
        if (std::optional<CostModel::PacketNetwork> net =
                model.packetNetwork()) {
          CostModel::Contention c = model.contention(op.schedule, *net);
          os << llvm::formatv(
              "  contention without barriers: {0:F3}x the fluid time "
              "(drift {1:F2} over {2} phases, {3:F1} packets a message, "
              "{4}-packet buffers, {5:F2} hops)\n",
              c.factor, c.drift, op.schedule.phases.size(), c.packets, c.buffer,
              c.hops);
        }
      writeCopyRates(os, problem, op.schedule);
    }
    os << llvm::formatv("  {0,-14} {1,-18} {2,8} {3,14} {4,10}\n", "schedule",
                        "algorithm", "phases", "time (s)", "time/bound");
    // Two claims, each named: the time meets the bound, or (weaker, and
    // possibly beside a gap above 1) no schedule has fewer phases.
    std::string suffix;
    if (op.cost.timeOptimal)
      suffix += "  time-optimal";
    else if (op.cost.directOptimal)
      suffix += "  direct-optimal";
    if (op.cost.phaseOptimal)
      suffix += "  phase-optimal";
    if (op.fellBack)
      suffix += "  (solver budget ran out)";
    row(op.handWritten ? "hand-written" : "phasec", op.schedule, suffix);
    if (!baselines)
      continue;

    if (chunks) {
      // A relaying operation compares with the other relaying algorithms
      // of its kind (at their default parameters), each verified.
      SymbolTable symbols(op.op->getParentOfType<ModuleOp>());
      FailureOr<Collective> collective = comm::getCollective(op.op, symbols);
      if (failed(collective))
        continue;
      for (const RelayComparison &other :
           compareRelaying(topo, problem.costModel(), *collective)) {
        if (failed(other.schedule)) {
          os << llvm::formatv("  {0,-14} n/a: {1}\n", other.name, other.error);
          continue;
        }
        // Times compare under this problem's model; the chunks may differ.
        row("", other.schedule->schedule, "");
      }
      writeWhy(os, op, rows.front(), llvm::ArrayRef(rows).drop_front());
      continue;
    }
    // The registry's baselines, in its order, for comparison.
    for (const SchedulerEntry &entry : getSchedulers()) {
      if (!entry.baseline)
        continue;
      Schedule schedule;
      SchedulerReport report;
      if (failed(runScheduler(entry, problem, schedule, SchedulerOptions(),
                              report))) {
        os << llvm::formatv("  {0,-14} n/a: {1}\n", entry.name, report.error);
        continue;
      }
      row(entry.name, schedule, "");
    }
    writeWhy(os, op, rows.front(), llvm::ArrayRef(rows).drop_front());
  }
}

FailureOr<ScheduledModule> phasec::collectSchedulesForExport(Operation *op,
                                                             bool keepRules) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    return op->emitError("expected a builtin.module");
  return collectSchedules(module, /*requireEveryOperation=*/true, keepRules);
}

/// One --export-* translation around a writer of this library. (The
/// registration object only fills MLIR's global registry; it need not live.)
static void registerWriter(StringRef name, StringRef description,
                           LogicalResult (*write)(const ScheduledModule &,
                                                  llvm::raw_ostream &)) {
  TranslateFromMLIRRegistration(
      name, description,
      [write](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        // The JSON and the statistics read phases held by rule.
        FailureOr<ScheduledModule> scheduled =
            collectSchedulesForExport(op, /*keepRules=*/true);
        if (failed(scheduled))
          return failure();
        return write(*scheduled, os);
      },
      registerPhasecDialects);
}

void phasec::registerPhasecDialects(DialectRegistry &registry) {
  registry.insert<comm::CommDialect, func::FuncDialect, mesh::MeshDialect,
                  emitc::EmitCDialect, mpi::MPIDialect>();
}

bool phasec::solverBudgetExhausted(ModuleOp module) {
  bool budget = false;
  module->walk([&](Operation *op) {
    budget = budget || op->hasAttr(comm::kBudgetExhaustedAttr);
  });
  return budget;
}

void phasec::registerScheduleTranslations() {
  registerWriter("export-schedule-json",
                 "verified schedules in the phasec-schedule/1 JSON format",
                 [](const ScheduledModule &scheduled, llvm::raw_ostream &os) {
                   return writeScheduleJSON(scheduled, os);
                 });
  registerWriter("export-schedule-stats",
                 "phases, lower bound and time/bound per operation, beside "
                 "the baselines",
                 [](const ScheduledModule &scheduled, llvm::raw_ostream &os) {
                   writeScheduleStats(scheduled, os);
                   return success();
                 });
  // The C^3 report with its default sizes and each machine's own
  // switching, sends and set-up cost (phasec's --emit=cost options are the
  // driver's).
  registerWriter("export-cost",
                 "every operation's algorithm in seed 003's C^3 units",
                 [](const ScheduledModule &scheduled, llvm::raw_ostream &os) {
                   return writeCostUnits(scheduled, CostOptions(), os);
                 });
  registerWriter("export-cost-json",
                 "the C^3 units as JSON (phasec-c3-units/1)",
                 [](const ScheduledModule &scheduled, llvm::raw_ostream &os) {
                   CostOptions options;
                   options.json = true;
                   return writeCostUnits(scheduled, options, os);
                 });
}
