//===- Vocabulary.td - phasec's closed sets, declared once -*- tablegen -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// Every closed set of phasec: what the language spells, what the comm
// dialect stores as enum attributes, what the scheduler and the back ends
// switch on. Generated (-gen-enum-decls/-defs) into PhasecCore, a library
// that links LLVM only, so that lang, the dialect, the scheduling library
// and the targets share one C++ enum per set with one spelling table
// (`stringifyX` / `symbolizeX`). The dialect wraps these in EnumAttrs
// (CommAttrs.td); nothing converts between parallel enums.
//
// Adding a case: add it here; the compiler then points at every switch
// that must handle it.
//
//===----------------------------------------------------------------------===//

#ifndef PHASEC_CORE_VOCABULARY_TD
#define PHASEC_CORE_VOCABULARY_TD

include "mlir/IR/EnumAttr.td"

class Phasec_Enum<string name, string summary, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, summary, cases> {
  let cppNamespace = "::phasec";
  // Plain C++ enums here; the dialect defines its attributes over them.
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// Machines
//===----------------------------------------------------------------------===//

// The spelling is the .sched keyword, the `--topology` prefix and the
// schedule JSON's `topology.kind`.
def Phasec_TopologyKind : Phasec_Enum<"TopologyKind", "machine family", [
  I32EnumAttrCase<"Torus", 0, "torus">,
  I32EnumAttrCase<"Mesh", 1, "mesh">,
  I32EnumAttrCase<"Hypercube", 2, "hypercube">,
  I32EnumAttrCase<"Percs", 3, "percs">]>;

def Phasec_Routing : Phasec_Enum<"Routing", "routing of a machine", [
  I32EnumAttrCase<"DimensionOrder", 0, "dimension_order">,
  I32EnumAttrCase<"Direct", 1, "direct">]>;

// How a message crosses the hops of its route (seed 003's C^3 model): a
// worm whose head pays the hop latencies while the body streams behind it,
// or store-and-forward, where every hop receives a whole packet before it
// passes it on.
def Phasec_Switching : Phasec_Enum<"Switching", "switching of a machine", [
  I32EnumAttrCase<"Wormhole", 0, "wormhole">,
  I32EnumAttrCase<"StoreAndForward", 1, "store_and_forward">]>;

// Seed 003's send protocols: a nonblocking send frees the sender once its
// buffer is read out; a blocking one waits until the receiver has the
// message (a round trip of set-up and latency per message).
def Phasec_SendProtocol : Phasec_Enum<"SendProtocol",
    "send protocol of a machine", [
  I32EnumAttrCase<"Nonblocking", 0, "nonblocking">,
  I32EnumAttrCase<"Blocking", 1, "blocking">]>;

//===----------------------------------------------------------------------===//
// Arrays
//===----------------------------------------------------------------------===//

// The .sched spellings; sizes and C types are in Vocabulary.h.
def Phasec_ElementType : Phasec_Enum<"ElementType", "array element type", [
  I32EnumAttrCase<"Int8", 0, "int8">,
  I32EnumAttrCase<"Int16", 1, "int16">,
  I32EnumAttrCase<"Int32", 2, "int32">,
  I32EnumAttrCase<"Int64", 3, "int64">,
  I32EnumAttrCase<"UInt8", 4, "uint8">,
  I32EnumAttrCase<"UInt16", 5, "uint16">,
  I32EnumAttrCase<"UInt32", 6, "uint32">,
  I32EnumAttrCase<"UInt64", 7, "uint64">,
  I32EnumAttrCase<"F32", 8, "f32">,
  I32EnumAttrCase<"F64", 9, "f64">,
  I32EnumAttrCase<"Complex64", 10, "complex64">,
  I32EnumAttrCase<"Complex128", 11, "complex128">]>;

// Block distribution of dimension 0 (rows) or 1 (cols) over a group.
def Phasec_Distribution : Phasec_Enum<"Distribution",
    "block distribution of an array", [
  I32EnumAttrCase<"Rows", 0, "rows">,
  I32EnumAttrCase<"Cols", 1, "cols">]>;

//===----------------------------------------------------------------------===//
// Operations
//===----------------------------------------------------------------------===//

// The .sched keyword of each communication operation; the comm op of the
// same name; the schedule JSON's `collective.kind` (permutes: `permute`).
// The case order is the order the front end lists the operations in.
def Phasec_CollectiveKind : Phasec_Enum<"CollectiveKind",
    "communication operation", [
  I32EnumAttrCase<"Alltoall", 0, "alltoall">,
  I32EnumAttrCase<"Alltoallv", 1, "alltoallv">,
  I32EnumAttrCase<"Transpose", 2, "transpose">,
  I32EnumAttrCase<"Permute", 3, "permute">,
  I32EnumAttrCase<"Gather", 4, "gather">,
  I32EnumAttrCase<"Scatter", 5, "scatter">,
  I32EnumAttrCase<"Allgather", 6, "allgather">,
  I32EnumAttrCase<"Broadcast", 7, "broadcast">,
  I32EnumAttrCase<"Reduce", 8, "reduce">,
  I32EnumAttrCase<"Allreduce", 9, "allreduce">,
  I32EnumAttrCase<"Scan", 10, "scan">,
  // Exclusive prefix reduction: member i ends with members 0..i-1's.
  I32EnumAttrCase<"Exscan", 11, "exscan">,
  // Member i ends with block i of the reduction of every member's data.
  I32EnumAttrCase<"ReduceScatter", 12, "reduce_scatter">,
  I32EnumAttrCase<"OneToAll", 13, "one_to_all">,
  I32EnumAttrCase<"AllToOne", 14, "all_to_one">,
  // A barrier over the group (no data).
  I32EnumAttrCase<"Barrier", 15, "barrier">,
  // Local computation only, e.g. PAPERS population/enumerate.
  I32EnumAttrCase<"Local", 16, "local">]>;

// The PAPERS aggregate (seed 004) an operation was written as; Sema maps
// each onto a CollectiveKind (docs/language.md).
def Phasec_Aggregate : Phasec_Enum<"Aggregate",
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
  I32EnumAttrCase<"Barrier", 10, "barrier">,
  // One value per member (p_gather, p_reduceOP, p_scanOP, p_bcastPut/Get)
  // and the group's lowest member (p_selectFirst, p_selectOne).
  I32EnumAttrCase<"Gather", 11, "gather">,
  I32EnumAttrCase<"Reduce", 12, "reduce">,
  I32EnumAttrCase<"Scan", 13, "scan">,
  I32EnumAttrCase<"Bcast", 14, "bcast">,
  I32EnumAttrCase<"SelectFirst", 15, "select_first">,
  I32EnumAttrCase<"SelectOne", 16, "select_one">]>;

