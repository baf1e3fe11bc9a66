// `tuner plan` end to end through the real binary: text and JSON on an XML topology,
// exit codes, impossible requests, --root reads, and that nothing is written.
#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "tests/support/cli.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

using Run = tuner::testing::CliRun;
using tuner::testing::run_tuner;

using tuner::testing::TempDir;

/// Every file under the tree with its content: to prove nothing changed.
std::string snapshot(const std::string& dir) {
  std::string out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    out += e.path().string() + "\n";
    if (e.is_regular_file()) out += tuner::testing::read_text(e.path().string()) + "\n";
  }
  return out;
}

const std::string kXml = std::string(TUNER_FIXTURES) + "/topologies/24em64t-2n6c2t-pci.xml";

}  // namespace

TEST_CASE("plan command: JSON on an XML topology follows tuner.plan/1") {
  Run r = run_tuner("plan --profile network-throughput --json --topology " + kXml);
  REQUIRE(r.code == 0);
  json j = json::parse(r.out);
  CHECK(j["schema"] == "tuner.plan/1");
  CHECK(j["profiles"] == json({"balanced", "throughput", "network-throughput"}));
  REQUIRE(j["changes"].size() > 0);
  for (const json& c : j["changes"]) {
    CHECK(c.size() == 5);
    for (const char* key : {"knob", "group", "desired", "reason"}) CHECK(c[key].is_string());
    CHECK(c["current"].is_null());  // nothing of another machine can be read
  }
  CHECK(j["unchanged"] == 0);
  REQUIRE(j["notes"].is_array());
  // A topology file says no link speed: the profile's rules, for data ports of 10 Gb/s
  // and more, leave every NIC alone and say why.
  CHECK(j["notes"].dump().find("link speed unknown (down, or not probed)") != std::string::npos);
}

TEST_CASE("plan command: text diff, summary and --detailed-exitcode") {
  Run r = run_tuner(
      "plan --profile network-throughput --color never --detailed-exitcode --topology " + kXml);
  CHECK(r.code == 3);
  CHECK(r.out.rfind("plan: profile network-throughput (throughput, balanced)\n", 0) == 0);
  CHECK(r.out.find("  ~ sysctl:net.core.netdev_budget\n    - (unknown)\n    + 600\n") !=
        std::string::npos);
  CHECK(r.out.find(" changes in ") != std::string::npos);
  CHECK(r.out.find('\033') == std::string::npos);

  TempDir dir;
  std::string empty = dir.write("empty.toml", "[profile]\nname = \"empty\"\n");
  Run none = run_tuner("plan --profile " + empty + " --detailed-exitcode --topology " + kXml);
  CHECK(none.code == 0);
  CHECK(none.out.find("no changes: the machine already matches profile empty") !=
        std::string::npos);
}

TEST_CASE("plan command: several --profile merge, the later one winning") {
  TempDir dir;
  std::string a = dir.write(
      "a.toml",
      "[profile]\nname = \"a\"\n[sysctl]\n\"vm.swappiness\" = 10\n\"vm.dirty_ratio\" = 5\n");
  std::string b = dir.write("b.toml", "[profile]\nname = \"b\"\n[sysctl]\n\"vm.swappiness\" = 1\n");
  Run r = run_tuner("plan --json --profile " + a + " --profile " + b + " --topology " + kXml);
  REQUIRE(r.code == 0);
  json j = json::parse(r.out);
  std::map<std::string, std::string> desired;
  for (const json& c : j["changes"]) desired[c["knob"]] = c["desired"];
  CHECK(desired.at("sysctl:vm.swappiness") == "1");
  CHECK(desired.at("sysctl:vm.dirty_ratio") == "5");
}

TEST_CASE("plan command: impossible requests exit 2 naming file:line:col") {
  TempDir dir;
  std::string pin =
      dir.write("pin.toml",
                "[profile]\nname = \"pin\"\n[irq.\"eth*\"]\npolicy = \"pin\"\ncpus = \"0-511\"\n");
  Run r = run_tuner("plan --profile " + pin + " --topology " + kXml);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find(pin + ":") != std::string::npos);
  CHECK(r.err.find("cpus '0-511' names CPUs this machine does not have (it has 0-23)") !=
        std::string::npos);

  std::string node = dir.write(
      "node.toml", "[profile]\nname = \"node\"\n[[numa.bind]]\nunit = \"x.service\"\nnode = 5\n");
  r = run_tuner("plan --profile " + node + " --topology " + kXml);
  CHECK(r.code == 2);
  CHECK(r.err.find(node + ":") != std::string::npos);
  CHECK(r.err.find("NUMA node 5 does not exist on this machine (it has nodes 0-1)") !=
        std::string::npos);

  std::string key =
      dir.write("key.toml", "[profile]\nname = \"key\"\n[sysctl]\n\"net.core.no_such_key\" = 1\n");
  r = run_tuner("plan --profile " + key);  // the live machine: the key is looked up
  CHECK(r.code == 2);
  CHECK(r.err.find(key + ":4:") != std::string::npos);
  CHECK(r.err.find("sysctl key 'net.core.no_such_key' does not exist on this machine") !=
        std::string::npos);

  r = run_tuner("plan --profile " + key + " --root / --topology " + kXml);
  CHECK(r.code == 2);
}

