//===- BuildProblem.cpp - A problem from the command line ---------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/BuildProblem.h"

using namespace phasec;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<std::unique_ptr<Topology>>
phasec::createTopology(llvm::StringRef spec) {
  std::string error;
  llvm::FailureOr<TopologyDesc> desc = TopologyDesc::parse(spec, error);
  if (failed(desc))
    return makeError(error);
  llvm::FailureOr<Topology> topology = Topology::create(*desc, error);
  if (failed(topology))
    return makeError(error);
  return std::make_unique<Topology>(std::move(*topology));
}

llvm::Expected<std::unique_ptr<Problem>>
phasec::lowerCollective(const Topology &topology, const Collective &collective,
                        bool onePort) {
  std::string error;
  llvm::FailureOr<TransferSet> transfers = collective.lower(error);
  if (failed(transfers))
    return makeError(error);
  auto problem = std::make_unique<Problem>(
      topology, std::move(*transfers),
      onePort ? CostModel::onePort(topology) : CostModel(topology));
  if (failed(problem->check(error)))
    return makeError(error);
  return problem;
}
