//===- Driver.cpp - The phasec pipeline as a library ----------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// parse -> convert -> passes -> emit. Diagnostics of every stage go to one
/// stream in the `file:line:col: error:` format with the source line and a
/// caret: the front end prints its own, MLIR diagnostics go through a
/// SourceMgrDiagnosticHandler on the same SourceMgr, so errors found by the
/// passes point into the .sched file. The MPI / OpenSHMEM back ends get one
/// OperationPlan per scheduled operation, built from the same
/// Collective comm-lower-collectives scheduled (so a plan can only
/// disagree with its schedule through a bug, which buildOperationPlan
/// reports); the SimGrid back end takes the problems and schedules as they
/// are.
///
//===----------------------------------------------------------------------===//

#include "phasec/Driver/Driver.h"
#include "phasec/Conversion/LangToComm.h"
#include "phasec/Lang/Diagnostics.h"
#include "phasec/Scheduling/Baselines.h"
#include "phasec/Scheduling/Bounds.h"
#include "phasec/Scheduling/ScheduleJSON.h"
#include "phasec/Target/MPI/MPIEmitter.h"
#include "phasec/Target/OperationPlan.h"
#include "phasec/Target/SHMEM/SHMEMEmitter.h"
#include "phasec/Target/SimGrid/SimTarget.h"
#include "phasec/Transforms/CollectiveIR.h"
#include "phasec/Transforms/Passes.h"
#include "phasec/Transforms/ScheduleIR.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
using namespace phasec;
using namespace phasec::driver;

StringRef phasec::driver::stringifyEmitKind(EmitKind kind) {
  switch (kind) {
  case EmitKind::AST:
    return "ast";
  case EmitKind::MLIR:
    return "mlir";
  case EmitKind::ScheduleJSON:
    return "schedule-json";
  case EmitKind::ScheduleStats:
    return "schedule-stats";
  case EmitKind::MPI:
    return "mpi";
  case EmitKind::SHMEM:
    return "shmem";
  case EmitKind::SimGrid:
    return "simgrid";
  }
  llvm_unreachable("unknown emit kind");
}

std::optional<EmitKind> phasec::driver::parseEmitKind(StringRef name) {
  for (EmitKind kind : {EmitKind::AST, EmitKind::MLIR, EmitKind::ScheduleJSON,
                        EmitKind::ScheduleStats, EmitKind::MPI, EmitKind::SHMEM,
                        EmitKind::SimGrid})
    if (stringifyEmitKind(kind) == name)
      return kind;
  return std::nullopt;
}

void phasec::driver::registerDialects(DialectRegistry &registry) {
  registry.insert<comm::CommDialect>();
}

OwningOpRef<ModuleOp>
phasec::driver::parseToComm(llvm::SourceMgr &sourceMgr,
                            const DriverOptions &options, MLIRContext &context,
                            llvm::raw_ostream &diagOS,
                            std::unique_ptr<lang::Program> *programOut) {
  lang::DiagnosticEngine diag(sourceMgr, diagOS);
  std::unique_ptr<lang::Program> program =
      lang::parseAndCheck(sourceMgr, options.frontend, diag);
  if (!program || diag.hadError())
    return nullptr;
  OwningOpRef<ModuleOp> module = convertToComm(*program, context, sourceMgr);
  if (programOut)
    *programOut = std::move(program);
  return module;
}

void phasec::driver::buildSchedulingPipeline(OpPassManager &pm,
                                             const DriverOptions &options) {
  comm::CommLowerCollectivesOptions lower;
  lower.allowUnsupported = options.allowUnsupported;
  pm.addPass(comm::createLowerCollectivesPass(lower));
  comm::CommSchedulePhasesOptions schedule;
  schedule.algorithm = options.algorithm;
  schedule.rlimit = options.solverRlimit;
  schedule.cacheDir = options.cacheDir;
  pm.addPass(comm::createSchedulePhasesPass(schedule));
  pm.addPass(comm::createVerifySchedulePass());
}

LogicalResult phasec::driver::runSchedulingPipeline(ModuleOp module,
                                                    const DriverOptions &options) {
  PassManager pm(module.getContext());
  buildSchedulingPipeline(pm, options);
  return pm.run(module);
}

