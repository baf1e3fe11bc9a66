// The nesting limit: hostile depth is refused with a location before toml++ recurses;
// real profiles, strings and comments that merely look deep are not.
#include <dirent.h>

#include <string>

#include <doctest/doctest.h>

#include "base/fd_io.h"
#include "tuner/profile/parse.h"
#include "tuner/profile/toml_nesting.h"

using namespace tuner;

namespace {

std::string repeat(std::string_view s, int n, std::string_view sep = "") {
  std::string out;
  for (int i = 0; i < n; ++i) out += std::string(i ? sep : "") + std::string(s);
  return out;
}

std::string where_of(std::string_view text) {
  Status s = check_toml_nesting(text, "p.toml");
  return s.ok() ? "ok" : s.error().where;
}

}  // namespace

TEST_CASE("toml nesting: a dotted header or key tens of thousands deep is refused, located") {
  // Each of these overflowed the stack inside toml++ (SIGSEGV) before the scan.
  std::string header = "[profile]\nname = \"p\"\n[" + repeat("a", 50000, ".") + "]\n";
  std::string key = "[profile]\nname = \"p\"\n" + repeat("a", 50000, ".") + " = 1\n";
  std::string tables = "[[" + repeat("a", 50000, ".") + "]]\n";
  // The 33rd level crosses the limit: the header's 32nd dot, at column 65 of line 3.
  CHECK(where_of(header) == "p.toml:3:65");
  CHECK(where_of(key) == "p.toml:3:62");  // under [profile]: 31 dots make 33 levels
  CHECK(where_of(tables) == "p.toml:1:66");
  auto r = parse_profile_file(header, "p.toml");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().is(ErrorKind::invalid));
  CHECK(r.error().message() == "p.toml:3:65: tables, keys and values nest deeper than 32 levels");
}

TEST_CASE("toml nesting: depth adds up over header, key and brackets") {
  // 16 header segments + 16 key segments = 32: at the limit, fine.
  std::string at_limit = "[" + repeat("a", 16, ".") + "]\n" + repeat("b", 16, ".") + " = 1\n";
  CHECK(where_of(at_limit) == "ok");
  CHECK(where_of(at_limit + "[" + repeat("a", 16, ".") + "]\n" + repeat("b", 17, ".") + " = 1\n") !=
        "ok");
  // Inline tables and arrays in values count; the header's depth carries into them.
  CHECK(where_of("x = " + repeat("[", 31) + repeat("]", 31) + "\n") == "ok");
  CHECK(where_of("x = " + repeat("[", 32) + repeat("]", 32) + "\n") == "p.toml:1:36");
  CHECK(where_of("[a.b]\nx = " + repeat("{ y = ", 30) + "1" + repeat(" }", 30)) != "ok");
  CHECK(where_of("[a.b]\nx = " + repeat("{ y = ", 29) + "1" + repeat(" }", 29)) == "ok");
  // An inline table's own dotted keys count from the table's depth.
  CHECK(where_of("x = { " + repeat("k", 31, ".") + " = 1 }") == "ok");
  CHECK(where_of("x = { " + repeat("k", 32, ".") + " = 1 }") != "ok");
  // Brackets that close bring the depth back down: many shallow arrays are fine.
  CHECK(where_of("x = [" + repeat("[[1]]", 1000, ", ") + "]\n") == "ok");
}

TEST_CASE("toml nesting: dots and brackets in strings, comments and numbers count nothing") {
  std::string dots = repeat("a", 100, ".");
  CHECK(where_of("[sysctl]\n\"" + dots + "\" = 1\n") == "ok");
  CHECK(where_of("[irq.'" + dots + "']\npolicy = \"x\"\n") == "ok");
  CHECK(where_of("# [" + dots + "]\n") == "ok");
  CHECK(where_of("x = \"" + repeat("[", 100) + "\"\n") == "ok");
  CHECK(where_of("x = '''\n" + repeat("[", 100) + "\n" + dots + "\n'''\n") == "ok");
  CHECK(where_of("x = \"\"\"\n\\\"\"\" " + repeat("[", 100) + "\"\"\"\n") == "ok");
  CHECK(where_of("x = \"\\\"" + repeat("{", 100) + "\"\n") == "ok");
  CHECK(where_of("x = [" + repeat("1.5", 200, ", ") + "]\n") == "ok");
  CHECK(where_of("\"k\" = [" + repeat("1.5", 200, ", ") + "]\n") == "ok");
  CHECK(where_of("x = 1979-05-27T07:32:00.999999Z\n") == "ok");
  // A multi-line string then a deep key: the scan is back in step after it.
  CHECK(where_of("x = \"\"\"a\"\"\"\"\n" + repeat("a", 40, ".") + " = 1\n") == "p.toml:2:64");
}

