//===- Pmpi.h - libphasec-pmpi's shared state, private ----------*- C++ -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What the parts of libphasec-pmpi.so share (docs/pmpi.md is the user's
/// guide): the schedules in member space, the per-communicator state kept
/// as an MPI attribute, the byte views of a call's buffers, the report's
/// counters. Private to targets/pmpi.
///
/// Which calls are served must be the same on every rank of a call, or the
/// ranks would run different protocols and hang; so the decision depends
/// only on what every rank of the call sees alike: the communicator (intra,
/// its size, its ranks' world ranks), the arguments the standard requires
/// to match (root, MPI_IN_PLACE, a reduction's count, datatype and
/// operator, the bytes of a block), and the schedule, which comm rank 0
/// finds or computes and broadcasts. Datatypes that only need matching
/// signatures are local: every rank moves bytes on the wire, packing a
/// datatype whose type map is not the identity over contiguous memory.
///
/// The parts: Schedules.cpp (schedule files, the cache, scheduling on first
/// use, agreement among ranks), Communicators.cpp (what is kept on a
/// communicator and which calls are served), Datatypes.cpp (layouts and
/// byte views), Engine.cpp (an Operation: a schedule run step by step),
/// Collectives.cpp and VCollectives.cpp (one builder per collective and the
/// blocking C bindings), Nonblocking.cpp (the MPI_I* bindings, MPI_Test*,
/// MPI_Wait*, progress inside blocking point-to-point calls), Fortran.cpp
/// (the Fortran bindings), Setup.cpp (configuration, MPI_Init and
/// MPI_Finalize, the report).
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_TARGETS_PMPI_PMPI_H
#define PHASEC_TARGETS_PMPI_PMPI_H

#include "phasec/Scheduling/Collective.h"
#include "phasec/Scheduling/Problem.h"
#include "phasec/Topology/Topology.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace phasec::pmpi {

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
  /// Calls whose largest block on a rank is below this many bytes post
  /// every phase at once (Schedules.cpp's atOnceBelow says when); 0: never.
  int64_t atOnceBelow = 0;
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
  /// The steps (relaySteps: the first phase of each, then the number of
  /// phases): a rank posts a step's messages at once and applies its
  /// phases once they are done. One step: nothing is forwarded.
  std::vector<size_t> steps;
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
  kUneven,
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
    "arguments MPI rejects",
    "counts too uneven for an equal-block schedule"};

struct Stats {
  long served = 0;
  long fellBack[kNumReasons] = {};
  /// Of all these, the calls made through the Fortran bindings.
  long fortran = 0;
};

/// The functions the library replaces, in the report's order: the blocking
/// ones, then their nonblocking forms.
// clang-format off
#define PHASEC_PMPI_FUNCTIONS(X) \
  X(Alltoall) \
  X(Alltoallv) \
  X(Alltoallw) \
  X(Bcast) \
  X(Reduce) \
  X(Allreduce) \
  X(Reduce_scatter_block) \
  X(Reduce_scatter) \
  X(Scan) \
  X(Exscan) \
  X(Allgather) \
  X(Allgatherv) \
  X(Gather) \
  X(Gatherv) \
  X(Scatter) \
  X(Scatterv) \
  X(Barrier) \
  X(Ialltoall) \
  X(Ialltoallv) \
  X(Ialltoallw) \
  X(Ibcast) \
  X(Ireduce) \
  X(Iallreduce) \
  X(Ireduce_scatter_block) \
  X(Ireduce_scatter) \
  X(Iscan) \
  X(Iexscan) \
  X(Iallgather) \
  X(Iallgatherv) \
  X(Igather) \
  X(Igatherv) \
  X(Iscatter) \
  X(Iscatterv) \
  X(Ibarrier)
// clang-format on

/// The reductions every rank of which combines into its own receive buffer
/// (sendbuf, recvbuf, count, datatype, op, comm), each with its C name, its
/// Fortran names and its CollectiveKind (the same as the C name): their C
/// (blocking and nonblocking) and Fortran bindings are made from this list.
// clang-format off
#define PHASEC_PMPI_COMBINE_CALLS(X) \
  X(Allreduce, allreduce, ALLREDUCE) \
  X(Scan, scan, SCAN) \
  X(Exscan, exscan, EXSCAN)