FailureOr<ScheduledModule> phasec::driver::collectSchedules(ModuleOp module) {
  ScheduledModule result;
  llvm::DenseMap<Operation *, const Topology *> topologies;
  for (auto &entry : comm::collectOperations(module)) {
    comm::OperationRecord &record = entry.second;
    if (!record.transferSet || (!record.schedule && !record.userSchedule))
      continue;
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
    auto permute = dyn_cast<comm::PermuteOp>(record.op.getOperation());
    op.kind = target::stringifyPlanKind(record.op.getCollectiveKind(),
                                        permute && permute.getFrom())
                  .str();
    op.op = record.op;
    op.topology = topo;
    op.problem = std::make_unique<Problem>(
        *topo, comm::getTransferSet(record.transferSet));
    if (record.userSchedule) {
      op.handWritten = true;
      op.schedule = comm::getSchedule(record.userSchedule);
    } else {
      op.schedule = comm::getSchedule(record.schedule);
      op.fellBack = record.schedule.getFellBack();
    }
    op.cost = op.problem->cost(op.schedule);
    op.schedule.bound = op.cost.bound;
    if (record.schedule && record.schedule.getPhaseOptimal())
      op.cost.phaseOptimal = true;
  }
  return result;
}

void phasec::driver::writeScheduleJSON(const ScheduledModule &scheduled,
                                       llvm::raw_ostream &os) {
  std::vector<ScheduleDocument> documents;
  for (const ScheduledOperation &op : scheduled.operations)
    documents.push_back({op.problem.get(), &op.schedule, {op.name, op.kind}});
  if (documents.size() == 1) {
    phasec::writeScheduleJSON(os, *documents[0].problem,
                              *documents[0].schedule, documents[0].info);
    return;
  }
  phasec::writeScheduleJSON(os, documents);
}

void phasec::driver::writeScheduleStats(const ScheduledModule &scheduled,
                                        llvm::raw_ostream &os) {
  bool first = true;
  for (const ScheduledOperation &op : scheduled.operations) {
    if (!first)
      os << "\n";
    first = false;
    const Problem &problem = *op.problem;
    const Topology &topo = *op.topology;
    const LowerBound &bound = op.cost.bound;
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
    if (bound.minPhases > 0)
      os << "  at least " << bound.minPhases
         << (bound.minPhases == 1 ? " phase (" : " phases (")
         << bound.phasesReason << ")\n";
    os << llvm::formatv("  {0,-14} {1,-18} {2,8} {3,14} {4,10}\n", "schedule",
                        "algorithm", "phases", "time (s)", "time/bound");
    auto row = [&](StringRef label, const Schedule &schedule,
                   StringRef suffix) {
      double time = problem.costModel().time(schedule);
      std::string ratio =
          bound.time > 0 ? llvm::formatv("{0:F3}", time / bound.time).str()
                         : std::string("-");
      os << llvm::formatv("  {0,-14} {1,-18} {2,8} {3,14:e} {4,10}", label,
                          schedule.algorithm, schedule.phases.size(), time,
                          ratio)
         << suffix << "\n";
    };
    // Two claims, each named: the time meets the bound, or (weaker, and
    // possibly beside a gap above 1) no schedule has fewer phases.
    std::string suffix;
    if (op.cost.timeOptimal)
      suffix += "  time-optimal";
    if (op.cost.phaseOptimal)
      suffix += "  phase-optimal";
    if (op.fellBack)
      suffix += "  (solver budget ran out)";
    row(op.handWritten ? "hand-written" : "phasec", op.schedule, suffix);

    using BaselineFn = LogicalResult (*)(const Problem &, Schedule &,
                                         std::string &);
    std::pair<StringRef, BaselineFn> baselines[] = {
        {"linear_shift", scheduleLinearShift},
        {"xor", scheduleXor},
        {"greedy", scheduleGreedy}};
    for (auto [label, fn] : baselines) {
      Schedule schedule;
      std::string error;
      if (failed(fn(problem, schedule, error))) {
        os << llvm::formatv("  {0,-14} n/a: {1}\n", label, error);
        continue;
      }
      row(label, schedule, "");
    }
  }
}