// fuzz/corpus/profile/crash-non-ascii-bare-key, found by fuzz_profile: "[mm]\nt\uFEFC= fadse"
// reached __builtin_unreachable in Debian's toml++ 3.3 (is_non_ascii_horizontal_whitespace),
// as do most non-ASCII characters where TOML allows none. The scan refuses them first.
TEST_CASE("toml nesting: non-ASCII outside strings and comments is refused before toml++") {
  CHECK(where_of("[mm]\nt\xEF\xBB\xBC= fadse\n") == "p.toml:2:2");
  CHECK(where_of("[mm]\nt\xC3\xBC = 1\n") == "p.toml:2:2");
  CHECK(where_of("a = 1 \xC3\xA9\n") == "p.toml:1:7");
  CHECK(where_of("[m\xC3\xBC]\n") == "p.toml:1:3");
  auto r = parse_profile_file("[mm]\nthp\xC3\xBC = 1\n", "p.toml");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message().find("non-ASCII") != std::string::npos);
  // fuzz/corpus/profile/crash-non-ascii-in-bare-value: toml++ reads a bare value up to
  // whitespace, quotes and all, so this U+0485 is outside any string for it.
  CHECK(where_of("dd = 2z[nic.\"ethro.co1re\xD2\x85mem_max\"000\n") == "p.toml:1:25");
  CHECK(where_of("a = tru\"\xC3\xA9\"\n") == "p.toml:1:9");
  CHECK(where_of("a = [1, 2] # \xC3\xA9\nb = { c = 1, d = \"\xC3\xA9\" }\nd = 1979-05-27\n") ==
        "ok");
  // fuzz/corpus/profile/crash-non-ascii-after-line-ending-backslash: toml++ tests the
  // first character after a line-ending backslash for whitespace.
  CHECK(where_of("a = \"\"\"x\\\n  \xEF\xBB\xA2y\"\"\"\n") == "p.toml:2:3");
  // fuzz/corpus/profile/crash-non-ascii-after-backslash: after any backslash, as toml++
  // tests the escape character for the whitespace a line-ending backslash may have.
  CHECK(where_of("\"\"\"[tt\\\\\\\xEF\xB7\xBF\\\\$\\\xEF\xBF\xBF\n") == "p.toml:1:10");
  CHECK(where_of("a = \"\\\xC3\xA9\"\n") == "p.toml:1:7");
  CHECK(where_of("a = \"\"\"x\\\n  y\xC3\xA9\"\"\"\nb = \"\\u00e9\"\n") == "ok");
  // Where TOML allows them: strings, quoted keys, comments; and a leading byte order mark.
  CHECK(where_of("# caf\xC3\xA9\n[mm]\nthp = \"n\xC3\xA9ver\" # \xC3\xBC\n") == "ok");
  CHECK(where_of("[sysctl]\n\"net.\xC3\xA9\" = 1\n'\xC3\xBC' = '\xC3\xBC'\n") == "ok");
  CHECK(where_of("\xEF\xBB\xBF[mm]\nthp = \"never\"\n") == "ok");
  CHECK(where_of("x = \"\"\"\n\xC3\xA9\n\"\"\"\n") == "ok");
}

TEST_CASE("toml nesting: every shipped profile passes") {
  std::string dir = TUNER_SOURCE_PROFILES;
  DIR* d = ::opendir(dir.c_str());
  REQUIRE(d);
  int seen = 0;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (!name.ends_with(".toml")) continue;
    auto text = read_file(dir + "/" + name);
    REQUIRE(text.ok());
    INFO(name);
    CHECK(where_of(*text) == "ok");
    ++seen;
  }
  ::closedir(d);
  CHECK(seen > 3);
}
