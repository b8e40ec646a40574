//===- PhasecPMPI.cpp - MPI_Alltoall(v) from phasec schedules -------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// libphasec-pmpi.so: preloaded under an unmodified MPI program
/// (`mpirun -x LD_PRELOAD=libphasec-pmpi.so -x PHASEC_PMPI_MACHINE=...`), it
/// serves MPI_Alltoall(v) and the relaying collectives (MPI_Bcast,
/// MPI_Reduce, MPI_Allreduce, MPI_Reduce_scatter_block, MPI_Scan,
/// MPI_Exscan, MPI_Allgather, MPI_Gather, MPI_Scatter) through the MPI
/// profiling interface with phases phasec scheduled for the machine, and
/// hands every call it has no schedule for to the MPI library's own
/// (PMPI_*). docs/pmpi.md is the user's guide.
///
/// Which calls are served must be the same on every rank of a call, or the
/// ranks would run different protocols and hang; so the decision depends
/// only on what every rank of the call sees alike: the communicator (intra,
/// its size, its ranks' world ranks), the arguments the standard requires
/// to match (root, MPI_IN_PLACE, a reduction's count, datatype and
/// operator, the bytes of a block), and the schedule, which comm rank 0
/// finds or computes and broadcasts. Datatypes that only need matching
/// signatures are local: every rank moves bytes on the wire, packing a
/// datatype that is not contiguous into a buffer of its own first.
///
/// Alltoall: the alltoall of the communicator's world ranks on the machine
/// (world rank r is machine rank r), from a phasec-schedule/1 file given
/// ahead (PHASEC_PMPI_SCHEDULES), the cache (PHASEC_PMPI_CACHE) or
/// scheduled on first use (scheduleAuto, verified by Problem::verify) and
/// written to the cache. Its phases say which pair moves when; a call's
/// block of c bytes (alltoallv: each pair's own count) is cut where the
/// schedule cuts its block of B bytes: a piece over [o, o + b) of B moves
/// bytes [c o / B, c (o + b) / B). Phases run in order, each waiting for its
/// own receives and sends.
///
/// The relaying collectives: a phasec-schedule/2 schedule (scheduleRelaying,
/// the fastest algorithm under the machine's cost model, verified by chunk
/// replay) made for the call's kind, root and element count rounded up to a
/// power of two, or given ahead for the kind, ranks and root (then it
/// serves every count). Its chunks are cut from the call's data at element
/// boundaries: chunk q of a block of m elements holds elements
/// [m q / k, m (q + 1) / k) of it (k chunks per block). Every rank keeps a
/// work space of the collective's data; a phase's messages land in a
/// scratch and, once all have arrived, its copies are applied and then its
/// reductions (MPI_Reduce_local with the call's operator), as the replay
/// says. Non-commutative operators and datatypes that are not contiguous
/// in a reduction go to MPI (the schedules combine in their own order and
/// MPI_Reduce_local needs the elements as the datatype lays them out).
///
//===----------------------------------------------------------------------===//

#include "phasec/Core/UserFiles.h"
#include "phasec/Scheduling/Algorithms.h"
#include "phasec/Scheduling/BuildProblem.h"
#include "phasec/Scheduling/Collective.h"
#include "phasec/Scheduling/Relay.h"
#include "phasec/Scheduling/ScheduleJSON.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

using namespace phasec;

