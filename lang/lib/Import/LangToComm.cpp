//===- LangToComm.cpp - The evaluated .sched program to comm IR -----------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A direct translation: Sema has evaluated everything, so every AST field
/// maps onto one attribute. The only decisions made here are symbol names
/// (groups of several machines must not collide) and how source locations of
/// hand-written transfers are stored compactly (see comm.phase).
///
//===----------------------------------------------------------------------===//

#include "phasec/Lang/ImportSched.h"
#include "phasec/Dialect/Comm/CommOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace phasec;
using namespace phasec::comm;

namespace {

class Converter {
public:
  Converter(const lang::Program &program, MLIRContext &context,
            llvm::SourceMgr &sourceMgr)
      : program(program), context(context), sourceMgr(sourceMgr),
        builder(&context) {}

  OwningOpRef<ModuleOp> run();

private:
  Location loc(llvm::SMLoc smLoc);
  Type elementType(ElementType type);
  FlatSymbolRefAttr ref(StringRef name) {
    return FlatSymbolRefAttr::get(&context, name);
  }
  void convertMachine(const lang::Machine &machine);
  void convertGroup(const lang::Group &group);
  void convertArray(const lang::Array &array);
  void convertOperation(const lang::Operation &op);
  void convertSchedule(const lang::Operation &op);

  const lang::Program &program;
  MLIRContext &context;
  llvm::SourceMgr &sourceMgr;
  OpBuilder builder;
  /// Symbol of each group (implicit `all` groups are `<machine>.all`).
  llvm::DenseMap<const lang::Group *, std::string> groupNames;
  llvm::StringSet<> usedNames;
};

} // namespace

Location phasec::lang::getLocation(llvm::SMLoc smLoc,
                                   llvm::SourceMgr &sourceMgr,
                                   MLIRContext &context) {
  if (!smLoc.isValid())
    return UnknownLoc::get(&context);
  unsigned buffer = sourceMgr.FindBufferContainingLoc(smLoc);
  if (!buffer)
    return UnknownLoc::get(&context);
  auto [line, column] = sourceMgr.getLineAndColumn(smLoc, buffer);
  StringRef file = sourceMgr.getMemoryBuffer(buffer)->getBufferIdentifier();
  return FileLineColLoc::get(&context, file, line, column);
}

Location Converter::loc(llvm::SMLoc smLoc) {
  return lang::getLocation(smLoc, sourceMgr, context);
}

Type Converter::elementType(ElementType type) {
  return getElementIRType(type, &context);
}

void Converter::convertMachine(const lang::Machine &m) {
  // The description the machine op records; rates and costs the file does
  // not give stay 0 (left out of the op, see createMachineOp).
  TopologyDesc desc;
  desc.kind = m.kind;
  desc.dims.assign(m.dims.begin(), m.dims.end());
  desc.supernodes = m.supernodes;
  desc.drawers = m.drawers;
  desc.nodesPerDrawer = m.nodesPerDrawer;
  desc.dLinks = m.dLinks;
  desc.ranksPerNode = m.ranksPerNode;
  desc.linkBandwidth = m.bandwidth;
  desc.linkLatency = m.latency;
  desc.llBandwidth = m.llBandwidth;
  desc.lrBandwidth = m.lrBandwidth;
  desc.dBandwidth = m.dBandwidth;
  desc.injectionBandwidth = m.injectionBandwidth;
  desc.dimOrder.assign(m.dimOrder.begin(), m.dimOrder.end());
  static_cast<MachineCosts &>(desc) = m.cost;
  MachineOp op = createMachineOp(builder, loc(m.loc), m.name, desc);
  usedNames.insert(m.name);
  // What TopologyDesc does not hold: PERCS per-class latencies and the
  // routing the file asks for.
  if (m.kind == TopologyKind::Percs) {
    using Setter = void (MachineOp::*)(FloatAttr);
    for (auto [latency, set] :
         {std::pair<double, Setter>{m.llLatency, &MachineOp::setLlLatencyAttr},
          {m.lrLatency, &MachineOp::setLrLatencyAttr},
          {m.dLatency, &MachineOp::setDLatencyAttr}})
      if (latency > 0)
        (op.*set)(builder.getF64FloatAttr(latency));
  }
  op.setRouting(m.routing);
}

