//===- CostModel.h - The one definition of schedule time --------*- C++ -*-===//
//
// Part of phasec. MLIR-free: only LLVM ADT/Support.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// How long a schedule takes, and how that compares with what any schedule
/// must take. Every pass, report, IR attribute, JSON writer and simulator
/// comparison asks a `CostModel` (through the `Problem` that owns it), so a
/// schedule has one time wherever it is printed.
///
/// The model is the spec's (`shared/spec/schedule-json.md`): phases run one
/// after another; a phase takes the largest, over the directed links, of the
/// bytes it sends over the link divided by the link's bandwidth and, where an
/// injection bandwidth applies, the largest, over the nodes, of the bytes the
/// node sends or receives off-node divided by that bandwidth. Transfers
/// inside a node cost nothing. That is `time`: the bandwidth time, which the
/// schedule JSON, the shared verifier and the bandwidth bound speak of.
///
/// `machineTime` is the machine as described (TopologyDesc's costs, seed
/// 003's C^3 terms): each phase also pays the set-ups of the messages its
/// busiest sender sends (C^3's s * n_s(i); a blocking send a round trip of
/// set-up and latency per message), its slowest message's hop latencies
/// (wormhole: the head pays them once; store-and-forward: every hop also
/// receives a whole packet, or the whole message if there are no packets),
/// and between two phases the operation's synchronisation: a barrier
/// (`barrierTime`: the machine's `barrier_cost`, or a pairwise-exchange
/// barrier's rounds of set-up plus latency) or, for `sync = none`, nothing.
/// Without barriers a direct schedule's messages are all posted at once:
/// they share the links max-min fairly (a fluid model, as SimGrid's CM02)
/// and the schedule takes as long as its last message; on a machine with
/// packets and finite router buffers its phases drift into each other and
/// it takes longer still (the contention term, ContentionModel.cpp). A
/// relaying schedule
/// without barriers runs as its generated code does (a dataflow model):
/// every rank goes through the phases it takes part in, one after the
/// other; a message starts when its receiver has entered its phase and its
/// sender has entered it and set up its sends up to and including this one
/// (synchronous sends), pays its hop latency, and moves its bytes at its
/// max-min fair share of the links and ports, shared with every message of any
/// phase that is moving at the same time; a rank leaves a phase when its last
/// message there has arrived. Its set-up and latency terms are those on the
/// chain of messages that ended last, its bandwidth term the rest. Past a
/// work budget (schedules of about a million message-hops) it is charged
/// phase after phase instead.
///
/// The copy-transfer model (seed 000, Stricker and Gross): an operation's
/// data also passes through local copies at the machine's copy rate of the
/// operation's access pattern (`setCopy`). Buffer packing does them before
/// and after the transfer: a phase also takes its busiest rank's pack of
/// the bytes it sends plus unpack of the bytes it receives. A chained
/// (fused pack-transfer-unpack) or direct-deposit transfer overlaps them
/// with the transfer: a phase takes the larger of its bandwidth term and
/// its busiest rank's copy of the larger of the bytes it sends and
/// receives. A copy rate the machine does not give costs nothing.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_SCHEDULING_COSTMODEL_H
#define PHASEC_SCHEDULING_COSTMODEL_H

#include "phasec/Core/Vocabulary.h"
#include "phasec/Topology/Topology.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace phasec {

struct Phase;
struct Schedule;
class TranslationOrbits;

