// Whether root may trust a file: who could have written it. tuner runs as root and
// reads profiles (which choose kernel settings) and runs benchmark programs a profile
// names; a file another user can write, or a directory above it that they can write,
// would let that user choose what root does. One rule, used by the state directory,
// profiles, included files and exec benchmarks (DESIGN.md "Trusted files").
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "base/result.h"

namespace tuner {

/// "uid 65534 (nobody)", or "uid 1234" when the uid has no name.
std::string describe_uid(uid_t uid);

/// Why a file or directory whose fstat is st cannot be trusted, or "" when it can:
/// "is owned by uid 65534 (nobody)" when its owner is not one of owners; "is group- or
/// world-writable (mode 0777)" when someone else may write it. A directory with the
/// sticky bit (/tmp) passes the second test when sticky_ok: there only an entry's
/// owner can rename or remove it, and the entries are checked themselves.
std::string untrusted_because(const struct stat& st, const std::vector<uid_t>& owners,
                              bool sticky_ok);

/// The owner of the build tree this binary runs from, when it runs from one: the
/// resolved /proc/self/exe lies inside the build directory recorded at configure time
/// (TUNER_BUILD_DIR). An installed binary never does, and nobody can make it: who can
/// put a binary there that root runs owns root already. Whoever owns that tree owns
/// the binary, so trusting their files adds nothing; -1 when not in a build tree.
long build_tree_owner();

/// The owners whose files root may trust: root, and the build tree's owner (above).
std::vector<uid_t> trusted_owners();

/// As root (geteuid() 0; for anyone else Ok, since they can only hurt themselves):
/// the open file fd, `shown` in messages, must be owned by a trusted owner and not be
/// group- or world-writable, and so must every directory above where it really lies
/// (its /proc/self/fd link, symlinks resolved), up to /; a sticky directory may be
/// writable by all (/tmp). An Error::invalid "PATH: <what> ... is owned by uid N
/// (name)" otherwise, naming the file or directory at fault. `what` says what the file
/// is for ("profile", "benchmark program").
Status check_trusted_fd(int fd, const std::string& shown, const std::string& what);

/// Opens path (O_PATH: a program need not be readable) and checks it as above.
Status check_trusted_path(const std::string& path, const std::string& what);

}  // namespace tuner
