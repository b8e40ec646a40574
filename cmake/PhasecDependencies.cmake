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

# GoogleTest for the unit tests.
find_package(GTest)

# Optional execution back ends, detected so that lit can gate the integration
# tests with REQUIRES: mpi / shmem / simgrid.
find_program(PHASEC_MPICC mpicc)
find_program(PHASEC_MPIRUN mpirun)
find_program(PHASEC_OSHCC oshcc)
find_program(PHASEC_OSHRUN oshrun)
find_program(PHASEC_SMPICC smpicc)
find_program(PHASEC_SMPIRUN smpirun)
pkg_check_modules(SIMGRID IMPORTED_TARGET simgrid)
