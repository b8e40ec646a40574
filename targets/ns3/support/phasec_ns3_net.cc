//===- phasec_ns3_net.cc - A lossless credit-flow network on ns-3 ---------===//
//
// Part of phasec. See phasec_ns3_net.h.
//
//===----------------------------------------------------------------------===//

#include "phasec_ns3_net.h"

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <algorithm>
#include <deque>
#include <fstream>
#include <map>
#include <sstream>

using namespace ns3;

namespace phasec_ns3 {

//===----------------------------------------------------------------------===//
// The packet header: the packet's slot in the network's table of packets in
// flight (message, hop index, virtual channel, payload bytes). Routers read
// the slot, never rewrite the packet: a hop costs no header work.
//===----------------------------------------------------------------------===//

class RouteHeader : public Header {
public:
  uint32_t flight = 0;

  static TypeId GetTypeId() {
    static TypeId tid = TypeId("phasec_ns3::RouteHeader")
                            .SetParent<Header>()
                            .AddConstructor<RouteHeader>();
    return tid;
  }
  TypeId GetInstanceTypeId() const override { return GetTypeId(); }
  uint32_t GetSerializedSize() const override { return 4; }
  void Serialize(Buffer::Iterator i) const override { i.WriteU32(flight); }
  uint32_t Deserialize(Buffer::Iterator i) override {
    flight = i.ReadU32();
    return 4;
  }
  void Print(std::ostream &os) const override { os << "flight " << flight; }
};

//===----------------------------------------------------------------------===//
// Scenario file
//===----------------------------------------------------------------------===//

bool parseScenario(const std::string &path, Scenario &out, std::string &error) {
  std::ifstream in(path);
  if (!in) {
    error = path + ": cannot open";
    return false;
  }
  std::string line;
  int lineNo = 0;
  auto fail = [&](const std::string &what) {
    error = path + ":" + std::to_string(lineNo) + ": " + what;
    return false;
  };
  VariantSpec *variant = nullptr;
  bool sawMagic = false, sawEnd = false;
  while (std::getline(in, line)) {
    ++lineNo;
    if (line.empty() || line[0] == '#')
      continue;
    std::istringstream ls(line);
    std::string key;
    ls >> key;
    if (!sawMagic) {
      int version = 0;
      if (key != "phasec-ns3-scenario" || !(ls >> version) || version != 1)
        return fail("expected 'phasec-ns3-scenario 1'");
      sawMagic = true;
      continue;
    }
    if (sawEnd)
      return fail("text after 'end'");
    bool ok = true;
    if (key == "nodes") {
      ok = bool(ls >> out.numNodes) && out.numNodes > 0;
    } else if (key == "link") {
      LinkSpec l;
      int id = 0, dateline = 0;
      ok = bool(ls >> id >> l.src >> l.dst >> l.bandwidth >> l.latency >>
                l.dim >> dateline) &&
           id == static_cast<int>(out.links.size()) && l.src >= 0 &&
           l.src < out.numNodes && l.dst >= 0 && l.dst < out.numNodes &&
           l.src != l.dst && l.bandwidth > 0 && l.latency >= 0;
      l.dateline = dateline != 0;
      if (ok)
        out.links.push_back(l);
    } else if (key == "nic") {
      ok = bool(ls >> out.injectionBandwidth) && out.injectionBandwidth > 0;
    } else if (key == "packet") {
      ok = bool(ls >> out.payloadBytes >> out.headerBytes) &&
           out.payloadBytes > 0 && out.payloadBytes <= 65535 &&
           out.headerBytes >= 4 && out.payloadBytes + out.headerBytes <= 65000;
    } else if (key == "buffer") {
      ok = bool(ls >> out.bufferPackets) && out.bufferPackets > 0;
    } else if (key == "vcs") {
      ok = bool(ls >> out.virtualChannels) && out.virtualChannels >= 1 &&
           out.virtualChannels <= 8;
    } else if (key == "links") {
      std::string kind;
      ok = bool(ls >> kind) && (kind == "p2p" || kind == "direct");
      out.directLinks = kind == "direct";
    } else if (key == "vcpolicy") {
      std::string policy;
      ok = bool(ls >> policy) && (policy == "dateline" || policy == "hop");
      out.vcByHop = policy == "hop";
    } else if (key == "barrier") {
      ok = bool(ls >> out.barrier) && out.barrier >= 0;
    } else if (key == "setup") {
      ok = bool(ls >> out.setup) && out.setup >= 0 && out.setup < 1;
    } else if (key == "bound") {
      ok = bool(ls >> out.bound) && out.bound >= 0;
    } else if (key == "variant") {
      VariantSpec v;
      std::string mode;
      ok = bool(ls >> v.name >> mode) &&
           (mode == "phased" || mode == "posted" || mode == "ordered" ||
            mode == "stepped");
      v.mode = mode == "phased"    ? Mode::Phased
               : mode == "posted"  ? Mode::Posted
               : mode == "ordered" ? Mode::Ordered
                                   : Mode::Stepped;
      if (ok) {
        out.variants.push_back(std::move(v));
        variant = &out.variants.back();
      }
    } else if (key == "msg") {
      if (!variant)
        return fail("'msg' before any 'variant'");
      MessageSpec m;
      ok = bool(ls >> m.phase >> m.src >> m.dst >> m.bytes) && m.phase >= 0 &&
           m.src >= 0 && m.src < out.numNodes && m.dst >= 0 &&
           m.dst < out.numNodes && m.src != m.dst && m.bytes > 0;
      int l;
      while (ok && ls >> l) {
        if (l < 0 || l >= static_cast<int>(out.links.size()))
          return fail("unknown link " + std::to_string(l));
        m.route.push_back(l);
      }
      if (!ok)
        return fail("bad message");
      // The route must lead from src to dst, link after link.
      int at = m.src;
      for (int l2 : m.route) {
        if (out.links[l2].src != at)
          return fail("route does not continue at node " + std::to_string(at));
        at = out.links[l2].dst;
      }
      if (at != m.dst)
        return fail("route does not end at the destination");
      variant->messages.push_back(std::move(m));
      continue;
    } else if (key == "end") {
      sawEnd = true;
      continue;
    } else {
      return fail("unknown keyword '" + key + "'");
    }
    if (!ok)
      return fail("bad '" + key + "' line");
  }
  if (!sawMagic)
    return fail("empty scenario");
  if (!sawEnd)
    return fail("missing 'end' (truncated file?)");
  if (out.injectionBandwidth <= 0)
    return fail("no 'nic' line");
  if (out.vcByHop)
    for (const VariantSpec &v : out.variants)
      for (const MessageSpec &m : v.messages)
        if (static_cast<int>(m.route.size()) > out.virtualChannels)
          return fail("vcpolicy hop needs a virtual channel per hop: a route "
                      "of " +
                      std::to_string(m.route.size()) + " links in variant '" +
                      v.name + "', " + std::to_string(out.virtualChannels) +
                      " channels");
  return true;
}

//===----------------------------------------------------------------------===//
// The simulation
//===----------------------------------------------------------------------===//

namespace {

class Network {
public:
  Network(const Scenario &sc, const VariantSpec &var, Trace *trace)
      : sc(sc), var(var), trace(trace) {}
  VariantResult run();

private:
  const Scenario &sc;
  const VariantSpec &var;
  /// Null unless traced.
  Trace *trace;
  /// The trace's bin width in ns-3 time steps.
  int64_t binSteps = 1;
  void addBusy(int link, const Time &duration);
  int L = 0, V = 1, N = 0;
  NodeContainer nodes;
  std::vector<Ptr<PointToPointNetDevice>> tx; // per link, at its source
  /// A packet in flight: the ns-3 packet (the receiving device's copy, which
  /// it hands over) and where it is on its route.
  struct Flight {
    Ptr<Packet> packet;
    uint32_t message = 0;
    uint16_t hop = 0;
    uint8_t vc = 0;
    uint16_t bytes = 0;
  };
  std::vector<Flight> flights;
  std::vector<uint32_t> freeFlights;
  /// Input buffers (of flight slots): link l, vc v at l * V + v; node n's
  /// injection at L * V + n.
  std::vector<std::deque<uint32_t>> input;
  /// Output ports: link l at l, node n's ejection at L + n.
  std::vector<bool> busy;
  /// waiting[o * V + v]: the inputs whose head packet wants output o on
  /// virtual channel v, with the order they asked in (a credit is per
  /// channel, so the first of each channel's queue is all an output has to
  /// look at).
  std::vector<std::deque<std::pair<uint64_t, int>>> waiting;
  uint64_t asked = 0;
  /// credit[l * V + v]: free slots of link l's downstream buffer v.
  std::vector<int> credit;
  std::vector<int> injectionCredit;
  // NICs.
  std::vector<std::deque<int>> sendQueue;
  /// Bytes of each message the NIC has cut into packets.
  std::vector<int64_t> sent;
  std::vector<bool> nicBusy;
  /// Messages whose set-up is done (scenarios with a set-up cost).
  std::vector<bool> setUp;
  Time setupTime;
  void setupDone(int n);
  // Messages.
  std::vector<int64_t> received;
  std::vector<std::vector<int>> phases;
  size_t phase = 0;
  int64_t outstanding = 0;
  // Stepped: S steps; node n's messages of step k in stepSends[n * S + k];
  // what of it is left to send (delivered) and to receive.
  int S = 0;
  std::vector<std::vector<int>> stepSends;
  std::vector<int> sendLeft, recvLeft, nodeStep;
  void advance(int n);
  VariantResult result;
  Time lastArrival;

