//===- CommOps.td - comm dialect operations ----------------*- tablegen -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// Declarations (machine, group, array), one op per communication operation,
// and the scheduling ops (transfer sets, schedules, phases).
//
//===----------------------------------------------------------------------===//

#ifndef PHASEC_DIALECT_COMM_COMMOPS_TD
#define PHASEC_DIALECT_COMM_COMMOPS_TD

include "phasec/Dialect/Comm/CommDialect.td"
include "phasec/Dialect/Comm/CommAttrs.td"
include "phasec/Dialect/Comm/CommInterfaces.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/BuiltinAttributes.td"

class Comm_Op<string mnemonic, list<Trait> traits = []>
    : Op<Comm_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

def Comm_MachineOp : Comm_Op<"machine", [Symbol]> {
  let summary = "A machine: topology, ranks per node, links and routing";
  let description = [{
    ```mlir
    comm.machine @t3d #comm.torus<[8, 4, 8, 2]> {
        bandwidth = 7.5e7 : f64, injection_bandwidth = 7.5e7 : f64}
    ```
    Bandwidths and copy rates are bytes per second, latencies, the set-up
    cost and the barrier cost seconds; `packet_length` and `envelope`
    (bytes every message carries beyond its data) bytes. The costs
    beyond bandwidth are what `CostModel` charges (TopologyDesc.h).
    `packet_header` (bytes beyond a packet's payload, at least 4) and
    `router_buffer` (packets per router buffer and virtual channel) are
    the ns-3 target's packet network; the phase model does not charge
    them.
    PERCS machines give per-class bandwidths (`ll_bandwidth`,
    `lr_bandwidth`, `d_bandwidth`) and use `routing = direct`.
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    Comm_AnyTopologyAttr:$topology,
    DefaultValuedAttr<I64Attr, "1">:$ranks_per_node,
    DefaultValuedAttr<F64Attr, "1.0">:$bandwidth,
    OptionalAttr<F64Attr>:$latency,
    OptionalAttr<F64Attr>:$ll_bandwidth,
    OptionalAttr<F64Attr>:$lr_bandwidth,
    OptionalAttr<F64Attr>:$d_bandwidth,
    OptionalAttr<F64Attr>:$ll_latency,
    OptionalAttr<F64Attr>:$lr_latency,
    OptionalAttr<F64Attr>:$d_latency,
    OptionalAttr<F64Attr>:$injection_bandwidth,
    DefaultValuedAttr<Comm_RoutingAttr,
                      "::phasec::Routing::DimensionOrder">:$routing,
    OptionalAttr<DenseI64ArrayAttr>:$dim_order,
    OptionalAttr<F64Attr>:$setup_cost,
    OptionalAttr<I64Attr>:$packet_length,
    OptionalAttr<I64Attr>:$envelope,
    OptionalAttr<I64Attr>:$packet_header,
    OptionalAttr<I64Attr>:$router_buffer,
    OptionalAttr<F64Attr>:$copy_rate_contiguous,
    OptionalAttr<F64Attr>:$copy_rate_strided,
    OptionalAttr<F64Attr>:$copy_rate_strided_stores,
    OptionalAttr<F64Attr>:$copy_rate_gather,
    OptionalAttr<F64Attr>:$barrier_cost,
    DefaultValuedAttr<Comm_SwitchingAttr,
                      "::phasec::Switching::Wormhole">:$switching,
    DefaultValuedAttr<Comm_SendProtocolAttr,
                      "::phasec::SendProtocol::Nonblocking">:$sends);
  let assemblyFormat = "$sym_name $topology attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The machine as the MLIR-free topology library describes it.
    ::phasec::TopologyDesc getTopologyDesc();
    /// Nodes times ranks per node (0 if the topology is invalid).
    int64_t getNumRanks();
  }];
}

