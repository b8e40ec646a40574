//===- PhasecPMPI.cpp - MPI_Alltoall(v) from phasec schedules -------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// libphasec-pmpi.so: preloaded under an unmodified MPI program
/// (`mpirun -x LD_PRELOAD=libphasec-pmpi.so -x PHASEC_PMPI_MACHINE=...`), it
/// serves MPI_Alltoall and MPI_Alltoallv through the MPI profiling interface
/// with congestion-free phases phasec scheduled for the machine, and hands
/// every call it has no schedule for to the MPI library's own
/// (PMPI_Alltoall). docs/pmpi.md is the user's guide.
///
/// Which calls are served must be the same on every rank of a call, or the
/// ranks would run different protocols and hang; so the decision depends
/// only on what every rank of the call sees alike: the communicator (intra,
/// its size, its ranks' world ranks), MPI_IN_PLACE (all or none, says the
/// standard) and the schedule, which comm rank 0 finds or computes and
/// broadcasts. Datatypes are local (each rank may use its own with the same
/// signature): every rank moves bytes on the wire, packing a datatype that
/// is not contiguous into a buffer of its own first.
///
/// The schedule: the alltoall of the communicator's world ranks on the
/// machine (world rank r is machine rank r), from a phasec-schedule/1 file
/// given ahead (PHASEC_PMPI_SCHEDULES), the cache (PHASEC_PMPI_CACHE) or
/// scheduled on first use (scheduleAuto, verified by Problem::verify) and
/// written to the cache. Its phases say which pair moves when; a call's
/// block of c bytes (alltoallv: each pair's own count) is cut where the
/// schedule cuts its block of B bytes: a piece over [o, o + b) of B moves
/// bytes [c o / B, c (o + b) / B). Phases run in order, each waiting for its
/// own receives and sends.
///
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Algorithms.h"
#include "phasec/Scheduling/BuildProblem.h"
#include "phasec/Scheduling/Collective.h"
#include "phasec/Scheduling/ScheduleJSON.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
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

/// Why a call went to the MPI library.
enum FallbackReason {
  kIntercomm,
  kSingleRank,
  kOutsideMachine,
  kNoSchedule,
  kNumReasons
};
const char *const kReasonText[kNumReasons] = {
    "intercommunicator", "communicator of one rank",
    "ranks outside the machine", "no schedule"};

struct Stats {
  long served = 0;
  long fellBack[kNumReasons] = {};
};

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
  /// Ahead-of-time schedules, by sorted world ranks.
  std::map<std::vector<int>, std::shared_ptr<CompiledAlltoall>> given;
  int keyval = MPI_KEYVAL_INVALID;
  std::vector<MPI_Comm> dups;
  Stats alltoall, alltoallv;
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

/// The sorted ranks an alltoall document's demands cover.
std::vector<int> groupOf(const TransferSet &transfers) {
  std::vector<int> ranks;
  for (const Demand &d : transfers)
    ranks.push_back(static_cast<int>(d.src));
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

/// Reads the alltoall documents of a phasec-schedule/1 file into `into`.
bool loadScheduleFile(
    const std::string &path,
    std::map<std::vector<int>, std::shared_ptr<CompiledAlltoall>> &into,
    std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error = "cannot read " + path + ": " + buffer.getError().message();
    return false;
  }
  llvm::FailureOr<std::vector<ParsedScheduleDocument>> docs =
      readScheduleJSON((*buffer)->getBuffer(), error);
  if (llvm::failed(docs)) {
    error = path + ": " + error;
    return false;
  }
  for (ParsedScheduleDocument &doc : *docs) {
    if (doc.info.kind != "alltoall")
      continue;
    std::optional<int64_t> block = doc.transfers.uniformBytes();
    if (!block)
      continue;
    std::vector<int> ranks = groupOf(doc.transfers);
    into[ranks] = compile(ranks, doc.schedule, *block);
  }
  return true;
}

