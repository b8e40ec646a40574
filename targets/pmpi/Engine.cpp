//===- Engine.cpp - Running a schedule's phases over MPI ------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Operation: a served collective as a state machine over its schedule's
/// steps, which blocking calls run to the end and nonblocking ones leave to
/// MPI_Test* and MPI_Wait* (Nonblocking.cpp). AlltoallOp runs an alltoall
/// schedule's phases over the call's blocks; RelayOp a relaying schedule's
/// phases over the work space, applying copies and reductions as the chunk
/// replay of ../shared/spec/schedule-json.md says.
///
//===----------------------------------------------------------------------===//

#include "Pmpi.h"

#include <algorithm>
#include <climits>
#include <cstring>

namespace phasec::pmpi {

namespace {
/// Tags of phasec's messages on its duplicate of a communicator: one per
/// call, cycling through what MPI guarantees every tag range holds.
constexpr int kTagSpan = 32768;

int nextTag(CommInfo &info) {
  return static_cast<int>(info.sequence++ % kTagSpan);
}
} // namespace

Operation::Operation(const Plan &plan)
    : me_(plan.me), commRankOf_(plan.info->commRankOfMember),
      wire_(plan.info->wire), tag_(nextTag(*plan.info)),
      pendingWire_(plan.info->pendingWire) {}

Operation::~Operation() {
  for (MPI_Datatype &t : heldTypes_)
    PMPI_Type_free(&t);
  for (MPI_Op op : heldOps_)
    releaseOp(op);
}

MPI_Datatype Operation::hold(MPI_Datatype type) {
  int integers, addresses, types, combiner;
  PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner);
  if (combiner == MPI_COMBINER_NAMED)
    return type;
  MPI_Datatype dup = MPI_DATATYPE_NULL;
  if (PMPI_Type_dup(type, &dup) != MPI_SUCCESS)
    return type;
  heldTypes_.push_back(dup);
  return dup;
}

MPI_Op Operation::hold(MPI_Op op) {
  retainOp(op);
  heldOps_.push_back(op);
  return op;
}

ByteView &Operation::view() {
  views_.push_back(std::make_unique<ByteView>());
  return *views_.back();
}

std::vector<char> &Operation::space() {
  spaces_.push_back(std::make_unique<std::vector<char>>());
  return *spaces_.back();
}

/// A receive or a send of `bytes` bytes at `buf` with `member`, as messages
/// of at most an int's count (both sides cut alike).
int Operation::postBytes(char *buf, int64_t bytes, int member, bool receive,
                         bool synchronous) {
  const int peer = commRankOf_[member];
  int64_t at = 0;
  do {
    int n = static_cast<int>(std::min<int64_t>(bytes - at, INT32_MAX));
    requests_.emplace_back();
    MPI_Request *r = &requests_.back();
    int err = receive ? PMPI_Irecv(buf + at, n, MPI_BYTE, peer, tag_, wire_, r)
              : synchronous
                  ? PMPI_Issend(buf + at, n, MPI_BYTE, peer, tag_, wire_, r)
                  : PMPI_Isend(buf + at, n, MPI_BYTE, peer, tag_, wire_, r);
    if (err != MPI_SUCCESS)
      return err;
    at += n;
  } while (at < bytes);
  return int(MPI_SUCCESS); // an enum in SimGrid's mpi.h
}

bool Operation::wireReady() {
  if (!pendingWire_)
    return true;
  if (!pendingWire_->ready())
    return false;
  wire_ = pendingWire_->comm;
  pendingWire_.reset();
  return true;
}

int Operation::start() {
  step_ = 0;
  // A nonblocking call started while phasec's duplicate of the
  // communicator is being made posts once it is (test, wait).
  if (!wireReady())
    return MPI_SUCCESS;
  return postFrom();
}

/// Posts steps from step_ on until one has messages in flight (steps
/// without messages are applied at once), or finishes.
int Operation::postFrom() {
  while (step_ < numSteps()) {
    requests_.clear();
    if (int err = post(step_))
      return err;
    if (!requests_.empty())
      return MPI_SUCCESS;
    if (int err = apply(step_))
      return err;
    ++step_;
  }
  finished_ = true;
  return onFinish ? onFinish() : int(MPI_SUCCESS);
}

