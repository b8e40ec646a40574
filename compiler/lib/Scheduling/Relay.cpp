//===- Relay.cpp - Schedules that forward and combine data ----------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The relaying algorithms' chunks and the choice among candidates; the
/// rounds are RelayRounds.cpp's, their packing into congestion-free phases
/// RelayPack.cpp's.
/// Indices: n members; trees and chains work on relative indices
/// v = (member - root) mod n, so that every root gets the same shape.
///
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/Relay.h"

#include "RelayGrid.h"
#include "RelayInternal.h"

#include "phasec/Scheduling/ScheduleJSON.h"
#include "phasec/Solver/Z3Solver.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <tuple>

using namespace phasec;
using namespace phasec::relay_detail;

std::string phasec::describeRelayChoice(RelayChoice choice) {
  std::string name = stringifyAlgorithm(choice.algorithm).str();
  if (choice.algorithm == Algorithm::KLevel) {
    name += "(" +
            (choice.param ? std::to_string(choice.param) : std::string("logp"));
    if (choice.shape != KLevelShape::None)
      name += ", " + stringifyKLevelShape(choice.shape).str();
    if (choice.gammaPercent > 0) // 75 -> "0.75", 50 -> "0.5"
      name += ", " + formatShortestDouble(choice.gammaPercent / 100.0);
    if (choice.tree != Algorithm::Auto)
      name += ": " + describeRelayChoice({choice.tree,
                                          defaultParam(choice.tree)});
    return name + ")";
  }
  if (choice.param > 0)
    name += "(" + std::to_string(choice.param) + ")";
  using Source = RelayChoice::OrderSource;
  if (!choice.order.empty())
    name += choice.orderSource == Source::Snake    ? " in snake order"
            : choice.orderSource == Source::Z3Ring ? " in Z3 ring order"
                                                   : " in near-partner order";
  else if (choice.groupOrder)
    name += " in group order";
  return name;
}

//===----------------------------------------------------------------------===//
// Chunking
//===----------------------------------------------------------------------===//

LogicalResult phasec::relay_detail::requirePowerOfTwo(llvm::StringRef name,
                                                      int64_t n,
                                                      llvm::StringRef why,
                                                      std::string &error) {
  if (llvm::isPowerOf2_64(n))
    return success();
  error = llvm::formatv("{0} needs a power-of-two group ({1}), got {2} members",
                        name, why, n)
              .str();
  return failure();
}

int64_t phasec::relay_detail::floorSqrt(int64_t v) {
  int64_t r = static_cast<int64_t>(std::sqrt(static_cast<double>(v)));
  while (r > 0 && r * r > v)
    --r;
  while ((r + 1) * (r + 1) <= v)
    ++r;
  return r;
}

FailureOr<int64_t> phasec::relay_detail::gridRowLength(llvm::StringRef name,
                                                       int64_t n, int64_t param,
                                                       std::string &error) {
  int64_t c = param > 0 ? param : defaultParam(Algorithm::Grid, n);
  if (c > 1 && c < n && n % c == 0)
    return c;
  error = param > 0 ? llvm::formatv("{0} needs a row length that divides the "
                                    "group's {1} members into several rows",
                                    name, n)
                          .str()
                    : llvm::formatv("{0} needs a group that is a grid of "
                                    "several rows and columns; {1} members "
                                    "are not",
                                    name, n)
                          .str();
  return failure();
}

int64_t phasec::relay_detail::defaultParam(Algorithm algorithm,
                                           int64_t members) {
  switch (algorithm) {
  case Algorithm::Knomial:
    return 4;
  case Algorithm::Chain:
    return 8;
  case Algorithm::DoubleChain:
    return 16;
  case Algorithm::Ring:
  case Algorithm::Rabenseifner:
    return 1;
  case Algorithm::DimensionWise:
    return 2;
  case Algorithm::Grid: {
    int64_t c = floorSqrt(members);
    while (c > 1 && members % c)
      --c;
    return c > 1 ? c : 0;
  }
  default:
    return 0;
  }
}

