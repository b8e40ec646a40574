//===- Export.cpp - The back ends as translations of comm IR --------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The MPI / OpenSHMEM back ends get one OperationPlan per scheduled
/// operation, built from the same Collective comm-lower-collectives
/// scheduled (so a plan can only disagree with its schedule through a bug,
/// which buildOperationPlan reports); the SimGrid back end takes the
/// problems and schedules as they are.
///
//===----------------------------------------------------------------------===//

#include "phasec/Target/Export.h"
#include "phasec/Scheduling/Relay.h"
#include "phasec/Transforms/CollectiveIR.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"

#include <limits>
#include <optional>

using namespace mlir;
using namespace phasec;
using namespace phasec::target;

/// A C identifier for an operation name: every other character becomes '_',
/// a leading digit gets a '_' in front, and names the generated C takes
/// (C11 keywords, `main`, `free`, ...: isTakenCName) get a '_' appended;
/// .sched names such as `int` or `main` are fine there but would not compile
/// as function names. The emitters reject the duplicates this could make.
static std::string getCName(StringRef name) {
  std::string result;
  if (name.empty() || llvm::isDigit(name.front()))
    result = "_";
  for (char c : name)
    result += llvm::isAlnum(c) || c == '_' ? c : '_';
  if (isTakenCName(result))
    result += "_";
  return result;
}

/// The array whose elements a transpose or element permute moves.
static comm::ArrayOp getSourceArray(comm::CollectiveOpInterface op,
                                    SymbolTable &symbols) {
  if (auto transpose = dyn_cast<comm::TransposeOp>(op.getOperation()))
    return symbols.lookup<comm::ArrayOp>(transpose.getFrom());
  if (auto permute = dyn_cast<comm::PermuteOp>(op.getOperation()))
    if (auto from = permute.getFrom())
      return symbols.lookup<comm::ArrayOp>(*from);
  return nullptr;
}

/// The plan knobs the operation's directives set (style, sync; every
/// operation has them, with the dialect's defaults packing and barrier);
/// the rest keep the back ends' defaults.
static PlanOptions getPlanOptions(comm::CollectiveOpInterface op) {
  PlanOptions options;
  if (std::optional<TransferStyle> style = op.getStyleDirective())
    options.style = *style;
  options.sync = op.getSyncDirective();
  // comm-schedule-phases resolved `auto` (the back ends refuse it, as they
  // refuse an unresolved style).
  if (auto transpose = dyn_cast<comm::TransposeOp>(op.getOperation()))
    options.order = transpose.getLoopOrder();
  return options;
}

static LogicalResult setAggregate(comm::CollectiveOpInterface collective,
                                  OperationPlan &plan);

/// The plan of one scheduled operation; errors at the operation.
static FailureOr<OperationPlan> buildPlan(const ScheduledOperation &op,
                                          SymbolTable &symbols) {
  // A copy: the op handle is const in `op`, emitting diagnostics is not.
  comm::CollectiveOpInterface collective = op.op;
  FailureOr<Collective> described = comm::getCollective(collective, symbols);
  if (failed(described))
    return failure();
  // The pipeline lowered and scheduled it under --max-transfers already
  // (the schedule exists): the plan's own lowering is not limited again.
  described->maxTransfers = std::numeric_limits<int64_t>::max();
  std::string error;
  // `auto` is the scheduler's to resolve: code for it would have to guess.
  if (getPlanOptions(collective).sync == SyncKind::Auto)
    return collective.emitError("cannot emit '")
           << op.name
           << "': its sync is still 'auto' (comm-schedule-phases chooses "
              "barrier, local or none)";
  if (getPlanOptions(collective).style == TransferStyle::Auto)
    return collective.emitError("cannot emit '")
           << op.name
           << "': its style is still 'auto' (comm-schedule-phases chooses "
              "packing or chained)";
  if (getPlanOptions(collective).order == LoopOrder::Auto)
    return collective.emitError("cannot emit '")
           << op.name
           << "': its loop order is still 'auto' (comm-schedule-phases "
              "chooses contiguous loads or stores)";
  FailureOr<OperationPlan> plan = failure();
  if (const ChunkSpec *chunks = op.problem->chunkSpec()) {
    plan = buildRelayPlan(getCName(op.name), *described, *chunks,
                          op.schedule, getPlanOptions(collective), error);
  } else {
    ElementCType elem{"u8", "uint8_t", 1};
    if (described->from) {
      // The verifier admits only element types of the vocabulary.
      comm::ArrayOp array = getSourceArray(collective, symbols);
      std::optional<ElementType> kind =
          array ? comm::getElementTypeKind(array.getElementType())
                : std::nullopt;
      if (!kind)
        return collective.emitError("cannot emit '")
               << op.name
               << "': its array has no element type of the back ends";
      elem = getElementCType(*kind);
    }
    // Local copies (src == dst) are harmless to the scheduling library
    // (Problem::verify skips them; hand-written schedules may contain
    // them) but are no transfer for the plans: the generated code copies a
    // member's own part itself.
    Schedule schedule = op.schedule;
    for (Phase &phase : schedule.phases)
      llvm::erase_if(phase.transfers,
                     [](const Transfer &t) { return t.src == t.dst; });
    plan = buildOperationPlan(getCName(op.name), *described, elem, schedule,
                              getPlanOptions(collective), error, op.topology);
  }
  if (failed(plan))
    return collective.emitError("cannot emit '") << op.name << "': " << error;
  plan->machineRanks = op.topology->numRanks();
  if (failed(setAggregate(collective, *plan)))
    return failure();
  return plan;
}

