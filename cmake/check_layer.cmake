# Run by the layering/* tests (see TunerLayer.cmake): compiles a one-line file per
# header against a layer's include view. Allowed headers must compile; each forbidden
# one must fail because the header is not found.
string(REPLACE "," ";" forbidden "${FORBIDDEN}")
string(REPLACE "," ";" allowed "${ALLOWED}")
file(MAKE_DIRECTORY ${WORK})
set(failures 0)
set(pkg_flags "")
execute_process(COMMAND pkg-config --cflags hwloc libmnl OUTPUT_VARIABLE pkg_flags
                OUTPUT_STRIP_TRAILING_WHITESPACE)
separate_arguments(pkg_flags UNIX_COMMAND "${pkg_flags}")

function(try_include header out_rc out_text)
  string(MAKE_C_IDENTIFIER ${header} id)
  set(file ${WORK}/${id}.cc)
  file(WRITE ${file} "#include \"${header}\"\n")
  execute_process(COMMAND ${CXX} -std=c++20 -E ${pkg_flags} -I${VIEW} ${file}
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  set(${out_rc} ${rc} PARENT_SCOPE)
  set(${out_text} "${err}" PARENT_SCOPE)
endfunction()

# The layer's own headers, all in one file: they must compile against its view.
set(own ${WORK}/own_headers.cc)
file(WRITE ${own} "")
foreach(h ${allowed})
  file(APPEND ${own} "#include \"${h}\"\n")
endforeach()
execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only ${pkg_flags} -I${VIEW} ${own}
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message("FAIL ${LAYER}: its own headers do not compile against its view:\n${err}")
  math(EXPR failures "${failures} + 1")
endif()
list(LENGTH forbidden n_forbidden)
foreach(h ${forbidden})
  try_include(${h} rc err)
  # GCC says "No such file or directory", clang "file not found".
  if(rc EQUAL 0 OR NOT err MATCHES "No such file or directory|file not found")
    message("FAIL ${LAYER}: may include ${h}, a layer it does not depend on")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()
list(LENGTH allowed n_allowed)
if(failures GREATER 0)
  message(FATAL_ERROR "${LAYER}: ${failures} layering violation(s)")
endif()
message("${LAYER}: ${n_allowed} own headers compile; ${n_forbidden} headers of other layers are out of reach")