def Phasec_ReduceKind : Phasec_Enum<"ReduceKind", "reduction operator", [
  I32EnumAttrCase<"Add", 0, "add">,
  I32EnumAttrCase<"Mul", 1, "mul">,
  I32EnumAttrCase<"Min", 2, "min">,
  I32EnumAttrCase<"Max", 3, "max">,
  I32EnumAttrCase<"And", 4, "and">,
  I32EnumAttrCase<"Or", 5, "or">,
  I32EnumAttrCase<"Xor", 6, "xor">]>;

def Phasec_PermuteKind : Phasec_Enum<"PermuteKind", "permutation pattern", [
  I32EnumAttrCase<"Random", 0, "random">,
  I32EnumAttrCase<"BitReversal", 1, "bit_reversal">,
  I32EnumAttrCase<"Xor", 2, "xor">,
  I32EnumAttrCase<"Shift", 3, "shift">,
  I32EnumAttrCase<"Table", 4, "table">,
  // Destinations given at run time (an index array); the schedule is the
  // all-to-all of the expected traffic.
  I32EnumAttrCase<"Runtime", 5, "runtime">]>;

//===----------------------------------------------------------------------===//
// Directives
//===----------------------------------------------------------------------===//

// The `algorithm = ...` directive of an operation.
def Phasec_Algorithm : Phasec_Enum<"Algorithm", "algorithm directive", [
  // Let the scheduler choose (the default).
  I32EnumAttrCase<"Auto", 0, "auto">,
  I32EnumAttrCase<"Pairwise", 1, "pairwise">,
  I32EnumAttrCase<"LinearShift", 2, "linear_shift">,
  I32EnumAttrCase<"Xor", 3, "xor">,
  I32EnumAttrCase<"Bruck", 4, "bruck">,
  I32EnumAttrCase<"KLevel", 5, "k_level">,
  I32EnumAttrCase<"Direct", 6, "direct">,
  // The operation's hand-written `schedule { ... }`.
  I32EnumAttrCase<"Schedule", 7, "schedule">,
  // Relaying algorithms (Relay.h says what each does and for which kinds).
  I32EnumAttrCase<"Binomial", 8, "binomial">,
  I32EnumAttrCase<"Binary", 9, "binary">,
  I32EnumAttrCase<"Knomial", 10, "knomial">,
  I32EnumAttrCase<"Chain", 11, "chain">,
  I32EnumAttrCase<"Ring", 12, "ring">,
  I32EnumAttrCase<"RecursiveDoubling", 13, "recursive_doubling">,
  I32EnumAttrCase<"RecursiveHalving", 14, "recursive_halving">,
  I32EnumAttrCase<"Rabenseifner", 15, "rabenseifner">,
  I32EnumAttrCase<"ScatterAllgather", 16, "scatter_allgather">,
  I32EnumAttrCase<"ReduceBroadcast", 17, "reduce_broadcast">,
  I32EnumAttrCase<"Dissemination", 18, "dissemination">,
  I32EnumAttrCase<"DimensionWise", 19, "dimension_wise">,
  I32EnumAttrCase<"DoubleChain", 20, "double_chain">,
  I32EnumAttrCase<"ScatterRdbAllgather", 21, "scatter_rdb_allgather">,
  // A PAPERS reduction, scan, any, all or bcast as seed 004's gather and
  // local evaluation: an allgather of the members' values (direct traffic),
  // evaluated by every member.
  I32EnumAttrCase<"GatherEvaluate", 22, "gather_evaluate">,
  // Members as a logical grid of rows of c (grid(c)): direct exchanges
  // within the rows, then within the columns (SimGrid's 2dmesh).
  I32EnumAttrCase<"Grid", 23, "grid">,
  // A broadcast as a binomial scatter, then Bruck's allgather: ceil(log2 n)
  // rounds on any member count (scatter_rdb_allgather's on powers of two).
  I32EnumAttrCase<"ScatterBruckAllgather", 24, "scatter_bruck_allgather">]>;

