//===- CommOps.cpp - comm dialect operations ------------------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Verifiers of every comm op, the symbol-use checks (machine, group and
/// array references, roots inside groups) and the compact transfer-list
/// syntax `[src -> dst : bytes ties t, ...]` of transfer sets and phases.
///
/// The machine verifier builds the machine with the topology library, so the
/// IR can never hold a machine that the scheduler and the verifier would
/// reject or model differently.
///
//===----------------------------------------------------------------------===//

#include "phasec/Dialect/Comm/CommOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace phasec;
using namespace phasec::comm;

//===----------------------------------------------------------------------===//
// Transfer lists
//===----------------------------------------------------------------------===//

/// Parses `[s -> d : b (ties t)?, ...]` into a flat array of `arity`-tuples
/// (arity 3: demands; arity 4: transfers with a tie mask).
static ParseResult parseTransfers(OpAsmParser &parser,
                                  DenseI64ArrayAttr &result, int arity) {
  SmallVector<int64_t> values;
  auto parseOne = [&]() -> ParseResult {
    int64_t src, dst, bytes;
    if (parser.parseInteger(src) || parser.parseArrow() ||
        parser.parseInteger(dst) || parser.parseColon() ||
        parser.parseInteger(bytes))
      return failure();
    values.append({src, dst, bytes});
    if (arity == 4) {
      int64_t ties = 0;
      if (succeeded(parser.parseOptionalKeyword("ties")) &&
          parser.parseInteger(ties))
        return failure();
      values.push_back(ties);
    }
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, parseOne))
    return failure();
  result = parser.getBuilder().getDenseI64ArrayAttr(values);
  return success();
}

static void printTransfers(OpAsmPrinter &printer, Operation *,
                           DenseI64ArrayAttr attr, int arity) {
  ArrayRef<int64_t> values = attr.asArrayRef();
  raw_ostream &os = printer.getStream();
  os << '[';
  for (size_t i = 0; i + arity <= values.size(); i += arity) {
    if (i)
      os << ", ";
    os << values[i] << " -> " << values[i + 1] << " : " << values[i + 2];
    if (arity == 4 && values[i + 3] != 0)
      os << " ties " << values[i + 3];
  }
  os << ']';
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Resolves `ref` to an op of type OpT, or reports what is wrong.
template <typename OpT>
static FailureOr<OpT> lookupSymbol(Operation *user,
                                   SymbolTableCollection &symbolTable,
                                   FlatSymbolRefAttr ref, StringRef role) {
  Operation *target = symbolTable.lookupNearestSymbolFrom(user, ref);
  if (!target)
    return user->emitOpError() << role << " " << ref << " does not exist";
  auto op = dyn_cast<OpT>(target);
  if (!op)
    return user->emitOpError()
           << role << " " << ref << " is not a '" << OpT::getOperationName()
           << "'";
  return op;
}

/// True if `values` is strictly increasing and non-negative.
static bool isSortedUnique(ArrayRef<int64_t> values) {
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i] < 0 || (i && values[i - 1] >= values[i]))
      return false;
  return true;
}

Type phasec::comm::getElementIRType(ElementType type, MLIRContext *context) {
  using ET = ElementType;
  unsigned bits = 8 * elementTypeBytes(type);
  switch (type) {
  case ET::Int8:
  case ET::Int16:
  case ET::Int32:
  case ET::Int64:
    return IntegerType::get(context, bits);
  case ET::UInt8:
  case ET::UInt16:
  case ET::UInt32:
  case ET::UInt64:
    return IntegerType::get(context, bits, IntegerType::Unsigned);
  case ET::F32:
    return Float32Type::get(context);
  case ET::F64:
    return Float64Type::get(context);
  case ET::Complex64:
    return ComplexType::get(Float32Type::get(context));
  case ET::Complex128:
    return ComplexType::get(Float64Type::get(context));
  }
  llvm_unreachable("unknown element type");
}

std::optional<ElementType> phasec::comm::getElementTypeKind(Type type) {
  using ET = ElementType;
  if (auto intType = dyn_cast<IntegerType>(type)) {
    if (intType.isSigned())
      return std::nullopt;
    bool isUnsigned = intType.isUnsigned();
    switch (intType.getWidth()) {
    case 8:
      return isUnsigned ? ET::UInt8 : ET::Int8;
    case 16:
      return isUnsigned ? ET::UInt16 : ET::Int16;
    case 32:
      return isUnsigned ? ET::UInt32 : ET::Int32;
    case 64:
      return isUnsigned ? ET::UInt64 : ET::Int64;
    default:
      return std::nullopt;
    }
  }
  if (type.isF32())
    return ET::F32;
  if (type.isF64())
    return ET::F64;
  if (auto complex = dyn_cast<ComplexType>(type)) {
    if (complex.getElementType().isF32())
      return ET::Complex64;
    if (complex.getElementType().isF64())
      return ET::Complex128;
  }
  return std::nullopt;
}

/// Bytes of one element of a supported array/reduction element type, 0 for
/// anything else.
static int64_t getTypeBytes(Type type) {
  std::optional<ElementType> kind = getElementTypeKind(type);
  return kind ? elementTypeBytes(*kind) : 0;
}

/// Element types: signless or unsigned integers of 8..64 bits, f32, f64,
/// complex<f32>, complex<f64>.
static bool isSupportedElementType(Type type) {
  return getElementTypeKind(type).has_value();
}

//===----------------------------------------------------------------------===//
// MachineOp
//===----------------------------------------------------------------------===//

