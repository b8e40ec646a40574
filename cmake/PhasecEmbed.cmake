#===- cmake/PhasecEmbed.cmake - support files as C++ strings -------------===//
#
# phasec_embed_sources(OUT FROM COMMENT VAR=FILE...): a custom command that
# writes OUT, each FILE as `static const char VAR[]` (EmbedSources.cmake),
# again whenever one of the files changes. The SimGrid and ns-3 back ends
# copy their support programs into the directories they write this way.
#
#===----------------------------------------------------------------------===//
function(phasec_embed_sources out from comment)
  set(pairs ${ARGN})
  set(files)
  foreach(pair ${pairs})
    string(REGEX REPLACE "^[^=]*=" "" file "${pair}")
    list(APPEND files "${file}")
  endforeach()
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DFROM=${from}
            "-DPAIRS=${pairs}"
            -P ${PHASEC_SOURCE_DIR}/cmake/EmbedSources.cmake
    DEPENDS ${files} ${PHASEC_SOURCE_DIR}/cmake/EmbedSources.cmake
    COMMENT "${comment}"
    VERBATIM)
endfunction()
