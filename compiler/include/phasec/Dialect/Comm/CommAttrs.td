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
    `#comm.percs<supernodes = 1, drawers = 4, nodes_per_drawer = 8>`.
  }];
  let parameters = (ins "int64_t":$supernodes, "int64_t":$drawers,
                        "int64_t":$nodes_per_drawer);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Comm_AnyTopologyAttr
    : AnyAttrOf<[Comm_TorusAttr, Comm_MeshAttr, Comm_HypercubeAttr,
                 Comm_PercsAttr]>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

class Comm_I32Enum<string name, string summary, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, summary, cases> {
  let cppNamespace = "::phasec::comm";
  let genSpecializedAttr = 0;
}

class Comm_EnumAttr<EnumAttrInfo info, string name>
    : EnumAttr<Comm_Dialect, info, name> {
  let assemblyFormat = "`<` $value `>`";
}

def Comm_Routing : Comm_I32Enum<"Routing", "routing of a machine", [
  I32EnumAttrCase<"DimensionOrder", 0, "dimension_order">,
  I32EnumAttrCase<"Direct", 1, "direct">]>;
def Comm_RoutingAttr : Comm_EnumAttr<Comm_Routing, "routing">;

def Comm_Distribution : Comm_I32Enum<"Distribution",
    "block distribution of an array", [
  I32EnumAttrCase<"Rows", 0, "rows">,
  I32EnumAttrCase<"Cols", 1, "cols">]>;
// Written bare inside comm.array (`[8, 8] rows over @g`).
def Comm_DistributionAttr
    : EnumAttr<Comm_Dialect, Comm_Distribution, "distribution"> {
  let assemblyFormat = "$value";
}

def Comm_Algorithm : Comm_I32Enum<"Algorithm", "algorithm directive", [
  I32EnumAttrCase<"Auto", 0, "auto">,
  I32EnumAttrCase<"Pairwise", 1, "pairwise">,
  I32EnumAttrCase<"LinearShift", 2, "linear_shift">,
  I32EnumAttrCase<"Xor", 3, "xor">,
  I32EnumAttrCase<"Bruck", 4, "bruck">,
  I32EnumAttrCase<"KLevel", 5, "k_level">,
  I32EnumAttrCase<"Direct", 6, "direct">,
  I32EnumAttrCase<"Schedule", 7, "schedule">]>;
def Comm_AlgorithmAttr : Comm_EnumAttr<Comm_Algorithm, "algorithm">;

def Comm_KLevelShape : Comm_I32Enum<"KLevelShape",
    "submachine shape of a k-level algorithm", [
  I32EnumAttrCase<"None", 0, "none">,
  I32EnumAttrCase<"Rec", 1, "rec">,
  I32EnumAttrCase<"Sq", 2, "sq">]>;
def Comm_KLevelShapeAttr : Comm_EnumAttr<Comm_KLevelShape, "k_shape">;

def Comm_Sync : Comm_I32Enum<"Sync", "phase synchronisation", [
  I32EnumAttrCase<"Barrier", 0, "barrier">,
  I32EnumAttrCase<"None", 1, "none">]>;
def Comm_SyncAttr : Comm_EnumAttr<Comm_Sync, "sync">;

def Comm_Style : Comm_I32Enum<"Style", "transfer style for arrays", [
  I32EnumAttrCase<"Packing", 0, "packing">,
  I32EnumAttrCase<"Chained", 1, "chained">,
  I32EnumAttrCase<"DirectDeposit", 2, "direct_deposit">]>;
def Comm_StyleAttr : Comm_EnumAttr<Comm_Style, "style">;

def Comm_ReduceKind : Comm_I32Enum<"ReduceKind", "reduction operator", [
  I32EnumAttrCase<"Add", 0, "add">,
  I32EnumAttrCase<"Mul", 1, "mul">,
  I32EnumAttrCase<"Min", 2, "min">,
  I32EnumAttrCase<"Max", 3, "max">,
  I32EnumAttrCase<"And", 4, "and">,
  I32EnumAttrCase<"Or", 5, "or">,
  I32EnumAttrCase<"Xor", 6, "xor">]>;
def Comm_ReduceKindAttr : Comm_EnumAttr<Comm_ReduceKind, "reduce">;

def Comm_PermuteKind : Comm_I32Enum<"PermuteKind", "permutation pattern", [
  I32EnumAttrCase<"Random", 0, "random">,
  I32EnumAttrCase<"BitReversal", 1, "bit_reversal">,
  I32EnumAttrCase<"Xor", 2, "xor">,
  I32EnumAttrCase<"Shift", 3, "shift">,
  I32EnumAttrCase<"Table", 4, "table">]>;
def Comm_PermuteKindAttr : Comm_EnumAttr<Comm_PermuteKind, "pattern">;

def Comm_Aggregate : Comm_I32Enum<"Aggregate",
    "the PAPERS aggregate an operation was written as", [
  I32EnumAttrCase<"None", 0, "none">,
  I32EnumAttrCase<"Putget", 1, "putget">,
  I32EnumAttrCase<"Waitvec", 2, "waitvec">,
  I32EnumAttrCase<"Vote", 3, "vote">,
  I32EnumAttrCase<"Match", 4, "match">,
  I32EnumAttrCase<"Rank", 5, "rank">,
  I32EnumAttrCase<"Population", 6, "population">,
  I32EnumAttrCase<"Enumerate", 7, "enumerate">,
  I32EnumAttrCase<"Any", 8, "any">,
  I32EnumAttrCase<"All", 9, "all">,
  I32EnumAttrCase<"Barrier", 10, "barrier">]>;
def Comm_AggregateAttr : Comm_EnumAttr<Comm_Aggregate, "aggregate">;

#endif // PHASEC_DIALECT_COMM_COMMATTRS_TD
