//===- TopologyDesc.cpp - Machine descriptions and their one parser -------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#include "phasec/Core/TopologyDesc.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

using namespace phasec;
using llvm::failure;
using llvm::FailureOr;
using llvm::StringRef;

std::string phasec::formatShortestDouble(double v) {
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v)
      break;
  }
  return buf;
}

static bool parseInt(StringRef text, int64_t &out) {
  text = text.trim();
  return !text.empty() && !text.getAsInteger(10, out);
}

static bool parseDouble(StringRef text, double &out) {
  text = text.trim();
  if (text.empty())
    return false;
  std::string s = text.str();
  char *end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

namespace {
/// An option that sets one real-valued field of the description: the
/// bandwidths and the latency parse and record alike.
struct RealOption {
  StringRef key;
  double TopologyDesc::*field;
  TopologySpec::Option flag;
};
} // namespace

static const RealOption realOptions[] = {
    {"bw", &TopologyDesc::linkBandwidth, TopologySpec::LinkBandwidth},
    {"ll", &TopologyDesc::llBandwidth, TopologySpec::LLBandwidth},
    {"lr", &TopologyDesc::lrBandwidth, TopologySpec::LRBandwidth},
    {"d", &TopologyDesc::dBandwidth, TopologySpec::DBandwidth},
    {"latency", &TopologyDesc::linkLatency, TopologySpec::Latency},
};

namespace {
/// A cost option: a time or a rate of the description.
struct CostRealOption {
  StringRef key;
  double TopologyDesc::*field;
  TopologySpec::CostOption flag;
};
} // namespace

static const CostRealOption costOptions[] = {
    {"setup", &TopologyDesc::setupCost, TopologySpec::Setup},
    {"barrier", &TopologyDesc::barrierCost, TopologySpec::Barrier},
    {"copy", &TopologyDesc::copyRateContiguous, TopologySpec::Copy},
    {"copy_strided", &TopologyDesc::copyRateStrided, TopologySpec::CopyStrided},
    {"copy_strided_stores", &TopologyDesc::copyRateStridedStores,
     TopologySpec::CopyStridedStores},
    {"copy_gather", &TopologyDesc::copyRateGather, TopologySpec::CopyGather},
};

FailureOr<TopologyDesc> TopologyDesc::parse(StringRef spec,
                                            std::string &error) {
  FailureOr<TopologySpec> parsed = TopologySpec::parse(spec, error);
  if (failed(parsed))
    return failure();
  return parsed->desc;
}

FailureOr<TopologySpec> TopologySpec::parse(StringRef spec,
                                            std::string &error) {
  TopologySpec result;
  TopologyDesc &desc = result.desc;
  auto [kindText, rest] = spec.trim().split(':');
  kindText = kindText.trim();
  std::optional<TopologyKind> kind = symbolizeTopologyKind(kindText);
  if (!kind) {
    error = ("unknown topology kind '" + kindText + "' (expected " +
             joinSpellings<TopologyKind>(getMaxEnumValForTopologyKind()) + ")")
                .str();
    return failure();
  }
  desc.kind = *kind;

  llvm::SmallVector<StringRef, 8> tokens;
  rest.split(tokens, ',', -1, true);
  // Accept both ',' and ';' as separators. An empty item ("torus:4;;") is
  // an error, not nothing: a spec is usually built by a script, and a lost
  // value there should not pass unnoticed.
  llvm::SmallVector<StringRef, 8> all;
  for (StringRef t : tokens) {
    llvm::SmallVector<StringRef, 4> sub;
    t.split(sub, ';', -1, true);
    for (StringRef s : sub) {
      if (s.trim().empty() && !(tokens.size() == 1 && sub.size() == 1)) {
        error = ("empty item between separators in '" + spec.trim() + "'")
                    .str();
        return failure();
      }
      if (!s.trim().empty())
        all.push_back(s.trim());
    }
  }

  size_t first = 0;
  if (desc.kind != TopologyKind::Percs) {
    if (all.empty() || all[0].contains('=')) {
      error = ("topology '" + spec + "' needs its extents, e.g. " +
               (desc.kind == TopologyKind::Hypercube ? "hypercube:6"
                                                     : "torus:8x4x8x2"))
                  .str();
      return failure();
    }
    first = 1;
    if (desc.kind == TopologyKind::Hypercube) {
      int64_t n;
      if (!parseInt(all[0], n) || n < 0 || n > kMaxHypercubeDimension) {
        error =
            ("hypercube dimension '" + all[0] + "' must be an integer in [0, " +
             llvm::Twine(kMaxHypercubeDimension) + "]")
                .str();
        return failure();
      }
      desc.dims.assign(n, 2);
    } else {
      llvm::SmallVector<StringRef, 4> ext;
      all[0].split(ext, 'x', -1, true);
      if (ext.size() > kMaxGridDimensions) {
        error = ("'" + all[0] + "' has more than " +
                 llvm::Twine(kMaxGridDimensions) + " extents")
                    .str();
        return failure();
      }
      for (StringRef e : ext) {
        int64_t v;
        if (!parseInt(e, v) || v < 1) {
          error = ("extent '" + e + "' in '" + all[0] +
                   "' must be a positive integer")
                      .str();
          return failure();
        }
        desc.dims.push_back(v);
      }
    }
  }

  // "injection=link" means the final link bandwidth, wherever bw= appears.
  llvm::StringSet<> seen;
  for (size_t i = first; i < all.size(); ++i) {
    auto [key, value] = all[i].split('=');
    key = key.trim();
    value = value.trim();
    if (!all[i].contains('=')) {
      error = ("expected key=value, got '" + all[i] + "'").str();
      return failure();
    }
    // One value per key: which of two would win is a guess.
    if (!seen.insert(key).second) {
      error = ("'" + key + "' is given twice in '" + spec.trim() + "'").str();
      return failure();
    }
    int64_t iv = 0;
    double dv = 0;
    auto badValue = [&] {
      error = ("bad value '" + value + "' for '" + key + "'").str();
      return failure();
    };
    const RealOption *real = llvm::find_if(
        realOptions, [&](const RealOption &o) { return o.key == key; });
    const CostRealOption *cost = llvm::find_if(
        costOptions, [&](const CostRealOption &o) { return o.key == key; });
    if (key == "supernodes" || key == "drawers" || key == "nodes" ||
        key == "dlinks" || key == "ranks") {
      if (!parseInt(value, iv))
        return badValue();
      if (key == "ranks") {
        desc.ranksPerNode = iv;
        result.given |= Ranks;
      } else if (desc.kind != TopologyKind::Percs) {
        error = ("'" + key + "' applies to percs topologies only").str();
        return failure();
      } else if (key == "supernodes")
        desc.supernodes = iv;
      else if (key == "drawers")
        desc.drawers = iv;
      else if (key == "dlinks") {
        if (iv < 1)
          return badValue();
        desc.dLinks = iv;
      } else
        desc.nodesPerDrawer = iv;
    } else if (real != std::end(realOptions)) {
      if (!parseDouble(value, dv))
        return badValue();
      desc.*real->field = dv;
      result.given |= real->flag;
    } else if (cost != std::end(costOptions)) {
      if (!parseDouble(value, dv) || !(dv >= 0))
        return badValue();
      desc.*cost->field = dv;
      result.given |= Costs;
      result.costGiven |= cost->flag;
    } else if (key == "packet" || key == "envelope") {
      if (!parseInt(value, iv) || iv < 0)
        return badValue();
      bool packet = key == "packet";
      (packet ? desc.packetLength : desc.messageEnvelope) = iv;
      result.given |= Costs;
      result.costGiven |= packet ? Packet : Envelope;
    } else if (key == "header" || key == "buffer") {
      bool header = key == "header";
      if (!parseInt(value, iv))
        return badValue();
      // The route header takes 4 bytes; a buffer holds at least a packet.
      int64_t lo = header ? TopologyDesc::kMinPacketHeader : 1;
      int64_t hi = header ? TopologyDesc::kMaxPacketHeader
                          : TopologyDesc::kMaxRouterBuffer;
      if (iv < lo || iv > hi) {
        error = ("'" + key + "' must be " + llvm::Twine(lo) + ".." +
                 llvm::Twine(hi) + (header ? " bytes" : " packets") + ", not " +
                 value)
                    .str();
        return failure();
      }
      (header ? desc.packetHeader : desc.routerBuffer) = iv;
      result.given |= Costs;
      result.costGiven |= header ? Header : Buffer;
    } else if (key == "switching") {
      std::optional<Switching> sw = symbolizeSwitching(value);
      if (!sw)
        return badValue();
      desc.switching = *sw;
      result.given |= Costs;
      result.costGiven |= SwitchingGiven;
    } else if (key == "sends") {
      std::optional<SendProtocol> sends = symbolizeSendProtocol(value);
      if (!sends)
        return badValue();
      desc.sends = *sends;
      result.given |= Costs;
      result.costGiven |= Sends;
    } else if (key == "injection") {
      result.given |= Injection;
      result.injectionIsLink = value == "link";
      if (result.injectionIsLink)
        desc.injectionBandwidth = desc.linkBandwidth;
      else if (!parseDouble(value, dv))
        return badValue();
      else
        desc.injectionBandwidth = dv;
    } else if (key == "order") {
      result.given |= Order;
      llvm::SmallVector<StringRef, 4> parts;
      value.split(parts, '.', -1, true);
      for (StringRef p : parts) {
        int64_t d;
        if (!parseInt(p, d) || d < 0)
          return badValue();
        desc.dimOrder.push_back(static_cast<unsigned>(d));
      }
    } else {
      error = ("unknown topology option '" + key + "'").str();
      return failure();
    }
  }
  if (result.injectionIsLink)
    desc.injectionBandwidth = desc.linkBandwidth;
  return result;
}

std::string TopologyDesc::str() const {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << stringifyTopologyKind(kind) << ':';
  TopologyDesc defaults;
  bool needSep = false;
  auto sep = [&] {
    if (needSep)
      os << ';';
    needSep = true;
  };
  switch (kind) {
  case TopologyKind::Hypercube:
    os << dims.size();
    needSep = true;
    break;
  case TopologyKind::Torus:
  case TopologyKind::Mesh:
    llvm::interleave(dims, os, "x");
    needSep = true;
    break;
  case TopologyKind::Percs:
    os << "supernodes=" << supernodes << ",drawers=" << drawers
       << ",nodes=" << nodesPerDrawer;
    if (dLinks != 0)
      os << ",dlinks=" << dLinks;
    needSep = true;
    break;
  }
  if (ranksPerNode != 1) {
    sep();
    os << "ranks=" << ranksPerNode;
  }
  if (linkBandwidth != defaults.linkBandwidth) {
    sep();
    os << "bw=" << formatShortestDouble(linkBandwidth);
  }
  if (kind == TopologyKind::Percs) {
    if (llBandwidth != defaults.llBandwidth) {
      sep();
      os << "ll=" << formatShortestDouble(llBandwidth);
    }
    if (lrBandwidth != defaults.lrBandwidth) {
      sep();
      os << "lr=" << formatShortestDouble(lrBandwidth);
    }
    if (dBandwidth != defaults.dBandwidth) {
      sep();
      os << "d=" << formatShortestDouble(dBandwidth);
    }
  }
  if (linkLatency != 0) {
    sep();
    os << "latency=" << formatShortestDouble(linkLatency);
  }
  if (injectionBandwidth != 0) {
    sep();
    os << "injection=" << formatShortestDouble(injectionBandwidth);
  }
  if (!dimOrder.empty()) {
    sep();
    os << "order=";
    llvm::interleave(dimOrder, os, ".");
  }
  if (setupCost != defaults.setupCost) {
    sep();
    os << "setup=" << formatShortestDouble(setupCost);
  }
  if (packetLength != defaults.packetLength) {
    sep();
    os << "packet=" << packetLength;
  }
  if (messageEnvelope != defaults.messageEnvelope) {
    sep();
    os << "envelope=" << messageEnvelope;
  }
  if (packetHeader != defaults.packetHeader) {
    sep();
    os << "header=" << packetHeader;
  }
  if (routerBuffer != defaults.routerBuffer) {
    sep();
    os << "buffer=" << routerBuffer;
  }
  if (switching != defaults.switching) {
    sep();
    os << "switching=" << stringifySwitching(switching);
  }
  if (sends != defaults.sends) {
    sep();
    os << "sends=" << stringifySendProtocol(sends);
  }
  for (const CostRealOption &o : costOptions) {
    if (o.field == &TopologyDesc::setupCost ||
        this->*o.field == defaults.*o.field)
      continue;
    sep();
    os << o.key << '=' << formatShortestDouble(this->*o.field);
  }
  return out;
}

int64_t TopologyDesc::dLinksPerPair() const {
  if (kind != TopologyKind::Percs || supernodes <= 1)
    return 0;
  if (dLinks != 0)
    return dLinks;
  int64_t m = drawers * nodesPerDrawer;
  int64_t n = kDPortsPerNode * m / (supernodes - 1);
  return std::clamp<int64_t>(n, 1, m * m);
}

void TopologySpec::applyCosts(MachineCosts &costs) const {
  const MachineCosts &d = desc;
  static const struct {
    CostOption option;
    double MachineCosts::*rate;
  } rates[] = {
      {Setup, &MachineCosts::setupCost},
      {Barrier, &MachineCosts::barrierCost},
      {Copy, &MachineCosts::copyRateContiguous},
      {CopyStrided, &MachineCosts::copyRateStrided},
      {CopyStridedStores, &MachineCosts::copyRateStridedStores},
      {CopyGather, &MachineCosts::copyRateGather},
  };
  for (const auto &r : rates)
    if (costGiven & r.option)
      costs.*r.rate = d.*r.rate;
  static const struct {
    CostOption option;
    int64_t MachineCosts::*size;
  } sizes[] = {
      {Packet, &MachineCosts::packetLength},
      {Envelope, &MachineCosts::messageEnvelope},
      {Header, &MachineCosts::packetHeader},
      {Buffer, &MachineCosts::routerBuffer},
  };
  for (const auto &z : sizes)
    if (costGiven & z.option)
      costs.*z.size = d.*z.size;
  if (costGiven & SwitchingGiven)
    costs.switching = d.switching;
  if (costGiven & Sends)
    costs.sends = d.sends;
}
