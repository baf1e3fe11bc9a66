#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "base/strings.h"
#include "probes/sysctl.h"
#include "tests/support/temp_dir.h"
#include "tuner/knobs/knob.h"

using namespace tuner;

namespace {

std::unique_ptr<Knob> knob(const std::string& id, KnobContext& ctx) {
  auto k = make_knob(id, ctx);
  if (!k.ok()) FAIL(k.error().message());
  return std::move(k).value();
}

/// Runs body in a forked child inside a private network namespace (the host's values are
/// never touched; unshare changes the calling thread's namespace for good, hence the
/// child): body's result is the child's exit status, 0 for a pass. Skipped, with a
/// message, without root or network namespaces.
void in_private_netns(const std::function<int()>& body) {
  if (::geteuid() != 0) {
    MESSAGE("skipped: needs root for a private network namespace");
    return;
  }
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    if (::unshare(CLONE_NEWNET) != 0) ::_exit(77);
    ::_exit(body());
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) {
    MESSAGE("skipped: unshare(CLONE_NEWNET) failed");
    return;
  }
  CHECK(WEXITSTATUS(status) == 0);
}

}  // namespace

TEST_CASE("sysctl knob: ids are validated before anything is touched") {
  KnobContext ctx{Root::live()};
  for (const char* bad : {"sysctl:", "sysctl:net..core", "sysctl:net/core/x", "sysctl:../etc",
                          "sysctl:net.core.rmem_max ", "sysctl:.net", "sysctl:net.*"}) {
    auto k = make_knob(bad, ctx);
    CHECK_MESSAGE(!k.ok(), bad);
    if (!k.ok()) CHECK(k.error().where == bad);
  }
}

TEST_CASE("sysctl knob: reads a captured tree whitespace-normalised, never writes it") {
  testing::TempDir t;
  std::filesystem::create_directories(t.path + "/proc/sys/net/ipv4");
  std::ofstream(t.path + "/proc/sys/net/ipv4/tcp_rmem") << "4096\t131072\t6291456\n";
  auto root = Root::open(t.path);
  REQUIRE(root.ok());
  KnobContext ctx{*root};
  auto k = knob("sysctl:net.ipv4.tcp_rmem", ctx);
  CHECK(k->read().value() == "4096 131072 6291456");
  CHECK(k->canonical(" 4096  87380\n6291456 ").value() == "4096 87380 6291456");
  auto w = k->write("1 2 3");
  REQUIRE_FALSE(w.ok());
  CHECK(w.error().message().find("live machine") != std::string::npos);
  CHECK(k->read().value() == "4096 131072 6291456");
  auto missing = make_knob("sysctl:net.core.nope", ctx);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().err == ENOENT);
  CHECK(missing.error().where == "sysctl:net.core.nope");
}

TEST_CASE("sysctl knob: without modules.dep, a congestion control Linux has no module of") {
  // A captured tree (or a container) without lib/modules: the kernel's own congestion
  // controls may still load, a made-up name never does (plan and apply agree).
  testing::TempDir t;
  std::filesystem::create_directories(t.path + "/proc/sys/net/ipv4");
  std::filesystem::create_directories(t.path + "/proc/sys/kernel");
  std::ofstream(t.path + "/proc/sys/net/ipv4/tcp_congestion_control") << "cubic\n";
  std::ofstream(t.path + "/proc/sys/net/ipv4/tcp_available_congestion_control") << "reno cubic\n";
  std::ofstream(t.path + "/proc/sys/kernel/osrelease") << "6.1.0-28-amd64\n";
  auto root = Root::open(t.path);
  REQUIRE(root.ok());
  KnobContext ctx{*root};
  auto k = knob("sysctl:net.ipv4.tcp_congestion_control", ctx);
  CHECK(k->canonical("reno").ok());
  CHECK(k->canonical("bbr").ok());  // tcp_bbr.ko: loaded on the write
  auto bad = k->canonical("nonexistent_cc");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().is(ErrorKind::invalid));
}

TEST_CASE("sysctl knob: a symlink inside the tree is not followed") {
  testing::TempDir t;
  std::filesystem::create_directories(t.path + "/proc/sys/net/core");
  std::ofstream(t.path + "/secret") << "42\n";
  std::filesystem::create_symlink(t.path + "/secret", t.path + "/proc/sys/net/core/somaxconn");
  auto root = Root::open(t.path);
  REQUIRE(root.ok());
  KnobContext ctx{*root};
  auto k = make_knob("sysctl:net.core.somaxconn", ctx);
  CHECK_FALSE(k.ok());
}

