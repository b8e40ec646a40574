//===- C3Units.h - Seed 003's C^3 computation and communication units -----===//
//
// Part of phasec. MLIR-free: only LLVM ADT/Support and the topology.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Charges an algorithm in the units of the C^3 model (seed 003, Hambrusch
/// and Khokhar): an algorithm is a sequence of supersteps; a superstep is
/// charged
///
///   max_i (S_i + R_i) + C_l + C_p          communication units,
///   max_i ceil(t_i / l)                    computation units,
///
/// with S_i and R_i the total send and receive times of processor i
/// (Figure 1 of the seed: store-and-forward or wormhole routing, blocking
/// or nonblocking sends, nonblocking receives), C_l = L_a ceil(cong / b) the
/// link congestion and C_p = L_a ceil(cong / p) h the processor congestion
/// (L_a the average packets per message, cong the communicating pairs).
/// p, b (bisection width) and h (average distance) are those of the
/// submachine a group of messages runs on: independent submachines are
/// charged with their own parameters, and a superstep costs what its most
/// expensive submachine costs.
///
/// Every charge comes in two forms:
/// - `Linear`, the seed's form: set-ups x s + coefficient x L (+ a constant
///   of additive h terms that the seed drops), L the actual message size in
///   bytes. It applies the seed's simplifications: packets are L / l
///   (no ceilings), "p for p - 1" (a processor that sends, or receives, two
///   messages or more in a superstep is charged one message more, its own
///   part: the seed writes p set-ups for a source that sends to the p - 1
///   others), and a maximum over processors or submachines is taken term by
///   term (an upper bound; the exact maximum where one processor is the
///   largest in every term, as in every one-to-all and all-to-all here).
/// - `...At(L)`, the exact charge at one message size: ceilings, actual
///   message counts, the additive h terms, the maximum itself.
///
/// Units: one communication unit is the time one packet of l bytes takes
/// over one link; computation units count l-byte blocks accessed. The
/// caller converts the set-up cost to units (Params::setup).
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_SCHEDULING_C3UNITS_H
#define PHASEC_SCHEDULING_C3UNITS_H

#include "phasec/Topology/Topology.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>
#include <string>
#include <vector>

namespace phasec::c3 {

/// setups x s + perL x L + constant (units; L in bytes).
struct Linear {
  double setups = 0, perL = 0, constant = 0;

  double at(double s, double L) const {
    return setups * s + perL * L + constant;
  }
  Linear &operator+=(const Linear &o) {
    setups += o.setups;
    perL += o.perL;
    constant += o.constant;
    return *this;
  }
  /// The term-by-term maximum.
  static Linear envelope(const Linear &a, const Linear &b);
};

/// The machine in C^3 terms.
struct Params {
  /// l, bytes.
  int64_t packetLength = 0;
  /// s, in communication units.
  double setup = 0;
  /// The routing schema and the send primitive: the machine's `switching`
  /// and `sends` (the vocabulary's enums, as the machine spells them).
  Switching routing = Switching::Wormhole;
  SendProtocol sends = SendProtocol::Nonblocking;
};

/// A sub-grid of a mesh, torus or hypercube as C^3 sees it.
struct Submachine {
  /// Extent per dimension, and whether the dimension closes into a ring.
  llvm::SmallVector<int64_t, 3> extents;
  llvm::SmallVector<bool, 3> wraps;
  int64_t processors = 1;
  /// b: links across the cheapest cut into halves.
  int64_t bisection = 1;
  /// h: the average distance (hops) between two distinct processors.
  double distance = 0;

  /// "mesh 16x16", "line 16", "torus 4x4", "ring 8", "1 processor".
  std::string describe() const;
};

/// The sub-grid of the given extents; dimensions of extent 1 may be kept.
Submachine makeSubmachine(llvm::ArrayRef<int64_t> extents,
                          llvm::ArrayRef<bool> wraps);

/// One message of a superstep between two processors (nodes), of
/// `sizeInL` x L bytes.
struct Message {
  NodeId src, dst;
  double sizeInL;
};

/// Messages that run on one submachine, independently of the others.
struct Group {
  Submachine machine;
  std::vector<Message> messages;
};

struct Superstep {
  std::vector<Group> groups;
};

/// Cuts every round of an algorithm (the messages it sends between two
/// synchronisations) into groups, the connected parts of its communication
/// graph, and gives each group its submachine:
/// - the sub-grid its processors fill, if they fill their bounding box (a
///   row, a column, a square of the mesh: its messages stay inside);
/// - else the bounding box of the group and of every processor its data
///   reaches in the rounds after it (for `gathers`, which run a tree
///   upward: every processor whose data reaches it in the rounds before
///   it). For seed 003's k-level trees that is the region the level
///   partitions: the whole machine for 3-lev-sq's first superstep, the half
///   a binomial heap's holder serves.
/// `topo` must be a mesh, torus or hypercube with one rank per node.
llvm::FailureOr<std::vector<Superstep>>
makeSupersteps(const Topology &topo,
               llvm::ArrayRef<std::vector<Message>> rounds, bool gathers,
               std::string &error);

/// A group's communication units, in the seed's form, with its parts.
struct GroupCharge {
  Linear sendReceive, linkCongestion, processorCongestion;
  Linear total() const {
    Linear t = sendReceive;
    t += linkCongestion;
    t += processorCongestion;
    return t;
  }
};
GroupCharge chargeGroup(const Group &group, const Params &params);
/// The superstep's communication units: the envelope over its groups.
Linear chargeSuperstep(const Superstep &step, const Params &params);
/// Computation units: t_i = the bytes processor i receives in the superstep
/// (it copies out, or splits for the next superstep, what it receives).
/// perL = max_i t_i / (L l); constant 1 (a superstep is charged at least
/// one unit).
Linear computeSuperstep(const Superstep &step, const Params &params);

/// The exact charges at message size L bytes.
double chargeGroupAt(const Group &group, const Params &params, double L);
double chargeSuperstepAt(const Superstep &step, const Params &params, double L);
double computeSuperstepAt(const Superstep &step, const Params &params,
                          double L);

/// The whole algorithm.
struct AlgorithmCharge {
  std::vector<Linear> communication, computation;
  Linear totalCommunication, totalComputation;
};
AlgorithmCharge chargeAlgorithm(llvm::ArrayRef<Superstep> steps,
                                const Params &params);
double chargeAlgorithmAt(llvm::ArrayRef<Superstep> steps, const Params &params,
                         double L);
double computeAlgorithmAt(llvm::ArrayRef<Superstep> steps, const Params &params,
                          double L);

} // namespace phasec::c3

#endif // PHASEC_SCHEDULING_C3UNITS_H