FailureOr<ChunkSpec> phasec::getRelayChunks(const Collective &collective,
                                            RelayChoice choice,
                                            std::string &error) {
  ChunkSpec spec;
  // C^3's one-to-all and all-to-one are personalized: a scatter and a
  // gather.
  spec.kind = ChunkSpec::getChunkKind(collective.kind);
  spec.group = collective.group;
  spec.root = collective.root;
  const int64_t n = collective.numMembers();
  const std::string name = describeRelayChoice(choice);
  const CollectiveKind kind = collective.kind;
  if (!llvm::is_contained(getRelayAlgorithms(kind), choice.algorithm)) {
    error =
        ("not supported: algorithm '" + stringifyAlgorithm(choice.algorithm) +
         "' for '" + stringifyCollectiveKind(kind) + "'")
            .str();
    return failure();
  }
  if (getTraits(kind).family == CollectiveFamily::Dataless) {
    // Dissemination runs on any count: on one that is not a power of two
    // its last round tells some members of arrivals they know of
    // (ReplayRules).
    spec.numChunks = 1;
    spec.chunkBytes = 0;
    return spec;
  }
  int64_t unit = collective.elementBytes();
  if (collective.memberBytes.empty() &&
      (collective.blockBytes <= 0 || collective.blockBytes % unit)) {
    error = llvm::formatv("{0} bytes are not a whole number of {1}-byte "
                          "elements",
                          collective.blockBytes, unit)
                .str();
    return failure();
  }
  const int64_t elements = collective.blockBytes / unit;
  int64_t param =
      choice.param > 0 ? choice.param : defaultParam(choice.algorithm, n);
  int64_t pow2 = n > 0 ? int64_t(1) << llvm::Log2_64(n) : 0;
  // `elements` cut into `parts` pieces as MPI's rings cut a count that does
  // not divide (MPICH's ring allreduce): the first elements % parts take
  // one element more; pieces may be empty.
  auto cutEvenly = [&](int64_t parts) {
    std::vector<int64_t> bytes(parts, elements / parts * unit);
    for (int64_t i = 0; i < elements % parts; ++i)
      bytes[i] += unit;
    return bytes;
  };
  // Kinds whose data is one vector of `elements`, cut into C chunks.
  auto cutVector = [&](int64_t chunks, llvm::StringRef why) -> bool {
    if (chunks <= 0) {
      error = llvm::formatv("{0} cuts the data into {1} chunks ({2})", name,
                            chunks, why)
                  .str();
      return false;
    }
    spec.numChunks = chunks;
    if (elements % chunks == 0) {
      spec.chunkBytes = collective.blockBytes / chunks;
      return true;
    }
    spec.chunkSizes = cutEvenly(chunks);
    return true;
  };
  // By how the kind's data is cut (the barrier returned above).
  switch (getTraits(kind).chunkParts) {
  case ChunkParts::One: {
    bool ok = true;
    switch (choice.algorithm) {
    case Algorithm::Chain:
    case Algorithm::DoubleChain:
      ok = cutVector(param, "one per segment");
      break;
    case Algorithm::Ring:
      ok = cutVector(n * param, "segments per member times members");
      break;
    case Algorithm::Rabenseifner: {
      // One block per member of the largest power-of-two subgroup, or, when
      // the vector is too short for that, the most blocks (a power of two)
      // that divide it: the halving stops at one block and recursive
      // doubling finishes (as Rabenseifner's own code does for short
      // vectors), instead of refusing a 32-element allreduce on 64 ranks.
      int64_t blocks = pow2;
      while (blocks > 1 && elements % (blocks * param))
        blocks /= 2;
      ok = cutVector(blocks * param, "one block per member of the largest "
                                     "power-of-two subgroup, or fewer "
                                     "blocks for a short vector");
      break;
    }
    case Algorithm::ScatterAllgather:
    case Algorithm::ScatterBruckAllgather:
      ok = cutVector(n, "one per member");
      break;
    case Algorithm::ScatterRdbAllgather:
      if (failed(requirePowerOfTwo(
              name, n, "recursive doubling pairs member v with v xor 2^k",
              error)))
        return failure();
      ok = cutVector(n, "one per member");
      break;
    case Algorithm::DimensionWise:
      ok = cutVector(param * n, "parts times members");
      break;
    case Algorithm::Grid:
      if (failed(gridRowLength(name, n, param, error)))
        return failure();
      ok = cutVector(n, "one per member");
      break;
    case Algorithm::Direct:
      ok = cutVector(kind == CollectiveKind::Allreduce ? n : 1,
                     kind == CollectiveKind::Allreduce ? "one per member"
                                                       : "one");
      break;
    case Algorithm::Knomial:
      if (param < 2) {
        error = "knomial needs a radix of at least 2";
        return failure();
      }
      ok = cutVector(1, "one");
      break;
    default:
      ok = cutVector(1, "one");
      break;
    }
    if (!ok)
      return failure();
    return spec;
  }
  case ChunkParts::PerMember:
    if (choice.algorithm == Algorithm::Grid &&
        failed(gridRowLength(name, n, param, error)))
      return failure();
    if ((choice.algorithm == Algorithm::RecursiveHalving ||
         choice.algorithm == Algorithm::RecursiveDoubling) &&
        failed(requirePowerOfTwo(name, n,
                                 "round k pairs member v with v xor 2^k",
                                 error)))
      return failure();
    // A dimension-wise allgather moves each member's block in `param`
    // parts, each along the dimensions in its own order.
    // A v-collective's blocks differ: each member's block cut as a ring
    // cuts (one part, or dimension_wise's parts), each part a chunk.
    if (!collective.memberBytes.empty()) {
      int64_t parts = choice.algorithm == Algorithm::DimensionWise ? param : 1;
      if (parts <= 0 ||
          static_cast<int64_t>(collective.memberBytes.size()) != n) {
        error =
            llvm::formatv("{0} needs {1} member sizes and parts > 0", name, n)
                .str();
        return failure();
      }
      spec.numChunks = n * parts;
      spec.chunkBytes = 0;
      for (int64_t bytes : collective.memberBytes) {
        if (bytes < 0 || bytes % unit) {
          error = llvm::formatv("a block of {0} bytes is not a whole number "
                                "of {1}-byte elements",
                                bytes, unit)
                      .str();
          return failure();
        }
        int64_t e = bytes / unit;
        for (int64_t q = 0; q < parts; ++q)
          spec.chunkSizes.push_back((e / parts + (q < e % parts)) * unit);
      }
      return spec;
    }
    if (choice.algorithm == Algorithm::DimensionWise) {
      if (param <= 0) {
        error =
            llvm::formatv("{0} cuts every block into {1} parts", name, param)
                .str();
        return failure();
      }
      spec.numChunks = n * param;
      if (elements % param == 0) {
        spec.chunkBytes = collective.blockBytes / param;
        return spec;
      }
      std::vector<int64_t> parts = cutEvenly(param);
      for (int64_t i = 0; i < n; ++i)
        llvm::append_range(spec.chunkSizes, parts);
      return spec;
    }
    spec.numChunks = n;
    spec.chunkBytes = collective.blockBytes;
    return spec;
  case ChunkParts::PerPair:
    spec.numChunks = n * n;
    spec.chunkBytes = collective.blockBytes;
    return spec;
  case ChunkParts::None:
    break;
  }
  error = ("not supported: algorithm '" + name + "' for '" +
           stringifyCollectiveKind(kind) + "'")
              .str();
  return failure();
}

