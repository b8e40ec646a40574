//===- phasec-translate.cpp - mlir-translate for phasec -------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// mlirTranslateMain with phasec's translations, so that lit can reach each
/// stage of the pipeline on its own:
///
///   phasec-translate --import-sched FILE.sched           .sched -> comm
///   phasec-opt --comm-schedule-pipeline                  schedule, verify
///   phasec-translate --export-schedule-json | --export-schedule-stats
///                    --export-cost | --export-cost-json
///                    --export-mpi | --export-shmem [--emit-main]
///                    --export-simgrid [--simgrid-dir DIR]
///
/// `--import-sched -verify-diagnostics` checks the front end's errors
/// against `expected-error` comments in the .sched file, like a pass's.
///
//===----------------------------------------------------------------------===//

#include "phasec/Lang/ImportSched.h"
#include "phasec/Target/Export.h"
#include "phasec/Transforms/Pipeline.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  phasec::lang::registerImportSchedTranslation();
  phasec::registerScheduleTranslations();
  phasec::target::registerExportTranslations();
  return mlir::failed(
             mlir::mlirTranslateMain(argc, argv, "phasec translation driver\n"))
             ? 1
             : 0;
}
