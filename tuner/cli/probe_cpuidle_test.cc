// `tuner probe --json` carries the cpuidle table, and the document is what
// schemas/tuner.probe-1.schema.json says (tests/schema/validate.py, where
// python3-jsonschema is installed; tests/integration/json_schemas_test.sh validates
// every capture's).
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/runner.h"
#include "tests/support/cli.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

using namespace tuner;
using testing::run_tuner;
using testing::shell_quote;

namespace {

/// validate.py's verdict on doc: "" when valid or when jsonschema is not installed.
std::string schema_violations(const nlohmann::json& doc) {
  RunSpec has;
  has.argv = {"python3", "-c", "import jsonschema"};
  if (auto r = ProcessRunner().run(has); !r.ok() || r->exit_code != 0) return "";
  testing::TempDir out;
  RunSpec spec;
  spec.argv = {"python3", TUNER_TEST_DATA "/../schema/validate.py",
               out.write("probe.json", doc.dump())};
  auto v = ProcessRunner().run(spec);
  REQUIRE(v.ok());
  return v->exit_code == 0 ? "" : v->out + v->err;
}

}  // namespace

TEST_CASE("probe --json: the idle states of the first online CPU, valid against the schema") {
  auto r = run_tuner("probe --json --root " + shell_quote(TUNER_TEST_DATA "/host/cpuidle/spr"));
  REQUIRE_MESSAGE(r.code == 0, r.err);
  auto doc = nlohmann::json::parse(r.out);
  const nlohmann::json& t = doc["cpuidle"];
  CHECK(t["cpu"] == 0);
  CHECK(t["driver"] == "intel_idle");
  REQUIRE(t["states"].size() == 4);
  CHECK(t["states"][0]["name"] == "POLL");
  CHECK(t["states"][0]["polling"] == true);
  CHECK(t["states"][2] == nlohmann::json{{"state", 2},
                                         {"name", "C1E"},
                                         {"polling", false},
                                         {"latency_us", 2},
                                         {"disabled", false}});
  CHECK(t["states"][3]["latency_us"] == 290);
  CHECK(schema_violations(doc) == "");

  // A capture without the per-CPU tables: null, still valid; a garbled latency is null
  // and a probe error.
  testing::TempDir bad;
  std::filesystem::copy(TUNER_TEST_DATA "/host/cpuidle/skx", bad.path,
                        std::filesystem::copy_options::recursive);
  bad.write("sys/devices/system/cpu/cpu0/cpuidle/state1/latency", "-2\n");
  r = run_tuner("probe --json --root " + shell_quote(bad.path));
  REQUIRE_MESSAGE(r.code == 0, r.err);
  doc = nlohmann::json::parse(r.out);
  CHECK(doc["cpuidle"]["states"][1]["latency_us"].is_null());
  bool reported = false;
  for (const auto& e : doc["errors"]) reported = reported || e["probe"] == "cpuidle";
  CHECK(reported);
  CHECK(schema_violations(doc) == "");
  r = run_tuner("probe --json --root " +
                shell_quote(testing::shared_fixture("64amd64-4s2n4ca2co.tar.bz2")));
  REQUIRE_MESSAGE(r.code == 0, r.err);
  doc = nlohmann::json::parse(r.out);
  CHECK(doc["cpuidle"].is_null());
  CHECK(schema_violations(doc) == "");
}
