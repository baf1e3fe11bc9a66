# What 'make install' and the Debian package put beside the binary and the profiles:
# the man page (gzip -9n, as Debian wants it), bash completion, the systemd units, the
# provisioning example, and the local profile directory. The units and /etc/tuner are
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
install(FILES ${TUNER_MAN_GZ} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/bash-completion/tuner
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/systemd/tuner-restore.service
  ${CMAKE_SOURCE_DIR}/packaging/systemd/tuner-provision.service
  DESTINATION /lib/systemd/system)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/provision.env.example
  DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/etc-profiles-README DESTINATION /etc/tuner/profiles
  RENAME README)