def Comm_GroupOp : Comm_Op<"group",
    [Symbol, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "A named, sorted set of global ranks of a machine";
  let description = [{
    ```mlir
    comm.group @evens on @cluster ranks [0, 2, 4, 6]
    ```
    `nodes` (with `over_nodes`) records the nodes a node group selected.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, FlatSymbolRefAttr:$machine,
                       DenseI64ArrayAttr:$ranks,
                       OptionalAttr<DenseI64ArrayAttr>:$nodes,
                       UnitAttr:$over_nodes);
  let assemblyFormat = "$sym_name `on` $machine `ranks` $ranks attr-dict";
  let hasVerifier = 1;
}

def Comm_ArrayOp : Comm_Op<"array",
    [Symbol, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "A distributed array";
  let description = [{
    ```mlir
    comm.array @a : complex<f64> [4096, 4096] rows over @t3d.all
    ```
    Dimension 0 (`rows`) or 1 (`cols`) is block-distributed over the group;
    the group's size must divide that extent.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttr:$element_type,
                       DenseI64ArrayAttr:$shape,
                       Comm_DistributionAttr:$distribution,
                       FlatSymbolRefAttr:$group);
  let assemblyFormat = [{
    $sym_name `:` $element_type $shape `` $distribution `over` $group attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Bytes of one element (0 for an unsupported type).
    int64_t getElementBytes();
    int64_t getNumElements();
  }];
}

//===----------------------------------------------------------------------===//
// Communication operations
//===----------------------------------------------------------------------===//

/// The arguments every communication operation has: its name, where it runs
/// and the directives.
defvar Comm_CommonArgs = (ins
  SymbolNameAttr:$sym_name,
  FlatSymbolRefAttr:$machine,
  FlatSymbolRefAttr:$group,
  DefaultValuedAttr<Comm_AlgorithmAttr, Comm_DefaultAlgorithm>:$algorithm,
  DefaultValuedAttr<I64Attr, "0">:$k_levels,
  // The parameter of a relaying algorithm (knomial radix, chain or ring
  // segments; k_level(logp, rec, gamma): gamma in percent); 0 = the
  // algorithm's default.
  DefaultValuedAttr<I64Attr, "0">:$algorithm_param,
  DefaultValuedAttr<Comm_KLevelShapeAttr, Comm_DefaultKShape>:$k_shape,
  DefaultValuedAttr<Comm_SyncAttr, Comm_DefaultSync>:$sync,
  DefaultValuedAttr<Comm_StyleAttr, Comm_DefaultStyle>:$style,
  DefaultValuedAttr<I64Attr, "0">:$rlimit,
  DefaultValuedAttr<Comm_AggregateAttr, Comm_DefaultAggregate>:$aggregate,
  // A PAPERS aggregate's value type (what its function takes and returns),
  // where it has one; the data moved may be of another type. value_bits:
  // the bits of it that count; value_logical: a truth value (0 or 1).
  OptionalAttr<TypeAttr>:$value_type,
  OptionalAttr<I64Attr>:$value_bits,
  UnitAttr:$value_logical);

class Comm_CollectiveOp<string mnemonic, string kind, dag extraArgs,
                        string summaryText, list<Trait> familyTraits = []>
    : Comm_Op<mnemonic, !listconcat([Symbol,
        DeclareOpInterfaceMethods<SymbolUserOpInterface>], familyTraits,
        [Comm_CollectiveOpInterface])> {
  let summary = summaryText;
  let extraClassDeclaration = [{
    ::phasec::CollectiveKind getCollectiveKind() {
      return ::phasec::CollectiveKind::}] # kind # [{;
    }
  }];
  let arguments = !con(Comm_CommonArgs, extraArgs);
  let assemblyFormat = "$sym_name `on` $machine `group` $group attr-dict";
  let hasVerifier = 1;
}

// The op families: what each kind's data is (the vocabulary's
// CollectiveFamily). Passes and back ends read a family's interface, not
// the op classes of its kinds.

/// Equal blocks between members (family Blocks).
/// `member_bytes` (allgather, gather, scatter): the v-collectives' block of
/// each member, in group order; `block` is then the largest.
class Comm_BlocksOp<string mnemonic, string kind, string summaryText>
    : Comm_CollectiveOp<mnemonic, kind,
                        (ins I64Attr:$block,
                             OptionalAttr<DenseI64ArrayAttr>:$member_bytes),
                        summaryText, [Comm_BlockOpInterface]> {
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::verify() {
      return ::phasec::comm::detail::verifyFamilyOp(*this);
    }
    ::mlir::LogicalResult
    $cppClass::verifySymbolUses(::mlir::SymbolTableCollection &symbolTable) {
      return ::phasec::comm::detail::verifyFamilySymbolUses(*this,
                                                            symbolTable);
    }
  }];
}

