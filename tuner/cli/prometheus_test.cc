// --prometheus: what probe, status and apply write is Prometheus's text format as
// prometheus_client's own parser reads it (Debian's python3-prometheus-client), with
// names after the conventions; the file is replaced atomically, never written through
// a symlink, and a file that cannot be written is exit 1.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include "base/runner.h"
#include "rollback/run_report.h"
#include "tests/support/cli.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"
#include "tuner/cli/report/prometheus.h"

namespace tuner {
namespace {

using testing::run_tuner;
using testing::TempDir;

const char* kParser = R"PY(
import re, sys
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
names = []
for f in text_string_to_metric_families(text):
    assert re.fullmatch(r"tuner_[a-z0-9_]+", f.name), f.name
    assert f.documentation, f.name + ": no HELP"
    assert f.type in ("gauge", "counter", "info"), f.name + ": " + f.type
    for s in f.samples:
        for k in s.labels: assert re.fullmatch(r"[a-z_]+", k), k
    names.append("%s:%d" % (f.name, len(f.samples)))
print(" ".join(names))
)PY";

/// The families the parser found ("name:samples ..."), or "" when it failed (err set).
std::string parse(const std::string& file, std::string& err) {
  RunSpec spec;
  spec.argv = {"/usr/bin/python3", "-c", kParser, file};
  auto r = ProcessRunner().run(spec);
  REQUIRE(r.ok());
  if (!r->success()) {
    err = r->err;
    return "";
  }
  return r->out;
}

bool have_parser() {
  RunSpec spec;
  spec.argv = {"/usr/bin/python3", "-c", "import prometheus_client.parser"};
  auto r = ProcessRunner().run(spec);
  return r.ok() && r->success();
}

}  // namespace

TEST_CASE("prometheus: probe, status and a run parse with prometheus_client") {
  if (!have_parser()) {
    MESSAGE("skipped: python3-prometheus-client is not installed (install-deps.sh --test)");
    return;
  }
  TempDir dir;
  std::string err;
  auto probe = run_tuner("probe --prometheus " + dir.path + "/probe.prom");
  REQUIRE_MESSAGE(probe.code == 0, probe.err);
  std::string families = parse(dir.path + "/probe.prom", err);
  INFO(err);
  CHECK(families.find("tuner_node_info:1") != std::string::npos);
  CHECK(families.find("tuner_probe_timestamp_seconds:1") != std::string::npos);
  CHECK(testing::read_text(dir.path + "/probe.prom").find("kernel=\"") != std::string::npos);

  auto status = run_tuner("status --state-dir " + dir.path + "/state --prometheus " + dir.path +
                          "/status.prom");
  REQUIRE_MESSAGE(status.code == 0, status.err);
  families = parse(dir.path + "/status.prom", err);
  CHECK(families.find("tuner_kept_settings:1") != std::string::npos);
  CHECK(families.find("tuner_drifted_settings:1") != std::string::npos);

  RunReport r;
  r.run_id = "20261201T000000Z-abcd";
  r.changed = true;
  r.profiles = {"throughput", "local \"x\"\\y"};  // label escaping
  r.groups = {{"sysctl",
               GroupDecision::kept,
               {},
               {{"effect", 0.034}, {"bench", "tcp"}, {"outcome", "gain"}}},
              {"vm", GroupDecision::applied, {}, {}}};
  dir.write("run.prom", prometheus_run(r, 1.7e9));
  families = parse(dir.path + "/run.prom", err);
  INFO(err);
  CHECK(families.find("tuner_group_decision:6") != std::string::npos);  // 2 groups x 3 states
  CHECK(families.find("tuner_group_effect_ratio:1") != std::string::npos);
  CHECK(families.find("tuner_run_info:1") != std::string::npos);
}

TEST_CASE("prometheus: label values are escaped as the format says") {
  PromText p;
  p.metric("tuner_x", "x");
  p.sample({{"a", "q\"b\\s\nn"}}, 1.5);
  CHECK(p.text() == "# HELP tuner_x x\n# TYPE tuner_x gauge\ntuner_x{a=\"q\\\"b\\\\s\\nn\"} 1.5\n");
}

