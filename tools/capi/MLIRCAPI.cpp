//===- MLIRCAPI.cpp - MLIR's C API as a shared library --------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// libPhasecMLIRCAPI.so is Debian's libMLIRCAPIIR.a, whole (see
// tools/CMakeLists.txt); CMake wants a source file for the library.
//
//===----------------------------------------------------------------------===//