// Submachine shape of a C^3 k-level algorithm (seed 003): none (1-lev-dir),
// rectangles/rows (2-lev-rec, logp-lev-rec(gamma)), squares (3-lev-sq,
// logp-lev-sq; the all-to-all 2-lev-sq), rows then columns (the all-to-all
// 2-lev-r,c), butterfly (the all-to-all logp-lev-bfly); and seed 003's two
// 1-level broadcasting one-to-all algorithms, which broadcast the whole
// message and let every rank keep its block: the system's broadcast
// (1-lev-sys-br; phasec is the system, so the fastest of its broadcast
// trees) and a binomial tree (1-lev-our-br).
def Phasec_KLevelShape : Phasec_Enum<"KLevelShape",
    "submachine shape of a k-level algorithm", [
  I32EnumAttrCase<"None", 0, "none">,
  I32EnumAttrCase<"Rec", 1, "rec">,
  I32EnumAttrCase<"Sq", 2, "sq">,
  I32EnumAttrCase<"Rc", 3, "rc">,
  I32EnumAttrCase<"Bfly", 4, "bfly">,
  I32EnumAttrCase<"SysBr", 5, "sys_br">,
  I32EnumAttrCase<"OurBr", 6, "our_br">]>;

// `local`: no barrier; a rank starts phase k + 1 once its own phase-k
// messages are done (its receives are in and its sends have left).
// `auto`: the scheduler picks the kind its cost model says is fastest for
// the schedule it chose (CostModel::machineTime); the back ends only ever
// see the concrete kinds.
def Phasec_SyncKind : Phasec_Enum<"SyncKind", "phase synchronisation", [
  I32EnumAttrCase<"Barrier", 0, "barrier">,
  I32EnumAttrCase<"None", 1, "none">,
  I32EnumAttrCase<"Auto", 2, "auto">,
  I32EnumAttrCase<"Local", 3, "local">]>;

