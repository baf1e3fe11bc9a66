# -DTUNER_PORTABLE=ON: one binary for the RHEL family and the Debian family, built on the
# oldest glibc supported (Debian 11's 2.31: packaging/portable.sh builds it there).
# libstdc++ and libgcc are linked in, and so are hwloc, libnuma, RE2 and
# Boost.Program_options from their static archives, and fmt header-only; toml++ and
# nlohmann_json are header-only already. What stays dynamic is what every EL8/EL9,
# Debian and Ubuntu system has: glibc (libc, libm, libdl, libpthread), libmnl, and
# libudev (for hwloc). packaging/portable_check.sh asserts that list and the highest
# glibc symbol version (docs/operators.md "The portable binary").
#
# Included after the find_package and pkg_check_modules calls: it points their imported
# targets at the static archives, and refuses (rather than links dynamically) when one
# of those archives is missing.

set(TUNER_PORTABLE_DYNAMIC m dl pthread rt udev mnl
  CACHE INTERNAL "Libraries the portable binary may still load from the system")

# tuner_portable_archives(OUT NAME...): each library NAME as the path of its static
# archive (lib${NAME}.a), or as itself where it may stay dynamic. libudev comes as
# libudev.so.1 where no libudev.so development link is installed (Debian 11 without
# libudev-dev): the linker records the same soname either way.
function(tuner_portable_archives out)
  set(libs "")
  foreach(name IN LISTS ARGN)
    if(name STREQUAL "udev")
      find_library(TUNER_PORTABLE_UDEV NAMES udev libudev.so.1 REQUIRED)
      list(APPEND libs ${TUNER_PORTABLE_UDEV})
    elseif(name IN_LIST TUNER_PORTABLE_DYNAMIC)
      list(APPEND libs ${name})
    else()
      find_library(TUNER_PORTABLE_${name} NAMES lib${name}.a)
      if(NOT TUNER_PORTABLE_${name})
        message(FATAL_ERROR "TUNER_PORTABLE: no static lib${name}.a here (the binary "
          "must not need lib${name}.so on the systems it is for); packaging/portable.sh "
          "builds in a Debian 11 chroot, which has it")
      endif()
      list(APPEND libs ${TUNER_PORTABLE_${name}})
    endif()
  endforeach()
  set(${out} ${libs} PARENT_SCOPE)
endfunction()

# A pkg-config module's imported target, pointed at its static link line (Libs and
# Libs.private: hwloc's -ludev -ldl, RE2's Abseil where it has one).
function(tuner_portable_pkg prefix)
  tuner_portable_archives(libs ${${prefix}_STATIC_LIBRARIES})
  set_target_properties(PkgConfig::${prefix} PROPERTIES INTERFACE_LINK_LIBRARIES "${libs}")
endfunction()

tuner_portable_pkg(HWLOC)
tuner_portable_pkg(RE2)
# libnuma: numa.pc where there is one, else the library found beside its header.
tuner_portable_archives(_numa numa)
set_target_properties(PkgConfig::NUMA PROPERTIES INTERFACE_LINK_LIBRARIES "${_numa}")
# RE2 and hwloc use threads; -pthread comes with RE2's Cflags/Libs as a link option.
set(TUNER_FMT fmt::fmt-header-only)
add_link_options(-static-libstdc++ -static-libgcc)
message(STATUS "portable: static hwloc, libnuma, RE2, Boost.Program_options, "
  "libstdc++, libgcc; fmt header-only")
