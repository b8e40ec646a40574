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

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Format.h"

#include <algorithm>

using namespace phasec::lang;

llvm::StringRef phasec::lang::stringifyTopologyKind(TopologyKind kind) {
  switch (kind) {
  case TopologyKind::Torus:
    return "torus";
  case TopologyKind::Mesh:
    return "mesh";
  case TopologyKind::Hypercube:
    return "hypercube";
  case TopologyKind::Percs:
    return "percs";
  }
  llvm_unreachable("bad topology kind");
}

llvm::StringRef phasec::lang::stringifyLinkClass(LinkClass cls) {
  switch (cls) {
  case LinkClass::Network:
    return "network";
  case LinkClass::LL:
    return "LL";
  case LinkClass::LR:
    return "LR";
  case LinkClass::D:
    return "D";
  }
  llvm_unreachable("bad link class");
}

llvm::StringRef phasec::lang::stringifyRoutingKind(RoutingKind kind) {
  return kind == RoutingKind::Direct ? "direct" : "dimension_order";
}

llvm::StringRef phasec::lang::stringifyElementType(ElementType type) {
  switch (type) {
  case ElementType::Int8:
    return "int8";
  case ElementType::Int16:
    return "int16";
  case ElementType::Int32:
    return "int32";
  case ElementType::Int64:
    return "int64";
  case ElementType::UInt8:
    return "uint8";
  case ElementType::UInt16:
    return "uint16";
  case ElementType::UInt32:
    return "uint32";
  case ElementType::UInt64:
    return "uint64";
  case ElementType::F32:
    return "f32";
  case ElementType::F64:
    return "f64";
  case ElementType::Complex64:
    return "complex64";
  case ElementType::Complex128:
    return "complex128";
  }
  llvm_unreachable("bad element type");
}

std::optional<ElementType>
phasec::lang::symbolizeElementType(llvm::StringRef name) {
  for (unsigned i = 0; i <= static_cast<unsigned>(ElementType::Complex128);
       ++i) {
    auto type = static_cast<ElementType>(i);
    if (stringifyElementType(type) == name)
      return type;
  }
  return std::nullopt;
}

const char *const phasec::lang::kElementTypeSpellings =
    "int8, int16, int32, int64, uint8, uint16, uint32, uint64, f32, f64, "
    "complex64, complex128";

int64_t phasec::lang::elementTypeBytes(ElementType type) {
  switch (type) {
  case ElementType::Int8:
  case ElementType::UInt8:
    return 1;
  case ElementType::Int16:
  case ElementType::UInt16:
    return 2;
  case ElementType::Int32:
  case ElementType::UInt32:
  case ElementType::F32:
    return 4;
  case ElementType::Int64:
  case ElementType::UInt64:
  case ElementType::F64:
  case ElementType::Complex64:
    return 8;
  case ElementType::Complex128:
    return 16;
  }
  llvm_unreachable("bad element type");
}

llvm::StringRef phasec::lang::stringifyDistribution(Distribution dist) {
  return dist == Distribution::Rows ? "rows" : "cols";
}

llvm::StringRef phasec::lang::stringifyOpKind(OpKind kind) {
  switch (kind) {
  case OpKind::Alltoall:
    return "alltoall";
  case OpKind::Alltoallv:
    return "alltoallv";
  case OpKind::Transpose:
    return "transpose";
  case OpKind::Permute:
    return "permute";
  case OpKind::Gather:
    return "gather";
  case OpKind::Scatter:
    return "scatter";
  case OpKind::Allgather:
    return "allgather";
  case OpKind::Broadcast:
    return "broadcast";
  case OpKind::Reduce:
    return "reduce";
  case OpKind::Allreduce:
    return "allreduce";
  case OpKind::Scan:
    return "scan";
  case OpKind::OneToAll:
    return "one_to_all";
  case OpKind::AllToOne:
    return "all_to_one";
  case OpKind::Barrier:
    return "barrier";
  case OpKind::Local:
    return "local";
  }
  llvm_unreachable("bad op kind");
}