//===----------------------------------------------------------------------===//
// Choice
//===----------------------------------------------------------------------===//

/// Rings and pipelined chains whose member order phasec may choose: the
/// ring collectives, and the broadcast and reduce chains (a scan's chain
/// computes prefixes in group order, so it keeps it).
static bool canReorder(const RelayChoice &choice, CollectiveKind kind) {
  if (choice.algorithm != Algorithm::Ring &&
      choice.algorithm != Algorithm::Chain &&
      choice.algorithm != Algorithm::DoubleChain)
    return false;
  return llvm::is_contained(getRelayAlgorithms(kind), choice.algorithm) &&
         !isPrefix(kind);
}

/// A Hamiltonian cycle of nearest neighbours through a whole 2-D mesh or
/// torus (one rank per node, the group every rank in order) with an even
/// extent: along row 0, then snaking through columns 1.. of the other
/// rows, back up column 0. Its edges are single links, so a ring or a
/// double chain along it never shares a link.
static std::optional<std::vector<int32_t>> snakeOrder(const Topology &topo,
                                                      const ChunkSpec &spec) {
  if (!isWholeGridInOrder(&topo, spec))
    return std::nullopt;
  // A mesh line: its folded ring.
  if (topo.numDims() == 1 && topo.kind() == TopologyKind::Mesh &&
      topo.extent(0) > 2) {
    std::vector<int32_t> order;
    for (int64_t p = 0; p < topo.extent(0); ++p)
      order.push_back(
          static_cast<int32_t>(foldedLineCoordinate(topo.extent(0), p)));
    return order;
  }
  if (topo.numDims() != 2)
    return std::nullopt;
  int64_t W = topo.extent(0), H = topo.extent(1);
  bool transposed = H % 2 != 0;
  if (transposed)
    std::swap(W, H);
  if (H % 2 != 0 || W < 2)
    return std::nullopt;
  auto at = [&](int64_t x, int64_t y) {
    return static_cast<int32_t>(transposed ? y + H * x : x + W * y);
  };
  std::vector<int32_t> order;
  for (int64_t x = 0; x < W; ++x)
    order.push_back(at(x, 0));
  for (int64_t y = 1; y < H; ++y)
    for (int64_t i = 1; i < W; ++i)
      order.push_back(at(y % 2 ? W - i : i, y));
  for (int64_t y = H - 1; y >= 1; --y)
    order.push_back(at(0, y));
  return order;
}

