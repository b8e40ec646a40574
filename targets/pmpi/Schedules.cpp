//===- Schedules.cpp - Schedules found, checked, made and agreed on -------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#include "Pmpi.h"

#include "phasec/Core/UserFiles.h"
#include "phasec/Scheduling/Algorithms.h"
#include "phasec/Scheduling/BuildProblem.h"
#include "phasec/Scheduling/Registry.h"
#include "phasec/Scheduling/Relay.h"
#include "phasec/Scheduling/ScheduleJSON.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <cstdio>

using namespace phasec;

namespace phasec::pmpi {
namespace {

/// Pieces of a verified schedule in member space, offsets per pair in phase
/// order.
std::shared_ptr<CompiledAlltoall> compile(const std::vector<int> &ranks,
                                          const Schedule &schedule,
                                          int64_t block) {
  auto out = std::make_shared<CompiledAlltoall>();
  out->block = block;
  std::map<std::pair<int, int>, int64_t> done;
  auto member = [&](RankId r) {
    return static_cast<int32_t>(
        std::lower_bound(ranks.begin(), ranks.end(), static_cast<int>(r)) -
        ranks.begin());
  };
  for (const Phase &phase : schedule.phases) {
    std::vector<Piece> pieces;
    for (const Transfer &t : phase.transfers) {
      int64_t &offset = done[{t.src, t.dst}];
      pieces.push_back({member(t.src), member(t.dst), offset, t.bytes});
      offset += t.bytes;
    }
    out->phases.push_back(std::move(pieces));
  }
  return out;
}

/// The block bytes below which an alltoall's phases are posted at once:
/// where the machine model puts posting everything at once (sync none,
/// with the contention term on a machine with a packet network) ahead of
/// the phases one after another as the library runs them (each rank's
/// next phase once its messages are done: sync local). The terms do not
/// grow in proportion with the block (packets a message, set-ups), so the
/// model is asked at the schedule scaled to each power of four from 1 B
/// to 64 MiB and the crossing refined by bisection; 0 where the phases win
/// from the first byte, INT64_MAX where posting at once wins throughout
/// (on a fluid network: a machine without `packet=`).
int64_t atOnceBelow(const Topology &machine, const std::vector<int> &ranks,
                    const CompiledAlltoall &c) {
  std::vector<RankId> members(ranks.begin(), ranks.end());
  CostModel model(machine);
  auto onceWins = [&](int64_t block) {
    Schedule schedule;
    for (const std::vector<Piece> &pieces : c.phases) {
      Phase &phase = schedule.phases.emplace_back();
      for (const Piece &p : pieces) {
        int64_t bytes = std::max<int64_t>(
            1, static_cast<int64_t>(static_cast<__int128>(p.bytes) * block /
                                    c.block));
        phase.transfers.push_back({static_cast<RankId>(ranks[p.src]),
                                   static_cast<RankId>(ranks[p.dst]), bytes});
      }
    }
    model.setSync(SyncKind::Local);
    double phased =
        model.machineTime(schedule, members, /*relaying=*/false).total();
    model.setSync(SyncKind::None);
    double once =
        model.machineTime(schedule, members, /*relaying=*/false).total();
    return once < phased;
  };
  constexpr int64_t kLargest = int64_t(1) << 26;
  if (!onceWins(1))
    return 0;
  int64_t lo = 1, hi = 4; // posting at once wins at lo
  while (hi <= kLargest && onceWins(hi)) {
    lo = hi;
    hi *= 4;
  }
  if (hi > kLargest)
    return INT64_MAX;
  // To within 1/16 of the crossing.
  while (hi - lo > std::max<int64_t>(1, lo / 16)) {
    int64_t mid = lo + (hi - lo) / 2;
    (onceWins(mid) ? lo : hi) = mid;
  }
  return hi;
}

/// `c` with its at-once threshold on `s`'s machine (a copy: a given
/// schedule is shared).
std::shared_ptr<CompiledAlltoall>
withThreshold(const State &s, const std::vector<int> &ranks,
              std::shared_ptr<CompiledAlltoall> c) {
  if (!c || !s.machine)
    return c;
  auto out = std::make_shared<CompiledAlltoall>(*c);
  out->atOnceBelow = atOnceBelow(*s.machine, ranks, *out);
  return out;
}

/// A verified relaying schedule in member space (null if a transfer
/// leaves the group: the library relays only through members).
std::shared_ptr<CompiledRelay> compileRelay(const ChunkSpec &chunks,
                                            const Schedule &schedule) {
  auto out = std::make_shared<CompiledRelay>();
  out->kind = chunks.kind;
  out->numChunks = chunks.numChunks;
  out->perBlock = std::max<int64_t>(chunks.chunksPerMember(), 1);
  out->steps = relaySteps(schedule);
  auto member = [&](RankId r) -> int64_t {
    auto it = std::lower_bound(chunks.group.begin(), chunks.group.end(), r);
    return it != chunks.group.end() && *it == r ? it - chunks.group.begin()
                                                : -1;
  };
  for (const Phase &phase : schedule.phases) {
    std::vector<RelayPiece> &pieces = out->phases.emplace_back();
    // In the order the sends are posted (sendOrder).
    for (size_t i : sendOrder(phase, chunks.group)) {
      const Transfer &t = phase.transfers[i];
      int64_t src = member(t.src), dst = member(t.dst);
      if (src < 0 || dst < 0 || i >= phase.chunks.size())
        return nullptr;
      RelayPiece piece{static_cast<int32_t>(src),
                       static_cast<int32_t>(dst),
                       phase.chunks[i].reduce,
                       {}};
      for (int64_t c : phase.chunks[i].ids) {
        if (!piece.runs.empty() &&
            piece.runs.back().first + piece.runs.back().second == c)
          ++piece.runs.back().second;
        else
          piece.runs.push_back({c, 1});
      }
      pieces.push_back(std::move(piece));
    }
  }
  return out;
}

/// The sorted ranks an alltoall document's demands cover.
std::vector<int> groupOf(const TransferSet &transfers) {
  std::vector<int> ranks;
  for (const Demand &d : transfers)
    ranks.push_back(static_cast<int>(d.src));
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

/// What of a machine a schedule depends on: the links and the routes
/// (shape, ranks per node, dimension order) and the link bandwidths the
/// algorithm was chosen for. The JSON carries these exactly; the cost
/// options it does not carry (set-up, barrier, copies) only steer the
/// choice. Printed in the spec syntax, so that two machines compare as
/// strings and a mismatch can be shown.
std::string routingSpec(const TopologyDesc &d) {
  TopologyDesc shape;
  shape.kind = d.kind;
  shape.dims = d.dims;
  shape.supernodes = d.supernodes;
  shape.drawers = d.drawers;
  shape.nodesPerDrawer = d.nodesPerDrawer;
  shape.dLinks = d.dLinks;
  shape.ranksPerNode = d.ranksPerNode;
  shape.linkBandwidth = d.linkBandwidth;
  shape.llBandwidth = d.llBandwidth;
  shape.lrBandwidth = d.lrBandwidth;
  shape.dBandwidth = d.dBandwidth;
  bool identity = true;
  for (unsigned i = 0; i < d.dimOrder.size(); ++i)
    identity &= d.dimOrder[i] == i;
  if (!identity)
    shape.dimOrder = d.dimOrder;
  return shape.str();
}

/// One verified document of a schedule file and what it is for.
struct Document {
  /// routingSpec of the machine it was verified on.
  std::string machine;
  CollectiveKind kind = CollectiveKind::Alltoall;
  /// Sorted world ranks; the root's world rank (-1).
  std::vector<int> ranks;
  int root = -1;
  /// The bytes of a block it is cut for (alltoall: a pair's block; relaying:
  /// chunk bytes x chunks per block) and of one chunk.
  int64_t blockBytes = 0, chunkBytes = 0;
  std::shared_ptr<CompiledAlltoall> alltoall;
  std::shared_ptr<CompiledRelay> relay;

  /// "broadcast over ranks 0,1,2,3 rooted at 3, 1024-byte blocks".
  std::string describe() const {
    std::string out = stringifyCollectiveKind(kind).str() + " over ranks ";
    for (size_t i = 0; i < ranks.size(); ++i) {
      if (i == 8 && ranks.size() > 9) {
        out += ",...";
        break;
      }
      out += (i ? "," : "") + std::to_string(ranks[i]);
    }
    if (root >= 0)
      out += " rooted at " + std::to_string(root);
    return out + ", " + std::to_string(blockBytes) + "-byte blocks, on " +
           machine;
  }
};

/// The documents of a schedule file that the library can serve: uniform
/// alltoall documents (phasec-schedule/1) and relaying ones (/2), each
/// verified on its own machine first (a file is not trusted). The file is
/// read by the project's one bounded reader (readBoundedFile, then
/// readScheduleJSON's depth-limited parse).
bool loadScheduleFile(const std::string &path, std::vector<Document> &into,
                      std::string &error) {
  // A regular file of at most 4 GiB (a FIFO or a device is refused at once).
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      readBoundedFile(path, uint64_t(4) << 30, error);
  if (!buffer)
    return false;
  llvm::FailureOr<std::vector<ParsedScheduleDocument>> docs =
      readScheduleJSON(buffer->getBuffer(), error);
  if (llvm::failed(docs)) {
    error = path + ": " + error;
    return false;
  }
  for (ParsedScheduleDocument &doc : *docs) {
    bool isAlltoall = !doc.chunks && doc.info.kind == "alltoall" &&
                      doc.transfers.uniformBytes();
    bool isRelay = doc.chunks && ChunkSpec::hasChunkSemantics(doc.chunks->kind);
    if (!isAlltoall && !isRelay)
      continue;
    std::string prefix = path + ": operation '" + doc.info.operation + "': ";
    llvm::FailureOr<Topology> topo = Topology::create(doc.topology, error);
    if (llvm::failed(topo)) {
      error = prefix + error;
      return false;
    }
    std::optional<Problem> problem;
    if (isRelay)
      problem.emplace(*topo, *doc.chunks, CostModel(*topo));
    else
      problem.emplace(*topo, doc.transfers);
    llvm::SmallVector<ScheduleViolation> violations;
    if (llvm::failed(problem->verify(doc.schedule, violations))) {
      error = prefix +
              "the schedule does not verify: " + violations.front().message;
      return false;
    }
    Document out;
    out.machine = routingSpec(doc.topology);
    if (isAlltoall) {
      out.ranks = groupOf(doc.transfers);
      out.blockBytes = out.chunkBytes = *doc.transfers.uniformBytes();
      out.alltoall = compile(out.ranks, doc.schedule, out.blockBytes);
      into.push_back(std::move(out));
      continue;
    }
    if (!doc.chunks->memberChunks.empty() || !doc.chunks->chunkSizes.empty()) {
      error = prefix + "a schedule with member_chunks or chunk_sizes (a "
                       "v-collective's) cannot serve MPI's calls, whose "
                       "counts it does not know; give equal chunks";
      return false;
    }
    out.relay = compileRelay(*doc.chunks, doc.schedule);
    if (!out.relay) {
      error = prefix + "a transfer leaves the group (libphasec-pmpi relays "
                       "only through members)";
      return false;
    }
    out.kind = doc.chunks->kind;
    out.ranks.assign(doc.chunks->group.begin(), doc.chunks->group.end());
    out.root = static_cast<int>(doc.chunks->root);
    out.chunkBytes = doc.chunks->chunkBytes;
    out.blockBytes = doc.chunks->chunkBytes * out.relay->perBlock;
    into.push_back(std::move(out));
  }
  return true;
}

/// The cache file of a schedule: a stable content hash (xxh3, as the ring
/// cores' cache) of everything the schedule is for, so that the name is the
/// same in every process and build.
std::string cachePath(const State &s, const std::vector<int> &ranks,
                      const RelayKey *relay = nullptr) {
  std::string key = "machine=" + s.machine->desc().str() + ";ranks=";
  for (int r : ranks)
    key += std::to_string(r) + ",";
  std::string kind = "alltoall";
  if (relay) {
    kind = stringifyCollectiveKind(relay->kind).str();
    key += ";kind=" + kind + ";root=" + std::to_string(relay->root) +
           ";element=" + std::to_string(relay->elementBytes) +
           ";count=" + std::to_string(relay->count);
  }
  return s.cacheDir + "/" + kind + "-" +
         llvm::utohexstr(llvm::xxh3_64bits(key), /*LowerCase=*/true) + ".json";
}

/// Writes one document to the cache (a concurrent run never reads half of
/// it). The cache is an optimisation: a failure leaves no file and the
/// schedule is made again next time.
void writeCache(const std::string &path, const Problem &problem,
                const Schedule &schedule, const CollectiveInfo &info) {
  (void)llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path));
  (void)writeFileReplacing(path, [&](llvm::raw_ostream &os) {
    writeScheduleJSON(os, problem, schedule, info);
  });
}

/// The cached document at `path` if it holds exactly one document and that
/// document is for `want` (kind, ranks, root, block and chunk bytes,
/// machine); else null, and a report line says why (the call is then
/// scheduled afresh and the file replaced). A cache directory is not
/// trusted: anyone who can write it could otherwise choose every rank's
/// results.
std::optional<Document> readCached(State &s, const std::string &path,
                                   const Document &want, int64_t elementBytes) {
  if (!llvm::sys::fs::exists(path))
    return std::nullopt;
  std::vector<Document> docs;
  std::string error;
  std::string why;
  if (!loadScheduleFile(path, docs, error)) {
    why = error;
  } else if (docs.size() != 1) {
    why = "it holds " + std::to_string(docs.size()) +
          " schedules the library can serve, not one";
  } else {
    const Document &doc = docs.front();
    bool sameKind = (doc.relay != nullptr) == (want.relay != nullptr) &&
                    doc.kind == want.kind;
    bool cutsElements = elementBytes <= 1 || doc.chunkBytes % elementBytes == 0;
    if (!sameKind || doc.ranks != want.ranks || doc.root != want.root ||
        doc.blockBytes != want.blockBytes || !cutsElements ||
        doc.machine != want.machine)
      why = "it is a schedule of " + doc.describe() + ", not of " +
            want.describe() +
            (cutsElements ? ""
                          : " cut at " + std::to_string(elementBytes) +
                                "-byte elements");
    else
      return docs.front();
  }
  ++s.cacheRejected;
  if (s.report)
    std::fprintf(stderr,
                 "libphasec-pmpi: cache: ignored %s: %s; scheduling afresh\n",
                 path.c_str(), why.c_str());
  return std::nullopt;
}

/// Schedules `c`'s direct traffic (no relaying) on the machine, verified,
/// cached at `cachePath` (if any), in member space.
std::shared_ptr<CompiledAlltoall>
scheduleDirect(State &s, const std::vector<int> &ranks, const Collective &c,
               const std::string &cachePath, std::string &why) {
  llvm::Expected<std::unique_ptr<Problem>> problem =
      lowerCollective(*s.machine, c);
  if (!problem) {
    why = llvm::toString(problem.takeError());
    return nullptr;
  }
  Schedule schedule;
  SchedulerOptions options;
  SchedulerReport report;
  if (llvm::failed(scheduleAuto(**problem, schedule, options, report))) {
    why = report.error;
    return nullptr;
  }
  llvm::SmallVector<ScheduleViolation> violations;
  if (llvm::failed((*problem)->verify(schedule, violations))) {
    why = "the schedule does not verify: " + violations.front().message;
    return nullptr;
  }
  if (!cachePath.empty())
    writeCache(cachePath, **problem, schedule, {"alltoall", "alltoall"});
  return compile(ranks, schedule, c.blockBytes);
}

/// Rank 0's schedule for `ranks`: given, cached on disk, or computed now
/// (and cached). Null if the machine has none (reported through `why`).
std::shared_ptr<CompiledAlltoall> findOrSchedule(State &s,
                                                 const std::vector<int> &ranks,
                                                 std::string &why,
                                                 bool useCache) {
  auto given = s.given.find(ranks);
  if (given != s.given.end())
    return withThreshold(s, ranks, given->second);
  if (!s.machine) {
    why = "no PHASEC_PMPI_SCHEDULES document for these ranks and no "
          "PHASEC_PMPI_MACHINE to schedule them";
    return nullptr;
  }
  std::string path;
  if (useCache && !s.cacheDir.empty()) {
    path = cachePath(s, ranks);
    Document want;
    want.machine = routingSpec(s.machine->desc());
    want.ranks = ranks;
    want.blockBytes = kScheduleBlock;
    if (std::optional<Document> cached = readCached(s, path, want, 1))
      return withThreshold(s, ranks, cached->alltoall);
  }
  Collective alltoall;
  alltoall.kind = CollectiveKind::Alltoall;
  for (int r : ranks)
    alltoall.group.push_back(r);
  alltoall.blockBytes = kScheduleBlock;
  return withThreshold(s, ranks, scheduleDirect(s, ranks, alltoall, path, why));
}

/// Rank 0's direct schedule of a gather or scatter (`kind`) over `ranks`
/// rooted at member `root`, made now: n - 1 transfers are quick to
/// schedule, so it is not cached on disk.
std::shared_ptr<CompiledAlltoall>
findOrScheduleDirect(State &s, const std::vector<int> &ranks,
                     CollectiveKind kind, int root, std::string &why) {
  Collective c;
  c.kind = kind;
  for (int r : ranks)
    c.group.push_back(r);
  c.root = ranks[root];
  c.blockBytes = kScheduleBlock;
  return withThreshold(s, ranks,
                       scheduleDirect(s, ranks, c, /*cachePath=*/"", why));
}

/// Rank 0's relaying schedule for `key` over `ranks`: cached on disk or
/// computed now (and cached). Null if there is none (`why` says why).
std::shared_ptr<CompiledRelay>
findOrScheduleRelay(State &s, const std::vector<int> &ranks,
                    const RelayKey &key, std::string &why, bool useCache) {
  std::string path;
  if (useCache && !s.cacheDir.empty()) {
    path = cachePath(s, ranks, &key);
    Document want;
    want.machine = routingSpec(s.machine->desc());
    want.kind = key.kind;
    want.ranks = ranks;
    want.root = key.root >= 0 ? ranks[key.root] : -1;
    want.blockBytes = key.count * key.elementBytes;
    want.relay = std::make_shared<CompiledRelay>(); // "a relaying schedule"
    if (std::optional<Document> cached =
            readCached(s, path, want, key.elementBytes))
      return cached->relay;
  }
  Collective c;
  c.kind = key.kind;
  for (int r : ranks)
    c.group.push_back(r);
  c.root = key.root >= 0 ? ranks[key.root] : -1;
  c.blockBytes = key.count * key.elementBytes;
  if (isReduction(key.kind))
    c.elementType = elementTypeOfSize(key.elementBytes);
  // The library runs a relay's phases as their data arrives, with no
  // barrier (all at once where it forwards nothing): the choice charges
  // that.
  CostModel model(*s.machine);
  model.setSync(SyncKind::None);
  llvm::FailureOr<RelaySchedule> relay =
      scheduleRelaying(*s.machine, model, c, RelayChoice{}, why);
  if (llvm::failed(relay))
    return nullptr;
  // Where forwarding gains little, the direct schedule (the registry's
  // rule for schedules run without barriers).
  preferForwardingNothing(*s.machine, model, c, *relay);
  // A count that the chunks do not divide gets chunk_sizes, which the
  // library's own layout (ChunkLayout) cuts its own way: such a schedule is
  // made afresh in each process rather than cached.
  if (!path.empty() && relay->chunks.chunkSizes.empty())
    writeCache(path, Problem(*s.machine, relay->chunks, model), relay->schedule,
               {"pmpi", stringifyCollectiveKind(key.kind).str()});
  std::shared_ptr<CompiledRelay> out =
      compileRelay(relay->chunks, relay->schedule);
  if (!out)
    why = "the schedule relays through ranks outside the communicator";
  return out;
}

/// Rank 0's `wire` (empty = nothing to send) reaches every rank of comm.
void broadcastWire(MPI_Comm comm, std::vector<int64_t> &wire) {
  // With calls in flight, the broadcasts wait while they advance (another
  // rank may wait for one of them before it joins this one).
  auto bcast = [&](int64_t *data, int count) {
    MPI_Request r;
    PMPI_Ibcast(data, count, MPI_INT64_T, 0, comm, &r);
    waitAdvancing(&r, MPI_STATUS_IGNORE);
  };
  int64_t n = static_cast<int64_t>(wire.size());
  bcast(&n, 1);
  wire.resize(n);
  // Schedules of huge machines exceed an int count: broadcast in pieces.
  for (int64_t at = 0; at < n; at += 1 << 28)
    bcast(wire.data() + at,
          static_cast<int>(std::min<int64_t>(1 << 28, n - at)));
}

// Schedules on the wire: int64 words.
std::vector<int64_t> encode(const CompiledAlltoall &c) {
  std::vector<int64_t> wire{c.block, c.atOnceBelow,
                            static_cast<int64_t>(c.phases.size())};
  for (const std::vector<Piece> &phase : c.phases) {
    wire.push_back(static_cast<int64_t>(phase.size()));
    for (const Piece &p : phase)
      wire.insert(wire.end(), {p.src, p.dst, p.offset, p.bytes});
  }
  return wire;
}

void decode(const std::vector<int64_t> &wire, CompiledAlltoall &out) {
  out.block = wire[0];
  out.atOnceBelow = wire[1];
  size_t at = 3;
  for (int64_t ph = 0; ph < wire[2]; ++ph) {
    std::vector<Piece> pieces(static_cast<size_t>(wire[at++]));
    for (Piece &p : pieces) {
      p.src = static_cast<int32_t>(wire[at]);
      p.dst = static_cast<int32_t>(wire[at + 1]);
      p.offset = wire[at + 2];
      p.bytes = wire[at + 3];
      at += 4;
    }
    out.phases.push_back(std::move(pieces));
  }
}

std::vector<int64_t> encode(const CompiledRelay &c) {
  std::vector<int64_t> wire{static_cast<int64_t>(c.kind), c.numChunks,
                            c.perBlock, static_cast<int64_t>(c.steps.size()),
                            static_cast<int64_t>(c.phases.size())};
  wire.insert(wire.end(), c.steps.begin(), c.steps.end());
  for (const std::vector<RelayPiece> &phase : c.phases) {
    wire.push_back(static_cast<int64_t>(phase.size()));
    for (const RelayPiece &p : phase) {
      wire.insert(wire.end(), {p.src, p.dst, p.reduce,
                               static_cast<int64_t>(p.runs.size())});
      for (auto [chunk, count] : p.runs)
        wire.insert(wire.end(), {chunk, count});
    }
  }
  return wire;
}

void decode(const std::vector<int64_t> &wire, CompiledRelay &out) {
  out.kind = static_cast<CollectiveKind>(wire[0]);
  out.numChunks = wire[1];
  out.perBlock = wire[2];
  size_t at = 5;
  for (int64_t i = 0; i < wire[3]; ++i)
    out.steps.push_back(static_cast<size_t>(wire[at++]));
  for (int64_t ph = 0; ph < wire[4]; ++ph) {
    std::vector<RelayPiece> &pieces = out.phases.emplace_back();
    pieces.resize(static_cast<size_t>(wire[at++]));
    for (RelayPiece &p : pieces) {
      p.src = static_cast<int32_t>(wire[at]);
      p.dst = static_cast<int32_t>(wire[at + 1]);
      p.reduce = wire[at + 2] != 0;
      p.runs.resize(static_cast<size_t>(wire[at + 3]));
      at += 4;
      for (auto &run : p.runs) {
        run = {wire[at], wire[at + 1]};
        at += 2;
      }
    }
  }
}

/// The report line of a call kind that has no schedule (rank 0 says it).
void reportNoSchedule(const State &s, const std::string &what,
                      const std::string &why) {
  if (s.report)
    std::fprintf(stderr, "libphasec-pmpi: no schedule for %s: %s\n",
                 what.c_str(), why.c_str());
}

/// Rank 0 decides (with `find`, under no lock), every rank gets the same
/// schedule or none; `known` is rank 0's map of earlier decisions.
template <typename T, typename Key>
std::shared_ptr<T>
agree(State &s, MPI_Comm comm, std::map<Key, std::shared_ptr<T>> &known,
      const Key &key, const std::string &what,
      llvm::function_ref<std::shared_ptr<T>(std::string &)> find) {
  int me;
  PMPI_Comm_rank(comm, &me);
  std::vector<int64_t> wire;
  if (me == 0) {
    std::string why;
    std::shared_ptr<T> compiled;
    bool decided = false;
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      auto it = known.find(key);
      if (it != known.end()) {
        compiled = it->second;
        decided = true;
        why = "no schedule (as before)";
      }
    }
    if (!decided) {
      compiled = find(why);
      std::lock_guard<std::mutex> lock(s.mutex);
      known[key] = compiled;
    }
    if (!compiled)
      reportNoSchedule(s, what, why);
    wire = compiled ? encode(*compiled) : std::vector<int64_t>{-1};
  }
  broadcastWire(comm, wire);
  if (wire[0] < 0)
    return nullptr;
  auto out = std::make_shared<T>();
  decode(wire, *out);
  return out;
}