llvm::StringRef phasec::lang::stringifyAggregate(Aggregate agg) {
  switch (agg) {
  case Aggregate::None:
    return "none";
  case Aggregate::Putget:
    return "putget";
  case Aggregate::Waitvec:
    return "waitvec";
  case Aggregate::Vote:
    return "vote";
  case Aggregate::Match:
    return "match";
  case Aggregate::Rank:
    return "rank";
  case Aggregate::Population:
    return "population";
  case Aggregate::Enumerate:
    return "enumerate";
  case Aggregate::Any:
    return "any";
  case Aggregate::All:
    return "all";
  case Aggregate::Barrier:
    return "barrier";
  }
  llvm_unreachable("bad aggregate");
}

llvm::StringRef phasec::lang::stringifyReduceOp(ReduceOp op) {
  switch (op) {
  case ReduceOp::Add:
    return "add";
  case ReduceOp::Mul:
    return "mul";
  case ReduceOp::Min:
    return "min";
  case ReduceOp::Max:
    return "max";
  case ReduceOp::And:
    return "and";
  case ReduceOp::Or:
    return "or";
  case ReduceOp::Xor:
    return "xor";
  }
  llvm_unreachable("bad reduce op");
}

llvm::StringRef phasec::lang::stringifyPermuteKind(PermuteKind kind) {
  switch (kind) {
  case PermuteKind::Random:
    return "random";
  case PermuteKind::BitReversal:
    return "bit_reversal";
  case PermuteKind::Xor:
    return "xor";
  case PermuteKind::Shift:
    return "shift";
  case PermuteKind::Table:
    return "table";
  }
  llvm_unreachable("bad permute kind");
}

llvm::StringRef phasec::lang::stringifyAlgorithm(Algorithm alg) {
  switch (alg) {
  case Algorithm::Auto:
    return "auto";
  case Algorithm::Pairwise:
    return "pairwise";
  case Algorithm::LinearShift:
    return "linear_shift";
  case Algorithm::Xor:
    return "xor";
  case Algorithm::Bruck:
    return "bruck";
  case Algorithm::KLevel:
    return "k_level";
  case Algorithm::Direct:
    return "direct";
  case Algorithm::Schedule:
    return "schedule";
  }
  llvm_unreachable("bad algorithm");
}

llvm::StringRef phasec::lang::stringifyKLevelShape(KLevelShape shape) {
  switch (shape) {
  case KLevelShape::None:
    return "none";
  case KLevelShape::Rec:
    return "rec";
  case KLevelShape::Sq:
    return "sq";
  }
  llvm_unreachable("bad k-level shape");
}

llvm::StringRef phasec::lang::stringifySyncKind(SyncKind sync) {
  return sync == SyncKind::Barrier ? "barrier" : "none";
}

llvm::StringRef phasec::lang::stringifyTransferStyle(TransferStyle style) {
  switch (style) {
  case TransferStyle::Packing:
    return "packing";
  case TransferStyle::Chained:
    return "chained";
  case TransferStyle::DirectDeposit:
    return "direct_deposit";
  }
  llvm_unreachable("bad transfer style");
}

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

const Machine *Program::lookupMachine(llvm::StringRef name) const {
  for (const auto &m : machines)
    if (m->name == name)
      return m.get();
  return nullptr;
}

const Group *Program::lookupGroup(llvm::StringRef name,
                                  const Machine *machine) const {
  for (const auto &g : groups)
    if (g->name == name && (!machine || g->machine == machine))
      return g.get();
  return nullptr;
}

const Array *Program::lookupArray(llvm::StringRef name) const {
  for (const auto &a : arrays)
    if (a->name == name)
      return a.get();
  return nullptr;
}

const Operation *Program::lookupOperation(llvm::StringRef name) const {
  for (const auto &o : operations)
    if (o->name == name)
      return o.get();
  return nullptr;
}