/// The largest group the ring-order search takes on: the query has n^2
/// edge variables.
static constexpr int64_t kMaxRingOrderSearch = 64;

/// A member order in which every member can send to its successor (to its
/// predecessor if `backward`) in one congestion-free phase, from Z3; none
/// if Z3 proves there is none or runs out of its rlimit. The answer
/// depends only on the machine, the group and the two arguments, and Z3
/// runs deterministically, so it is computed once per process: the
/// operations of a file, their chains of several segment counts and the
/// reports' comparisons share one query.
///
/// `bothWays`: every edge must also be free the other way round (a double
/// chain sends along the cycle in both directions at once).
static std::optional<std::vector<int32_t>>
searchRingOrder(const Topology &topo, const ChunkSpec &spec, bool backward,
                int64_t first, bool bothWays = false) {
  using Key =
      std::tuple<std::string, std::vector<RankId>, bool, int64_t, bool>;
  static std::mutex mutex;
  static std::map<Key, std::optional<std::vector<int32_t>>> cache;
  Key key{topo.desc().str(), spec.group, backward, first, bothWays};
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(key);
    if (it != cache.end())
      return it->second;
  }
  const unsigned n = static_cast<unsigned>(spec.numMembers());
  solver::CycleQuery query;
  query.numMembers = n;
  query.numResources = static_cast<unsigned>(topo.numLinks());
  query.first = static_cast<unsigned>(first);
  query.resources.resize(static_cast<size_t>(n) * n);
  llvm::SmallVector<LinkId, 16> route;
  for (unsigned a = 0; a < n; ++a)
    for (unsigned b = 0; b < n; ++b) {
      if (a == b)
        continue;
      RankId from = spec.group[backward ? b : a];
      RankId to = spec.group[backward ? a : b];
      auto &links = query.resources[static_cast<size_t>(a) * n + b];
      topo.routeRanks(from, to, 0, route);
      for (LinkId l : route)
        links.push_back(static_cast<int32_t>(l));
      if (bothWays) {
        topo.routeRanks(to, from, 0, route);
        for (LinkId l : route)
          links.push_back(static_cast<int32_t>(l));
      }
    }
  std::string error;
  FailureOr<solver::CycleResult> result =
      solver::solveCycleEmbedding(query, solver::SolverOptions(), error);
  std::optional<std::vector<int32_t>> order;
  if (succeeded(result) && result->status == SolveStatus::Sat)
    order = result->order;
  std::lock_guard<std::mutex> lock(mutex);
  cache[key] = order;
  return order;
}

