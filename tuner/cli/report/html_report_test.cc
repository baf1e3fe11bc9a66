// tuner report --html: the page of run reports as the loop writes them (the journaled
// outcomes of tests/fixtures/outcome, with the per-trial values of this version): a
// plot per arm, effects against min_effect, guards, bisect steps; every string of a
// report escaped, no script, nothing fetched; older reports without values still show.
#include "tuner/cli/report/html_report.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <regex>
#include <set>

#include "tests/support/files.h"
#include "tests/support/temp_dir.h"
#include "tests/support/text.h"
#include "tuner/cli/report/html_svg.h"

using namespace tuner;
using nlohmann::json;

namespace {

json fixture(const std::string& name) {
  return json::parse(testing::read_test_data("outcome/" + name));
}

/// gain.json as this version writes it: 10 + 10 trials in a randomised order, their values.
json with_trials(json stats) {
  std::string order = "ABBAABBABAABABBABAAB";
  json values = json::array();
  for (std::size_t i = 0; i < order.size(); ++i)
    values.push_back((order[i] == 'A' ? 1000.0 : 1080.0) + static_cast<double>(i % 7));
  stats["order"] = order;
  stats["seed"] = 77;
  stats["washes"] = 3u;
  stats["values"] = values;
  stats["direction"] = "higher";
  stats["min_effect"] = 0.02;
  stats["power_effect"] = 0.05;
  return stats;
}

json run_doc(const std::string& group, json stats, const std::string& decision = "kept") {
  return {
      {"schema", "tuner.run/1"},
      {"run_id", "20270101T000000Z-1"},
      {"time", "2027-01-01T00:00:00Z"},
      {"changed", true},
      {"profiles", {"t"}},
      {"groups",
       {{{"name", group}, {"decision", decision}, {"stats", stats}, {"changes", json::array()}}}},
      {"errors", json::array()},
      {"warnings", json::array()}};
}

HtmlRun run_of(const json& doc, const std::string& node) {
  auto r = html_run_from_json(doc, node);
  REQUIRE_MESSAGE(r.ok(), r.error().message());
  return *r;
}

}  // namespace

TEST_CASE("html report: each arm's trials are drawn in the order run, effects against min_effect") {
  std::string page =
      html_report({run_of(run_doc("net", with_trials(fixture("gain.json"))), "node1")});
  INFO(page.substr(0, 4000));
  CHECK(page.starts_with("<!DOCTYPE html>"));
  CHECK(page.find("<table class=\"summary\"") != std::string::npos);
  CHECK(page.find("href=\"#g0-n0\">kept</a>") != std::string::npos);
  CHECK(testing::occurrences(page, "<svg class=\"trials\"") == 1);
  CHECK(page.find("data-trials=\"20\"") != std::string::npos);
  CHECK(page.find("data-arm=\"baseline\" data-count=\"10\"") != std::string::npos);
  CHECK(page.find("data-arm=\"candidate\" data-count=\"10\"") != std::string::npos);
  // Trial 0 ran A (1000), trial 1 B (1081): in that order, with their values.
  CHECK(page.find("<circle cx=\"68.0\" cy=") != std::string::npos);
  CHECK(page.find("data-i=\"0\" data-value=\"1000\"") != std::string::npos);
  CHECK(page.find("data-i=\"1\" data-value=\"1081\"") != std::string::npos);
  CHECK(testing::occurrences(page, "<circle cx=") == 1 + 10);         // the legend's, A's marks
  CHECK(testing::occurrences(page, "<circle class=\"point\"") == 1);  // the effect
  CHECK(testing::occurrences(page, "<rect x=") == 1 + 10);            // the legend's, B's marks
  CHECK(page.find("<svg class=\"effects\"") != std::string::npos);
  CHECK(page.find("class=\"min-effect\"") != std::string::npos);
  CHECK(page.find("data-effect=\"0.0816532\"") != std::string::npos);
  CHECK(page.find("higher is better") != std::string::npos);
  CHECK(page.find("<table class=\"guards\"") != std::string::npos);
  // Nothing to run, nothing to fetch.
  CHECK(page.find("<script") == std::string::npos);
  CHECK(page.find("http://") == page.find("http://www.w3.org/2000/svg"));
  CHECK(page.find("https://") == std::string::npos);
  CHECK(page.find("Content-Security-Policy\" content=\"default-src 'none'") != std::string::npos);
}

