//===- CommAttrs.h - comm dialect attributes and enums ----------*- C++ -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Topology attributes and the attributes over phasec's enums
/// (phasec/Core/Vocabulary.h) of the comm dialect, plus the
/// conversions between topology attributes and phasec::TopologyDesc.
///
//===----------------------------------------------------------------------===//
#ifndef PHASEC_DIALECT_COMM_COMMATTRS_H
#define PHASEC_DIALECT_COMM_COMMATTRS_H

#include "phasec/Core/Vocabulary.h"
#include "phasec/Topology/Topology.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"


#define GET_ATTRDEF_CLASSES
#include "phasec/Dialect/Comm/CommAttrs.h.inc"

namespace phasec::comm {

/// Fills the kind and shape fields (kind, dims, PERCS sizes) of `desc` from a
/// topology attribute. Returns failure() for any other attribute.
mlir::LogicalResult fillTopologyShape(mlir::Attribute topology,
                                      TopologyDesc &desc);

/// The topology attribute of a description (the inverse of
/// fillTopologyShape for its fields).
mlir::Attribute getTopologyAttr(mlir::MLIRContext *context,
                                const TopologyDesc &desc);

} // namespace phasec::comm

#endif // PHASEC_DIALECT_COMM_COMMATTRS_H