/// A schedule's time on the machine as described, term by term (seconds).
struct MachineTime {
  /// The phases' bandwidth terms (`CostModel::time`); without barriers, the
  /// fluid model's time of moving every byte at once.
  double bandwidth = 0;
  /// Message set-ups of the busiest sender, summed over the phases.
  double setup = 0;
  /// Hop latencies (and store-and-forward copies), summed over the phases.
  double latency = 0;
  /// Barriers between phases.
  double sync = 0;
  /// A direct schedule without barriers on a packet network: what its
  /// phases drifting into each other cost beyond the fluid time
  /// (CostModel::contention).
  double contention = 0;
  int64_t barriers = 0;
  /// The synchronisation charged: the model's own (barrier, local or
  /// none); for `sync = auto` the fastest of the three (on a tie barrier,
  /// then none).
  SyncKind chosen = SyncKind::Barrier;
  /// The copy-transfer model's time, summed over the phases: packing, the
  /// busiest rank's pack and unpack; chained and direct deposit, what the
  /// busiest rank's copy takes beyond the phase's bandwidth term.
  double copy = 0;
  /// The style charged: the model's own; for `style = auto` the faster of
  /// packing and chained (packing on a tie).
  TransferStyle style = TransferStyle::Packing;
  /// The copy rate charged (bytes per second; 0: copies are free) and the
  /// access pattern that selected it.
  double copyRate = 0;
  CopyPattern copyPattern = CopyPattern::Contiguous;
  double total() const {
    return bandwidth + setup + latency + sync + contention + copy;
  }
};

/// `schedule` with each rank pair on one route, its ties chosen for the
/// exchange as a whole (nothing where no tie changes): posted at once, the
/// messages share the network, and the routes the phases chose, each
/// spreading its own phase, may pile one exchange's messages onto a link (a
/// direct scan of 16 ranks on a 4 x 4 torus: 12 KiB on one link where 8
/// suffice). The fluid model charges messages posted at once on these
/// routes, and the SimGrid platform of a schedule posted at once routes
/// them so. Deterministic (the pairs' bytes and keys order the moves); never
/// a more loaded link than on the pairs' first transfers' routes; past 2 M
/// transfers, each pair simply on its first transfer's route.
std::optional<Schedule> atOnceRoutes(const Topology &topo,
                                     const Schedule &schedule);

class CostModel {
public:
  /// The machine as described: every link at its bandwidth, every node's
  /// port at the topology's injection bandwidth (0: unlimited).
  explicit CostModel(const Topology &topo);
  /// A one-port machine: where the topology gives no injection bandwidth,
  /// a node injects (and receives) at one link's bandwidth. Grids only: PERCS
  /// links differ, so it is the machine as described there.
  static CostModel onePort(const Topology &topo);

  const Topology &topology() const { return *topo_; }
  /// Bytes per second a node sends, and receives, at once; 0 = unlimited.
  double injectionBandwidth() const { return injection_; }

  /// Accumulates the transfers of one phase; `finish` returns the phase's
  /// time and resets, so one object serves every phase of a schedule. Costs
  /// what the phase touches, not the size of the machine.
  class PhaseCost {
  public:
    explicit PhaseCost(const CostModel &model);
    /// A transfer of `bytes` from node `src` to node `dst` over `route`.
    void add(NodeId src, NodeId dst, llvm::ArrayRef<LinkId> route,
             int64_t bytes);
    /// `bytes` more on link `link`, of `bandwidth`; `bytes` more sent by
    /// node `src` and received by node `dst`. Loads kept by class (a
    /// phase held by rule keeps them by orbit) number their classes as
    /// links and nodes.
    void addLink(uint32_t link, double bandwidth, double bytes);
    void addPorts(uint32_t src, uint32_t dst, double bytes);
    double finish();

  private:
    const CostModel &model_;
    std::vector<double> linkBytes_, linkBandwidth_, sent_, received_;
    std::vector<uint32_t> touchedLinks_, touchedNodes_;
  };

  double phaseTime(const Phase &phase) const;
  /// The time of a phase held by rule over one group of translations, from
  /// its representatives (the scheduling library's Orbits.h says why that
  /// is the time of every translate).
  double rulePhaseTime(const Phase &phase, const TranslationOrbits &orbits,
                       PhaseCost &cost) const;
  /// The schedule time: the sum of the phase times. Transfers that name a
  /// rank outside the machine or carry no bytes are skipped (the verifier
  /// reports them).
  double time(const Schedule &schedule) const;

