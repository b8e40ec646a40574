//===- phasec_ns3_net.h - Lossless credit-flow network on ns-3 -*- C++ -*-===//
//
// Part of phasec. Support code of the ns-3 target: compiled into the
// programs `--emit=ns3` writes, against Debian's ns-3 (3.37).
//
//===----------------------------------------------------------------------===//
//
// The network the seeds' machines had and ns-3 does not: routers with small
// input buffers and link-level, credit-based flow control, so nothing is
// ever dropped and a blocked packet holds its buffer and backs traffic up
// hop by hop (the T3D's wormhole network, seed 000). Stock ns-3 links are
// output-queued and drop (or, with TCP, retransmit), which measures the
// transport, not the network.
//
// What ns-3 provides: the event kernel, the nodes, and one point-to-point
// device pair per directed link (its DataRate serialises every packet, its
// Delay is the link latency; the rate is raised by the device's own 2-byte
// PPP header, so that a full packet takes its bytes over the bandwidth). What
// this file adds on top:
//  - per node a router: an input buffer per (incoming link, virtual
//    channel) holding at most `bufferPackets` packets, FIFO; an output
//    port per outgoing link plus an ejection port into the node;
//  - credits: a sender holds one credit per free slot of the next router's
//    buffer for each virtual channel and sends only with a credit; a slot's
//    credit returns upstream one link latency after its packet leaves;
//  - virtual channels against deadlock on rings: a packet rides VC 0 until
//    it crosses its dimension's dateline (the wraparound link), VC 1 after,
//    and back to VC 0 when it turns into another dimension (or, on direct
//    networks, VC = hop index);
//  - source routes: every packet carries (in a 4-byte header) its slot in
//    the table of packets in flight, which holds its message and hop index;
//    the message holds the links phasec chose (tie directions included),
//    so routing is an array read;
//  - a NIC per node that cuts its messages into packets only when it can
//    inject one (injection bandwidth, credits of the router's injection
//    buffer): memory stays bounded by the buffers, not by the messages;
//  - arbitration: an output port serves the input buffers whose head
//    packet wants it in the order they asked (first come, first served),
//    skipping those without a credit downstream.
//
//===----------------------------------------------------------------------===//

#ifndef PHASEC_NS3_NET_H
#define PHASEC_NS3_NET_H

#include <cstdint>
#include <string>
#include <vector>

namespace phasec_ns3 {

/// A directed link of the machine.
struct LinkSpec {
  int src = 0, dst = 0;
  double bandwidth = 0; ///< bytes per second
  double latency = 0;   ///< seconds
  int dim = -1;         ///< grid dimension, -1 elsewhere
  bool dateline = false;
};

/// One message: `bytes` from `src` to `dst` over `route` (link ids), in
/// `phase` (phased variants) and in each source's order of appearance.
struct MessageSpec {
  int phase = 0;
  int src = 0, dst = 0;
  int64_t bytes = 0;
  std::vector<int> route;
};

/// What is exchanged and how:
///  - phased: a barrier after every phase (the next starts `barrier`
///    seconds after the last byte of this one arrives), a NIC's messages of
///    a phase one after the other;
///  - posted: every message posted at once, as a program that starts all
///    its sends and then waits: the NIC interleaves their packets (one
///    packet of each in turn), seed 000's "no phases";
///  - ordered: every message at once but the NIC sends them one after the
///    other in phase order, no barriers (phasec's code with sync = none);
///  - stepped: phases as steps without a barrier, as MPI libraries'
///    pairwise exchanges run them: a node starts step k + 1 when its step-k
///    messages have arrived at their destinations and every step-k message
///    to it has arrived (a send-receive per step).
enum class Mode { Phased, Posted, Ordered, Stepped };
struct VariantSpec {
  std::string name;
  Mode mode = Mode::Phased;
  std::vector<MessageSpec> messages;
};

struct Scenario {
  int numNodes = 0;
  std::vector<LinkSpec> links;
  double injectionBandwidth = 0; ///< bytes per second, NIC in and out
  int payloadBytes = 32, headerBytes = 8;
  int bufferPackets = 2;
  int virtualChannels = 2;
  /// How a packet picks its virtual channel: by dateline (rings: VC 1 from
  /// the dimension's wraparound link on) or by hop (direct networks such as
  /// PERCS: VC = hop index, so a route only climbs and no cycle closes).
  bool vcByHop = false;
  double barrier = 0;
  /// Seconds the sender spends setting up each message before its first
  /// packet (the machine's setup_cost, C^3's s): its NIC injects nothing
  /// meanwhile. 0: none.
  double setup = 0;
  /// How links are simulated: ns-3 point-to-point devices and channels
  /// (`links p2p`, the default), or `links direct`: the same serialisation
  /// and latency as two events per packet and hop on ns-3's event kernel,
  /// without ns-3 packets, devices or trace sources (about 2x faster; the
  /// tests hold the two to the same times).
  bool directLinks = false;
  /// The bound the schedules are measured against (seconds), 0 if none.
  double bound = 0;
  std::vector<VariantSpec> variants;
};

/// Reads the scenario format (docs/simulator.md, "ns-3"). On failure returns
/// false with `error` naming the line.
bool parseScenario(const std::string &path, Scenario &out, std::string &error);

struct VariantResult {
  std::string name;
  double time = 0; ///< simulated seconds until the last byte arrived
  int64_t bytes = 0, packets = 0, packetHops = 0;
  int64_t dropped = 0;     ///< packets a device refused: always 0
  int64_t overflows = 0;   ///< buffer slots used past their credit: 0
  int64_t undelivered = 0; ///< messages not complete at the end: 0
  int maxBuffered = 0;     ///< most packets ever in one input buffer
};

/// What a traced run records for the report's pictures (seed 000's
/// throughput over routes and over phases, link utilisation over time).
struct Trace {
  /// Per message (the variant's order): when its first packet left the NIC
  /// and its last byte arrived, seconds.
  std::vector<double> messageStart, messageEnd;
  /// Phased variants, per phase that has messages: its first message's
  /// start (after the barrier) and its last byte.
  std::vector<double> phaseStart, phaseEnd;
  /// Seconds each link spends serialising, in bins of `binWidth` seconds:
  /// linkBusy[l][k] for link l over [k * binWidth, (k + 1) * binWidth).
  /// At most 4096 bins a link: a longer run doubles the width.
  double binWidth = 0;
  std::vector<std::vector<float>> linkBusy;
};

/// Simulates one variant on a fresh ns-3 network; with `trace`, records it
/// (bins of a thousandth of the scenario's bound, or of a microsecond, at
/// first).
VariantResult simulate(const Scenario &scenario, const VariantSpec &variant,
                       Trace *trace = nullptr);

/// Writes a traced run's CSVs into `dir` (which exists): NAME.routes.csv
/// (per message: src, dst, phase, bytes, hops, start, end), NAME.phases.csv
/// (phased variants: phase, start, end, bytes, messages) and
/// NAME.links.csv (100 equal slices of the run: mean, p10, median, p90 and
/// max utilisation over the links). False with `error` on failure.
bool writeTrace(const std::string &dir, const Scenario &scenario,
                const VariantSpec &variant, const VariantResult &result,
                const Trace &trace, std::string &error);

} // namespace phasec_ns3

#endif // PHASEC_NS3_NET_H