// `auto`: the scheduler picks packing or chained, whichever the
// copy-transfer model (CostModel::machineTime) says is faster for the
// schedule it chose; like `sync = auto`, the back ends only ever see the
// concrete styles.
def Phasec_TransferStyle : Phasec_Enum<"TransferStyle",
    "transfer style for arrays", [
  I32EnumAttrCase<"Packing", 0, "packing">,
  I32EnumAttrCase<"Chained", 1, "chained">,
  I32EnumAttrCase<"DirectDeposit", 2, "direct_deposit">,
  I32EnumAttrCase<"Auto", 3, "auto">]>;

// The transposing copy loop of a transpose (seed 001): contiguous stores
// (strided loads, the default on machines that cache loads) or contiguous
// loads (strided stores, preferred on the T3D's Alpha, whose write-back
// queue absorbs them). `auto`: the copy-transfer model picks the faster
// rate (`copy_rate.strided` against `copy_rate.strided_stores`); the back
// ends only see the concrete orders.
def Phasec_LoopOrder : Phasec_Enum<"LoopOrder", "transpose loop order", [
  I32EnumAttrCase<"ContiguousStores", 0, "contiguous_stores">,
  I32EnumAttrCase<"ContiguousLoads", 1, "contiguous_loads">,
  I32EnumAttrCase<"Auto", 2, "auto">]>;

// How an operation's copies access memory, which selects the machine's
// copy rate in the copy-transfer model (docs/machine-model.md): whole
// blocks (contiguous), the columns of a transpose (strided), the elements
// of an element-level permute (gather/scatter). The spelling is the
// `copy_rate.X` property's.
def Phasec_CopyPattern : Phasec_Enum<"CopyPattern", "memory access of copies", [
  I32EnumAttrCase<"Contiguous", 0, "contiguous">,
  I32EnumAttrCase<"Strided", 1, "strided">,
  I32EnumAttrCase<"Gather", 2, "gather">]>;

//===----------------------------------------------------------------------===//
// Scheduling
//===----------------------------------------------------------------------===//

// What `--algorithm` and the `comm-schedule-phases` option name: the
// scheduler's constructions, its search, and the baselines it compares
// against.
def Phasec_SchedulerAlgorithm : Phasec_Enum<"SchedulerAlgorithm",
    "phase scheduling algorithm", [
  I32EnumAttrCase<"Auto", 0, "auto">,
  I32EnumAttrCase<"Product", 1, "product">,
  I32EnumAttrCase<"Percs", 2, "percs">,
  I32EnumAttrCase<"TorusQuotient", 3, "torus-quotient">,
  I32EnumAttrCase<"MeshQuotient", 4, "mesh-quotient">,
  I32EnumAttrCase<"GreedyPriority", 5, "greedy-priority">,
  I32EnumAttrCase<"Z3Exact", 6, "z3-exact">,
  I32EnumAttrCase<"LinearShift", 7, "linear_shift">,
  I32EnumAttrCase<"Xor", 8, "xor">,
  I32EnumAttrCase<"Greedy", 9, "greedy">]>;