  /// How the operation separates its phases (the `sync` directive); the
  /// machine time charges it (`auto`: the faster of barrier and none).
  SyncKind sync() const { return sync_; }
  void setSync(SyncKind sync) { sync_ = sync; }
  /// The operation's copies (the copy-transfer model, see the file
  /// comment): their access pattern selects the machine's copy rate, the
  /// style how they meet the transfer (`auto`: the faster of packing and
  /// chained). Until this is called copies are free, as they are for
  /// anything that simulates the network only.
  void setCopy(CopyPattern pattern, TransferStyle style) {
    copyPattern_ = pattern;
    style_ = style;
  }
  std::optional<CopyPattern> copyPattern() const { return copyPattern_; }
  TransferStyle style() const { return style_; }
  /// A transpose's loop order (seed 001), which picks the strided rate:
  /// contiguous loads store strided (`copy_rate.strided_stores`, where the
  /// machine gives it). Never Auto: chooseLoopOrder resolves it.
  void setLoopOrder(LoopOrder order) { loopOrder_ = order; }
  LoopOrder loopOrder() const { return loopOrder_; }
  /// The faster order on `machine`: contiguous loads where it gives both
  /// strided rates and strided stores are the faster, else contiguous
  /// stores (the default: a rate not given costs nothing).
  static LoopOrder chooseLoopOrder(const MachineCosts &machine);
  /// Bytes per second the machine copies with the operation's pattern; 0
  /// where no pattern is set or the machine gives no such rate.
  double copyRate() const;
  /// The busiest rank's copies of `transfers` (anything with src, dst and
  /// bytes; local and empty ones are not copied): buffer packing packs
  /// what a rank sends and unpacks what it receives, one after the other
  /// (`packed`, the largest sum); a chained transfer copies each byte once
  /// as it streams, a rank's outgoing and incoming streams at once
  /// (`streamed`, the largest of the two).
  struct CopyBytes {
    double packed = 0, streamed = 0;
  };
  template <typename Range>
  static CopyBytes busiestCopies(const Range &transfers) {
    llvm::DenseMap<RankId, std::pair<double, double>> bytes;
    for (const auto &x : transfers) {
      if (x.src == x.dst || x.bytes <= 0)
        continue;
      bytes[x.src].first += static_cast<double>(x.bytes);
      bytes[x.dst].second += static_cast<double>(x.bytes);
    }
    CopyBytes out;
    for (const auto &entry : bytes) {
      auto [sent, received] = entry.second;
      out.packed = std::max(out.packed, sent + received);
      out.streamed = std::max(out.streamed, std::max(sent, received));
    }
    return out;
  }

  /// Whether the machine charges anything beyond bandwidth: without
  /// latency, set-up, packets, barrier or copy costs machineTime == time.
  bool chargesBeyondBandwidth() const;

  /// The schedule on the machine as described (see the file comment).
  /// `members` are the ranks that synchronise between phases (the
  /// operation's group); `relaying` says whether later phases forward what
  /// earlier ones delivered (then `sync = none` cannot post all at once).
  MachineTime machineTime(const Schedule &schedule,
                          llvm::ArrayRef<RankId> members,
                          bool relaying) const;
  /// Every phase on its own (bandwidth, set-ups, latency; no barrier): the
  /// per-phase view of machineTime under `sync = barrier`, for reports
  /// that set each phase beside its simulation.
  std::vector<MachineTime> phaseMachineTimes(const Schedule &schedule,
                                             bool relaying) const;
  /// One barrier among `members`: the machine's barrier_cost if given,
  /// else a pairwise-exchange barrier (SimGrid's and MVAPICH2's `pair`):
  /// log2 rounds over the largest power of two m <= n members, in which
  /// member i exchanges an empty message with member i xor 2^k, plus two
  /// rounds between members m + j and j when n is not a power of two; a
  /// round takes its slowest exchange (set-up plus hop latencies).
  double barrierTime(llvm::ArrayRef<RankId> members) const;
  /// The fluid model's time for moving every transfer of `schedule` at
  /// once (max-min fair shares of links and ports, as SimGrid's CM02),
  /// without latency or set-up; every transfer of a rank pair on one route,
  /// the pairs' ties chosen for the exchange (atOnceRoutes).
  double fluidTime(const Schedule &schedule) const;
  /// The same exchange with every message starting after its own latency
  /// (its route's hop latencies, as messageLatency charges them): when the
  /// last message arrives. The near messages move their bytes while the
  /// far ones are still on their way, as in SimGrid's CM02, where a
  /// message takes its latency and then its bytes at its fair share.
  /// Equals fluidTime on a machine without latency.
  double fluidMakespan(const Schedule &schedule) const;

