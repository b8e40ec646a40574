# Writes OUT: each FILE of PAIRS ("VAR=FILE;VAR=FILE...") as a C++ raw
# string literal `static const char VAR[]`, so that a generator can copy
# support files into the directories it writes (the SimGrid and ns-3 back
# ends). Run as: cmake -DOUT=<file> -DFROM=<what, for the comment>
# "-DPAIRS=<pairs>" -P EmbedSources.cmake
set(content "// Generated from ${FROM} by cmake/EmbedSources.cmake.\n")
foreach(pair ${PAIRS})
  string(REPLACE "=" ";" parts "${pair}")
  list(GET parts 0 var)
  list(GET parts 1 file)
  file(READ "${file}" text)
  string(APPEND content "static const char ${var}[] = R\"PHASEC_EMBED(${text})PHASEC_EMBED\";\n")
endforeach()
file(WRITE "${OUT}.tmp" "${content}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
