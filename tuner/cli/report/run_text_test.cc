#include "tuner/cli/report/run_text.h"

#include <doctest/doctest.h>

#include "rollback/run_report.h"

using namespace tuner;

namespace {

/// A group's numbers as the report reads them from a tuner.run/1 document.
std::string group_text(const std::string& stats) {
  auto o = verify::outcome_from_json(nlohmann::json::parse(stats));
  REQUIRE_MESSAGE(o.ok(), o.error().message());
  return format_group_stats(*o, Term(ColorMode::never, 1));
}

}  // namespace

TEST_CASE("run text: a bisected group shows what hurt, each step, and the rest") {
  // The shape VerifyLoop journals (tuner/verify/loop_test.cc checks it there).
  std::string text = group_text(R"({
    "bench": "tcp", "unit": "bit/s", "baseline": 1e9, "candidate": 8e8, "effect": -0.2,
    "ci": [-0.25, -0.15], "p": 1, "trials": {"baseline": 5, "candidate": 5},
    "outcome": "partly_kept",
    "bisect": {"complete": true, "culprit": ["sysctl:net.ipv4.ip_default_ttl"],
      "note": "kept without sysctl:net.ipv4.ip_default_ttl",
      "steps": [{"knobs": ["sysctl:net.ipv4.ip_default_ttl"], "outcome": "guard",
                 "effect": 0.5, "ci": [0.4, 0.6]}],
      "rest": {"knobs": ["sysctl:net.ipv4.tcp_rmem", "sysctl:net.ipv4.tcp_wmem"],
               "outcome": "gain", "effect": 40, "ci": [38, 45]}}})");
  INFO(text);
  CHECK(text.find("bisect: hurts: sysctl:net.ipv4.ip_default_ttl; kept without "
                  "sysctl:net.ipv4.ip_default_ttl\n") != std::string::npos);
  CHECK(text.find("      alone sysctl:net.ipv4.ip_default_ttl: guard, effect +50.0% [+40.0%, "
                  "+60.0%]\n") != std::string::npos);
  CHECK(text.find("      the rest sysctl:net.ipv4.tcp_rmem, sysctl:net.ipv4.tcp_wmem: gain, "
                  "effect +4000.0% [+3800.0%, +4500.0%]\n") != std::string::npos);
}

TEST_CASE("run text: a soaked group's bisect shows each part's soak, not an effect") {
  std::string text = group_text(R"({
    "reason": "no benchmark on this node can measure this group", "outcome": "partly_kept",
    "soak": {"window_s": 30, "decision": "tripped"},
    "bisect": {"complete": true, "culprit": ["irq:eth0-rx-1:affinity"],
      "note": "kept without irq:eth0-rx-1:affinity",
      "steps": [{"knobs": ["irq:eth0-rx-1:affinity"], "outcome": "guard",
                 "soak": {"window_s": 30, "decision": "tripped"}}],
      "rest": {"knobs": ["sysctl:net.core.netdev_budget"], "outcome": "not_measurable_kept",
               "soak": {"window_s": 30, "decision": "passed"}}}})");
  INFO(text);
  CHECK(text.find("      alone irq:eth0-rx-1:affinity: guard, soak tripped\n") !=
        std::string::npos);
  CHECK(text.find("      the rest sysctl:net.core.netdev_budget: not_measurable_kept, soak "
                  "passed\n") != std::string::npos);
  CHECK(text.find("effect") == std::string::npos);
}

TEST_CASE("run text: a bisect stopped early says why, with no culprit") {
  CHECK(group_text(R"({"outcome": "no_gain",
    "bisect": {"complete": false, "note": "bisect stopped: budget", "steps": []}})") ==
        "    bisect: bisect stopped: budget\n");
}

