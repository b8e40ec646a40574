//===- ScheduleIR.cpp - Between comm IR and the scheduling library --------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Decoding and encoding of transfer sets and phases (see ScheduleIR.h).
///
//===----------------------------------------------------------------------===//

#include "phasec/Transforms/ScheduleIR.h"
#include "phasec/Scheduling/Collective.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace phasec;
using namespace phasec::comm;

llvm::MapVector<StringAttr, OperationRecord>
phasec::comm::collectOperations(ModuleOp module) {
  llvm::MapVector<StringAttr, OperationRecord> records;
  SymbolTable symbols(module);
  for (Operation &op : module.getBody()->getOperations()) {
    auto collective = dyn_cast<CollectiveOpInterface>(op);
    if (!collective)
      continue;
    OperationRecord &record =
        records[StringAttr::get(module.getContext(),
                                collective.getCollectiveName())];
    record.op = collective;
    record.machine = symbols.lookup<MachineOp>(
        collective.getMachineRef().getValue());
    record.group =
        symbols.lookup<GroupOp>(collective.getGroupRef().getValue());
  }
  auto find = [&](FlatSymbolRefAttr ref) -> OperationRecord * {
    auto it = records.find(ref.getAttr());
    return it == records.end() ? nullptr : &it->second;
  };
  for (Operation &op : module.getBody()->getOperations()) {
    if (auto set = dyn_cast<TransferSetOp>(op)) {
      if (OperationRecord *r = find(set.getCollectiveAttr()))
        r->transferSet = set;
    } else if (auto schedule = dyn_cast<ScheduleOp>(op)) {
      if (OperationRecord *r = find(schedule.getCollectiveAttr()))
        r->schedule = schedule;
    } else if (auto user = dyn_cast<UserScheduleOp>(op)) {
      if (OperationRecord *r = find(user.getCollectiveAttr()))
        r->userSchedule = user;
    }
  }
  return records;
}

FailureOr<const Topology *> TopologyCache::get(MachineOp machine) {
  std::unique_ptr<Topology> &slot = cache_[machine.getOperation()];
  if (slot)
    return slot.get();
  std::string error;
  FailureOr<Topology> topo = Topology::create(machine.getTopologyDesc(), error);
  if (failed(topo))
    return machine.emitError("invalid machine: ") << error;
  slot = std::make_unique<Topology>(std::move(*topo));
  return slot.get();
}

TransferSet phasec::comm::getTransferSet(TransferSetOp op) {
  if (auto members = op.getAllPairs())
    return TransferSet::allPairs(
        std::vector<RankId>(members->begin(), members->end()),
        *op.getPairBytes());
  ArrayRef<int64_t> d = op.getDemands();
  std::vector<Demand> demands;
  demands.reserve(d.size() / 3);
  for (size_t i = 0; i + 3 <= d.size(); i += 3)
    demands.push_back({static_cast<RankId>(d[i]), static_cast<RankId>(d[i + 1]),
                       d[i + 2]});
  return TransferSet(std::move(demands));
}

TransferSetOp phasec::comm::createTransferSetOp(OpBuilder &builder,
                                                Location loc,
                                                StringRef collective,
                                                const TransferSet &set) {
  MLIRContext *context = builder.getContext();
  auto name = FlatSymbolRefAttr::get(context, collective);
  if (const std::vector<RankId> *members = set.allPairsMembers()) {
    SmallVector<int64_t> values(members->begin(), members->end());
    return builder.create<TransferSetOp>(
        loc, name, DenseI64ArrayAttr::get(context, {}),
        DenseI64ArrayAttr::get(context, values),
        builder.getI64IntegerAttr(*set.uniformBytes()));
  }
  SmallVector<int64_t> values;
  values.reserve(set.size() * 3);
  for (const Demand &d : set)
    values.append({d.src, d.dst, d.bytes});
  return builder.create<TransferSetOp>(
      loc, name, DenseI64ArrayAttr::get(context, values), nullptr, nullptr);
}