/// A ring or double chain along a cycle of nearest neighbours (a snake
/// through a 2-D grid, a folded mesh line) pays a hop or two of latency a
/// round where group order may cross the machine; a ring or chain whose
/// rounds group order splits into several phases: ask Z3 for an order in
/// which each round is one phase. buildOne keeps either if it is faster.
static std::optional<RelayChoice> ringOrder(const Topology &topo,
                                            const Collective &collective,
                                            const RelayChoice &choice,
                                            const RelaySchedule &out,
                                            size_t numRounds) {
  const int64_t n = out.chunks.numMembers();
  const bool bothWays = choice.algorithm == Algorithm::DoubleChain;
  std::optional<std::vector<int32_t>> order =
      bothWays || choice.algorithm == Algorithm::Ring
          ? snakeOrder(topo, out.chunks)
          : std::nullopt;
  const bool snake = order.has_value();
  const bool split = out.schedule.phases.size() > numRounds;
  if (!order && (!split || n > kMaxRingOrderSearch))
    return std::nullopt;
  // A chain toward the root (a reduce) runs the order backwards.
  bool backward = getTraits(collective.kind).recv.rootOnly();
  int64_t first = out.chunks.root >= 0
                      ? llvm::find(out.chunks.group, out.chunks.root) -
                            out.chunks.group.begin()
                      : 0;
  if (!order)
    order = searchRingOrder(topo, out.chunks, backward, first, bothWays);
  if (!order)
    return std::nullopt;
  RelayChoice reordered = choice;
  reordered.order = std::move(*order);
  reordered.orderSource = snake ? RelayChoice::OrderSource::Snake
                                : RelayChoice::OrderSource::Z3Ring;
  return reordered;
}

/// The algorithms that pair members by their index (v xor 2^k, v + 2^k,
/// the trees of reduce_broadcast) in a collective without a root or a
/// prefix: any numbering of the members computes the same result, and the
/// numbering decides how far apart the partners of a round are.
static bool pairsByIndex(const RelayChoice &choice, CollectiveKind kind) {
  switch (choice.algorithm) {
  case Algorithm::RecursiveDoubling:
  case Algorithm::RecursiveHalving:
  case Algorithm::Rabenseifner:
  case Algorithm::ReduceBroadcast:
  case Algorithm::Bruck:
  case Algorithm::Dissemination:
  case Algorithm::Grid:
    break;
  default:
    return false;
  }
  const CollectiveTraits &traits = getTraits(kind);
  return !traits.rooted && !traits.prefix &&
         llvm::is_contained(traits.relayAlgorithms, choice.algorithm);
}

/// The largest group the near-partner search takes on: a pass tries every
/// swap of two members against every step of the rounds.
static constexpr int64_t kMaxNearPartnerSearch = 64;