int Operation::test(bool &done) {
  done = finished_;
  if (finished_)
    return MPI_SUCCESS;
  if (pendingWire_) {
    if (wireReady())
      if (int err = postFrom())
        return err;
    done = finished_;
    return MPI_SUCCESS;
  }
  int flag = 0;
  if (int err = PMPI_Testall(static_cast<int>(requests_.size()),
                             requests_.data(), &flag, MPI_STATUSES_IGNORE))
    return err;
  if (flag) {
    if (int err = apply(step_))
      return err;
    ++step_;
    if (int err = postFrom())
      return err;
  }
  done = finished_;
  return MPI_SUCCESS;
}

int Operation::wait() {
  // With nonblocking calls in flight, waiting here must advance them too
  // (another rank may wait for one of them before it joins this call).
  while (!finished_ && (callsInFlight() || pendingWire_)) {
    bool done = false;
    if (int err = test(done))
      return err;
    progressAndYield();
  }
  while (!finished_) {
    if (int err = PMPI_Waitall(static_cast<int>(requests_.size()),
                               requests_.data(), MPI_STATUSES_IGNORE))
      return err;
    if (int err = apply(step_))
      return err;
    ++step_;
    if (int err = postFrom())
      return err;
  }
  return MPI_SUCCESS;
}

//===----------------------------------------------------------------------===//
// AlltoallOp
//===----------------------------------------------------------------------===//

AlltoallOp::AlltoallOp(const Plan &plan,
                       std::shared_ptr<CompiledAlltoall> schedule)
    : Operation(plan), schedule_(std::move(schedule)) {}

size_t AlltoallOp::numSteps() const {
  // Step 0 keeps this member's own block; then one step a phase, or one
  // for all of them.
  return atOnce_ ? 2 : schedule_->phases.size() + 1;
}

int AlltoallOp::post(size_t step) {
  const CompiledAlltoall &c = *schedule_;
  if (step == 0) {
    if (sendBytes[me_] > 0)
      std::memcpy(recv + recvAt[me_], send + sendAt[me_],
                  static_cast<size_t>(sendBytes[me_]));
    // A rank decides alone: both sides post a pair's pieces in phase
    // order either way, so the messages match whatever the peer chose.
    int64_t largest = 0;
    for (size_t m = 0; m < sendBytes.size(); ++m)
      largest = std::max({largest, sendBytes[m], recvBytes[m]});
    atOnce_ = largest < c.atOnceBelow;
    return MPI_SUCCESS;
  }
  auto cut = [&](int64_t total, int64_t offset) {
    return static_cast<int64_t>(static_cast<__int128>(total) * offset /
                                c.block);
  };
  size_t first = atOnce_ ? 0 : step - 1;
  size_t last = atOnce_ ? c.phases.size() : step;
  // Receives first, then sends: this member's pieces of the phases.
  for (int receive = 1; receive >= 0; --receive)
    for (size_t j = first; j < last; ++j)
      for (const Piece &p : c.phases[j]) {
        if ((receive ? p.dst : p.src) != me_)
          continue;
        int peer = receive ? p.src : p.dst;
        int64_t total = receive ? recvBytes[peer] : sendBytes[peer];
        char *base = receive ? recv + recvAt[peer]
                             : const_cast<char *>(send) + sendAt[peer];
        int64_t from = cut(total, p.offset),
                to = cut(total, p.offset + p.bytes);
        if (from == to)
          continue; // both sides compute the same empty piece
        if (int err = postBytes(base + from, to - from, peer, receive,
                                /*synchronous=*/false))
          return err;
      }
  return MPI_SUCCESS;
}

//===----------------------------------------------------------------------===//
// RelayOp
//===----------------------------------------------------------------------===//

RelayOp::RelayOp(const Plan &plan, std::shared_ptr<CompiledRelay> relay,
                 bool blocking)
    : Operation(plan), relay_(std::move(relay)),
      receive_(blocking ? &plan.info->receive : &ownReceive_),
      pack_(blocking ? &plan.info->pack : &ownPack_) {}

size_t RelayOp::numSteps() const {
  return relay_->steps.empty() ? 0 : relay_->steps.size() - 1;
}

