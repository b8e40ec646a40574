//===- Chunks.cpp - The chunk semantics of relaying collectives -----------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// ChunkSpec, the table of ../shared/spec/schedule-json.md ("Relaying
/// collectives") and the replay that checks a relaying schedule against it.
/// Written from the spec, not from the algorithms (Relay.cpp): the replay is
/// what makes an algorithm's schedule trustworthy.
///
//===----------------------------------------------------------------------===//

#include "ChunkReplay.h"

#include "phasec/Scheduling/Collective.h"

#include "llvm/Support/MathExtras.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>

using namespace phasec;
using llvm::failure;
using llvm::LogicalResult;
using llvm::success;

bool ChunkSpec::hasChunkSemantics(CollectiveKind kind) {
  // The kinds of the chunk table (getChunkParts), under their own names:
  // one_to_all and all_to_one enter it as scatter and gather.
  return getChunkKind(kind) == kind && getChunkParts(kind, 1) != 0;
}

CollectiveKind ChunkSpec::getChunkKind(CollectiveKind kind) {
  return getTraits(kind).generatedAs;
}

int64_t ChunkSpec::chunksPerMember() const {
  int64_t cut = getChunkParts(kind, numMembers());
  return cut ? numChunks / cut : 0;
}

int64_t ChunkSpec::totalBytes() const {
  if (chunkSizes.empty())
    return numChunks * chunkBytes;
  int64_t sum = 0;
  for (int64_t b : chunkSizes)
    sum += b;
  return sum;
}

int64_t ChunkSpec::offsetOfChunk(int64_t c) const {
  if (chunkSizes.empty())
    return c * chunkBytes;
  int64_t sum = 0;
  for (int64_t i = 0; i < c; ++i)
    sum += chunkSizes[i];
  return sum;
}

std::vector<int64_t> ChunkSpec::blockBytesByMember() const {
  std::vector<int64_t> blocks;
  int64_t k = chunksPerMember();
  for (int64_t m = 0; k > 0 && (m + 1) * k <= numChunks; ++m)
    blocks.push_back(offsetOfChunk((m + 1) * k) - offsetOfChunk(m * k));
  return blocks;
}

std::string ChunkSpec::describeChunkBytes() const {
  if (chunkSizes.empty())
    return std::to_string(chunkBytes);
  auto [lo, hi] = std::minmax_element(chunkSizes.begin(), chunkSizes.end());
  if (*lo == *hi)
    return std::to_string(*lo);
  return std::to_string(*lo) + " to " + std::to_string(*hi);
}

int64_t ChunkSpec::firstChunkOf(int64_t member) const {
  if (memberChunks.empty())
    return member * chunksPerMember();
  int64_t first = 0;
  for (int64_t i = 0; i < member; ++i)
    first += memberChunks[i];
  return first;
}

int64_t ChunkSpec::numChunksOf(int64_t member) const {
  return memberChunks.empty() ? chunksPerMember() : memberChunks[member];
}

