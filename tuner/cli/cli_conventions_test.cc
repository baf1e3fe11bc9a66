// The command line as scripts and people meet it: global options anywhere, help for a
// command, --version, no option guessing, metavariables in help, one "tuner:" prefix,
// warnings on stderr, colour only where it can show, and every exit code the README
// documents (0, 1, 2, 3, 4, 5, and exec's pass-through).
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/runner.h"
#include "tests/support/cli.h"
#include "tests/support/temp_dir.h"

namespace tuner {
namespace {

using testing::run_tuner;
using testing::TempDir;

const std::string kXml = TUNER_FIXTURES "/topologies/nvidiaDGX2.xml";

}  // namespace

TEST_CASE("cli: global options before the command mean what they mean after it") {
  TempDir state;
  auto before = run_tuner("--state-dir " + state.path + " --color never history --json");
  auto after = run_tuner("history --json --state-dir " + state.path + " --color never");
  CHECK(before.code == 0);
  CHECK(before.out == after.out);
  // '--' still ends tuner's options: a global moved behind the command must not land
  // in exec's command line.
  auto ex = run_tuner("--color never exec --near node:0 --allow-unbound -- echo hi");
  CHECK(ex.code == 0);
  CHECK(ex.out == "hi\n");
  auto missing = run_tuner("--state-dir");
  CHECK(missing.code == 2);
  CHECK(missing.err == "tuner: --state-dir needs a value\n");
}

TEST_CASE("cli: help COMMAND, --version and -V") {
  auto help = run_tuner("help plan");
  CHECK(help.code == 0);
  CHECK(help.out == run_tuner("plan --help").out);
  CHECK(help.out.find("--detailed-exitcode") != std::string::npos);
  auto v = run_tuner("--version");
  CHECK(v.code == 0);
  CHECK(v.out.starts_with("tuner "));
  CHECK(run_tuner("-V").out == v.out);
  auto unknown = run_tuner("help nope");
  CHECK(unknown.code == 2);
  CHECK(unknown.err.starts_with("tuner: unknown command 'nope'\n"));
}

TEST_CASE("cli: an option prefix is not guessed") {
  // '--prof' used to become '--profile' (or be ambiguous with '--profile-path'); '--no'
  // became '--no-verify'.
  auto r = run_tuner("plan --prof balanced --topology " + kXml);
  CHECK(r.code == 2);
  CHECK(r.err == "tuner: plan: unrecognised option '--prof' (see 'tuner help plan')\n");
  CHECK(run_tuner("apply --no --yes --topology " + kXml).code == 2);
}

TEST_CASE("cli: help names what each option takes, and messages have one prefix") {
  for (const char* command : {"probe", "profiles", "plan", "check", "apply", "rollback", "status",
                              "history", "restore", "state", "bench", "exec"}) {
    CAPTURE(command);
    auto r = run_tuner(std::string("help ") + command);
    CHECK(r.code == 0);
    CHECK(r.out.find(" arg ") == std::string::npos);
    CHECK(r.out.find("--state-dir DIR") != std::string::npos);
  }
  auto r = run_tuner("plan --bogus");
  CHECK(r.err.find("tuner: tuner") == std::string::npos);
  CHECK(r.err.starts_with("tuner: plan: "));
}

TEST_CASE("cli: probe warnings go to stderr; stdout holds the report alone") {
  TempDir root;  // an empty capture: every probe has something to say
  auto r = run_tuner("probe --color never --root " + root.path);
  CHECK(r.code == 0);
  CHECK(r.out.find("warning") == std::string::npos);
  CHECK(r.err.find("tuner: warning: ") != std::string::npos);
}

TEST_CASE("cli: colour only on a terminal that shows it (TERM=dumb, NO_COLOR)") {
  if (::access("/usr/bin/script", X_OK) != 0) {
    MESSAGE("skipped: util-linux script(1) gives the run a terminal and is not installed");
    return;
  }
  // script(1) runs tuner on a pseudo-terminal; the escape is the bold group heading.
  auto on_tty = [](const std::string& env) {
    RunSpec spec;
    spec.argv = {"/usr/bin/script", "-qec",
                 "env " + env + " " + std::string(TUNER_BINARY) +
                     " plan --profile balanced --topology " + kXml,
                 "/dev/null"};
    auto r = ProcessRunner().run(spec);
    REQUIRE(r.ok());
    return r->out;
  };
  CHECK(on_tty("TERM=xterm").find("\033[") != std::string::npos);
  CHECK(on_tty("TERM=dumb").find("\033[") == std::string::npos);
  CHECK(on_tty("TERM=xterm NO_COLOR=1").find("\033[") == std::string::npos);
  CHECK(on_tty("TERM=xterm NO_COLOR=").find("\033[") != std::string::npos);
}

TEST_CASE("cli: every documented exit code") {
  TempDir state;
  // 0: success.
  CHECK(run_tuner("plan --profile balanced --topology " + kXml).code == 0);
  CHECK(run_tuner("history --state-dir " + state.path).code == 0);
  // check: 0 without a finding at or above --fail-on, 1 with one (the SL390s export has
  // GPUs on a node without a NIC: warnings); every finding per fixture in
  // check_command_test.cc.
  const std::string sl390 = TUNER_FIXTURES "/topologies/24em64t-2n6c2t-pci.xml";
  CHECK(run_tuner("check --topology " + kXml).code == 0);
  CHECK(run_tuner("check --fail-on error --topology " + sl390).code == 0);
  CHECK(run_tuner("check --topology " + sl390).code == 1);
  // 3: plan --detailed-exitcode with changes pending (a topology has no live values,
  // so every setting is a change). status's 3 (drift) needs a kept run on a live
  // kernel: tests/integration/apply_rollback_test.sh checks it.
  CHECK(run_tuner("plan --detailed-exitcode --profile balanced --topology " + kXml).code == 3);
  // 4: status while a run is unfinished (a journal with a begin and no end: a crash).
  TempDir crashed;
  ::mkdir((crashed.path + "/runs").c_str(), 0700);
  crashed.write("runs/20261129T173000Z-0001.journal", "{\"type\":\"begin\",\"kind\":\"apply\"}\n");
  auto unfinished = run_tuner("status --state-dir " + crashed.path);
  CHECK(unfinished.code == 4);
  CHECK(unfinished.out.find("rollback --abandon 20261129T173000Z-0001") != std::string::npos);
  // 2: bad input or usage, nothing changed.
  CHECK(run_tuner("").code == 2);
  CHECK(run_tuner("nope").code == 2);
  CHECK(run_tuner("plan --profile no-such-profile --topology " + kXml).code == 2);
  CHECK(run_tuner("plan --bogus").code == 2);
  CHECK(run_tuner("check --fail-on fatal --topology " + kXml).code == 2);
  CHECK(run_tuner("rollback --run-id ../x --state-dir " + state.path).code == 2);
  // 1: a runtime failure: a state directory owned by someone else is refused.
  TempDir foreign;
  REQUIRE(::chown(foreign.path.c_str(), 65534, 65534) == 0);
  auto r = run_tuner("history --state-dir " + foreign.path);
  CHECK(r.code == (::geteuid() == 65534 ? 0 : 1));
  // 5: the work is done but an output file could not be written (the directory is
  // not one tuner may create files in). apply's own 5 (its run stands):
  // tests/integration/json_schemas_test.sh.
  auto unwritten = run_tuner("probe --prometheus /proc/tuner-test.prom");
  CHECK(unwritten.code == 5);
  CHECK(unwritten.err.find("/proc/tuner-test.prom") != std::string::npos);
  // exec: the command's own status.
  CHECK(run_tuner("exec --near node:0 --allow-unbound -- sh -c 'exit 7'").code == 7);
}

TEST_CASE("cli: under --json a failure is also a tuner.error/1 document on stdout") {
  TempDir state;
  TempDir foreign;
  REQUIRE(::chown(foreign.path.c_str(), 65534, 65534) == 0);
  for (const std::string& args : std::vector<std::string>{
           "plan --json --profile no-such-profile --topology " + kXml, "plan --json --bogus",
           "check --json --fail-on fatal --topology " + kXml,
           "history --json --state-dir " + foreign.path, "probe --json --topology /dev/null"}) {
    CAPTURE(args);
    auto r = run_tuner(args);
    REQUIRE(r.code != 0);
    auto doc = nlohmann::json::parse(r.out, nullptr, false);
    REQUIRE(doc.is_object());
    CHECK(doc["schema"] == "tuner.error/1");
    CHECK(doc["exit"] == r.code);
    // The same message as on stderr, for a person.
    CHECK(r.err == "tuner: " + doc["message"].get<std::string>() + "\n");
  }
  // Without --json, stdout stays empty; a child's "--json" is the child's.
  CHECK(run_tuner("plan --bogus").out.empty());
  auto ex = run_tuner("exec --near node:0 --allow-unbound -- sh -c 'echo --json; exit 3'");
  CHECK(ex.code == 3);
  CHECK(ex.out == "--json\n");
}

}  // namespace tuner
