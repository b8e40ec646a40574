//===- ImportMesh.cpp - comm-import-mesh ----------------------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Upstream MLIR's mesh dialect is what sharding compilers produce after
/// spmdization: `mesh.mesh @m(shape = 4x4)` and collectives on tensors
/// (`mesh.all_to_all %t on @m mesh_axes = [0, 1] split_axis = 0 ...`).
/// This pass turns each collective into the comm operation that moves the
/// same bytes between the same devices, so that the scheduling pipeline
/// phases it and the back ends emit a C function for it:
///
///  - device d of a mesh (row-major linear index) is rank d of its
///    comm.machine, which the mesh names (attribute `comm.machine`) or the
///    pass builds from its `machine` option (a topology spec);
///  - `mesh_axes` split the devices into groups (devices equal on the other
///    axes); within a group, the in-group index is the multi-index along
///    `mesh_axes` in the order listed. comm groups are sorted rank sets, so
///    where member order matters (which piece goes where) the axes must be
///    listed in increasing order, which makes the two orders agree;
///  - a collective over one group becomes that comm op on it; an all_to_all
///    over several groups at once becomes one alltoallv over the mesh whose
///    matrix is zero between groups (one congestion-free schedule for all
///    groups together), and a shift a permutation table over the mesh;
///  - the tensor pieces a collective moves must be contiguous in row-major
///    order (every dimension before the split / concat / gather / scatter
///    axis is 1), since the generated functions move byte blocks.
///
/// Everything else is an error at the op, never a quiet approximation.
///
//===----------------------------------------------------------------------===//

#include "phasec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Mesh/IR/MeshOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>
#include <numeric>
#include <vector>

namespace phasec::comm {
#define GEN_PASS_DEF_COMMIMPORTMESH
#include "phasec/Transforms/Passes.h.inc"
} // namespace phasec::comm

using namespace mlir;
using namespace phasec;
using namespace phasec::comm;