LogicalResult ChunkSpec::check(int64_t numRanks, std::string &error) const {
  if (!hasChunkSemantics(kind)) {
    error = ("'" + stringifyCollectiveKind(kind) +
             "' has no chunk semantics (schedule JSON /2)")
                .str();
    return failure();
  }
  if (failed(checkGroup(group, numRanks, error)))
    return failure();
  if (isRooted(kind) && !llvm::is_contained(group, root)) {
    error = llvm::formatv("root rank {0} is not in the group", root).str();
    return failure();
  }
  if (getTraits(kind).family == CollectiveFamily::Dataless) {
    if (numChunks != 1 || chunkBytes != 0) {
      error = "a barrier has one chunk of 0 bytes";
      return failure();
    }
    return success();
  }
  const std::string name = stringifyCollectiveKind(kind).str();
  if (!chunkSizes.empty()) {
    if (static_cast<int64_t>(chunkSizes.size()) != numChunks ||
        llvm::any_of(chunkSizes, [](int64_t b) { return b < 0; })) {
      error = llvm::formatv("chunk_sizes must list {0} sizes >= 0", numChunks)
                  .str();
      return failure();
    }
    if (chunkBytes != 0) {
      error = "a collective gives both chunk_bytes and chunk_sizes";
      return failure();
    }
  }
  if (numChunks <= 0 || (chunkSizes.empty() && chunkBytes <= 0)) {
    error = llvm::formatv("{0} chunks of {1} bytes: both must be positive",
                          numChunks, chunkBytes)
                .str();
    return failure();
  }
  // Byte totals are int64: all the data at every member must fit.
  int64_t all = 0;
  bool overflow = false;
  if (chunkSizes.empty()) {
    overflow = llvm::MulOverflow(numChunks, chunkBytes, all);
  } else {
    for (int64_t b : chunkSizes)
      overflow |= llvm::AddOverflow(all, b, all);
  }
  if (overflow ||
      llvm::MulOverflow(all, std::max<int64_t>(numMembers(), 1), all)) {
    error = chunkSizes.empty()
                ? llvm::formatv("{0} chunks of {1} bytes at {2} members "
                                "total more than 2^63 - 1 bytes",
                                numChunks, chunkBytes, numMembers())
                      .str()
                : llvm::formatv("{0} chunks (chunk_sizes) at {1} members "
                                "total more than 2^63 - 1 bytes",
                                numChunks, numMembers())
                      .str();
    return failure();
  }
  if (!memberChunks.empty()) {
    // The kinds whose chunks are cut per member (the v-collectives).
    if (!hasChunkSemantics(kind) ||
        getTraits(kind).chunkParts != ChunkParts::PerMember) {
      error = name + ": member_chunks is only for scatter, gather, allgather "
                     "and reduce_scatter";
      return failure();
    }
    int64_t sum = 0;
    bool bad = static_cast<int64_t>(memberChunks.size()) != numMembers();
    for (int64_t m : memberChunks) {
      bad |= m < 0 || m > numChunks;
      sum += bad ? 0 : m;
    }
    if (bad || sum != numChunks) {
      error = llvm::formatv("{0}: member_chunks must list {1} counts >= 0 "
                            "that sum to chunks {2}",
                            name, numMembers(), numChunks)
                  .str();
      return failure();
    }
    return success();
  }
  int64_t cut = getChunkParts(kind, numMembers());
  if (numChunks % cut) {
    error = llvm::formatv("{0}: {1} chunks are not a multiple of {2}",
                          stringifyCollectiveKind(kind), numChunks, cut)
                .str();
    return failure();
  }
  return success();
}