  /// Times in ns-3's integer units, converted from seconds once: a Time
  /// from a double goes through long double arithmetic (a sixth of the
  /// run when every packet did it).
  std::vector<Time> linkLatency, linkFullPacket;
  Time nicFullPacket;
  /// Serialisation of a packet carrying `payload` bytes at `bandwidth`.
  Time serialise(int64_t payload, double bandwidth, const Time &full) const {
    if (payload == sc.payloadBytes)
      return full;
    return Seconds((payload + sc.headerBytes) / bandwidth);
  }

  int injectionInput(int n) const { return L * V + n; }
  int ejection(int n) const { return L + n; }
  const Flight &head(int in) const { return flights[input[in].front()]; }
  const MessageSpec &message(uint32_t m) const { return var.messages[m]; }
  /// The output the head of input `in` wants, and its next VC.
  int wanted(int in, int &nextVc) const {
    const Flight &h = head(in);
    const MessageSpec &m = message(h.message);
    if (h.hop == m.route.size()) {
      nextVc = 0;
      return ejection(m.dst);
    }
    const LinkSpec &next = sc.links[m.route[h.hop]];
    if (sc.vcByHop) {
      nextVc = std::min<int>(h.hop, V - 1);
      return m.route[h.hop];
    }
    // Dateline VCs: VC 1 from the dateline link on, back to 0 on a turn.
    int vc = h.hop == 0 ? 0 : h.vc;
    if (h.hop > 0 && sc.links[m.route[h.hop - 1]].dim != next.dim)
      vc = 0;
    if (next.dateline && V > 1)
      vc = 1;
    nextVc = vc;
    return m.route[h.hop];
  }

