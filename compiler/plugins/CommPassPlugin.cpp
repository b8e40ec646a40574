//===- CommPassPlugin.cpp - The comm passes for mlir-opt ------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `mlir-opt-19 --load-pass-plugin=libPhasecCommPassPlugin.so` registers
/// every comm pass (comm-lower-collectives, comm-schedule-phases,
/// comm-verify-schedule, ...) and the comm-schedule-pipeline that phasec
/// runs, for use in `--pass-pipeline=...`. The passes need the comm dialect
/// to parse their input: load libPhasecCommDialectPlugin.so with
/// --load-dialect-plugin as well (this library links against it, so the
/// dialect exists once in the process).
///
//===----------------------------------------------------------------------===//

#include "phasec/Transforms/Passes.h"
#include "phasec/Transforms/Pipeline.h"

#include "mlir/Tools/Plugins/PassPlugin.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "PhasecCommPasses", PHASEC_VERSION_STRING,
          []() {
            phasec::comm::registerCommPasses();
            phasec::registerSchedulingPipeline();
          }};
}