// clang-format on
enum Function {
#define PHASEC_PMPI_ENUM(name) k##name,
  PHASEC_PMPI_FUNCTIONS(PHASEC_PMPI_ENUM)
#undef PHASEC_PMPI_ENUM
      kNumFunctions
};
const char *const kFunctionName[kNumFunctions] = {
#define PHASEC_PMPI_NAME(name) "MPI_" #name,
    PHASEC_PMPI_FUNCTIONS(PHASEC_PMPI_NAME)
#undef PHASEC_PMPI_NAME
};

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
  std::map<std::tuple<std::vector<int>, CollectiveKind, int>,
           std::shared_ptr<CompiledAlltoall>>
      directs;
  /// Schedules every rank computed itself (a nonblocking call's first,
  /// which cannot wait for rank 0's): the same on every rank, since
  /// scheduling is deterministic and these come from nothing else (no
  /// cache, no map of rank 0's choices).
  std::map<std::vector<int>, std::shared_ptr<CompiledAlltoall>> ownSchedules;
  std::map<RelayRanksKey, std::shared_ptr<CompiledRelay>> ownRelays;
  std::map<std::tuple<std::vector<int>, CollectiveKind, int>,
           std::shared_ptr<CompiledAlltoall>>
      ownDirects;
  /// Ahead-of-time schedules, by sorted world ranks.
  std::map<std::vector<int>, std::shared_ptr<CompiledAlltoall>> given;
  std::map<GivenRelayKey, std::shared_ptr<CompiledRelay>> givenRelays;
  int keyval = MPI_KEYVAL_INVALID;
  /// Cache files found but not for the call that looked them up (rank 0).
  long cacheRejected = 0;
  std::vector<MPI_Comm> dups;
  Stats stats[kNumFunctions];
  /// Nonblocking calls in flight (their generalized requests), advanced by
  /// every MPI_Test* and MPI_Wait* and every served call.
  std::vector<std::pair<MPI_Request, class Operation *>> pending;
};

/// Set while a Fortran binding runs its C call (the report counts them).
extern thread_local bool inFortran;
/// Whether the call being decided may block: a blocking collective may,
/// and its first call of a kind on a communicator agrees on rank 0's
/// schedule with a broadcast (rank 0 may find it in the cache) and waits
/// for phasec's duplicate of the communicator; a nonblocking call must not
/// wait for other ranks, so every rank computes the schedule itself
/// (deterministic, without the cache) and its operation starts once the
/// duplicate (MPI_Comm_idup) is made.
extern thread_local bool mayBlock;

/// phasec's duplicate of a communicator while MPI_Comm_idup makes it:
/// nonblocking calls started meanwhile post their messages once it is.
struct PendingWire {
  std::mutex mutex;
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Comm comm = MPI_COMM_NULL;
  /// Whether the duplicate is made (tests the request, once at a time).
  bool ready() {
    std::lock_guard<std::mutex> lock(mutex);
    int flag = 0;
    PMPI_Test(&request, &flag, MPI_STATUS_IGNORE);
    return flag != 0;
  }
};

State &state();

/// Prints `message` as libphasec-pmpi's error and aborts the job.
[[noreturn]] void fatal(const std::string &message);

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
  /// Gatherv's and scatterv's direct schedules, by kind and root member.
  std::map<std::pair<CollectiveKind, int>,
           std::pair<std::shared_ptr<CompiledAlltoall>, FallbackReason>>
      directs;
  MPI_Comm wire = MPI_COMM_NULL;
  /// The duplicate while it is being made; null once it is `wire`.
  std::shared_ptr<PendingWire> pendingWire;
  std::vector<char> work, receive, pack;
  /// Served calls so far: MPI orders a communicator's collectives alike on
  /// every rank, so the count names a call's messages (their tag) and keeps
  /// those of calls in flight at once apart.
  uint32_t sequence = 0;

  /// Comm ranks in world order: member m is comm rank m.
  bool inWorldOrder() const {
    for (size_t m = 0; m < commRankOfMember.size(); ++m)
      if (commRankOfMember[m] != static_cast<int>(m))
        return false;
    return true;
  }
};

