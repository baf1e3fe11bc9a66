#include "probes/sysctl.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "base/strings.h"
#include "tests/support/temp_dir.h"

using namespace tuner;

namespace {

std::string why(const Status& s) { return s.ok() ? "ok" : s.error().message(); }

/// A fake root with proc/sys files, removed at the end of the test.
struct FakeRoot {
  testing::TempDir tmp{"tuner-sysctl"};
  std::filesystem::path dir{tmp.path};
  FakeRoot() {
    tmp.write("proc/sys/net/core/rmem_max", "212992\n");
    tmp.write("proc/sys/net/ipv4/conf/eth0.100/rp_filter", "2\n");
    tmp.write("secret", "outside\n");
  }
  Root root() const { return Root::open(tmp.path).value(); }
};

}  // namespace

TEST_CASE("sysctl: key syntax accepts real keys") {
  for (const char* k : {"net.core.rmem_max", "kernel.ostype", "vm.swappiness",
                        "net.ipv4.conf.all.rp_filter", "net.ipv6.conf.eth-1.accept_ra",
                        "net.ipv4.conf.eth0/100.rp_filter", "fs.inotify.max_user_watches"})
    CHECK_MESSAGE(check_sysctl_key_syntax(k).ok(), k << ": " << why(check_sysctl_key_syntax(k)));
}

TEST_CASE("sysctl: hostile keys are refused with the reason and the column") {
  using namespace std::string_literals;
  struct Case {
    std::string key, expect;
  };
  for (const Case& c : std::vector<Case>{
           {"../../etc/passwd", "empty segment at column 1"},
           {"kernel/../../x", "character '/' at column 7"},
           {"net..core", "empty segment at column 5"},
           {".net", "empty segment at column 1"},
           {"net.core.", "empty segment at column 10"},
           {"a\0b"s, "character \\x00 at column 2"},
           {"net/core/rmem_max", "character '/' at column 4"},
           {"net.conf.eth0//1.x", "character '/' at column 14"},
           {"net.conf./eth0.x", "character '/' at column 10"},
           {"net.conf.eth0/.x", "character '/' at column 14"},
           {"net.core.rmem max", "character ' ' at column 14"},
           {"net.core.rmem_max\n", "character \\x0a at column 18"},
           {"net.core.*", "character '*' at column 10"},
           {"kernel", "at least two dotted segments"},
           {"", "empty key"},
           {std::string(300, 'a'), "longer than 255"},
           {"net." + std::string(65, 'x'), "longer than 64"},
       }) {
    Status s = check_sysctl_key_syntax(c.key);
    REQUIRE_FALSE_MESSAGE(s.ok(), c.key);
    CHECK_MESSAGE(s.error().message().find(c.expect) != std::string::npos,
                  s.error().message() << " lacks " << c.expect);
    CHECK(s.error().err == EINVAL);
    // Nothing is opened for a bad key, and the message is printable.
    auto p = sysctl_path(Root::live(), c.key);
    REQUIRE_FALSE(p.ok());
    for (char ch : p.error().message()) CHECK((ch >= 0x20 && ch < 0x7f));
  }
}

TEST_CASE("sysctl: paths and reads on the live kernel") {
  Root live = Root::live();
  CHECK(sysctl_path(live, "net.core.rmem_max").value_or("") == "proc/sys/net/core/rmem_max");
  CHECK(read_sysctl(live, "kernel.ostype").value_or("") == "Linux");
  auto rmem = read_sysctl(live, "net.ipv4.tcp_rmem");
  REQUIRE(rmem.ok());
  CHECK(split(*rmem, ' ').size() == 3);  // the file separates them with tabs
  for (std::string_view f : split(*rmem, ' ')) CHECK(parse_u64(f).has_value());

  auto missing = read_sysctl(live, "net.core.no_such_knob");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().err == ENOENT);
  CHECK(missing.error().message().find("/proc/sys/net/core/no_such_knob") != std::string::npos);

  auto dir = read_sysctl(live, "net.core");
  REQUIRE_FALSE(dir.ok());
  CHECK(dir.error().err == EISDIR);

  if (::access("/proc/sys/net/ipv4/route/flush", F_OK) == 0) {
    auto flush = read_sysctl(live, "net.ipv4.route.flush");  // mode 0200
    REQUIRE_FALSE(flush.ok());
    CHECK((flush.error().err == EACCES || flush.error().err == EINVAL));
    CHECK(flush.error().message().find("net.ipv4.route.flush") != std::string::npos);
  }
}

TEST_CASE("sysctl: VLAN names map '/' to '.' in the file name") {
  FakeRoot f;
  Root r = f.root();
  CHECK(sysctl_path(r, "net.ipv4.conf.eth0/100.rp_filter").value_or("") ==
        "proc/sys/net/ipv4/conf/eth0.100/rp_filter");
  CHECK(read_sysctl(r, "net.ipv4.conf.eth0/100.rp_filter").value_or("") == "2");
  CHECK(read_sysctl(r, "net.core.rmem_max").value_or("") == "212992");
}

TEST_CASE("sysctl: a FIFO where a key's file should be is refused, not waited on") {
  testing::HangGuard guard;
  FakeRoot f;
  REQUIRE(::mkfifo((f.dir / "proc/sys/net/core/fifo").c_str(), 0600) == 0);
  auto v = read_sysctl(f.root(), "net.core.fifo");
  REQUIRE_FALSE(v.ok());
  CHECK(v.error().message().find("not a regular file") != std::string::npos);
}

TEST_CASE("sysctl: symlinks out of proc/sys are refused") {
  FakeRoot f;
  std::filesystem::create_symlink("../../../secret", f.dir / "proc/sys/net/core/leak");
  std::filesystem::create_symlink("/etc", f.dir / "proc/sys/etc");
  std::filesystem::create_symlink("/etc/hostname", f.dir / "proc/sys/kernel");
  Root r = f.root();
  for (const char* k : {"net.core.leak", "etc.hostname", "kernel.hostname"}) {
    auto v = read_sysctl(r, k);
    REQUIRE_FALSE_MESSAGE(v.ok(), k);
    CHECK(v.error().err == ELOOP);
    CHECK(v.error().message().find("symlink") != std::string::npos);
    CHECK_FALSE(sysctl_path(r, k).ok());
  }
  // The whole proc/sys being a link (a crafted root) is refused too.
  FakeRoot g;
  std::filesystem::remove_all(g.dir / "proc/sys");
  std::filesystem::create_symlink("/proc/sys", g.dir / "proc/sys");
  auto v = read_sysctl(g.root(), "kernel.ostype");
  REQUIRE_FALSE(v.ok());
  CHECK(v.error().err == ELOOP);
}

TEST_CASE("sysctl: open_sysctl gives a usable fd") {
  auto fd = open_sysctl(Root::live(), "kernel.ostype", O_RDONLY);
  REQUIRE(fd.ok());
  char buf[16] = {};
  CHECK(::read(fd->get(), buf, sizeof buf - 1) > 0);
  CHECK(std::string(buf).rfind("Linux", 0) == 0);
}