/// What a nonblocking call decides without waiting for rank 0: every rank
/// runs `find` itself (scheduling is deterministic, and `find` reads no
/// cache: another node may see other files), memoised in `own`, which
/// holds nothing else; comm rank 0 reports a failure.
template <typename T, typename Key>
std::shared_ptr<T>
computeOwn(State &s, MPI_Comm comm, std::map<Key, std::shared_ptr<T>> &own,
           const Key &key, const std::string &what,
           llvm::function_ref<std::shared_ptr<T>(std::string &)> find) {
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = own.find(key);
    if (it != own.end())
      return it->second;
  }
  std::string why;
  std::shared_ptr<T> compiled = find(why);
  int me;
  PMPI_Comm_rank(comm, &me);
  if (!compiled && me == 0)
    reportNoSchedule(s, what, why);
  std::lock_guard<std::mutex> lock(s.mutex);
  own[key] = compiled;
  return compiled;
}

/// Rank 0's schedule agreed on (a blocking call), or every rank's own (a
/// nonblocking one).
template <typename T, typename Key>
std::shared_ptr<T>
decide(State &s, MPI_Comm comm, std::map<Key, std::shared_ptr<T>> &known,
       std::map<Key, std::shared_ptr<T>> &own, const Key &key,
       const std::string &what,
       llvm::function_ref<std::shared_ptr<T>(std::string &, bool)> find) {
  if (mayBlock)
    return agree<T, Key>(s, comm, known, key, what, [&](std::string &why) {
      return find(why, /*useCache=*/true);
    });
  return computeOwn<T, Key>(s, comm, own, key, what, [&](std::string &why) {
    return find(why, /*useCache=*/false);
  });
}

