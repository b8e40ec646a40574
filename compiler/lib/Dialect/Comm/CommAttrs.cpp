//===- CommAttrs.cpp - comm dialect attributes and enums ------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Verifiers of the topology attributes and their conversion to and from the
/// topology library's TopologyDesc.
///
//===----------------------------------------------------------------------===//

#include "phasec/Dialect/Comm/CommAttrs.h"
#include "phasec/Dialect/Comm/CommDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace phasec;
using namespace phasec::comm;

#define GET_ATTRDEF_CLASSES
#include "phasec/Dialect/Comm/CommAttrs.cpp.inc"

void CommDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "phasec/Dialect/Comm/CommAttrs.cpp.inc"
      >();
}

/// Extents of a grid: at least one dimension, each at least 1. The topology
/// library checks the limits on the whole machine (node count, dimensions).
static LogicalResult verifyExtents(function_ref<InFlightDiagnostic()> emitError,
                                   StringRef kind, ArrayRef<int64_t> dims) {
  if (dims.empty())
    return emitError() << kind << " needs at least one dimension";
  for (auto [i, d] : llvm::enumerate(dims))
    if (d < 1)
      return emitError() << kind << " extent " << d << " of dimension " << i
                         << " must be at least 1";
  return success();
}

LogicalResult TorusAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                ArrayRef<int64_t> dims) {
  return verifyExtents(emitError, "torus", dims);
}

LogicalResult MeshAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> dims) {
  return verifyExtents(emitError, "mesh", dims);
}

LogicalResult
HypercubeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      int64_t dimension) {
  if (dimension < 0 || dimension > kMaxHypercubeDimension)
    return emitError() << "hypercube dimension " << dimension
                       << " must be in [0, " << kMaxHypercubeDimension << "]";
  return success();
}

LogicalResult PercsAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                int64_t supernodes, int64_t drawers,
                                int64_t nodesPerDrawer, int64_t dLinks) {
  if (supernodes < 1 || drawers < 1 || nodesPerDrawer < 1)
    return emitError() << "percs supernodes, drawers and nodes_per_drawer "
                          "must be at least 1";
  if (dLinks < 0)
    return emitError() << "percs d_links must be at least 1 (0: the default)";
  return success();
}

LogicalResult phasec::comm::fillTopologyShape(Attribute topology,
                                              TopologyDesc &desc) {
  return llvm::TypeSwitch<Attribute, LogicalResult>(topology)
      .Case<TorusAttr>([&](TorusAttr a) {
        desc.kind = TopologyKind::Torus;
        desc.dims.assign(a.getDims().begin(), a.getDims().end());
        return success();
      })
      .Case<MeshAttr>([&](MeshAttr a) {
        desc.kind = TopologyKind::Mesh;
        desc.dims.assign(a.getDims().begin(), a.getDims().end());
        return success();
      })
      .Case<HypercubeAttr>([&](HypercubeAttr a) {
        desc.kind = TopologyKind::Hypercube;
        desc.dims.assign(a.getDimension(), 2);
        return success();
      })
      .Case<PercsAttr>([&](PercsAttr a) {
        desc.kind = TopologyKind::Percs;
        desc.dims.clear();
        desc.supernodes = a.getSupernodes();
        desc.drawers = a.getDrawers();
        desc.nodesPerDrawer = a.getNodesPerDrawer();
        desc.dLinks = a.getDLinks();
        return success();
      })
      .Default([](Attribute) { return failure(); });
}

Attribute phasec::comm::getTopologyAttr(MLIRContext *context,
                                        const TopologyDesc &desc) {
  switch (desc.kind) {
  case TopologyKind::Torus:
    return TorusAttr::get(context, desc.dims);
  case TopologyKind::Mesh:
    return MeshAttr::get(context, desc.dims);
  case TopologyKind::Hypercube:
    return HypercubeAttr::get(context, desc.dims.size());
  case TopologyKind::Percs:
    return PercsAttr::get(context, desc.supernodes, desc.drawers,
                          desc.nodesPerDrawer, desc.dLinks);
  }
  llvm_unreachable("unknown topology kind");
}