const Group *Program::allGroup(const Machine *machine) const {
  for (const auto &g : groups)
    if (g->implicitAll && g->machine == machine)
      return g.get();
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Printer
//===----------------------------------------------------------------------===//

namespace {

void printReal(llvm::raw_ostream &os, double v) { os << llvm::format("%g", v); }

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
    } else {
      llvm::interleaveComma(m->dims, os);
    }
    os << ")  // " << m->numNodes() << " nodes, " << m->numRanks()
       << " ranks\n";
    os << "  ranks_per_node = " << m->ranksPerNode << "\n";
    if (m->kind == TopologyKind::Percs) {
      os << "  bandwidth.LL = ";
      printReal(os, m->llBandwidth);
      os << " B/s\n  bandwidth.LR = ";
      printReal(os, m->lrBandwidth);
      os << " B/s\n  bandwidth.D = ";
      printReal(os, m->dBandwidth);
      os << " B/s\n  latency.LL = ";
      printReal(os, m->llLatency);
      os << " s\n  latency.LR = ";
      printReal(os, m->lrLatency);
      os << " s\n  latency.D = ";
      printReal(os, m->dLatency);
      os << " s\n";
    } else {
      os << "  bandwidth = ";
      printReal(os, m->bandwidth);
      os << " B/s\n  latency = ";
      printReal(os, m->latency);
      os << " s\n";
    }
    os << "  injection = ";
    if (m->injectionBandwidth > 0) {
      printReal(os, m->injectionBandwidth);
      os << " B/s\n";
    } else {
      os << "unlimited\n";
    }
    os << "  routing = " << stringifyRoutingKind(m->routing);
    if (m->routing == RoutingKind::DimensionOrder) {
      os << '(';
      llvm::interleaveComma(m->dimOrder, os);
      os << ')';
    }
    os << "\n  setup_cost = ";
    printReal(os, m->cost.setupCost);
    os << " s\n  packet_length = " << m->cost.packetLength
       << " B\n  copy_rate.contiguous = ";
    printReal(os, m->cost.copyRateContiguous);
    os << " B/s\n  copy_rate.strided = ";
    printReal(os, m->cost.copyRateStrided);
    os << " B/s\n}\n";
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
    os << stringifyOpKind(op->kind) << ' ' << op->name << " on "
       << groupName(op->group) << " {\n";
    if (op->aggregate != Aggregate::None)
      os << "  aggregate = " << stringifyAggregate(op->aggregate) << "\n";
    if (op->root >= 0)
      os << "  root = " << op->root << "\n";
    if (op->blockBytes)
      os << "  block = " << op->blockBytes << " B\n";
    switch (op->kind) {
    case OpKind::Reduce:
    case OpKind::Allreduce:
    case OpKind::Scan:
      os << "  op = " << stringifyReduceOp(op->reduceOp) << "\n";
      [[fallthrough]];
    default:
      if (op->count)
        os << "  type = " << stringifyElementType(op->elementType)
           << "\n  count = " << op->count << "\n";
      break;
    }
    if (op->from)
      os << "  from = " << op->from->name << "\n";
    if (op->to)
      os << "  to = " << op->to->name << "\n";
    if (op->kind == OpKind::Permute) {
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
        break;
      }
      os << (op->elementLevel ? "  // element level" : "  // rank level")
         << "\n  permutation = ";
      printList(os, op->permutation, maxItems);
      os << "\n";
    }
    if (!op->sizes.empty()) {
      int64_t total = 0;
      for (int64_t s : op->sizes)
        total += s;
      os << "  sizes = ";
      printList(os, op->sizes, maxItems);
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
      os << ')';
    }
    os << "\n  sync = " << stringifySyncKind(d.sync)
       << "\n  style = " << stringifyTransferStyle(d.style)
       << "\n  rlimit = " << d.rlimit << "\n";
    if (op->hasSchedule) {
      os << "  schedule  // " << op->phases.size() << " phases, "
         << op->numScheduledTransfers() << " transfers\n";
      size_t shownPhases = maxItems
                               ? std::min<size_t>(op->phases.size(), maxItems)
                               : op->phases.size();
      for (size_t p = 0; p < shownPhases; ++p) {
        const Phase &ph = op->phases[p];
        os << "    phase " << p << " (" << ph.transfers.size()
           << " transfers):";
        size_t n = ph.transfers.size();
        size_t shown = maxItems ? std::min<size_t>(n, maxItems) : n;
        for (size_t i = 0; i < shown; ++i)
          os << ' ' << ph.transfers[i].src << "->" << ph.transfers[i].dst << ':'
             << ph.transfers[i].bytes;
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