TEST_CASE("html report: bisect steps, watches and tripped guards, and reports before values") {
  json bisect = fixture("bisect.json");
  bisect["bisect"]["steps"][0] = with_trials(bisect["bisect"]["steps"][0]);
  std::vector<HtmlRun> runs = {
      run_of(run_doc("b", bisect), "n1"),
      run_of(run_doc("w", fixture("watch_guard.json"), "rolled_back"), "n2"),
      run_of(run_doc("b", fixture("v1_gain.json")), "n3")};
  std::string page = html_report(runs);
  CHECK(testing::occurrences(page, "<section class=\"group\"") == 2);
  CHECK(testing::occurrences(page, "<figure class=\"card") == 3);
  CHECK(testing::occurrences(page, "<li class=\"step\"") ==
        bisect["bisect"]["steps"].size() + 1);  // + rest
  CHECK(page.find("data-outcome=\"no_harm\"") != std::string::npos);
  CHECK(page.find("hurts: <code>sysctl:c</code>") != std::string::npos);
  CHECK(testing::occurrences(page, "<svg class=\"trials\"") == 1);  // only the step that has values
  CHECK(page.find("watch ") != std::string::npos);
  CHECK(page.find("<g class=\"effect bad\"") != std::string::npos);  // the tripped watch
  CHECK(page.find("guard tripped: benchmark lat") != std::string::npos);
  CHECK(testing::occurrences(page, "no per-trial values") == 3);  // whole groups of n1, n2, n3
  CHECK(page.find("td class=\"none\"") != std::string::npos);     // n2 has no group b
  CHECK(page.find("nan") == std::string::npos);  // no min_effect in older reports: no line
}

TEST_CASE("html report: hostile names and errors are text, never markup") {
  const std::string evil = "<script>alert(1)</script>\"' onload=x \xff\xfe </svg>\x1b[2J";
  json stats = with_trials(fixture("gain.json"));
  stats["bench"] = evil;
  stats["unit"] = evil;
  stats["error"] = evil;
  stats["guards"][0]["interface"] = evil;
  stats["guards"][0]["tripped"] = true;
  stats["guards"][0]["text"] = evil;
  json doc = run_doc(evil, stats);
  doc["errors"] = {{{"message", evil}}};
  std::string page = html_report({run_of(doc, evil), run_of(doc, "second \"node\"")});
  CHECK(page.find("<script") == std::string::npos);
  CHECK(page.find("</script") == std::string::npos);
  CHECK(page.find("\" onload") == std::string::npos);
  CHECK(page.find("' onload") == std::string::npos);
  CHECK(page.find("</svg>\\x1b") == std::string::npos);
  CHECK(page.find("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39; onload=x") !=
        std::string::npos);
  CHECK(page.find("\\xff\\xfe") != std::string::npos);  // bytes that are not UTF-8, shown
  CHECK(page.find('\x1b') == std::string::npos);
  CHECK(page.find("<tr class=\"guard tripped\"") != std::string::npos);
  CHECK(page.find("data-node=\"second &quot;node&quot;\"") != std::string::npos);
  // Every tag in the page is one the renderer writes.
  std::regex tag("<([a-zA-Z][a-zA-Z0-9]*)");
  const std::set<std::string> known = {
      "html",  "head", "meta",  "title",  "style",   "body",   "h1",         "h2",
      "h4",    "p",    "table", "tr",     "th",      "td",     "a",          "br",
      "small", "b",    "span",  "div",    "section", "figure", "figcaption", "svg",
      "path",  "text", "g",     "circle", "rect",    "code",   "ol",         "li"};
  for (auto it = std::sregex_iterator(page.begin(), page.end(), tag); it != std::sregex_iterator();
       ++it)
    CHECK_MESSAGE(known.count((*it)[1].str()), (*it)[1].str());
  CHECK(html_text("a&b<c>\"'") == "a&amp;b&lt;c&gt;&quot;&#39;");
}