/// Blocks to or from a root member (family Rooted).
class Comm_RootedOp<string mnemonic, string kind, string summaryText>
    : Comm_CollectiveOp<mnemonic, kind,
                        (ins I64Attr:$root, I64Attr:$block,
                             OptionalAttr<DenseI64ArrayAttr>:$member_bytes),
                        summaryText, [Comm_BlockOpInterface]> {
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::verify() {
      return ::phasec::comm::detail::verifyFamilyOp(*this);
    }
    ::mlir::LogicalResult
    $cppClass::verifySymbolUses(::mlir::SymbolTableCollection &symbolTable) {
      return ::phasec::comm::detail::verifyFamilySymbolUses(*this,
                                                            symbolTable);
    }
  }];
  let extraClassDeclaration = [{
    ::phasec::CollectiveKind getCollectiveKind() {
      return ::phasec::CollectiveKind::}] # kind # [{;
    }
    ::std::optional<int64_t> getRootMember() { return getRoot(); }
  }];
}

/// count elements combined with an operator (family Reduction); `rootArg`
/// is (ins I64Attr:$root) for a reduction to one member.
class Comm_ReductionOp<string mnemonic, string kind, string summaryText,
                       dag rootArg = (ins)>
    : Comm_CollectiveOp<mnemonic, kind,
        !con(rootArg, (ins Comm_ReduceKindAttr:$op, TypeAttr:$element_type,
                           I64Attr:$count,
                           OptionalAttr<DenseI64ArrayAttr>:$member_bytes)),
        summaryText, [Comm_ReductionOpInterface]> {
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::verify() {
      return ::phasec::comm::detail::verifyFamilyOp(*this);
    }
    ::mlir::LogicalResult
    $cppClass::verifySymbolUses(::mlir::SymbolTableCollection &symbolTable) {
      return ::phasec::comm::detail::verifyFamilySymbolUses(*this,
                                                            symbolTable);
    }
  }];
}

def Comm_AlltoallOp : Comm_BlocksOp<"alltoall", "Alltoall",
    "Every member sends a block to every other member">;
def Comm_AllgatherOp : Comm_BlocksOp<"allgather", "Allgather",
    "Every member's block reaches every member">;

def Comm_GatherOp : Comm_RootedOp<"gather", "Gather",
    "Every member sends a block to the root">;
def Comm_ScatterOp : Comm_RootedOp<"scatter", "Scatter",
    "The root sends a distinct block to every member">;
def Comm_BroadcastOp : Comm_RootedOp<"broadcast", "Broadcast",
    "The root's block reaches every member">;
def Comm_OneToAllOp : Comm_RootedOp<"one_to_all", "OneToAll",
    "The root sends its block to every member (C^3 one-to-all)">;
def Comm_AllToOneOp : Comm_RootedOp<"all_to_one", "AllToOne",
    "Every member sends its block to the root (C^3 all-to-one)">;

def Comm_ReduceOp : Comm_ReductionOp<"reduce", "Reduce",
    "A reduction of count elements to the root", (ins I64Attr:$root)> {
  let extraClassDeclaration = [{
    ::phasec::CollectiveKind getCollectiveKind() {
      return ::phasec::CollectiveKind::Reduce;
    }
    ::std::optional<int64_t> getRootMember() { return getRoot(); }
  }];
}
def Comm_AllreduceOp : Comm_ReductionOp<"allreduce", "Allreduce",
    "A reduction of count elements to every member">;
def Comm_ScanOp : Comm_ReductionOp<"scan", "Scan",
    "An inclusive prefix reduction in group order">;
def Comm_ReduceScatterOp : Comm_ReductionOp<"reduce_scatter", "ReduceScatter",
    "A reduction whose i-th block of count elements ends at member i">;
def Comm_ExscanOp : Comm_ReductionOp<"exscan", "Exscan",
    "An exclusive prefix reduction in group order (member 0 gets none)">;

// Family Arrays: traffic described by sizes or arrays.
def Comm_AlltoallvOp : Comm_CollectiveOp<"alltoallv", "Alltoallv",
    (ins DenseI64ArrayAttr:$sizes),
    "All-to-all with an n x n row-major byte matrix over the group">;
def Comm_TransposeOp : Comm_CollectiveOp<"transpose", "Transpose",
    (ins FlatSymbolRefAttr:$from, FlatSymbolRefAttr:$to,
         DefaultValuedAttr<Comm_LoopOrderAttr,
                           "::phasec::LoopOrder::ContiguousStores">:$loop_order),
    "Transpose of a 2-D array, each side distributed by rows or by cols; "
    "`loop_order` is seed 001's choice of the transposing copy loop">;
def Comm_PermuteOp : Comm_CollectiveOp<"permute", "Permute",
    (ins Comm_PermuteKindAttr:$pattern,
         DefaultValuedAttr<I64Attr, "0">:$seed,
         DefaultValuedAttr<I64Attr, "0">:$mask,
         DefaultValuedAttr<I64Attr, "0">:$shift,
         OptionalAttr<DenseI64ArrayAttr>:$table,
         OptionalAttr<StrAttr>:$table_file,
         OptionalAttr<I64Attr>:$block,
         OptionalAttr<FlatSymbolRefAttr>:$from,
         OptionalAttr<FlatSymbolRefAttr>:$to),
    "A permutation of the group's blocks (block) or of an array's elements "
    "(from, to)"> {
}

