//===- CostModel.h - The one definition of schedule time --------*- C++ -*-===//
//
// Part of phasec. MLIR-free: only LLVM ADT/Support.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// How long a schedule takes, and how that compares with what any schedule
/// must take. Every pass, report, IR attribute, JSON writer and simulator
/// comparison asks a `CostModel` (through the `Problem` that owns it), so a
/// schedule has one time wherever it is printed.
///
/// The model is the spec's (`shared/spec/schedule-json.md`): phases run one
/// after another; a phase takes the largest, over the directed links, of the
/// bytes it sends over the link divided by the link's bandwidth and, where an
/// injection bandwidth applies, the largest, over the nodes, of the bytes the
/// node sends or receives off-node divided by that bandwidth. Transfers
/// inside a node cost nothing. Terms the spec leaves out (latency per
/// message, synchronisation per phase, set-up, copy rates) belong in
/// `PhaseCost::finish` and `time`, next to the two above, so that the bound
/// and every report see them at once.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_SCHEDULING_COSTMODEL_H
#define PHASEC_SCHEDULING_COSTMODEL_H

#include "phasec/Topology/Topology.h"

#include <vector>

namespace phasec {

struct Phase;
struct Schedule;

class CostModel {
public:
  /// The machine as described: every link at its bandwidth, every node's
  /// port at the topology's injection bandwidth (0: unlimited).
  explicit CostModel(const Topology &topo);
  /// A one-port machine: where the topology gives no injection bandwidth,
  /// a node injects (and receives) at one link's bandwidth. Grids only: PERCS
  /// links differ, so it is the machine as described there.
  static CostModel onePort(const Topology &topo);

  const Topology &topology() const { return *topo_; }
  /// Bytes per second a node sends, and receives, at once; 0 = unlimited.
  double injectionBandwidth() const { return injection_; }

  /// Accumulates the transfers of one phase; `finish` returns the phase's
  /// time and resets, so one object serves every phase of a schedule. Costs
  /// what the phase touches, not the size of the machine.
  class PhaseCost {
  public:
    explicit PhaseCost(const CostModel &model);
    /// A transfer of `bytes` from node `src` to node `dst` over `route`.
    void add(NodeId src, NodeId dst, llvm::ArrayRef<LinkId> route,
             int64_t bytes);
    double finish();

  private:
    const CostModel &model_;
    std::vector<double> linkBytes_, sent_, received_;
    std::vector<LinkId> touchedLinks_;
    std::vector<NodeId> touchedNodes_;
  };

  double phaseTime(const Phase &phase) const;
  /// The schedule time: the sum of the phase times. Transfers that name a
  /// rank outside the machine or carry no bytes are skipped (the verifier
  /// reports them).
  double time(const Schedule &schedule) const;

  /// time / bound; 1 where the bound is 0 (nothing to move).
  static double gap(double time, double bound);
  /// True if `time` equals `bound` up to rounding (1e-9 relative).
  static bool meetsBound(double time, double bound);

private:
  CostModel(const Topology &topo, double injection)
      : topo_(&topo), injection_(injection) {}
  const Topology *topo_;
  double injection_;
};

} // namespace phasec

#endif // PHASEC_SCHEDULING_COSTMODEL_H