TEST_CASE("html report: damaged stats show why; other documents are refused") {
  json stats = with_trials(fixture("gain.json"));
  stats["values"].push_back(1.0);  // one more value than trials in the order
  HtmlRun r = run_of(run_doc("g", stats), "n");
  REQUIRE(r.groups.size() == 1);
  CHECK_FALSE(r.groups[0].outcome);
  CHECK(r.groups[0].problem.find("stats.values") != std::string::npos);
  CHECK(html_report({r}).find("could not be read") != std::string::npos);
  CHECK_FALSE(html_run_from_json(json{{"schema", "tuner.probe/1"}}, "n").ok());
  CHECK_FALSE(html_run_from_json(json::array(), "n").ok());
  HtmlRun failed =
      run_of(json{{"schema", "tuner.failure/1"}, {"node", "n"}, {"rc", 1}, {"msg", "boom"}}, "n");
  CHECK(failed.failed);
  CHECK(html_report({failed}).find("<b>failed</b>") != std::string::npos);
}

TEST_CASE("html report: an infinite interval runs to the edge; no look yet says so") {
  std::string svg = effects_svg({{"inf", 0.05, -std::numeric_limits<double>::infinity(), 0.1, ""},
                                 {"none", std::nan(""), std::nan(""), std::nan(""), ""}},
                                0.01, 0.05);
  CHECK(testing::occurrences(svg, "class=\"arrow\"") == 1);
  CHECK(svg.find("no look yet") != std::string::npos);
  CHECK(svg.find("data-ci-low=\"null\"") != std::string::npos);
  CHECK(svg.find("nan") == std::string::npos);
  CHECK(svg.find("inf") == svg.find("inf:"));  // only the label, never a number
  // A crippled baseline made good: +3000%, next to a 5% min_effect; still a few ticks.
  std::string wide = effects_svg({{"group", 30.0, 25.0, 38.0, "good"}}, 0.05, 0.1);
  CHECK(testing::occurrences(wide, "class=\"grid\"") >= 4);
  CHECK(testing::occurrences(wide, "class=\"grid\"") <= 12);
  CHECK(wide.find(">3000%<") != std::string::npos);
}

TEST_CASE("html report: --html writes the page of the documents the summary counts") {
  testing::TempDir dir;
  std::string a = dir.path + "/a.run.json", b = dir.path + "/b.run.json";
  testing::write_file(a, run_doc("net", with_trials(fixture("gain.json"))).dump());
  testing::write_file(b, run_doc("net", fixture("gain.json"), "rolled_back").dump());
  std::vector<NodeReport> docs;
  for (const std::string& f : {a, b}) {
    auto r = read_node_report(json::parse(testing::read_text(f)), f);
    REQUIRE(r.ok());
    docs.push_back(*r);
  }
  FleetSummary s = summarize_fleet(docs);
  REQUIRE(write_html_report(dir.path + "/out.html", docs, s).ok());
  std::string page = testing::read_text(dir.path + "/out.html");
  CHECK(page.find("data-node=\"a\"") != std::string::npos);
  CHECK(page.find("data-node=\"b\"") != std::string::npos);
  CHECK(testing::occurrences(page, "<figure class=\"card") == 2);
  CHECK_FALSE(write_html_report(dir.path + "/no/such/dir/out.html", docs, s).ok());
}