namespace {

/// A mesh with its machine.
struct MeshInfo {
  mesh::MeshOp op;
  MachineOp machine;
  SmallVector<int64_t> shape;
  int64_t numDevices = 0;
};

/// The devices of one collective: groups of ranks (each sorted, so in rank
/// order) and every device's group.
struct Grouping {
  SmallVector<SmallVector<int64_t>> groups;
  SmallVector<int64_t> groupOf;
  /// The axes in increasing order: in-group index order = rank order.
  bool ascending = true;
};

struct ImportMeshPass
    : public phasec::comm::impl::CommImportMeshBase<ImportMeshPass> {
  using Base::Base;
  void runOnOperation() override;

private:
  FailureOr<MeshInfo *> getMesh(Operation *op, FlatSymbolRefAttr meshName);
  LogicalResult lower(Operation *op);

  ModuleOp module;
  std::optional<SymbolTable> symbols;
  llvm::DenseMap<Operation *, MeshInfo> meshes;
  std::optional<TopologyDesc> optionMachine;
  /// Names already given per function, for `<func>_<op>_<k>`.
  llvm::StringMap<unsigned> counters;
  /// The comm.group made for each (mesh, rank set).
  std::map<std::pair<Operation *, std::vector<int64_t>>, GroupOp> groups;
};

/// Row-major multi-index of device `d` in `shape`.
SmallVector<int64_t> multiIndex(int64_t d, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> index(shape.size());
  for (int64_t axis = static_cast<int64_t>(shape.size()) - 1; axis >= 0;
       --axis) {
    index[axis] = d % shape[axis];
    d /= shape[axis];
  }
  return index;
}

int64_t linearIndex(ArrayRef<int64_t> index, ArrayRef<int64_t> shape) {
  int64_t d = 0;
  for (size_t axis = 0; axis < shape.size(); ++axis)
    d = d * shape[axis] + index[axis];
  return d;
}

Grouping groupDevices(const MeshInfo &mesh, ArrayRef<mesh::MeshAxis> axes) {
  Grouping g;
  llvm::SmallDenseSet<int64_t> inAxes;
  for (size_t i = 0; i < axes.size(); ++i) {
    inAxes.insert(axes[i]);
    if (i > 0 && axes[i] <= axes[i - 1])
      g.ascending = false;
  }
  // Key: the linear index over the axes not in `axes`.
  llvm::DenseMap<int64_t, int64_t> groupOfKey;
  g.groupOf.resize(mesh.numDevices);
  for (int64_t d = 0; d < mesh.numDevices; ++d) {
    SmallVector<int64_t> index = multiIndex(d, mesh.shape);
    int64_t key = 0;
    for (size_t axis = 0; axis < mesh.shape.size(); ++axis)
      if (!inAxes.contains(axis))
        key = key * mesh.shape[axis] + index[axis];
    auto [it, inserted] =
        groupOfKey.try_emplace(key, static_cast<int64_t>(g.groups.size()));
    if (inserted)
      g.groups.emplace_back();
    g.groups[it->second].push_back(d);
    g.groupOf[d] = it->second;
  }
  return g;
}

/// Bytes of a static tensor type, or failure after an error at `op`.
FailureOr<int64_t> tensorBytes(Operation *op, Type type, StringRef what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return op->emitError() << "the " << what << " " << type
                           << " has a dynamic shape; phasec moves byte counts "
                              "known at compile time";
  Type elem = tensor.getElementType();
  int64_t bits = 0;
  if (auto complex = dyn_cast<ComplexType>(elem))
    elem = complex.getElementType(), bits = 2;
  else
    bits = 1;
  if (!elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() % 8 != 0)
    return op->emitError() << "the " << what << "'s element type "
                           << tensor.getElementType()
                           << " is not a whole number of bytes";
  return tensor.getNumElements() * bits * (elem.getIntOrFloatBitWidth() / 8);
}

/// The pieces along `axis` of `type` are contiguous in row-major order.
LogicalResult checkContiguous(Operation *op, Type type, int64_t axis,
                              StringRef axisName) {
  auto tensor = cast<RankedTensorType>(type);
  for (int64_t d = 0; d < axis; ++d)
    if (tensor.getDimSize(d) != 1)
      return op->emitError()
             << axisName << " = " << axis << " of " << type
             << " cuts pieces that are not contiguous in row-major order "
                "(dimension "
             << d << " has size " << tensor.getDimSize(d)
             << "); phasec's functions move contiguous blocks: make the "
                "axis the outermost one";
  return success();
}

FailureOr<ReduceKind> reduceKind(Operation *op, mesh::ReductionKind kind) {
  switch (kind) {
  case mesh::ReductionKind::Sum:
    return ReduceKind::Add;
  case mesh::ReductionKind::Product:
    return ReduceKind::Mul;
  case mesh::ReductionKind::Min:
    return ReduceKind::Min;
  case mesh::ReductionKind::Max:
    return ReduceKind::Max;
  case mesh::ReductionKind::BitwiseAnd:
    return ReduceKind::And;
  case mesh::ReductionKind::BitwiseOr:
    return ReduceKind::Or;
  case mesh::ReductionKind::BitwiseXor:
    return ReduceKind::Xor;
  case mesh::ReductionKind::Average:
  case mesh::ReductionKind::Generic:
    break;
  }
  return op->emitError() << "reduction <" << mesh::stringifyReductionKind(kind)
                         << "> has no comm counterpart (add, mul, min, max, "
                            "and, or, xor)";
}

/// The element type of a reduction: input and result must agree (phasec
/// reduces in one type).
FailureOr<Type> reductionElementType(Operation *op, Type input, Type result) {
  Type in = cast<ShapedType>(input).getElementType();
  Type out = cast<ShapedType>(result).getElementType();
  if (in != out)
    return op->emitError() << "accumulates " << in << " in " << out
                           << "; phasec reduces in the input's element type "
                              "(convert before the collective)";
  if (!getElementTypeKind(in))
    return op->emitError() << "element type " << in
                           << " is not one phasec reduces (8..64-bit "
                              "integers, f32, f64)";
  return in;
}

/// A C identifier from a function name.
std::string sanitize(StringRef name) {
  std::string s;
  for (char c : name)
    s.push_back(llvm::isAlnum(c) ? c : '_');
  if (s.empty() || llvm::isDigit(s[0]))
    s.insert(s.begin(), '_');
  return s;
}

} // namespace

