# -*- Python -*-
"""lit configuration for the phasec test suite.

Test directories mirror the source tree: Lang/ (front end), Dialect/Comm/
(the comm dialect), Scheduling/ (the phase scheduler and verifier),
Target/ (golden generated code), Integration/ (real MPI, OpenSHMEM and
SimGrid runs, gated by REQUIRES: mpi|shmem|simgrid).
"""
import os
import lit.formats
from lit.llvm import llvm_config  # noqa: F401  (sets up the usual helpers)

config.name = "phasec"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".sched", ".mlir", ".test", ".json"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Unit"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.phasec_obj_root, "test")

for feature in config.available_features_from_cmake:
    if feature:
        config.available_features.add(feature)

llvm_config.with_system_environment(["HOME", "TMPDIR", "PATH", "LD_LIBRARY_PATH",
                                     "PKG_CONFIG_PATH", "SHMEM_SYMMETRIC_HEAP_SIZE"])
llvm_config.with_environment("PATH", config.phasec_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# Generated programs find the runtime through the build tree's pkg-config file.
llvm_config.with_environment("PKG_CONFIG_PATH",
                             os.path.join(config.phasec_obj_root, "lib", "pkgconfig"),
                             append_path=True)

examples = os.path.join(config.phasec_src_root, "examples")
config.substitutions.append(("%examples", examples))
config.substitutions.append(("%shared", os.path.join(config.phasec_src_root, "..", "shared")))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%phasec_src", config.phasec_src_root))
# Open MPI as root on a 2-core machine.
config.substitutions.append(("%mpirun", config.mpirun + " --allow-run-as-root --oversubscribe"))
# Open MPI 4.1.4's OpenSHMEM segfaults at exit unless the rdma osc is off.
config.substitutions.append(("%oshrun", config.oshrun + " --allow-run-as-root --oversubscribe --mca osc ^rdma"))

tool_dirs = [config.phasec_tools_dir, config.llvm_tools_dir]
tools = ["phasec", "phasec-opt", "FileCheck", "not", "count"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