struct Plan {
  CommInfo *info = nullptr;
  int me = 0;

  /// The communicator's members (its ranks, in world order).
  int64_t numMembers() const {
    return static_cast<int64_t>(info->commRankOfMember.size());
  }
  /// Member m's comm rank.
  int rankOf(int64_t m) const { return info->commRankOfMember[m]; }
};

/// A buffer of bytes for a (count, datatype) array: the caller's memory
/// when the type is contiguous, else a packed copy.
struct ByteView {
  char *bytes = nullptr;
  int64_t elementBytes = 0; // bytes of one element on the wire
  std::vector<char> packed;
  bool isPacked = false;
};

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

/// Where the chunks of a call lie in the work space: blocks of `blockCount`
/// elements of `elementBytes` one after the other (or, for the
/// v-collectives, block b of counts[b] elements at element starts[b], the
/// starts their prefix sums), each cut into `perBlock` chunks at element
/// boundaries: chunk q of a block of m elements holds elements
/// [m q / k, m (q + 1) / k). Blocks lie end to end either way, so a run of
/// consecutive chunks is one range of bytes.
struct ChunkLayout {
  int64_t perBlock = 1, blockCount = 0, elementBytes = 1;
  std::vector<int64_t> starts, counts;

  int64_t begin(int64_t chunk) const {
    return at(chunk / perBlock, chunk % perBlock);
  }
  int64_t end(int64_t chunk) const {
    return at(chunk / perBlock, chunk % perBlock + 1);
  }
  /// Bytes of the runs of a transfer.
  int64_t bytes(const RelayPiece &p) const {
    int64_t n = 0;
    for (auto [chunk, count] : p.runs)
      n += end(chunk + count - 1) - begin(chunk);
    return n;
  }
  /// The runs of a transfer as byte ranges of the work space.
  template <typename F> void forEachRange(const RelayPiece &p, F f) const {
    for (auto [chunk, count] : p.runs)
      f(begin(chunk), end(chunk + count - 1));
  }

private:
  int64_t at(int64_t block, int64_t part) const {
    int64_t m = counts.empty() ? blockCount : counts[block];
    int64_t first = starts.empty() ? block * blockCount : starts[block];
    return (first +
            static_cast<int64_t>(static_cast<__int128>(m) * part / perBlock)) *
           elementBytes;
  }
};

//===-- Schedules.cpp -----------------------------------------------------===//

/// The communicator's alltoall schedule, decided at its first alltoall.
void decideAlltoall(State &s, CommInfo &info, MPI_Comm comm);
/// The relaying schedule of `key` on the communicator (null: `reason`).
std::shared_ptr<CompiledRelay> decideRelay(State &s, CommInfo &info,
                                           MPI_Comm comm, const RelayKey &key,
                                           FallbackReason &reason);
/// The direct schedule of a gather or scatter (`kind`) rooted at member
/// `root`: every member's block straight to or from the root, in
/// congestion-free phases (an alltoall schedule with only those pairs), so
/// that a rank handles only its own block (null: `reason`).
std::shared_ptr<CompiledAlltoall> decideDirect(State &s, CommInfo &info,
                                               MPI_Comm comm,
                                               CollectiveKind kind, int root,
                                               FallbackReason &reason);
/// The element type a reduction's schedule of `bytes`-byte elements is
/// cut for (UInt8 for a size without one).
ElementType elementTypeOfSize(int64_t bytes);
/// Reads PHASEC_PMPI_SCHEDULES's files into `s` (fatal on any error).
void loadGivenSchedules(State &s, llvm::StringRef files);

//===-- Communicators.cpp -------------------------------------------------===//