TEST_CASE("plan command: a captured root is read, never written") {
  TempDir root;
  root.write("proc/sys/net/core/rmem_max", "212992\n");
  root.write("proc/sys/vm/swappiness", "60\n");
  root.write("etc/systemd/system/trainer.service.d/tuner-numa.conf",
             "[Service]\nCPUAffinity=0\nNUMAMask=0\n");
  TempDir dir;
  std::string p = dir.write("p.toml",
                            "[profile]\nname = \"p\"\n[sysctl]\n\"net.core.rmem_max\" = 268435456\n"
                            "\"vm.swappiness\" = \"<=60\"\n");
  std::string before = snapshot(root.path);
  Run r = run_tuner("plan --json --detailed-exitcode --profile " + p + " --root " + root.path);
  CHECK(r.code == 3);
  json j = json::parse(r.out);
  REQUIRE(j["changes"].size() == 1);
  CHECK(j["changes"][0]["knob"] == "sysctl:net.core.rmem_max");
  CHECK(j["changes"][0]["current"] == "212992");
  CHECK(j["unchanged"] == 1);
  // Named, so that a tool can tell the settings the profile covers (Ansible's exclusive).
  CHECK(j["unchanged_knobs"] == json{"sysctl:vm.swappiness"});
  CHECK(snapshot(root.path) == before);
}

TEST_CASE("plan command: a capture without proc/sys plans sysctls with unknown current values") {
  // hwloc's sysfs captures hold /sys and a little of /proc, but no /proc/sys: existence
  // of a key cannot be judged there, so the change is listed with current = null.
  const std::string capture = tuner::testing::shared_fixture("40intel64-2g2n4c+pci.tar.bz2");
  TempDir dir;
  std::string p =
      dir.write("p.toml", "[profile]\nname = \"p\"\n[sysctl]\n\"net.core.rmem_max\" = 268435456\n");
  Run r = run_tuner("plan --json --detailed-exitcode --profile " + p + " --root " + capture);
  CHECK(r.code == 3);
  json j = json::parse(r.out);
  REQUIRE(j["changes"].size() == 1);
  CHECK(j["changes"][0]["current"].is_null());
  CHECK(j["changes"][0]["desired"] == "268435456");
  // With a proc/sys, a key that is not there is still an error (exit 2).
  TempDir root;
  root.write("proc/sys/vm/swappiness", "60\n");
  r = run_tuner("plan --profile " + p + " --root " + root.path);
  CHECK(r.code == 2);
  CHECK(r.err.find("does not exist") != std::string::npos);
}

TEST_CASE("plan command: [cpu] and [mm] on a captured arm64 machine (cppc_cpufreq, no EPP)") {
  const std::string capture = tuner::testing::shared_fixture("nvidia-dgx-gb10.tar.bz2");
  TempDir dir;
  std::string p = dir.write("p.toml", "[profile]\nname = \"p\"\n[cpu]\ngovernor = \"schedutil\"\n"
                                      "epp = \"performance\"\ncpus = \"0-3\"\n");
  Run r = run_tuner("plan --json --detailed-exitcode --profile " + p + " --root " + capture);
  CHECK(r.code == 3);
  json j = json::parse(r.out);
  REQUIRE(j["changes"].size() == 4);
  for (int i = 0; i < 4; ++i) {
    const json& c = j["changes"][i];
    CHECK(c["knob"] == "cpu:policy" + std::to_string(i) + ":governor");
    CHECK(c["group"] == "cpu");
    CHECK(c["current"] == "performance");
    CHECK(c["desired"] == "schedutil");
    CHECK(c["reason"] == "policy" + std::to_string(i) + " (CPU " + std::to_string(i) +
                             "): profile sets governor schedutil (p.toml:4)");
  }
  CHECK(j["notes"] == json({"policies 0-3: epp = \"performance\" not available on this machine: "
                            "no energy_performance_preference (cpufreq driver cppc_cpufreq)"}));

  // A governor the policies do not offer: exit 2 at the setting.
  std::string bad =
      dir.write("bad.toml", "[profile]\nname = \"bad\"\n[cpu]\ngovernor = \"turbo\"\n");
  r = run_tuner("plan --profile " + bad + " --root " + capture);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find(bad + ":4:1: cpu:policy0:governor: governor 'turbo' is not offered here "
                         "(this machine offers: conservative, ondemand, userspace, powersave, "
                         "performance, schedutil)") != std::string::npos);

  // The capture holds no sys/kernel: THP is unknown there, planned with current null.
  std::string mm = dir.write("mm.toml", "[profile]\nname = \"mm\"\n[mm]\nthp = \"never\"\n");
  r = run_tuner("plan --json --profile " + mm + " --root " + capture);
  CHECK(r.code == 0);
  j = json::parse(r.out);
  REQUIRE(j["changes"].size() == 1);
  CHECK(j["changes"][0]["knob"] == "mm:thp");
  CHECK(j["changes"][0]["current"].is_null());
}