void phasec::comm::getPhases(Region &body, Schedule &schedule) {
  for (PhaseOp phaseOp : body.getOps<PhaseOp>()) {
    ArrayRef<int64_t> t = phaseOp.getTransfers();
    Phase &phase = schedule.phases.emplace_back();
    phase.transfers.reserve(t.size() / 4);
    for (size_t i = 0; i + 4 <= t.size(); i += 4)
      phase.transfers.push_back({static_cast<RankId>(t[i]),
                                 static_cast<RankId>(t[i + 1]), t[i + 2],
                                 static_cast<TieMask>(t[i + 3])});
    phase.chunks = phaseOp.getChunkTransfers();
    phase.rules = phaseOp.getPhaseRules();
  }
}

Schedule phasec::comm::getSchedule(ScheduleOp op) {
  Schedule schedule;
  getPhases(op.getBody(), schedule);
  if (auto groups = op.getTranslations())
    for (Attribute group : *groups) {
      ArrayRef<int64_t> nodes = cast<DenseI64ArrayAttr>(group).asArrayRef();
      std::vector<NodeId> &out = schedule.translations.emplace_back();
      out.reserve(nodes.size());
      for (int64_t v : nodes)
        // Out of NodeId's range is outside every machine (verify says so).
        out.push_back(v < 0 || v > INT32_MAX ? -1 : static_cast<NodeId>(v));
    }
  schedule.algorithm = op.getAlgorithm().str();
  schedule.bound.time = op.getBound().convertToDouble();
  schedule.bound.blocks = op.getBoundBlocks().convertToDouble();
  schedule.bound.minPhases = op.getBoundMinPhases();
  schedule.bound.reason = op.getBoundReason().str();
  schedule.bound.phasesReason = op.getBoundPhasesReason().str();
  return schedule;
}

Schedule phasec::comm::getSchedule(UserScheduleOp op) {
  Schedule schedule;
  getPhases(op.getBody(), schedule);
  schedule.algorithm = "hand-written";
  if (auto bound = op.getBound())
    schedule.bound.time = bound->convertToDouble();
  if (auto blocks = op.getBoundBlocks())
    schedule.bound.blocks = blocks->convertToDouble();
  if (auto minPhases = op.getBoundMinPhases())
    schedule.bound.minPhases = *minPhases;
  if (auto reason = op.getBoundReason())
    schedule.bound.reason = reason->str();
  if (auto reason = op.getBoundPhasesReason())
    schedule.bound.phasesReason = reason->str();
  return schedule;
}

void phasec::comm::appendPhases(OpBuilder &builder, Location loc, Region &body,
                                const Schedule &schedule) {
  if (body.empty())
    body.emplaceBlock();
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(&body.front());
  SmallVector<int64_t> values, chunks, rules;
  // Only computed schedules hold phases by rule (a hand-written one lists
  // its transfers, the dialect checks).
  auto scheduleOp = dyn_cast<ScheduleOp>(body.getParentOp());
  assert((scheduleOp || schedule.translations.empty()) &&
         "phases held by rule need a comm.schedule");
  if (scheduleOp && !schedule.translations.empty()) {
    SmallVector<Attribute> groups;
    for (const std::vector<NodeId> &group : schedule.translations)
      groups.push_back(builder.getDenseI64ArrayAttr(
          SmallVector<int64_t>(group.begin(), group.end())));
    scheduleOp.setTranslationsAttr(builder.getArrayAttr(groups));
  }
  for (const Phase &phase : schedule.phases) {
    values.clear();
    values.reserve(phase.transfers.size() * 4);
    for (const Transfer &t : phase.transfers)
      values.append({t.src, t.dst, t.bytes, static_cast<int64_t>(t.ties)});
    chunks.clear();
    for (const ChunkTransfer &c : phase.chunks) {
      chunks.append({static_cast<int64_t>(c.ids.size()), c.reduce ? 1 : 0});
      chunks.append(c.ids.begin(), c.ids.end());
    }
    rules.clear();
    for (const PhaseRule &rule : phase.rules) {
      rules.append({static_cast<int64_t>(rule.group),
                    static_cast<int64_t>(rule.reps.size())});
      for (const Transfer &t : rule.reps)
        rules.append({t.src, t.dst, t.bytes, static_cast<int64_t>(t.ties)});
    }
    builder.create<PhaseOp>(
        loc, builder.getDenseI64ArrayAttr(values),
        phase.chunks.empty() ? nullptr : builder.getDenseI64ArrayAttr(chunks),
        /*locs=*/nullptr, /*loc_index=*/nullptr,
        phase.rules.empty() ? nullptr : builder.getDenseI64ArrayAttr(rules));
  }
}