TopologyDesc MachineOp::getTopologyDesc() {
  TopologyDesc desc;
  (void)fillTopologyShape(getTopology(), desc);
  desc.ranksPerNode = getRanksPerNode();
  desc.linkBandwidth = getBandwidth().convertToDouble();
  if (auto bw = getLlBandwidth())
    desc.llBandwidth = bw->convertToDouble();
  if (auto bw = getLrBandwidth())
    desc.lrBandwidth = bw->convertToDouble();
  if (auto bw = getDBandwidth())
    desc.dBandwidth = bw->convertToDouble();
  if (auto latency = getLatency())
    desc.linkLatency = latency->convertToDouble();
  if (auto bw = getInjectionBandwidth())
    desc.injectionBandwidth = bw->convertToDouble();
  if (auto order = getDimOrder())
    for (int64_t d : *order)
      desc.dimOrder.push_back(static_cast<unsigned>(d));
  if (auto setup = getSetupCost())
    desc.setupCost = setup->convertToDouble();
  if (auto packet = getPacketLength())
    desc.packetLength = static_cast<int64_t>(*packet);
  if (auto envelope = getEnvelope())
    desc.messageEnvelope = static_cast<int64_t>(*envelope);
  if (auto header = getPacketHeader())
    desc.packetHeader = static_cast<int64_t>(*header);
  if (auto buffer = getRouterBuffer())
    desc.routerBuffer = static_cast<int64_t>(*buffer);
  if (auto rate = getCopyRateContiguous())
    desc.copyRateContiguous = rate->convertToDouble();
  if (auto rate = getCopyRateStrided())
    desc.copyRateStrided = rate->convertToDouble();
  if (auto rate = getCopyRateStridedStores())
    desc.copyRateStridedStores = rate->convertToDouble();
  if (auto rate = getCopyRateGather())
    desc.copyRateGather = rate->convertToDouble();
  if (auto barrier = getBarrierCost())
    desc.barrierCost = barrier->convertToDouble();
  desc.switching = getSwitching();
  desc.sends = getSends();
  return desc;
}

MachineOp phasec::comm::createMachineOp(OpBuilder &builder, Location loc,
                                        StringRef name,
                                        const TopologyDesc &desc) {
  MLIRContext *context = builder.getContext();
  auto op = builder.create<MachineOp>(
      loc, TypeRange(), ValueRange(),
      ArrayRef<NamedAttribute>{
          builder.getNamedAttr("sym_name", builder.getStringAttr(name)),
          builder.getNamedAttr("topology", getTopologyAttr(context, desc))});
  // Rates, latencies and costs that are not positive are left out (the
  // attribute's default, or "not given": the cost model charges nothing).
  auto f64 = [&](double v) { return builder.getF64FloatAttr(v); };
  op.setRanksPerNode(desc.ranksPerNode);
  if (desc.linkBandwidth > 0)
    op.setBandwidthAttr(f64(desc.linkBandwidth));
  if (desc.linkLatency > 0)
    op.setLatencyAttr(f64(desc.linkLatency));
  if (desc.kind == TopologyKind::Percs) {
    if (desc.llBandwidth > 0)
      op.setLlBandwidthAttr(f64(desc.llBandwidth));
    if (desc.lrBandwidth > 0)
      op.setLrBandwidthAttr(f64(desc.lrBandwidth));
    if (desc.dBandwidth > 0)
      op.setDBandwidthAttr(f64(desc.dBandwidth));
    op.setRouting(Routing::Direct);
  }
  if (desc.injectionBandwidth > 0)
    op.setInjectionBandwidthAttr(f64(desc.injectionBandwidth));
  if (!desc.dimOrder.empty()) {
    SmallVector<int64_t> order(desc.dimOrder.begin(), desc.dimOrder.end());
    op.setDimOrderAttr(builder.getDenseI64ArrayAttr(order));
  }
  if (desc.setupCost > 0)
    op.setSetupCostAttr(f64(desc.setupCost));
  if (desc.packetLength > 0)
    op.setPacketLengthAttr(builder.getI64IntegerAttr(desc.packetLength));
  if (desc.messageEnvelope > 0)
    op.setEnvelopeAttr(builder.getI64IntegerAttr(desc.messageEnvelope));
  if (desc.packetHeader > 0)
    op.setPacketHeaderAttr(builder.getI64IntegerAttr(desc.packetHeader));
  if (desc.routerBuffer > 0)
    op.setRouterBufferAttr(builder.getI64IntegerAttr(desc.routerBuffer));
  if (desc.copyRateContiguous > 0)
    op.setCopyRateContiguousAttr(f64(desc.copyRateContiguous));
  if (desc.copyRateStrided > 0)
    op.setCopyRateStridedAttr(f64(desc.copyRateStrided));
  if (desc.copyRateStridedStores > 0)
    op.setCopyRateStridedStoresAttr(f64(desc.copyRateStridedStores));
  if (desc.copyRateGather > 0)
    op.setCopyRateGatherAttr(f64(desc.copyRateGather));
  if (desc.barrierCost >= 0)
    op.setBarrierCostAttr(f64(desc.barrierCost));
  op.setSwitching(desc.switching);
  op.setSends(desc.sends);
  return op;
}

/// Number of nodes of a topology description, saturating at INT64_MAX / 2 so
/// that absurd machines are rejected instead of overflowing.
static int64_t countNodes(const TopologyDesc &desc) {
  constexpr int64_t kLimit = INT64_MAX / 2;
  int64_t nodes = 1;
  auto mul = [&](int64_t v) {
    if (v <= 0)
      nodes = 0;
    else if (nodes > kLimit / v)
      nodes = kLimit;
    else
      nodes *= v;
  };
  if (desc.kind == TopologyKind::Percs) {
    mul(desc.supernodes);
    mul(desc.drawers);
    mul(desc.nodesPerDrawer);
  } else {
    for (int64_t d : desc.dims)
      mul(d);
  }
  return nodes;
}