// What Problem::verify found wrong (ScheduleViolation::kind); the spelling is
// the one the verifier's reports and tests use.
def Phasec_ViolationKind : Phasec_Enum<"ViolationKind",
    "kind of schedule violation", [
  // A transfer with a rank out of range or bytes <= 0.
  I32EnumAttrCase<"BadTransfer", 0, "bad-transfer">,
  // A transfer whose ties ask for a direction where there is no tie.
  I32EnumAttrCase<"BadRoute", 1, "bad-route">,
  // A pair receives fewer bytes than demanded.
  I32EnumAttrCase<"Incomplete", 2, "incomplete">,
  // A demanded pair receives more bytes than demanded (delivered twice).
  I32EnumAttrCase<"Duplicate", 3, "duplicate">,
  // A transfer between a pair that demands nothing.
  I32EnumAttrCase<"Unrequested", 4, "unrequested">,
  // Two source ranks share a directed link in one phase.
  I32EnumAttrCase<"Congestion", 5, "congestion">,
  // The recorded lower bound exceeds the schedule time, or its minimum
  // number of phases exceeds the schedule's.
  I32EnumAttrCase<"Bound", 6, "bound">,
  // Relaying schedules (the chunk replay, Chunks.h):
  // a transfer without chunks, with chunk ids out of range, or whose bytes
  // are not its chunks' bytes.
  I32EnumAttrCase<"BadChunks", 7, "bad-chunks">,
  // A rank sends a chunk it does not hold when the phase starts.
  I32EnumAttrCase<"ChunkNotHeld", 8, "chunk-not-held">,
  // A reduce into a rank that does not hold the chunk.
  I32EnumAttrCase<"ReduceWithoutChunk", 9, "reduce-without-chunk">,
  // A reduce joins two tags that share a member: a contribution counted
  // twice.
  I32EnumAttrCase<"CountedTwice", 10, "counted-twice">,
  // Two copies of one chunk into one rank in one phase with different tags.
  I32EnumAttrCase<"ConflictingCopies", 11, "conflicting-copies">,
  // A rank ends without a chunk the collective promises it.
  I32EnumAttrCase<"MissingChunk", 12, "missing-chunk">,
  // A rank ends with a chunk of the wrong contributions (a partial
  // reduction, or extra members).
  I32EnumAttrCase<"WrongContributions", 13, "wrong-contributions">]>;

// What a greedy-priority run orders its pending transfers by: a key, largest
// first, recomputed as links and ports drain (Greedy.cpp). Only the ones
// that produce the chosen schedule somewhere are here (docs/architecture.md,
// "One list of algorithms"); the spelling names the run in report notes.
def Phasec_GreedyPriority : Phasec_Enum<"GreedyPriority",
    "greedy scheduling priority", [
  // The most loaded remaining link of the route (seconds): the bottleneck
  // links stay busy in every phase, which is what the link-load bound asks.
  I32EnumAttrCase<"MostLoadedLink", 0, "most-loaded-link">,
  // The sum of the remaining loads of the route's links: long routes over
  // busy links first.
  I32EnumAttrCase<"RouteLoad", 1, "route-load">,
  // The most loaded link, longer routes first among near-equals (large
  // uniform sets, where only one or two runs are affordable).
  I32EnumAttrCase<"MostLoadedLinkThenLongest", 2,
                  "most-loaded-link-then-longest">,
  // Larger transfers first, then the most loaded link: phases of similar
  // sizes, which waste less of a phase set by its first transfer (large
  // skewed sets).
  I32EnumAttrCase<"LargestFirst", 3, "largest-first">,
  // The busier of the most loaded link and the two injection ports (source
  // sending, destination receiving) still to serve: one-port machines.
  I32EnumAttrCase<"BusiestLinkOrPort", 4, "busiest-link-or-port">]>;

// A Z3 query's verdict (Z3Solver.h).
def Phasec_SolveStatus : Phasec_Enum<"SolveStatus", "solver verdict", [
  I32EnumAttrCase<"Sat", 0, "sat">,
  I32EnumAttrCase<"Unsat", 1, "unsat">,
  I32EnumAttrCase<"Unknown", 2, "unknown">]>;

//===----------------------------------------------------------------------===//
// Simulation
//===----------------------------------------------------------------------===//

// How one simulated variant ended (SimGrid/Runner.h); the spelling is the
// table's and the report's.
def Phasec_SimulationStatus : Phasec_Enum<"SimulationStatus",
    "outcome of a simulated variant", [
  I32EnumAttrCase<"Ok", 0, "ok">,
  I32EnumAttrCase<"Skipped", 1, "skipped">,
  I32EnumAttrCase<"TimedOut", 2, "timeout">,
  I32EnumAttrCase<"Failed", 3, "failed">]>;

#endif // PHASEC_CORE_VOCABULARY_TD