/// In group order the partners by index of a torus or mesh can sit across
/// the machine (on a 3x7 torus, v and v xor 8 are three hops apart), and a
/// round lasts as long as its farthest pair's latency. A local search for
/// the numbering whose rounds' farthest pairs are nearest: minimise the sum
/// over rounds of the longest route (in links), then the sum of all
/// routes' links, by swapping two members while a swap improves
/// (first improvement, members in index order: deterministic). The rounds
/// are the algorithm's in group order, so step (a, b) is between members a
/// and b; numbering `order` puts it between order[a] and order[b]. None if
/// group order is already a local optimum.
static std::optional<RelayChoice>
nearPartnerOrder(const Topology &topo, const ChunkSpec &spec,
                 const RelayChoice &choice, llvm::ArrayRef<RelayRound> rounds) {
  const int64_t n = spec.numMembers();
  if (n < 4 || n > kMaxNearPartnerSearch)
    return std::nullopt;
  std::vector<int64_t> hops(n * n, 0);
  llvm::SmallVector<LinkId, 16> route;
  for (int64_t a = 0; a < n; ++a)
    for (int64_t b = 0; b < n; ++b)
      if (a != b) {
        topo.routeRanks(spec.group[a], spec.group[b], 0, route);
        hops[a * n + b] = static_cast<int64_t>(route.size());
      }
  std::vector<std::vector<std::pair<int32_t, int32_t>>> pairs;
  for (const RelayRound &round : rounds) {
    pairs.emplace_back();
    for (const RelayStep &step : round)
      pairs.back().push_back({step.src, step.dst});
  }
  std::vector<int32_t> order(n);
  for (int64_t v = 0; v < n; ++v)
    order[v] = static_cast<int32_t>(v);
  // The longest routes dominate: weigh them above every step's links.
  const int64_t farthest = *std::max_element(hops.begin(), hops.end());
  int64_t weight = 1;
  for (const auto &round : pairs)
    weight += static_cast<int64_t>(round.size()) * farthest;
  auto cost = [&] {
    int64_t longest = 0, total = 0;
    for (const auto &round : pairs) {
      int64_t most = 0;
      for (auto [a, b] : round) {
        int64_t h = hops[order[a] * n + order[b]];
        most = std::max(most, h);
        total += h;
      }
      longest += most;
    }
    return longest * weight + total;
  };
  const int64_t start = cost();
  int64_t best = start;
  for (bool improved = true; improved;) {
    improved = false;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i + 1; j < n; ++j) {
        std::swap(order[i], order[j]);
        int64_t c = cost();
        if (c < best) {
          best = c;
          improved = true;
        } else {
          std::swap(order[i], order[j]);
        }
      }
  }
  if (best >= start)
    return std::nullopt;
  RelayChoice reordered = choice;
  reordered.order = std::move(order);
  reordered.orderSource = RelayChoice::OrderSource::NearPartners;
  return reordered;
}

/// A relaying schedule's time on the machine as described (set-ups,
/// latency and the model's sync as well as bandwidth): what the choices
/// among relaying schedules minimise.
static double relayTime(const CostModel &model, const RelaySchedule &r) {
  return model.machineTime(r.schedule, r.chunks.group, /*relaying=*/true)
      .total();
}

/// One candidate: chunks, rounds, phases, then the independent replay.
static FailureOr<RelaySchedule>
buildOne(const Topology &topo, const CostModel &model,
         const Collective &collective, RelayChoice choice, std::string &error,
         bool searchOrder = true) {
  RelaySchedule out;
  out.choice = choice;
  FailureOr<ChunkSpec> spec = getRelayChunks(collective, choice, error);
  if (failed(spec))
    return failure();
  out.chunks = std::move(*spec);
  FailureOr<std::vector<RelayRound>> rounds =
      buildRelayRounds(out.chunks, choice, error, &topo);
  if (failed(rounds))
    return failure();
  FailureOr<Schedule> schedule = packRounds(topo, out.chunks, *rounds, error);
  if (failed(schedule))
    return failure();
  out.schedule = std::move(*schedule);
  out.schedule.algorithm = describeRelayChoice(choice);
  Problem problem(topo, out.chunks, model);
  out.schedule.bound = problem.bound();
  llvm::SmallVector<ScheduleViolation, 4> violations;
  if (failed(problem.verify(out.schedule, violations, 1))) {
    error = describeRelayChoice(choice) +
            " produced a schedule that does not verify: " +
            violations.front().message;
    return failure();
  }
  if (!searchOrder || !choice.order.empty() || choice.groupOrder)
    return out;
  std::optional<RelayChoice> reordered =
      canReorder(choice, collective.kind)
          ? ringOrder(topo, collective, choice, out, rounds->size())
      : pairsByIndex(choice, collective.kind)
          ? nearPartnerOrder(topo, out.chunks, choice, *rounds)
          : std::nullopt;
  if (!reordered)
    return out;
  std::string why;
  FailureOr<RelaySchedule> other =
      buildOne(topo, model, collective, *reordered, why, false);
  if (failed(other) ||
      relayTime(model, *other) >= relayTime(model, out) * (1 - 1e-9))
    return out;
  return other;
}