  /// The contention term (ContentionModel.cpp says why it has this form;
  /// docs/contention-fit.md gives the fit): a direct schedule run without
  /// barriers on a machine with packets (`packet_length`) takes `factor`
  /// times the fluid time. 1 without packets (the fluid model's machine,
  /// SimGrid's) and for phases in lockstep (no drift).
  struct Contention {
    /// Mean packets per message, router buffer (packets), mean hops.
    double packets = 0, hops = 0;
    int64_t buffer = 0;
    /// The phases' skews summed: how far senders drift apart.
    double drift = 0;
    double factor = 1;
    static double factorFor(double packets, double buffer, double hops,
                            double drift);
  };
  /// The packet network the term reads: payload and header bytes per
  /// packet, packets per router buffer, seconds per hop.
  struct PacketNetwork {
    int64_t payload = 0, header = 0, buffer = 0;
    double hopLatency = 0;
  };
  /// The machine's (`packet_length`, `packet_header`, `router_buffer`,
  /// `latency`); none where it gives no packet_length.
  std::optional<PacketNetwork> packetNetwork() const;
  /// The term on the machine's packet network (factor 1 without one).
  Contention contention(const Schedule &schedule) const;
  Contention contention(const Schedule &schedule,
                        const PacketNetwork &network) const;

  /// How a simulator runs a schedule's messages (the ns-3 target's modes).
  enum class Execution {
    /// Phase by phase with a barrier between phases.
    Phased,
    /// Step by step, each step once the previous one's data is in, no
    /// barrier (a relaying exchange's steps, MPI's pairwise exchange).
    Stepped,
    /// In phase order without barriers.
    Ordered,
    /// Every message at once.
    Posted,
  };
  /// What this model expects of `schedule` run as `mode` on a packet
  /// network: the bandwidth time with every payload byte carrying
  /// `wireFactor` (its share of the packet header), plus `barrier` seconds
  /// after every phase but the last when phased (stepped: the steps' times,
  /// no barrier); ordered or posted, the fluid model's time. With a set-up
  /// cost, each sender is busy `setup_cost` per message before its first
  /// packet: per phase or step the most messages one node sends, summed;
  /// ordered or posted, the most one node sends in all.
  /// Ordered, and stepped unless `relaying` (later steps forward what
  /// earlier ones delivered, as machineTime's relays without barriers),
  /// the time carries the contention term on `network` (the machine's
  /// where null). Stepped and `relaying` on a packet network: the
  /// dataflow model (each rank's phases as its data arrives), every
  /// message paying its first packet's pipeline there; `bySteps`, a rank
  /// waits per step (relaySteps: the relay's code without sync), not per
  /// phase, and the steps' phases drift into each other (stepContention).
  double executionTime(const Schedule &schedule, Execution mode,
                       double wireFactor, double barrier,
                       const PacketNetwork *network = nullptr,
                       bool relaying = false, bool bySteps = false) const;
  /// One line saying where the machine time goes, e.g. "12.3 us = 5.1 us
  /// bandwidth + 2.0 us set-up + 1.2 us latency + 63 barriers x 0.06 us".
  static std::string describe(const MachineTime &t);