/// A PAPERS aggregate's part of a plan: the aggregate's own function takes
/// the operation's name and the plan's (the data's) becomes NAME_xfer.
static LogicalResult setAggregate(comm::CollectiveOpInterface collective,
                                  OperationPlan &plan) {
  Aggregate aggregate = collective.getAggregateKind();
  if (aggregate == Aggregate::None)
    return success();
  plan.aggregate = aggregate;
  plan.papersName = plan.name;
  if (plan.movesData)
    plan.name += "_xfer";
  if (std::optional<Type> type = collective.getAggregateValueType()) {
    std::optional<ElementType> kind = comm::getElementTypeKind(*type);
    if (!kind)
      return collective.emitError("cannot emit '")
             << plan.papersName << "': its value type is not one of the "
             << "back ends'";
    plan.value = getElementCType(*kind);
  }
  if (std::optional<int64_t> bits = collective.getAggregateValueBits())
    plan.valueBits = *bits;
  plan.valueLogical = collective.isAggregateValueLogical();
  return success();
}

/// The plan of an aggregate that moves no data (population, enumerate,
/// select_first, select_one, and wait without a schedule of its own): the
/// group, for the aggregate's function.
static FailureOr<OperationPlan>
buildDatalessPlan(comm::CollectiveOpInterface collective,
                  SymbolTable &symbols) {
  FailureOr<Collective> described = comm::getCollective(collective, symbols);
  if (failed(described))
    return failure();
  OperationPlan plan;
  plan.name = getCName(collective.getCollectiveName());
  std::string error;
  if (failed(checkOperationName(plan.name, error)))
    return collective.emitError("cannot emit '")
           << collective.getCollectiveName() << "': " << error;
  plan.kind = described->kind;
  plan.group = described->group;
  plan.movesData = false;
  if (failed(setAggregate(collective, plan)))
    return failure();
  return plan;
}

/// The C name of the array symbol `ref` (a program's buffer field).
static std::string getArrayField(std::optional<StringRef> ref) {
  return ref ? getCName(*ref) : std::string();
}