llvm::SmallVector<RelayChoice, 4>
phasec::getRelayCandidates(Algorithm algorithm, const Collective &c,
                           const Topology *topo) {
  switch (algorithm) {
  case Algorithm::DimensionWise: // one part per dimension, or per direction
    return {{algorithm, 2}, {algorithm, 4}};
  case Algorithm::Grid: {
    // Rows of the divisor nearest sqrt(n) from below and from above (which
    // of the two exchanges is the longer matters on the machine), and,
    // where the group is the whole machine in order, rows along its first
    // dimension and planes of its first two (their exchanges stay inside
    // the machine's lines and planes).
    const int64_t n = c.numMembers();
    std::string ignored;
    llvm::SmallVector<RelayChoice, 4> out;
    auto add = [&](int64_t rowLength) {
      if (rowLength > 0 &&
          succeeded(
              relay_detail::gridRowLength("grid", n, rowLength, ignored)) &&
          llvm::none_of(
              out, [&](const RelayChoice &o) { return o.param == rowLength; }))
        out.push_back({algorithm, rowLength});
    };
    if (int64_t square = relay_detail::defaultParam(algorithm, n)) {
      add(square);
      add(n / square);
    }
    bool wholeMachine = topo && topo->numRanks() == n;
    for (int64_t i = 0; wholeMachine && i < n; ++i)
      wholeMachine = c.group[i] == i;
    if (wholeMachine) {
      const int64_t perNode = topo->ranksPerNode();
      add(perNode);
      if (topo->isPercs()) {
        add(perNode * topo->desc().nodesPerDrawer);
        add(perNode * topo->nodesPerSupernode());
      } else {
        int64_t line = perNode;
        for (unsigned d = 0; d + 1 < topo->numDims(); ++d)
          add(line *= topo->extent(d));
      }
    }
    return out;
  }
  case Algorithm::ReduceBroadcast: { // binomial, 4-nomial and flat trees
    llvm::SmallVector<RelayChoice, 4> out{{algorithm, 0}};
    if (c.numMembers() > 2)
      out.push_back({algorithm, 4});
    if (c.numMembers() > 4)
      out.push_back({algorithm, c.numMembers()});
    return out;
  }
  case Algorithm::KLevel:
    if (c.kind == CollectiveKind::Alltoall) // 2-lev-sq, 2-lev-r,c, bfly
      return {{algorithm, 2, KLevelShape::Sq},
              {algorithm, 2, KLevelShape::Rc},
              {algorithm, 0, KLevelShape::Bfly}};
    // 2-lev-rec, 3-lev-sq, logp-lev-sq
    return {{algorithm, 2, KLevelShape::Rec},
            {algorithm, 3, KLevelShape::Sq},
            {algorithm, 0, KLevelShape::Sq}};
  case Algorithm::Chain:
  case Algorithm::DoubleChain: {
    // Segment counts that divide the data, near n, 4n and 16n.
    int64_t elements = c.blockBytes / c.elementBytes();
    llvm::SmallVector<RelayChoice, 4> out;
    for (int64_t target :
         {c.numMembers(), 4 * c.numMembers(), 16 * c.numMembers()}) {
      int64_t s = std::min(target, elements);
      while (s > 1 && elements % s)
        --s;
      if (s >= 1 && llvm::none_of(out, [&](const RelayChoice &o) {
            return o.param == s;
          }))
        out.push_back({algorithm, s});
    }
    return out;
  }
  default:
    return {{algorithm, defaultParam(algorithm)}};
  }
}

