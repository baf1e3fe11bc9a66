// tuned profiles: the parser on Debian 12's captured tuned.conf files (tuned 2.20.0-1,
// tests/fixtures/tuned/README.md) and on the ConfigParser corners tuned relies on; the
// loader's includes, merging, drop= and replace= on a tree as tuned lays it out.
#include "probes/tuned.h"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

namespace tuner {
namespace {

const std::string kDebian = "tuned/debian12";

const TunedOption* option(const TunedProfile& p, std::string_view unit, std::string_view key) {
  for (const TunedUnit& u : p.units)
    if (u.name == unit)
      for (const TunedOption& o : u.options)
        if (o.key == key) return &o;
  return nullptr;
}

/// The captured profiles with the test's own files on top.
struct TunedTree {
  TunedTree() {
    std::filesystem::copy(testing::test_data_path(kDebian), dir.path,
                          std::filesystem::copy_options::recursive);
  }
  void write(const std::string& rel, std::string_view text) const {
    testing::write_file(dir.path + "/" + rel, text);
  }
  Result<TunedProfile> load(const std::vector<std::string>& names) const {
    return load_tuned_profile(Root::open(dir.path).value(), names);
  }
  testing::TempDir dir;
};

}  // namespace

TEST_CASE("tuned: the captured throughput-performance parses as tuned reads it") {
  std::string file = "usr/lib/tuned/throughput-performance/tuned.conf";
  auto conf = parse_tuned_conf(testing::read_test_data(kDebian + "/" + file), file);
  REQUIRE(conf.ok());
  std::vector<std::string> names;
  for (const auto& s : conf->sections) names.push_back(s.name);
  CHECK(names == std::vector<std::string>{"main", "variables", "cpu", "vm.thunderx", "disk",
                                          "sysctl", "sysctl.thunderx"});
  const auto& sysctl = conf->sections[5].options;
  REQUIRE(sysctl.size() == 4);
  CHECK(sysctl[0].key == "vm.dirty_ratio");  // "vm.dirty_ratio = 40": blanks around '='
  CHECK(sysctl[0].value == "40");
  CHECK(sysctl[3].key == "net.core.somaxconn");
  CHECK(sysctl[3].value == ">2048");  // tuned's "at least" modifier, kept as written
  CHECK(sysctl[3].line > sysctl[0].line);
}

TEST_CASE("tuned: ConfigParser's corners") {
  auto conf =
      parse_tuned_conf("# comment\n; also a comment\n[sysctl]\nKernel.X = 1 # inline\nurl=a#b\n"
                       "multi = first\n  second\n\n[sysctl]\nKernel.X=2\n",
                       "t.conf");
  REQUIRE(conf.ok());
  REQUIRE(conf->sections.size() == 1);  // a repeated section is one
  const auto& o = conf->sections[0].options;
  REQUIRE(o.size() == 3);
  CHECK(o[0].key == "url");
  CHECK(o[0].value == "a#b");  // '#' ends a value only after a blank
  CHECK(o[1].value == "first\nsecond");
  CHECK(o[2].key == "Kernel.X");  // case kept (optionxform=str), later wins
  CHECK(o[2].value == "2");
  CHECK(o[2].line == 10);

  CHECK(parse_tuned_conf("x=1\n", "t.conf").error().where == "t.conf:1");
  CHECK(parse_tuned_conf("[a]\nno value\n", "t.conf").error().where == "t.conf:2");
  CHECK(parse_tuned_conf("[a]\n= 1\n", "t.conf").error().is(ErrorKind::invalid));
  CHECK(parse_tuned_conf("[]\n", "t.conf").error().is(ErrorKind::invalid));
  CHECK(parse_tuned_conf("", "t.conf")->sections.empty());
}

TEST_CASE("tuned: an include chain merges, later files over earlier") {
  TunedTree tree;
  auto p = tree.load({"virtual-guest"});  // include=throughput-performance
  REQUIRE(p.ok());
  CHECK(p->files == std::vector<std::string>{"usr/lib/tuned/throughput-performance/tuned.conf",
                                             "usr/lib/tuned/virtual-guest/tuned.conf"});
  REQUIRE(option(*p, "sysctl", "vm.swappiness"));
  CHECK(option(*p, "sysctl", "vm.swappiness")->value == "30");
  CHECK(option(*p, "sysctl", "vm.swappiness")->where ==
        "usr/lib/tuned/virtual-guest/tuned.conf:22");
  CHECK(option(*p, "sysctl", "net.core.somaxconn")->value == ">2048");  // inherited
  CHECK(option(*p, "cpu", "governor")->value == "performance");
  CHECK_FALSE(std::ranges::any_of(p->units, [](auto& u) { return u.name == "variables"; }));
  // A unit that runs only on some machines says so, and keeps its type.
  auto thunder = std::ranges::find(p->units, "vm.thunderx", &TunedUnit::name);
  REQUIRE(thunder != p->units.end());
  CHECK(thunder->type == "vm");
  CHECK(thunder->condition.starts_with("uname_regex=aarch64; cpuinfo_regex="));

  // Two levels: network-latency -> latency-performance, and a profile tuned picks itself.
  auto nl = tree.load({"network-latency"});
  REQUIRE(nl.ok());
  CHECK(option(*nl, "vm", "transparent_hugepages")->value == "never");
  CHECK(option(*nl, "cpu", "force_latency")->value == "cstate.id_no_zero:1|3");
  auto os = tree.load({"openshift"});
  REQUIRE(os.ok());
  CHECK(os->computed_includes ==
        std::vector<std::string>{"${f:virt_check:virtual-guest:throughput-performance}"});
  CHECK(os->files.size() == 1);
  CHECK(tuned_computed("${f:virt_check:a:b}"));
  CHECK(tuned_computed("${isolated_cores}"));
  CHECK_FALSE(tuned_computed("${i:PROFILE_DIR}/script.sh"));
  CHECK_FALSE(tuned_computed("performance"));
}

TEST_CASE("tuned: a child profile's drop=, replace= and enabled=") {
  TunedTree tree;
  tree.write("etc/tuned/mine/tuned.conf",
             "[main]\ninclude=network-throughput\n[sysctl]\ndrop=vm.swappiness, "
             "net.ipv4.tcp_rmem\nvm.dirty_ratio=5\n[cpu]\nreplace=1\ngovernor=powersave\n"
             "[disk]\nenabled=false\n");
  auto p = tree.load({"mine"});
  REQUIRE(p.ok());
  CHECK(p->files.size() == 3);
  CHECK_FALSE(option(*p, "sysctl", "vm.swappiness"));
  CHECK_FALSE(option(*p, "sysctl", "net.ipv4.tcp_rmem"));
  CHECK(option(*p, "sysctl", "net.ipv4.tcp_wmem"));
  CHECK(option(*p, "sysctl", "vm.dirty_ratio")->value == "5");
  CHECK(option(*p, "cpu", "governor")->value == "powersave");
  CHECK_FALSE(option(*p, "cpu", "min_perf_pct"));  // replaced: the parent's options gone
  CHECK_FALSE(std::ranges::find(p->units, "disk", &TunedUnit::name)->enabled);
}

TEST_CASE("tuned: where profiles are found, and what is refused") {
  TunedTree tree;
  // /etc/tuned/NAME before /usr/lib/tuned/NAME, and it may include NAME to extend it.
  tree.write("etc/tuned/virtual-guest/tuned.conf",
             "[main]\ninclude=virtual-guest\n[sysctl]\nvm.swappiness=5\n");
  auto p = tree.load({"virtual-guest"});
  REQUIRE(p.ok());
  CHECK(p->files.back() == "etc/tuned/virtual-guest/tuned.conf");
  CHECK(option(*p, "sysctl", "vm.swappiness")->value == "5");
  // tuned 2.23's folders.
  tree.write("usr/lib/tuned/profiles/new-style/tuned.conf", "[sysctl]\nvm.swappiness=7\n");
  CHECK(option(tree.load({"new-style"}).value(), "sysctl", "vm.swappiness")->value == "7");
  // A loop ends where tuned ends it; '-' includes what exists.
  tree.write("etc/tuned/a/tuned.conf", "[main]\ninclude=b, -gone\n[sysctl]\nx=1\n");
  tree.write("etc/tuned/b/tuned.conf", "[main]\ninclude=a\n[sysctl]\nx=2\n");
  auto loop = tree.load({"a"});
  REQUIRE(loop.ok());
  CHECK(option(*loop, "sysctl", "x")->value == "1");
  CHECK(tree.load({"gone"}).error().is(ErrorKind::missing));
  CHECK(tree.load({"../etc"}).error().is(ErrorKind::invalid));
  tree.write("etc/tuned/up/tuned.conf", "[main]\ninclude=..\n");
  CHECK(tree.load({"up"}).error().is(ErrorKind::invalid));
  // A FIFO where a tuned.conf should be is an error, never a wait.
  std::filesystem::create_directories(tree.dir.path + "/etc/tuned/fifo");
  REQUIRE(::mkfifo((tree.dir.path + "/etc/tuned/fifo/tuned.conf").c_str(), 0600) == 0);
  testing::HangGuard guard;
  CHECK_FALSE(tree.load({"fifo"}).ok());
}

TEST_CASE("tuned: active_profile, post_loaded_profile and profile_mode") {
  testing::TempDir dir;
  Root root = Root::open(dir.path).value();
  CHECK(read_tuned_active(root)->names.empty());
  testing::write_file(dir.path + "/etc/tuned/active_profile", "balanced intel-sst\n");
  testing::write_file(dir.path + "/etc/tuned/post_loaded_profile", "mine\n");
  testing::write_file(dir.path + "/etc/tuned/profile_mode", "manual\n");
  auto a = read_tuned_active(root);
  REQUIRE(a.ok());
  CHECK(a->names == std::vector<std::string>{"balanced", "intel-sst", "mine"});
  CHECK(a->mode == "manual");
}

TEST_CASE("tuned: devices= selections") {
  CHECK(tuned_devices_match("*", "eth0"));
  CHECK(tuned_devices_match("eth*, ens1f0", "ens1f0"));
  CHECK_FALSE(tuned_devices_match("eth*", "ens1f0"));
  CHECK_FALSE(tuned_devices_match("!eth0", "eth0"));
  CHECK(tuned_devices_match("!eth0", "eth1"));  // only negations: all the others
  CHECK_FALSE(tuned_devices_match("cpu*, !cpu3", "cpu3"));
}

}  // namespace tuner