// Family Dataless.
def Comm_BarrierOp : Comm_CollectiveOp<"barrier", "Barrier", (ins),
    "A barrier over the group (moves no data)">;
def Comm_LocalOp : Comm_CollectiveOp<"local", "Local",
    (ins OptionalAttr<StrAttr>:$call),
    "Local computation only (moves no data); `call` names the C function "
    "(void f(void *ctx)) the generated program calls for it">;

//===----------------------------------------------------------------------===//
// Transfer sets and schedules
//===----------------------------------------------------------------------===//

def Comm_TransferSetOp : Comm_Op<"transfer_set",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "What an operation must deliver: (src, dst, bytes) demands";
  let description = [{
    Written by `comm-lower-collectives`. Demands are in the canonical order
    of the scheduling library (sorted by (src, dst), one per pair, no
    self-transfers):
    ```mlir
    comm.transfer_set for @aapc [0 -> 1 : 32768, 0 -> 2 : 32768]
    ```
    stored as a flat `(src, dst, bytes)` array. An all-to-all's set is held
    by its rule instead: `all_pairs` lists the members (sorted, distinct),
    every ordered pair of which demands `pair_bytes`, and the list of
    demands is empty (a 20x20x20 torus's 64 M demands in 8000 numbers):
    ```mlir
    comm.transfer_set for @aapc [] {all_pairs = array<i64: 0, 1, 2>,
                                     pair_bytes = 32768 : i64}
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$collective,
                       DenseI64ArrayAttr:$demands,
                       OptionalAttr<DenseI64ArrayAttr>:$all_pairs,
                       OptionalAttr<I64Attr>:$pair_bytes);
  let assemblyFormat = [{
    `for` $collective custom<Transfers>($demands, "3") attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getNumDemands() {
      if (auto members = getAllPairs())
        return static_cast<int64_t>(members->size()) *
               (static_cast<int64_t>(members->size()) - 1);
      return getDemands().size() / 3;
    }
  }];
}

def Comm_ScheduleOp : Comm_Op<"schedule",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>, NoTerminator,
     SingleBlock, NoRegionArguments]> {
  let summary = "A phase schedule computed for an operation";
  let description = [{
    Written by `comm-schedule-phases`: the phases in order, the algorithm
    that produced them, the proven lower bound (`bound`, seconds, and
    `bound_reason`; `bound_blocks`, the same in uniform blocks;
    `bound_min_phases`, a proven minimum number of phases, and
    `bound_phases_reason`), the schedule time of the cost model (`time`,
    seconds), `gap` = time / bound, and what is proven optimal:
    `time_optimal` (time equals the bound) and `phase_optimal` (no
    congestion-free schedule has fewer phases). Where the machine charges
    more than bandwidth (latency, set-up, barriers: CostModel.h),
    `machine_time` is the schedule's time on the machine as described under
    the operation's `sync`, and `machine_bound` the latency-aware bound.
    ```mlir
    comm.schedule for @a algorithm "product" {bound = 1.0 : f64, ...} {
      comm.phase [0 -> 1 : 4, 1 -> 2 : 4]
    }
    ```
    A translation-invariant schedule (the torus quotient) holds its phases
    by rule (see `comm.phase`); `translations` lists the groups of node
    translations the rules name, each as the nodes whose coordinates are
    the translation vectors.

    A relaying schedule has `num_chunks` and `chunk_bytes`; where the data
    does not divide evenly (a ring over 301 elements on 12 members: the first
    chunks take one element more, as MPI's rings cut), `chunk_bytes` is 0 and
    `chunk_sizes` lists the bytes of every chunk (schedule JSON's
    `chunk_sizes`).
  }];
  let arguments = (ins FlatSymbolRefAttr:$collective, StrAttr:$algorithm,
                       DefaultValuedAttr<F64Attr, "0.0">:$bound,
                       DefaultValuedAttr<F64Attr, "0.0">:$bound_blocks,
                       DefaultValuedAttr<I64Attr, "0">:$bound_min_phases,
                       DefaultValuedAttr<StrAttr, "\"\"">:$bound_reason,
                       DefaultValuedAttr<StrAttr, "\"\"">:$bound_phases_reason,
                       DefaultValuedAttr<F64Attr, "0.0">:$time,
                       DefaultValuedAttr<F64Attr, "0.0">:$gap,
                       UnitAttr:$time_optimal,
                       UnitAttr:$phase_optimal,
                       UnitAttr:$fell_back,
                       OptionalAttr<I64Attr>:$num_chunks,
                       OptionalAttr<I64Attr>:$chunk_bytes,
                       OptionalAttr<DenseI64ArrayAttr>:$chunk_sizes,
                       OptionalAttr<F64Attr>:$machine_time,
                       OptionalAttr<F64Attr>:$machine_bound,
                       OptionalAttr<TypedArrayAttrBase<DenseI64ArrayAttr,
                           "translation groups">>:$translations);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `for` $collective `algorithm` $algorithm attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
}

def Comm_UserScheduleOp : Comm_Op<"user_schedule",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>, NoTerminator,
     SingleBlock, NoRegionArguments]> {
  let summary = "A hand-written schedule from the source program";
  let description = [{
    The phases the program wrote for an operation (`schedule { ... }` in a
    .sched file), unrolled. `comm-verify-schedule` checks it like any
    computed schedule and reports violations at the `send` statements'
    locations (each `comm.phase` carries them in `locs`/`loc_index`).
    `comm-schedule-phases` fills in the bound, `time` and `gap` attributes
    as for `comm.schedule`. A relaying schedule (sends that say which chunks
    they carry) has `num_chunks` and `chunk_bytes`, and its phases `chunks`.
  }];
  let arguments = (ins FlatSymbolRefAttr:$collective,
                       OptionalAttr<F64Attr>:$bound,
                       OptionalAttr<F64Attr>:$bound_blocks,
                       OptionalAttr<I64Attr>:$bound_min_phases,
                       OptionalAttr<StrAttr>:$bound_reason,
                       OptionalAttr<StrAttr>:$bound_phases_reason,
                       OptionalAttr<F64Attr>:$time,
                       OptionalAttr<F64Attr>:$gap,
                       UnitAttr:$time_optimal,
                       UnitAttr:$phase_optimal,
                       OptionalAttr<I64Attr>:$num_chunks,
                       OptionalAttr<I64Attr>:$chunk_bytes,
                       OptionalAttr<F64Attr>:$machine_time,
                       OptionalAttr<F64Attr>:$machine_bound);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "`for` $collective attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def Comm_PhaseOp : Comm_Op<"phase",
    [HasParent<"::phasec::comm::ScheduleOp, ::phasec::comm::UserScheduleOp">]> {
  let summary = "One phase: transfers that run at the same time";
  let description = [{
    Transfers are `(src, dst, bytes, ties)` quadruples; `ties` is the
    TieMask of the route (bit d: travel "-" in dimension d on a tie) and is
    printed only when non-zero:
    ```mlir
    comm.phase [0 -> 2 : 4 ties 1, 1 -> 3 : 4]
    ```
    A relaying schedule's phases carry `chunks`: per transfer, in order,
    `count, reduce (0 or 1), id_1 .. id_count`.
    Hand-written phases may carry source locations of their transfers:
    `locs` holds the distinct locations, `loc_index[i]` the entry of
    transfer i (absent: every transfer has `locs[0]`).
    A direct schedule's phase may also hold transfers by rule: `rules` is,
    per rule, `group, n` and n representative quadruples; the rule's
    transfers are the translates of its representatives by every
    translation of the schedule's `translations[group]` (both nodes moved,
    cores, bytes and ties kept). The phase's transfers are the listed ones
    and those.
  }];
  let arguments = (ins DenseI64ArrayAttr:$transfers,
                       OptionalAttr<DenseI64ArrayAttr>:$chunks,
                       OptionalAttr<ArrayAttr>:$locs,
                       OptionalAttr<DenseI32ArrayAttr>:$loc_index,
                       OptionalAttr<DenseI64ArrayAttr>:$rules);
  let assemblyFormat = "custom<Transfers>($transfers, \"4\") attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getNumTransfers() { return getTransfers().size() / 4; }
    /// The chunks of every transfer (empty if the phase has none).
    std::vector<::phasec::ChunkTransfer> getChunkTransfers();
    /// The rules of the phase (empty if it lists every transfer).
    std::vector<::phasec::PhaseRule> getPhaseRules();
    /// The source location of transfer `i`, or the phase's own.
    ::mlir::Location getTransferLoc(int64_t i);
  }];
}

#endif // PHASEC_DIALECT_COMM_COMMOPS_TD
