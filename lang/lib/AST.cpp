//===- AST.cpp - Evaluated program: helpers and the --emit=ast printer ----===//
//
// Part of phasec, the .sched language front end.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Program::print() is the `phasec --emit=ast` format. Golden tests depend
/// on it, so it is deterministic (declaration order, sorted rank lists) and
/// prints numbers in one fixed way (integers exactly, rates and times with
/// %g).
///
//===----------------------------------------------------------------------===//

#include "phasec/Lang/AST.h"

#include "phasec/Core/TopologyDesc.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Format.h"

#include <algorithm>

using namespace phasec;
using namespace phasec::lang;

int64_t Machine::numNodes() const {
  if (kind == TopologyKind::Percs)
    return supernodes * drawers * nodesPerDrawer;
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

int64_t Machine::coord(int64_t node, unsigned dim) const {
  int64_t stride = 1;
  for (unsigned d = 0; d < dim; ++d)
    stride *= dims[d];
  return (node / stride) % dims[dim];
}

int64_t Machine::percsSupernode(int64_t node) const {
  return node / (drawers * nodesPerDrawer);
}
int64_t Machine::percsDrawer(int64_t node) const {
  return (node / nodesPerDrawer) % drawers;
}
int64_t Machine::percsIndex(int64_t node) const {
  return node % nodesPerDrawer;
}

int64_t Group::indexOf(int32_t rank) const {
  auto it = std::lower_bound(ranks.begin(), ranks.end(), rank);
  if (it == ranks.end() || *it != rank)
    return -1;
  return it - ranks.begin();
}

int64_t Array::numElements() const {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

uint64_t Operation::numScheduledTransfers() const {
  uint64_t n = 0;
  for (const Phase &p : phases)
    n += p.transfers.size();
  return n;
}

/// The first of `items` that `pred` accepts, or null: every lookup of the
/// program is a linear search over one of its lists.
template <typename T, typename Pred>
static const T *findFirst(const std::vector<std::unique_ptr<T>> &items,
                          Pred pred) {
  auto it = llvm::find_if(
      items, [&](const std::unique_ptr<T> &item) { return pred(*item); });
  return it == items.end() ? nullptr : it->get();
}

const Machine *Program::lookupMachine(llvm::StringRef name) const {
  return findFirst(machines, [&](const Machine &m) { return m.name == name; });
}

const Group *Program::lookupGroup(llvm::StringRef name,
                                  const Machine *machine) const {
  return findFirst(groups, [&](const Group &g) {
    return g.name == name && (!machine || g.machine == machine);
  });
}

const Array *Program::lookupArray(llvm::StringRef name) const {
  return findFirst(arrays, [&](const Array &a) { return a.name == name; });
}

const Operation *Program::lookupOperation(llvm::StringRef name) const {
  return findFirst(operations,
                   [&](const Operation &o) { return o.name == name; });
}

const Group *Program::allGroup(const Machine *machine) const {
  return findFirst(groups, [&](const Group &g) {
    return g.implicitAll && g.machine == machine;
  });
}

//===----------------------------------------------------------------------===//
// Printer
//===----------------------------------------------------------------------===//

namespace {

/// One line of a machine's dump for a real-valued property:
/// `  key = value unit`.
void printRealProperty(llvm::raw_ostream &os, llvm::StringRef key, double v,
                       llvm::StringRef unit) {
  os << "  " << key << " = " << llvm::format("%g", v) << ' ' << unit << '\n';
}

template <typename T>
void printList(llvm::raw_ostream &os, const std::vector<T> &items,
               unsigned maxItems) {
  os << '[';
  size_t n = items.size();
  size_t shown = maxItems ? std::min<size_t>(n, maxItems) : n;
  for (size_t i = 0; i < shown; ++i) {
    if (i)
      os << ", ";
    os << items[i];
  }
  if (shown < n)
    os << ", ... (" << n << " total)";
  os << ']';
}

std::string groupName(const Group *g) {
  if (!g)
    return "<none>";
  return g->machine->name + "." + g->name;
}

} // namespace

void Program::print(llvm::raw_ostream &os, unsigned maxItems) const {
  os << "program \"" << fileName << "\"\n";
  for (const auto &c : constants)
    os << "const " << c->name << " = " << c->value << "\n";
  for (const auto &m : machines) {
    os << "machine " << m->name << " {\n";
    os << "  topology = " << stringifyTopologyKind(m->kind) << '(';
    if (m->kind == TopologyKind::Percs) {
      os << m->supernodes << ", " << m->drawers << ", " << m->nodesPerDrawer;
      if (m->dLinks != 0)
        os << ", " << m->dLinks;
    } else {
      llvm::interleaveComma(m->dims, os);
    }
    os << ")  // " << m->numNodes() << " nodes, " << m->numRanks()
       << " ranks\n";
    os << "  ranks_per_node = " << m->ranksPerNode << "\n";
    if (m->kind == TopologyKind::Percs) {
      printRealProperty(os, "bandwidth.LL", m->llBandwidth, "B/s");
      printRealProperty(os, "bandwidth.LR", m->lrBandwidth, "B/s");
      printRealProperty(os, "bandwidth.D", m->dBandwidth, "B/s");
      printRealProperty(os, "latency.LL", m->llLatency, "s");
      printRealProperty(os, "latency.LR", m->lrLatency, "s");
      printRealProperty(os, "latency.D", m->dLatency, "s");
    } else {
      printRealProperty(os, "bandwidth", m->bandwidth, "B/s");
      printRealProperty(os, "latency", m->latency, "s");
    }
    if (m->injectionBandwidth > 0)
      printRealProperty(os, "injection", m->injectionBandwidth, "B/s");
    else
      os << "  injection = unlimited\n";
    os << "  routing = " << stringifyRouting(m->routing);
    if (m->routing == Routing::DimensionOrder) {
      os << '(';
      llvm::interleaveComma(m->dimOrder, os);
      os << ')';
    }
    os << '\n';
    printRealProperty(os, "setup_cost", m->cost.setupCost, "s");
    os << "  packet_length = " << m->cost.packetLength << " B\n";
    if (m->cost.messageEnvelope > 0)
      os << "  envelope = " << m->cost.messageEnvelope << " B\n";
    if (m->cost.packetHeader > 0)
      os << "  packet_header = " << m->cost.packetHeader << " B\n";
    if (m->cost.routerBuffer > 0)
      os << "  router_buffer = " << m->cost.routerBuffer << "\n";
    printRealProperty(os, "copy_rate.contiguous", m->cost.copyRateContiguous,
                      "B/s");
    printRealProperty(os, "copy_rate.strided", m->cost.copyRateStrided, "B/s");
    // Given only where it differs from copy_rate.strided (issue 38).
    if (m->cost.copyRateStridedStores > 0)
      printRealProperty(os, "copy_rate.strided_stores",
                        m->cost.copyRateStridedStores, "B/s");
    printRealProperty(os, "copy_rate.gather", m->cost.copyRateGather, "B/s");
    os << "  switching = " << stringifySwitching(m->cost.switching) << '\n';
    os << "  sends = " << stringifySendProtocol(m->cost.sends) << '\n';
    if (m->cost.barrierCost >= 0)
      printRealProperty(os, "barrier_cost", m->cost.barrierCost, "s");
    else
      os << "  barrier_cost = modelled\n";
    os << "}\n";
  }
  for (const auto &g : groups) {
    os << "group " << groupName(g.get()) << " over "
       << (g->overNodes ? "nodes" : "ranks") << " (" << g->size() << " ranks";
    if (g->overNodes)
      os << ", " << g->nodes.size() << " nodes";
    os << ")";
    if (g->implicitAll) {
      os << " implicit\n";
      continue;
    }
    if (g->overNodes) {
      os << "\n  nodes = ";
      printList(os, g->nodes, maxItems);
    }
    os << "\n  ranks = ";
    printList(os, g->ranks, maxItems);
    os << "\n";
  }
  for (const auto &a : arrays) {
    os << "array " << a->name << " : " << stringifyElementType(a->elementType)
       << '[';
    llvm::interleaveComma(a->shape, os);
    os << "] by " << stringifyDistribution(a->distribution) << " over "
       << groupName(a->group) << "  // " << a->sizeBytes() << " bytes\n";
  }
  for (const auto &op : operations) {
    os << stringifyCollectiveKind(op->kind) << ' ' << op->name << " on "
       << groupName(op->group) << " {\n";
    if (op->aggregate != Aggregate::None)
      os << "  aggregate = " << stringifyAggregate(op->aggregate) << "\n";
    if (op->valueType)
      os << "  value = "
         << (op->valueLogical ? std::string("bit (1-bit logical, as uint8)")
                              : stringifyElementType(*op->valueType).str())
         << "\n";
    if (op->valueBits && !op->valueLogical)
      os << "  bits = " << op->valueBits << "\n";
    if (op->root >= 0)
      os << "  root = " << op->root << "\n";
    if (op->blockBytes)
      os << "  block = " << op->blockBytes << " B\n";
    if (isReduction(op->kind))
      os << "  op = " << stringifyReduceKind(op->reduceOp) << "\n";
    if (op->count)
      os << "  type = " << stringifyElementType(op->elementType)
         << "\n  count = " << op->count << "\n";
    if (op->from)
      os << "  from = " << op->from->name << "\n";
    if (op->to)
      os << "  to = " << op->to->name << "\n";
    if (!op->call.empty())
      os << "  call = " << op->call << "\n";
    if (getTraits(op->kind).shape == DataShape::Permutation) {
      os << "  pattern = " << stringifyPermuteKind(op->permuteKind);
      switch (op->permuteKind) {
      case PermuteKind::Random:
        os << '(' << op->seed << ')';
        break;
      case PermuteKind::Xor:
        os << '(' << op->mask << ')';
        break;
      case PermuteKind::Shift:
        os << '(' << op->shift << ')';
        break;
      case PermuteKind::Table:
        os << "(\"" << op->tableFile << "\")";
        break;
      case PermuteKind::BitReversal:
      case PermuteKind::Runtime:
        break;
      }
      os << (op->elementLevel ? "  // element level" : "  // rank level")
         << "\n";
      if (!op->permutation.empty()) {
        os << "  permutation = ";
        printList(os, op->permutation, maxItems);
        os << "\n";
      }
    }
    if (!op->sizes.empty()) {
      // Sizes are checked one by one; their sum may not fit (scheduling
      // refuses such an operation, the printer must not overflow first).
      int64_t total = 0;
      bool overflow = false;
      for (int64_t s : op->sizes)
        overflow |= llvm::AddOverflow(total, s, total);
      os << "  sizes = ";
      printList(os, op->sizes, maxItems);
      if (overflow)
        os << "  // more than 2^63 - 1 bytes in total\n";
      else
        os << "  // " << total << " bytes in total\n";
    }
    const Directives &d = op->directives;
    os << "  algorithm = " << stringifyAlgorithm(d.algorithm);
    if (d.algorithm == Algorithm::KLevel) {
      os << '(';
      if (d.kLevels)
        os << d.kLevels;
      else
        os << "logp";
      if (d.kShape != KLevelShape::None)
        os << ", " << stringifyKLevelShape(d.kShape);
      if (d.kGammaPercent)
        os << ", " << formatShortestDouble(d.kGammaPercent / 100.0);
      os << ')';
    }
    if (d.algorithmParam > 0)
      os << '(' << d.algorithmParam << ')';
    os << "\n  sync = " << stringifySyncKind(d.sync)
       << "\n  style = " << stringifyTransferStyle(d.style)
       << "\n  rlimit = " << d.rlimit << "\n";
    if (op->kind == CollectiveKind::Transpose)
      os << "  loop_order = " << stringifyLoopOrder(d.loopOrder) << "\n";
    if (op->hasSchedule) {
      os << "  schedule  // " << op->phases.size() << " phases, "
         << op->numScheduledTransfers() << " transfers";
      if (op->numChunks)
        os << ", " << op->numChunks << " chunks of " << op->chunkBytes
           << " bytes";
      os << "\n";
      size_t shownPhases = maxItems
                               ? std::min<size_t>(op->phases.size(), maxItems)
                               : op->phases.size();
      for (size_t p = 0; p < shownPhases; ++p) {
        const Phase &ph = op->phases[p];
        os << "    phase " << p << " (" << ph.transfers.size()
           << " transfers):";
        size_t n = ph.transfers.size();
        size_t shown = maxItems ? std::min<size_t>(n, maxItems) : n;
        for (size_t i = 0; i < shown; ++i) {
          const Transfer &t = ph.transfers[i];
          os << ' ' << t.src << "->" << t.dst << ':' << t.bytes;
          // Chunks as ids in brackets, `+` for a reduce: 0->4:64[0,1]+.
          if (!t.chunks.empty()) {
            os << '[';
            llvm::interleave(t.chunks, os, ",");
            os << ']' << (t.reduce ? "+" : "");
          }
        }
        if (shown < n)
          os << " ...";
        os << "\n";
      }
      if (shownPhases < op->phases.size())
        os << "    ... (" << op->phases.size() << " phases total)\n";
    }
    os << "}\n";
  }
}