int64_t MachineOp::getNumRanks() {
  TopologyDesc desc = getTopologyDesc();
  int64_t nodes = countNodes(desc);
  if (desc.ranksPerNode <= 0 || nodes > INT32_MAX / desc.ranksPerNode)
    return 0;
  return nodes * desc.ranksPerNode;
}

LogicalResult MachineOp::verify() {
  // I64Attr getters return uint64_t: compare as signed.
  if (static_cast<int64_t>(getRanksPerNode()) < 1)
    return emitOpError("ranks_per_node must be at least 1, not ")
           << static_cast<int64_t>(getRanksPerNode());
  auto positive = [&](std::optional<llvm::APFloat> value,
                      StringRef name) -> LogicalResult {
    if (value && !(value->convertToDouble() > 0))
      return emitOpError() << name << " must be positive";
    return success();
  };
  auto nonNegative = [&](std::optional<llvm::APFloat> value,
                         StringRef name) -> LogicalResult {
    if (value && !(value->convertToDouble() >= 0))
      return emitOpError() << name << " must not be negative";
    return success();
  };
  if (failed(positive(getBandwidth(), "bandwidth")) ||
      failed(positive(getLlBandwidth(), "ll_bandwidth")) ||
      failed(positive(getLrBandwidth(), "lr_bandwidth")) ||
      failed(positive(getDBandwidth(), "d_bandwidth")) ||
      failed(positive(getInjectionBandwidth(), "injection_bandwidth")) ||
      failed(positive(getCopyRateContiguous(), "copy_rate_contiguous")) ||
      failed(positive(getCopyRateStrided(), "copy_rate_strided")) ||
      failed(
          positive(getCopyRateStridedStores(), "copy_rate_strided_stores")) ||
      failed(positive(getCopyRateGather(), "copy_rate_gather")) ||
      failed(nonNegative(getBarrierCost(), "barrier_cost")) ||
      failed(nonNegative(getLatency(), "latency")) ||
      failed(nonNegative(getLlLatency(), "ll_latency")) ||
      failed(nonNegative(getLrLatency(), "lr_latency")) ||
      failed(nonNegative(getDLatency(), "d_latency")) ||
      failed(nonNegative(getSetupCost(), "setup_cost")))
    return failure();
  if (auto packet = getPacketLength(); packet && static_cast<int64_t>(*packet) <= 0)
    return emitOpError("packet_length must be positive");
  if (auto envelope = getEnvelope();
      envelope && static_cast<int64_t>(*envelope) < 0)
    return emitOpError("envelope must be non-negative");
  if (auto header = getPacketHeader();
      header &&
      (static_cast<int64_t>(*header) < TopologyDesc::kMinPacketHeader ||
       static_cast<int64_t>(*header) > TopologyDesc::kMaxPacketHeader))
    return emitOpError("packet_header must be ")
           << TopologyDesc::kMinPacketHeader << ".."
           << TopologyDesc::kMaxPacketHeader << " bytes";
  if (auto buffer = getRouterBuffer();
      buffer &&
      (static_cast<int64_t>(*buffer) < 1 ||
       static_cast<int64_t>(*buffer) > TopologyDesc::kMaxRouterBuffer))
    return emitOpError("router_buffer must be 1..")
           << TopologyDesc::kMaxRouterBuffer << " packets";

  bool percs = isa<PercsAttr>(getTopology());
  if (percs && getRouting() != Routing::Direct)
    return emitOpError("a PERCS machine needs routing = direct");
  if (!percs && getRouting() != Routing::DimensionOrder)
    return emitOpError("direct routing needs a PERCS machine");
  if (percs && getDimOrder())
    return emitOpError("dim_order needs a torus, mesh or hypercube");

  TopologyDesc desc = getTopologyDesc();
  int64_t nodes = countNodes(desc);
  // The front end's limit too: beyond it building the links alone would
  // exhaust memory.
  if (nodes > kMaxRanks / desc.ranksPerNode)
    return emitOpError("has more than ") << kMaxRanks << " ranks";
  std::string error;
  if (failed(Topology::create(desc, error)))
    return emitOpError("invalid machine: ") << error;
  return success();
}

//===----------------------------------------------------------------------===//
// GroupOp
//===----------------------------------------------------------------------===//

LogicalResult GroupOp::verify() {
  if (getRanks().empty())
    return emitOpError("must hold at least one rank");
  if (!isSortedUnique(getRanks()))
    return emitOpError(
        "ranks must be non-negative, sorted and free of duplicates");
  if (auto nodes = getNodes(); nodes && !isSortedUnique(*nodes))
    return emitOpError(
        "nodes must be non-negative, sorted and free of duplicates");
  if (getNodes() && !getOverNodes())
    return emitOpError("nodes are only recorded for a group over nodes");
  return success();
}

