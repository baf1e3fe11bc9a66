#include "rollback/state.h"

#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/temp_dir.h"

using namespace tuner;

TEST_CASE("state dir: created 0700 with its parents, runs/ inside") {
  testing::TempDir t;
  std::string dir = t.path + "/a/b/state";
  auto sd = StateDir::open(dir, true);
  REQUIRE(sd.ok());
  struct stat st {};
  REQUIRE(::stat(dir.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0700);
  CHECK(st.st_uid == ::geteuid());
  REQUIRE(::stat((dir + "/runs").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0700);
}

TEST_CASE("state dir: a symlink is refused, even to a good directory") {
  testing::TempDir t;
  REQUIRE(StateDir::open(t.path + "/real", true).ok());
  REQUIRE(::symlink((t.path + "/real").c_str(), (t.path + "/link").c_str()) == 0);
  auto sd = StateDir::open(t.path + "/link", true);
  REQUIRE_FALSE(sd.ok());
  CHECK(sd.error().message().find("symlink") != std::string::npos);
  CHECK(sd.error().where == t.path + "/link");
}

TEST_CASE("state dir: group- or world-writable is refused") {
  testing::TempDir t;
  std::string dir = t.path + "/loose";
  REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
  REQUIRE(::chmod(dir.c_str(), 0777) == 0);
  auto sd = StateDir::open(dir, true);
  REQUIRE_FALSE(sd.ok());
  CHECK(sd.error().message().find("writable") != std::string::npos);
}

TEST_CASE("state: atomic write round trip, no temp file left") {
  testing::TempDir t;
  auto sd = StateDir::open(t.path + "/s", true);
  REQUIRE(sd.ok());
  auto empty = load_state(*sd);
  REQUIRE(empty.ok());
  CHECK(empty->knobs.empty());
  State s;
  s.knobs["sysctl:net.core.somaxconn"] = {"8192", "4096", "20261129T173000Z-1a2b", "sysctl", {}};
  s.knobs["irq:57:affinity"] = {"3", "0-7", "20261129T173000Z-1a2b", "irq", {}};
  REQUIRE(save_state(*sd, s).ok());
  auto back = load_state(*sd);
  REQUIRE(back.ok());
  REQUIRE(back->knobs.size() == 2);
  CHECK(back->knobs["irq:57:affinity"].before == "0-7");
  CHECK(back->knobs["sysctl:net.core.somaxconn"].value == "8192");
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(t.path + "/s")) {
    (void)e;
    ++files;
  }
  CHECK(files == 2);  // runs/ and state.json
  struct stat st {};
  REQUIRE(::stat((t.path + "/s/state.json").c_str(), &st) == 0);
  CHECK((st.st_mode & 077) == 0);
}

TEST_CASE("state: bad state.json names the file") {
  CHECK_FALSE(parse_state("{}", "state.json").ok());
  auto r =
      parse_state("{\"schema\":\"tuner.state/1\",\"knobs\":{\"sysctl:t.a\":{}}}", "x/state.json");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().where == "x/state.json");
}

TEST_CASE("state: a later run's knob rolls back to what the earlier run kept") {
  State s;
  keep_knob(s, "sysctl:net.core.somaxconn", {"8192", "4096", "run1", "sysctl", {}});
  keep_knob(s, "sysctl:net.core.somaxconn", {"16384", "8192", "run2", "sysctl", {}});
  REQUIRE(s.knobs["sysctl:net.core.somaxconn"].earlier.size() == 1);
  // The history survives state.json.
  auto back = parse_state(encode_state(s), "state.json");
  REQUIRE(back.ok());
  CHECK(back->knobs["sysctl:net.core.somaxconn"].earlier.at(0).run_id == "run1");
  CHECK(forget_knob(*back, "sysctl:net.core.somaxconn", "run2"));
  const KeptKnob& k = back->knobs.at("sysctl:net.core.somaxconn");
  CHECK(k.value == "8192");
  CHECK(k.before == "4096");
  CHECK(k.run_id == "run1");
  CHECK(k.earlier.empty());
  CHECK(forget_knob(*back, "sysctl:net.core.somaxconn", "run1"));
  CHECK(back->knobs.empty());
  CHECK_FALSE(forget_knob(*back, "sysctl:net.core.somaxconn", "run1"));
}

TEST_CASE("state: rolling back an earlier run leaves the later run's value kept") {
  State s;
  keep_knob(s, "irq:57:affinity", {"3", "0-7", "run1", "irq", {}});
  keep_knob(s, "irq:57:affinity", {"5", "3", "run2", "irq", {}});
  CHECK(forget_knob(s, "irq:57:affinity", "run1"));
  CHECK(s.knobs.at("irq:57:affinity").value == "5");
  CHECK(s.knobs.at("irq:57:affinity").earlier.empty());
}

TEST_CASE("state: a state.json that is a FIFO is refused at once") {
  testing::HangGuard guard;
  testing::TempDir t;
  auto sd = StateDir::open(t.path + "/s", true);
  REQUIRE(sd.ok());
  REQUIRE(::mkfifo((t.path + "/s/state.json").c_str(), 0600) == 0);
  auto s = load_state(*sd);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().is(ErrorKind::invalid));
  CHECK(s.error().message().find("state.json: not a regular file") != std::string::npos);
}

TEST_CASE("state: an id that does not parse is damaged, set apart, and saved as it was") {
  std::string text = R"({"schema":"tuner.state/1","knobs":{
    "sysctl:net.core.somaxconn":{"value":"8010","before":"4096","run_id":"r1","group":"g"},
    "sysctl:../../etc/passwd":{"value":"x","group":"g2"},
    "nonsense":[1,2]}})";
  auto s = parse_state(text, "x/state.json");
  REQUIRE(s.ok());
  REQUIRE(s->knobs.size() == 1);
  CHECK(s->knobs.at("sysctl:net.core.somaxconn").value == "8010");
  REQUIRE(s->damaged.size() == 2);
  CHECK(s->damaged.at("sysctl:../../etc/passwd").why.starts_with("not a knob id: "));
  CHECK(s->damaged.at("sysctl:../../etc/passwd").group == "g2");
  CHECK(s->damaged.at("nonsense").group.empty());
  // Saved again (an apply rewrites state.json), nothing is lost or changed.
  auto again = parse_state(encode_state(*s), "re-encoded");
  REQUIRE(again.ok());
  CHECK(again->damaged.at("nonsense").raw == "[1,2]");
  CHECK(encode_state(*again) == encode_state(*s));
}

TEST_CASE("state: nested 100,000 deep is refused at its line and column, no crash") {
  std::string deep = R"({"schema":"tuner.state/1","knobs":{"x":)" + std::string(100'000, '[') +
                     std::string(100'000, ']') + "}}";
  auto s = parse_state(deep, "x/state.json");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message().find("nest deeper than 256") != std::string::npos);
}