ChunkConditions phasec::getChunkConditions(const ChunkSpec &spec) {
  ChunkConditions cond;
  const int64_t n = spec.numMembers(), C = spec.numChunks;
  const int64_t k = spec.chunksPerMember();
  // Member i's own chunks (scatter, gather, allgather, reduce_scatter):
  // [first[i], first[i + 1]), k each or member_chunks'.
  std::vector<int64_t> first(n + 1, 0);
  for (int64_t i = 0; i < n; ++i)
    first[i + 1] =
        first[i] + (spec.memberChunks.empty() ? k : spec.memberChunks[i]);
  cond.before.resize(n);
  cond.after.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    cond.tags.emplace_back(n);
    cond.tags.back().set(i);
  }
  auto addTag = [&](llvm::BitVector tag) {
    cond.tags.push_back(std::move(tag));
    return static_cast<int32_t>(cond.tags.size() - 1);
  };
  auto all = [&](std::vector<HeldChunk> &v, int32_t tag) {
    for (int64_t c = 0; c < C; ++c)
      v.push_back({c, tag});
  };
  int64_t root = -1;
  if (isRooted(spec.kind))
    root = llvm::find(spec.group, spec.root) - spec.group.begin();
  llvm::BitVector everyone(n, true);
  const CollectiveTraits &traits = getTraits(spec.kind);
  assert(traits.chunkParts != ChunkParts::None &&
         "ChunkSpec::check rejects kinds without chunks");
  const bool perPair = traits.chunkParts == ChunkParts::PerPair;
  // Member i's own chunks, tagged `tag`.
  auto own = [&](std::vector<HeldChunk> &v, int64_t i, int32_t tag) {
    for (int64_t c = first[i]; c < first[i + 1]; ++c)
      v.push_back({c, tag});
  };
  auto holds = [&](DataSide side, int64_t i) {
    switch (side.holders) {
    case DataHolders::Every:
      return true;
    case DataHolders::Root:
      return i == root;
    case DataHolders::AllButFirst:
      return i > 0;
    }
    llvm_unreachable("unknown data holders");
  };

  // Before: what each member's send buffer holds, under its own tag. In an
  // alltoall chunk (i * n + j) * k + m goes from member i to member j.
  for (int64_t i = 0; i < n; ++i) {
    auto tag = static_cast<int32_t>(i);
    if (traits.send.part == DataPart::Own)
      own(cond.before[i], i, tag);
    else if (perPair)
      for (int64_t c = i * n * k; c < (i + 1) * n * k; ++c)
        cond.before[i].push_back({c, tag});
    else if (holds(traits.send, i))
      all(cond.before[i], tag);
  }

  // After: what each member's receive buffer holds, and whose data.
  if (traits.prefix) {
    // Members 0..i combined (0..i-1 in an exclusive prefix).
    bool exclusive = traits.recv.holders == DataHolders::AllButFirst;
    for (int64_t i = 0; i < n; ++i) {
      int64_t upto = exclusive ? i : i + 1;
      if (upto == 0)
        continue;
      llvm::BitVector prefix(n);
      prefix.set(0, upto);
      all(cond.after[i], addTag(std::move(prefix)));
    }
  } else if (traits.reduces || traits.family == CollectiveFamily::Dataless) {
    // Every member's data combined (a barrier's empty chunk too).
    int32_t every = addTag(everyone);
    for (int64_t i = 0; i < n; ++i) {
      if (!holds(traits.recv, i))
        continue;
      if (traits.recv.part == DataPart::Own)
        own(cond.after[i], i, every);
      else
        all(cond.after[i], every);
    }
  } else if (perPair) {
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < n; ++i)
        for (int64_t m = 0; m < k; ++m)
          cond.after[j].push_back(
              {(i * n + j) * k + m, static_cast<int32_t>(i)});
    for (auto &v : cond.after)
      llvm::sort(v, [](const HeldChunk &a, const HeldChunk &b) {
        return a.chunk < b.chunk;
      });
  } else if (traits.recv.part == DataPart::PerMember) {
    // Every member's own chunks, at the root or everywhere.
    for (int64_t i = 0; i < n; ++i) {
      if (!holds(traits.recv, i))
        continue;
      for (int64_t owner = 0; owner < n; ++owner)
        own(cond.after[i], owner, static_cast<int32_t>(owner));
    }
  } else if (traits.recv.part == DataPart::Own) {
    // The member's own chunks, whoever forwarded them.
    for (int64_t i = 0; i < n; ++i)
      own(cond.after[i], i, -1);
  } else {
    // The root's whole vector everywhere.
    for (int64_t i = 0; i < n; ++i)
      if (holds(traits.recv, i))
        all(cond.after[i], static_cast<int32_t>(root));
  }
  return cond;
}

/// Members of a tag, for messages: "{0, 1, 3}" (global ranks, at most 8).
static std::string describeTag(const llvm::BitVector &tag,
                               llvm::ArrayRef<RankId> group) {
  std::string out = "{";
  int shown = 0;
  for (int m : tag.set_bits()) {
    if (shown == 8) {
      out += ", ...";
      break;
    }
    out += (shown++ ? ", " : "") + std::to_string(group[m]);
  }
  return out + "}";
}