FailureOr<RelaySchedule> phasec::scheduleRelaying(const Topology &topo,
                                                  const CostModel &model,
                                                  const Collective &collective,
                                                  RelayChoice choice,
                                                  std::string &error) {
  // The default is named in the result (grid(6), chain(8)).
  if (choice.param == 0)
    choice.param = defaultParam(choice.algorithm, collective.numMembers());
  // 1-lev-sys-br broadcasts with "the system's" broadcast: phasec is the
  // system, so the fastest of its whole-message broadcast trees.
  const bool systemBroadcast = choice.algorithm == Algorithm::KLevel &&
                               choice.shape == KLevelShape::SysBr &&
                               choice.tree == Algorithm::Auto;
  if (choice.algorithm != Algorithm::Auto && !systemBroadcast) {
    FailureOr<RelaySchedule> one =
        buildOne(topo, model, collective, choice, error);
    if (failed(one) &&
        !llvm::StringRef(error).starts_with(describeRelayChoice(choice)))
      error = describeRelayChoice(choice) + ": " + error;
    return one;
  }
  std::vector<RelayChoice> candidates;
  if (systemBroadcast) {
    for (Algorithm tree : {Algorithm::Direct, Algorithm::Binomial,
                           Algorithm::Binary, Algorithm::Knomial}) {
      RelayChoice c = choice;
      c.tree = tree;
      candidates.push_back(c);
    }
  } else {
    for (Algorithm algorithm : getRelayAlgorithms(collective.kind))
      llvm::append_range(candidates,
                         getRelayCandidates(algorithm, collective, &topo));
  }
  std::optional<RelaySchedule> best;
  double bestTime = 0;
  std::vector<std::string> tried;
  std::string firstError;
  {
    for (const RelayChoice &candidate : candidates) {
      std::string why;
      FailureOr<RelaySchedule> one =
          buildOne(topo, model, collective, candidate, why);
      // The default has a schedule JSON document, as every choice but a
      // written dissemination barrier on a count that is not a power of
      // two does: the statistics, the document and the code then agree.
      if (succeeded(one) &&
          failed(checkScheduleDocument(Problem(topo, one->chunks, model),
                                       one->schedule, why)))
        one = failure();
      if (failed(one)) {
        tried.push_back(describeRelayChoice(candidate) + ": " + why);
        if (firstError.empty())
          firstError = describeRelayChoice(candidate) + ": " + why;
        continue;
      }
      double time = relayTime(model, *one);
      tried.push_back(
          llvm::formatv("{0}: {1:e} s", describeRelayChoice(candidate), time));
      if (!best || time < bestTime * (1 - 1e-9) ||
          (time <= bestTime * (1 + 1e-9) &&
           one->schedule.phases.size() < best->schedule.phases.size())) {
        best = std::move(*one);
        bestTime = time;
      }
    }
  }
  if (!best && systemBroadcast) {
    error = firstError;
    return failure();
  }
  if (!best) {
    error = "no relaying algorithm applies to '" +
            stringifyCollectiveKind(collective.kind).str() + "'" +
            (firstError.empty() ? std::string() : " (" + firstError + ")");
    return failure();
  }
  best->tried = std::move(tried);
  return std::move(*best);
}

std::vector<RelayComparison>
phasec::compareRelaying(const Topology &topo, const CostModel &model,
                        const Collective &collective) {
  // k_level names a family: each of its variants.
  std::vector<RelayChoice> choices;
  for (Algorithm algorithm : getRelayAlgorithms(collective.kind)) {
    if (algorithm == Algorithm::KLevel)
      llvm::append_range(choices, getRelayCandidates(algorithm, collective));
    else
      choices.push_back({algorithm, 0});
  }
  std::vector<RelayComparison> out;
  for (const RelayChoice &choice : choices) {
    RelayComparison &c = out.emplace_back();
    c.name = stringifyAlgorithm(choice.algorithm).str();
    c.schedule = scheduleRelaying(topo, model, collective, choice, c.error);
    if (failed(c.schedule) || c.schedule->choice.order.empty())
      continue;
    RelayChoice plain = c.schedule->choice;
    plain.order.clear();
    plain.groupOrder = true;
    RelayComparison grouped;
    grouped.name = describeRelayChoice(plain);
    grouped.schedule =
        scheduleRelaying(topo, model, collective, plain, grouped.error);
    if (succeeded(grouped.schedule))
      out.push_back(std::move(grouped));
  }
  return out;
}