void Converter::convertGroup(const lang::Group &g) {
  std::string name = g.implicitAll ? g.machine->name + ".all" : g.name;
  if (usedNames.contains(name))
    name = g.machine->name + "." + g.name;
  // Still taken (a group literally named "<machine>.<group>" cannot be
  // written in .sched, but stay safe): number it.
  for (unsigned i = 1; usedNames.contains(name); ++i)
    name = g.machine->name + "." + g.name + "." + std::to_string(i);
  usedNames.insert(name);
  groupNames[&g] = name;
  SmallVector<int64_t> ranks(g.ranks.begin(), g.ranks.end());
  auto op = builder.create<GroupOp>(
      loc(g.loc), TypeRange(), ValueRange(),
      ArrayRef<NamedAttribute>{
          builder.getNamedAttr("sym_name", builder.getStringAttr(name)),
          builder.getNamedAttr("machine", ref(g.machine->name)),
          builder.getNamedAttr("ranks", builder.getDenseI64ArrayAttr(ranks))});
  if (g.overNodes) {
    SmallVector<int64_t> nodes(g.nodes.begin(), g.nodes.end());
    op.setNodesAttr(builder.getDenseI64ArrayAttr(nodes));
    op.setOverNodes(true);
  }
}

void Converter::convertArray(const lang::Array &a) {
  usedNames.insert(a.name);
  SmallVector<int64_t> shape(a.shape.begin(), a.shape.end());
  builder.create<ArrayOp>(
      loc(a.loc), TypeRange(), ValueRange(),
      ArrayRef<NamedAttribute>{
          builder.getNamedAttr("sym_name", builder.getStringAttr(a.name)),
          builder.getNamedAttr("element_type",
                               TypeAttr::get(elementType(a.elementType))),
          builder.getNamedAttr("shape", builder.getDenseI64ArrayAttr(shape)),
          builder.getNamedAttr("distribution",
                               DistributionAttr::get(&context, a.distribution)),
          builder.getNamedAttr("group", ref(groupNames.lookup(a.group)))});
}

void Converter::convertOperation(const lang::Operation &o) {
  NamedAttrList attrs;
  auto set = [&](StringRef name, Attribute value) { attrs.set(name, value); };
  auto i64 = [&](int64_t v) { return builder.getI64IntegerAttr(v); };
  set("sym_name", builder.getStringAttr(o.name));
  set("machine", ref(o.machine->name));
  set("group", ref(groupNames.lookup(o.group)));

  // Operation-specific attributes.
  auto rooted = [&] {
    set("root", i64(o.root));
    set("block", i64(o.blockBytes));
  };
  auto reduction = [&] {
    set("op", ReduceKindAttr::get(&context, o.reduceOp));
    set("element_type", TypeAttr::get(elementType(o.elementType)));
    set("count", i64(o.count));
  };
  // The attributes of the kind's data, as its traits describe it.
  const CollectiveTraits &traits = getTraits(o.kind);
  switch (traits.shape) {
  case DataShape::Blocks:
    if (traits.reduces) {
      if (traits.rooted)
        set("root", i64(o.root));
      reduction();
      if (!o.memberBytes.empty())
        set("member_bytes", builder.getDenseI64ArrayAttr(o.memberBytes));
    } else if (traits.rooted) {
      rooted();
    } else {
      set("block", i64(o.blockBytes));
    }
    if (!o.memberBytes.empty())
      set("member_bytes", builder.getDenseI64ArrayAttr(o.memberBytes));
    break;
  case DataShape::PairSizes:
    set("sizes", builder.getDenseI64ArrayAttr(o.sizes));
    break;
  case DataShape::Matrix:
    set("from", ref(o.from->name));
    set("to", ref(o.to->name));
    // Contiguous stores is the dialect's default: absent.
    if (o.directives.loopOrder != LoopOrder::ContiguousStores)
      set("loop_order", LoopOrderAttr::get(&context, o.directives.loopOrder));
    break;
  case DataShape::Permutation:
    set("pattern", PermuteKindAttr::get(&context, o.permuteKind));
    set("seed", i64(static_cast<int64_t>(o.seed)));
    set("mask", i64(o.mask));
    set("shift", i64(o.shift));
    if (o.permuteKind == PermuteKind::Table)
      set("table", builder.getDenseI64ArrayAttr(o.permutation));
    if (!o.tableFile.empty())
      set("table_file", builder.getStringAttr(o.tableFile));
    if (o.elementLevel) {
      set("from", ref(o.from->name));
      set("to", ref(o.to->name));
    } else {
      set("block", i64(o.blockBytes));
    }
    break;
  case DataShape::None:
    // A local step names the C function it calls; a barrier has no data.
    if (!o.call.empty())
      set("call", builder.getStringAttr(o.call));
    break;
  }

  // Directives.
  const lang::Directives &d = o.directives;
  set("algorithm", AlgorithmAttr::get(&context, d.algorithm));
  if (d.algorithmParam > 0)
    set("algorithm_param", i64(d.algorithmParam));
  if (d.algorithm == Algorithm::KLevel) {
    set("k_levels", i64(d.kLevels));
    set("k_shape", KLevelShapeAttr::get(&context, d.kShape));
    // The comm dialect keeps logp-lev-rec's gamma as k_level's parameter.
    if (d.kGammaPercent)
      set("algorithm_param", i64(d.kGammaPercent));
  }
  set("sync", SyncKindAttr::get(&context, d.sync));
  set("style", TransferStyleAttr::get(&context, d.style));
  set("rlimit", i64(d.rlimit));
  if (o.aggregate != Aggregate::None)
    set("aggregate", AggregateAttr::get(&context, o.aggregate));
  if (o.valueType)
    set("value_type", TypeAttr::get(elementType(*o.valueType)));
  if (o.valueBits)
    set("value_bits", i64(o.valueBits));
  if (o.valueLogical)
    set("value_logical", builder.getUnitAttr());
  usedNames.insert(o.name);

  // Every comm op is named after its kind's spelling in the vocabulary
  // (`comm.alltoall`, `comm.one_to_all`...), so one generic create serves
  // every kind.
  OperationState state(loc(o.loc),
                       ("comm." + stringifyCollectiveKind(o.kind)).str());
  state.addAttributes(attrs.getAttrs());
  builder.create(state);

  if (o.hasSchedule)
    convertSchedule(o);
}