FailureOr<MeshInfo *> ImportMeshPass::getMesh(Operation *op,
                                              FlatSymbolRefAttr meshName) {
  auto meshOp = symbols->lookup<mesh::MeshOp>(meshName.getValue());
  if (!meshOp)
    return op->emitError() << "no mesh.mesh named " << meshName;
  auto it = meshes.find(meshOp);
  if (it != meshes.end())
    return &it->second;

  MeshInfo info;
  info.op = meshOp;
  info.shape.assign(meshOp.getShape().begin(), meshOp.getShape().end());
  info.numDevices = 1;
  for (int64_t extent : info.shape) {
    if (ShapedType::isDynamic(extent))
      return meshOp.emitError()
             << "mesh " << meshName
             << " has a dynamic shape; phasec schedules for a known number "
                "of devices";
    info.numDevices *= extent;
  }
  if (auto named = meshOp->getAttrOfType<FlatSymbolRefAttr>(kMeshMachineAttr)) {
    info.machine = symbols->lookup<MachineOp>(named.getValue());
    if (!info.machine)
      return meshOp.emitError()
             << "'" << kMeshMachineAttr << "' names " << named
             << ", which is not a comm.machine of this module";
  } else if (meshOp->hasAttr(kMeshMachineAttr)) {
    return meshOp.emitError()
           << "'" << kMeshMachineAttr << "' must name a comm.machine (@name)";
  } else if (optionMachine) {
    OpBuilder builder(meshOp);
    builder.setInsertionPointAfter(meshOp);
    info.machine = createMachineOp(builder, meshOp.getLoc(),
                                   (meshName.getValue() + "_machine").str(),
                                   *optionMachine);
    symbols->insert(info.machine); // renames on a clash
  } else {
    return meshOp.emitError()
           << "mesh " << meshName << " names no machine: give it a '"
           << kMeshMachineAttr
           << "' attribute or run comm-import-mesh with machine=SPEC "
              "(phasec: --topology=SPEC)";
  }
  int64_t ranks = info.machine.getNumRanks();
  if (ranks != info.numDevices)
    return meshOp.emitError()
           << "mesh " << meshName << " has " << info.numDevices
           << " devices but machine @" << info.machine.getSymName() << " has "
           << ranks << " ranks";
  return &meshes.try_emplace(meshOp, std::move(info)).first->second;
}

