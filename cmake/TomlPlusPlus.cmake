# toml++ from the distribution where it has one, else a pinned copy the build verifies.
#
# Debian 12 and 13, Ubuntu 24.04 and Fedora package toml++; Debian 11, Ubuntu 22.04 and
# EPEL 8 do not. There the build takes Debian 12's libtomlplusplus-dev (3.3.0+ds-1, the
# version every other build here uses), checks its SHA-256, unpacks its headers under the
# build directory and uses them header-only. A .deb is an ar archive that CMake unpacks
# itself, so this needs neither dpkg nor network access beyond the one download:
#   -DTUNER_TOMLPLUSPLUS=system    the distribution's package or nothing (an error)
#   -DTUNER_TOMLPLUSPLUS=pinned    the pinned copy even where a package exists
#   -DTUNER_TOMLPLUSPLUS_DEB=FILE  the same .deb, already downloaded (offline builds);
#                                  its SHA-256 is checked as the download's would be
# (default auto: the package when find_package finds it, the pinned copy otherwise)

set(TUNER_TOMLPLUSPLUS auto CACHE STRING "Where toml++ comes from: auto, system or pinned")
set_property(CACHE TUNER_TOMLPLUSPLUS PROPERTY STRINGS auto system pinned)
set(TUNER_TOMLPLUSPLUS_DEB "" CACHE FILEPATH
  "libtomlplusplus-dev_3.3.0+ds-1_amd64.deb, already downloaded (TUNER_TOMLPLUSPLUS=pinned)")

set(_toml_version 3.3.0+ds-1)
set(_toml_deb libtomlplusplus-dev_${_toml_version}_amd64.deb)
set(_toml_url "http://deb.debian.org/debian/pool/main/t/tomlplusplus/libtomlplusplus-dev_3.3.0%2Bds-1_amd64.deb")
set(_toml_sha256 2779cce0001466dcf60eb6262ff68a888d49f9e30aee80c499d1d4f6f9f6e12e)

if(NOT TUNER_TOMLPLUSPLUS STREQUAL "pinned")
  if(TUNER_TOMLPLUSPLUS STREQUAL "system")
    find_package(tomlplusplus 3 REQUIRED)
  else()
    find_package(tomlplusplus 3 QUIET)
  endif()
endif()

if(tomlplusplus_FOUND)
  message(STATUS "toml++: the distribution's (${tomlplusplus_VERSION})")
else()
  set(_toml_dir ${CMAKE_BINARY_DIR}/_deps/tomlplusplus-${_toml_version})
  if(NOT EXISTS ${_toml_dir}/usr/include/toml++/toml.h)
    if(TUNER_TOMLPLUSPLUS_DEB)
      set(_toml_file ${TUNER_TOMLPLUSPLUS_DEB})
      file(SHA256 ${_toml_file} _got)
      if(NOT _got STREQUAL _toml_sha256)
        message(FATAL_ERROR "TUNER_TOMLPLUSPLUS_DEB=${_toml_file}: SHA-256 ${_got}, "
          "not ${_toml_sha256} (${_toml_deb})")
      endif()
    else()
      set(_toml_file ${CMAKE_BINARY_DIR}/_deps/${_toml_deb})
      message(STATUS "toml++: no package; downloading the pinned ${_toml_deb}")
      file(DOWNLOAD ${_toml_url} ${_toml_file} EXPECTED_HASH SHA256=${_toml_sha256}
        STATUS _status TLS_VERIFY ON)
      list(GET _status 0 _code)
      if(NOT _code EQUAL 0)
        file(REMOVE ${_toml_file})
        list(GET _status 1 _why)
        message(FATAL_ERROR "toml++: no package, and ${_toml_url} could not be downloaded "
          "(${_why}). Install the distribution's toml++ (libtomlplusplus-dev, "
          "tomlplusplus-devel), or download that file elsewhere and pass "
          "-DTUNER_TOMLPLUSPLUS_DEB=FILE (README: Building elsewhere)")
      endif()
    endif()
    # Unpacked beside, then moved into place: an interrupted unpack leaves no half tree.
    set(_tmp ${_toml_dir}.tmp)
    file(REMOVE_RECURSE ${_tmp})
    file(MAKE_DIRECTORY ${_tmp})
    file(ARCHIVE_EXTRACT INPUT ${_toml_file} DESTINATION ${_tmp})
    file(GLOB _data ${_tmp}/data.tar.*)
    if(NOT _data)
      message(FATAL_ERROR "toml++: ${_toml_file} holds no data.tar")
    endif()
    file(ARCHIVE_EXTRACT INPUT ${_data} DESTINATION ${_tmp} PATTERNS usr/include)
    file(REMOVE_RECURSE ${_toml_dir})
    file(RENAME ${_tmp} ${_toml_dir})
  endif()
  add_library(tomlplusplus_pinned INTERFACE)
  target_include_directories(tomlplusplus_pinned SYSTEM INTERFACE ${_toml_dir}/usr/include)
  target_compile_definitions(tomlplusplus_pinned INTERFACE TOML_HEADER_ONLY=1)
  add_library(tomlplusplus::tomlplusplus ALIAS tomlplusplus_pinned)
  message(STATUS "toml++: the pinned ${_toml_deb}, header-only")
endif()
