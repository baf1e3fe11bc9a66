# Debian package: `cpack -G DEB` in a build directory (packaging/deb.sh builds, installs
# and purges it as CI does). Depends: computed by dpkg-shlibdeps from the binary's
# shared libraries, plus deb-systemd-helper for the maintainer scripts.
set(CPACK_PACKAGE_NAME tuner)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "tuner maintainers <tuner-maintainers@example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "node auto-tuning agent: measure, tune, verify, roll back")
set(CPACK_PACKAGE_DESCRIPTION
    "tuner probes a Linux server (topology, NUMA, IRQs, NIC modes,
sysctls), applies a profile's settings one group at a time, keeps a
group only when benchmarks prove it helped, and journals every change
so that it can always be rolled back.")
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "init-system-helpers (>= 1.54~)")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_GENERATOR DEB)
# The package installs under the prefix the binary was configured with, so the binary
# finds its profiles (CMAKE_INSTALL_FULL_DATADIR/tuner/profiles) where the package puts
# them. Debian's is /usr (the default here, CMakeLists.txt); the units call /usr/bin/tuner.
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
if(NOT CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  # Read by cpack when it starts: a package from another prefix would hold a binary that
  # searches CMAKE_INSTALL_PREFIX for profiles and units that call /usr/bin/tuner.
  set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_BINARY_DIR}/CPackRefusePrefix.cmake)
  file(WRITE ${CPACK_PROJECT_CONFIG_FILE}
    "message(FATAL_ERROR \"the Debian package installs under /usr, but this build is "
    "configured for ${CMAKE_INSTALL_PREFIX} (its binary searches "
    "${CMAKE_INSTALL_FULL_DATADIR}/tuner/profiles): configure with "
    "-DCMAKE_INSTALL_PREFIX=/usr\")\n")
endif()
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CMAKE_SOURCE_DIR}/packaging/debian/postinst ${CMAKE_SOURCE_DIR}/packaging/debian/prerm
    ${CMAKE_SOURCE_DIR}/packaging/debian/postrm ${CMAKE_SOURCE_DIR}/packaging/debian/conffiles)
# Debian's documentation files: copyright, and the changelog gzipped (changelog.gz: a
# version without a Debian revision is a native package).
set(TUNER_CHANGELOG_GZ ${CMAKE_BINARY_DIR}/changelog.gz)
add_custom_command(
  OUTPUT ${TUNER_CHANGELOG_GZ}
  COMMAND sed "s/@VERSION@/${PROJECT_VERSION}/" ${CMAKE_SOURCE_DIR}/packaging/debian/changelog
          | gzip -9n > ${TUNER_CHANGELOG_GZ}
  DEPENDS ${CMAKE_SOURCE_DIR}/packaging/debian/changelog)
add_custom_target(tuner_changelog ALL DEPENDS ${TUNER_CHANGELOG_GZ})
# With the binary, as the man page (packaging/Install.cmake): cpack after the quick start.
add_dependencies(tuner tuner_changelog)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/debian/copyright ${TUNER_CHANGELOG_GZ}
  DESTINATION ${CMAKE_INSTALL_DOCDIR})
include(CPack)