LogicalResult ImportMeshPass::lower(Operation *op) {
  auto meshName = op->getAttrOfType<FlatSymbolRefAttr>("mesh");
  auto axesAttr = op->getAttrOfType<DenseI16ArrayAttr>("mesh_axes");
  ArrayRef<mesh::MeshAxis> axes;
  if (axesAttr)
    axes = axesAttr.asArrayRef();
  if (isa<mesh::SendOp, mesh::RecvOp>(op))
    return op->emitError() << "point-to-point '" << op->getName()
                           << "' is not a collective; phasec schedules "
                              "collectives";
  // A collective over no axis is within one device: nothing moves.
  if (axes.empty())
    return success();
  FailureOr<MeshInfo *> meshOr = getMesh(op, meshName);
  if (failed(meshOr))
    return failure();
  MeshInfo &mesh = **meshOr;
  Grouping grouping = groupDevices(mesh, axes);
  const int64_t n = static_cast<int64_t>(grouping.groups.front().size());
  // Axes of extent 1 only: groups of one device, nothing moves.
  if (n == 1)
    return success();
  const int64_t numGroups = static_cast<int64_t>(grouping.groups.size());
  MLIRContext *context = op->getContext();
  Builder b(context);

  auto needAscending = [&]() -> LogicalResult {
    if (grouping.ascending)
      return success();
    return op->emitError()
           << "mesh_axes " << axesAttr
           << " are not in increasing order; phasec's groups are in rank "
              "order, so list the axes in increasing order";
  };
  auto needOneGroup = [&]() -> LogicalResult {
    if (numGroups == 1)
      return success();
    return op->emitError()
           << "mesh_axes " << axesAttr << " split the " << mesh.numDevices
           << " devices into " << numGroups
           << " groups; phasec lowers this collective over the whole mesh "
              "only (all_to_all and shift take groups)";
  };
  // The in-group root's rank in group 0 (static roots only).
  auto rootRank = [&](ArrayRef<int64_t> root,
                      OperandRange dynamic) -> FailureOr<int64_t> {
    if (!dynamic.empty())
      return op->emitError() << "the root is dynamic; phasec needs it at "
                                "compile time";
    if (root.size() != axes.size())
      return op->emitError() << "the root has " << root.size()
                             << " coordinates for " << axes.size() << " axes";
    SmallVector<int64_t> index(mesh.shape.size(), 0);
    for (size_t i = 0; i < axes.size(); ++i)
      index[axes[i]] = root[i];
    return linearIndex(index, mesh.shape);
  };

  // The comm op's attributes: name, machine, group, then its own.
  StringRef funcName = "mesh";
  if (auto func = op->getParentOfType<func::FuncOp>())
    funcName = func.getSymName();
  std::string base = sanitize(funcName) + "_" +
                     op->getName().stripDialect().str() + "_" +
                     std::to_string(counters[funcName]++);
  OpBuilder builder(context);
  builder.setInsertionPointToEnd(module.getBody());
  Location loc = op->getLoc();

  // One group per rank set of a mesh: `<mesh>_all` for every device,
  // `<mesh>_group_<k>` for the others.
  auto makeGroup = [&](ArrayRef<int64_t> ranks) {
    auto key = std::make_pair(mesh.op.getOperation(),
                              std::vector<int64_t>(ranks.begin(), ranks.end()));
    auto it = groups.find(key);
    if (it != groups.end())
      return it->second;
    std::string name = mesh.op.getSymName().str() +
                       (static_cast<int64_t>(ranks.size()) == mesh.numDevices
                            ? std::string("_all")
                            : "_group_" + std::to_string(groups.size()));
    auto group = builder.create<GroupOp>(
        loc, b.getStringAttr(name),
        FlatSymbolRefAttr::get(mesh.machine.getSymNameAttr()),
        b.getDenseI64ArrayAttr(ranks), DenseI64ArrayAttr(), UnitAttr());
    symbols->insert(group); // renames on a clash
    groups.emplace(std::move(key), group);
    return group;
  };
  SmallVector<int64_t> allRanks(mesh.numDevices);
  std::iota(allRanks.begin(), allRanks.end(), 0);

  auto create = [&](StringRef opName, GroupOp group,
                    ArrayRef<NamedAttribute> extra) -> LogicalResult {
    SmallVector<NamedAttribute> attrs = {
        b.getNamedAttr("sym_name", b.getStringAttr(base)),
        b.getNamedAttr("machine",
                       FlatSymbolRefAttr::get(mesh.machine.getSymNameAttr())),
        b.getNamedAttr("group",
                       FlatSymbolRefAttr::get(group.getSymNameAttr()))};
    attrs.append(extra.begin(), extra.end());
    OperationState state(loc, opName);
    state.addAttributes(attrs);
    Operation *created = builder.create(state);
    symbols->insert(created);
    op->setAttr(kLoweredToAttr,
                FlatSymbolRefAttr::get(SymbolTable::getSymbolName(created)));
    return success();
  };
  auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  // A gather or scatter: one `block` tensor per member, the whole `pieced`
  // tensor (cut along `axis`) at the root.
  auto rootedBlocks = [&](StringRef opName, Type block, Type pieced,
                          int64_t axis, StringRef axisName,
                          ArrayRef<int64_t> root,
                          OperandRange dynamic) -> LogicalResult {
    FailureOr<int64_t> bytes = tensorBytes(op, block, "block");
    if (failed(bytes) || failed(tensorBytes(op, pieced, "whole tensor")) ||
        failed(needOneGroup()) || failed(needAscending()) ||
        failed(checkContiguous(op, pieced, axis, axisName)))
      return failure();
    FailureOr<int64_t> rank = rootRank(root, dynamic);
    if (failed(rank))
      return failure();
    return create(opName, makeGroup(grouping.groups.front()),
                  {b.getNamedAttr("root", i64(*rank)),
                   b.getNamedAttr("block", i64(*bytes))});
  };
  // op, element_type and count of a reduction of `input` into `result`.
  auto reduction = [&](mesh::ReductionKind meshKind, Type input,
                       Type result) -> FailureOr<SmallVector<NamedAttribute>> {
    FailureOr<ReduceKind> kind = reduceKind(op, meshKind);
    FailureOr<Type> elem = reductionElementType(op, input, result);
    if (failed(kind) || failed(elem))
      return failure();
    int64_t count = cast<ShapedType>(result).getNumElements();
    return SmallVector<NamedAttribute>{
        b.getNamedAttr("op", ReduceKindAttr::get(context, *kind)),
        b.getNamedAttr("element_type", TypeAttr::get(*elem)),
        b.getNamedAttr("count", i64(count))};
  };

  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](mesh::AllToAllOp a) -> LogicalResult {
        FailureOr<int64_t> bytes =
            tensorBytes(op, a.getInput().getType(), "input");
        if (failed(bytes) || failed(tensorBytes(op, a.getType(), "result")) ||
            failed(needAscending()) ||
            failed(checkContiguous(op, a.getInput().getType(),
                                   a.getSplitAxis().getSExtValue(),
                                   "split_axis")) ||
            failed(checkContiguous(op, a.getType(),
                                   a.getConcatAxis().getSExtValue(),
                                   "concat_axis")))
          return failure();
        int64_t block = *bytes / n;
        if (numGroups == 1)
          return create("comm.alltoall", makeGroup(grouping.groups.front()),
                        {b.getNamedAttr("block", i64(block))});
        // Every group at once: one exchange over the mesh, zero between
        // groups, so that one schedule phases them all together.
        SmallVector<int64_t> sizes(mesh.numDevices * mesh.numDevices, 0);
        for (int64_t i = 0; i < mesh.numDevices; ++i)
          for (int64_t j = 0; j < mesh.numDevices; ++j)
            if (grouping.groupOf[i] == grouping.groupOf[j])
              sizes[i * mesh.numDevices + j] = block;
        return create("comm.alltoallv", makeGroup(allRanks),
                      {b.getNamedAttr("sizes", b.getDenseI64ArrayAttr(sizes))});
      })
      .Case([&](mesh::AllGatherOp a) -> LogicalResult {
        FailureOr<int64_t> bytes =
            tensorBytes(op, a.getInput().getType(), "input");
        if (failed(bytes) || failed(tensorBytes(op, a.getType(), "result")) ||
            failed(needOneGroup()) || failed(needAscending()) ||
            failed(checkContiguous(op, a.getType(),
                                   a.getGatherAxis().getSExtValue(),
                                   "gather_axis")))
          return failure();
        return create("comm.allgather", makeGroup(grouping.groups.front()),
                      {b.getNamedAttr("block", i64(*bytes))});
      })
      .Case([&](mesh::AllReduceOp a) -> LogicalResult {
        if (failed(tensorBytes(op, a.getInput().getType(), "input")) ||
            failed(needOneGroup()))
          return failure();
        FailureOr<SmallVector<NamedAttribute>> attrs =
            reduction(a.getReduction(), a.getInput().getType(), a.getType());
        if (failed(attrs))
          return failure();
        return create("comm.allreduce", makeGroup(grouping.groups.front()),
                      *attrs);
      })
      .Case([&](mesh::ReduceScatterOp a) -> LogicalResult {
        if (failed(tensorBytes(op, a.getInput().getType(), "input")) ||
            failed(tensorBytes(op, a.getType(), "result")) ||
            failed(needOneGroup()) || failed(needAscending()) ||
            failed(checkContiguous(op, a.getInput().getType(),
                                   a.getScatterAxis().getSExtValue(),
                                   "scatter_axis")))
          return failure();
        FailureOr<SmallVector<NamedAttribute>> attrs =
            reduction(a.getReduction(), a.getInput().getType(), a.getType());
        if (failed(attrs))
          return failure();
        return create("comm.reduce_scatter", makeGroup(grouping.groups.front()),
                      *attrs);
      })
      .Case([&](mesh::BroadcastOp a) -> LogicalResult {
        FailureOr<int64_t> bytes =
            tensorBytes(op, a.getInput().getType(), "input");
        if (failed(bytes) || failed(needOneGroup()))
          return failure();
        FailureOr<int64_t> root = rootRank(a.getRoot(), a.getRootDynamic());
        if (failed(root))
          return failure();
        return create("comm.broadcast", makeGroup(grouping.groups.front()),
                      {b.getNamedAttr("root", i64(*root)),
                       b.getNamedAttr("block", i64(*bytes))});
      })
      .Case([&](mesh::GatherOp a) -> LogicalResult {
        return rootedBlocks("comm.gather", a.getInput().getType(), a.getType(),
                            a.getGatherAxis().getSExtValue(), "gather_axis",
                            a.getRoot(), a.getRootDynamic());
      })
      .Case([&](mesh::ScatterOp a) -> LogicalResult {
        return rootedBlocks("comm.scatter", a.getType(), a.getInput().getType(),
                            a.getScatterAxis().getSExtValue(), "scatter_axis",
                            a.getRoot(), a.getRootDynamic());
      })
      .Case([&](mesh::ReduceOp a) -> LogicalResult {
        if (failed(tensorBytes(op, a.getInput().getType(), "input")) ||
            failed(needOneGroup()))
          return failure();
        FailureOr<SmallVector<NamedAttribute>> attrs =
            reduction(a.getReduction(), a.getInput().getType(), a.getType());
        FailureOr<int64_t> root = rootRank(a.getRoot(), a.getRootDynamic());
        if (failed(attrs) || failed(root))
          return failure();
        attrs->push_back(b.getNamedAttr("root", i64(*root)));
        return create("comm.reduce", makeGroup(grouping.groups.front()),
                      *attrs);
      })
      .Case([&](mesh::ShiftOp a) -> LogicalResult {
        FailureOr<int64_t> bytes =
            tensorBytes(op, a.getInput().getType(), "input");
        if (failed(bytes))
          return failure();
        if (!a.getRotate())
          return op->emitError()
                 << "a shift without 'rotate' leaves devices without a "
                    "source; phasec lowers rotations (a permutation) only";
        int64_t axis = a.getShiftAxis().getSExtValue();
        if (!llvm::is_contained(axes, axis))
          return op->emitError() << "shift_axis " << axis
                                 << " is not one of mesh_axes " << axesAttr;
        // Device d's block goes to the device `offset` further along the
        // axis (rotating); every other coordinate stays.
        int64_t extent = mesh.shape[axis];
        int64_t offset = ((a.getOffset() % extent) + extent) % extent;
        SmallVector<int64_t> table(mesh.numDevices);
        for (int64_t d = 0; d < mesh.numDevices; ++d) {
          SmallVector<int64_t> index = multiIndex(d, mesh.shape);
          index[axis] = (index[axis] + offset) % extent;
          table[d] = linearIndex(index, mesh.shape);
        }
        return create(
            "comm.permute", makeGroup(allRanks),
            {b.getNamedAttr("pattern",
                            PermuteKindAttr::get(context, PermuteKind::Table)),
             b.getNamedAttr("table", b.getDenseI64ArrayAttr(table)),
             b.getNamedAttr("block", i64(*bytes))});
      })
      .Default([](Operation *op) -> LogicalResult {
        llvm_unreachable("runOnOperation collects the collectives above");
      });
}

