//===- ScheduleJSON.cpp - The phasec-schedule/1 writer --------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Streams documents of `shared/spec/schedule-json.md`. Small objects go
/// through llvm::json::Value (escaping, number formatting); the phases, which
/// can hold millions of transfers, are printed directly, one phase per line
/// so that FileCheck tests and diffs stay readable.
///
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/ScheduleJSON.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/JSON.h"

#include <cmath>

using namespace phasec;
namespace json = llvm::json;

/// Integral doubles (bandwidths, bounds) as integers, the rest as doubles.
static json::Value number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e15)
    return static_cast<int64_t>(v);
  return v;
}

static json::Object topologyObject(const Topology &topo) {
  const TopologyDesc &desc = topo.desc();
  json::Object obj;
  obj["kind"] = stringifyTopologyKind(desc.kind).str();
  if (topo.isPercs()) {
    obj["supernodes"] = desc.supernodes;
    obj["drawers"] = desc.drawers;
    obj["nodes_per_drawer"] = desc.nodesPerDrawer;
    obj["ll_bandwidth"] = number(desc.llBandwidth);
    obj["lr_bandwidth"] = number(desc.lrBandwidth);
    obj["d_bandwidth"] = number(desc.dBandwidth);
  } else {
    json::Array dims;
    for (int64_t k : topo.dims())
      dims.push_back(k);
    obj["dims"] = std::move(dims);
    if (desc.kind == TopologyKind::Hypercube)
      obj["n"] = static_cast<int64_t>(topo.numDims());
    obj["link_bandwidth"] = number(desc.linkBandwidth);
    bool identity = true;
    for (unsigned i = 0; i < topo.dimOrder().size(); ++i)
      identity &= topo.dimOrder()[i] == i;
    if (!identity) {
      json::Array order;
      for (unsigned d : topo.dimOrder())
        order.push_back(static_cast<int64_t>(d));
      obj["dim_order"] = std::move(order);
    }
  }
  obj["ranks_per_node"] = desc.ranksPerNode;
  if (desc.injectionBandwidth > 0)
    obj["injection_bandwidth"] = number(desc.injectionBandwidth);
  return obj;
}

/// The spec's checker knows alltoall/transpose (complete, uniform) and
/// permute (explicit pairs); everything else is written as permute.
static void writeCollective(llvm::raw_ostream &os, const Problem &problem,
                            const CollectiveInfo &info) {
  const TransferSet &set = problem.transfers();
  int64_t r = problem.topology().numRanks();
  auto uniform = set.uniformBytes();
  bool complete = uniform && static_cast<int64_t>(set.size()) == r * (r - 1);
  if ((info.kind == "alltoall" || info.kind == "transpose") && complete) {
    json::Object obj{{"kind", info.kind}, {"bytes", *uniform}};
    os << json::Value(std::move(obj));
    return;
  }
  os << "{\"kind\": \"permute\", \"op\": " << json::Value(info.kind)
     << ", \"pairs\": [";
  bool first = true;
  for (const Demand &d : set) {
    if (!first)
      os << ", ";
    first = false;
    os << '[' << d.src << ", " << d.dst << ", " << d.bytes << ']';
  }
  os << "]}";
}

static void writeTransfer(llvm::raw_ostream &os, const Topology &topo,
                          const Transfer &t,
                          llvm::SmallVectorImpl<NodeId> &path) {
  os << '[' << t.src << ',' << t.dst << ',' << t.bytes;
  NodeId s = topo.nodeOfRank(t.src), d = topo.nodeOfRank(t.dst);
  if (s != d && topo.isPercs() &&
      topo.supernodeOf(s) != topo.supernodeOf(d)) {
    topo.routeNodes(s, d, 0, path);
    os << ",{\"path\":[";
    llvm::interleave(path, os, ",");
    os << "]}";
  } else if (s != d && topo.isGrid()) {
    bool identity = true;
    for (unsigned i = 0; i < topo.dimOrder().size(); ++i)
      identity &= topo.dimOrder()[i] == i;
    TieMask allowed = topo.tieMask(s, d);
    if (!identity) {
      // Not the spec's default order: only an explicit path says it.
      topo.routeNodes(s, d, t.ties & allowed, path);
      os << ",{\"path\":[";
      llvm::interleave(path, os, ",");
      os << "]}";
    } else if (allowed) {
      llvm::SmallVector<int64_t, 8> dirs;
      topo.dirsFromTies(s, d, t.ties, dirs);
      os << ",{\"dirs\":[";
      llvm::interleave(dirs, os, ",");
      os << "]}";
    }
  }
  os << ']';
}

/// The members of one document (after "format", if any).
static void writeBody(llvm::raw_ostream &os, const Problem &problem,
                      const Schedule &schedule, const CollectiveInfo &info,
                      llvm::StringRef indent) {
  const Topology &topo = problem.topology();
  os << indent << "\"operation\": " << json::Value(info.operation) << ",\n";
  os << indent << "\"collective\": ";
  writeCollective(os, problem, info);
  os << ",\n";
  os << indent << "\"topology\": " << json::Value(topologyObject(topo))
     << ",\n";
  os << indent << "\"ranks\": " << topo.numRanks() << ",\n";
  os << indent << "\"algorithm\": " << json::Value(schedule.algorithm)
     << ",\n";
  os << indent << "\"phases\": [";
  llvm::SmallVector<NodeId, 16> path;
  for (size_t p = 0; p < schedule.phases.size(); ++p) {
    os << (p ? ",\n" : "\n") << indent << "  [";
    const std::vector<Transfer> &ts = schedule.phases[p].transfers;
    for (size_t i = 0; i < ts.size(); ++i) {
      if (i)
        os << ',';
      writeTransfer(os, topo, ts[i], path);
    }
    os << ']';
  }
  os << (schedule.phases.empty() ? "" : "\n") << indent
     << (schedule.phases.empty() ? "" : "") << "],\n";
  // "phases": the bound in blocks where there is a uniform block (the
  // spec's example: 512 on the T3D), else the distinct-source bound.
  json::Value phases = schedule.bound.blocks > 0
                           ? number(schedule.bound.blocks)
                           : json::Value(schedule.bound.minPhases);
  json::Object bound{{"phases", std::move(phases)},
                     {"reason", schedule.bound.reason},
                     {"time", number(schedule.bound.time)}};
  os << indent << "\"lower_bound\": " << json::Value(std::move(bound))
     << ",\n";
  os << indent << "\"schedule_time\": " << json::Value(number(schedule.time(topo)))
     << '\n';
}

void phasec::writeScheduleJSON(llvm::raw_ostream &os, const Problem &problem,
                               const Schedule &schedule,
                               const CollectiveInfo &info) {
  os << "{\n  \"format\": \"phasec-schedule/1\",\n";
  writeBody(os, problem, schedule, info, "  ");
  os << "}\n";
}

void phasec::writeScheduleJSON(llvm::raw_ostream &os,
                               llvm::ArrayRef<ScheduleDocument> documents) {
  os << "{\n  \"format\": \"phasec-schedule/1\",\n  \"operations\": [";
  for (size_t i = 0; i < documents.size(); ++i) {
    os << (i ? ",\n" : "\n") << "    {\n";
    writeBody(os, *documents[i].problem, *documents[i].schedule,
              documents[i].info, "      ");
    os << "    }";
  }
  os << (documents.empty() ? "" : "\n  ") << "]\n}\n";
}