void Converter::convertSchedule(const lang::Operation &o) {
  SmallVector<NamedAttribute, 3> attrs{
      builder.getNamedAttr("collective", ref(o.name))};
  // A relaying schedule: its sends carry chunks of this size.
  if (o.numChunks) {
    attrs.push_back(builder.getNamedAttr(
        "num_chunks", builder.getI64IntegerAttr(o.numChunks)));
    attrs.push_back(builder.getNamedAttr(
        "chunk_bytes", builder.getI64IntegerAttr(o.chunkBytes)));
  }
  auto schedule = builder.create<UserScheduleOp>(
      loc(o.scheduleLoc), TypeRange(), ValueRange(), attrs);
  Block *body = &schedule.getBody().emplaceBlock();
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(body);
  SmallVector<int64_t> values, chunks;
  SmallVector<Attribute> locs;
  SmallVector<int32_t> locIndex;
  llvm::DenseMap<const char *, int32_t> locSlots;
  for (const lang::Phase &phase : o.phases) {
    values.clear();
    chunks.clear();
    locs.clear();
    locIndex.clear();
    locSlots.clear();
    values.reserve(phase.transfers.size() * 4);
    locIndex.reserve(phase.transfers.size());
    for (const lang::Transfer &t : phase.transfers) {
      values.append({t.src, t.dst, t.bytes, 0});
      if (o.numChunks) {
        chunks.append({static_cast<int64_t>(t.chunks.size()), t.reduce});
        chunks.append(t.chunks.begin(), t.chunks.end());
      }
      auto [it, inserted] = locSlots.try_emplace(
          t.loc.getPointer(), static_cast<int32_t>(locs.size()));
      if (inserted)
        locs.push_back(loc(t.loc));
      locIndex.push_back(it->second);
    }
    auto phaseOp = builder.create<PhaseOp>(
        loc(phase.loc), builder.getDenseI64ArrayAttr(values),
        o.numChunks ? builder.getDenseI64ArrayAttr(chunks) : nullptr,
        /*locs=*/nullptr, /*loc_index=*/nullptr, /*rules=*/nullptr);
    if (!locs.empty())
      phaseOp.setLocsAttr(builder.getArrayAttr(locs));
    // One distinct location: loc_index would be all zeros; leave it out.
    if (locs.size() > 1)
      phaseOp.setLocIndexAttr(builder.getDenseI32ArrayAttr(locIndex));
  }
}

OwningOpRef<ModuleOp> Converter::run() {
  context.getOrLoadDialect<CommDialect>();
  Location fileLoc = FileLineColLoc::get(&context, program.fileName, 1, 1);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  builder.setInsertionPointToEnd(module->getBody());
  for (const auto &machine : program.machines)
    convertMachine(*machine);
  for (const auto &group : program.groups)
    convertGroup(*group);
  for (const auto &array : program.arrays)
    convertArray(*array);
  for (const auto &op : program.operations)
    convertOperation(*op);
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp>
phasec::lang::convertToComm(const lang::Program &program, MLIRContext &context,
                            llvm::SourceMgr &sourceMgr) {
  return Converter(program, context, sourceMgr).run();
}