void ImportMeshPass::runOnOperation() {
  module = getOperation();
  symbols.emplace(module);
  meshes.clear();
  counters.clear();
  groups.clear();
  optionMachine.reset();
  if (!machine.empty()) {
    std::string error;
    FailureOr<TopologyDesc> desc = TopologyDesc::parse(machine, error);
    if (failed(desc)) {
      emitError(module.getLoc())
          << "comm-import-mesh: machine '" << machine << "': " << error;
      return signalPassFailure();
    }
    optionMachine = *desc;
  }
  bool failedAny = false;
  SmallVector<Operation *> collectives;
  module.walk([&](Operation *op) {
    if (isa<mesh::AllToAllOp, mesh::AllGatherOp, mesh::AllReduceOp,
            mesh::ReduceScatterOp, mesh::BroadcastOp, mesh::GatherOp,
            mesh::ScatterOp, mesh::ReduceOp, mesh::ShiftOp, mesh::SendOp,
            mesh::RecvOp>(op))
      collectives.push_back(op);
  });
  for (Operation *op : collectives)
    failedAny |= failed(lower(op));
  if (failedAny)
    signalPassFailure();
}

std::unique_ptr<Pass> phasec::comm::createImportMeshPass() {
  return std::make_unique<ImportMeshPass>();
}

std::unique_ptr<Pass>
phasec::comm::createImportMeshPass(const CommImportMeshOptions &options) {
  return std::make_unique<ImportMeshPass>(options);
}