int deleteCommInfo(MPI_Comm, int, void *attr, void *);
CommInfo *commInfo(State &s, MPI_Comm comm);
/// phasec's duplicate of `comm` (its messages' communicator): made at the
/// communicator's first served call with MPI_Comm_idup, waited for by a
/// blocking call (while the calls in flight advance), by a nonblocking
/// call's operation before it posts.
void makeWire(State &s, CommInfo &info, MPI_Comm comm);
void countFallback(Function f, FallbackReason reason);
void countServed(Function f);
bool usable(State &s, MPI_Comm comm, Function f, Plan &plan);
bool serveAlltoall(State &s, MPI_Comm comm, Function f, Plan &plan);
/// Whether phasec serves a gatherv or scatterv rooted at comm rank `root`
/// (its schedule in `schedule`).
bool serveDirect(State &s, MPI_Comm comm, Function f, CollectiveKind kind,
                 int root, Plan &plan,
                 std::shared_ptr<CompiledAlltoall> &schedule);
bool serveRelay(State &s, MPI_Comm comm, Function f, const RelayCall &call,
                FallbackReason early, Plan &plan,
                std::shared_ptr<CompiledRelay> &relay);
FallbackReason reductionReason(MPI_Datatype type, MPI_Op op,
                               int64_t &elementBytes);

//===-- Datatypes.cpp -----------------------------------------------------===//

/// How a datatype lays out one element in memory.
enum class Layout {
  /// Its type map is the identity over [0, size) and extent == size: an
  /// array of it is its packed bytes (sent and received as raw bytes).
  Identity,
  /// No holes, lb == 0, extent == size, but the type map reorders the
  /// bytes (a permutation): an array of it can be cut at element
  /// boundaries (reductions), not sent as bytes to another datatype.
  Dense,
  /// Holes, or bounds that move it: packed and unpacked.
  Sparse,
};
/// The datatype's layout, decided once per datatype (kept as an attribute
/// of derived types, so that it goes with the type).
Layout layoutOf(MPI_Datatype type);
/// The datatype attribute's key, made at MPI_Init and freed at
/// MPI_Finalize.
void createLayoutKey();
void freeLayoutKey();
void viewSend(const void *buf, int64_t count, MPI_Datatype type,
              ByteView &view);
void viewRecv(void *buf, int64_t count, MPI_Datatype type, ByteView &view);
void viewInPlace(void *recvbuf, int64_t count, MPI_Datatype type,
                 ByteView &view);
void unpackRecv(void *buf, int64_t count, MPI_Datatype type, ByteView &view);
int64_t typeSize(MPI_Datatype type);
/// What finishes a receive view: unpacking it into the caller's buffer if
/// it was packed (null if not).
std::function<int()> unpackLater(void *buf, int64_t count, MPI_Datatype type,
                                 ByteView &view);
/// MPI_Pack and MPI_Unpack of `count` elements of any size.
void packTo(const void *user, int64_t count, MPI_Datatype type, char *out);
void unpackFrom(const char *in, int64_t count, MPI_Datatype type, void *user);

//===-- Engine.cpp --------------------------------------------------------===//

/// Messages of at most this many bytes are sent eagerly (MPI_Isend) in
/// every schedule; larger ones of a schedule that forwards data are sent
/// synchronously (MPI_Issend), so that a rank's next phase cannot start
/// while its last one's data is still on the links. Open MPI's shared
/// memory and TCP transports send 4 KiB eagerly.
constexpr int64_t kEagerBytes = 4096;

/// A served collective in flight: its schedule run step by step (a step:
/// post its receives and sends, wait for them, apply what arrived). A
/// blocking call runs it to the end at once; a nonblocking one returns a
/// request that MPI_Test* and MPI_Wait* advance. It keeps what it needs of
/// the communicator (the wire, the members' comm ranks, its tag), so that
/// the communicator may be freed while it runs.
class Operation {
public:
  virtual ~Operation();
  /// Posts the first step.
  int start();
  /// Advances without blocking; `done` once the last step is applied and
  /// `onFinish` has run.
  int test(bool &done);
  /// Runs to the end.
  int wait();
  bool done() const { return finished_; }
  /// A nonblocking call's error, reported by MPI_Wait and MPI_Test.
  int error = MPI_SUCCESS;