LogicalResult GroupOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto machine =
      lookupSymbol<MachineOp>(*this, symbolTable, getMachineAttr(), "machine");
  if (failed(machine))
    return failure();
  int64_t numRanks = machine->getNumRanks();
  if (getRanks().back() >= numRanks)
    return emitOpError("rank ")
           << getRanks().back() << " is outside machine " << getMachineAttr()
           << " (" << numRanks << " ranks)";
  if (auto nodes = getNodes()) {
    int64_t numNodes = numRanks / machine->getRanksPerNode();
    if (!nodes->empty() && nodes->back() >= numNodes)
      return emitOpError("node ")
             << nodes->back() << " is outside machine " << getMachineAttr()
             << " (" << numNodes << " nodes)";
    // A group over nodes holds every rank of its nodes and no other: the
    // two lists are one fact written twice, and must agree.
    const int64_t perNode = machine->getRanksPerNode();
    ArrayRef<int64_t> ranks = getRanks();
    bool agree = static_cast<int64_t>(ranks.size()) ==
                 static_cast<int64_t>(nodes->size()) * perNode;
    for (size_t i = 0; agree && i < ranks.size(); ++i)
      agree = ranks[i] == (*nodes)[i / perNode] * perNode +
                              static_cast<int64_t>(i) % perNode;
    if (!agree)
      return emitOpError("ranks are not the ranks of its nodes (")
             << perNode << " per node on machine " << getMachineAttr() << ")";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ArrayOp
//===----------------------------------------------------------------------===//

int64_t ArrayOp::getElementBytes() { return getTypeBytes(getElementType()); }

int64_t ArrayOp::getNumElements() {
  int64_t n = 1;
  for (int64_t d : getShape())
    n *= d;
  return n;
}

LogicalResult ArrayOp::verify() {
  if (!isSupportedElementType(getElementType()))
    return emitOpError("element type ")
           << getElementType()
           << " is not one of i8..i64, ui8..ui64, f32, f64, complex<f32>, "
              "complex<f64>";
  if (getShape().empty())
    return emitOpError("needs at least one dimension");
  int64_t elements = 1;
  for (int64_t d : getShape()) {
    if (d < 1)
      return emitOpError("extent ") << d << " must be positive";
    if (elements > (INT64_MAX / 16) / d)
      return emitOpError("is too large");
    elements *= d;
  }
  if (getDistribution() == Distribution::Cols && getShape().size() < 2)
    return emitOpError("distributed by cols needs at least two dimensions");
  return success();
}

LogicalResult ArrayOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto group =
      lookupSymbol<GroupOp>(*this, symbolTable, getGroupAttr(), "group");
  if (failed(group))
    return failure();
  unsigned dim = getDistribution() == Distribution::Rows ? 0 : 1;
  int64_t size = group->getRanks().size();
  if (getShape()[dim] % size != 0)
    return emitOpError("extent ")
           << getShape()[dim] << " of dimension " << dim
           << " is not divisible by the " << size << " ranks of group "
           << getGroupAttr();
  return success();
}

//===----------------------------------------------------------------------===//
// Communication operations
//===----------------------------------------------------------------------===//

/// Checks shared by every communication operation (directives).
static LogicalResult verifyDirectives(CollectiveOpInterface op) {
  Operation *operation = op.getOperation();
  if (op.getRlimitDirective() < 0)
    return operation->emitOpError("rlimit must not be negative");
  int64_t levels = op.getKLevelsDirective();
  if (levels < 0)
    return operation->emitOpError("k_levels must not be negative");
  if (op.getAlgorithmDirective() != Algorithm::KLevel &&
      (levels != 0 || op.getKShapeDirective() != KLevelShape::None))
    return operation->emitOpError(
        "k_levels and k_shape need algorithm k_level");
  // Seed 004's Bits variants restrict unsigned values; its 1-bit values
  // are ui8.
  std::optional<int64_t> valueBits = op.getAggregateValueBits();
  bool logical = op.isAggregateValueLogical();
  if (valueBits || logical) {
    std::optional<Type> valueType = op.getAggregateValueType();
    auto intType =
        valueType ? dyn_cast<IntegerType>(*valueType) : IntegerType();
    if (!intType || !intType.isUnsigned())
      return operation->emitOpError(
          "value_bits and value_logical need an unsigned integer value_type");
    if (valueBits && (*valueBits < 1 || *valueBits >= intType.getWidth()))
      return operation->emitOpError("value_bits must be in 1 .. ")
             << intType.getWidth() - 1 << ", not " << *valueBits;
    if (logical && intType.getWidth() != 8)
      return operation->emitOpError("value_logical values are ui8");
  }
  if (op.getAlgorithmDirective() == Algorithm::GatherEvaluate) {
    Aggregate a = op.getAggregateKind();
    // The data op of a reduce-like aggregate: a reduction whose result is
    // every member's (an allreduce or scan).
    const CollectiveTraits &t = getTraits(op.getCollectiveKind());
    bool evaluates = evaluatesEveryValue(a) && t.reduces &&
                     t.recv.part == DataPart::Whole &&
                     t.recv.holders == DataHolders::Every;
    if (!evaluates)
      return operation->emitOpError(
          "algorithm gather_evaluate needs a PAPERS reduce, scan, any, all "
          "or bcast aggregate (an allreduce or scan)");
  }
  return success();
}

static LogicalResult verifyPositive(Operation *op, int64_t value,
                                    StringRef name) {
  if (value <= 0)
    return op->emitOpError() << name << " must be positive, not " << value;
  return success();
}

static LogicalResult verifyRootAttr(Operation *op, int64_t root) {
  if (root < 0)
    return op->emitOpError("root must be a rank, not ") << root;
  return success();
}

static LogicalResult verifyReduction(Operation *op, Type elementType,
                                     int64_t count) {
  if (!isSupportedElementType(elementType))
    return op->emitOpError("element type ")
           << elementType << " is not supported";
  return verifyPositive(op, count, "count");
}

/// The checks of an operation that moves `block` bytes per pair, from or to
/// `root` if it has one.
static LogicalResult verifyBlockOp(CollectiveOpInterface op, int64_t block,
                                   std::optional<int64_t> root = std::nullopt) {
  Operation *operation = op.getOperation();
  if (failed(verifyDirectives(op)) ||
      (root && failed(verifyRootAttr(operation, *root))))
    return failure();
  return verifyPositive(operation, block, "block");
}

