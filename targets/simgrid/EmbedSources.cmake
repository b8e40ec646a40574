# Writes EmbeddedSources.inc: the generic files of support/ as C++ raw string
# literals, so that the generator can copy them into every output directory.
# Run as: cmake -DOUT=<file> -DSRC=<support dir> -P EmbedSources.cmake
set(content "// Generated from targets/simgrid/support by EmbedSources.cmake.\n")
foreach(pair "kPlatformSource=phasec_sim_platform.cpp"
             "kProgramSource=phasec_sim_program.c"
             "kReportScript=phasec_sim_report.py")
  string(REPLACE "=" ";" parts "${pair}")
  list(GET parts 0 var)
  list(GET parts 1 file)
  file(READ "${SRC}/${file}" text)
  string(APPEND content "static const char ${var}[] = R\"PHASEC_EMBED(${text})PHASEC_EMBED\";\n")
endforeach()
file(WRITE "${OUT}.tmp" "${content}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
