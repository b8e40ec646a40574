//===- CostModel.cpp - The one definition of schedule time ----------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/CostModel.h"
#include "phasec/Scheduling/Problem.h"

#include <algorithm>
#include <cmath>

using namespace phasec;

CostModel::CostModel(const Topology &topo)
    : CostModel(topo, topo.desc().injectionBandwidth) {}

CostModel CostModel::onePort(const Topology &topo) {
  double injection = topo.desc().injectionBandwidth;
  if (injection <= 0 && topo.isGrid())
    injection = topo.desc().linkBandwidth;
  return CostModel(topo, injection);
}

CostModel::PhaseCost::PhaseCost(const CostModel &model)
    : model_(model), linkBytes_(model.topology().numLinks(), 0.0) {
  // Without an injection limit only the links count: no node arrays.
  if (model.injectionBandwidth() > 0) {
    sent_.assign(model.topology().numNodes(), 0.0);
    received_.assign(model.topology().numNodes(), 0.0);
  }
}

void CostModel::PhaseCost::add(NodeId src, NodeId dst,
                               llvm::ArrayRef<LinkId> route, int64_t bytes) {
  double b = static_cast<double>(bytes);
  for (LinkId l : route) {
    if (linkBytes_[l] == 0.0)
      touchedLinks_.push_back(l);
    linkBytes_[l] += b;
  }
  if (sent_.empty() || src == dst)
    return;
  for (NodeId n : {src, dst})
    if (sent_[n] == 0.0 && received_[n] == 0.0)
      touchedNodes_.push_back(n);
  sent_[src] += b;
  received_[dst] += b;
}

double CostModel::PhaseCost::finish() {
  const Topology &topo = model_.topology();
  double linkTime = 0;
  for (LinkId l : touchedLinks_) {
    linkTime = std::max(linkTime, linkBytes_[l] / topo.link(l).bandwidth);
    linkBytes_[l] = 0.0;
  }
  touchedLinks_.clear();
  double portBytes = 0;
  for (NodeId n : touchedNodes_) {
    portBytes = std::max({portBytes, sent_[n], received_[n]});
    sent_[n] = received_[n] = 0.0;
  }
  touchedNodes_.clear();
  if (sent_.empty())
    return linkTime;
  return std::max(linkTime, portBytes / model_.injectionBandwidth());
}

namespace {
/// Adds the well-formed transfers of `phase` to `cost`.
void addPhase(const Topology &topo, const Phase &phase,
              CostModel::PhaseCost &cost,
              llvm::SmallVectorImpl<LinkId> &route) {
  int64_t numRanks = topo.numRanks();
  for (const Transfer &t : phase.transfers) {
    if (t.src < 0 || t.dst < 0 || t.src >= numRanks || t.dst >= numRanks ||
        t.bytes <= 0)
      continue;
    NodeId s = topo.nodeOfRank(t.src), d = topo.nodeOfRank(t.dst);
    if (s == d)
      continue;
    topo.route(s, d, t.ties & topo.tieMask(s, d), route);
    cost.add(s, d, route, t.bytes);
  }
}
} // namespace

double CostModel::phaseTime(const Phase &phase) const {
  PhaseCost cost(*this);
  llvm::SmallVector<LinkId, 64> route;
  addPhase(*topo_, phase, cost, route);
  return cost.finish();
}

double CostModel::time(const Schedule &schedule) const {
  PhaseCost cost(*this);
  llvm::SmallVector<LinkId, 64> route;
  double total = 0;
  for (const Phase &phase : schedule.phases) {
    addPhase(*topo_, phase, cost, route);
    total += cost.finish();
  }
  return total;
}

double CostModel::gap(double time, double bound) {
  return bound > 0 ? time / bound : 1.0;
}

bool CostModel::meetsBound(double time, double bound) {
  return time <= bound * (1 + 1e-9);
}