/// When a `local` step names a C function, the plans become a program
/// (phasec_program): each plan gets its place in the file and the arrays it
/// moves, and each such step a plan of its own. PAPERS aggregates take
/// values, not buffers: they cannot be steps, and are refused there.
static LogicalResult addProgram(ModuleOp module, SymbolTable &symbols,
                                std::vector<OperationPlan> &plans) {
  bool any = false;
  module.walk([&](comm::LocalOp local) { any = any || local.getCall(); });
  if (!any)
    return success();
  llvm::StringMap<OperationPlan *> byName;
  for (OperationPlan &p : plans)
    byName[p.aggregate == Aggregate::None ? p.name : p.papersName] = &p;
  std::vector<OperationPlan> steps;
  int64_t index = 0;
  bool ok = true;
  module.walk([&](comm::CollectiveOpInterface collective) {
    Operation *operation = collective.getOperation();
    int64_t at = index++;
    if (auto local = dyn_cast<comm::LocalOp>(operation)) {
      if (!local.getCall())
        return;
      std::string error;
      if (failed(
              checkOperationName(*local.getCall(), error, "function name"))) {
        local.emitError("cannot call '") << *local.getCall() << "': " << error;
        ok = false;
        return;
      }
      if (byName.count(*local.getCall())) {
        local.emitError("cannot call '")
            << *local.getCall()
            << "': the generated code defines it (an operation's function)";
        ok = false;
        return;
      }
      // Nor the names it defines beside them.
      for (const auto &entry : byName) {
        std::string prefix = entry.getKey().str() + "_";
        if (local.getCall()->starts_with(prefix) ||
            local.getCall()->starts_with("phasec_")) {
          local.emitError("cannot call '")
              << *local.getCall()
              << "': the generated code defines names starting with '"
              << (local.getCall()->starts_with("phasec_") ? "phasec_" : prefix)
              << "'";
          ok = false;
          return;
        }
      }
      FailureOr<Collective> described =
          comm::getCollective(collective, symbols);
      if (failed(described)) {
        ok = false;
        return;
      }
      OperationPlan step;
      step.name = getCName(local.getSymName());
      step.kind = CollectiveKind::Local;
      step.group = described->group;
      step.movesData = false;
      step.call = local.getCall()->str();
      step.programIndex = at;
      steps.push_back(std::move(step));
      return;
    }
    auto it = byName.find(getCName(collective.getCollectiveName()));
    // Every operation has its function (a barrier without an algorithm is
    // scheduled too, comm::isRelayedOperation).
    if (it == byName.end())
      return;
    OperationPlan &plan = *it->second;
    if (plan.aggregate != Aggregate::None) {
      collective.emitError("not supported: PAPERS aggregate '")
          << collective.getCollectiveName()
          << "' in a program with 'call' steps (an aggregate takes values, "
             "not buffers: call it from a local step's C)";
      ok = false;
      return;
    }
    plan.programIndex = at;
    if (auto transpose = dyn_cast<comm::TransposeOp>(operation)) {
      plan.fromArray = getArrayField(transpose.getFrom());
      plan.toArray = getArrayField(transpose.getTo());
    } else if (auto permute = dyn_cast<comm::PermuteOp>(operation)) {
      plan.fromArray = getArrayField(permute.getFrom());
      plan.toArray = getArrayField(permute.getTo());
    }
    // The functions read one array and write another (restrict).
    if (!plan.fromArray.empty() && plan.fromArray == plan.toArray) {
      collective.emitError("not supported: '")
          << collective.getCollectiveName() << "' reads and writes array '"
          << plan.fromArray
          << "' in a program (its function needs two arrays: give it 'to')";
      ok = false;
    }
  });
  for (OperationPlan &step : steps)
    plans.push_back(std::move(step));
  return success(ok);
}

FailureOr<std::vector<OperationPlan>>
phasec::target::buildOperationPlans(ModuleOp module,
                                    const ScheduledModule &scheduled) {
  SymbolTable symbols(module);
  std::vector<OperationPlan> plans;
  bool hadError = false;
  llvm::StringSet<> scheduledNames;
  for (const ScheduledOperation &op : scheduled.operations) {
    scheduledNames.insert(op.name);
    FailureOr<OperationPlan> plan = buildPlan(op, symbols);
    if (failed(plan)) {
      hadError = true;
      continue;
    }
    plans.push_back(std::move(*plan));
  }
  // PAPERS aggregates that move no data still get their function.
  module.walk([&](comm::CollectiveOpInterface collective) {
    if (collective.getAggregateKind() == Aggregate::None ||
        scheduledNames.contains(collective.getCollectiveName()))
      return;
    FailureOr<OperationPlan> plan = buildDatalessPlan(collective, symbols);
    if (failed(plan)) {
      hadError = true;
      return;
    }
    plans.push_back(std::move(*plan));
  });
  if (failed(addProgram(module, symbols, plans)))
    hadError = true;
  if (hadError)
    return failure();
  if (plans.empty())
    return module.emitError(
        "nothing to emit: no operation of the program has a schedule");
  return plans;
}

