# What 'make install' and the Debian package put beside the binary and the profiles:
# the man page (gzip -9n, as Debian wants it), bash completion, the systemd units, the
# provisioning example, the monitoring files, and the local profile directory. The units and /etc/tuner are
# absolute: systemd and tuner look there whatever the prefix (Debian 12 keeps units in
# /lib/systemd/system).
set(TUNER_MAN_GZ ${CMAKE_BINARY_DIR}/tuner.1.gz)
add_custom_command(
  OUTPUT ${TUNER_MAN_GZ}
  COMMAND sed "s/@VERSION@/${PROJECT_VERSION}/" ${CMAKE_SOURCE_DIR}/packaging/man/tuner.1
          | gzip -9n > ${TUNER_MAN_GZ}
  DEPENDS ${CMAKE_SOURCE_DIR}/packaging/man/tuner.1
  COMMENT "man page tuner.1.gz")
add_custom_target(tuner_man ALL DEPENDS ${TUNER_MAN_GZ})
# Built with the binary, so that any build of it can be packaged: the quick start builds
# only the tuner target, and `cpack` afterwards must find every file it installs.
add_dependencies(tuner tuner_man)
install(FILES ${TUNER_MAN_GZ} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/bash-completion/tuner
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/systemd/tuner-restore.service
  ${CMAKE_SOURCE_DIR}/packaging/systemd/tuner-after-tuned.service
  ${CMAKE_SOURCE_DIR}/packaging/systemd/tuner-provision.service
  ${CMAKE_SOURCE_DIR}/packaging/systemd/tuner-status.service
  ${CMAKE_SOURCE_DIR}/packaging/systemd/tuner-status.timer
  DESTINATION /lib/systemd/system)
# The one lintian finding the package keeps, and why (the file says).
install(FILES ${CMAKE_SOURCE_DIR}/packaging/debian/lintian-overrides
  DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME tuner)
# tuner-provision.service's limit on failed attempts (ExecStartPre, ExecStopPost).
# /usr/lib/tuner, as the unit names it (not the multiarch LIBDIR: a script).
install(PROGRAMS ${CMAKE_SOURCE_DIR}/packaging/systemd/provision-attempts DESTINATION lib/tuner)
# Prometheus alert rules and the Grafana dashboard, and the guide that loads them.
install(FILES ${CMAKE_SOURCE_DIR}/packaging/monitoring/tuner.rules.yml
  ${CMAKE_SOURCE_DIR}/packaging/monitoring/tuner-dashboard.json
  DESTINATION ${CMAKE_INSTALL_DATADIR}/tuner/monitoring)
install(FILES ${CMAKE_SOURCE_DIR}/docs/monitoring.md ${CMAKE_SOURCE_DIR}/docs/fleet-decisions.md
  DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${CMAKE_SOURCE_DIR}/packaging/provision.env.example
  DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/etc-profiles-README DESTINATION /etc/tuner/profiles
  RENAME README)