/// Whether the machine can schedule for `info`'s ranks at run time (else
/// the reason).
bool canSchedule(const State &s, const CommInfo &info, FallbackReason &reason) {
  if (!s.machine) {
    reason = kNoSchedule;
    return false;
  }
  if (info.sorted.back() >= s.machine->numRanks()) {
    reason = kOutsideMachine;
    return false;
  }
  return true;
}

} // namespace

/// The communicator's alltoall schedule, decided at its first alltoall.
void decideAlltoall(State &s, CommInfo &info, MPI_Comm comm) {
  if (info.alltoallDecided) {
    if (info.alltoall)
      makeWire(s, info, comm); // a nonblocking call may have started it
    return;
  }
  info.alltoallDecided = true;
  bool given = s.given.count(info.sorted) != 0;
  if (!given && !canSchedule(s, info, info.alltoallReason))
    return;
  info.alltoallReason = kNoSchedule;
  info.alltoall = decide<CompiledAlltoall, std::vector<int>>(
      s, comm, s.schedules, s.ownSchedules, info.sorted,
      "alltoall over " + std::to_string(info.sorted.size()) + " ranks",
      [&](std::string &why, bool useCache) {
        return findOrSchedule(s, info.sorted, why, useCache);
      });
  if (!info.alltoall)
    return;
  makeWire(s, info, comm);
  int me;
  PMPI_Comm_rank(comm, &me);
  if (!s.report || me != 0)
    return;
  int64_t below = info.alltoall->atOnceBelow;
  std::string when =
      below == INT64_MAX
          ? std::string("posted at once for every block (the machine "
                        "model puts it ahead at every size)")
      : below == 0 ? std::string("phase after phase for every block")
                   : "posted at once for blocks below " +
                         std::to_string(below) + " bytes";
  std::fprintf(stderr,
               "libphasec-pmpi: alltoall over %zu ranks: %zu phases, %s\n",
               info.sorted.size(), info.alltoall->phases.size(), when.c_str());
}

