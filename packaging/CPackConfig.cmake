# Debian package: `cpack -G DEB` in a build directory.
set(CPACK_PACKAGE_NAME tuner)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "tuner maintainers <tuner@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "node auto-tuning agent: measure, tune, verify, roll back")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_GENERATOR DEB)
set(CPACK_STRIP_FILES ON)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/systemd/tuner-restore.service
  DESTINATION lib/systemd/system)
include(CPack)