  void build();
  void nicSend(int n);
  void arrive(int in, uint32_t f);
  // Event handlers (member functions: ns-3 binds them without the heap
  // allocation a lambda's std::function costs).
  void injected(int n, uint32_t f);
  void creditReturned(int in, int l);
  void linkFree(int o);
  void linkArrival(int o, uint32_t f);
  void request(int in);
  void tryOutput(int o);
  void deliver(uint32_t f, int o);
  void startPhase();
  bool receive(int link, Ptr<NetDevice>, Ptr<const Packet> p, uint16_t,
               const Address &);
};

void Network::build() {
  N = sc.numNodes;
  L = static_cast<int>(sc.links.size());
  V = sc.virtualChannels;
  for (const LinkSpec &s : sc.links) {
    linkLatency.push_back(Seconds(s.latency));
    linkFullPacket.push_back(
        Seconds((sc.payloadBytes + sc.headerBytes) / s.bandwidth));
  }
  nicFullPacket =
      Seconds((sc.payloadBytes + sc.headerBytes) / sc.injectionBandwidth);
  PointToPointHelper p2p;
  if (!sc.directLinks)
    nodes.Create(N);
  for (int l = 0; !sc.directLinks && l < L; ++l) {
    const LinkSpec &s = sc.links[l];
    // The point-to-point device adds its 2-byte PPP header to every packet,
    // which the machine's packets do not have: its rate is raised so that
    // a full packet (payload and the scenario's header) takes exactly its
    // own bytes over the link's bandwidth.
    double packet = sc.payloadBytes + sc.headerBytes;
    p2p.SetDeviceAttribute("DataRate",
                           DataRateValue(DataRate(static_cast<uint64_t>(
                               s.bandwidth * 8 * (packet + 2) / packet))));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(65535));
    p2p.SetChannelAttribute("Delay", TimeValue(Seconds(s.latency)));
    NetDeviceContainer d = p2p.Install(nodes.Get(s.src), nodes.Get(s.dst));
    Ptr<PointToPointNetDevice> a = DynamicCast<PointToPointNetDevice>(d.Get(0));
    a->TraceConnectWithoutContext(
        "PhyTxEnd",
        MakeCallback(+[](Network *net, int link, Ptr<const Packet>) {
          net->busy[link] = false;
          // After the device finishes its own bookkeeping.
          Simulator::ScheduleNow(&Network::tryOutput, net, link);
        }).Bind(this, l));
    a->TraceConnectWithoutContext(
        "MacTxDrop", MakeCallback(+[](VariantResult *r, Ptr<const Packet>) {
                       ++r->dropped;
                     }).Bind(&result));
    d.Get(1)->SetReceiveCallback(MakeCallback(&Network::receive, this).Bind(l));
    tx.push_back(a);
  }
  input.assign(L * V + N, {});
  busy.assign(L + N, false);
  waiting.assign((L + N) * V, {});
  credit.assign(L * V, sc.bufferPackets);
  injectionCredit.assign(N, sc.bufferPackets);
  sendQueue.assign(N, {});
  sent.assign(var.messages.size(), 0);
  nicBusy.assign(N, false);
  setUp.assign(sc.setup > 0 ? var.messages.size() : 0, false);
  setupTime = Seconds(sc.setup);
  received.assign(var.messages.size(), 0);
}

bool Network::receive(int link, Ptr<NetDevice>, Ptr<const Packet> p, uint16_t,
                      const Address &) {
  RouteHeader h;
  p->PeekHeader(h);
  // The device hands its own copy (PPP header removed) to the receive
  // callback and keeps no reference: the router sends it on as it is.
  Flight &f = flights[h.flight];
  f.packet = ConstCast<Packet>(p);
  arrive(link * V + f.vc, h.flight);
  return true;
}

void Network::nicSend(int n) {
  if (nicBusy[n] || sendQueue[n].empty())
    return;
  int m = sendQueue[n].front();
  const MessageSpec &msg = message(m);
  // A message's set-up before its first packet: the sender is busy (it
  // needs no buffer slot for that).
  if (sc.setup > 0 && !setUp[m]) {
    setUp[m] = true;
    nicBusy[n] = true;
    if (trace)
      trace->messageStart[m] = Simulator::Now().GetSeconds();
    Simulator::Schedule(setupTime, &Network::setupDone, this, n);
    return;
  }
  if (injectionCredit[n] == 0)
    return;
  int64_t chunk = std::min<int64_t>(sc.payloadBytes, msg.bytes - sent[m]);
  if (trace && sent[m] == 0 && sc.setup == 0)
    trace->messageStart[m] = Simulator::Now().GetSeconds();
  uint32_t f;
  if (freeFlights.empty()) {
    f = static_cast<uint32_t>(flights.size());
    flights.emplace_back();
  } else {
    f = freeFlights.back();
    freeFlights.pop_back();
  }
  if (!sc.directLinks) {
    RouteHeader h;
    h.flight = f;
    Ptr<Packet> p = Create<Packet>(
        static_cast<uint32_t>(chunk + sc.headerBytes - h.GetSerializedSize()));
    p->AddHeader(h);
    flights[f].packet = p;
  }
  flights[f].message = static_cast<uint32_t>(m);
  flights[f].hop = 0;
  flights[f].vc = 0;
  flights[f].bytes = static_cast<uint16_t>(chunk);
  sent[m] += chunk;
  sendQueue[n].pop_front();
  // Posted at once, the NIC serves its messages in turn, a packet each.
  if (sent[m] < msg.bytes) {
    if (var.mode == Mode::Posted)
      sendQueue[n].push_back(m);
    else
      sendQueue[n].push_front(m);
  }
  --injectionCredit[n];
  nicBusy[n] = true;
  ++result.packets;
  Time t = serialise(chunk, sc.injectionBandwidth, nicFullPacket);
  Simulator::Schedule(t, &Network::injected, this, n, f);
}

void Network::setupDone(int n) {
  nicBusy[n] = false;
  nicSend(n);
}

void Network::injected(int n, uint32_t f) {
  nicBusy[n] = false;
  arrive(injectionInput(n), f);
  nicSend(n);
}

void Network::creditReturned(int in, int l) {
  ++credit[in];
  tryOutput(l);
}

void Network::linkFree(int o) {
  busy[o] = false;
  Simulator::ScheduleNow(&Network::tryOutput, this, o);
}

void Network::linkArrival(int o, uint32_t f) {
  arrive(o * V + flights[f].vc, f);
}

void Network::arrive(int in, uint32_t f) {
  input[in].push_back(f);
  int depth = static_cast<int>(input[in].size());
  result.maxBuffered = std::max(result.maxBuffered, depth);
  if (depth > sc.bufferPackets)
    ++result.overflows;
  if (depth == 1)
    request(in);
}

void Network::request(int in) {
  int vc;
  int o = wanted(in, vc);
  waiting[o * V + vc].push_back({asked++, in});
  tryOutput(o);
}

void Network::tryOutput(int o) {
  if (busy[o])
    return;
  bool isLink = o < L;
  // The first input (in order of asking) whose head can go.
  int vc = -1;
  for (int v = 0; v < V; ++v) {
    const auto &q = waiting[o * V + v];
    if (q.empty() || (isLink && credit[o * V + v] == 0))
      continue;
    if (vc < 0 || q.front().first < waiting[o * V + vc].front().first)
      vc = v;
  }
  if (vc < 0)
    return;
  int in = waiting[o * V + vc].front().second;
  waiting[o * V + vc].pop_front();
  uint32_t f = input[in].front();
  input[in].pop_front();
  // The freed slot's credit goes back upstream.
  if (in >= L * V) {
    int n = in - L * V;
    ++injectionCredit[n];
    Simulator::ScheduleNow(&Network::nicSend, this, n);
  } else {
    int l = in / V;
    Simulator::Schedule(linkLatency[l], &Network::creditReturned, this, in, l);
  }
  busy[o] = true;
  if (!input[in].empty())
    request(in);
  Flight &fl = flights[f];
  if (!isLink) {
    Time t = serialise(fl.bytes, sc.injectionBandwidth, nicFullPacket);
    Simulator::Schedule(t, &Network::deliver, this, f, o);
    return;
  }
  ++fl.hop;
  fl.vc = static_cast<uint8_t>(vc);
  --credit[o * V + vc];
  ++result.packetHops;
  if (trace)
    addBusy(o, serialise(fl.bytes, sc.links[o].bandwidth, linkFullPacket[o]));
  if (sc.directLinks) {
    // Serialisation, then the output is free (a step later, as after a
    // device's transmit-complete) and the packet arrives a latency on.
    const LinkSpec &link = sc.links[o];
    Time t = serialise(fl.bytes, link.bandwidth, linkFullPacket[o]);
    Simulator::Schedule(t, &Network::linkFree, this, o);
    Simulator::Schedule(t + linkLatency[o], &Network::linkArrival, this, o, f);
    return;
  }
  Ptr<Packet> p = fl.packet;
  fl.packet = nullptr;
  if (!tx[o]->Send(p, tx[o]->GetBroadcast(), 0x0800))
    ++result.dropped;
}

void Network::deliver(uint32_t f, int o) {
  busy[o] = false;
  Flight h = flights[f];
  flights[f].packet = nullptr;
  freeFlights.push_back(f);
  received[h.message] += h.bytes;
  result.bytes += h.bytes;
  lastArrival = Simulator::Now();
  if (received[h.message] == message(h.message).bytes) {
    const MessageSpec &m = message(h.message);
    if (trace)
      trace->messageEnd[h.message] = lastArrival.GetSeconds();
    if (var.mode == Mode::Stepped) {
      --sendLeft[m.src * S + m.phase];
      --recvLeft[m.dst * S + m.phase];
      advance(m.src);
      advance(m.dst);
    } else if (--outstanding == 0) {
      if (trace && var.mode == Mode::Phased)
        trace->phaseEnd.push_back(lastArrival.GetSeconds());
      if (phase + 1 < phases.size()) {
        ++phase;
        Simulator::Schedule(Seconds(sc.barrier), &Network::startPhase, this);
      }
    }
  }
  tryOutput(o);
}

void Network::addBusy(int link, const Time &duration) {
  // Spread [now, now + duration) over the bins it overlaps.
  int64_t a = Simulator::Now().GetTimeStep(), b = a + duration.GetTimeStep();
  // A run far beyond the bound (the ring: 36x on 4x4x4) would need ever
  // more bins per link: past kMaxBins they merge in pairs, twice as wide.
  constexpr size_t kMaxBins = 4096;
  while (static_cast<size_t>(b / binSteps) >= kMaxBins) {
    binSteps *= 2;
    trace->binWidth = Time(binSteps).GetSeconds();
    for (std::vector<float> &old : trace->linkBusy) {
      for (size_t k = 0; 2 * k < old.size(); ++k)
        old[k] = old[2 * k] + (2 * k + 1 < old.size() ? old[2 * k + 1] : 0);
      old.resize((old.size() + 1) / 2);
    }
  }
  std::vector<float> &bins = trace->linkBusy[link];
  size_t last = static_cast<size_t>(b / binSteps);
  if (bins.size() <= last)
    bins.resize(std::min(kMaxBins, std::max(last + 1, bins.size() * 2)), 0.0f);
  double step = Time(1).GetSeconds();
  for (int64_t k = a / binSteps; a < b; ++k) {
    int64_t end = std::min(b, (k + 1) * binSteps);
    bins[k] += static_cast<float>((end - a) * step);
    a = end;
  }
}

void Network::advance(int n) {
  int &k = nodeStep[n];
  while (k < S && sendLeft[n * S + k] == 0 && recvLeft[n * S + k] == 0) {
    if (++k == S)
      return;
    for (int m : stepSends[n * S + k])
      sendQueue[n].push_back(m);
    nicSend(n);
  }
}

void Network::startPhase() {
  if (trace && var.mode == Mode::Phased)
    trace->phaseStart.push_back(Simulator::Now().GetSeconds());
  for (int m : phases[phase])
    sendQueue[message(m).src].push_back(m);
  outstanding = static_cast<int64_t>(phases[phase].size());
  for (int n = 0; n < N; ++n)
    nicSend(n);
}

VariantResult Network::run() {
  result.name = var.name;
  // ns-3's std::priority_queue scheduler instead of its default std::map:
  // on 4x4x4 0.45 us a packet-hop with direct links (map 0.44, heap 0.88,
  // calendar 1.15) and 1.07 with devices (map 1.27, heap 1.56). Events of
  // one time keep their insertion order in every scheduler, so the
  // results are the same.
  ObjectFactory scheduler;
  scheduler.SetTypeId("ns3::PriorityQueueScheduler");
  Simulator::SetScheduler(scheduler);
  build();
  if (trace) {
    trace->messageStart.assign(var.messages.size(), 0);
    trace->messageEnd.assign(var.messages.size(), 0);
    trace->phaseStart.clear();
    trace->phaseEnd.clear();
    trace->binWidth = sc.bound > 0 ? sc.bound / 1000 : 1e-6;
    binSteps = std::max<int64_t>(1, Seconds(trace->binWidth).GetTimeStep());
    trace->binWidth = Time(binSteps).GetSeconds();
    trace->linkBusy.assign(L, {});
  }
  if (var.mode == Mode::Stepped) {
    for (const MessageSpec &m : var.messages)
      S = std::max(S, m.phase + 1);
    stepSends.assign(static_cast<size_t>(N) * S, {});
    sendLeft.assign(static_cast<size_t>(N) * S, 0);
    recvLeft.assign(static_cast<size_t>(N) * S, 0);
    nodeStep.assign(N, 0);
    for (size_t i = 0; i < var.messages.size(); ++i) {
      const MessageSpec &m = var.messages[i];
      stepSends[m.src * S + m.phase].push_back(static_cast<int>(i));
      ++sendLeft[m.src * S + m.phase];
      ++recvLeft[m.dst * S + m.phase];
    }
    Simulator::ScheduleNow([this] {
      for (int n = 0; n < N; ++n) {
        for (int m : stepSends[n * S])
          sendQueue[n].push_back(m);
        nicSend(n);
        advance(n);
      }
    });
  } else if (var.mode == Mode::Phased) {
    int maxPhase = 0;
    for (const MessageSpec &m : var.messages)
      maxPhase = std::max(maxPhase, m.phase);
    phases.assign(maxPhase + 1, {});
    for (size_t m = 0; m < var.messages.size(); ++m)
      phases[var.messages[m].phase].push_back(static_cast<int>(m));
    // Empty phase numbers are not phases.
    phases.erase(
        std::remove_if(phases.begin(), phases.end(),
                       [](const std::vector<int> &p) { return p.empty(); }),
        phases.end());
  } else {
    // One phase of everything, in the scenario's order (phase order).
    phases.assign(1, {});
    for (size_t m = 0; m < var.messages.size(); ++m)
      phases[0].push_back(static_cast<int>(m));
  }
  if (var.mode != Mode::Stepped && !phases.empty() && !phases[0].empty())
    Simulator::ScheduleNow(&Network::startPhase, this);
  Simulator::Run();
  result.time = lastArrival.GetSeconds();
  for (size_t m = 0; m < var.messages.size(); ++m)
    if (received[m] != var.messages[m].bytes)
      ++result.undelivered;
  Simulator::Destroy();
  return result;
}

} // namespace