std::string cachePath(const State &s, const std::vector<int> &ranks) {
  llvm::hash_code h = llvm::hash_combine(
      s.machineSpec, llvm::hash_combine_range(ranks.begin(), ranks.end()));
  return s.cacheDir + "/alltoall-" +
         llvm::utohexstr(static_cast<uint64_t>(size_t(h))) + ".json";
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
    std::map<std::vector<int>, std::shared_ptr<CompiledAlltoall>> cached;
    std::string error;
    if (llvm::sys::fs::exists(path) && loadScheduleFile(path, cached, error)) {
      auto it = cached.find(ranks);
      if (it != cached.end())
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
  if (!path.empty()) {
    (void)llvm::sys::fs::create_directories(s.cacheDir);
    std::error_code ec;
    llvm::raw_fd_ostream os(path + ".tmp", ec);
    if (!ec) {
      writeScheduleJSON(os, **problem, schedule, {"alltoall", "alltoall"});
      os.close();
      (void)llvm::sys::fs::rename(path + ".tmp", path);
    }
  }
  return compile(ranks, schedule, kScheduleBlock);
}

/// Rank 0 decides, every rank gets the same schedule (or none).
std::shared_ptr<CompiledAlltoall>
agreeOnSchedule(State &s, MPI_Comm comm, const std::vector<int> &ranks) {
  int me;
  PMPI_Comm_rank(comm, &me);
  std::vector<int64_t> wire;
  if (me == 0) {
    std::string why;
    std::shared_ptr<CompiledAlltoall> compiled;
    bool known = false;
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      auto it = s.schedules.find(ranks);
      if (it != s.schedules.end()) {
        compiled = it->second;
        known = true;
        why = "no schedule (as before)";
      }
    }
    if (!known) {
      compiled = findOrSchedule(s, ranks, why);
      std::lock_guard<std::mutex> lock(s.mutex);
      s.schedules[ranks] = compiled;
    }
    if (!compiled) {
      if (s.report)
        std::fprintf(stderr, "libphasec-pmpi: no schedule for %zu ranks: %s\n",
                     ranks.size(), why.c_str());
      wire.push_back(-1);
    } else {
      wire.push_back(compiled->block);
      wire.push_back(static_cast<int64_t>(compiled->phases.size()));
      for (const std::vector<Piece> &phase : compiled->phases) {
        wire.push_back(static_cast<int64_t>(phase.size()));
        for (const Piece &p : phase) {
          wire.push_back(p.src);
          wire.push_back(p.dst);
          wire.push_back(p.offset);
          wire.push_back(p.bytes);
        }
      }
    }
  }
  int64_t n = static_cast<int64_t>(wire.size());
  PMPI_Bcast(&n, 1, MPI_INT64_T, 0, comm);
  wire.resize(n);
  // Schedules of huge machines exceed an int count: broadcast in pieces.
  for (int64_t at = 0; at < n; at += 1 << 28) {
    int count = static_cast<int>(std::min<int64_t>(1 << 28, n - at));
    PMPI_Bcast(wire.data() + at, count, MPI_INT64_T, 0, comm);
  }
  if (wire[0] < 0)
    return nullptr;
  auto out = std::make_shared<CompiledAlltoall>();
  out->block = wire[0];
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
    out->phases.push_back(std::move(pieces));
  }
  return out;
}

/// What phasec keeps on a communicator (an MPI attribute, so that it goes
/// with the communicator): the verdict of its first call, and for a served
/// communicator the schedule, phasec's duplicate of it and the comm rank
/// <-> member maps.
struct CommInfo {
  std::shared_ptr<CompiledAlltoall> schedule; // null: the MPI library's
  FallbackReason reason = kNoSchedule;
  MPI_Comm wire = MPI_COMM_NULL;
  std::vector<int> memberOfCommRank, commRankOfMember;
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

/// The verdict for `comm`, decided at its first call (collective over comm:
/// every rank reaches the same one) and kept on it.
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
    std::vector<int> sorted = worldRanks;
    std::sort(sorted.begin(), sorted.end());
    bool given = s.given.count(sorted) != 0;
    if (!given && s.machine && sorted.back() >= s.machine->numRanks()) {
      info->reason = kOutsideMachine;
    } else if (!given && !s.machine) {
      info->reason = kNoSchedule;
    } else {
      info->schedule = agreeOnSchedule(s, comm, sorted);
      info->reason = kNoSchedule;
    }
    if (info->schedule) {
      PMPI_Comm_dup(comm, &info->wire);
      {
        std::lock_guard<std::mutex> lock(s.mutex);
        s.dups.push_back(info->wire);
      }
      info->memberOfCommRank.resize(size);
      info->commRankOfMember.resize(size);
      for (int i = 0; i < size; ++i) {
        int m = static_cast<int>(
            std::lower_bound(sorted.begin(), sorted.end(), worldRanks[i]) -
            sorted.begin());
        info->memberOfCommRank[i] = m;
        info->commRankOfMember[m] = i;
      }
    }
  }
  PMPI_Comm_set_attr(comm, s.keyval, info);
  return info;
}

