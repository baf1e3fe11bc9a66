// `tuner profiles` end to end through the real binary: listing, broken profiles,
// JSON contract, usage errors, and which directories a binary searches.
#include <algorithm>
#include <filesystem>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "base/runner.h"
#include "tests/support/cli.h"
#include "tests/support/temp_dir.h"

using nlohmann::json;

namespace {

using Run = tuner::testing::CliRun;
using tuner::testing::run_tuner;

struct ProfileDir {
  tuner::testing::TempDir tmp{"tuner-profiles-dir"};
  std::string dir = tmp.path;
  ProfileDir() {
    tmp.write("balanced.toml", tuner::testing::read_text(TUNER_SOURCE_PROFILES "/balanced.toml"));
    tmp.write("broken.toml", "[irq.\"eth*\"]\npolcy = \"spread\"\n");
    tmp.write(
        "gpu-node.toml",
        "[profile]\ndescription = \"GPU nodes\"\ninclude = [\"balanced\"]\n[match]\ngpu = true\n");
  }
};

const std::string kDgx2 = TUNER_FIXTURES "/topologies/nvidiaDGX2.xml";

}  // namespace

TEST_CASE("profiles cli: JSON lists every profile, a broken one with its error") {
  ProfileDir d;
  Run r = run_tuner("profiles --json --profile-path " + d.dir + " --topology " + kDgx2);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  json j = json::parse(r.out);
  CHECK(j["schema"] == "tuner.profiles/1");
  REQUIRE(j["profiles"].size() == 3);
  const json& balanced = j["profiles"][0];
  const json& broken = j["profiles"][1];
  const json& gpu = j["profiles"][2];
  CHECK(balanced["name"] == "balanced");
  CHECK(balanced["file"] == d.dir + "/balanced.toml");
  CHECK(balanced["matches"] == true);
  CHECK(balanced["why_not"].is_null());
  CHECK(balanced["error"].is_null());
  CHECK(balanced["description"].get<std::string>().find("safe default") != std::string::npos);
  CHECK(broken["name"] == "broken");
  CHECK(broken["matches"].is_null());
  CHECK(broken["selected"] == false);
  CHECK(broken["error"] == d.dir + "/broken.toml:2:1: unknown key 'polcy' in [irq.\"eth*\"]; "
                                   "did you mean 'policy'?");
  CHECK(gpu["includes"] == json::array({"balanced"}));
  // Exactly one is selected, and it matches.
  int selected = 0;
  for (const json& p : j["profiles"])
    if (p["selected"] == true) {
      ++selected;
      CHECK(p["matches"] == true);
    }
  CHECK(selected == 1);
  // On a machine with GPUs (the DGX-2 export) the GPU profile is more specific than
  // balanced; until the topology probe reports GPUs, it explains why it does not match.
  if (gpu["matches"] == true) CHECK(gpu["selected"] == true);
  else CHECK(gpu["why_not"].get<std::string>().starts_with("gpu = true: "));
}

TEST_CASE("profiles cli: text output marks the selected profile and shows errors") {
  ProfileDir d;
  Run r = run_tuner("profiles --color never --profile-path " + d.dir + " --topology " + kDgx2);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.out.find("broken") != std::string::npos);
  CHECK(r.out.find("broken.toml:2:1: unknown key 'polcy'") != std::string::npos);
  CHECK(r.out.find("* = selected automatically") != std::string::npos);
  CHECK(r.out.find("\x1b[") == std::string::npos);  // --color never
}

TEST_CASE("profiles cli: bad usage exits 2 with the reason on stderr, nothing on stdout") {
  Run missing = run_tuner("profiles --profile-path /nonexistent/tuner-profiles");
  CHECK(missing.code == 2);
  CHECK(missing.out.empty());
  CHECK(missing.err.find("--profile-path /nonexistent/tuner-profiles") != std::string::npos);
  CHECK(missing.err.find("No such file or directory") != std::string::npos);
  Run both = run_tuner("profiles --root / --topology " + kDgx2);
  CHECK(both.code == 2);
  Run unknown = run_tuner("profiles --frobnicate");
  CHECK(unknown.code == 2);
  CHECK(unknown.err.find("frobnicate") != std::string::npos);
}

TEST_CASE("profiles cli: the shipped profiles all load") {
  Run r = run_tuner("profiles --json --profile-path " TUNER_SOURCE_PROFILES " --topology " + kDgx2);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  json j = json::parse(r.out);
  CHECK(j["profiles"].size() == 8);
  for (const json& p : j["profiles"]) CHECK_MESSAGE(p["error"].is_null(), p["error"]);
}

TEST_CASE("profiles cli: automatic selection on captured real machines") {
  struct Machine {
    const char* xml;
    const char* expected;
  };
  // DGX-2: 2 nodes, 16 V100s. SGI: 24 nodes, only a BMC VGA (Matrox). IBM x3950: 4
  // nodes, only an ATI ES1000 display. HP SL390s: 2 nodes, 3 Tesla M2070. Workload
  // profiles (dl-training, inference, latency) are the operator's choice, never guessed
  // from GPUs: every machine gets the safe fallback.
  for (Machine m :
       {Machine{"nvidiaDGX2.xml", "balanced"}, Machine{"192em64t-24n8c2t.xml", "balanced"},
        Machine{"96em64t-4n4d3ca2co-pci.xml", "balanced"},
        Machine{"24em64t-2n6c2t-pci.xml", "balanced"}}) {
    CAPTURE(m.xml);
    Run r = run_tuner(std::string("profiles --json --profile-path " TUNER_SOURCE_PROFILES
                                  " --topology " TUNER_FIXTURES "/topologies/") +
                      m.xml);
    REQUIRE_MESSAGE(r.code == 0, r.err);
    json j = json::parse(r.out);
    std::string selected;
    for (const json& p : j["profiles"])
      if (p["selected"] == true) selected = p["name"];
    CHECK(selected == m.expected);
  }
}

TEST_CASE("profiles cli: the source tree is searched only by a binary in its build tree") {
  const std::string source = TUNER_SOURCE_PROFILES;
  Run built = run_tuner("profiles --json --topology " + kDgx2);
  REQUIRE_MESSAGE(built.code == 0, built.err);
  json path = json::parse(built.out)["search_path"];
  CHECK(std::find(path.begin(), path.end(), source) != path.end());
  // The same binary anywhere else (installed, or copied by someone) does not: the
  // source tree's path is the build machine's, and anyone may make it on this one.
  tuner::testing::TempDir tmp;
  std::string copy = tmp.path + "/tuner";
  std::filesystem::copy_file(TUNER_BINARY, copy);
  std::filesystem::permissions(copy, std::filesystem::perms::owner_all);
  tuner::RunSpec spec;
  spec.argv = {copy, "profiles", "--json", "--topology", kDgx2};
  auto moved = tuner::ProcessRunner().run(spec);
  REQUIRE(moved.ok());
  REQUIRE_MESSAGE(moved->success(), moved->err);
  path = json::parse(moved->out)["search_path"];
  CHECK(std::find(path.begin(), path.end(), source) == path.end());
  // What it searches ends in the installed data directory, where that exists.
  if (std::filesystem::is_directory(TUNER_DATA_PROFILES)) CHECK(path.back() == TUNER_DATA_PROFILES);
}