/// Plans, then one of the C emitters (MPIEmitter.h, SHMEMEmitter.h).
template <typename Options>
static LogicalResult
exportC(ModuleOp module, const ScheduledModule &scheduled,
        llvm::raw_ostream &os, const Options &options, StringRef backEnd,
        LogicalResult (*emit)(llvm::ArrayRef<OperationPlan>,
                              llvm::raw_ostream &, const Options &,
                              std::string &)) {
  FailureOr<std::vector<OperationPlan>> plans =
      buildOperationPlans(module, scheduled);
  if (failed(plans))
    return failure();
  std::string error;
  if (failed(emit(*plans, os, options, error)))
    return module.emitError("cannot emit ") << backEnd << " code: " << error;
  return success();
}

LogicalResult phasec::target::exportMPI(ModuleOp module,
                                        const ScheduledModule &scheduled,
                                        llvm::raw_ostream &os,
                                        const MPIOptions &options) {
  return exportC<MPIOptions>(module, scheduled, os, options, "MPI", emitMPI);
}

LogicalResult phasec::target::exportSHMEM(ModuleOp module,
                                          const ScheduledModule &scheduled,
                                          llvm::raw_ostream &os,
                                          const SHMEMOptions &options) {
  return exportC<SHMEMOptions>(module, scheduled, os, options, "OpenSHMEM",
                               emitSHMEM);
}

/// What SimGrid's built-ins need to run the same operation as `plan`: the
/// MPI collective, elements per call, element type, root. (Every kind of
/// the chunk table has its MPI collective.)
static void
describeRelayForSimGrid(const OperationPlan &plan, int64_t numRanks,
                        simgrid::RelayProgram &relay) {
  simgrid::BuiltinCall &call = relay.builtin;
  call.viaColl = true;
  const ChunkSpec &chunks = plan.chunks;
  int64_t all = chunks.totalBytes();
  int64_t block = chunks.offsetOfChunk(chunks.chunksPerMember());
  int64_t members = plan.numMembers();
  relay.dataBytes = all;
  call.root = plan.root >= 0 ? plan.group[plan.root] : 0;
  // SMPI's selector of the same MPI call: the MPI name without "MPI_", in
  // lower case; SMPI selects reduce_scatter_block's algorithms with
  // reduce_scatter's.
  const CollectiveTraits &traits = getTraits(plan.traits().generatedAs);
  assert(traits.mpiName && "a relaying kind without an MPI collective");
  llvm::StringRef mpi = llvm::StringRef(traits.mpiName).drop_front(4);
  mpi.consume_back("_block");
  call.collective = mpi.lower();
  if (traits.reduces) {
    // The built-in reduces the operation's element type (some of SMPI's
    // algorithms accept only some MPI types).
    call.elemType = plan.elem.name;
    int64_t bytes =
        traits.recv.part == DataPart::Own ? (members ? all / members : 0) : all;
    call.count = bytes / plan.elem.size;
  } else if (traits.send.part == DataPart::Whole) {
    call.count = all;
  } else if (traits.send.part != DataPart::None) {
    call.count = block;
  }
  if (members != numRanks)
    call.notApplicable = simgrid::subGroupReason(members, numRanks);
  // A v-collective's blocks differ; SMPI's built-ins of the kind take one
  // count (its v variants are not among the ones compared).
  std::vector<int64_t> blocks = chunks.blockBytesByMember();
  if (traits.chunkParts == ChunkParts::PerMember &&
      call.notApplicable.empty() &&
      llvm::any_of(blocks, [&](int64_t b) { return b != blocks.front(); }))
    call.notApplicable = "its members' blocks differ (a v-collective)";
}

