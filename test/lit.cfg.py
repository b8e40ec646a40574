# -*- Python -*-
"""lit configuration for the phasec test suite.

Test directories mirror the source tree: Lang/ (front end), Dialect/Comm/
(the comm dialect), Scheduling/ (the phase scheduler and verifier),
Target/ (golden generated code), Integration/ (real MPI, OpenSHMEM and
SimGrid runs, ns-3 runs; their REQUIRES: mpi|shmem|simgrid|ns3 say which back end a test
runs, and always hold: configure fails without one).
"""
import atexit
import os
import shutil
import tempfile

import lit.formats
from lit.llvm import llvm_config  # noqa: F401  (sets up the usual helpers)
from lit.llvm.subst import ToolSubst

config.name = "phasec"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".sched", ".mlir", ".test", ".json"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Unit"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.phasec_obj_root, "test")

# cmake/PhasecDependencies.cmake requires every back end, so a test that
# names one in REQUIRES runs; it never turns UNSUPPORTED for want of a tool.
config.available_features.update(["mpi", "shmem", "simgrid", "ns3"])

llvm_config.with_system_environment(["HOME", "TMPDIR", "PATH", "LD_LIBRARY_PATH",
                                     "PKG_CONFIG_PATH", "SHMEM_SYMMETRIC_HEAP_SIZE"])
llvm_config.with_environment("PATH", config.phasec_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# Generated programs find the runtime through the build tree's pkg-config file.
llvm_config.with_environment("PKG_CONFIG_PATH",
                             os.path.join(config.phasec_obj_root, "lib", "pkgconfig"),
                             append_path=True)

# Integration/Inputs' runners import a shared module from there: no
# __pycache__ in the source tree.
config.environment["PYTHONDONTWRITEBYTECODE"] = "1"

examples = os.path.join(config.phasec_src_root, "examples")
config.substitutions.append(("%examples", examples))
config.substitutions.append(("%shared", config.phasec_shared_dir))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%cmake", config.cmake))
# Upstream mlir-opt and phasec's plugins for it (compiler/plugins).
config.substitutions.append(("%mlir_opt", os.path.join(config.llvm_tools_dir, "mlir-opt")))
config.substitutions.append(("%comm_dialect_plugin", os.path.join(config.phasec_obj_root, "lib", "libPhasecCommDialectPlugin.so")))
config.substitutions.append(("%comm_pass_plugin", os.path.join(config.phasec_obj_root, "lib", "libPhasecCommPassPlugin.so")))
config.substitutions.append(("%phasec_src", config.phasec_src_root))
# The build tree, for bench/ scripts that take --build (bench/calibrate).
config.substitutions.append(("%phasec_obj", config.phasec_obj_root))
# Open MPI as root on a 2-core machine, each launch with a session
# directory of its own (own_session_dir.sh: concurrent launches race on the
# shared one).
sessions = tempfile.mkdtemp(prefix="phasec-ompi-")
atexit.register(shutil.rmtree, sessions, True)
config.environment["PHASEC_OMPI_SESSIONS"] = sessions
own_session = os.path.join(config.phasec_src_root, "test", "Integration",
                           "Inputs", "own_session_dir.sh") + " "
config.substitutions.append(("%mpirun", own_session + config.mpirun + " --allow-run-as-root --oversubscribe"))
# Open MPI 4.1.4's OpenSHMEM segfaults at exit unless the rdma osc is off.
config.substitutions.append(("%oshrun", own_session + config.oshrun + " --allow-run-as-root --oversubscribe --mca osc ^rdma"))

tool_dirs = [config.phasec_tools_dir, config.llvm_tools_dir]
# A tool that is not there stops the whole run (a fatal configuration
# error) instead of failing or skipping tests one by one.
tools = [ToolSubst(name, unresolved="fatal")
         for name in ["phasec", "phasec-opt", "phasec-translate",
                      "phasec-emit-test", "phasec-sim", "phasec-capi-test",
                      "FileCheck", "not", "count"]]
llvm_config.add_tool_substitutions(tools, tool_dirs)