TEST_CASE("prometheus: a label value that is not UTF-8 is made valid (U+FFFD)") {
  PromText p;
  p.metric("tuner_x", "x");
  p.sample({{"device", "eth\xff"}}, 1);
  CHECK(p.text().find("{device=\"eth\xef\xbf\xbd\"} 1\n") != std::string::npos);
}

TEST_CASE("prometheus: NIC series are labelled device, as node_exporter's node_network_*") {
  // So that `tuner_nic_info * on(device) group_right node_network_...` joins.
  Inventory inv;
  Nic nic;
  nic.name = "eth0";
  nic.driver = "mlx5_core";
  nic.firmware_version = "22.36.1010";
  nic.link.speed_mbps = 25000;
  Nic veth;
  veth.name = "veth1";
  veth.is_virtual = true;
  inv.nics = {nic, veth};
  std::string text = prometheus_probe(inv, 1.7e9);
  CHECK(text.find("\ntuner_nic_info{device=\"eth0\",driver=\"mlx5_core\",driver_version=\"\","
                  "firmware_version=\"22.36.1010\",pci=\"\"} 1\n") != std::string::npos);
  CHECK(text.find("\ntuner_nic_link_speed_bits_per_second{device=\"eth0\"} 25000000000\n") !=
        std::string::npos);
  CHECK(text.find("veth1") == std::string::npos);  // no speed, virtual: no series
  CHECK(text.find("nic=") == std::string::npos);
}

TEST_CASE("prometheus: a group's decision is a series per state, 1 for its own") {
  RunReport r;
  r.groups = {{"sysctl", GroupDecision::kept, {}, {}},
              {"irq", GroupDecision::rolled_back, {}, {}},
              {"vm", GroupDecision::applied, {}, {}}};
  std::string text = prometheus_run(r, 1.7e9);
  for (const char* line : {
           "tuner_group_decision{group=\"sysctl\",state=\"applied\"} 0\n",
           "tuner_group_decision{group=\"sysctl\",state=\"kept\"} 1\n",
           "tuner_group_decision{group=\"sysctl\",state=\"rolled_back\"} 0\n",
           "tuner_group_decision{group=\"irq\",state=\"applied\"} 0\n",
           "tuner_group_decision{group=\"irq\",state=\"kept\"} 0\n",
           "tuner_group_decision{group=\"irq\",state=\"rolled_back\"} 1\n",
           "tuner_group_decision{group=\"vm\",state=\"applied\"} 1\n",
           "tuner_group_decision{group=\"vm\",state=\"kept\"} 0\n",
           "tuner_group_decision{group=\"vm\",state=\"rolled_back\"} 0\n",
       })
    CHECK_MESSAGE(text.find(std::string("\n") + line) != std::string::npos, line);
  CHECK(text.find("decision=") == std::string::npos);  // the old label is gone
  // Those nine and no more.
  std::size_t series = 0;
  for (std::size_t at = 0; (at = text.find("\ntuner_group_decision{", at)) != std::string::npos;
       ++at)
    ++series;
  CHECK(series == 9);
}

TEST_CASE("prometheus: status names each drifted setting, and only those") {
  std::vector<KeptReading> readings = {
      {"sysctl:net.core.somaxconn", "8192", "4096", "r1", "sysctl", std::string("8192"), "", false},
      {"sysctl:vm.swappiness", "10", "60", "r1", "vm", std::string("60"), "", false},
      {"nic:eth9:rings", "rx=4096", "rx=1024", "r1", "nic", std::nullopt, "no such NIC", true},
      {"irq:57:affinity", "3", "0-15", "r1", "irq", std::nullopt, "EACCES", false},
  };
  std::string text = prometheus_status(readings, false, 1.7e9);
  CHECK(text.find("\ntuner_kept_settings 4\n") != std::string::npos);
  CHECK(text.find("\ntuner_drifted_settings 3\n") != std::string::npos);
  CHECK(text.find("\ntuner_setting_drifted{setting=\"sysctl:vm.swappiness\",group=\"vm\","
                  "state=\"changed\"} 1\n") != std::string::npos);
  CHECK(text.find("\ntuner_setting_drifted{setting=\"nic:eth9:rings\",group=\"nic\","
                  "state=\"gone\"} 1\n") != std::string::npos);
  CHECK(text.find("\ntuner_setting_drifted{setting=\"irq:57:affinity\",group=\"irq\","
                  "state=\"unreadable\"} 1\n") != std::string::npos);
  CHECK(text.find("somaxconn") == std::string::npos);  // it holds: no series
  CHECK(text.find("\ntuner_unfinished_run 0\n") != std::string::npos);
  CHECK(text.find("\ntuner_status_error 0\n") != std::string::npos);
}