/// The relaying schedule of `key` on the communicator: given ahead for its
/// kind, ranks and root, or decided at the first call with this key.
std::shared_ptr<CompiledRelay> decideRelay(State &s, CommInfo &info,
                                           MPI_Comm comm, const RelayKey &key,
                                           FallbackReason &reason) {
  // Decided once per key (later calls find it on the communicator): a
  // given schedule (every rank has the same files), else rank 0's agreed
  // on, or every rank's own.
  auto it = info.relays.find(key);
  if (it == info.relays.end()) {
    std::pair<std::shared_ptr<CompiledRelay>, FallbackReason> verdict{
        nullptr, kNoSchedule};
    auto given = s.givenRelays.find(
        {key.kind, info.sorted, key.root >= 0 ? info.sorted[key.root] : -1});
    if (given != s.givenRelays.end())
      verdict.first = given->second;
    else if (canSchedule(s, info, verdict.second))
      verdict.first = decide<CompiledRelay, RelayRanksKey>(
          s, comm, s.relays, s.ownRelays, {info.sorted, key},
          stringifyCollectiveKind(key.kind).str() + " over " +
              std::to_string(info.sorted.size()) + " ranks",
          [&](std::string &why, bool useCache) {
            return findOrScheduleRelay(s, info.sorted, key, why, useCache);
          });
    it = info.relays.emplace(key, verdict).first;
  }
  if (!it->second.first) {
    reason = it->second.second;
    return nullptr;
  }
  makeWire(s, info, comm);
  return it->second.first;
}

