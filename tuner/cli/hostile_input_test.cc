// Hostile text end to end through the binary: a profile nested to overflow the parser,
// bytes that are not UTF-8 where --json must stay JSON, and control characters that must
// reach the terminal escaped, never raw.
#include <filesystem>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "tests/support/cli.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

using nlohmann::json;
namespace fs = std::filesystem;
using tuner::testing::CliLimits;
using tuner::testing::CliRun;
using tuner::testing::run_tuner;
using tuner::testing::ScopedFixture;
using tuner::testing::shell_quote;
using tuner::testing::TempDir;

namespace {

const CliLimits kBounded{std::chrono::seconds(30), 2048};
const std::string kXml = std::string(TUNER_FIXTURES) + "/topologies/24em64t-2n6c2t-pci.xml";
// What a hostile string tries: set the window title, clear the screen, a C1 CSI.
const std::string kEscapes = "\x1b]0;pwned\x07\x1b[2J\xc2\x9b";
const std::string kEscapesShown = "\\x1b]0;pwned\\x07\\x1b[2J\\u009b";
// U+FFFD, what a byte that is not UTF-8 becomes in JSON.
const std::string kReplacement = "\xef\xbf\xbd";

/// No byte of a terminal control sequence: no ESC, BEL or C1 CSI.
bool has_controls(const std::string& s) {
  return s.find('\x1b') != std::string::npos || s.find('\x07') != std::string::npos ||
         s.find("\xc2\x9b") != std::string::npos;
}

/// Parses r.out as JSON, with the failure shown.
json parsed(const CliRun& r) {
  INFO("stderr: " << r.err);
  REQUIRE(r.code == 0);
  json j;
  REQUIRE_NOTHROW(j = json::parse(r.out));
  return j;
}

}  // namespace

TEST_CASE("hostile input: a profile nested 50,000 deep is exit 2 at file:line:col, no crash") {
  TempDir tmp;
  std::string dots;
  for (int i = 0; i < 50000; ++i) dots += i ? ".a" : "a";
  std::string header = tmp.write("header.toml", "[profile]\nname = \"header\"\n[" + dots + "]\n");
  std::string key = tmp.write("key.toml", "[profile]\nname = \"key\"\n" + dots + " = 1\n");
  CliRun h = run_tuner("plan --profile " + header + " --topology " + kXml, kBounded);
  CHECK(h.code == 2);
  CHECK(h.err ==
        "tuner: " + header + ":3:65: tables, keys and values nest deeper than 32 levels\n");
  CliRun k = run_tuner("plan --profile " + key + " --topology " + kXml, kBounded);
  CHECK(k.code == 2);
  CHECK(k.err == "tuner: " + key + ":3:62: tables, keys and values nest deeper than 32 levels\n");
  // profiles lists it as broken, with the same location, and goes on.
  CliRun list = run_tuner(
      "profiles --color never --profile-path " + tmp.path + " --topology " + kXml, kBounded);
  CHECK(list.code == 0);
  CHECK(list.out.find(header + ":3:65: tables, keys and values nest deeper") != std::string::npos);
}

