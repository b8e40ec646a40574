//===- phasec-opt.cpp - mlir-opt for the comm dialect ---------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// MlirOptMain with the comm dialect (plus func and builtin for test inputs)
/// and every comm pass registered, plus comm-schedule-pipeline (what phasec
/// runs): round-trips, verifier tests and pass pipelines on .mlir files.
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
  registry.insert<phasec::comm::CommDialect>();
  phasec::comm::registerCommPasses();
  phasec::registerSchedulingPipeline();
  // Generic cleanups that help when writing pipelines by hand.
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "phasec optimizer driver (comm dialect)\n", registry));
}