std::shared_ptr<CompiledAlltoall> decideDirect(State &s, CommInfo &info,
                                               MPI_Comm comm,
                                               CollectiveKind kind, int root,
                                               FallbackReason &reason) {
  auto it = info.directs.find({kind, root});
  if (it == info.directs.end()) {
    std::pair<std::shared_ptr<CompiledAlltoall>, FallbackReason> verdict{
        nullptr, kNoSchedule};
    if (canSchedule(s, info, verdict.second))
      verdict.first = decide<CompiledAlltoall,
                             std::tuple<std::vector<int>, CollectiveKind, int>>(
          s, comm, s.directs, s.ownDirects, {info.sorted, kind, root},
          stringifyCollectiveKind(kind).str() + " (direct) over " +
              std::to_string(info.sorted.size()) + " ranks",
          [&](std::string &why, bool) {
            return findOrScheduleDirect(s, info.sorted, kind, root, why);
          });
    it = info.directs.emplace(std::make_pair(kind, root), verdict).first;
  }
  if (!it->second.first) {
    reason = it->second.second;
    return nullptr;
  }
  makeWire(s, info, comm);
  return it->second.first;
}

/// The element type a reduction's schedule is cut for (chunks on element
/// boundaries); the run-time cut uses the call's own datatype.
/// (1 stands for any size without an element type of its own.)
ElementType elementTypeOfSize(int64_t bytes) {
  switch (bytes) {
  case 2:
    return ElementType::UInt16;
  case 4:
    return ElementType::UInt32;
  case 8:
    return ElementType::UInt64;
  case 16:
    return ElementType::Complex128;
  default:
    return ElementType::UInt8;
  }
}