  /// time / bound; 1 where the bound is 0 (nothing to move).
  static double gap(double time, double bound);
  /// True if `time` equals `bound` up to rounding (1e-9 relative).
  static bool meetsBound(double time, double bound);

private:
  CostModel(const Topology &topo, double injection);
  double computeFluidTime(const Schedule &schedule, bool released) const;
  /// The fluid time of `original` and, `withMakespan`, its makespan, from
  /// one rerouting (atOnceRoutes) where the cache has neither.
  struct FluidTimes {
    double fluid = 0, makespan = 0;
  };
  FluidTimes fluidTimes(const Schedule &original, bool withMakespan) const;
  /// Whether some message pays latency (fluidMakespan differs from
  /// fluidTime).
  bool messagesHaveLatency() const;
  struct DataflowTerms {
    double bandwidth = 0, setup = 0, latency = 0;
  };
  /// What a rank waits for before it posts more: its messages of one phase
  /// (`sync = local`), of one step (relaySteps: a relay under `sync =
  /// none`), or nothing (everything posted at once).
  enum class Waits { PerPhase, PerStep, Never };
  /// A schedule without barriers as its ranks run it (DataflowModel.cpp);
  /// none past the model's work budget. Cached.
  std::optional<DataflowTerms> dataflowTime(const Schedule &schedule,
                                            Waits waits) const;
  /// The contention of a relay's steps of several phases (posted at once
  /// without sync), as a fraction of its bandwidth term: 0 off a packet
  /// network (`network`, else the machine's).
  double stepContention(const Schedule &schedule,
                        const PacketNetwork *network = nullptr) const;
  /// With `network`, on a packet network instead of the machine's
  /// latencies: every payload byte carries `wireFactor` on the wire and a
  /// message's latency is its first packet's pipeline (a hop latency a
  /// hop, a packet's serialisation on every hop past the first).
  std::optional<DataflowTerms>
  computeDataflowTime(const Schedule &schedule, Waits waits,
                      const PacketNetwork *network = nullptr,
                      double wireFactor = 1) const;
  struct FluidCache;
  /// One cache per machine for the whole process (CostModel.cpp).
  static std::shared_ptr<FluidCache> machineCache(const Topology &topo,
                                                  double injection);
  /// machineTime under one sync, with the faster style where it is auto.
  MachineTime machineTimeWithSync(SyncKind sync, const Schedule &schedule,
                                  llvm::ArrayRef<RankId> members,
                                  bool relaying) const;
  MachineTime machineTimeWith(SyncKind sync, TransferStyle style,
                              const Schedule &schedule,
                              llvm::ArrayRef<RankId> members,
                              bool relaying) const;
  /// The copy term of `phases` run as one (one phase, or everything posted
  /// at once) whose bandwidth term is `transfer`. Phases held by rule name
  /// groups of `translations` (Schedule::translations).
  double phaseCopy(llvm::ArrayRef<Phase> phases,
                   llvm::ArrayRef<std::vector<NodeId>> translations,
                   TransferStyle style, double transfer) const;
  /// The copy term of a phase whose busiest rank copies `busiest` and
  /// whose bandwidth term is `transfer`.
  double copyTerm(const CopyBytes &busiest, TransferStyle style,
                  double transfer) const;
  /// Set-up, latency and store-and-forward terms of `phases` run as one.
  void addMessageTerms(llvm::ArrayRef<Phase> phases,
                       llvm::ArrayRef<std::vector<NodeId>> translations,
                       MachineTime &t) const;
  const Topology *topo_;
  double injection_;
  SyncKind sync_ = SyncKind::Barrier;
  std::optional<CopyPattern> copyPattern_;
  TransferStyle style_ = TransferStyle::Packing;
  LoopOrder loopOrder_ = LoopOrder::ContiguousStores;
  /// Shared by copies of the model (the same machine and injection).
  std::shared_ptr<FluidCache> fluidCache_;
};

} // namespace phasec

#endif // PHASEC_SCHEDULING_COSTMODEL_H