/// The back ends' name of an array element type ("i32", "u8", "f64",
/// "c128"...), "" for a type the arrays do not allow (the verifier rejects
/// those first).
static std::string getElementTypeName(Type type) {
  if (auto intType = dyn_cast<IntegerType>(type))
    return (intType.isUnsigned() ? "u" : "i") +
           std::to_string(intType.getWidth());
  if (type.isF32())
    return "f32";
  if (type.isF64())
    return "f64";
  if (auto complex = dyn_cast<ComplexType>(type)) {
    if (complex.getElementType().isF32())
      return "c64";
    if (complex.getElementType().isF64())
      return "c128";
  }
  return "";
}

/// A C identifier for an operation name: every other character becomes '_',
/// a leading digit gets a '_' in front, and C11 keywords and `main` (the
/// harness) get a '_' appended; .sched names such as `int` or `main` are
/// fine there but would not compile as function names. The emitters reject
/// the duplicates this could make.
static std::string getCName(StringRef name) {
  static const char *const reserved[] = {
      "auto",      "break",     "case",           "char",
      "const",     "continue",  "default",        "do",
      "double",    "else",      "enum",           "extern",
      "float",     "for",       "goto",           "if",
      "inline",    "int",       "long",           "register",
      "restrict",  "return",    "short",          "signed",
      "sizeof",    "static",    "struct",         "switch",
      "typedef",   "union",     "unsigned",       "void",
      "volatile",  "while",     "main",           "_Bool",
      "_Complex",  "_Alignas",  "_Alignof",       "_Atomic",
      "_Generic",  "_Noreturn", "_Static_assert", "_Thread_local",
      "_Imaginary"};
  std::string result;
  if (name.empty() || llvm::isDigit(name.front()))
    result = "_";
  for (char c : name)
    result += llvm::isAlnum(c) || c == '_' ? c : '_';
  if (llvm::is_contained(reserved, StringRef(result)))
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
/// operation has them, with the language's defaults packing and barrier);
/// the rest keep the back ends' defaults.
static target::PlanOptions getPlanOptions(comm::CollectiveOpInterface op) {
  target::PlanOptions options;
  Operation *operation = op.getOperation();
  if (auto style = operation->getAttrOfType<comm::TransferStyleAttr>("style"))
    options.style = style.getValue();
  if (auto sync = operation->getAttrOfType<comm::SyncKindAttr>("sync"))
    options.sync = sync.getValue();
  return options;
}

int phasec::driver::emitCode(ModuleOp module, const ScheduledModule &scheduled,
                             const DriverOptions &options,
                             llvm::raw_ostream &out,
                             llvm::raw_ostream &diagOS) {
  assert((options.emit == EmitKind::MPI || options.emit == EmitKind::SHMEM) &&
         "emitCode emits MPI or OpenSHMEM");
  StringRef backEnd = options.emit == EmitKind::MPI ? "MPI" : "OpenSHMEM";
  SymbolTable symbols(module);
  std::vector<target::OperationPlan> plans;
  bool hadError = false;
  for (const ScheduledOperation &op : scheduled.operations) {
    // A copy: the op handle is const in `op`, emitting diagnostics is not.
    comm::CollectiveOpInterface collective = op.op;
    FailureOr<Collective> described = comm::getCollective(collective, symbols);
    if (failed(described)) {
      hadError = true;
      continue;
    }
    target::ElementCType elem{"u8", "uint8_t", 1};
    if (described->from) {
      comm::ArrayOp array = getSourceArray(collective, symbols);
      std::string error;
      FailureOr<target::ElementCType> parsed = target::parseElementType(
          array ? getElementTypeName(array.getElementType()) : "", error);
      if (failed(parsed)) {
        collective.emitError("cannot emit '") << op.name << "': " << error;
        hadError = true;
        continue;
      }
      elem = *parsed;
    }
    // Local copies (src == dst) are harmless to the scheduling library
    // (Problem::verify skips them; hand-written schedules may contain them)
    // but are no transfer for the plans: the generated code copies a
    // member's own part itself.
    Schedule schedule = op.schedule;
    for (Phase &phase : schedule.phases)
      llvm::erase_if(phase.transfers,
                     [](const Transfer &t) { return t.src == t.dst; });
    std::string error;
    FailureOr<target::OperationPlan> plan = target::buildOperationPlan(
        getCName(op.name), *described, elem, schedule,
        getPlanOptions(collective), error);
    if (failed(plan)) {
      collective.emitError("cannot emit '") << op.name << "': " << error;
      hadError = true;
      continue;
    }
    plans.push_back(std::move(*plan));
  }
  if (hadError)
    return 1;
  if (plans.empty()) {
    llvm::WithColor::error(diagOS, "phasec")
        << "nothing to emit: no operation of the program has a schedule\n";
    return 1;
  }
  std::string error;
  LogicalResult emitted = failure();
  if (options.emit == EmitKind::MPI) {
    target::MPIOptions mpi;
    mpi.main = options.emitMain;
    emitted = target::emitMPI(plans, out, mpi, error);
  } else {
    target::SHMEMOptions shmem;
    shmem.main = options.emitMain;
    emitted = target::emitSHMEM(plans, out, shmem, error);
  }
  if (failed(emitted)) {
    llvm::WithColor::error(diagOS, "phasec")
        << "cannot emit " << backEnd << " code: " << error << "\n";
    return 1;
  }
  return 0;
}

int phasec::driver::runSimGrid(const ScheduledModule &scheduled,
                               const DriverOptions &options,
                               llvm::raw_ostream &out,
                               llvm::raw_ostream &diagOS) {
  if (scheduled.operations.empty()) {
    llvm::WithColor::error(diagOS, "phasec")
        << "nothing to simulate: no operation of the program has a schedule\n";
    return 1;
  }
  std::vector<simgrid::SimOperation> operations;
  for (const ScheduledOperation &op : scheduled.operations)
    operations.push_back(
        {op.name, op.topology, op.problem.get(), &op.schedule});
  simgrid::SimTargetOptions sim;
  sim.outDir = options.outDir;
  sim.emitOnly = !options.simulate;
  sim.compare = options.compare;
  sim.reportDir = options.reportDir;
  return simgrid::runSimTarget(operations, sim, out, diagOS);
}

int phasec::driver::runPhasec(llvm::SourceMgr &sourceMgr,
                              const DriverOptions &options,
                              llvm::raw_ostream &out,
                              llvm::raw_ostream &diagOS) {
  DialectRegistry registry;
  registerDialects(registry);
  MLIRContext context(registry);
  // Huge schedules are built on one thread anyway; threads only cost here.
  context.disableMultithreading();
  // Diagnostics point into the .sched file; a dump of the op adds nothing.
  context.printOpOnDiagnostic(false);
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, diagOS);

  std::unique_ptr<lang::Program> program;
  OwningOpRef<ModuleOp> module =
      parseToComm(sourceMgr, options, context, diagOS, &program);
  if (!module)
    return 1;

  if (options.simulate || options.emit == EmitKind::SimGrid ||
      options.emit == EmitKind::MPI || options.emit == EmitKind::SHMEM) {
    if (failed(runSchedulingPipeline(*module, options)))
      return 1;
    FailureOr<ScheduledModule> scheduled = collectSchedules(*module);
    if (failed(scheduled))
      return 1;
    if (options.simulate || options.emit == EmitKind::SimGrid)
      return runSimGrid(*scheduled, options, out, diagOS);
    return emitCode(*module, *scheduled, options, out, diagOS);
  }

  switch (options.emit) {
  case EmitKind::AST:
    program->print(out, /*maxItems=*/16);
    return 0;
  case EmitKind::MLIR: {
    if (options.scheduleMLIR &&
        failed(runSchedulingPipeline(*module, options)))
      return 1;
    OpPrintingFlags flags;
    if (options.printDebugInfo)
      flags.enableDebugInfo();
    module->print(out, flags);
    out << "\n";
    return 0;
  }
  case EmitKind::ScheduleJSON:
  case EmitKind::ScheduleStats: {
    if (failed(runSchedulingPipeline(*module, options)))
      return 1;
    FailureOr<ScheduledModule> scheduled = collectSchedules(*module);
    if (failed(scheduled))
      return 1;
    if (options.emit == EmitKind::ScheduleJSON)
      writeScheduleJSON(*scheduled, out);
    else
      writeScheduleStats(*scheduled, out);
    return 0;
  }
  case EmitKind::MPI:
  case EmitKind::SHMEM:
  case EmitKind::SimGrid:
    llvm_unreachable("handled above");
  }
  llvm_unreachable("unknown emit kind");
}