namespace {

json change(const std::string& knob, const std::string& before, const std::string& after,
            const std::string& status, const std::string& error = "") {
  json c = {{"knob", knob}, {"before", before}, {"after", after}, {"status", status}};
  if (!error.empty()) c["error"] = error;
  return c;
}

/// `changes` as a list: a braced single json is a copy on one compiler and a one-element
/// array on another (nlohmann's brace initialisation), so the array is made here.
json group_of(const std::string& name, const std::string& decision, json stats,
              std::initializer_list<json> changes) {
  return {{"name", name},
          {"decision", decision},
          {"stats", stats},
          {"changes", json::array_t(changes)}};
}

/// One run of each story: kept, partly kept, rolled back by a guard (with the bound it
/// was tested against), put back by the run's failure, and a write the kernel refused.
json stories_doc() {
  json tripped = fixture("watch_guard.json");
  tripped["guards"][0] = {{"metric", "tcp_retrans_pct"},
                          {"baseline", 0.02},
                          {"candidate", 0.40},
                          {"tripped", true},
                          {"limit", 2.0},
                          {"bound", 0.24},
                          {"p", 0.001},
                          {"text", "tcp_retrans_pct: tripped"}};
  json doc = run_doc("net", with_trials(fixture("gain.json")));
  doc["profiles"] = {"base", "net-throughput"};
  doc["profile_digest"] = "fnv1a64:0123456789abcdef";
  doc["groups"] = {
      group_of("net", "kept", with_trials(fixture("gain.json")),
               {change("sysctl:net.ipv4.tcp_rmem", "4096 131072 6291456", "4096 131072 16777216",
                       "applied")}),
      group_of(
          "b", "kept", fixture("bisect.json"),
          {change("sysctl:a", "1", "2", "applied"), change("sysctl:c", "10", "20", "rolled_back")}),
      group_of("w", "rolled_back", tripped, {change("sysctl:w", "5", "6", "rolled_back")}),
      group_of("late", "rolled_back", fixture("gain.json"),
               {change("sysctl:late", "7", "8", "rolled_back")}),
      group_of("irq", "rolled_back", json::object(),
               {change("irq:eth0-rx-1:affinity", "0-3", "2", "skipped",
                       "irq 41: Input/output error (a managed IRQ)")})};
  doc["errors"] = {{{"message", "sysctl:next: Permission denied"}}};
  return doc;
}

}  // namespace

TEST_CASE("html report: each group names its settings, before -> after, and why in words") {
  std::string page = html_report({run_of(stories_doc(), "n1")});
  INFO(page);
  // The profile chain and its digest.
  CHECK(page.find("profile <code>net-throughput (parents: base), digest "
                  "fnv1a64:0123456789abcdef</code>") != std::string::npos);
  // Each setting with its values and what became of it.
  CHECK(page.find("<code>sysctl:net.ipv4.tcp_rmem</code></td><td>4096 131072 6291456</td><td>"
                  "4096 131072 16777216</td><td>applied</td>") != std::string::npos);
  CHECK(page.find("kept: the gain is proven") != std::string::npos);
  // Partly kept: the kept part and the rolled-back part, each with its own effect.
  CHECK(page.find("partly kept: kept sysctl:a 1 -&gt; 2, sysctl:b, sysctl:d (the rest: gain, "
                  "effect +") != std::string::npos);
  CHECK(page.find("; rolled back sysctl:c 10 -&gt; 20 (alone: harm, effect ") != std::string::npos);
  CHECK(page.find(">partly kept: kept 3 ") != std::string::npos);  // the summary cell
  CHECK(page.find("kept partly_kept") == std::string::npos);
  // A guard's rollback in words, and the bound it was tested against.
  CHECK(page.find("rolled back: a guard tripped") != std::string::npos);
  CHECK(page.find("0.02% -&gt; 0.40%, proven above 0.24% (the smaller of the baseline +2.00% "
                  "and 2 x the baseline + 0.20%; limit +2.00%)") != std::string::npos);
  // The run's failure put back a group its own test kept.
  CHECK(page.find("rolled back because the run failed (its own outcome: gain, the gain is "
                  "proven)") != std::string::npos);
  CHECK(page.find(">run failed, was gain<") != std::string::npos);
  // A refused write is refused, not unreadable.
  CHECK(page.find("unreadable") == std::string::npos);
  CHECK(page.find("the kernel refused irq:eth0-rx-1:affinity (irq 41: Input/output error (a "
                  "managed IRQ)): never changed") != std::string::npos);
  CHECK(page.find("<tr class=\"change refused\"") != std::string::npos);
  CHECK(page.find("refused by the kernel, never changed: irq 41") != std::string::npos);
}

TEST_CASE("html report: a report before profile_digest and guard bounds shows what it has") {
  json doc = stories_doc();
  doc.erase("profile_digest");
  doc["groups"][2]["stats"]["guards"][0].erase("bound");
  std::string page = html_report({run_of(doc, "n1")});
  CHECK(page.find("profile <code>net-throughput (parents: base)</code>") != std::string::npos);
  CHECK(page.find("0.02% -&gt; 0.40%, limit +2.00% over the baseline") != std::string::npos);
}
