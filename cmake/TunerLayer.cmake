# Folders are layers, and the build enforces them (STYLE.md 12).
#
# tuner_layer(NAME DIR [DEPENDS layer...] [LIBS target...]) makes the static library
# NAME from DIR/*.cc (tests and main.cc excluded). It compiles against an include
# "view" of the source tree that holds only DIR's headers and those of the layers it
# depends on, transitively: a file that includes a header of a layer it did not
# declare fails to build with "No such file or directory". The views are symlinks
# under ${CMAKE_BINARY_DIR}/layers/NAME, one per header, so a folder's subfolders are
# layers of their own (probes/ cannot see probes/bench/).

set_property(GLOBAL PROPERTY TUNER_LAYERS "")

function(tuner_layer name dir)
  cmake_parse_arguments(PARSE_ARGV 2 L "" "" "DEPENDS;LIBS")
  set(src ${CMAKE_SOURCE_DIR}/${dir})

  # Transitive layer dependencies, then the folders the view exposes.
  set(all_deps "")
  foreach(dep ${L_DEPENDS})
    get_property(dep_deps GLOBAL PROPERTY TUNER_LAYER_DEPS_${dep})
    list(APPEND all_deps ${dep} ${dep_deps})
  endforeach()
  list(REMOVE_DUPLICATES all_deps)
  set_property(GLOBAL PROPERTY TUNER_LAYER_DEPS_${name} "${all_deps}")
  set_property(GLOBAL PROPERTY TUNER_LAYER_DIR_${name} "${dir}")
  set_property(GLOBAL APPEND PROPERTY TUNER_LAYERS ${name})

  set(view ${CMAKE_BINARY_DIR}/layers/${name})
  file(REMOVE_RECURSE ${view})
  set(dirs ${dir})
  foreach(dep ${all_deps})
    get_property(dep_dir GLOBAL PROPERTY TUNER_LAYER_DIR_${dep})
    list(APPEND dirs ${dep_dir})
  endforeach()
  foreach(d ${dirs})
    file(GLOB headers CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/${d}/*.h)
    list(FILTER headers EXCLUDE REGEX "_test\\.h$")
    file(MAKE_DIRECTORY ${view}/${d})
    foreach(h ${headers})
      get_filename_component(hn ${h} NAME)
      file(CREATE_LINK ${h} ${view}/${d}/${hn} SYMBOLIC)
    endforeach()
  endforeach()

  file(GLOB srcs CONFIGURE_DEPENDS ${src}/*.cc)
  list(FILTER srcs EXCLUDE REGEX "_test\\.cc$")
  list(FILTER srcs EXCLUDE REGEX "/main\\.cc$")
  list(FILTER srcs EXCLUDE REGEX "_sim\\.cc$")
  if(srcs)
    add_library(${name} STATIC ${srcs})
    target_include_directories(${name} PRIVATE ${view})
    target_link_libraries(${name} PUBLIC ${L_DEPENDS} ${L_LIBS})
  else()
    # Headers only (so far): nothing to compile, the fence still holds for its users.
    add_library(${name} INTERFACE)
    target_link_libraries(${name} INTERFACE ${L_DEPENDS} ${L_LIBS})
  endif()
endfunction()

# One CTest per layer proves the fence by trying: a header of every layer NAME does
# not depend on must fail to compile against NAME's view, and NAME's own headers
# must compile (so the failures are the fence, not a broken compiler).
function(tuner_layer_tests)
  get_property(layers GLOBAL PROPERTY TUNER_LAYERS)
  foreach(name ${layers})
    get_property(deps GLOBAL PROPERTY TUNER_LAYER_DEPS_${name})
    get_property(dir GLOBAL PROPERTY TUNER_LAYER_DIR_${name})
    set(forbidden "")
    foreach(other ${layers})
      if(other STREQUAL name)
        continue()
      endif()
      list(FIND deps ${other} found)
      if(found EQUAL -1)
        get_property(odir GLOBAL PROPERTY TUNER_LAYER_DIR_${other})
        file(GLOB oh ${CMAKE_SOURCE_DIR}/${odir}/*.h)
        list(FILTER oh EXCLUDE REGEX "_test\\.h$")
        # One header per out-of-reach layer is proof enough: the view holds a layer's
        # headers all or none.
        if(oh)
          list(SORT oh)
          list(GET oh 0 h)
          file(RELATIVE_PATH rel ${CMAKE_SOURCE_DIR} ${h})
          list(APPEND forbidden ${rel})
        endif()
      endif()
    endforeach()
    file(GLOB own ${CMAKE_SOURCE_DIR}/${dir}/*.h)
    list(FILTER own EXCLUDE REGEX "_test\\.h$")
    set(allowed "")
    foreach(h ${own})
      file(RELATIVE_PATH rel ${CMAKE_SOURCE_DIR} ${h})
      list(APPEND allowed ${rel})
    endforeach()
    string(REPLACE ";" "," forbidden_arg "${forbidden}")
    string(REPLACE ";" "," allowed_arg "${allowed}")
    add_test(NAME layering/${name}
      COMMAND ${CMAKE_COMMAND}
        -DCXX=${CMAKE_CXX_COMPILER}
        -DVIEW=${CMAKE_BINARY_DIR}/layers/${name}
        -DLAYER=${name}
        -DWORK=${CMAKE_BINARY_DIR}/layers-check/${name}
        "-DFORBIDDEN=${forbidden_arg}"
        "-DALLOWED=${allowed_arg}"
        -P ${CMAKE_SOURCE_DIR}/cmake/check_layer.cmake)
    set_tests_properties(layering/${name} PROPERTIES LABELS unit)
  endforeach()
endfunction()
