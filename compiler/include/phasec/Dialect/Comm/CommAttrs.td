//===- CommAttrs.td - comm dialect attributes and enums ----*- tablegen -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// Topology attributes (one per machine family) and the closed sets of the
// language's directives as enum attributes.
//
//===----------------------------------------------------------------------===//

#ifndef PHASEC_DIALECT_COMM_COMMATTRS_TD
#define PHASEC_DIALECT_COMM_COMMATTRS_TD

include "phasec/Dialect/Comm/CommDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "phasec/Core/Vocabulary.td"

//===----------------------------------------------------------------------===//
// Topologies
//===----------------------------------------------------------------------===//

class Comm_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Comm_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Comm_TorusAttr : Comm_Attr<"Torus", "torus"> {
  let summary = "A torus (every dimension wraps around)";
  let description = [{
    `#comm.torus<[8, 4, 8, 2]>`: extents per dimension, dimension 0 varying
    fastest in the node numbering.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t", "extents">:$dims);
  let assemblyFormat = "`<` `[` $dims `]` `>`";
  let genVerifyDecl = 1;
}

def Comm_MeshAttr : Comm_Attr<"Mesh", "mesh"> {
  let summary = "A mesh (no wrap-around links)";
  let description = [{ `#comm.mesh<[16, 16]>`: extents per dimension. }];
  let parameters = (ins ArrayRefParameter<"int64_t", "extents">:$dims);
  let assemblyFormat = "`<` `[` $dims `]` `>`";
  let genVerifyDecl = 1;
}

def Comm_HypercubeAttr : Comm_Attr<"Hypercube", "hypercube"> {
  let summary = "A binary hypercube of 2^dimension nodes";
  let description = [{ `#comm.hypercube<6>`: 64 nodes. }];
  let parameters = (ins "int64_t":$dimension);
  let assemblyFormat = "`<` $dimension `>`";
  let genVerifyDecl = 1;
}

def Comm_PercsAttr : Comm_Attr<"Percs", "percs"> {
  let summary = "IBM PERCS: supernodes of drawers of nodes";
  let description = [{
    `#comm.percs<supernodes = 1, drawers = 4, nodes_per_drawer = 8>`;
    `d_links = N` (D links between two supernodes) where the machine gives
    it, else the default of TopologyDesc::dLinksPerPair.
  }];
  let parameters = (ins "int64_t":$supernodes, "int64_t":$drawers,
                        "int64_t":$nodes_per_drawer,
                        DefaultValuedParameter<"int64_t", "0">:$d_links);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Comm_AnyTopologyAttr
    : AnyAttrOf<[Comm_TorusAttr, Comm_MeshAttr, Comm_HypercubeAttr,
                 Comm_PercsAttr]>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

// The enums are phasec's vocabulary (phasec/Core/Vocabulary.td); the
// dialect only wraps them, so the IR, the front end, the scheduler and the
// back ends share one C++ enum per set.
class Comm_EnumAttr<EnumAttrInfo info, string name>
    : EnumAttr<Comm_Dialect, info, name> {
  // The attribute classes live in the dialect, the enums in phasec.
  let cppNamespace = "::phasec::comm";
  let assemblyFormat = "`<` $value `>`";
}

def Comm_RoutingAttr : Comm_EnumAttr<Phasec_Routing, "routing">;
def Comm_SwitchingAttr : Comm_EnumAttr<Phasec_Switching, "switching">;
def Comm_SendProtocolAttr : Comm_EnumAttr<Phasec_SendProtocol, "sends">;
// Written bare inside comm.array (`[8, 8] rows over @g`).
def Comm_DistributionAttr
    : Comm_EnumAttr<Phasec_Distribution, "distribution"> {
  let assemblyFormat = "$value";
}
def Comm_AlgorithmAttr : Comm_EnumAttr<Phasec_Algorithm, "algorithm">;
def Comm_KLevelShapeAttr : Comm_EnumAttr<Phasec_KLevelShape, "k_shape">;
def Comm_SyncAttr : Comm_EnumAttr<Phasec_SyncKind, "sync">;
def Comm_StyleAttr : Comm_EnumAttr<Phasec_TransferStyle, "style">;
def Comm_LoopOrderAttr : Comm_EnumAttr<Phasec_LoopOrder, "loop_order">;
def Comm_ReduceKindAttr : Comm_EnumAttr<Phasec_ReduceKind, "reduce">;
def Comm_PermuteKindAttr : Comm_EnumAttr<Phasec_PermuteKind, "pattern">;
def Comm_AggregateAttr : Comm_EnumAttr<Phasec_Aggregate, "aggregate">;

#endif // PHASEC_DIALECT_COMM_COMMATTRS_TD