/// The checks of a reduction of `count` elements, to `root` if it has one.
static LogicalResult
verifyReductionOp(CollectiveOpInterface op, Type elementType, int64_t count,
                  std::optional<int64_t> root = std::nullopt) {
  Operation *operation = op.getOperation();
  if (failed(verifyDirectives(op)) ||
      (root && failed(verifyRootAttr(operation, *root))))
    return failure();
  return verifyReduction(operation, elementType, count);
}

/// Machine, group and root checks every communication operation needs.
static FailureOr<GroupOp> verifyPlacement(CollectiveOpInterface op,
                                          SymbolTableCollection &symbolTable,
                                          std::optional<int64_t> root) {
  Operation *operation = op.getOperation();
  auto machine = lookupSymbol<MachineOp>(operation, symbolTable,
                                         op.getMachineRef(), "machine");
  if (failed(machine))
    return failure();
  auto group = lookupSymbol<GroupOp>(operation, symbolTable, op.getGroupRef(),
                                     "group");
  if (failed(group))
    return failure();
  if (group->getMachineAttr() != op.getMachineRef())
    return operation->emitOpError("group ")
           << op.getGroupRef() << " belongs to machine "
           << group->getMachineAttr() << ", not " << op.getMachineRef();
  if (root && !llvm::is_contained(group->getRanks(), *root))
    return operation->emitOpError("root ")
           << *root << " is not in group " << op.getGroupRef();
  return *group;
}

#define COMM_TRIVIAL_SYMBOL_USES(OP)                                           \
  LogicalResult OP::verifySymbolUses(SymbolTableCollection &symbolTable) {     \
    return verifyPlacement(*this, symbolTable, std::nullopt);                  \
  }

static LogicalResult verifyFamilyReduction(CollectiveOpInterface op,
                                           std::optional<int64_t> root) {
  auto reduction = cast<ReductionOpInterface>(op.getOperation());
  return verifyReductionOp(op, reduction.getReduceElementType(),
                           reduction.getReduceCount(), root);
}

LogicalResult phasec::comm::detail::verifyFamilyOp(CollectiveOpInterface op) {
  std::optional<int64_t> root = op.getRootMember();
  if (std::optional<ArrayRef<int64_t>> sizes = op.getMemberBlockBytes()) {
    // The v-collectives: a block per member (0 allowed), the largest in
    // `block`.
    CollectiveKind kind = op.getCollectiveKind();
    if (kind != CollectiveKind::Allgather && kind != CollectiveKind::Gather &&
        kind != CollectiveKind::Scatter &&
        kind != CollectiveKind::ReduceScatter)
      return op.emitOpError("member_bytes applies to allgather, gather, "
                            "scatter and reduce_scatter (the v-collectives)");
    int64_t largest = 0;
    for (int64_t b : *sizes) {
      if (b < 0)
        return op.emitOpError("member_bytes must not be negative, found ") << b;
      largest = std::max(largest, b);
    }
    auto blocks = dyn_cast<BlockOpInterface>(op.getOperation());
    if (!blocks)
      return verifyFamilyReduction(op, root); // count: the largest block
    if (blocks.getBlockBytes() != largest)
      return op.emitOpError("block must be the largest of member_bytes (")
             << largest << ")";
    return failure(failed(verifyDirectives(op)) ||
                   (root && failed(verifyRootAttr(op.getOperation(), *root))));
  }
  if (auto blocks = dyn_cast<BlockOpInterface>(op.getOperation()))
    return verifyBlockOp(op, blocks.getBlockBytes(), root);
  return verifyFamilyReduction(op, root);
}

LogicalResult phasec::comm::detail::verifyFamilySymbolUses(
    CollectiveOpInterface op, SymbolTableCollection &symbolTable) {
  FailureOr<GroupOp> group =
      verifyPlacement(op, symbolTable, op.getRootMember());
  if (failed(group))
    return failure();
  if (std::optional<ArrayRef<int64_t>> sizes = op.getMemberBlockBytes())
    if (sizes->size() != group->getRanks().size())
      return op.emitOpError("member_bytes has ")
             << sizes->size() << " entries, group " << op.getGroupRef()
             << " has " << group->getRanks().size() << " members";
  return success();
}

LogicalResult AlltoallvOp::verify() {
  if (failed(verifyDirectives(*this)))
    return failure();
  for (int64_t s : getSizes())
    if (s < 0)
      return emitOpError("sizes must not be negative, found ") << s;
  return success();
}

LogicalResult
AlltoallvOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto group = verifyPlacement(*this, symbolTable, std::nullopt);
  if (failed(group))
    return failure();
  int64_t n = group->getRanks().size();
  if (static_cast<int64_t>(getSizes().size()) != n * n)
    return emitOpError("sizes has ")
           << getSizes().size() << " entries, group " << getGroupAttr()
           << " of " << n << " ranks needs " << n * n;
  return success();
}

LogicalResult TransposeOp::verify() { return verifyDirectives(*this); }