TEST_CASE("run text: a watching benchmark's harm is shown once, on its own line") {
  std::string text = group_text(R"({
    "bench": "tcp", "unit": "bit/s", "baseline": 1e9, "candidate": 1.2e9, "effect": 0.2,
    "ci": [0.15, 0.25], "p": 0.004, "trials": {"baseline": 5, "candidate": 5},
    "outcome": "guard", "error": "guard tripped: benchmark lat: effect -30.0% [-35.0%, -25.0%]",
    "guards": [{"metric": "tcp_retrans_pct", "baseline": 0, "candidate": 0, "tripped": false}],
    "watches": [{"bench": "lat", "unit": "us", "baseline": 100, "candidate": 130,
                 "effect": -0.3, "ci": [-0.35, -0.25], "tripped": true}]})");
  INFO(text);
  CHECK(text.find("    watch lat: baseline 100 -> candidate 130 us, effect -30.0% [-35.0%, -25.0%] "
                  "harm\n") != std::string::npos);
  CHECK(text.find("guard tripped") == std::string::npos);
}

TEST_CASE("run text: a group without numbers shows none; damaged numbers are said, not fatal") {
  RunReport r;
  r.run_id = "20261201T000000Z-abcd";
  r.groups = {{"vm", GroupDecision::applied, {}, nlohmann::json::object()},
              {"net",
               GroupDecision::rolled_back,
               {},
               {{"outcome", "harm"}, {"bench", "tcp"}, {"effect", "12%"}}}};
  std::string text = format_run_report(r, Term(ColorMode::never, 1));
  INFO(text);
  CHECK(text.find("  group vm (applied)\n") != std::string::npos);
  CHECK(text.find(
            "  group net (rolled_back)\n    numbers unreadable: stats.effect: not a number\n") !=
        std::string::npos);
}

TEST_CASE("run text: the seed, the noise pre-check, a watch not shown non-inferior, the soak") {
  std::string text = group_text(R"({
    "bench": "tcp", "unit": "bit/s", "baseline": 1e9, "candidate": 1.1e9, "effect": 0.1,
    "ci": [0.05, 0.15], "p": 0.001, "trials": {"baseline": 40, "candidate": 40},
    "seed": 4242, "order": "ABBA", "washes": 1, "power_at_max": 0.3, "trials_needed": 160,
    "units": 40, "outlier_units": 3, "outcome": "guard",
    "watches": [{"bench": "lat", "unit": "us", "baseline": 10, "candidate": 10.2,
                 "effect": -0.02, "ci": [-0.05, 0.01], "tripped": true, "margin": 0.02,
                 "non_inferior": false}]})");
  INFO(text);
  CHECK(text.find("trials 40+40, seed 4242\n") != std::string::npos);
  CHECK(text.find("3 of 40 units left out of the test as outliers\n") != std::string::npos);
  CHECK(text.find("noisy: about 160 trials per arm would find a gain of power_effect (30% "
                  "chance by max_trials)") != std::string::npos);
  CHECK(text.find("watch lat: baseline 10 -> candidate 10.2 us, effect -2.0% [-5.0%, +1.0%] a "
                  "loss of 2.0% not ruled out") != std::string::npos);
  std::string soaked = group_text(R"({"outcome": "guard", "reason": "no benchmark",
    "error": "guard tripped: tcp_retrans_pct: 0.01% -> 1.20%",
    "soak": {"window_s": 30, "decision": "tripped", "note": 7}})");
  INFO(soaked);
  CHECK(soaked.find("soak: guards 30s before and after the write: tripped\n") != std::string::npos);
  CHECK(soaked.find("      ?\n") != std::string::npos);  // a note of the wrong type
  CHECK(soaked.find("guard tripped: tcp_retrans_pct: 0.01% -> 1.20%\n") != std::string::npos);
}

TEST_CASE("run text and JSON: the knobs' notes, each once, after the groups") {
  RunReport r;
  r.run_id = "20261205T000000Z-1";
  r.notes = {{"numa:unit:trainer.service: takes effect when trainer.service next starts",
              "numa:unit:trainer.service", ""}};
  std::string text = format_run_report(r, Term(ColorMode::never, 1));
  INFO(text);
  CHECK(text.find("note: numa:unit:trainer.service: takes effect when trainer.service next "
                  "starts\n") != std::string::npos);
  nlohmann::json j = run_report_json(r);
  REQUIRE(j["notes"].size() == 1);
  CHECK(j["notes"][0]["knob"] == "numa:unit:trainer.service");
  CHECK(j["notes"][0]["message"].get<std::string>().ends_with("next starts"));
  CHECK_FALSE(j["notes"][0].contains("where"));
  CHECK(run_report_json(RunReport{})["notes"] == nlohmann::json::array());
}

