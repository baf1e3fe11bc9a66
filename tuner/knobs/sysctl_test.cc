#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/temp_dir.h"
#include "tuner/knobs/knob.h"

using namespace tuner;

namespace {

std::unique_ptr<Knob> knob(const std::string& id, KnobContext& ctx) {
  auto k = make_knob(id, ctx);
  if (!k.ok()) FAIL(k.error().message());
  return std::move(k).value();
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
  if (::geteuid() != 0) {
    MESSAGE("skipped: needs root for a private network namespace");
    return;
  }
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    if (::unshare(CLONE_NEWNET) != 0) ::_exit(77);
    KnobContext ctx{Root::live()};
    auto k = make_knob("sysctl:net.ipv4.tcp_rmem", ctx);
    if (!k.ok()) ::_exit(1);
    auto before = (*k)->read();
    if (!before.ok()) ::_exit(2);
    if (!(*k)->write("4096  87381\t6291457").ok()) ::_exit(3);
    if ((*k)->read().value_or("") != "4096 87381 6291457") ::_exit(4);
    auto bad = (*k)->write("not a number");
    if (bad.ok() || bad.error().err != EINVAL) ::_exit(5);
    if (!(*k)->write(*before).ok()) ::_exit(6);
    if ((*k)->read().value_or("") != *before) ::_exit(7);
    ::_exit(0);
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