LogicalResult
TransposeOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  if (failed(verifyPlacement(*this, symbolTable, std::nullopt)))
    return failure();
  auto from = lookupSymbol<ArrayOp>(*this, symbolTable, getFromAttr(), "from");
  auto to = lookupSymbol<ArrayOp>(*this, symbolTable, getToAttr(), "to");
  if (failed(from) || failed(to))
    return failure();
  if (from->getShape().size() != 2)
    return emitOpError("transposes two-dimensional arrays; ")
           << getFromAttr() << " has " << from->getShape().size()
           << " dimensions";
  if (to->getShape().size() != 2 || to->getShape()[0] != from->getShape()[1] ||
      to->getShape()[1] != from->getShape()[0])
    return emitOpError("destination ")
           << getToAttr() << " must have the transposed shape of "
           << getFromAttr();
  if (from->getElementType() != to->getElementType())
    return emitOpError("arrays ")
           << getFromAttr() << " and " << getToAttr()
           << " have different element types";
  return success();
}

LogicalResult PermuteOp::verify() {
  if (failed(verifyDirectives(*this)))
    return failure();
  bool blocks = getBlock().has_value();
  bool arrays = getFrom().has_value() || getTo().has_value();
  if (blocks == arrays)
    return emitOpError("needs either block (a rank permutation) or from and "
                       "to (an element permutation)");
  if (arrays && (!getFrom() || !getTo()))
    return emitOpError("an element permutation needs both from and to");
  if (blocks && failed(verifyPositive(*this, *getBlock(), "block")))
    return failure();
  if (getPattern() == PermuteKind::Table && !getTable())
    return emitOpError("pattern table needs a table");
  if (getPattern() != PermuteKind::Table && getTable())
    return emitOpError("a table needs pattern table");
  if (getPattern() == PermuteKind::Runtime && blocks)
    return emitOpError("run-time destinations need an element permutation "
                       "(from and to)");
  if (getPattern() == PermuteKind::Xor && static_cast<int64_t>(getMask()) < 0)
    return emitOpError("mask must not be negative");
  return success();
}

LogicalResult PermuteOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto group = verifyPlacement(*this, symbolTable, std::nullopt);
  if (failed(group))
    return failure();
  int64_t n = group->getRanks().size();
  if (getFrom()) {
    auto from =
        lookupSymbol<ArrayOp>(*this, symbolTable, getFromAttr(), "from");
    auto to = lookupSymbol<ArrayOp>(*this, symbolTable, getToAttr(), "to");
    if (failed(from) || failed(to))
      return failure();
    if (from->getNumElements() != to->getNumElements() ||
        from->getElementType() != to->getElementType())
      return emitOpError("arrays ")
             << getFromAttr() << " and " << getToAttr()
             << " differ in size or element type";
    n = from->getNumElements();
  }
  if (auto table = getTable(); table && static_cast<int64_t>(table->size()) != n)
    return emitOpError("table has ")
           << table->size() << " entries, the permutation needs " << n;
  return success();
}

LogicalResult BarrierOp::verify() { return verifyDirectives(*this); }
COMM_TRIVIAL_SYMBOL_USES(BarrierOp)

LogicalResult LocalOp::verify() {
  if (std::optional<StringRef> call = getCall()) {
    bool ident = !call->empty() && !llvm::isDigit(call->front()) &&
                 llvm::all_of(*call, [](char c) {
                   return llvm::isAlnum(c) || c == '_';
                 });
    if (!ident)
      return emitOpError("call '") << *call << "' is not a C identifier";
  }
  return verifyDirectives(*this);
}
COMM_TRIVIAL_SYMBOL_USES(LocalOp)

//===----------------------------------------------------------------------===//
// Transfer sets and schedules
//===----------------------------------------------------------------------===//

/// The communication operation `ref` names, checked to be one.
static FailureOr<CollectiveOpInterface>
lookupOperation(Operation *user, SymbolTableCollection &symbolTable,
                FlatSymbolRefAttr ref) {
  Operation *target = symbolTable.lookupNearestSymbolFrom(user, ref);
  if (!target)
    return user->emitOpError("operation ") << ref << " does not exist";
  auto op = dyn_cast<CollectiveOpInterface>(target);
  if (!op)
    return user->emitOpError()
           << ref << " is not a communication operation";
  return op;
}

LogicalResult TransferSetOp::verify() {
  ArrayRef<int64_t> d = getDemands();
  if (getAllPairs().has_value() != getPairBytes().has_value())
    return emitOpError("needs both all_pairs and pair_bytes, or neither");
  if (auto members = getAllPairs()) {
    if (!d.empty())
      return emitOpError("holds its demands by rule (all_pairs) and lists ")
             << d.size() / 3 << " more";
    if (*getPairBytes() <= 0)
      return emitOpError("pair_bytes must be positive");
    if (members->size() < 2)
      return emitOpError("all_pairs needs at least two members");
    for (size_t i = 0; i < members->size(); ++i) {
      if ((*members)[i] < 0 || (*members)[i] > INT32_MAX)
        return emitOpError("all_pairs member ") << i << " is an invalid rank";
      if (i && (*members)[i - 1] >= (*members)[i])
        return emitOpError("all_pairs must be sorted without duplicates; "
                           "member ")
               << i << " is out of order";
    }
  }
  if (d.size() % 3 != 0)
    return emitOpError("demands must be (src, dst, bytes) triples");
  for (size_t i = 0; i < d.size(); i += 3) {
    if (d[i] < 0 || d[i + 1] < 0 || d[i] > INT32_MAX || d[i + 1] > INT32_MAX)
      return emitOpError("demand ") << i / 3 << " has an invalid rank";
    if (d[i] == d[i + 1])
      return emitOpError("demand ")
             << i / 3 << " sends from rank " << d[i] << " to itself";
    if (d[i + 2] <= 0)
      return emitOpError("demand ") << i / 3 << " must move a positive number "
                                              "of bytes";
    if (i && std::make_pair(d[i - 3], d[i - 2]) >= std::make_pair(d[i], d[i + 1]))
      return emitOpError("demands must be sorted by (src, dst) without "
                         "duplicates; demand ")
             << i / 3 << " is out of order";
  }
  return success();
}