namespace {

/// The block of the schedules phasec computes here; any call's block is
/// cut in the same proportions.
constexpr int64_t kScheduleBlock = 1 << 16;

/// Tag of phasec's messages on its own duplicate of the caller's
/// communicator (never on the caller's, where the program's own messages
/// could match them).
constexpr int kTag = 0x7068;

/// One piece of a pair in a phase: members (indices into the sorted world
/// ranks) and the part of the schedule's block, [offset, offset + bytes).
struct Piece {
  int32_t src, dst;
  int64_t offset, bytes;
};

/// An alltoall schedule over a set of world ranks (its members, in
/// increasing world rank).
struct CompiledAlltoall {
  int64_t block = 0;
  std::vector<std::vector<Piece>> phases;
};

/// A relaying schedule in member space: each transfer carries runs
/// (first chunk, count) of consecutive chunks and copies or reduces them.
struct RelayPiece {
  int32_t src, dst;
  bool reduce;
  std::vector<std::pair<int64_t, int64_t>> runs;
};

struct CompiledRelay {
  CollectiveKind kind = CollectiveKind::Broadcast;
  int64_t numChunks = 0;
  /// Chunks per block: the data is numChunks / perBlock blocks (one, or one
  /// per member for the kinds the chunk table cuts by members).
  int64_t perBlock = 1;
  /// No rank forwards what it received (forwardsNothing): every message
  /// may be posted at once.
  bool allAtOnce = false;
  std::vector<std::vector<RelayPiece>> phases;
};

/// What a relaying schedule made at run time is for: the kind, the root's
/// member index (-1), the element size it is cut for and the element count
/// (per block) rounded up to a power of two.
struct RelayKey {
  CollectiveKind kind;
  int root;
  int64_t elementBytes, count;
  bool operator<(const RelayKey &o) const {
    return std::tie(kind, root, elementBytes, count) <
           std::tie(o.kind, o.root, o.elementBytes, o.count);
  }
};

/// Why a call went to the MPI library.
enum FallbackReason {
  kIntercomm,
  kSingleRank,
  kOutsideMachine,
  kNoSchedule,
  kNoData,
  kNonCommutative,
  kNotContiguous,
  kRankOrder,
  kInvalid,
  kNumReasons
};
const char *const kReasonText[kNumReasons] = {
    "intercommunicator",
    "communicator of one rank",
    "ranks outside the machine",
    "no schedule",
    "no data",
    "non-commutative operator",
    "reduction over a datatype that is not contiguous",
    "scan over ranks not in world order",
    "arguments MPI rejects"};

struct Stats {
  long served = 0;
  long fellBack[kNumReasons] = {};
};

/// The functions the library replaces, in the report's order.
enum Function {
  kAlltoall,
  kAlltoallv,
  kBcast,
  kReduce,
  kAllreduce,
  kReduceScatterBlock,
  kScan,
  kExscan,
  kAllgather,
  kGather,
  kScatter,
  kNumFunctions
};
const char *const kFunctionName[kNumFunctions] = {
    "MPI_Alltoall", "MPI_Alltoallv", "MPI_Bcast",
    "MPI_Reduce",   "MPI_Allreduce", "MPI_Reduce_scatter_block",
    "MPI_Scan",     "MPI_Exscan",    "MPI_Allgather",
    "MPI_Gather",   "MPI_Scatter"};

using RelayRanksKey = std::pair<std::vector<int>, RelayKey>;
/// A given relaying schedule serves its kind, ranks and root (a world rank,
/// -1) at every count.
using GivenRelayKey = std::tuple<CollectiveKind, std::vector<int>, int>;

struct State {
  std::mutex mutex;
  bool initialized = false;
  std::string machineSpec;
  std::unique_ptr<Topology> machine;
  std::string cacheDir;
  bool report = false;
  /// Rank 0's schedules by sorted world ranks, so that communicators over
  /// the same ranks share one (null = none). Which communicator has a
  /// schedule is decided per communicator (CommInfo), never from this map:
  /// with threads, ranks could see it filled at different times.
  std::map<std::vector<int>, std::shared_ptr<CompiledAlltoall>> schedules;
  std::map<RelayRanksKey, std::shared_ptr<CompiledRelay>> relays;
  /// Ahead-of-time schedules, by sorted world ranks.
  std::map<std::vector<int>, std::shared_ptr<CompiledAlltoall>> given;
  std::map<GivenRelayKey, std::shared_ptr<CompiledRelay>> givenRelays;
  int keyval = MPI_KEYVAL_INVALID;
  std::vector<MPI_Comm> dups;
  Stats stats[kNumFunctions];
};

State &state() {
  static State s;
  return s;
}

[[noreturn]] void fatal(const std::string &message) {
  std::fprintf(stderr, "libphasec-pmpi: error: %s\n", message.c_str());
  std::fflush(stderr);
  PMPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

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

/// A verified relaying schedule in member space (null if a transfer
/// leaves the group: the library relays only through members).
std::shared_ptr<CompiledRelay> compileRelay(const ChunkSpec &chunks,
                                            const Schedule &schedule) {
  auto out = std::make_shared<CompiledRelay>();
  out->kind = chunks.kind;
  out->numChunks = chunks.numChunks;
  out->perBlock = std::max<int64_t>(chunks.chunksPerMember(), 1);
  out->allAtOnce = forwardsNothing(schedule);
  auto member = [&](RankId r) -> int64_t {
    auto it = std::lower_bound(chunks.group.begin(), chunks.group.end(), r);
    return it != chunks.group.end() && *it == r ? it - chunks.group.begin()
                                                : -1;
  };
  for (const Phase &phase : schedule.phases) {
    std::vector<RelayPiece> &pieces = out->phases.emplace_back();
    for (size_t i = 0; i < phase.transfers.size(); ++i) {
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

/// The schedules of a schedule file: its uniform alltoall documents
/// (phasec-schedule/1) and its relaying ones (/2), each verified on its
/// own machine first (a file is not trusted).
struct ScheduleFile {
  std::map<std::vector<int>, std::shared_ptr<CompiledAlltoall>> alltoalls;
  std::map<GivenRelayKey, std::shared_ptr<CompiledRelay>> relays;
};

bool loadScheduleFile(const std::string &path, ScheduleFile &into,
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
    if (isAlltoall) {
      std::vector<int> ranks = groupOf(doc.transfers);
      into.alltoalls[ranks] =
          compile(ranks, doc.schedule, *doc.transfers.uniformBytes());
      continue;
    }
    std::shared_ptr<CompiledRelay> relay =
        compileRelay(*doc.chunks, doc.schedule);
    if (!relay) {
      error = prefix + "a transfer leaves the group (libphasec-pmpi relays "
                       "only through members)";
      return false;
    }
    std::vector<int> ranks(doc.chunks->group.begin(), doc.chunks->group.end());
    into.relays[{doc.chunks->kind, ranks, static_cast<int>(doc.chunks->root)}] =
        relay;
  }
  return true;
}

std::string cachePath(const State &s, const std::vector<int> &ranks,
                      const RelayKey *relay = nullptr) {
  llvm::hash_code h = llvm::hash_combine(
      s.machineSpec, llvm::hash_combine_range(ranks.begin(), ranks.end()));
  if (!relay)
    return s.cacheDir + "/alltoall-" +
           llvm::utohexstr(static_cast<uint64_t>(size_t(h))) + ".json";
  h = llvm::hash_combine(h, static_cast<int>(relay->kind), relay->root,
                         relay->elementBytes, relay->count);
  return s.cacheDir + "/" + stringifyCollectiveKind(relay->kind).str() + "-" +
         llvm::utohexstr(static_cast<uint64_t>(size_t(h))) + ".json";
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

/// Rank 0's schedule for `ranks`: given, cached on disk, or computed now
/// (and cached). Null if the machine has none (reported through `why`).
std::shared_ptr<CompiledAlltoall>
findOrSchedule(State &s, const std::vector<int> &ranks, std::string &why) {
  auto given = s.given.find(ranks);
  if (given != s.given.end())
    return given->second;
  if (!s.machine) {
    why = "no PHASEC_PMPI_SCHEDULES document for these ranks and no "
          "PHASEC_PMPI_MACHINE to schedule them";
    return nullptr;
  }
  std::string path;
  if (!s.cacheDir.empty()) {
    path = cachePath(s, ranks);
    ScheduleFile cached;
    std::string error;
    if (llvm::sys::fs::exists(path) && loadScheduleFile(path, cached, error)) {
      auto it = cached.alltoalls.find(ranks);
      if (it != cached.alltoalls.end())
        return it->second;
    }
  }
  Collective alltoall;
  alltoall.kind = CollectiveKind::Alltoall;
  for (int r : ranks)
    alltoall.group.push_back(r);
  alltoall.blockBytes = kScheduleBlock;
  llvm::Expected<std::unique_ptr<Problem>> problem =
      lowerCollective(*s.machine, alltoall);
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
  if (!path.empty())
    writeCache(path, **problem, schedule, {"alltoall", "alltoall"});
  return compile(ranks, schedule, kScheduleBlock);
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

/// Rank 0's relaying schedule for `key` over `ranks`: cached on disk or
/// computed now (and cached). Null if there is none (`why` says why).
std::shared_ptr<CompiledRelay>
findOrScheduleRelay(State &s, const std::vector<int> &ranks,
                    const RelayKey &key, std::string &why) {
  std::string path;
  if (!s.cacheDir.empty()) {
    path = cachePath(s, ranks, &key);
    ScheduleFile cached;
    std::string error;
    if (llvm::sys::fs::exists(path) && loadScheduleFile(path, cached, error) &&
        cached.relays.size() == 1)
      return cached.relays.begin()->second;
  }
  Collective c;
  c.kind = key.kind;
  for (int r : ranks)
    c.group.push_back(r);
  c.root = key.root >= 0 ? ranks[key.root] : -1;
  c.blockBytes = key.count * key.elementBytes;
  if (isReduction(key.kind))
    c.elementType = elementTypeOfSize(key.elementBytes);
  CostModel model(*s.machine);
  llvm::FailureOr<RelaySchedule> relay =
      scheduleRelaying(*s.machine, model, c, RelayChoice{}, why);
  if (llvm::failed(relay))
    return nullptr;
  if (!path.empty())
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
  int64_t n = static_cast<int64_t>(wire.size());
  PMPI_Bcast(&n, 1, MPI_INT64_T, 0, comm);
  wire.resize(n);
  // Schedules of huge machines exceed an int count: broadcast in pieces.
  for (int64_t at = 0; at < n; at += 1 << 28) {
    int count = static_cast<int>(std::min<int64_t>(1 << 28, n - at));
    PMPI_Bcast(wire.data() + at, count, MPI_INT64_T, 0, comm);
  }
}

// Schedules on the wire: int64 words.
std::vector<int64_t> encode(const CompiledAlltoall &c) {
  std::vector<int64_t> wire{c.block, static_cast<int64_t>(c.phases.size())};
  for (const std::vector<Piece> &phase : c.phases) {
    wire.push_back(static_cast<int64_t>(phase.size()));
    for (const Piece &p : phase)
      wire.insert(wire.end(), {p.src, p.dst, p.offset, p.bytes});
  }
  return wire;
}

void decode(const std::vector<int64_t> &wire, CompiledAlltoall &out) {
  out.block = wire[0];
  size_t at = 2;
  for (int64_t ph = 0; ph < wire[1]; ++ph) {
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
                            c.perBlock, c.allAtOnce,
                            static_cast<int64_t>(c.phases.size())};
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
  out.allAtOnce = wire[3] != 0;
  size_t at = 5;
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
    if (!compiled && s.report)
      std::fprintf(stderr, "libphasec-pmpi: no schedule for %s: %s\n",
                   what.c_str(), why.c_str());
    wire = compiled ? encode(*compiled) : std::vector<int64_t>{-1};
  }
  broadcastWire(comm, wire);
  if (wire[0] < 0)
    return nullptr;
  auto out = std::make_shared<T>();
  decode(wire, *out);
  return out;
}

/// What phasec keeps on a communicator (an MPI attribute, so that it goes
/// with the communicator): whether it can be served at all, the comm rank
/// <-> member maps, the verdict of each kind of call (decided at its first
/// call, collectively: every rank reaches the same one), phasec's
/// duplicate of it and the work space of its calls (MPI orders a
/// communicator's collectives, so one call at a time uses it).
struct CommInfo {
  /// Intra, two or more ranks (else `reason`).
  bool usable = false;
  FallbackReason reason = kNoSchedule;
  std::vector<int> sorted; // world ranks, increasing
  std::vector<int> memberOfCommRank, commRankOfMember;
  bool alltoallDecided = false;
  std::shared_ptr<CompiledAlltoall> alltoall; // null: the MPI library's
  FallbackReason alltoallReason = kNoSchedule;
  std::map<RelayKey, std::pair<std::shared_ptr<CompiledRelay>, FallbackReason>>
      relays;
  MPI_Comm wire = MPI_COMM_NULL;
  std::vector<char> work, receive, pack;

  /// Comm ranks in world order: member m is comm rank m.
  bool inWorldOrder() const {
    for (size_t m = 0; m < commRankOfMember.size(); ++m)
      if (commRankOfMember[m] != static_cast<int>(m))
        return false;
    return true;
  }
};

int deleteCommInfo(MPI_Comm, int, void *attr, void *) {
  State &s = state();
  auto *info = static_cast<CommInfo *>(attr);
  if (info->wire != MPI_COMM_NULL) {
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      s.dups.erase(std::remove(s.dups.begin(), s.dups.end(), info->wire),
                   s.dups.end());
    }
    PMPI_Comm_free(&info->wire);
  }
  delete info;
  return MPI_SUCCESS;
}

/// What phasec knows of `comm`, made at its first call and kept on it.
CommInfo *commInfo(State &s, MPI_Comm comm) {
  void *attr = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, s.keyval, &attr, &found);
  if (found)
    return static_cast<CommInfo *>(attr);
  auto *info = new CommInfo;
  int inter = 0, size = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (!inter)
    PMPI_Comm_size(comm, &size);
  if (inter) {
    info->reason = kIntercomm;
  } else if (size < 2) {
    info->reason = kSingleRank;
  } else {
    info->usable = true;
    // World ranks of the communicator's ranks.
    MPI_Group group, world;
    PMPI_Comm_group(comm, &group);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    std::vector<int> commRanks(size), worldRanks(size);
    for (int i = 0; i < size; ++i)
      commRanks[i] = i;
    PMPI_Group_translate_ranks(group, size, commRanks.data(), world,
                               worldRanks.data());
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    info->sorted = worldRanks;
    std::sort(info->sorted.begin(), info->sorted.end());
    info->memberOfCommRank.resize(size);
    info->commRankOfMember.resize(size);
    for (int i = 0; i < size; ++i) {
      int m =
          static_cast<int>(std::lower_bound(info->sorted.begin(),
                                            info->sorted.end(), worldRanks[i]) -
                           info->sorted.begin());
      info->memberOfCommRank[i] = m;
      info->commRankOfMember[m] = i;
    }
  }
  PMPI_Comm_set_attr(comm, s.keyval, info);
  return info;
}

/// phasec's duplicate of a served communicator, made at its first served
/// call (collective: every rank of that call is served).
void makeWire(State &s, CommInfo &info, MPI_Comm comm) {
  if (info.wire != MPI_COMM_NULL)
    return;
  PMPI_Comm_dup(comm, &info.wire);
  std::lock_guard<std::mutex> lock(s.mutex);
  s.dups.push_back(info.wire);
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

/// The communicator's alltoall schedule, decided at its first alltoall.
void decideAlltoall(State &s, CommInfo &info, MPI_Comm comm) {
  if (info.alltoallDecided)
    return;
  info.alltoallDecided = true;
  bool given = s.given.count(info.sorted) != 0;
  if (!given && !canSchedule(s, info, info.alltoallReason))
    return;
  info.alltoall = agree<CompiledAlltoall, std::vector<int>>(
      s, comm, s.schedules, info.sorted,
      "alltoall over " + std::to_string(info.sorted.size()) + " ranks",
      [&](std::string &why) { return findOrSchedule(s, info.sorted, why); });
  info.alltoallReason = kNoSchedule;
  if (info.alltoall)
    makeWire(s, info, comm);
}

/// The relaying schedule of `key` on the communicator: given ahead for its
/// kind, ranks and root, or decided at the first call with this key.
const CompiledRelay *decideRelay(State &s, CommInfo &info, MPI_Comm comm,
                                 const RelayKey &key, FallbackReason &reason) {
  // Decided once per key (later calls find it on the communicator): a
  // given schedule (every rank has the same files), else rank 0's.
  auto it = info.relays.find(key);
  if (it == info.relays.end()) {
    std::pair<std::shared_ptr<CompiledRelay>, FallbackReason> verdict{
        nullptr, kNoSchedule};
    auto given = s.givenRelays.find(
        {key.kind, info.sorted, key.root >= 0 ? info.sorted[key.root] : -1});
    if (given != s.givenRelays.end())
      verdict.first = given->second;
    else if (canSchedule(s, info, verdict.second))
      verdict.first = agree<CompiledRelay, RelayRanksKey>(
          s, comm, s.relays, {info.sorted, key},
          stringifyCollectiveKind(key.kind).str() + " over " +
              std::to_string(info.sorted.size()) + " ranks",
          [&](std::string &why) {
            return findOrScheduleRelay(s, info.sorted, key, why);
          });
    it = info.relays.emplace(key, verdict).first;
  }
  if (!it->second.first) {
    reason = it->second.second;
    return nullptr;
  }
  makeWire(s, info, comm);
  return it->second.first.get();
}

/// A served call: the communicator's state and my member index.
struct Plan {
  CommInfo *info = nullptr;
  int me = 0;
};

/// A buffer of bytes for a (count, datatype) array: the caller's memory
/// when the type is contiguous, else a packed copy.
struct ByteView {
  char *bytes = nullptr;
  int64_t elementBytes = 0; // bytes of one element on the wire
  std::vector<char> packed;
  bool isPacked = false;
};

bool contiguous(MPI_Datatype type, MPI_Aint &extent, int &size) {
  MPI_Aint lb, trueLb, trueExtent;
  PMPI_Type_size(type, &size);
  PMPI_Type_get_extent(type, &lb, &extent);
  PMPI_Type_get_true_extent(type, &trueLb, &trueExtent);
  return lb == 0 && trueLb == 0 && extent == size && trueExtent == size;
}

/// The send side as bytes: `count` elements of `type` at `buf`.
void viewSend(const void *buf, int64_t count, MPI_Datatype type, MPI_Comm comm,
              ByteView &view) {
  MPI_Aint extent;
  int size;
  view.elementBytes = 0;
  if (contiguous(type, extent, size)) {
    view.bytes = const_cast<char *>(static_cast<const char *>(buf));
    view.elementBytes = size;
    return;
  }
  view.elementBytes = size;
  view.packed.resize(static_cast<size_t>(count * size));
  int position = 0;
  for (int64_t at = 0; at < count;) {
    int n = static_cast<int>(std::min<int64_t>(count - at, 1 << 30));
    PMPI_Pack(static_cast<const char *>(buf) + at * extent, n, type,
              view.packed.data(), static_cast<int>(view.packed.size()),
              &position, comm);
    at += n;
  }
  view.bytes = view.packed.data();
  view.isPacked = true;
}

/// The receive side as bytes. A packed view starts as a copy of the
/// buffer, so that unpacking leaves what no block covers as it was.
void viewRecv(void *buf, int64_t count, MPI_Datatype type, MPI_Comm comm,
              ByteView &view) {
  viewSend(buf, count, type, comm, view);
}

/// MPI_IN_PLACE: what to send is in the receive buffer, which the call
/// overwrites: a copy of its `count` elements, as bytes.
void viewInPlace(void *recvbuf, int64_t count, MPI_Datatype type, MPI_Comm comm,
                 ByteView &view) {
  ByteView current;
  viewSend(recvbuf, count, type, comm, current);
  view.packed.assign(current.bytes,
                     current.bytes + count * current.elementBytes);
  view.bytes = view.packed.data();
  view.elementBytes = current.elementBytes;
}

void unpackRecv(void *buf, int64_t count, MPI_Datatype type, MPI_Comm comm,
                ByteView &view) {
  if (!view.isPacked)
    return;
  MPI_Aint lb, extent;
  PMPI_Type_get_extent(type, &lb, &extent);
  int position = 0;
  for (int64_t at = 0; at < count;) {
    int n = static_cast<int>(std::min<int64_t>(count - at, 1 << 30));
    PMPI_Unpack(view.packed.data(), static_cast<int>(view.packed.size()),
                &position, static_cast<char *>(buf) + at * extent, n, type,
                comm);
    at += n;
  }
}

/// Posts a receive or a send of `bytes` bytes at `buf` with comm rank
/// `peer` of `wire`, as messages of at most an int's count (both sides cut
/// alike), appending their requests.
int postBytes(char *buf, int64_t bytes, int peer, bool receive,
              bool synchronous, MPI_Comm wire,
              std::vector<MPI_Request> &requests) {
  for (int64_t at = 0; at < bytes;) {
    int n = static_cast<int>(std::min<int64_t>(bytes - at, INT32_MAX));
    requests.emplace_back();
    int err = receive ? PMPI_Irecv(buf + at, n, MPI_BYTE, peer, kTag, wire,
                                   &requests.back())
              : synchronous ? PMPI_Issend(buf + at, n, MPI_BYTE, peer, kTag,
                                          wire, &requests.back())
                            : PMPI_Isend(buf + at, n, MPI_BYTE, peer, kTag,
                                         wire, &requests.back());
    if (err != MPI_SUCCESS)
      return err;
    at += n;
  }
  return int(MPI_SUCCESS); // an enum in SimGrid's mpi.h
}

/// Runs the schedule: `sendBytes(m)`/`recvBytes(m)` are the bytes for and
/// from member m, at `sendAt(m)`/`recvAt(m)` in the byte views.
using MemberBytes = llvm::function_ref<int64_t(int)>;
int runPhases(const Plan &plan, const char *send, char *recv,
              MemberBytes sendBytes, MemberBytes recvBytes, MemberBytes sendAt,
              MemberBytes recvAt) {
  const CompiledAlltoall &c = *plan.info->alltoall;
  const std::vector<int> &commRankOf = plan.info->commRankOfMember;
  const MPI_Comm wire = plan.info->wire;
  const int me = plan.me;
  // What this member keeps.
  std::memcpy(recv + recvAt(me), send + sendAt(me),
              static_cast<size_t>(sendBytes(me)));
  auto cut = [&](int64_t total, int64_t offset) {
    return static_cast<int64_t>(static_cast<__int128>(total) * offset /
                                c.block);
  };
  std::vector<MPI_Request> requests;
  // This member's pieces of `phase` on one side: receives (from each
  // piece's source) or sends (to its destination).
  auto post = [&](const std::vector<Piece> &phase, bool receive) {
    for (const Piece &p : phase) {
      if ((receive ? p.dst : p.src) != me)
        continue;
      int peer = receive ? p.src : p.dst;
      int64_t total = receive ? recvBytes(peer) : sendBytes(peer);
      char *base = receive ? recv + recvAt(peer)
                           : const_cast<char *>(send) + sendAt(peer);
      int64_t from = cut(total, p.offset), to = cut(total, p.offset + p.bytes);
      if (int err = postBytes(base + from, to - from, commRankOf[peer], receive,
                              /*synchronous=*/false, wire, requests))
        return err;
    }
    return int(MPI_SUCCESS);
  };
  for (const std::vector<Piece> &phase : c.phases) {
    requests.clear();
    if (int err = post(phase, /*receive=*/true))
      return err;
    if (int err = post(phase, /*receive=*/false))
      return err;
    int err = PMPI_Waitall(static_cast<int>(requests.size()), requests.data(),
                           MPI_STATUSES_IGNORE);
    if (err != MPI_SUCCESS)
      return err;
  }
  return MPI_SUCCESS;
}

void countFallback(Function f, FallbackReason reason) {
  std::lock_guard<std::mutex> lock(state().mutex);
  ++state().stats[f].fellBack[reason];
}

void countServed(Function f) {
  std::lock_guard<std::mutex> lock(state().mutex);
  ++state().stats[f].served;
}

/// The communicator's state if phasec may serve calls on it (else the call
/// is counted as the MPI library's, with its reason).
bool usable(State &s, MPI_Comm comm, Function f, Plan &plan) {
  if (!s.initialized || comm == MPI_COMM_NULL)
    return false;
  CommInfo *info = commInfo(s, comm);
  if (!info->usable) {
    countFallback(f, info->reason);
    return false;
  }
  int rank;
  PMPI_Comm_rank(comm, &rank);
  plan.info = info;
  plan.me = info->memberOfCommRank[rank];
  return true;
}

/// Whether phasec serves this alltoall(v).
bool serveAlltoall(State &s, MPI_Comm comm, Function f, Plan &plan) {
  if (!usable(s, comm, f, plan))
    return false;
  decideAlltoall(s, *plan.info, comm);
  if (plan.info->alltoall)
    return true;
  countFallback(f, plan.info->alltoallReason);
  return false;
}

/// A relaying call: its kind, root (comm rank, -1), and the elements of a
/// block: `count` of `elementBytes` (a reduction's datatype; 1 and bytes
/// otherwise, which are cut anywhere).
struct RelayCall {
  CollectiveKind kind;
  int root = -1; // rooted kinds: the call's root
  bool rooted = false;
  int64_t count = 0, elementBytes = 1;
  MPI_Datatype type = MPI_DATATYPE_NULL; // reductions
  MPI_Op op = MPI_OP_NULL;
};

/// Whether phasec serves this relaying call; `relay` is its schedule. A
/// call-level reason (`early`, kNumReasons for none) is counted only on a
/// communicator phasec could otherwise serve.
bool serveRelay(State &s, MPI_Comm comm, Function f, const RelayCall &call,
                FallbackReason early, Plan &plan, const CompiledRelay *&relay) {
  if (!usable(s, comm, f, plan))
    return false;
  FallbackReason reason = early;
  // A root or count MPI rejects: MPI reports it.
  if ((call.rooted &&
       (call.root < 0 ||
        call.root >= static_cast<int>(plan.info->memberOfCommRank.size()))) ||
      call.count < 0)
    reason = kInvalid;
  if (reason == kNumReasons && call.count == 0)
    reason = kNoData;
  if (reason == kNumReasons &&
      (call.kind == CollectiveKind::Scan ||
       call.kind == CollectiveKind::Exscan) &&
      !plan.info->inWorldOrder())
    reason = kRankOrder;
  if (reason == kNumReasons) {
    RelayKey key{call.kind,
                 call.rooted ? plan.info->memberOfCommRank[call.root] : -1, 1,
                 call.count * call.elementBytes};
    // A reduction's schedule is cut at its elements where phasec has an
    // element type of that size.
    if (call.elementBytes != 1 &&
        elementTypeBytes(elementTypeOfSize(call.elementBytes)) ==
            call.elementBytes) {
      key.elementBytes = call.elementBytes;
      key.count = call.count;
    }
    key.count = static_cast<int64_t>(
        llvm::PowerOf2Ceil(static_cast<uint64_t>(key.count)));
    relay = decideRelay(s, *plan.info, comm, key, reason);
    if (relay)
      return true;
  }
  countFallback(f, reason);
  return false;
}

/// Checks a reduction's datatype and operator (the same on every rank, says
/// the standard): kNumReasons if phasec can combine with them.
FallbackReason reductionReason(MPI_Datatype type, MPI_Op op,
                               int64_t &elementBytes) {
  int commutative = 0;
  PMPI_Op_commutative(op, &commutative);
  MPI_Aint extent;
  int size;
  bool dense = contiguous(type, extent, size);
  elementBytes = size;
  if (!commutative)
    return kNonCommutative;
  if (!dense)
    return kNotContiguous;
  return kNumReasons;
}

/// Where the chunks of a call lie in the work space: `blocks` blocks of
/// `blockCount` elements of `elementBytes`, each cut into `perBlock` chunks
/// at element boundaries.
struct ChunkLayout {
  int64_t perBlock, blockCount, elementBytes;
  int64_t begin(int64_t chunk) const {
    return at(chunk / perBlock, chunk % perBlock);
  }
  int64_t end(int64_t chunk) const {
    return at(chunk / perBlock, chunk % perBlock + 1);
  }
  /// Bytes of the runs of a transfer (consecutive chunks are adjacent).
  int64_t bytes(const RelayPiece &p) const {
    int64_t n = 0;
    for (auto [chunk, count] : p.runs)
      n += end(chunk + count - 1) - begin(chunk);
    return n;
  }

private:
  int64_t at(int64_t block, int64_t part) const {
    return (block * blockCount +
            static_cast<int64_t>(static_cast<__int128>(blockCount) * part /
                                 perBlock)) *
           elementBytes;
  }
};

/// Runs a relaying schedule on the work space D (the call's data as the
/// layout says): phase by phase, or every message at once when nothing is
/// forwarded; a phase's messages land in a scratch, then its copies and its
/// reductions (`type`, `op`) are applied in phase order.
int runRelay(const Plan &plan, const CompiledRelay &relay,
             const ChunkLayout &layout, char *D, MPI_Datatype type, MPI_Op op) {
  CommInfo &info = *plan.info;
  const std::vector<int> &commRankOf = info.commRankOfMember;
  const int me = plan.me;
  struct Staged {
    size_t phase;
    const RelayPiece *piece;
    int64_t at;
  };
  std::vector<Staged> staged;
  std::vector<MPI_Request> requests;
  auto post = [&](char *buf, int64_t bytes, int peer, bool receive,
                  bool synchronous) {
    return postBytes(buf, bytes, commRankOf[peer], receive, synchronous,
                     info.wire, requests);
  };
  // Phases [first, last): receives, sends, wait, apply.
  auto run = [&](size_t first, size_t last, bool synchronous) {
    int64_t receiveBytes = 0, packBytes = 0;
    for (size_t j = first; j < last; ++j)
      for (const RelayPiece &p : relay.phases[j]) {
        if (p.dst == me)
          receiveBytes += layout.bytes(p);
        if (p.src == me && p.runs.size() > 1)
          packBytes += layout.bytes(p);
      }
    if (static_cast<int64_t>(info.receive.size()) < receiveBytes)
      info.receive.resize(static_cast<size_t>(receiveBytes));
    if (static_cast<int64_t>(info.pack.size()) < packBytes)
      info.pack.resize(static_cast<size_t>(packBytes));
    staged.clear();
    requests.clear();
    int64_t at = 0;
    for (size_t j = first; j < last; ++j)
      for (const RelayPiece &p : relay.phases[j]) {
        int64_t bytes = layout.bytes(p);
        if (p.dst != me || !bytes)
          continue;
        staged.push_back({j, &p, at});
        if (int err =
                post(info.receive.data() + at, bytes, p.src, true, synchronous))
          return err;
        at += bytes;
      }
    at = 0;
    for (size_t j = first; j < last; ++j)
      for (const RelayPiece &p : relay.phases[j]) {
        int64_t bytes = layout.bytes(p);
        if (p.src != me || !bytes)
          continue;
        char *buf = D + layout.begin(p.runs.front().first);
        if (p.runs.size() > 1) {
          buf = info.pack.data() + at;
          for (auto [chunk, count] : p.runs) {
            int64_t from = layout.begin(chunk),
                    to = layout.end(chunk + count - 1);
            std::memcpy(info.pack.data() + at, D + from,
                        static_cast<size_t>(to - from));
            at += to - from;
          }
        }
        if (int err = post(buf, bytes, p.dst, false, synchronous))
          return err;
      }
    int err = PMPI_Waitall(static_cast<int>(requests.size()), requests.data(),
                           MPI_STATUSES_IGNORE);
    if (err != MPI_SUCCESS)
      return err;
    // Copies, then reductions, phase by phase (the replay's order).
    for (size_t j = first; j < last; ++j)
      for (int reduce = 0; reduce < 2; ++reduce)
        for (const Staged &x : staged) {
          if (x.phase != j || x.piece->reduce != (reduce != 0))
            continue;
          const char *in = info.receive.data() + x.at;
          for (auto [chunk, count] : x.piece->runs) {
            int64_t from = layout.begin(chunk),
                    to = layout.end(chunk + count - 1);
            if (!reduce) {
              std::memcpy(D + from, in, static_cast<size_t>(to - from));
            } else {
              int64_t elements = (to - from) / layout.elementBytes;
              for (int64_t e = 0; e < elements;) {
                int n = static_cast<int>(
                    std::min<int64_t>(elements - e, INT32_MAX));
                int err = PMPI_Reduce_local(in + e * layout.elementBytes,
                                            D + from + e * layout.elementBytes,
                                            n, type, op);
                if (err != MPI_SUCCESS)
                  return err;
                e += n;
              }
            }
            in += to - from;
          }
        }
    return int(MPI_SUCCESS);
  };
  // A schedule that forwards nothing: every message at once from the work
  // space as it was on entry (nothing is applied before all have arrived).
  if (relay.allAtOnce)
    return run(0, relay.phases.size(), /*synchronous=*/false);
  // Otherwise phase after phase; synchronous sends keep a rank's phases in
  // order (an eager send would complete at once and its next phase's
  // messages would share the injection port with it; RelayC.cpp measured
  // this for the generated code).
  for (size_t j = 0; j < relay.phases.size(); ++j)
    if (int err = run(j, j + 1, /*synchronous=*/true))
      return err;
  return MPI_SUCCESS;
}

/// The communicator's work space of at least `bytes`.
char *workSpace(CommInfo &info, int64_t bytes) {
  if (static_cast<int64_t>(info.work.size()) < bytes)
    info.work.resize(static_cast<size_t>(bytes));
  return info.work.data();
}

int64_t typeSize(MPI_Datatype type) {
  int size = 0;
  PMPI_Type_size(type, &size);
  return size;
}

/// A reduction served by schedule: the work space D starts as this rank's
/// input (`in`, bytes of `count` elements) and the schedule combines into
/// it. `D` may be the receive buffer.
int reduceInto(const Plan &plan, const CompiledRelay &relay,
               const RelayCall &call, const void *in, char *D) {
  const int64_t bytes = call.count * call.elementBytes;
  if (in != MPI_IN_PLACE && in != D)
    std::memcpy(D, in, static_cast<size_t>(bytes));
  ChunkLayout layout{relay.perBlock, call.count, call.elementBytes};
  return runRelay(plan, relay, layout, D, call.type, call.op);
}

/// The byte views of the blocks a gathering call (gather, allgather)
/// receives: `view` over the receive buffer (comm rank order), this
/// rank's block put in from `block` unless it is already there (nullptr),
/// the schedule run in member order and the blocks put back.
int gatherInto(const Plan &plan, const CompiledRelay &relay, int64_t blockBytes,
               const char *block, ByteView &view) {
  CommInfo &info = *plan.info;
  const int64_t n = static_cast<int64_t>(info.commRankOfMember.size());
  const int myRank = info.commRankOfMember[plan.me];
  const bool direct = info.inWorldOrder();
  char *D = direct ? view.bytes : workSpace(info, n * blockBytes);
  const char *mine = block ? block : view.bytes + myRank * blockBytes;
  if (D + plan.me * blockBytes != mine)
    std::memcpy(D + plan.me * blockBytes, mine,
                static_cast<size_t>(blockBytes));
  ChunkLayout layout{relay.perBlock, blockBytes, 1};
  if (int err = runRelay(plan, relay, layout, D, MPI_BYTE, MPI_OP_NULL))
    return err;
  if (!direct)
    for (int64_t m = 0; m < n; ++m)
      std::memcpy(view.bytes + info.commRankOfMember[m] * blockBytes,
                  D + m * blockBytes, static_cast<size_t>(blockBytes));
  return MPI_SUCCESS;
}

void setUp() {
  State &s = state();
  const char *machine = std::getenv("PHASEC_PMPI_MACHINE");
  const char *schedules = std::getenv("PHASEC_PMPI_SCHEDULES");
  const char *cache = std::getenv("PHASEC_PMPI_CACHE");
  const char *report = std::getenv("PHASEC_PMPI_REPORT");
  s.report = report && *report && std::strcmp(report, "0") != 0;
  if ((!machine || !*machine) && (!schedules || !*schedules))
    fatal("set PHASEC_PMPI_MACHINE (a topology spec such as "
          "'torus:2x2;bw=1e9') or PHASEC_PMPI_SCHEDULES (phasec "
          "--emit=schedule-json files, ':'-separated)");
  if (machine && *machine) {
    s.machineSpec = machine;
    llvm::Expected<std::unique_ptr<Topology>> topology =
        createTopology(machine);
    if (!topology)
      fatal("PHASEC_PMPI_MACHINE='" + s.machineSpec +
            "': " + llvm::toString(topology.takeError()));
    s.machine = std::move(*topology);
  }
  if (schedules && *schedules) {
    llvm::SmallVector<llvm::StringRef> files;
    llvm::StringRef(schedules).split(files, ':', -1, false);
    for (llvm::StringRef file : files) {
      std::string error;
      ScheduleFile loaded;
      if (!loadScheduleFile(file.str(), loaded, error))
        fatal("PHASEC_PMPI_SCHEDULES: " + error);
      s.given.insert(loaded.alltoalls.begin(), loaded.alltoalls.end());
      s.givenRelays.insert(loaded.relays.begin(), loaded.relays.end());
    }
  }
  if (cache && *cache)
    s.cacheDir = cache;
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, deleteCommInfo, &s.keyval,
                          nullptr);
  s.initialized = true;
}

void printStats(const char *name, const Stats &stats) {
  long calls = stats.served;
  for (long n : stats.fellBack)
    calls += n;
  if (!calls)
    return;
  std::fprintf(stderr, "libphasec-pmpi: %s: %ld by schedule", name,
               stats.served);
  for (int r = 0; r < kNumReasons; ++r)
    if (stats.fellBack[r])
      std::fprintf(stderr, ", %ld by MPI (%s)", stats.fellBack[r],
                   kReasonText[r]);
  std::fprintf(stderr, "\n");
}

} // namespace

extern "C" {

int MPI_Init(int *argc, char ***argv) {
  int err = PMPI_Init(argc, argv);
  if (err == MPI_SUCCESS)
    setUp();
  return err;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  int err = PMPI_Init_thread(argc, argv, required, provided);
  if (err == MPI_SUCCESS)
    setUp();
  return err;
}

int MPI_Finalize(void) {
  State &s = state();
  if (s.initialized) {
    if (s.report) {
      int me;
      PMPI_Comm_rank(MPI_COMM_WORLD, &me);
      if (me == 0) {
        for (int f = 0; f < kNumFunctions; ++f)
          printStats(kFunctionName[f], s.stats[f]);
      }
    }
    // What phasec keeps on the world goes with its attribute; the
    // duplicates of communicators the program never freed go before MPI.
    void *attr = nullptr;
    int found = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, s.keyval, &attr, &found);
    if (found)
      PMPI_Comm_delete_attr(MPI_COMM_WORLD, s.keyval);
    std::vector<MPI_Comm> dups;
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      dups.swap(s.dups);
    }
    for (MPI_Comm &dup : dups)
      PMPI_Comm_free(&dup);
    PMPI_Comm_free_keyval(&s.keyval);
    s.initialized = false;
  }
  return PMPI_Finalize();
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 MPI_Comm comm) {
  State &s = state();
  Plan plan;
  if (!serveAlltoall(s, comm, kAlltoall, plan))
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                         recvtype, comm);
  const int64_t p = static_cast<int64_t>(plan.info->commRankOfMember.size());
  ByteView sendView, recvView;
  viewRecv(recvbuf, recvcount * p, recvtype, comm, recvView);
  if (sendbuf == MPI_IN_PLACE) {
    viewInPlace(recvbuf, recvcount * p, recvtype, comm, sendView);
    sendcount = recvcount;
  } else {
    viewSend(sendbuf, sendcount * p, sendtype, comm, sendView);
  }
  const int64_t sendBlock = sendcount * sendView.elementBytes;
  const int64_t recvBlock = recvcount * recvView.elementBytes;
  // Blocks are in comm rank order in the buffers.
  auto sendAt = [&](int m) {
    return plan.info->commRankOfMember[m] * sendBlock;
  };
  auto recvAt = [&](int m) {
    return plan.info->commRankOfMember[m] * recvBlock;
  };
  auto sendBytes = [&](int) { return sendBlock; };
  auto recvBytes = [&](int) { return recvBlock; };
  int err = runPhases(plan, sendView.bytes, recvView.bytes, sendBytes,
                      recvBytes, sendAt, recvAt);
  if (err != MPI_SUCCESS)
    return err;
  unpackRecv(recvbuf, recvcount * p, recvtype, comm, recvView);
  countServed(kAlltoall);
  return MPI_SUCCESS;
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[],
                  const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
  State &s = state();
  Plan plan;
  if (!serveAlltoall(s, comm, kAlltoallv, plan))
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                          recvcounts, rdispls, recvtype, comm);
  const int p = static_cast<int>(plan.info->commRankOfMember.size());
  // Byte views over the whole extent the displacements reach.
  auto span = [&](const int counts[], const int displs[]) {
    int64_t end = 0;
    for (int i = 0; i < p; ++i)
      end = std::max<int64_t>(end, int64_t(displs[i]) + counts[i]);
    return end;
  };
  ByteView sendView, recvView;
  const bool inPlace = sendbuf == MPI_IN_PLACE;
  const int64_t recvSpan = span(recvcounts, rdispls);
  viewRecv(recvbuf, recvSpan, recvtype, comm, recvView);
  if (inPlace) {
    viewInPlace(recvbuf, recvSpan, recvtype, comm, sendView);
    sendcounts = recvcounts;
    sdispls = rdispls;
  } else {
    viewSend(sendbuf, span(sendcounts, sdispls), sendtype, comm, sendView);
  }
  // Counts and displacements are per comm rank, in elements.
  auto sendAt = [&](int m) {
    return int64_t(sdispls[plan.info->commRankOfMember[m]]) *
           sendView.elementBytes;
  };
  auto recvAt = [&](int m) {
    return int64_t(rdispls[plan.info->commRankOfMember[m]]) *
           recvView.elementBytes;
  };
  auto sendBytes = [&](int m) {
    return int64_t(sendcounts[plan.info->commRankOfMember[m]]) *
           sendView.elementBytes;
  };
  auto recvBytes = [&](int m) {
    return int64_t(recvcounts[plan.info->commRankOfMember[m]]) *
           recvView.elementBytes;
  };
  int err = runPhases(plan, sendView.bytes, recvView.bytes, sendBytes,
                      recvBytes, sendAt, recvAt);
  if (err != MPI_SUCCESS)
    return err;
  unpackRecv(recvbuf, recvSpan, recvtype, comm, recvView);
  countServed(kAlltoallv);
  return MPI_SUCCESS;
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
              MPI_Comm comm) {
  State &s = state();
  Plan plan;
  const CompiledRelay *relay = nullptr;
  RelayCall call{CollectiveKind::Broadcast, root, true};
  if (s.initialized)
    call.count = count * typeSize(datatype);
  if (!serveRelay(s, comm, kBcast, call, kNumReasons, plan, relay))
    return PMPI_Bcast(buffer, count, datatype, root, comm);
  ByteView view;
  viewRecv(buffer, count, datatype, comm, view);
  ChunkLayout layout{relay->perBlock, call.count, 1};
  if (int err =
          runRelay(plan, *relay, layout, view.bytes, MPI_BYTE, MPI_OP_NULL))
    return err;
  if (plan.info->commRankOfMember[plan.me] != root)
    unpackRecv(buffer, count, datatype, comm, view);
  countServed(kBcast);
  return MPI_SUCCESS;
}