void loadGivenSchedules(State &s, llvm::StringRef files) {
  llvm::SmallVector<llvm::StringRef> paths;
  files.split(paths, ':', -1, false);
  std::string machine = s.machine ? routingSpec(s.machine->desc()) : "";
  for (llvm::StringRef path : paths) {
    std::string error;
    std::vector<Document> docs;
    if (!loadScheduleFile(path.str(), docs, error))
      fatal("PHASEC_PMPI_SCHEDULES: " + error);
    for (Document &doc : docs) {
      // With a machine, a document for another machine is a mistake: its
      // phases are congestion-free on links this job does not have.
      if (!machine.empty() && doc.machine != machine)
        fatal("PHASEC_PMPI_SCHEDULES: " + path.str() + ": a schedule of " +
              doc.describe() + ", but PHASEC_PMPI_MACHINE is " + machine);
      bool fresh =
          doc.alltoall
              ? s.given.emplace(doc.ranks, doc.alltoall).second
              : s.givenRelays
                    .emplace(GivenRelayKey{doc.kind, doc.ranks, doc.root},
                             doc.relay)
                    .second;
      if (!fresh)
        fatal("PHASEC_PMPI_SCHEDULES: " + path.str() + ": a second schedule " +
              "of " + doc.describe() + " (one per collective, ranks and root)");
    }
  }
}

} // namespace phasec::pmpi
