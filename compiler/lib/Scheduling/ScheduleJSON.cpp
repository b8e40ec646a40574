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

#include "ChunkReplay.h"

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

/// The machine as the problem's cost model sees it: a one-port model writes
/// the injection bandwidth it assumes, so that readers time the schedule
/// alike.
static json::Object topologyObject(const CostModel &model) {
  const Topology &topo = model.topology();
  const TopologyDesc &desc = topo.desc();
  json::Object obj;
  obj["kind"] = stringifyTopologyKind(desc.kind).str();
  if (topo.isPercs()) {
    obj["supernodes"] = desc.supernodes;
    obj["drawers"] = desc.drawers;
    obj["nodes_per_drawer"] = desc.nodesPerDrawer;
    // An extra key: the spec's percs has no D-link count (its routes
    // between supernodes are paths); phasec's reader needs it to rebuild a
    // machine that gave one.
    if (desc.dLinks != 0)
      obj["d_links"] = desc.dLinks;
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
  if (model.injectionBandwidth() > 0)
    obj["injection_bandwidth"] = number(model.injectionBandwidth());
  return obj;
}

/// The spec's checker knows alltoall/transpose (complete, uniform) and
/// permute (explicit pairs); every other direct kind is written as permute.
/// Relaying collectives (/2) give their chunks instead.
static void writeCollective(llvm::raw_ostream &os, const Problem &problem,
                            const CollectiveInfo &info) {
  int64_t r = problem.topology().numRanks();
  if (const ChunkSpec *spec = problem.chunkSpec()) {
    json::Object obj{{"kind", stringifyCollectiveKind(spec->kind)}};
    if (spec->root >= 0)
      obj["root"] = spec->root;
    obj["chunks"] = spec->numChunks;
    if (spec->chunkSizes.empty())
      obj["chunk_bytes"] = spec->chunkBytes;
    else
      obj["chunk_sizes"] = json::Array(spec->chunkSizes);
    if (!spec->memberChunks.empty())
      obj["member_chunks"] = json::Array(spec->memberChunks);
    bool everyRank = spec->numMembers() == r;
    for (int64_t i = 0; everyRank && i < r; ++i)
      everyRank = spec->group[i] == i;
    if (!everyRank) {
      json::Array group;
      for (RankId g : spec->group)
        group.push_back(g);
      obj["group"] = std::move(group);
    }
    if (info.kind != stringifyCollectiveKind(spec->kind))
      obj["op"] = info.kind;
    os << json::Value(std::move(obj));
    return;
  }
  const TransferSet &set = problem.transfers();
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
                          const Transfer &t, const ChunkTransfer *chunks,
                          llvm::SmallVectorImpl<NodeId> &path) {
  os << '[' << t.src << ',' << t.dst << ',' << t.bytes;
  // The fourth element: the route where the default does not say it, then
  // the chunks of a relaying transfer.
  std::string extra;
  llvm::raw_string_ostream ex(extra);
  NodeId s = topo.nodeOfRank(t.src), d = topo.nodeOfRank(t.dst);
  if (s != d && topo.isPercs() && topo.supernodeOf(s) != topo.supernodeOf(d)) {
    topo.routeNodes(s, d, 0, path);
    ex << "\"path\":[";
    llvm::interleave(path, ex, ",");
    ex << "]";
  } else if (s != d && topo.isGrid()) {
    bool identity = true;
    for (unsigned i = 0; i < topo.dimOrder().size(); ++i)
      identity &= topo.dimOrder()[i] == i;
    TieMask allowed = topo.tieMask(s, d);
    if (!identity) {
      // Not the spec's default order: only an explicit path says it.
      topo.routeNodes(s, d, t.ties & allowed, path);
      ex << "\"path\":[";
      llvm::interleave(path, ex, ",");
      ex << "]";
    } else if (allowed) {
      llvm::SmallVector<int64_t, 8> dirs;
      topo.dirsFromTies(s, d, t.ties, dirs);
      ex << "\"dirs\":[";
      llvm::interleave(dirs, ex, ",");
      ex << "]";
    }
  }
  if (chunks) {
    ex << (extra.empty() ? "" : ",") << "\"chunks\":[";
    llvm::interleave(chunks->ids, ex, ",");
    ex << "]";
    if (chunks->reduce)
      ex << ",\"reduce\":true";
  }
  if (!extra.empty())
    os << ",{" << extra << "}";
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
  os << indent << "\"topology\": " << json::Value(topologyObject(problem.costModel()))
     << ",\n";
  os << indent << "\"ranks\": " << topo.numRanks() << ",\n";
  os << indent << "\"algorithm\": " << json::Value(schedule.algorithm) << ",\n";
  os << indent << "\"phases\": [";
  llvm::SmallVector<NodeId, 16> path;
  // Phases held by rule are listed one at a time: the JSON streams.
  PhaseReader read(topo, schedule);
  for (size_t p = 0; p < schedule.phases.size(); ++p) {
    os << (p ? ",\n" : "\n") << indent << "  [";
    const Phase &phase = read[p];
    const std::vector<Transfer> &ts = phase.transfers;
    for (size_t i = 0; i < ts.size(); ++i) {
      if (i)
        os << ',';
      writeTransfer(os, topo, ts[i],
                    i < phase.chunks.size() ? &phase.chunks[i] : nullptr,
                    path);
    }
    os << ']';
  }
  os << (schedule.phases.empty() ? "" : "\n") << indent
     << (schedule.phases.empty() ? "" : "") << "],\n";
  // The spec's "phases" is a bound on the number of phases: only the proven
  // one, never the time in blocks (a source may send several blocks over a
  // link in one phase, so real schedules beat that). The time bound and
  // what binds it are extra keys.
  json::Object bound{{"time", number(schedule.bound.time)},
                     {"time_reason", schedule.bound.reason}};
  if (schedule.bound.minPhases > 0) {
    bound["phases"] = schedule.bound.minPhases;
    bound["reason"] = schedule.bound.phasesReason;
  }
  os << indent << "\"lower_bound\": " << json::Value(std::move(bound)) << ",\n";
  os << indent << "\"schedule_time\": "
     << json::Value(number(problem.costModel().time(schedule))) << '\n';
}

/// `/2` where a document relays (a /2 reader accepts /1 documents inside).
static llvm::StringRef formatOf(bool relaying) {
  return relaying ? "phasec-schedule/2" : "phasec-schedule/1";
}

llvm::LogicalResult phasec::checkScheduleDocument(const Problem &problem,
                                                  const Schedule &schedule,
                                                  std::string &error) {
  const ChunkSpec *spec = problem.chunkSpec();
  if (!spec)
    return llvm::success();
  llvm::SmallVector<ScheduleViolation, 1> violations;
  replayChunks(*spec, schedule, problem.topology().numRanks(), violations,
               /*maxViolations=*/1, ReplayRules::Spec);
  if (violations.empty())
    return llvm::success();
  error = "schedule JSON /2 cannot hold its schedule, whose replay counts "
          "a contribution twice (" +
          violations.front().message +
          "): a dissemination barrier on a member count that is not a power "
          "of two hears of some arrivals twice, which the spec forbids; "
          "'algorithm = recursive_doubling' has a document";
  return llvm::failure();
}

void phasec::writeScheduleJSON(llvm::raw_ostream &os, const Problem &problem,
                               const Schedule &schedule,
                               const CollectiveInfo &info) {
  os << "{\n  \"format\": \"" << formatOf(problem.chunkSpec() != nullptr)
     << "\",\n";
  writeBody(os, problem, schedule, info, "  ");
  os << "}\n";
}

void phasec::writeScheduleJSON(llvm::raw_ostream &os,
                               llvm::ArrayRef<ScheduleDocument> documents) {
  bool relaying = llvm::any_of(documents, [](const ScheduleDocument &d) {
    return d.problem->chunkSpec() != nullptr;
  });
  os << "{\n  \"format\": \"" << formatOf(relaying)
     << "\",\n  \"operations\": [";
  for (size_t i = 0; i < documents.size(); ++i) {
    os << (i ? ",\n" : "\n") << "    {\n";
    writeBody(os, *documents[i].problem, *documents[i].schedule,
              documents[i].info, "      ");
    os << "    }";
  }
  os << (documents.empty() ? "" : "\n  ") << "]\n}\n";
}

//===----------------------------------------------------------------------===//
// Reader
//===----------------------------------------------------------------------===//

namespace {
/// Reads one document; errors are prefixed with the operation's name.
class DocumentReader {
public:
  DocumentReader(std::string &error) : error_(error) {}

  llvm::FailureOr<ParsedScheduleDocument> read(const json::Object &doc) {
    ParsedScheduleDocument out;
    if (auto op = doc.getString("operation"))
      out.info.operation = op->str();
    prefix_ = "operation '" + out.info.operation + "': ";
    const json::Object *topo = doc.getObject("topology");
    if (!topo)
      return fail("missing \"topology\"");
    if (failed(readTopology(*topo, out.topology)))
      return llvm::failure();
    std::string topoError;
    auto topology = Topology::create(out.topology, topoError);
    if (failed(topology))
      return fail(topoError);
    std::optional<int64_t> ranks = doc.getInteger("ranks");
    if (!ranks || *ranks != topology->numRanks())
      return fail("\"ranks\" must equal the machine's " +
                  std::to_string(topology->numRanks()) + " ranks");
    const json::Object *coll = doc.getObject("collective");
    if (!coll)
      return fail("missing \"collective\"");
    if (failed(readCollective(*coll, *topology, out)))
      return llvm::failure();
    const json::Array *phases = doc.getArray("phases");
    if (!phases)
      return fail("missing \"phases\"");
    for (size_t p = 0; p < phases->size(); ++p) {
      const json::Array *phase = (*phases)[p].getAsArray();
      if (!phase)
        return fail("phase " + std::to_string(p) + " is not a list");
      Phase &ph = out.schedule.phases.emplace_back();
      ph.transfers.reserve(phase->size());
      for (size_t i = 0; i < phase->size(); ++i) {
        ChunkTransfer chunks;
        auto t = readTransfer((*phase)[i], *topology, chunks);
        if (failed(t))
          return fail("phase " + std::to_string(p) + ", transfer " +
                      std::to_string(i) + ": " + detail_);
        ph.transfers.push_back(*t);
        if (out.chunks)
          ph.chunks.push_back(std::move(chunks));
      }
    }
    if (auto alg = doc.getString("algorithm"))
      out.schedule.algorithm = alg->str();
    if (const json::Object *lb = doc.getObject("lower_bound")) {
      if (auto v = lb->getInteger("phases"))
        out.schedule.bound.minPhases = *v;
      if (auto v = lb->getString("reason"))
        out.schedule.bound.phasesReason = v->str();
      if (auto v = lb->getNumber("time"))
        out.schedule.bound.time = *v;
      if (auto v = lb->getString("time_reason"))
        out.schedule.bound.reason = v->str();
    }
    return out;
  }

private:
  llvm::FailureOr<ParsedScheduleDocument> fail(const std::string &msg) {
    error_ = prefix_ + msg;
    return llvm::failure();
  }

  llvm::LogicalResult readTopology(const json::Object &t, TopologyDesc &d) {
    auto kind = t.getString("kind");
    if (!kind)
      return failure("topology without \"kind\"");
    auto number = [&](llvm::StringRef key, double &out) {
      if (auto v = t.getNumber(key))
        out = *v;
    };
    auto integer = [&](llvm::StringRef key, int64_t &out) {
      if (auto v = t.getInteger(key))
        out = *v;
    };
    integer("ranks_per_node", d.ranksPerNode);
    number("injection_bandwidth", d.injectionBandwidth);
    // An extra key (seconds per hop) the simulator honours; phasec's own
    // schedules do not depend on it.
    number("link_latency", d.linkLatency);
    if (*kind == "percs") {
      d.kind = TopologyKind::Percs;
      integer("supernodes", d.supernodes);
      integer("drawers", d.drawers);
      integer("nodes_per_drawer", d.nodesPerDrawer);
      integer("d_links", d.dLinks);
      number("ll_bandwidth", d.llBandwidth);
      number("lr_bandwidth", d.lrBandwidth);
      number("d_bandwidth", d.dBandwidth);
      return llvm::success();
    }
    if (*kind == "torus")
      d.kind = TopologyKind::Torus;
    else if (*kind == "mesh")
      d.kind = TopologyKind::Mesh;
    else if (*kind == "hypercube")
      d.kind = TopologyKind::Hypercube;
    else
      return failure(("topology kind '" + *kind + "' is not supported").str());
    number("link_bandwidth", d.linkBandwidth);
    if (const json::Array *dims = t.getArray("dims")) {
      for (const json::Value &v : *dims) {
        auto k = v.getAsInteger();
        if (!k)
          return failure("\"dims\" must hold integers");
        d.dims.push_back(*k);
      }
    } else if (auto n = t.getInteger("n");
               n && d.kind == TopologyKind::Hypercube) {
      if (*n < 0 || *n > 30)
        return failure("hypercube \"n\" must be in [0, 30]");
      d.dims.assign(*n, 2);
    } else {
      return failure("topology without \"dims\"");
    }
    if (const json::Array *order = t.getArray("dim_order"))
      for (const json::Value &v : *order) {
        auto k = v.getAsInteger();
        if (!k || *k < 0)
          return failure("\"dim_order\" must hold dimension numbers");
        d.dimOrder.push_back(static_cast<unsigned>(*k));
      }
    return llvm::success();
  }

  llvm::LogicalResult readCollective(const json::Object &c, const Topology &t,
                                     ParsedScheduleDocument &out) {
    auto kind = c.getString("kind");
    if (!kind)
      return failure("collective without \"kind\"");
    out.info.kind = kind->str();
    if (auto op = c.getString("op"))
      out.info.kind = op->str();
    if (c.get("chunks"))
      return readChunks(c, *kind, t, out);
    if (*kind == "alltoall" || *kind == "transpose") {
      auto bytes = c.getInteger("bytes");
      if (!bytes || *bytes < 0)
        return failure("\"" + kind->str() + "\" needs non-negative \"bytes\"");
      std::vector<Demand> demands;
      if (*bytes > 0) {
        demands.reserve(t.numRanks() * (t.numRanks() - 1));
        for (RankId s = 0; s < t.numRanks(); ++s)
          for (RankId d = 0; d < t.numRanks(); ++d)
            if (s != d)
              demands.push_back({s, d, *bytes});
      }
      out.transfers = TransferSet(std::move(demands));
      return llvm::success();
    }
    if (*kind != "permute")
      return failure(("collective kind '" + *kind +
                      "' is not supported (alltoall, transpose, permute)")
                         .str());
    const json::Array *pairs = c.getArray("pairs");
    if (!pairs)
      return failure("\"permute\" needs \"pairs\"");
    std::vector<Demand> demands;
    for (const json::Value &v : *pairs) {
      const json::Array *a = v.getAsArray();
      std::optional<int64_t> s, d, b;
      if (a && a->size() == 3) {
        s = (*a)[0].getAsInteger();
        d = (*a)[1].getAsInteger();
        b = (*a)[2].getAsInteger();
      }
      if (!s || !d || !b || *s < 0 || *d < 0 || *s >= t.numRanks() ||
          *d >= t.numRanks() || *b < 0)
        return failure("every pair must be [src, dst, bytes] with ranks in "
                       "range and bytes >= 0");
      demands.push_back({static_cast<RankId>(*s), static_cast<RankId>(*d), *b});
    }
    out.transfers = TransferSet(std::move(demands));
    return llvm::success();
  }

  /// A relaying collective (/2): its ChunkSpec, checked.
  llvm::LogicalResult readChunks(const json::Object &c, llvm::StringRef kind,
                                 const Topology &t,
                                 ParsedScheduleDocument &out) {
    if (!relaying_)
      return failure("\"chunks\" needs format phasec-schedule/2");
    ChunkSpec spec;
    std::optional<CollectiveKind> k = symbolizeCollectiveKind(kind);
    if (!k || !ChunkSpec::hasChunkSemantics(*k))
      return failure(("collective kind '" + kind +
                      "' has no chunk semantics")
                         .str());
    spec.kind = *k;
    auto chunks = c.getInteger("chunks");
    auto bytes = c.getInteger("chunk_bytes");
    const json::Array *sizes = c.getArray("chunk_sizes");
    if (!chunks || (!bytes && !sizes))
      return failure("a relaying collective needs integer \"chunks\" and "
                     "\"chunk_bytes\" (or \"chunk_sizes\")");
    if (bytes && sizes)
      return failure("a collective gives both \"chunk_bytes\" and "
                     "\"chunk_sizes\"");
    spec.numChunks = *chunks;
    spec.chunkBytes = bytes ? *bytes : 0;
    // The v-collectives: a size per chunk, a count of chunks per member.
    auto integers = [&](const json::Array &a, llvm::StringRef key,
                        std::vector<int64_t> &out) -> llvm::LogicalResult {
      for (const json::Value &v : a) {
        auto x = v.getAsInteger();
        if (!x)
          return failure(("\"" + key + "\" must hold integers").str());
        out.push_back(*x);
      }
      return llvm::success();
    };
    if (sizes && failed(integers(*sizes, "chunk_sizes", spec.chunkSizes)))
      return llvm::failure();
    if (const json::Array *members = c.getArray("member_chunks"))
      if (failed(integers(*members, "member_chunks", spec.memberChunks)))
        return llvm::failure();
    if (auto root = c.getInteger("root"))
      spec.root = static_cast<RankId>(*root);
    if (const json::Array *group = c.getArray("group")) {
      for (const json::Value &v : *group) {
        auto r = v.getAsInteger();
        if (!r)
          return failure("\"group\" must hold ranks");
        spec.group.push_back(static_cast<RankId>(*r));
      }
    } else {
      for (RankId r = 0; r < t.numRanks(); ++r)
        spec.group.push_back(r);
    }
    std::string why;
    if (failed(spec.check(t.numRanks(), why)))
      return failure(why);
    out.chunks = std::move(spec);
    return llvm::success();
  }

  llvm::FailureOr<Transfer> readTransfer(const json::Value &v,
                                         const Topology &t,
                                         ChunkTransfer &chunks) {
    const json::Array *a = v.getAsArray();
    std::optional<int64_t> s, d, b;
    if (a && (a->size() == 3 || a->size() == 4)) {
      s = (*a)[0].getAsInteger();
      d = (*a)[1].getAsInteger();
      b = (*a)[2].getAsInteger();
    }
    if (!s || !d || !b) {
      detail_ = "expected [src, dst, bytes] or [src, dst, bytes, {...}]";
      return llvm::failure();
    }
    if (*s < 0 || *d < 0 || *s >= t.numRanks() || *d >= t.numRanks()) {
      detail_ = "rank out of range";
      return llvm::failure();
    }
    Transfer tr{static_cast<RankId>(*s), static_cast<RankId>(*d), *b, 0};
    if (a->size() < 4)
      return tr;
    const json::Object *extra = (*a)[3].getAsObject();
    if (!extra) {
      detail_ = "the fourth element must be an object";
      return llvm::failure();
    }
    NodeId sn = t.nodeOfRank(tr.src), dn = t.nodeOfRank(tr.dst);
    if (const json::Array *dirs = extra->getArray("dirs")) {
      llvm::SmallVector<int64_t, 8> values;
      for (const json::Value &x : *dirs) {
        auto i = x.getAsInteger();
        if (!i) {
          detail_ = "\"dirs\" must hold integers";
          return llvm::failure();
        }
        values.push_back(*i);
      }
      auto ties = t.tiesFromDirs(sn, dn, values, detail_);
      if (failed(ties))
        return llvm::failure();
      tr.ties = *ties;
    }
    if (const json::Array *ids = extra->getArray("chunks")) {
      for (const json::Value &x : *ids) {
        auto c = x.getAsInteger();
        if (!c) {
          detail_ = "\"chunks\" must hold integers";
          return llvm::failure();
        }
        chunks.ids.push_back(*c);
      }
    }
    if (auto reduce = extra->getBoolean("reduce"))
      chunks.reduce = *reduce;
    if (const json::Array *path = extra->getArray("path")) {
      llvm::SmallVector<NodeId, 16> want;
      t.routeNodes(sn, dn, tr.ties, want);
      bool same = path->size() == want.size();
      for (size_t i = 0; same && i < want.size(); ++i)
        same = (*path)[i].getAsInteger() == std::optional<int64_t>(want[i]);
      if (!same) {
        detail_ = "\"path\" is not the route phasec's routing takes";
        return llvm::failure();
      }
    }
    return tr;
  }

  llvm::LogicalResult failure(const std::string &msg) {
    error_ = prefix_ + msg;
    return llvm::failure();
  }

public:
  /// The document's format is /2 (chunks allowed).
  bool relaying_ = false;

private:
  std::string &error_;
  std::string prefix_;
  std::string detail_;
};
} // namespace

/// Where `text` nests arrays and objects deeper than `limit` (its byte
/// offset), if it does. llvm::json::parse recurses once per level, so a
/// document of a few megabytes of '[' would overflow the stack: every
/// schedule file is measured first, in one pass that skips strings.
static std::optional<size_t> nestsDeeper(llvm::StringRef text,
                                         unsigned limit) {
  unsigned depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if (c == '[' || c == '{') {
      if (++depth > limit)
        return i;
    } else if ((c == ']' || c == '}') && depth > 0)
      --depth;
  }
  return std::nullopt;
}