VariantResult simulate(const Scenario &scenario, const VariantSpec &variant,
                       Trace *trace) {
  Network net(scenario, variant, trace);
  return net.run();
}

bool writeTrace(const std::string &dir, const Scenario &sc,
                const VariantSpec &var, const VariantResult &result,
                const Trace &trace, std::string &error) {
  auto open = [&](const std::string &what, std::ofstream &os) {
    std::string path = dir + "/" + var.name + "." + what + ".csv";
    os.open(path);
    if (!os)
      error = path + ": cannot write";
    os.precision(9);
    return bool(os);
  };
  std::ofstream routes;
  if (!open("routes", routes))
    return false;
  routes << "src,dst,phase,bytes,hops,start,end\n";
  for (size_t m = 0; m < var.messages.size(); ++m) {
    const MessageSpec &msg = var.messages[m];
    routes << msg.src << ',' << msg.dst << ',' << msg.phase << ',' << msg.bytes
           << ',' << msg.route.size() << ',' << trace.messageStart[m] << ','
           << trace.messageEnd[m] << '\n';
  }
  if (var.mode == Mode::Phased) {
    // Bytes and messages per phase, in the order the phases ran (phase
    // numbers without messages are not phases).
    std::map<int, std::pair<int64_t, int64_t>> perPhase;
    for (const MessageSpec &msg : var.messages) {
      perPhase[msg.phase].first += msg.bytes;
      ++perPhase[msg.phase].second;
    }
    std::ofstream phases;
    if (!open("phases", phases))
      return false;
    phases << "phase,start,end,bytes,messages\n";
    size_t j = 0;
    for (const auto &[phase, load] : perPhase) {
      if (j >= trace.phaseStart.size() || j >= trace.phaseEnd.size())
        break;
      phases << phase << ',' << trace.phaseStart[j] << ',' << trace.phaseEnd[j]
             << ',' << load.first << ',' << load.second << '\n';
      ++j;
    }
  }
  // 100 equal slices of [0, the run's time]: each link's busy share of a
  // slice, a fine bin's busy time spread evenly over the bin.
  const int slices = 100;
  double total = result.time > 0 ? result.time : trace.binWidth;
  double width = total / slices;
  std::vector<std::vector<double>> share(slices,
                                         std::vector<double>(sc.links.size()));
  for (size_t l = 0; l < trace.linkBusy.size(); ++l) {
    const std::vector<float> &bins = trace.linkBusy[l];
    for (size_t k = 0; k < bins.size(); ++k) {
      if (bins[k] == 0)
        continue;
      double a = k * trace.binWidth, b = a + trace.binWidth;
      for (int i = std::max(0, static_cast<int>(a / width));
           i < slices && i * width < b; ++i) {
        double lo = std::max(a, i * width), hi = std::min(b, (i + 1) * width);
        if (hi > lo)
          share[i][l] += bins[k] * (hi - lo) / trace.binWidth / width;
      }
    }
  }
  std::ofstream links;
  if (!open("links", links))
    return false;
  // Shares to 6 digits: the busy time's float sums read 1, not 0.99999997.
  links.precision(6);
  links << "t0,t1,mean,p10,p50,p90,max\n";
  for (int i = 0; i < slices; ++i) {
    std::vector<double> &v = share[i];
    std::sort(v.begin(), v.end());
    double mean = 0;
    for (double x : v)
      mean += x;
    mean = v.empty() ? 0 : mean / v.size();
    auto at = [&](double q) {
      return v.empty() ? 0.0 : v[static_cast<size_t>(q * (v.size() - 1) + 0.5)];
    };
    links << i * width << ',' << (i + 1) * width << ',' << mean << ','
          << at(0.1) << ',' << at(0.5) << ',' << at(0.9) << ','
          << (v.empty() ? 0.0 : v.back()) << '\n';
  }
  if (!routes || !links) {
    error = dir + ": cannot write the trace";
    return false;
  }
  return true;
}

} // namespace phasec_ns3