/// The chunks of the record's schedule, computed or hand-written: C and the
/// bytes of each; none for a direct schedule.
static std::optional<std::pair<int64_t, int64_t>>
getScheduleChunks(OperationRecord record) {
  if (record.schedule && record.schedule.getNumChunks())
    return std::pair<int64_t, int64_t>(
        *record.schedule.getNumChunks(),
        record.schedule.getChunkBytes().value_or(0));
  if (record.userSchedule && record.userSchedule.getNumChunks())
    return std::pair<int64_t, int64_t>(
        *record.userSchedule.getNumChunks(),
        record.userSchedule.getChunkBytes().value_or(0));
  return std::nullopt;
}

bool phasec::comm::isRelaying(OperationRecord record) {
  return getScheduleChunks(record).has_value();
}

bool phasec::comm::isElementPermute(Operation *op) {
  auto permute = dyn_cast<PermuteOp>(op);
  return permute && permute.getFrom();
}

CostModel phasec::comm::getCostModel(Operation *op, const Topology &topo) {
  CostModel model(topo);
  auto collective = dyn_cast<CollectiveOpInterface>(op);
  if (!collective)
    return model;
  model.setSync(collective.getSyncDirective());
  CollectiveKind kind = collective.getCollectiveKind();
  bool element = isElementPermute(op);
  // Block operations send from and receive into the user's buffers: their
  // copies stream with the transfer, as a chained transfer's do.
  TransferStyle style = TransferStyle::Chained;
  if (Collective::hasTransferStyle(kind, element)) {
    style = collective.getStyleDirective().value_or(TransferStyle::Packing);
  }
  model.setCopy(Collective::getCopyPattern(kind, element), style);
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    LoopOrder order = transpose.getLoopOrder();
    model.setLoopOrder(order == LoopOrder::Auto
                           ? CostModel::chooseLoopOrder(topo.desc())
                           : order);
  }
  return model;
}

FailureOr<std::unique_ptr<Problem>>
phasec::comm::getProblem(OperationRecord record, const Topology &topo) {
  if (!isRelaying(record)) {
    if (!record.transferSet)
      return emitError(record.op.getLoc(), "'")
             << record.op.getCollectiveName()
             << "' has no comm.transfer_set (run comm-lower-collectives "
                "first)";
    return std::make_unique<Problem>(topo, getTransferSet(record.transferSet),
                                     getCostModel(record.op, topo));
  }
  ChunkSpec spec;
  spec.kind = ChunkSpec::getChunkKind(record.op.getCollectiveKind());
  if (record.group)
    for (int64_t r : record.group.getRanks())
      spec.group.push_back(static_cast<RankId>(r));
  if (std::optional<int64_t> root = record.op.getRootMember())
    spec.root = static_cast<RankId>(*root);
  std::tie(spec.numChunks, spec.chunkBytes) = *getScheduleChunks(record);
  if (record.schedule)
    if (std::optional<ArrayRef<int64_t>> sizes =
            record.schedule.getChunkSizes())
      spec.chunkSizes.assign(sizes->begin(), sizes->end());
  std::string error;
  Operation *scheduleOp = record.schedule ? record.schedule.getOperation()
                                          : record.userSchedule.getOperation();
  if (failed(spec.check(topo.numRanks(), error)))
    return scheduleOp->emitError("invalid chunks of '")
           << record.op.getCollectiveName() << "': " << error;
  return std::make_unique<Problem>(topo, std::move(spec),
                                   getCostModel(record.op, topo));
}