  /// What runs after the last step (results into the caller's buffers).
  std::function<int()> onFinish;
  /// Byte views and work space the operation owns while it runs.
  ByteView &view();
  std::vector<char> &space();
  /// A datatype or operator a nonblocking call uses after it returns, kept
  /// alive until the operation ends: MPI lets a program free them while
  /// the call is in flight. A derived type is duplicated (the duplicate is
  /// used and freed at the end); an operator's MPI_Op_free is deferred.
  MPI_Datatype hold(MPI_Datatype type);
  MPI_Op hold(MPI_Op op);

protected:
  explicit Operation(const Plan &plan);
  virtual size_t numSteps() const = 0;
  /// Posts step `step`'s messages (appending to requests_).
  virtual int post(size_t step) = 0;
  /// After step `step`'s messages are done.
  virtual int apply(size_t step) { return MPI_SUCCESS; }
  int postBytes(char *buf, int64_t bytes, int member, bool receive,
                bool synchronous);

  const int me_;
  const std::vector<int> commRankOf_;
  MPI_Comm wire_;
  const int tag_;
  std::vector<MPI_Request> requests_;

private:
  int postFrom();
  /// Whether phasec's duplicate is made (then wire_ is it).
  bool wireReady();
  std::shared_ptr<PendingWire> pendingWire_;
  size_t step_ = 0;
  bool finished_ = false;
  std::vector<std::unique_ptr<ByteView>> views_;
  std::vector<std::unique_ptr<std::vector<char>>> spaces_;
  std::vector<MPI_Datatype> heldTypes_;
  std::vector<MPI_Op> heldOps_;
};

/// An alltoall schedule's phases over per-member blocks: member m's block
/// to send is sendBytes[m] at send + sendAt[m], the one to receive
/// recvBytes[m] at recv + recvAt[m]; each piece of the schedule's block
/// moves the same proportion of the call's.
class AlltoallOp : public Operation {
public:
  AlltoallOp(const Plan &plan, std::shared_ptr<CompiledAlltoall> schedule);
  const char *send = nullptr;
  char *recv = nullptr;
  std::vector<int64_t> sendAt, sendBytes, recvAt, recvBytes;

protected:
  size_t numSteps() const override;
  int post(size_t step) override;

private:
  std::shared_ptr<CompiledAlltoall> schedule_;
  /// Decided at step 0 from the call's blocks: every phase in one step.
  bool atOnce_ = false;
};

/// A relaying schedule over the work space D (the call's data as `layout`
/// says): a phase's messages land in a scratch, then its copies and its
/// reductions (`type`, `op`) are applied, as the chunk replay says. A
/// schedule that forwards nothing posts everything at once.
class RelayOp : public Operation {
public:
  /// A blocking call uses the communicator's receive and pack scratch, a
  /// nonblocking one its own (several may be in flight on a communicator).
  RelayOp(const Plan &plan, std::shared_ptr<CompiledRelay> relay,
          bool blocking);
  ChunkLayout layout;
  char *D = nullptr;
  MPI_Datatype type = MPI_BYTE;
  MPI_Op op = MPI_OP_NULL;

protected:
  size_t numSteps() const override;
  int post(size_t step) override;
  int apply(size_t step) override;

private:
  std::shared_ptr<CompiledRelay> relay_;
  std::vector<char> *receive_, *pack_;
  std::vector<char> ownReceive_, ownPack_;
  struct Staged {
    size_t phase;
    const RelayPiece *piece;
    int64_t at;
  };
  std::vector<Staged> staged_;
};

/// The communicator's work space of at least `bytes` (blocking calls).
char *workSpace(CommInfo &info, int64_t bytes);
/// The work space of a call: the communicator's for a blocking call, the
/// operation's own for a nonblocking one.
char *spaceFor(Operation &op, const Plan &plan, bool blocking, int64_t bytes);

//===-- Collectives.cpp, VCollectives.cpp ---------------------------------===//

using OpPtr = std::unique_ptr<Operation>;

// One builder per collective: null if phasec does not serve the call
// (counted with its reason; the caller hands it to MPI), else its
// operation, not yet started. `blocking`: run at once, in the
// communicator's work space.
OpPtr buildAlltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    MPI_Comm comm, Function f, bool blocking);
OpPtr buildAlltoallv(const void *sendbuf, const int sendcounts[],
                     const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int rdispls[],
                     MPI_Datatype recvtype, MPI_Comm comm, Function f,
                     bool blocking);