LogicalResult
TransferSetOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto op = lookupOperation(*this, symbolTable, getCollectiveAttr());
  if (failed(op))
    return failure();
  auto machine = lookupSymbol<MachineOp>(*this, symbolTable,
                                         op->getMachineRef(), "machine");
  if (failed(machine))
    return failure();
  int64_t numRanks = machine->getNumRanks();
  if (auto members = getAllPairs(); members && members->back() >= numRanks)
    return emitOpError("all_pairs names rank ")
           << members->back() << ", outside machine " << op->getMachineRef()
           << " (" << numRanks << " ranks)";
  ArrayRef<int64_t> d = getDemands();
  for (size_t i = 0; i < d.size(); i += 3)
    if (d[i] >= numRanks || d[i + 1] >= numRanks)
      return emitOpError("demand ")
             << i / 3 << " names a rank outside machine "
             << op->getMachineRef() << " (" << numRanks << " ranks)";
  return success();
}

/// Shared checks of schedules: the operation exists and every phase names
/// ranks of its machine.
static LogicalResult verifyScheduleUses(Operation *schedule, Region &body,
                                        FlatSymbolRefAttr operation,
                                        SymbolTableCollection &symbolTable) {
  auto op = lookupOperation(schedule, symbolTable, operation);
  if (failed(op))
    return failure();
  auto machine = lookupSymbol<MachineOp>(schedule, symbolTable,
                                         op->getMachineRef(), "machine");
  if (failed(machine))
    return failure();
  int64_t numRanks = machine->getNumRanks();
  for (auto [index, phase] : llvm::enumerate(body.getOps<PhaseOp>())) {
    ArrayRef<int64_t> t = phase.getTransfers();
    for (size_t i = 0; i < t.size(); i += 4)
      if (t[i] >= numRanks || t[i + 1] >= numRanks)
        return phase.emitOpError("transfer ")
               << i / 4 << " (" << t[i] << " -> " << t[i + 1]
               << ") names a rank outside machine " << op->getMachineRef()
               << " (" << numRanks << " ranks)";
    for (auto [r, rule] : llvm::enumerate(phase.getPhaseRules()))
      for (auto [i, x] : llvm::enumerate(rule.reps))
        if (x.src >= numRanks || x.dst >= numRanks)
          return phase.emitOpError("rule ")
                 << r << " transfer " << i << " (" << x.src << " -> " << x.dst
                 << ") names a rank outside machine " << op->getMachineRef()
                 << " (" << numRanks << " ranks)";
  }
  return success();
}

/// Only phases may appear in a schedule body, and a relaying schedule's
/// phases (and only theirs) say which chunks every transfer carries.
static LogicalResult verifyScheduleBody(Operation *schedule, Region &body,
                                        std::optional<uint64_t> numChunks,
                                        std::optional<uint64_t> chunkBytes) {
  if (numChunks.has_value() != chunkBytes.has_value())
    return schedule->emitOpError("needs both num_chunks and chunk_bytes, or "
                                 "neither");
  for (Operation &nested : body.front()) {
    auto phase = dyn_cast<PhaseOp>(nested);
    if (!phase)
      return schedule->emitOpError("may only contain 'comm.phase' ops");
    if (phase.getChunks().has_value() != numChunks.has_value())
      return phase.emitOpError(numChunks
                                   ? "of a relaying schedule (num_chunks) "
                                     "must say which chunks each transfer "
                                     "carries"
                                   : "carries chunks, but its schedule has "
                                     "no num_chunks");
  }
  return success();
}

LogicalResult ScheduleOp::verify() {
  if (getBound().convertToDouble() < 0 || getTime().convertToDouble() < 0 ||
      getGap().convertToDouble() < 0 ||
      getBoundBlocks().convertToDouble() < 0 || static_cast<int64_t>(getBoundMinPhases()) < 0)
    return emitOpError("bound, time and gap must not be negative");
  if (failed(verifyScheduleBody(*this, getBody(), getNumChunks(),
                                getChunkBytes())))
    return failure();
  if (std::optional<ArrayRef<int64_t>> sizes = getChunkSizes()) {
    if (!getNumChunks() || sizes->size() != *getNumChunks() ||
        *getChunkBytes() != 0 ||
        llvm::any_of(*sizes, [](int64_t b) { return b < 0; }))
      return emitOpError("chunk_sizes must list num_chunks sizes >= 0, with "
                         "chunk_bytes 0");
  }
  size_t numGroups = getTranslations() ? getTranslations()->size() : 0;
  for (PhaseOp phase : getBody().getOps<PhaseOp>())
    for (auto [r, rule] : llvm::enumerate(phase.getPhaseRules()))
      if (rule.group >= numGroups)
        return phase.emitOpError("rule ")
               << r << " names translation group " << rule.group
               << ", but the schedule has " << numGroups;
  return success();
}

LogicalResult ScheduleOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyScheduleUses(*this, getBody(), getCollectiveAttr(), symbolTable);
}

LogicalResult UserScheduleOp::verify() {
  if (failed(verifyScheduleBody(*this, getBody(), getNumChunks(),
                                getChunkBytes())))
    return failure();
  for (PhaseOp phase : getBody().getOps<PhaseOp>())
    if (phase.getRules())
      return phase.emitOpError("of a hand-written schedule must list its "
                               "transfers (it has rules)");
  return success();
}

LogicalResult
UserScheduleOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyScheduleUses(*this, getBody(), getCollectiveAttr(), symbolTable);
}

