// CPU vulnerabilities: the real directory of the build VM (tests/fixtures/host/
// vulnerabilities/captured: two files say "Vulnerable"), a mitigated variant, and the
// cases where the kernel says nothing.
#include "probes/cpu_vulnerabilities.h"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

namespace tuner {
namespace {

std::optional<std::map<std::string, std::string>> probe(const std::string& dir,
                                                        std::vector<ProbeError>& errors) {
  return probe_cpu_vulnerabilities(Root::open(dir).value(), errors);
}

}  // namespace

TEST_CASE("vulnerabilities: the kernel's words") {
  CHECK(is_vulnerable("Vulnerable"));
  CHECK(is_vulnerable("Vulnerable: Clear CPU buffers attempted, no microcode; SMT vulnerable"));
  CHECK(is_vulnerable("  Vulnerable\n"));
  CHECK_FALSE(is_vulnerable("Not affected"));
  CHECK_FALSE(is_vulnerable("Mitigation: Retpolines; STIBP: disabled; RSB filling"));
  CHECK_FALSE(is_vulnerable("Unknown: Dependent on hypervisor status"));
  CHECK_FALSE(is_vulnerable(""));
}

TEST_CASE("vulnerabilities: a captured directory, and a mitigated one") {
  std::vector<ProbeError> errors;
  auto captured = probe(testing::test_data_path("host/vulnerabilities/captured"), errors);
  REQUIRE(captured.has_value());
  CHECK(errors.empty());
  CHECK(captured->size() == 19);
  CHECK(captured->at("retbleed") == "Vulnerable");
  CHECK(captured->at("spectre_v2") ==
        "Mitigation: Retpolines; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: "
        "Retpoline");
  CHECK(vulnerable_names(*captured) == "retbleed,spec_store_bypass");

  auto mitigated = probe(testing::test_data_path("host/vulnerabilities/mitigated"), errors);
  REQUIRE(mitigated.has_value());
  CHECK(errors.empty());
  CHECK(vulnerable_names(*mitigated) == "none");
}

TEST_CASE("vulnerabilities: an old kernel says nothing; a root without CPUs is an error") {
  testing::TempDir old;
  old.write("sys/devices/system/cpu/online", "0-3\n");
  std::vector<ProbeError> errors;
  CHECK_FALSE(probe(old.path, errors).has_value());
  CHECK(errors.empty());  // before 4.15: nothing to say, nothing wrong

  testing::TempDir empty;
  CHECK_FALSE(probe(empty.path, errors).has_value());
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].probe == "vulnerabilities");
  CHECK(errors[0].message.find("sys/devices/system/cpu/vulnerabilities") != std::string::npos);
}

TEST_CASE("vulnerabilities: a file that is not a regular file is an error, not a wait") {
  testing::TempDir root;
  root.write("sys/devices/system/cpu/vulnerabilities/mds", "Not affected\n");
  REQUIRE(::mkfifo((root / "sys/devices/system/cpu/vulnerabilities/spectre_v2").c_str(), 0600) ==
          0);
  std::vector<ProbeError> errors;
  auto v = probe(root.path, errors);
  REQUIRE(v.has_value());
  CHECK(v->size() == 1);        // the FIFO is left out...
  REQUIRE(errors.size() == 1);  // ...and named
  CHECK(errors[0].message.find("spectre_v2") != std::string::npos);
}

}  // namespace tuner