OpPtr buildAlltoallw(const void *sendbuf, const int sendcounts[],
                     const int sdispls[], const MPI_Datatype sendtypes[],
                     void *recvbuf, const int recvcounts[], const int rdispls[],
                     const MPI_Datatype recvtypes[], MPI_Comm comm, Function f,
                     bool blocking);
OpPtr buildBcast(void *buffer, int count, MPI_Datatype datatype, int root,
                 MPI_Comm comm, Function f, bool blocking);
OpPtr buildBarrier(MPI_Comm comm, Function f, bool blocking);
OpPtr buildReduce(const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                  Function f, bool blocking);
/// The calls of PHASEC_PMPI_COMBINE_CALLS (`kind`): every rank's result
/// in its receive buffer where the kind's traits say it has one (not
/// exscan's first rank, whose buffer MPI leaves undefined).
OpPtr buildCombineInReceive(CollectiveKind kind, const void *sendbuf,
                            void *recvbuf, int count, MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm, Function f,
                            bool blocking);
OpPtr buildReduceScatterBlock(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              Function f, bool blocking);
OpPtr buildReduceScatter(const void *sendbuf, void *recvbuf,
                         const int recvcounts[], MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, Function f, bool blocking);
OpPtr buildAllgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype,
                     MPI_Comm comm, Function f, bool blocking);
OpPtr buildAllgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const int recvcounts[], const int displs[],
                      MPI_Datatype recvtype, MPI_Comm comm, Function f,
                      bool blocking);
OpPtr buildGather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                  MPI_Comm comm, Function f, bool blocking);
OpPtr buildGatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int displs[],
                   MPI_Datatype recvtype, int root, MPI_Comm comm, Function f,
                   bool blocking);
OpPtr buildScatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, Function f, bool blocking);
OpPtr buildScatterv(const void *sendbuf, const int sendcounts[],
                    const int displs[], MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root,
                    MPI_Comm comm, Function f, bool blocking);

//===-- Nonblocking.cpp ---------------------------------------------------===//

/// Advances every nonblocking call in flight (each served call and every
/// MPI_Test* and MPI_Wait* does, so that they progress together).
void progressPending();
/// One turn of a loop that waits while calls in flight advance:
/// progressPending, then the processor to anyone else who wants it (ranks
/// often outnumber cores; MPI's own waits yield when oversubscribed).
void progressAndYield();
/// Whether any served nonblocking call is in flight (cheap).
bool callsInFlight();
/// A nonblocking call's request: a generalized request completed when `op`
/// is done.
int startNonblocking(OpPtr op, MPI_Request *request);
/// Operators in use by calls in flight: MPI_Op_free of one is deferred
/// until the last of them ends.
void retainOp(MPI_Op op);
void releaseOp(MPI_Op op);

/// Waits for `request` while the calls in flight advance.
int waitAdvancing(MPI_Request *request, MPI_Status *status);

/// A blocking call: its operation run to the end, or, where phasec does
/// not serve it, MPI's nonblocking form of it (`fallback` starts it) waited
/// for while the calls in flight advance. Never MPI's blocking form: this
/// rank may have served nonblocking calls in flight that another rank waits
/// for before it joins this call, and MPI's blocking collective would not
/// advance them (Open MPI's own nonblocking calls advance inside it). The
/// nonblocking form every time, not only with calls in flight, because
/// ranks must agree: a blocking collective does not match a nonblocking
/// one, and other ranks may have nothing in flight.
template <typename Build, typename Fallback>
int runBlocking(Build build, Fallback fallback) {
  progressPending();
  mayBlock = true;
  OpPtr op = build();
  if (!op) {
    MPI_Request request;
    if (int err = fallback(&request))
      return err;
    return waitAdvancing(&request, MPI_STATUS_IGNORE);
  }
  if (int err = op->start())
    return err;
  return op->wait();
}

} // namespace phasec::pmpi

#endif // PHASEC_TARGETS_PMPI_PMPI_H
