# Writes EmbeddedSources.inc: the generic files of support/ as C++ raw string
# literals, so that the generator can copy them into every output directory.
set(content "// Generated from targets/simgrid/support by EmbedSources.cmake.\n")
# Also phasec's runtime (RUNTIME = runtime/), which relaying programs build
# with smpicc. Run as: cmake -DOUT=<file> -DSRC=<support dir>
# -DRUNTIME=<runtime dir> -P EmbedSources.cmake
foreach(pair "kPlatformSource=${SRC}/phasec_sim_platform.cpp"
             "kProgramSource=${SRC}/phasec_sim_program.c"
             "kReportScript=${SRC}/phasec_sim_report.py"
             "kCollSource=${SRC}/phasec_sim_coll.c"
             "kRuntimeHeader=${RUNTIME}/include/phasec_runtime.h"
             "kRuntimeMPIHeader=${RUNTIME}/include/phasec_runtime_mpi.h"
             "kRuntimeCoreSource=${RUNTIME}/lib/core.c"
             "kRuntimeMPISource=${RUNTIME}/lib/mpi.c")
  string(REPLACE "=" ";" parts "${pair}")
  list(GET parts 0 var)
  list(GET parts 1 file)
  file(READ "${file}" text)
  string(APPEND content "static const char ${var}[] = R\"PHASEC_EMBED(${text})PHASEC_EMBED\";\n")
endforeach()
file(WRITE "${OUT}.tmp" "${content}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
