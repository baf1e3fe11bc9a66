#include "tuner/cli/report/run_text.h"

#include <doctest/doctest.h>

using namespace tuner;

TEST_CASE("run text: a bisected group shows what hurt, each step, and the rest") {
  // The shape VerifyLoop journals (tuner/verify/loop_test.cc checks it there).
  auto stats = nlohmann::json::parse(R"({
    "bench": "tcp", "unit": "bit/s", "baseline": 1e9, "candidate": 8e8, "effect": -0.2,
    "ci": [-0.25, -0.15], "p": 1, "trials": {"baseline": 5, "candidate": 5},
    "outcome": "partly_kept",
    "bisect": {"complete": true, "culprit": ["sysctl:net.ipv4.ip_default_ttl"],
      "note": "kept without sysctl:net.ipv4.ip_default_ttl",
      "steps": [{"knobs": ["sysctl:net.ipv4.ip_default_ttl"], "outcome": "guard",
                 "effect": 0.5, "ci": [0.4, 0.6]}],
      "rest": {"knobs": ["sysctl:net.ipv4.tcp_rmem", "sysctl:net.ipv4.tcp_wmem"],
               "outcome": "gain", "effect": 40, "ci": [38, 45]}}})");
  Term term(ColorMode::never, 1);
  std::string text = format_group_stats(stats, term);
  INFO(text);
  CHECK(text.find("bisect: hurts: sysctl:net.ipv4.ip_default_ttl; kept without "
                  "sysctl:net.ipv4.ip_default_ttl\n") != std::string::npos);
  CHECK(text.find("      alone sysctl:net.ipv4.ip_default_ttl: guard, effect +50.0% [+40.0%, "
                  "+60.0%]\n") != std::string::npos);
  CHECK(text.find("      the rest sysctl:net.ipv4.tcp_rmem, sysctl:net.ipv4.tcp_wmem: gain, "
                  "effect +4000.0% [+3800.0%, +4500.0%]\n") != std::string::npos);
}

TEST_CASE("run text: a bisect stopped early says why, with no culprit") {
  auto stats = nlohmann::json::parse(
      R"({"bisect": {"complete": false, "note": "bisect stopped: budget", "steps": []}})");
  Term term(ColorMode::never, 1);
  CHECK(format_group_stats(stats, term) == "    bisect: bisect stopped: budget\n");
}

TEST_CASE("run text: a watching benchmark's harm is shown once, on its own line") {
  auto stats = nlohmann::json::parse(R"({
    "bench": "tcp", "unit": "bit/s", "baseline": 1e9, "candidate": 1.2e9, "effect": 0.2,
    "ci": [0.15, 0.25], "p": 0.004, "trials": {"baseline": 5, "candidate": 5},
    "outcome": "guard", "error": "guard tripped: benchmark lat: effect -30.0% [-35.0%, -25.0%]",
    "guards": [{"metric": "tcp_retrans_pct", "baseline": 0, "candidate": 0, "tripped": false}],
    "watches": [{"bench": "lat", "unit": "us", "baseline": 100, "candidate": 130,
                 "effect": -0.3, "ci": [-0.35, -0.25], "tripped": true}]})");
  Term term(ColorMode::never, 1);
  std::string text = format_group_stats(stats, term);
  INFO(text);
  CHECK(text.find("    watch lat: baseline 100 -> candidate 130 us, effect -30.0% [-35.0%, -25.0%] "
                  "harm\n") != std::string::npos);
  CHECK(text.find("guard tripped") == std::string::npos);
}