TEST_CASE("run text: a soak with no workload traffic reads undecided") {
  std::string text = group_text(R"j({
    "reason": "the guard soak saw no workload traffic: undecided, not shown harmless",
    "outcome": "soak_undecided",
    "soak": {"window_s": 30, "decision": "no_traffic", "traffic": false,
             "note": "no traffic on eth0 during the soak: undecided, nothing judged"}})j");
  INFO(text);
  CHECK(text.find("    soak: guards 30s before and after the write: no traffic: undecided\n") !=
        std::string::npos);
  CHECK(text.find("not shown harmless") != std::string::npos);
  CHECK(text.find("passed") == std::string::npos);
}

TEST_CASE("run text: a neutral keep stopped at its share of the budget says so") {
  std::string capped = R"({
    "bench": "tcp", "unit": "bit/s", "baseline": 1e9, "candidate": 1e9, "effect": 0,
    "ci": [-0.01, 0.01], "p": 0.5, "trials": {"baseline": 12, "candidate": 12},
    "outcome": "neutral_kept", "time_cap": {"seconds": 150, "reached": true}})";
  CHECK(group_text(capped).find("    trials stopped at its share of the budget (150 s): kept "
                                "unless harmed, and no harm was proven in them\n") !=
        std::string::npos);
  std::string within = capped;
  within.replace(within.find("true"), 4, "false");
  CHECK(group_text(within).find("share of the budget") == std::string::npos);
}

TEST_CASE("run text: the retransmit guard's source and note, also when it passed") {
  std::string text = group_text(R"({
    "bench": "tcp", "unit": "bit/s", "baseline": 1e9, "candidate": 1.2e9, "effect": 0.2,
    "ci": [0.15, 0.25], "p": 0.004, "trials": {"baseline": 10, "candidate": 10},
    "outcome": "gain",
    "guards": [{"metric": "tcp_retrans_pct", "source": "benchmark_connections",
                "baseline": 0.01, "candidate": 0.02, "tripped": false, "dispersion": 1,
                "note": "too little node TCP traffic to judge: 300 and 200 segments, 1000 needed per arm; the benchmark's own connections judged instead"},
               {"metric": "nic_drops", "interface": "eth0", "baseline": 0, "candidate": 0,
                "tripped": false}]})");
  INFO(text);
  CHECK(text.find("    guard tcp_retrans_pct on benchmark_connections: 0.01% -> 0.02% (too "
                  "little node TCP traffic to judge: 300 and 200 segments, 1000 needed per arm; "
                  "the benchmark's own connections judged instead)\n") != std::string::npos);
  CHECK(text.find("nic_drops") == std::string::npos);  // only the tcp row's source is shown
  // An older document without a source: no line.
  std::string old = group_text(R"({"bench": "tcp", "unit": "bit/s", "outcome": "gain",
    "guards": [{"metric": "tcp_retrans_pct", "baseline": 0, "candidate": 0, "tripped": false}]})");
  CHECK(old.find("guard tcp_retrans_pct") == std::string::npos);
}

TEST_CASE("run text: a link's expected carrier changes after writes are shown, not counted") {
  std::string stats = R"({
    "bench": "tcp", "unit": "bit/s", "baseline": 1e9, "candidate": 1.1e9, "effect": 0.1,
    "ci": [0.08, 0.12], "p": 0.001, "trials": {"baseline": 10, "candidate": 10},
    "outcome": "gain",
    "guards": [{"metric": "link_flaps", "interface": "eth0", "baseline": 0, "candidate": 0,
                "counts": {"baseline": {"events": 0, "exposure": 10},
                           "candidate": {"events": 0, "exposure": 10}},
                "expected": {"baseline": 44, "candidate": 48}, "tripped": false}]})";
  std::string text = group_text(stats);
  INFO(text);
  CHECK(text.find("    link_flaps eth0: 44 and 48 carrier changes in the settle windows after "
                  "writes (baseline, candidate): expected, not counted\n") != std::string::npos);
  // Read back and written again: the same row.
  auto o = verify::outcome_from_json(nlohmann::json::parse(stats));
  REQUIRE(o.ok());
  nlohmann::json again = verify::to_json(*o);
  CHECK(again["guards"][0]["expected"] == nlohmann::json{{"baseline", 44}, {"candidate", 48}});
  // None expected: no line.
  CHECK(group_text(R"({"outcome": "gain", "guards": [{"metric": "link_flaps", "interface":
    "eth0", "baseline": 0, "candidate": 0, "expected": {"baseline": 0, "candidate": 0},
    "tripped": false}]})")
            .find("carrier changes") == std::string::npos);
}