LogicalResult PhaseOp::verify() {
  ArrayRef<int64_t> t = getTransfers();
  if (t.size() % 4 != 0)
    return emitOpError("transfers must be (src, dst, bytes, ties) quadruples");
  for (size_t i = 0; i < t.size(); i += 4) {
    if (t[i] < 0 || t[i + 1] < 0 || t[i] > INT32_MAX || t[i + 1] > INT32_MAX)
      return emitOpError("transfer ") << i / 4 << " has an invalid rank";
    // Only a relaying phase (a barrier's chunks) moves 0 bytes.
    if (t[i + 2] < 0 || (t[i + 2] == 0 && !getChunks()))
      return emitOpError("transfer ")
             << i / 4 << " (" << t[i] << " -> " << t[i + 1]
             << ") must move a positive number of bytes";
    if (t[i + 3] < 0 || t[i + 3] > UINT32_MAX)
      return emitOpError("transfer ") << i / 4 << " has an invalid tie mask";
  }
  if (auto rules = getRules()) {
    if (getChunks())
      return emitOpError("of a relaying schedule must list its transfers "
                         "(it has rules)");
    // group, n, then n quadruples per rule, exactly covering the array.
    size_t at = 0;
    for (int64_t r = 0; at < rules->size(); ++r) {
      if (at + 2 > rules->size() || (*rules)[at] < 0 ||
          (*rules)[at] > UINT32_MAX || (*rules)[at + 1] < 0 ||
          (*rules)[at + 1] > static_cast<int64_t>(rules->size()) ||
          at + 2 + 4 * (*rules)[at + 1] > rules->size())
        return emitOpError("rule ")
               << r
               << " must be group, n, then n (src, dst, bytes, ties) "
                  "quadruples";
      for (int64_t i = 0; i < (*rules)[at + 1]; ++i) {
        const int64_t *q = rules->data() + at + 2 + 4 * i;
        if (q[0] < 0 || q[1] < 0 || q[0] > INT32_MAX || q[1] > INT32_MAX ||
            q[2] <= 0 || q[3] < 0 || q[3] > UINT32_MAX)
          return emitOpError("rule ")
                 << r << " transfer " << i
                 << " needs valid ranks, a positive size and a tie mask";
      }
      at += 2 + 4 * (*rules)[at + 1];
    }
  }
  if (auto chunks = getChunks()) {
    // count, reduce, ids... per transfer, exactly covering the array.
    size_t at = 0;
    for (int64_t i = 0; i < getNumTransfers(); ++i) {
      if (at + 2 > chunks->size() || (*chunks)[at] <= 0 ||
          ((*chunks)[at + 1] != 0 && (*chunks)[at + 1] != 1) ||
          at + 2 + (*chunks)[at] > chunks->size())
        return emitOpError("chunks of transfer ")
               << i << " must be count > 0, reduce (0 or 1), then count ids";
      at += 2 + (*chunks)[at];
    }
    if (at != chunks->size())
      return emitOpError("chunks has ")
             << chunks->size() - at << " entries after the last transfer's";
  }
  if (auto locs = getLocs()) {
    if (locs->empty())
      return emitOpError("locs must not be empty");
    if (!llvm::all_of(*locs, [](Attribute a) { return isa<LocationAttr>(a); }))
      return emitOpError("locs must hold locations");
  }
  if (auto index = getLocIndex()) {
    if (!getLocs())
      return emitOpError("loc_index needs locs");
    if (static_cast<int64_t>(index->size()) != getNumTransfers())
      return emitOpError("loc_index has ")
             << index->size() << " entries for " << getNumTransfers()
             << " transfers";
    for (int32_t i : *index)
      if (i < 0 || i >= static_cast<int64_t>(getLocs()->size()))
        return emitOpError("loc_index entry ") << i << " is out of range";
  }
  return success();
}

std::vector<ChunkTransfer> PhaseOp::getChunkTransfers() {
  std::vector<ChunkTransfer> out;
  auto chunks = getChunks();
  if (!chunks)
    return out;
  for (size_t at = 0; at + 2 <= chunks->size();) {
    ChunkTransfer &t = out.emplace_back();
    int64_t count = (*chunks)[at];
    t.reduce = (*chunks)[at + 1] != 0;
    t.ids.assign(chunks->begin() + at + 2, chunks->begin() + at + 2 + count);
    at += 2 + count;
  }
  return out;
}

std::vector<PhaseRule> PhaseOp::getPhaseRules() {
  std::vector<PhaseRule> out;
  auto rules = getRules();
  if (!rules)
    return out;
  for (size_t at = 0; at + 2 <= rules->size();) {
    PhaseRule &rule = out.emplace_back();
    rule.group = static_cast<uint32_t>((*rules)[at]);
    int64_t n = (*rules)[at + 1];
    rule.reps.reserve(n);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t *q = rules->data() + at + 2 + 4 * i;
      rule.reps.push_back({static_cast<RankId>(q[0]), static_cast<RankId>(q[1]),
                           q[2], static_cast<TieMask>(q[3])});
    }
    at += 2 + 4 * n;
  }
  return out;
}

Location PhaseOp::getTransferLoc(int64_t i) {
  auto locs = getLocs();
  // A transfer held by rule has the phase's location.
  if (!locs || i < 0 || i >= getNumTransfers())
    return getLoc();
  int64_t entry = 0;
  if (auto index = getLocIndex())
    entry = (*index)[i];
  return cast<LocationAttr>((*locs)[entry]);
}

#include "phasec/Dialect/Comm/CommInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "phasec/Dialect/Comm/CommOps.cpp.inc"