void phasec::replayChunks(const ChunkSpec &spec, const Schedule &schedule,
                          int64_t numRanks,
                          llvm::SmallVectorImpl<ScheduleViolation> &violations,
                          unsigned maxViolations, ReplayRules rules) {
  size_t start = violations.size();
  auto full = [&] { return violations.size() - start >= maxViolations; };
  ChunkConditions cond = getChunkConditions(spec);
  std::vector<llvm::BitVector> &tags = cond.tags;
  const int64_t C = spec.numChunks;
  const bool overlapJoins =
      rules == ReplayRules::Phasec &&
      getTraits(spec.kind).family == CollectiveFamily::Dataless;

  // held[rank][c]: the tag rank holds chunk c with, -1 = not held. Any rank
  // of the machine may relay, so ranks outside the group get state too.
  llvm::DenseMap<RankId, std::vector<int32_t>> held;
  auto state = [&](RankId r) -> std::vector<int32_t> & {
    std::vector<int32_t> &v = held[r];
    if (v.empty())
      v.assign(C, -1);
    return v;
  };
  for (size_t i = 0; i < spec.group.size(); ++i)
    for (const HeldChunk &h : cond.before[i])
      state(spec.group[i])[h.chunk] = h.tag;

  struct Arrival {
    RankId dst;
    int64_t chunk;
    int32_t tag;
    bool reduce;
    size_t transfer;
    RankId src;
  };
  std::vector<Arrival> arrivals;
  for (size_t p = 0; p < schedule.phases.size() && !full(); ++p) {
    const Phase &phase = schedule.phases[p];
    arrivals.clear();
    for (size_t i = 0; i < phase.transfers.size() && !full(); ++i) {
      const Transfer &t = phase.transfers[i];
      if (t.src < 0 || t.dst < 0 || t.src >= numRanks || t.dst >= numRanks)
        continue;
      auto violation = [&](ViolationKind kind, int64_t chunk,
                           std::string message) {
        ScheduleViolation v{kind};
        v.phase = p;
        v.transferA = i;
        v.src = t.src;
        v.dst = t.dst;
        v.chunk = chunk;
        v.message = llvm::formatv("phase {0}: transfer {1} ({2} -> {3}): {4}",
                                  p, i, t.src, t.dst, message)
                        .str();
        violations.push_back(std::move(v));
      };
      if (i >= phase.chunks.size() || phase.chunks[i].ids.empty()) {
        violation(ViolationKind::BadChunks, -1, "carries no chunks");
        continue;
      }
      const ChunkTransfer &ct = phase.chunks[i];
      // Its bytes are its chunks' (ids out of range are reported below).
      int64_t chunkBytes = 0;
      bool inRange = true;
      for (int64_t c : ct.ids) {
        inRange &= c >= 0 && c < C;
        if (c >= 0 && c < C)
          chunkBytes += spec.sizeOfChunk(c);
      }
      if (inRange && t.bytes != chunkBytes) {
        violation(ViolationKind::BadChunks, -1,
                  spec.chunkSizes.empty()
                      ? llvm::formatv("{0} bytes for {1} chunks of {2} bytes",
                                      t.bytes, ct.ids.size(), spec.chunkBytes)
                            .str()
                      : llvm::formatv("{0} bytes for chunks of {1} bytes",
                                      t.bytes, chunkBytes)
                            .str());
        continue;
      }
      std::vector<int32_t> &src = state(t.src);
      for (int64_t c : ct.ids) {
        if (c < 0 || c >= C) {
          violation(ViolationKind::BadChunks, c,
                    llvm::formatv("chunk {0} is out of range (the collective "
                                  "has {1} chunks)",
                                  c, C));
          break;
        }
        if (src[c] < 0) {
          violation(ViolationKind::ChunkNotHeld, c,
                    llvm::formatv("rank {0} sends chunk {1}, which it does "
                                  "not hold when the phase starts",
                                  t.src, c));
          break;
        }
        arrivals.push_back({t.dst, c, src[c], ct.reduce, i, t.src});
      }
    }
    // Every transfer of the phase takes effect when it ends: arrivals at
    // one (rank, chunk) are combined together, copies first.
    llvm::stable_sort(arrivals, [](const Arrival &a, const Arrival &b) {
      return std::tie(a.dst, a.chunk, a.reduce) <
             std::tie(b.dst, b.chunk, b.reduce);
    });
    for (size_t a = 0; a < arrivals.size() && !full();) {
      size_t b = a;
      while (b < arrivals.size() && arrivals[b].dst == arrivals[a].dst &&
             arrivals[b].chunk == arrivals[a].chunk)
        ++b;
      RankId dst = arrivals[a].dst;
      int64_t c = arrivals[a].chunk;
      std::vector<int32_t> &to = state(dst);
      int32_t tag = to[c];
      bool copied = false;
      bool ok = true;
      for (size_t i = a; i < b && ok; ++i) {
        const Arrival &in = arrivals[i];
        auto violation = [&](ViolationKind kind, std::string message) {
          ScheduleViolation v{kind};
          v.phase = p;
          v.transferA = in.transfer;
          v.src = in.src;
          v.dst = dst;
          v.chunk = c;
          v.message = llvm::formatv("phase {0}: transfer {1} ({2} -> {3}): "
                                    "{4}",
                                    p, in.transfer, in.src, dst, message)
                          .str();
          violations.push_back(std::move(v));
          ok = false;
        };
        if (!in.reduce) {
          if (copied && tags[tag] != tags[in.tag])
            violation(ViolationKind::ConflictingCopies,
                      llvm::formatv("rank {0} receives chunk {1} twice in "
                                    "this phase with different contents "
                                    "({2} and {3})",
                                    dst, c, describeTag(tags[tag], spec.group),
                                    describeTag(tags[in.tag], spec.group)));
          tag = in.tag;
          copied = true;
          continue;
        }
        if (tag < 0) {
          violation(ViolationKind::ReduceWithoutChunk,
                    llvm::formatv("reduces chunk {0} into rank {1}, which "
                                  "does not hold it",
                                  c, dst));
          continue;
        }
        if (!overlapJoins && tags[tag].anyCommon(tags[in.tag])) {
          llvm::BitVector both = tags[tag];
          both &= tags[in.tag];
          violation(ViolationKind::CountedTwice,
                    llvm::formatv("reducing chunk {0} into rank {1} counts "
                                  "the contributions of {2} twice",
                                  c, dst, describeTag(both, spec.group)));
          continue;
        }
        llvm::BitVector joined = tags[tag];
        joined |= tags[in.tag];
        tags.push_back(std::move(joined));
        tag = static_cast<int32_t>(tags.size() - 1);
      }
      if (ok)
        to[c] = tag;
      a = b;
    }
  }
  if (full())
    return;

  for (size_t i = 0; i < spec.group.size() && !full(); ++i) {
    RankId r = spec.group[i];
    std::vector<int32_t> &have = state(r);
    for (const HeldChunk &want : cond.after[i]) {
      if (full())
        return;
      int32_t got = have[want.chunk];
      ScheduleViolation v{ViolationKind::MissingChunk};
      v.dst = r;
      v.chunk = want.chunk;
      if (got < 0) {
        v.message =
            llvm::formatv("rank {0} ends without chunk {1}", r, want.chunk)
                .str();
        violations.push_back(std::move(v));
        continue;
      }
      if (want.tag < 0 || tags[got] == tags[want.tag])
        continue;
      llvm::BitVector missing = tags[want.tag], extra = tags[got];
      missing.reset(tags[got]);
      extra.reset(tags[want.tag]);
      v.kind = ViolationKind::WrongContributions;
      v.message =
          llvm::formatv("rank {0} ends with chunk {1} {2}{3}{4}", r, want.chunk,
                        missing.any() ? "missing the contributions of " +
                                            describeTag(missing, spec.group)
                                      : std::string(),
                        missing.any() && extra.any() ? " and " : "",
                        extra.any() ? "holding extra contributions of " +
                                          describeTag(extra, spec.group)
                                    : std::string())
              .str();
      violations.push_back(std::move(v));
    }
  }
}
