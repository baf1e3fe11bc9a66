// read_topology_xml: what hwloc is handed has been read bounded, is not empty, and does
// not nest deep enough to overflow hwloc's recursive importer.
#include "probes/topology_xml.h"

#include <sys/stat.h>

#include <string>

#include <doctest/doctest.h>

#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

using namespace tuner;

namespace {

std::string nested(int depth, const std::string& inner = "") {
  std::string s;
  for (int i = 0; i < depth; ++i) s += "<o a=\"1\">";
  s += inner;
  for (int i = 0; i < depth; ++i) s += "</o>";
  return s;
}

std::string where(const std::string& text) {
  Status s = check_xml_nesting(text, "t.xml");
  return s.ok() ? "ok" : s.error().where;
}

}  // namespace

TEST_CASE("topology xml: every fixture export reads and passes") {
  for (const std::string& xml : testing::fixture_files("topologies", ".xml")) {
    INFO(xml);
    auto text = read_topology_xml(xml);
    CHECK_MESSAGE(text.ok(), (text.ok() ? "" : text.error().message()));
  }
}

TEST_CASE("topology xml: nesting is counted on elements only") {
  CHECK(where(nested(kMaxXmlNesting)) == "ok");
  // The 257th opening tag, 9 characters each, crosses the limit.
  CHECK(where(nested(kMaxXmlNesting + 1)) == "t.xml:1:" + std::to_string(256 * 9 + 1));
  CHECK(where("<?xml version=\"1.0\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n" +
              nested(300)) == "t.xml:3:" + std::to_string(256 * 9 + 1));
  // Self-closing tags, closing tags, comments, CDATA and quoted '>' and '/>' count nothing.
  std::string flat;
  for (int i = 0; i < 1000; ++i)
    flat += "<info name=\"a/>b\" value='>'/><!-- <o> --><![CDATA[<o>]]>";
  CHECK(where("<topology>" + flat + "</topology>") == "ok");
  CHECK(where(nested(200, flat)) == "ok");
  CHECK(where(nested(200) + nested(200)) == "ok");  // siblings, not nested
}

TEST_CASE("topology xml: empty files and special files are refused before hwloc") {
  testing::TempDir tmp;
  auto empty = read_topology_xml(tmp.write("e.xml", ""));
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().message() == tmp / "e.xml: empty file: not a hwloc XML export");
  REQUIRE(::mkfifo((tmp / "f.xml").c_str(), 0600) == 0);
  auto fifo = read_topology_xml(tmp / "f.xml");
  REQUIRE_FALSE(fifo.ok());
  CHECK(fifo.error().message() ==
        tmp / "f.xml: cannot read topology XML: not a regular file (a FIFO)");
  auto deep = read_topology_xml(tmp.write("d.xml", nested(100000)));
  REQUIRE_FALSE(deep.ok());
  CHECK(deep.error().where == tmp / "d.xml:1:2305");
}
