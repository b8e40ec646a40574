//===- phasec-opt.cpp - mlir-opt for the comm dialect ---------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// MlirOptMain with the comm dialect and the upstream dialects phasec's IR
/// meets (func for test inputs; mesh, what sharding compilers emit; emitc
/// and mpi, the upstream targets), every comm pass, and
/// comm-schedule-pipeline (what phasec runs): round-trips, verifier tests
/// and pass pipelines on .mlir files.
///
//===----------------------------------------------------------------------===//

#include "phasec/Dialect/Comm/CommOps.h"
#include "phasec/Transforms/Passes.h"
#include "phasec/Transforms/Pipeline.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  phasec::registerPhasecDialects(registry);
  phasec::comm::registerCommPasses();
  phasec::registerSchedulingPipeline();
  // Generic cleanups that help when writing pipelines by hand.
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "phasec optimizer driver (comm dialect)\n", registry));
}