llvm::FailureOr<std::vector<ParsedScheduleDocument>>
phasec::readScheduleJSON(llvm::StringRef text, std::string &error) {
  if (std::optional<size_t> at = nestsDeeper(text, kMaxScheduleJSONDepth)) {
    error = "invalid JSON: arrays and objects nested deeper than " +
            std::to_string(kMaxScheduleJSONDepth) + " levels (at byte " +
            std::to_string(*at) + ")";
    return llvm::failure();
  }
  auto value = json::parse(text);
  if (!value) {
    error = "invalid JSON: " + llvm::toString(value.takeError());
    return llvm::failure();
  }
  const json::Object *root = value->getAsObject();
  std::optional<llvm::StringRef> format =
      root ? root->getString("format") : std::nullopt;
  if (!format ||
      (*format != "phasec-schedule/1" && *format != "phasec-schedule/2")) {
    error = "not a phasec-schedule/1 or /2 document";
    return llvm::failure();
  }
  std::vector<ParsedScheduleDocument> out;
  DocumentReader reader(error);
  reader.relaying_ = *format == "phasec-schedule/2";
  if (const json::Array *ops = root->getArray("operations")) {
    for (const json::Value &op : *ops) {
      const json::Object *doc = op.getAsObject();
      if (!doc) {
        error = "\"operations\" must hold objects";
        return llvm::failure();
      }
      auto parsed = reader.read(*doc);
      if (failed(parsed))
        return llvm::failure();
      out.push_back(std::move(*parsed));
    }
    return out;
  }
  auto parsed = reader.read(*root);
  if (failed(parsed))
    return llvm::failure();
  out.push_back(std::move(*parsed));
  return out;
}
