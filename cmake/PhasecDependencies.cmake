#===- PhasecDependencies.cmake - third-party packages --------------------===//
#
# Everything here comes from Debian bookworm packages that
# .ci/install-deps.sh installs.
#
#===----------------------------------------------------------------------===//
find_package(PkgConfig REQUIRED)

# ANTLR4: the 4.7.2 tool (a Java program) and the 4.9 C++ runtime. Debian's
# antlr4_generate() helper is broken, so lang/ calls the tool directly.
find_program(ANTLR4_TOOL antlr4 PATHS /usr/bin REQUIRED)
find_path(ANTLR4_INCLUDE_DIR antlr4-runtime.h
          PATHS /usr/include/antlr4-runtime REQUIRED)
find_library(ANTLR4_RUNTIME_LIBRARY NAMES antlr4-runtime REQUIRED)

# Z3 4.8.12, only ever used behind compiler/lib/Solver.
pkg_check_modules(Z3 REQUIRED IMPORTED_TARGET z3)

# GoogleTest for the unit tests; test/CMakeLists.txt requires it.
find_package(GTest)

# The execution back ends. phasec-runtime builds its MPI and OpenSHMEM parts
# with them, `phasec --target=sim` builds and runs with smpicc / smpirun and
# SimGrid's pkg-config file, and the integration tests run all three: a
# missing one is a configure error, never a quietly smaller runtime or
# integration tests that turn UNSUPPORTED.
function(phasec_require_program var name package)
  find_program(${var} ${name})
  if(NOT ${var})
    message(FATAL_ERROR "phasec needs '${name}' on PATH (Debian package "
                        "${package}; .ci/install-deps.sh installs it)")
  endif()
endfunction()
phasec_require_program(PHASEC_MPICC mpicc "openmpi-bin libopenmpi-dev")
# MPI's C headers and library, for phasec-runtime and libphasec-pmpi.
find_package(MPI COMPONENTS C)
if(NOT MPI_C_FOUND)
  message(FATAL_ERROR "phasec needs MPI's C headers and library (Debian "
                      "package libopenmpi-dev; .ci/install-deps.sh installs "
                      "it)")
endif()
phasec_require_program(PHASEC_MPIRUN mpirun openmpi-bin)
phasec_require_program(PHASEC_OSHCC oshcc "openmpi-bin libopenmpi-dev")
phasec_require_program(PHASEC_OSHRUN oshrun openmpi-bin)
phasec_require_program(PHASEC_SMPICC smpicc libsimgrid-dev)
phasec_require_program(PHASEC_SMPIRUN smpirun libsimgrid-dev)
pkg_check_modules(SIMGRID IMPORTED_TARGET simgrid)
if(NOT SIMGRID_FOUND)
  message(FATAL_ERROR "phasec needs SimGrid's pkg-config file simgrid.pc "
                      "(Debian package libsimgrid-dev; .ci/install-deps.sh "
                      "installs it)")
endif()

# ns-3 3.37 for the packet-level back end (targets/ns3): the event kernel,
# nodes and point-to-point devices under phasec's lossless credit-flow
# routers. Debian's CMake package file names programs the package does not
# ship (configure fails on it) and its pkg-config files emit a broken -I
# and name libgsl.so, so the headers and the three libraries are found
# directly. --no-as-needed: ns-3 registers its TypeIds in static
# constructors, and a library whose symbols a program does not name would
# otherwise be dropped with them.
find_path(PHASEC_NS3_INCLUDE_DIR ns3/core-module.h)
set(PHASEC_NS3_LIBRARIES)
foreach(module core network point-to-point)
  find_library(PHASEC_NS3_${module}_LIBRARY NAMES ns3-${module})
  if(NOT PHASEC_NS3_INCLUDE_DIR OR NOT PHASEC_NS3_${module}_LIBRARY)
    message(FATAL_ERROR "phasec needs ns-3's headers and libns3-${module} "
                        "(Debian package libns3-dev; .ci/install-deps.sh "
                        "installs it)")
  endif()
  list(APPEND PHASEC_NS3_LIBRARIES ${PHASEC_NS3_${module}_LIBRARY})
endforeach()
add_library(PhasecNs3 INTERFACE)
target_include_directories(PhasecNs3 SYSTEM INTERFACE ${PHASEC_NS3_INCLUDE_DIR})
target_link_libraries(PhasecNs3 INTERFACE -Wl,--no-as-needed
                      ${PHASEC_NS3_LIBRARIES} -Wl,--as-needed)