LogicalResult
phasec::target::exportSimGrid(ModuleOp module, const ScheduledModule &scheduled,
                              const simgrid::SimTargetOptions &options,
                              llvm::raw_ostream &out,
                              llvm::raw_ostream &diagOS) {
  if (scheduled.operations.empty())
    return module.emitError(
        "nothing to simulate: no operation of the program has a schedule");
  SymbolTable symbols(module);
  std::vector<simgrid::SimOperation> operations;
  // Stable addresses: operations point into it.
  std::vector<std::unique_ptr<simgrid::RelayProgram>> relays;
  for (const ScheduledOperation &op : scheduled.operations) {
    comm::CollectiveOpInterface collective = op.op;
    simgrid::SimOperation &sim = operations.emplace_back();
    sim.name = op.name;
    sim.topology = op.topology;
    sim.problem = op.problem.get();
    sim.schedule = &op.schedule;
    sim.kind = stringifyCollectiveKind(collective.getCollectiveKind()).str();
    sim.sync = getPlanOptions(collective).sync;
    sim.setupCost = op.topology->desc().setupCost;
    if (!op.problem->chunkSpec())
      continue;
    // A relaying operation: SimGrid runs the MPI code phasec generates for
    // it (`--emit=mpi --main`), and the built-ins the same MPI collective.
    if (!options.reportDir.empty())
      return collective->emitError("not yet supported: --report for '")
             << op.name << "', a relaying "
             << stringifyCollectiveKind(collective.getCollectiveKind())
             << " (the report draws phase-by-phase direct schedules)";
    FailureOr<OperationPlan> plan = buildPlan(op, symbols);
    if (failed(plan))
      return failure();
    auto relay = std::make_unique<simgrid::RelayProgram>();
    describeRelayForSimGrid(*plan, op.topology->numRanks(), *relay);
    MPIOptions mpi;
    mpi.main = true;
    mpi.simTimeLine = true;
    std::string emitError;
    llvm::raw_string_ostream source(relay->source);
    if (failed(emitMPI({*plan}, source, mpi, emitError)))
      return module.emitError("cannot emit MPI code: ") << emitError;
    operations.back().relay = relay.get();
    relays.push_back(std::move(relay));
  }
  return simgrid::runSimTarget(operations, options, out, diagOS);
}

LogicalResult phasec::target::exportNs3(ModuleOp module,
                                        const ScheduledModule &scheduled,
                                        const ns3target::Ns3Options &options,
                                        llvm::raw_ostream &out,
                                        llvm::raw_ostream &diagOS) {
  if (scheduled.operations.empty())
    return module.emitError(
        "nothing to simulate: no operation of the program has a schedule");
  std::vector<ns3target::Ns3Operation> operations;
  // --compare: the operations' collectives are read from their symbols.
  std::optional<SymbolTable> symbols;
  for (const ScheduledOperation &op : scheduled.operations) {
    comm::CollectiveOpInterface collective = op.op;
    // A relaying schedule runs phase by phase (with barriers) or stepped (a
    // rank forwards only after its earlier phases' messages are in); its
    // messages must carry data, as every simulated message does.
    if (op.problem->chunkSpec()) {
      for (const Phase &phase : op.schedule.phases)
        for (const Transfer &t : phase.transfers)
          if (t.bytes <= 0)
            return collective->emitError("not supported: --emit=ns3 of '")
                   << op.name << "', a relaying "
                   << stringifyCollectiveKind(collective.getCollectiveKind())
                   << " whose messages carry no data (the ns-3 network "
                      "simulates packets of data)";
    }
    ns3target::Ns3Operation &ns3 = operations.emplace_back();
    ns3.name = op.name;
    ns3.topology = op.topology;
    ns3.problem = op.problem.get();
    ns3.schedule = &op.schedule;
    ns3.sync = getPlanOptions(collective).sync;
    if (!options.compare || !op.problem->chunkSpec())
      continue;
    if (!symbols)
      symbols.emplace(module);
    FailureOr<Collective> described = comm::getCollective(collective, *symbols);
    if (failed(described))
      return failure();
    for (RelayComparison &other :
         compareRelaying(*op.topology, op.problem->costModel(), *described)) {
      // Phasec's own is its row; those that do not apply are the report's.
      if (failed(other.schedule) ||
          other.schedule->schedule.algorithm == op.schedule.algorithm)
        continue;
      ns3.candidates.emplace_back(other.schedule->schedule.algorithm,
                                  std::move(other.schedule->schedule));
    }
  }
  return ns3target::emitNs3(operations, options, out, diagOS);
}

