// Who could have written a file root is about to trust: files and directories chowned
// to another user (nobody, uid 65534) or opened to everyone, in a private temp dir.
// Root only: chown needs it, and for anyone else the check passes by design.
#include "base/file_trust.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <string>

#include "tests/support/temp_dir.h"

using namespace tuner;

namespace {

constexpr uid_t kNobody = 65534;

bool as_root() {
  if (::geteuid() == 0) return true;
  MESSAGE("skipped: needs root (chown; the check only applies to root)");
  return false;
}

/// The message of check_trusted_path, "" when it passed.
std::string refusal(const std::string& path) {
  Status s = check_trusted_path(path, "profile");
  return s.ok() ? "" : s.error().message();
}

}  // namespace

TEST_CASE("file trust: the owner and the mode bits, alone") {
  struct stat st {};
  st.st_mode = S_IFREG | 0644;
  st.st_uid = 0;
  CHECK(untrusted_because(st, {0}, false).empty());
  st.st_uid = kNobody;
  CHECK(untrusted_because(st, {0}, false).find("is owned by uid 65534") == 0);
  CHECK(untrusted_because(st, {0, kNobody}, false).empty());
  st.st_uid = 0;
  st.st_mode = S_IFREG | 0664;
  CHECK(untrusted_because(st, {0}, false) == "is group- or world-writable (mode 0664)");
  st.st_mode = S_IFDIR | 01777;  // /tmp
  CHECK(untrusted_because(st, {0}, true).empty());
  CHECK_FALSE(untrusted_because(st, {0}, false).empty());
  st.st_mode = S_IFDIR | 0777;  // writable by all and not sticky: never
  CHECK_FALSE(untrusted_because(st, {0}, true).empty());
}

TEST_CASE("file trust: a file or directory of another user is refused, naming it and its owner") {
  if (!as_root()) return;
  testing::TempDir tmp;
  std::string good = tmp.write("good.toml", "[profile]\nname = \"good\"\n");
  CHECK(refusal(good).empty());

  SUBCASE("a file owned by nobody") {
    std::string f = tmp.write("planted.toml", "x");
    REQUIRE(::chown(f.c_str(), kNobody, kNobody) == 0);
    CHECK(refusal(f) == f + ": profile is owned by uid 65534 (nobody); root uses no profile " +
                            "another user could have written");
  }
  SUBCASE("a root file anyone may write") {
    std::string f = tmp.write("loose.toml", "x");
    REQUIRE(::chmod(f.c_str(), 0666) == 0);
    CHECK(refusal(f).find("is group- or world-writable (mode 0666)") != std::string::npos);
  }
  SUBCASE("a root file in a directory owned by nobody") {
    std::string f = tmp.write("theirs/p.toml", "x");
    REQUIRE(::chown((tmp / "theirs").c_str(), kNobody, kNobody) == 0);
    CHECK(refusal(f) == f + ": directory " + tmp / "theirs" +
                            " above the profile is owned by uid 65534 (nobody); root uses no " +
                            "profile another user could have written");
  }
  SUBCASE("a root file two levels below a world-writable directory that is not sticky") {
    std::string f = tmp.write("open/deep/p.toml", "x");
    REQUIRE(::chmod((tmp / "open").c_str(), 0777) == 0);
    CHECK(refusal(f).find("directory " + tmp / "open" +
                          " above the profile is group- or world-writable (mode 0777)") !=
          std::string::npos);
  }
  SUBCASE("a sticky directory writable by all (as /tmp) above a root directory passes") {
    std::string f = tmp.write("sticky/mine/p.toml", "x");
    REQUIRE(::chmod((tmp / "sticky").c_str(), 01777) == 0);
    CHECK(refusal(f).empty());
  }
  SUBCASE("a link is judged by the file it leads to") {
    std::string theirs = tmp.write("theirs.toml", "x");
    REQUIRE(::chown(theirs.c_str(), kNobody, kNobody) == 0);
    REQUIRE(::symlink(theirs.c_str(), (tmp / "link.toml").c_str()) == 0);
    CHECK(refusal(tmp / "link.toml").find("owned by uid 65534") != std::string::npos);
  }
}
