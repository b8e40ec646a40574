//===- CommDialectPlugin.cpp - The comm dialect for mlir-opt --------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `mlir-opt-19 --load-dialect-plugin=libPhasecCommDialectPlugin.so` parses,
/// verifies and prints phasec's IR with upstream MLIR. The library holds the
/// comm dialect and the MLIR-free core it uses (vocabulary, topology), and
/// takes MLIR itself from the tool that loads it: linking a second copy of
/// MLIR would give the dialect TypeIDs and contexts the tool does not know.
/// libPhasecCommPassPlugin.so links against this library for the dialect.
///
//===----------------------------------------------------------------------===//

#include "phasec/Dialect/Comm/CommOps.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "PhasecComm", PHASEC_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            registry->insert<phasec::comm::CommDialect>();
          }};
}