/// Whether phasec serves a reduction (its datatype and operator checked
/// first).
static bool serveReduction(MPI_Comm comm, Function f, RelayCall &call,
                           Plan &plan, const CompiledRelay *&relay) {
  State &s = state();
  FallbackReason early =
      s.initialized ? reductionReason(call.type, call.op, call.elementBytes)
                    : kNumReasons;
  return serveRelay(s, comm, f, call, early, plan, relay);
}

/// MPI_Allreduce and MPI_Scan: every rank combines into its receive
/// buffer. `served` says whether phasec did (else the caller hands the call
/// to MPI).
static int combineInReceive(Function f, CollectiveKind kind,
                            const void *sendbuf, void *recvbuf, int count,
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                            bool &served) {
  Plan plan;
  const CompiledRelay *relay = nullptr;
  RelayCall call{kind, -1, false, count, 1, datatype, op};
  served = serveReduction(comm, f, call, plan, relay);
  if (!served)
    return MPI_SUCCESS;
  if (int err =
          reduceInto(plan, *relay, call, sendbuf, static_cast<char *>(recvbuf)))
    return err;
  countServed(f);
  return MPI_SUCCESS;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  Plan plan;
  const CompiledRelay *relay = nullptr;
  RelayCall call{CollectiveKind::Reduce, root, true, count, 1, datatype, op};
  if (!serveReduction(comm, kReduce, call, plan, relay))
    return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
  // The root combines into its receive buffer, the others into phasec's
  // work space.
  const bool isRoot = plan.info->commRankOfMember[plan.me] == root;
  char *D = isRoot ? static_cast<char *>(recvbuf)
                   : workSpace(*plan.info, call.count * call.elementBytes);
  if (int err = reduceInto(plan, *relay, call, sendbuf, D))
    return err;
  countServed(kReduce);
  return MPI_SUCCESS;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  bool served = false;
  int err = combineInReceive(kAllreduce, CollectiveKind::Allreduce, sendbuf,
                             recvbuf, count, datatype, op, comm, served);
  return served ? err
                : PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count,
             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  bool served = false;
  int err = combineInReceive(kScan, CollectiveKind::Scan, sendbuf, recvbuf,
                             count, datatype, op, comm, served);
  return served ? err : PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  Plan plan;
  const CompiledRelay *relay = nullptr;
  RelayCall call{CollectiveKind::Exscan, -1, false, count, 1, datatype, op};
  if (!serveReduction(comm, kExscan, call, plan, relay))
    return PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm);
  // Rank 0's receive buffer is left as it was (MPI leaves it undefined).
  const int64_t bytes = call.count * call.elementBytes;
  char *D = workSpace(*plan.info, bytes);
  if (int err = reduceInto(plan, *relay, call,
                           sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, D))
    return err;
  if (plan.me > 0)
    std::memcpy(recvbuf, D, static_cast<size_t>(bytes));
  countServed(kExscan);
  return MPI_SUCCESS;
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  Plan plan;
  const CompiledRelay *relay = nullptr;
  RelayCall call{
      CollectiveKind::ReduceScatter, -1, false, recvcount, 1, datatype, op};
  if (!serveReduction(comm, kReduceScatterBlock, call, plan, relay))
    return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op,
                                     comm);
  // The work space holds the blocks in member order.
  CommInfo &info = *plan.info;
  const int64_t n = static_cast<int64_t>(info.commRankOfMember.size());
  const int64_t block = call.count * call.elementBytes;
  char *D = workSpace(info, n * block);
  const char *in =
      static_cast<const char *>(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf);
  for (int64_t m = 0; m < n; ++m)
    std::memcpy(D + m * block, in + info.commRankOfMember[m] * block,
                static_cast<size_t>(block));
  ChunkLayout layout{relay->perBlock, call.count, call.elementBytes};
  if (int err = runRelay(plan, *relay, layout, D, datatype, op))
    return err;
  std::memcpy(recvbuf, D + plan.me * block, static_cast<size_t>(block));
  countServed(kReduceScatterBlock);
  return MPI_SUCCESS;
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  MPI_Comm comm) {
  State &s = state();
  Plan plan;
  const CompiledRelay *relay = nullptr;
  RelayCall call{CollectiveKind::Allgather};
  if (s.initialized)
    call.count = recvcount * typeSize(recvtype);
  if (!serveRelay(s, comm, kAllgather, call, kNumReasons, plan, relay))
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                          recvtype, comm);
  const int64_t n = static_cast<int64_t>(plan.info->commRankOfMember.size());
  ByteView recvView, sendView;
  viewRecv(recvbuf, recvcount * n, recvtype, comm, recvView);
  if (sendbuf != MPI_IN_PLACE)
    viewSend(sendbuf, sendcount, sendtype, comm, sendView);
  if (int err = gatherInto(plan, *relay, call.count,
                           sendbuf == MPI_IN_PLACE ? nullptr : sendView.bytes,
                           recvView))
    return err;
  unpackRecv(recvbuf, recvcount * n, recvtype, comm, recvView);
  countServed(kAllgather);
  return MPI_SUCCESS;
}