// Real kernel, private network namespace: the host's value is never touched.
TEST_CASE("sysctl knob: writes and reads back on the live kernel (root, netns)") {
  in_private_netns([&] {
    KnobContext ctx{Root::live()};
    auto k = make_knob("sysctl:net.ipv4.tcp_rmem", ctx);
    if (!k.ok()) return 1;
    auto before = (*k)->read();
    if (!before.ok()) return 2;
    if (!(*k)->write("4096  87381\t6291457").ok()) return 3;
    if ((*k)->read().value_or("") != "4096 87381 6291457") return 4;
    auto bad = (*k)->write("not a number");
    if (bad.ok() || bad.error().err != EINVAL) return 5;
    if (!(*k)->write(*before).ok()) return 6;
    if ((*k)->read().value_or("") != *before) return 7;
    return 0;
  });
}

// Each value canonical() refuses is one the real kernel refuses or would not read back
// as written (private network namespace; every key is put back). Run in a child:
// unshare(CLONE_NEWNET) changes the calling thread's namespace for good.
TEST_CASE("sysctl knob: what it refuses before a write, the kernel refuses (root, netns)") {
  struct Case {
    const char* key;
    const char* value;
  };
  static const Case cases[] = {
      {"net.ipv4.tcp_rmem", "4096 131072"},            // 2 of 3 fields
      {"net.ipv4.tcp_rmem", "4096 131072 6291456 1"},  // 4 fields
      {"net.ipv4.tcp_rmem", "0 131072 6291456"},       // below the handler's minimum
      {"net.core.somaxconn", "-1"},
      {"net.core.somaxconn", "99999999999"},
      {"net.core.somaxconn", "05000"},  // octal: the kernel sets 2560
      {"net.core.somaxconn", "0x100"},
      {"net.core.somaxconn", "5000 6000"},
      {"net.ipv4.ip_local_port_range", "60000 1024"},
      {"net.ipv4.tcp_congestion_control", "no_such_cc"},
      {"net.ipv4.tcp_congestion_control", "nonexistent_cc"},
      {"net.ipv4.ip_default_ttl", "0"},
      {"net.ipv4.ip_default_ttl", "256"},
      {"net.ipv4.tcp_available_congestion_control", "reno"},  // mode 0444
  };
  in_private_netns([&] {
    KnobContext ctx{Root::live()};
    int failed = 0;
    // Without the running kernel's modules.dep tuner still refuses a name Linux has no
    // congestion control of.
    for (const Case& c : cases) {
      std::string id = std::string("sysctl:") + c.key;
      auto k = make_knob(id, ctx);
      if (!k.ok()) return 10;
      auto before = (*k)->read();
      if (!before.ok()) return 11;
      auto refused = (*k)->canonical(c.value);
      // The kernel itself, written directly: an error, or a value that is not c.value.
      std::string path = std::string(c.key);
      for (char& ch : path)
        if (ch == '.') ch = '/';
      path = "/proc/sys/" + path;
      std::ofstream f(path);
      f << c.value;
      f.flush();
      bool kernel_refused = !f.good();
      f.close();
      kernel_refused = kernel_refused || f.fail();
      auto after = (*k)->read();
      bool differs = !after.ok() || *after != normalize_ws(c.value);
      if (after.ok() && *after != *before) (void)(*k)->write(*before);
      if (refused.ok() || !(kernel_refused || differs)) {
        std::fprintf(stderr, "%s = '%s': tuner %s, kernel %s\n", c.key, c.value,
                     refused.ok() ? "accepted" : "refused",
                     kernel_refused ? "refused" : (differs ? "read back otherwise" : "accepted"));
        ++failed;
      }
    }
    return failed ? 1 : 0;
  });
}

TEST_CASE("sysctl knob: values it must still accept (root, netns)") {
  in_private_netns([&] {
    KnobContext ctx{Root::live()};
    const std::pair<const char*, const char*> ok[] = {
        {"net.ipv4.tcp_rmem", "4096 131072 6291456"},
        {"net.core.somaxconn", "0"},
        {"net.core.somaxconn", "8192"},
        {"net.ipv4.ip_local_port_range", "1024 1024"},
        {"net.ipv4.tcp_congestion_control", "reno"},
        {"net.ipv4.ip_default_ttl", "1"},
        {"net.ipv4.ip_default_ttl", "255"},
    };
    for (auto [key, value] : ok) {
      auto k = make_knob(std::string("sysctl:") + key, ctx);
      if (!k.ok()) return 10;
      auto c = (*k)->canonical(value);
      if (!c.ok()) {
        std::fprintf(stderr, "%s = '%s' refused: %s\n", key, value, c.error().message().c_str());
        return 1;
      }
    }
    return 0;
  });
}