int RelayOp::post(size_t step) {
  const CompiledRelay &relay = *relay_;
  size_t first = relay.steps[step], last = relay.steps[step + 1];
  // A barrier's messages carry nothing but are the barrier; other empty
  // pieces (a v-collective's empty blocks) are skipped on both sides.
  const bool empty = getTraits(relay.kind).family == CollectiveFamily::Dataless;
  int64_t receiveBytes = 0, packBytes = 0;
  for (size_t j = first; j < last; ++j)
    for (const RelayPiece &p : relay.phases[j]) {
      if (p.dst == me_)
        receiveBytes += layout.bytes(p);
      if (p.src == me_ && p.runs.size() > 1)
        packBytes += layout.bytes(p);
    }
  if (static_cast<int64_t>(receive_->size()) < receiveBytes)
    receive_->resize(static_cast<size_t>(receiveBytes));
  if (static_cast<int64_t>(pack_->size()) < packBytes)
    pack_->resize(static_cast<size_t>(packBytes));
  staged_.clear();
  // Schedules that forward data keep a rank's steps apart on the wire
  // with synchronous sends of their large messages (an eager send
  // completes at once and the next step's messages would share the links
  // with it; RelayC.cpp measured this for the generated code). Small
  // messages are latency, not bandwidth: eager.
  auto synchronous = [&](int64_t bytes) {
    return relay.steps.size() > 2 && bytes > kEagerBytes;
  };
  int64_t at = 0;
  for (size_t j = first; j < last; ++j)
    for (const RelayPiece &p : relay.phases[j]) {
      int64_t bytes = layout.bytes(p);
      if (p.dst != me_ || (!bytes && !empty))
        continue;
      staged_.push_back({j, &p, at});
      if (int err = postBytes(receive_->data() + at, bytes, p.src,
                              /*receive=*/true, false))
        return err;
      at += bytes;
    }
  at = 0;
  for (size_t j = first; j < last; ++j)
    for (const RelayPiece &p : relay.phases[j]) {
      int64_t bytes = layout.bytes(p);
      if (p.src != me_ || (!bytes && !empty))
        continue;
      char *buf = D + layout.begin(p.runs.front().first);
      if (p.runs.size() > 1) {
        buf = pack_->data() + at;
        layout.forEachRange(p, [&](int64_t from, int64_t to) {
          std::memcpy(pack_->data() + at, D + from,
                      static_cast<size_t>(to - from));
          at += to - from;
        });
      }
      if (int err = postBytes(buf, bytes, p.dst, /*receive=*/false,
                              synchronous(bytes)))
        return err;
    }
  return MPI_SUCCESS;
}

int RelayOp::apply(size_t step) {
  const CompiledRelay &relay = *relay_;
  size_t first = relay.steps[step], last = relay.steps[step + 1];
  // Copies, then reductions, phase by phase (the replay's order).
  for (size_t j = first; j < last; ++j)
    for (int reduce = 0; reduce < 2; ++reduce)
      for (const Staged &x : staged_) {
        if (x.phase != j || x.piece->reduce != (reduce != 0))
          continue;
        const char *in = receive_->data() + x.at;
        int err = MPI_SUCCESS;
        layout.forEachRange(*x.piece, [&](int64_t from, int64_t to) {
          if (!reduce) {
            std::memcpy(D + from, in, static_cast<size_t>(to - from));
          } else {
            int64_t elements = (to - from) / layout.elementBytes;
            for (int64_t e = 0; e < elements && err == MPI_SUCCESS;) {
              int n =
                  static_cast<int>(std::min<int64_t>(elements - e, INT32_MAX));
              err = PMPI_Reduce_local(in + e * layout.elementBytes,
                                      D + from + e * layout.elementBytes, n,
                                      type, op);
              e += n;
            }
          }
          in += to - from;
        });
        if (err != MPI_SUCCESS)
          return err;
      }
  return MPI_SUCCESS;
}

char *workSpace(CommInfo &info, int64_t bytes) {
  if (static_cast<int64_t>(info.work.size()) < bytes)
    info.work.resize(static_cast<size_t>(bytes));
  return info.work.data();
}

char *spaceFor(Operation &op, const Plan &plan, bool blocking, int64_t bytes) {
  if (blocking)
    return workSpace(*plan.info, bytes);
  std::vector<char> &own = op.space();
  own.resize(static_cast<size_t>(std::max<int64_t>(bytes, 1)));
  return own.data();
}

} // namespace phasec::pmpi