/// MPI_Gather and MPI_Scatter: a block's bytes are the root's `rootCount`
/// of `rootType` and every other rank's `count` of `type` (the standard
/// makes them equal). Whether phasec serves the call; `rank` is this
/// rank's in comm.
static bool serveRooted(MPI_Comm comm, Function f, int rootCount,
                        MPI_Datatype rootType, int count, MPI_Datatype type,
                        RelayCall &call, Plan &plan,
                        const CompiledRelay *&relay, int &rank) {
  State &s = state();
  if (s.initialized && comm != MPI_COMM_NULL) {
    PMPI_Comm_rank(comm, &rank);
    call.count = rank == call.root ? rootCount * typeSize(rootType)
                                   : count * typeSize(type);
  }
  return serveRelay(s, comm, f, call, kNumReasons, plan, relay);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
               void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
               MPI_Comm comm) {
  Plan plan;
  const CompiledRelay *relay = nullptr;
  RelayCall call{CollectiveKind::Gather, root, true};
  int rank = -1;
  if (!serveRooted(comm, kGather, recvcount, recvtype, sendcount, sendtype,
                   call, plan, relay, rank))
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                       recvtype, root, comm);
  const int64_t n = static_cast<int64_t>(plan.info->commRankOfMember.size());
  ByteView sendView;
  if (sendbuf != MPI_IN_PLACE)
    viewSend(sendbuf, sendcount, sendtype, comm, sendView);
  if (rank == root) {
    ByteView recvView;
    viewRecv(recvbuf, recvcount * n, recvtype, comm, recvView);
    if (int err = gatherInto(plan, *relay, call.count,
                             sendbuf == MPI_IN_PLACE ? nullptr : sendView.bytes,
                             recvView))
      return err;
    unpackRecv(recvbuf, recvcount * n, recvtype, comm, recvView);
  } else {
    // Every block in the work space: a tree gathers others' blocks here.
    char *D = workSpace(*plan.info, n * call.count);
    std::memcpy(D + plan.me * call.count, sendView.bytes,
                static_cast<size_t>(call.count));
    ChunkLayout layout{relay->perBlock, call.count, 1};
    if (int err = runRelay(plan, *relay, layout, D, MPI_BYTE, MPI_OP_NULL))
      return err;
  }
  countServed(kGather);
  return MPI_SUCCESS;
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  Plan plan;
  const CompiledRelay *relay = nullptr;
  RelayCall call{CollectiveKind::Scatter, root, true};
  int rank = -1;
  if (!serveRooted(comm, kScatter, sendcount, sendtype, recvcount, recvtype,
                   call, plan, relay, rank))
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                        recvtype, root, comm);
  CommInfo &info = *plan.info;
  const int64_t n = static_cast<int64_t>(info.commRankOfMember.size());
  const int64_t block = call.count;
  // The blocks in member order in the work space (the root's from its
  // send buffer, in comm rank order).
  char *D = workSpace(info, n * block);
  if (rank == root) {
    ByteView sendView;
    viewSend(sendbuf, sendcount * n, sendtype, comm, sendView);
    for (int64_t m = 0; m < n; ++m)
      std::memcpy(D + m * block,
                  sendView.bytes + info.commRankOfMember[m] * block,
                  static_cast<size_t>(block));
  }
  ChunkLayout layout{relay->perBlock, block, 1};
  if (int err = runRelay(plan, *relay, layout, D, MPI_BYTE, MPI_OP_NULL))
    return err;
  if (recvbuf != MPI_IN_PLACE) {
    ByteView recvView;
    viewRecv(recvbuf, recvcount, recvtype, comm, recvView);
    std::memcpy(recvView.bytes, D + plan.me * block,
                static_cast<size_t>(block));
    unpackRecv(recvbuf, recvcount, recvtype, comm, recvView);
  }
  countServed(kScatter);
  return MPI_SUCCESS;
}

} // extern "C"