TEST_CASE("prometheus: tuner_build_info names the version, value 1") {
  std::string text = prometheus_build_info("0.1.0");
  CHECK(text.find("# TYPE tuner_build_info gauge\n") != std::string::npos);
  CHECK(text.find("\ntuner_build_info{version=\"0.1.0\"} 1\n") != std::string::npos);
}

TEST_CASE("prometheus: a symlink is neither followed nor replaced; a failed write exits 5") {
  TempDir dir;
  dir.write("target", "keep me\n");
  REQUIRE(::symlink((dir.path + "/target").c_str(), (dir.path + "/link.prom").c_str()) == 0);
  auto r = run_tuner("probe --prometheus " + dir.path + "/link.prom");
  CHECK(r.code == 2);
  CHECK(r.err.find(dir.path + "/link.prom: is a symlink") != std::string::npos);
  CHECK(testing::read_text(dir.path + "/target") == "keep me\n");
  struct stat st {};
  REQUIRE(::lstat((dir.path + "/link.prom").c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));
  // The probe ran; only its file could not be written: 5, not 1 (README "Exit codes").
  auto bad = run_tuner("probe --prometheus " + dir.path + "/no/such/dir/x.prom");
  CHECK(bad.code == 5);
  CHECK(bad.err.find("--prometheus") != std::string::npos);
}

TEST_CASE("prometheus: a status that fails says so in its textfile (tuner_status_error 1)") {
  TempDir dir;
  std::string prom = dir.path + "/status.prom";
  auto good = run_tuner("status --state-dir " + dir.path + "/state --prometheus " + prom);
  REQUIRE_MESSAGE(good.code == 0, good.err);
  std::string healthy = testing::read_text(prom);
  CHECK(healthy.find("\ntuner_status_error 0\n") != std::string::npos);
  CHECK(healthy.find("\ntuner_drifted_settings 0\n") != std::string::npos);
  // A state directory that is refused (anyone may write it): status cannot tell, and the
  // old "no drift" must not stay behind for node_exporter to read as healthy.
  REQUIRE(::mkdir((dir.path + "/loose").c_str(), 0700) == 0);
  REQUIRE(::chmod((dir.path + "/loose").c_str(), 0777) == 0);
  auto bad = run_tuner("status --state-dir " + dir.path + "/loose --prometheus " + prom);
  CHECK(bad.code == 1);
  CHECK(bad.err.find("writable") != std::string::npos);
  std::string failed = testing::read_text(prom);
  CHECK(failed.find("\ntuner_status_error 1\n") != std::string::npos);
  CHECK(failed.find("tuner_drifted_settings") == std::string::npos);
  CHECK(failed.find("tuner_status_timestamp_seconds ") != std::string::npos);
  // A damaged state.json: the same.
  REQUIRE(::mkdir((dir.path + "/damaged").c_str(), 0700) == 0);
  dir.write("damaged/state.json", "{not json");
  REQUIRE(run_tuner("status --state-dir " + dir.path + "/state --prometheus " + prom).code == 0);
  auto damaged = run_tuner("status --state-dir " + dir.path + "/damaged --prometheus " + prom);
  CHECK(damaged.code == 1);
  CHECK(testing::read_text(prom).find("\ntuner_status_error 1\n") != std::string::npos);
}

}  // namespace tuner