TEST_CASE("run text: an interference names its numbers and the processes, names escaped") {
  // The shape VerifyLoop journals (tuner/verify/loop_interference_test.cc checks it);
  // the burner named itself with a newline and an escape code.
  std::string text = group_text(R"({
    "bench": "tcp", "unit": "bit/s", "baseline": 1e9, "candidate": 1.5e9, "effect": 0.5,
    "ci": [0.4, 0.6], "p": 0.001, "trials": {"baseline": 5, "candidate": 5},
    "verdict": "keep", "outcome": "interference",
    "interference": {"flagged": true, "level": 0.01,
      "cpu": {"unit": "CPUs", "judged": true, "floor": 0.1, "baseline": 1.52,
              "candidate": 0.03, "p": 0.0079, "trials": {"baseline": 5, "candidate": 5},
              "proven": true},
      "demand": {"unit": "CPUs", "judged": true, "floor": 0.1, "baseline": 2.01,
              "candidate": 0.05, "p": 0.0079, "trials": {"baseline": 5, "candidate": 5},
              "proven": true},
      "traffic": {"unit": "bytes/s", "judged": true, "floor": 1e6, "baseline": 0,
                  "candidate": 0, "p": 1, "proven": false},
      "consumers": [{"pid": 2010, "comm": "x) 1 R\n\u001b[2J 9", "uid": 65534,
                     "kernel_thread": false, "baseline": 1.49, "candidate": 0.0},
                    {"pid": 14, "comm": "ksoftirqd/0", "uid": null, "kernel_thread": true,
                     "baseline": 0.02, "candidate": 0.01}],
      "text": "other CPU ..."},
    "error": "interference: other CPU ..."})");
  INFO(text);
  CHECK(text.find("    interference: other CPU use 1.52 -> 0.03 CPUs (medians per trial, "
                  "baseline -> candidate; p 0.0079, 0.1 CPU apart needed)\n") != std::string::npos);
  CHECK(text.find("      used or waited for: 2.01 -> 0.05 CPUs (p 0.0079)\n") != std::string::npos);
  CHECK(text.find("      pid 2010 x) 1 R\\n\\x1b[2J 9 (uid 65534): 1.49 -> 0.00 CPUs\n") !=
        std::string::npos);
  CHECK(text.find("      pid 14 ksoftirqd/0 (uid unknown, kernel thread): 0.02 -> 0.01 CPUs\n") !=
        std::string::npos);
  CHECK(text.find("other traffic") == std::string::npos);  // not proven: not shown
  CHECK(text.find("error") == std::string::npos);          // the lines above say it
  CHECK(text.find('\033') == std::string::npos);
  // A group whose load did not follow the arms shows none of it.
  CHECK(group_text(R"({"bench": "tcp", "outcome": "no_gain", "interference": {"flagged": false,
    "level": 0.01, "cpu": {"unit": "CPUs", "judged": true, "floor": 0.1}, "consumers": []}})")
            .find("interference") == std::string::npos);
}

