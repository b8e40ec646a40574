#===- PhasecInstall.cmake - cmake --install and find_package(Phasec) ----===//
#
# One export set, PhasecTargets, for every library and tool, installed as
#
#   bin/      phasec phasec-opt phasec-translate phasec-sim
#   lib/      the static libraries, libPhasecCAPI.so and libPhasecMLIRCAPI.so
#             (phasec's and MLIR's C APIs), the
#             mlir-opt plugins, libphasec-runtime.a, libphasec-pmpi.so
#   include/  phasec/... (the public headers and their TableGen .inc files)
#   lib/cmake/Phasec/      PhasecConfig.cmake: find_package(Phasec CONFIG)
#   lib/pkgconfig/         phasec-runtime.pc
#
# and relocatable: every path in the package is relative to its own place,
# so `cmake --install build --prefix DIR` works for any DIR. Consumers link
# Phasec::Compiler (the whole compiler: front end, scheduling, targets,
# driver) or single libraries (Phasec::Scheduling, Phasec::CommDialect, ...),
# and Phasec::Runtime for generated code; docs/embedding.md shows both.
#
#===----------------------------------------------------------------------===//
include(CMakePackageConfigHelpers)

set(PHASEC_INSTALL_CMAKEDIR lib/cmake/Phasec)
set(PHASEC_INSTALL_INCLUDEDIR include)
set(PHASEC_INSTALL_BINDIR bin)
set(PHASEC_INSTALL_LIBDIR lib)

# Phasec::Compiler: everything a program that embeds phasec needs. The
# driver library depends on every other compiler library; MLIR's and LLVM's
# include directories are added by PhasecConfig.cmake (MLIR's package does
# not attach them to its targets).
add_library(PhasecCompiler INTERFACE)
target_link_libraries(PhasecCompiler INTERFACE PhasecDriver)

set(PHASEC_EXPORTED_LIBRARIES
  PhasecCore
  PhasecTopology
  PhasecSolver
  PhasecScheduling
  PhasecSchedulingAlgorithms
  PhasecCommDialect
  PhasecTransforms
  PhasecLang
  PhasecLangImport
  PhasecTargetCommon
  PhasecTargetMPI
  PhasecTargetSHMEM
  PhasecTargetSimGrid
  PhasecTargetNs3
  PhasecTargetExport
  PhasecDriver
  PhasecCompiler
  PhasecCAPI
  PhasecMLIRCAPI
  )
# Phasec::Core, Phasec::Scheduling, ... rather than Phasec::PhasecCore.
foreach(lib ${PHASEC_EXPORTED_LIBRARIES})
  string(REGEX REPLACE "^Phasec" "" exportName ${lib})
  set_target_properties(${lib} PROPERTIES EXPORT_NAME ${exportName})
endforeach()
set_target_properties(phasec-runtime PROPERTIES EXPORT_NAME Runtime)
set_target_properties(phasec-pmpi PROPERTIES EXPORT_NAME PMPI)

set(PHASEC_EXPORTED_TOOLS phasec phasec-opt phasec-translate phasec-sim
    phasec-ns3)
# The installed tools find libMLIR.so and libLLVM.so where they were linked
# from (Debian's /usr/lib/llvm-19/lib is not on the loader's path).
set_target_properties(${PHASEC_EXPORTED_TOOLS} PROPERTIES
  INSTALL_RPATH_USE_LINK_PATH TRUE)

install(TARGETS ${PHASEC_EXPORTED_LIBRARIES} phasec-runtime phasec-pmpi
                ${PHASEC_EXPORTED_TOOLS}
  EXPORT PhasecTargets
  ARCHIVE DESTINATION lib
  LIBRARY DESTINATION lib
  RUNTIME DESTINATION bin
  INCLUDES DESTINATION include)

# Public headers: every header under an include/phasec of the four layers,
# and the TableGen output beside them (Vocabulary.h.inc, CommOps.h.inc, ...).
# Private headers live inside lib/ directories and are not installed.
foreach(dir compiler/include/phasec lang/include/phasec
            targets/include/phasec tools/include/phasec)
  install(DIRECTORY ${PHASEC_SOURCE_DIR}/${dir}/ DESTINATION include/phasec
    FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
endforeach()
# The C API (Phasec::CAPI).
install(DIRECTORY ${PHASEC_SOURCE_DIR}/tools/include/phasec-c
  DESTINATION include FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${PHASEC_BINARY_DIR}/compiler/include/phasec/
  DESTINATION include/phasec
  FILES_MATCHING PATTERN "*.inc")

install(EXPORT PhasecTargets
  NAMESPACE Phasec::
  DESTINATION ${PHASEC_INSTALL_CMAKEDIR})

configure_package_config_file(
  ${PHASEC_SOURCE_DIR}/cmake/PhasecConfig.cmake.in
  ${PHASEC_BINARY_DIR}/cmake/PhasecConfig.cmake
  INSTALL_DESTINATION ${PHASEC_INSTALL_CMAKEDIR}
  PATH_VARS PHASEC_INSTALL_INCLUDEDIR PHASEC_INSTALL_BINDIR
            PHASEC_INSTALL_LIBDIR)
write_basic_package_version_file(
  ${PHASEC_BINARY_DIR}/cmake/PhasecConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES ${PHASEC_BINARY_DIR}/cmake/PhasecConfig.cmake
              ${PHASEC_BINARY_DIR}/cmake/PhasecConfigVersion.cmake
  DESTINATION ${PHASEC_INSTALL_CMAKEDIR})