/// A served call: the communicator's schedule and my member index.
struct Plan {
  const CommInfo *info = nullptr;
  int me = 0;
};

bool makePlan(State &s, MPI_Comm comm, Plan &plan, FallbackReason &reason) {
  const CommInfo *info = commInfo(s, comm);
  if (!info->schedule) {
    reason = info->reason;
    return false;
  }
  int rank;
  PMPI_Comm_rank(comm, &rank);
  plan.info = info;
  plan.me = info->memberOfCommRank[rank];
  return true;
}

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

/// Runs the schedule: `sendBytes(m)`/`recvBytes(m)` are the bytes for and
/// from member m, at `sendAt(m)`/`recvAt(m)` in the byte views.
using MemberBytes = llvm::function_ref<int64_t(int)>;
int runPhases(const Plan &plan, const char *send, char *recv,
              MemberBytes sendBytes, MemberBytes recvBytes, MemberBytes sendAt,
              MemberBytes recvAt) {
  const CompiledAlltoall &c = *plan.info->schedule;
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
  // piece's source) or sends (to its destination), in pieces of at most an
  // int's count.
  auto post = [&](const std::vector<Piece> &phase, bool receive) {
    for (const Piece &p : phase) {
      if ((receive ? p.dst : p.src) != me)
        continue;
      int peer = receive ? p.src : p.dst;
      int64_t total = receive ? recvBytes(peer) : sendBytes(peer);
      char *base = receive ? recv + recvAt(peer)
                           : const_cast<char *>(send) + sendAt(peer);
      int64_t from = cut(total, p.offset), to = cut(total, p.offset + p.bytes);
      for (int64_t at = from; at < to;) {
        int n = static_cast<int>(std::min<int64_t>(to - at, INT32_MAX));
        requests.emplace_back();
        int err = receive ? PMPI_Irecv(base + at, n, MPI_BYTE, commRankOf[peer],
                                       kTag, wire, &requests.back())
                          : PMPI_Isend(base + at, n, MPI_BYTE, commRankOf[peer],
                                       kTag, wire, &requests.back());
        if (err != MPI_SUCCESS)
          return err;
        at += n;
      }
    }
    return int(MPI_SUCCESS); // an enum in SimGrid's mpi.h
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

void countFallback(Stats &stats, FallbackReason reason) {
  std::lock_guard<std::mutex> lock(state().mutex);
  ++stats.fellBack[reason];
}

void countServed(Stats &stats) {
  std::lock_guard<std::mutex> lock(state().mutex);
  ++stats.served;
}

/// Whether phasec serves this call (else it is counted as the MPI
/// library's, with its reason).
bool serve(State &s, MPI_Comm comm, Stats &stats, Plan &plan) {
  if (!s.initialized || comm == MPI_COMM_NULL)
    return false;
  FallbackReason reason = kNoSchedule;
  if (makePlan(s, comm, plan, reason))
    return true;
  countFallback(stats, reason);
  return false;
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
      if (!loadScheduleFile(file.str(), s.given, error))
        fatal("PHASEC_PMPI_SCHEDULES: " + error);
    }
  }
  if (cache && *cache)
    s.cacheDir = cache;
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, deleteCommInfo, &s.keyval,
                          nullptr);
  s.initialized = true;
}

void printStats(const char *name, const Stats &stats) {
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
        printStats("MPI_Alltoall", s.alltoall);
        printStats("MPI_Alltoallv", s.alltoallv);
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
  if (!serve(s, comm, s.alltoall, plan))
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
  countServed(s.alltoall);
  return MPI_SUCCESS;
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[],
                  const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
  State &s = state();
  Plan plan;
  if (!serve(s, comm, s.alltoallv, plan))
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
  countServed(s.alltoallv);
  return MPI_SUCCESS;
}

} // extern "C"
