//===- ScheduleInput.cpp - Read phasec-schedule/1 documents ---------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A strict reader: anything the spec requires and is missing or malformed is
/// an error that names where it is, never a crash.
///
//===----------------------------------------------------------------------===//

#include "phasec/Target/SimGrid/ScheduleInput.h"

#include "SimGridPrivate.h"

#include "llvm/Support/JSON.h"

using namespace phasec;
using namespace phasec::simgrid;
namespace json = llvm::json;

static LogicalResult readTopology(const json::Object &t, TopologyDesc &desc,
                                  std::string &error) {
  std::optional<StringRef> kind = t.getString("kind");
  if (!kind) {
    error = "topology: missing \"kind\"";
    return failure();
  }
  if (*kind == "torus")
    desc.kind = TopologyKind::Torus;
  else if (*kind == "mesh")
    desc.kind = TopologyKind::Mesh;
  else if (*kind == "hypercube")
    desc.kind = TopologyKind::Hypercube;
  else if (*kind == "percs")
    desc.kind = TopologyKind::Percs;
  else {
    error = "topology: unsupported kind \"" + kind->str() + "\"";
    return failure();
  }
  if (desc.kind == TopologyKind::Percs) {
    desc.supernodes = t.getInteger("supernodes").value_or(1);
    std::optional<int64_t> drawers = t.getInteger("drawers");
    std::optional<int64_t> npd = t.getInteger("nodes_per_drawer");
    if (!drawers || !npd) {
      error = "topology: percs needs \"drawers\" and \"nodes_per_drawer\"";
      return failure();
    }
    desc.drawers = *drawers;
    desc.nodesPerDrawer = *npd;
  } else if (const json::Array *dims = t.getArray("dims")) {
    for (const json::Value &d : *dims) {
      std::optional<int64_t> v = d.getAsInteger();
      if (!v) {
        error = "topology: \"dims\" must hold integers";
        return failure();
      }
      desc.dims.push_back(*v);
    }
  } else if (std::optional<int64_t> n = t.getInteger("n");
             n && desc.kind == TopologyKind::Hypercube) {
    if (*n < 0 || *n > 30) {
      error = "topology: hypercube \"n\" out of range";
      return failure();
    }
    desc.dims.assign(static_cast<size_t>(*n), 2);
  } else {
    error = "topology: missing \"dims\"";
    return failure();
  }
  desc.ranksPerNode = t.getInteger("ranks_per_node").value_or(1);
  // The optional numbers: absent keys keep TopologyDesc's defaults.
  const std::pair<StringRef, double *> numbers[] = {
      {"link_bandwidth", &desc.linkBandwidth},
      {"ll_bandwidth", &desc.llBandwidth},
      {"lr_bandwidth", &desc.lrBandwidth},
      {"d_bandwidth", &desc.dBandwidth},
      {"injection_bandwidth", &desc.injectionBandwidth},
      {"link_latency", &desc.linkLatency}};
  for (auto [key, field] : numbers)
    if (std::optional<double> v = t.getNumber(key))
      *field = *v;
  return success();
}

static LogicalResult readOperation(const json::Object &doc, LoadedOperation &op,
                                   std::string &error) {
  op.operation = doc.getString("operation").value_or("op").str();
  if (const json::Object *c = doc.getObject("collective"))
    op.kind = c->getString("kind").value_or("").str();
  const json::Object *topo = doc.getObject("topology");
  if (!topo) {
    error = "operation '" + op.operation + "': missing \"topology\"";
    return failure();
  }
  if (failed(readTopology(*topo, op.desc, error))) {
    error = "operation '" + op.operation + "': " + error;
    return failure();
  }
  std::string topoError;
  llvm::FailureOr<Topology> t = Topology::create(op.desc, topoError);
  if (failed(t)) {
    error = "operation '" + op.operation + "': " + topoError;
    return failure();
  }
  int64_t ranks = t->numRanks();
  if (std::optional<int64_t> r = doc.getInteger("ranks"); r && *r != ranks) {
    error = "operation '" + op.operation + "': \"ranks\" is " +
            std::to_string(*r) + " but the topology has " +
            std::to_string(ranks) + " ranks";
    return failure();
  }
  const json::Array *phases = doc.getArray("phases");
  if (!phases) {
    error = "operation '" + op.operation + "': missing \"phases\"";
    return failure();
  }
  op.schedule.algorithm = doc.getString("algorithm").value_or("json").str();
  for (size_t k = 0; k < phases->size(); ++k) {
    auto where = [&] {
      return "operation '" + op.operation + "', phase " + std::to_string(k);
    };
    const json::Array *phase = (*phases)[k].getAsArray();
    if (!phase) {
      error = where() + ": a phase must be a list of transfers";
      return failure();
    }
    Phase p;
    for (const json::Value &tv : *phase) {
      const json::Array *tr = tv.getAsArray();
      std::optional<int64_t> s, d, b;
      if (tr && tr->size() >= 3) {
        s = (*tr)[0].getAsInteger();
        d = (*tr)[1].getAsInteger();
        b = (*tr)[2].getAsInteger();
      }
      if (!s || !d || !b) {
        error = where() + ": a transfer must be [src, dst, bytes, {...}]";
        return failure();
      }
      if (*s < 0 || *s >= ranks || *d < 0 || *d >= ranks || *b <= 0) {
        error = where() + ": transfer [" + std::to_string(*s) + ", " +
                std::to_string(*d) + ", " + std::to_string(*b) +
                "] is out of range";
        return failure();
      }
      Transfer x{static_cast<RankId>(*s), static_cast<RankId>(*d), *b, 0};
      if (tr->size() >= 4) {
        if (const json::Object *extra = (*tr)[3].getAsObject()) {
          if (const json::Array *dirs = extra->getArray("dirs")) {
            TieMask allowed =
                t->tieMask(t->nodeOfRank(x.src), t->nodeOfRank(x.dst));
            for (size_t dim = 0; dim < dirs->size() && dim < 32; ++dim)
              if ((*dirs)[dim].getAsInteger().value_or(0) == -1 &&
                  (allowed >> dim & 1))
                x.ties |= TieMask(1) << dim;
          }
        }
      }
      p.transfers.push_back(x);
    }
    op.schedule.phases.push_back(std::move(p));
  }
  for (const Phase &p : op.schedule.phases)
    for (const Transfer &x : p.transfers)
      op.transfers.add(x.src, x.dst, x.bytes);
  op.transfers.canonicalize();
  return success();
}

LogicalResult simgrid::readScheduleJSON(StringRef text,
                                        std::vector<LoadedOperation> &out,
                                        std::string &error) {
  llvm::Expected<json::Value> value = json::parse(text);
  if (!value) {
    error = "invalid JSON: " + llvm::toString(value.takeError());
    return failure();
  }
  const json::Object *root = value->getAsObject();
  if (!root) {
    error = "a schedule document must be a JSON object";
    return failure();
  }
  if (root->getString("format") !=
      std::optional<StringRef>("phasec-schedule/1")) {
    error = "not a phasec-schedule/1 document (\"format\" key)";
    return failure();
  }
  if (const json::Array *ops = root->getArray("operations")) {
    for (const json::Value &v : *ops) {
      const json::Object *doc = v.getAsObject();
      if (!doc) {
        error = "\"operations\" must hold objects";
        return failure();
      }
      LoadedOperation op;
      if (failed(readOperation(*doc, op, error)))
        return failure();
      out.push_back(std::move(op));
    }
    return success();
  }
  LoadedOperation op;
  if (failed(readOperation(*root, op, error)))
    return failure();
  out.push_back(std::move(op));
  return success();
}