namespace {
/// The translations' options (mlir-translate parses them with its own).
struct ExportOptions {
  llvm::cl::opt<bool> emitMain{
      "emit-main",
      llvm::cl::desc("--export-mpi / --export-shmem: also emit a main that "
                     "fills, times and verifies every byte")};
  llvm::cl::opt<std::string> symbolPrefix{
      "symbol-prefix",
      llvm::cl::desc("--export-mpi / --export-shmem: prefix every public "
                     "symbol (MPIOptions::symbolPrefix)"),
      llvm::cl::init("")};
  llvm::cl::opt<std::string> simgridDir{
      "simgrid-dir",
      llvm::cl::desc("--export-simgrid: the output directory (default: a new "
                     "temporary directory)"),
      llvm::cl::init("")};
};
} // namespace

/// One --export-* translation: a scheduled module to `exporter`'s output.
/// (The registration object only fills MLIR's global registry.)
/// `keepRules`: the exporter plans phases held by rule itself (the C back
/// ends' tables by rule).
template <typename Exporter>
static void registerExport(StringRef name, StringRef description,
                           Exporter exporter, bool keepRules = false) {
  TranslateFromMLIRRegistration(
      name, description,
      [exporter, keepRules](Operation *op,
                            llvm::raw_ostream &os) -> LogicalResult {
        FailureOr<ScheduledModule> scheduled =
            collectSchedulesForExport(op, keepRules);
        if (failed(scheduled))
          return failure();
        return exporter(cast<ModuleOp>(op), *scheduled, os);
      },
      registerPhasecDialects);
}

/// The translations' options, created (and so registered with the command
/// line) by registerExportTranslations.
static ExportOptions &getExportOptions() {
  static ExportOptions options;
  return options;
}

/// --export-mpi / --export-shmem: the C back end with --emit-main and
/// --symbol-prefix.
template <typename Options,
          LogicalResult (*exportC)(ModuleOp, const ScheduledModule &,
                                   llvm::raw_ostream &, const Options &)>
static LogicalResult exportWithMain(ModuleOp module,
                                    const ScheduledModule &scheduled,
                                    llvm::raw_ostream &os) {
  Options options;
  options.main = getExportOptions().emitMain;
  options.symbolPrefix = getExportOptions().symbolPrefix;
  return exportC(module, scheduled, os, options);
}

/// --export-mpi-header / --export-shmem-header: the header of that file.
template <typename Options,
          LogicalResult (*exportC)(ModuleOp, const ScheduledModule &,
                                   llvm::raw_ostream &, const Options &)>
static LogicalResult exportHeader(ModuleOp module,
                                  const ScheduledModule &scheduled,
                                  llvm::raw_ostream &os) {
  Options options;
  options.header = true;
  options.symbolPrefix = getExportOptions().symbolPrefix;
  return exportC(module, scheduled, os, options);
}

void phasec::target::registerExportTranslations() {
  getExportOptions();
  registerExport("export-mpi", "C + MPI, one function per scheduled operation",
                 exportWithMain<MPIOptions, exportMPI>, /*keepRules=*/true);
  registerExport("export-shmem",
                 "C + OpenSHMEM, one function per scheduled operation",
                 exportWithMain<SHMEMOptions, exportSHMEM>, /*keepRules=*/true);
  registerExport("export-mpi-header",
                 "the header of --export-mpi's file (types, prototypes)",
                 exportHeader<MPIOptions, exportMPI>, /*keepRules=*/true);
  registerExport("export-shmem-header",
                 "the header of --export-shmem's file (types, prototypes)",
                 exportHeader<SHMEMOptions, exportSHMEM>, /*keepRules=*/true);
  registerExport("export-simgrid",
                 "a SimGrid SMPI directory per scheduled operation "
                 "(platform, program, run script) in --simgrid-dir, not run; "
                 "the output lists them",
                 [](ModuleOp module, const ScheduledModule &scheduled,
                    llvm::raw_ostream &os) {
                   simgrid::SimTargetOptions sim;
                   sim.outDir = getExportOptions().simgridDir;
                   sim.emitOnly = true;
                   return exportSimGrid(module, scheduled, sim, os,
                                        llvm::errs());
                 });
}