TEST_CASE("run text: each group names its settings, before -> after, and why in words") {
  using nlohmann::json;
  RunReport r;
  r.run_id = "20270101T000000Z-abcd";
  r.profiles = {"base", "net-throughput"};
  r.profile_digest = "fnv1a64:0123456789abcdef";
  json gain = {{"outcome", "gain"},
               {"bench", "tcp"},
               {"unit", "bit/s"},
               {"baseline", 1e9},
               {"candidate", 1.2e9},
               {"effect", 0.2},
               {"ci", {0.15, 0.25}},
               {"p", 0.001},
               {"trials", {{"baseline", 10u}, {"candidate", 10u}}}};
  json partly = json::parse(R"({
    "bench": "tcp", "unit": "bit/s", "baseline": 1e9, "candidate": 5.53e8, "effect": -0.447,
    "ci": [-0.5, -0.4], "p": 1, "trials": {"baseline": 5, "candidate": 5},
    "outcome": "partly_kept",
    "bisect": {"complete": true, "culprit": ["sysctl:net.ipv4.ip_default_ttl"],
      "steps": [{"knobs": ["sysctl:net.ipv4.ip_default_ttl"], "outcome": "guard",
                 "effect": -0.6, "ci": [-0.7, -0.5]}],
      "rest": {"knobs": ["sysctl:net.ipv4.tcp_rmem"], "outcome": "gain", "effect": 0.4,
               "ci": [0.38, 0.45]}}})");
  json guard = gain;
  guard["outcome"] = "guard";
  guard["guards"] = {{{"metric", "tcp_retrans_pct"},
                      {"baseline", 0.02},
                      {"candidate", 0.40},
                      {"tripped", true},
                      {"limit", 2.0},
                      {"bound", 0.24},
                      {"text", "tcp_retrans_pct: 0.02% -> 0.40%, limit +2.00%"}}};
  r.groups = {{"net",
               GroupDecision::kept,
               {{"sysctl:net.ipv4.tcp_rmem", "4096 131072 6291456", "4096 131072 16777216",
                 ChangeStatus::applied, ""}},
               gain},
              {"ttl",
               GroupDecision::kept,
               {{"sysctl:net.ipv4.tcp_rmem", "4096 87380 6291456", "4096 87380 33554432",
                 ChangeStatus::applied, ""},
                {"sysctl:net.ipv4.ip_default_ttl", "64", "3", ChangeStatus::rolled_back, ""}},
               partly},
              {"guarded",
               GroupDecision::rolled_back,
               {{"sysctl:net.core.somaxconn", "4096", "8192", ChangeStatus::rolled_back, ""}},
               guard},
              {"late",
               GroupDecision::rolled_back,
               {{"sysctl:vm.swappiness", "60", "10", ChangeStatus::rolled_back, ""}},
               gain},
              {"irq",
               GroupDecision::rolled_back,
               {{"irq:eth0-rx-1:affinity", "0-3", "2", ChangeStatus::skipped,
                 "irq 41: Input/output error"}},
               json::object()}};
  r.errors = {{"sysctl:next: Permission denied", "sysctl:next", ""}};
  std::string text = format_run_report(r, Term(ColorMode::never, 1));
  INFO(text);
  CHECK(text.find("profile net-throughput (parents: base), digest fnv1a64:0123456789abcdef\n") !=
        std::string::npos);
  CHECK(text.find("  group net (kept: gain)\n    kept: the gain is proven\n") != std::string::npos);
  CHECK(text.find("    sysctl:net.ipv4.tcp_rmem: 4096 131072 6291456 -> 4096 131072 16777216  "
                  "applied\n") != std::string::npos);
  CHECK(text.find("    partly kept: kept sysctl:net.ipv4.tcp_rmem 4096 87380 6291456 -> 4096 87380 "
                  "33554432 (the rest: gain, effect +40.0% [+38.0%, +45.0%]); rolled back "
                  "sysctl:net.ipv4.ip_default_ttl 64 -> 3 (alone: guard, effect -60.0% [-70.0%, "
                  "-50.0%]); the whole group's effect was -44.7%\n") != std::string::npos);
  CHECK(text.find("    rolled back: a guard tripped, or a watching benchmark proved harm\n") !=
        std::string::npos);
  CHECK(text.find("      tested: 0.02% -> 0.40%, proven above 0.24% (the smaller of the baseline "
                  "+2.00% and 2 x the baseline + 0.20%; limit +2.00%)\n") != std::string::npos);
  CHECK(text.find("  group late (rolled_back: gain)\n    rolled back because the run failed (its "
                  "own outcome: gain, the gain is proven)\n") != std::string::npos);
  CHECK(text.find("; the kernel refused irq:eth0-rx-1:affinity (irq 41: Input/output error): "
                  "never changed\n") != std::string::npos);
  CHECK(text.find("skipped: refused by the kernel\n") != std::string::npos);
}