TEST_CASE("hostile input: --json is valid JSON when names and text are not UTF-8") {
  SUBCASE("a capture's /proc/cpuinfo and interface name") {
    ScopedFixture fx("32intel64-2p8co2t+8ve.tar.bz2");
    std::string cpuinfo = tuner::testing::read_text(fx.root() + "/proc/cpuinfo");
    auto at = cpuinfo.find("model name\t: ");
    REQUIRE(at != std::string::npos);
    cpuinfo.insert(at + 13, "Bad\xff\xfe" + kEscapes + " ");
    tuner::testing::write_file(fx.root() + "/proc/cpuinfo", cpuinfo);
    fs::create_directories(fx.root() + "/sys/class/net/eth\xff" + kEscapes);
    json probe = parsed(run_tuner("probe --json --root " + fx.root(), kBounded));
    std::string model = probe["host"]["cpu_model"].get<std::string>();
    CHECK(model.find("Bad" + kReplacement + kReplacement + kEscapes) == 0);
    bool found = false;
    for (const json& n : probe["nics"])
      found |= n["name"].get<std::string>() == "eth" + kReplacement + kEscapes;
    CHECK(found);
    // The text report shows the same, escaped.
    CliRun text = run_tuner("probe --color never --root " + fx.root(), kBounded);
    CHECK(text.code == 0);
    CHECK_FALSE(has_controls(text.out));
    CHECK(text.out.find("Bad\\xff\\xfe" + kEscapesShown) != std::string::npos);
    // Warnings on stderr quote the root's path (missing /proc files).
    TempDir links;
    std::string odd = links / ("root" + kEscapes);
    fs::create_directory_symlink(fx.root(), odd);
    CliRun warned = run_tuner("probe --color never --root " + shell_quote(odd), kBounded);
    CHECK(warned.code == 0);
    CHECK(warned.err.find("warning: ") != std::string::npos);
    CHECK(warned.err.find("root" + kEscapesShown + "/proc/") != std::string::npos);
    CHECK_FALSE(has_controls(warned.err));
  }
  SUBCASE("a profile's file name, a plan's profile name") {
    TempDir tmp;
    std::string dir = tmp / "dir\xff";
    fs::create_directories(dir);
    std::string file = dir + "/p\xfe.toml";
    tuner::testing::write_file(file, "[sysctl]\n\"net.core.somaxconn\" = 4096\n");
    json plan = parsed(
        run_tuner("plan --json --topology " + kXml + " --profile " + shell_quote(file), kBounded));
    CHECK(plan["profiles"] == json({"p" + kReplacement}));
    json list = parsed(run_tuner(
        "profiles --json --topology " + kXml + " --profile-path " + shell_quote(dir), kBounded));
    CHECK(list["search_path"] == json({tmp.path + "/dir" + kReplacement}));
  }
}

TEST_CASE("hostile input: control characters reach the terminal escaped") {
  TempDir tmp;
  // TOML allows them as \u escapes in any string.
  tmp.write("p/evil.toml", "[profile]\nname = \"evil\"\n"
                           "description = \"nice \\u001b]0;pwned\\u0007\\u001b[2J\\u009b\"\n");
  for (const char* color : {"never", "always"}) {
    INFO("--color " << color);
    CliRun r = run_tuner(std::string("profiles --color ") + color + " --topology " + kXml +
                             " --profile-path " + tmp / "p",
                         kBounded);
    CHECK(r.code == 0);
    CHECK(r.out.find("nice " + kEscapesShown) != std::string::npos);
    CHECK(r.out.find("\x1b]") == std::string::npos);
    CHECK(r.out.find("\x1b[2J") == std::string::npos);
    CHECK(r.out.find('\x07') == std::string::npos);
  }
  // A plan's title is the profile's file name.
  std::string plan_profile =
      tmp.write("q/sys" + kEscapes + ".toml", "[sysctl]\n\"net.core.somaxconn\" = 4096\n");
  CliRun plan =
      run_tuner("plan --color never --topology " + kXml + " --profile " + shell_quote(plan_profile),
                kBounded);
  CHECK(plan.code == 0);
  CHECK_FALSE(has_controls(plan.out));
  CHECK(plan.out.find("plan: profile sys" + kEscapesShown) != std::string::npos);
  // Errors quote what was wrong: a key made of control characters.
  std::string bad = tmp.write("bad.toml", "[sysctl]\n\"\\u001b]0;pwned\\u0007\" = 1\n");
  CliRun err = run_tuner("plan --topology " + kXml + " --profile " + bad, kBounded);
  CHECK(err.code == 2);
  CHECK_FALSE(has_controls(err.err));
  CHECK(err.err.find("bad sysctl key '\\x1b]0;pwned\\x07'") != std::string::npos);
}