TEST_CASE("plan command: --topology takes a regular file only; a FIFO does not hang it") {
  TempDir dir;
  std::string fifo = dir / "topo.xml";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  for (const std::string& bad : {fifo, std::string("/dev/zero"), dir.path}) {
    CAPTURE(bad);
    Run r = run_tuner("plan --profile balanced --topology " + bad);
    CHECK(r.code == 2);
    CHECK(r.err.find("cannot read topology XML") != std::string::npos);
    CHECK(r.err.find(bad) != std::string::npos);
  }
  Run r = run_tuner("plan --profile balanced --topology " + fifo);
  CHECK(r.err.find("not a regular file (a FIFO)") != std::string::npos);
}

TEST_CASE("plan command: a broken profile is never skipped without a word; --strict refuses") {
  // The broken one is the more specific profile: silently leaving it out would tune a
  // GPU node as "balanced" while its operator believes the GPU profile is in force.
  TempDir dir;
  dir.write("balanced.toml", "[profile]\nname = \"balanced\"\n[sysctl]\n\"vm.swappiness\" = 60\n");
  dir.write("gpu-node.toml",
            "[profile]\nname = \"gpu-node\"\n[match]\nnuma_nodes = \">=1\"\n"
            "[sysctl]\n\"vm.swappiness\" = \"ten\"\n[nic.\"eth[0-\"]\nspeed = 1\n");
  std::string base = "plan --json --profile-path " + dir.path + " --topology " + kXml;
  Run warn = run_tuner(base);
  CHECK(warn.code == 0);
  CHECK(json::parse(warn.out)["profiles"] == json{"balanced"});
  CHECK(warn.err.find("tuner: warning: left out of automatic selection: ") != std::string::npos);
  CHECK(warn.err.find("gpu-node.toml:7:6") != std::string::npos);

  Run strict = run_tuner(base + " --strict");
  CHECK(strict.code == 2);
  CHECK(json::parse(strict.out)["schema"] == "tuner.error/1");  // no plan
  CHECK(strict.err.find("does not load (--strict)") != std::string::npos);
  CHECK(strict.err.find("gpu-node.toml:7:6") != std::string::npos);

  // A named profile is not a selection: others in the path are not read.
  Run named = run_tuner(base + " --strict --profile balanced");
  CHECK(named.code == 0);
  CHECK(named.err.empty());
}

TEST_CASE("plan command: each group's verify time at most, against the budget apply gives") {
  // network-throughput on a topology file: queues (tcp, 80 runs of 4 s and 100 ms of
  // settling each), napi and sysctl (bulk against a peer: 80 runs of 5 s and the
  // settling; sysctl also runs the built-in tcp out of this node each time: 80 runs of
  // 4 s more), vm (kept as chosen: two 30 s soak windows); 1524 s in all, within the
  // profile's [verify] budget of 35 min.
  Run r = run_tuner("plan --profile network-throughput --json --topology " + kXml);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  json j = json::parse(r.out);
  std::map<std::string, long long> per_group;
  long long sum = 0;
  for (const json& g : j["groups"]) {
    per_group[g["name"]] = g["worst_case_s"];
    sum += g["worst_case_s"].get<long long>();
  }
  CHECK(per_group == std::map<std::string, long long>{
                         {"napi", 408}, {"queues", 328}, {"sysctl", 728}, {"vm", 60}});
  CHECK(j["verify_worst_case_s"] == sum);
  CHECK(j["verify_budget_s"] == 2100);
  CHECK(j["notes"].dump().find("verifying this plan can take") == std::string::npos);
  Run text = run_tuner("plan --profile network-throughput --topology " + kXml);
  CHECK(text.out.find("verifying it takes 26 min at most; apply gives it 35 min without "
                      "--budget") != std::string::npos);
  CHECK(text.out.find("vm  (decided by: kept as chosen: nothing here measures what it gains or "
                      "costs; the guard soak rolls it back only if the node's network errors "
                      "rise; verified in 1 min at most)") != std::string::npos);

  // Without a [verify] budget, the default 600 s; 100 trials per arm outgrow it.
  TempDir dir("tuner-plan-budget");
  dir.write("site.toml", "[profile]\nname = \"site\"\n[sysctl]\n\"net.core.somaxconn\" = 65535\n"
                         "[verify]\nbench = [\"tcp\"]\nmax_trials = 100\n"
                         "[group.sysctl]\nkeep_if_neutral = true\n");
  Run site = run_tuner("plan --profile " + dir.path + "/site.toml --json --topology " + kXml);
  REQUIRE_MESSAGE(site.code == 0, site.err);
  json s = json::parse(site.out);
  CHECK(s["verify_budget_s"] == 600);
  CHECK(s["verify_worst_case_s"] == 820);
  CHECK(s["notes"].dump().find("verifying this plan can take up to 14 min, more than the 600 s "
                               "apply gives it without --budget (the default)") !=
        std::string::npos);
}
