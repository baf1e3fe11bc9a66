#include "rollback/journal.h"

#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/fd_io.h"
#include "tests/support/temp_dir.h"

using namespace tuner;

TEST_CASE("journal: records round trip") {
  JournalRecord b;
  b.type = RecordType::begin;
  b.run_id = "20261129T173000Z-1a2b";
  b.kind = RunKind::apply;
  b.profiles = {"throughput", "dl-training"};
  b.pid = 42;
  auto back = decode_record(encode_record(b), "t:1");
  REQUIRE(back.ok());
  CHECK(back->type == RecordType::begin);
  CHECK(back->profiles == b.profiles);
  CHECK(back->pid == 42);

  JournalRecord i;
  i.type = RecordType::intent;
  i.knob = "sysctl:net.ipv4.tcp_rmem";
  i.group = "sysctl";
  i.before = "4096 131072 6291456";
  i.after = "";  // an empty value is still a value
  std::string line = encode_record(i);
  CHECK(line.find('\n') == std::string::npos);
  auto ib = decode_record(line, "t:2");
  REQUIRE(ib.ok());
  CHECK(ib->before == "4096 131072 6291456");
  CHECK(ib->after == "");
  CHECK(ib->knob == i.knob);
}

TEST_CASE("journal: bad records are skipped and named by file:line") {
  auto r = parse_journal(
      "{\"type\":\"begin\"}\nnot json\n{\"type\":\"intent\",\"knob\":\"sysctl:a.b\",\"before\":1,"
      "\"after\":\"2\"}\n{\"type\":\"end\",\"status\":\"finished\"}\n",
      "runs/x.journal");
  REQUIRE(r.records.size() == 2);
  CHECK(r.records[1].type == RecordType::end);
  REQUIRE(r.damaged.size() == 2);
  CHECK(r.damaged[0].message() == "runs/x.journal:2: damaged record skipped: not a JSON object");
  CHECK(r.damaged[1].where == "runs/x.journal:3");
  CHECK(r.damaged[1].knob == "sysctl:a.b");
  CHECK(r.damaged[1].message() ==
        "runs/x.journal:3: damaged record skipped: \"before\" is not a string (intent record of "
        "sysctl:a.b)");
  CHECK_FALSE(decode_record("{\"type\":\"explode\"}", "f:1").ok());
  CHECK_FALSE(decode_record("{\"type\":\"intent\",\"knob\":\"sysctl:a.b\"}", "f:1").ok());
  CHECK_FALSE(decode_record("{\"type\":\"done\"}", "f:1").ok());
}

TEST_CASE("journal: a torn last line is ignored and cut before the next append") {
  testing::TempDir t;
  auto dir = StateDir::open(t.path + "/state", true);
  REQUIRE(dir.ok());
  std::string id = new_run_id();
  CHECK(valid_run_id(id));
  {
    auto j = Journal::create(*dir, id);
    REQUIRE(j.ok());
    JournalRecord b;
    b.type = RecordType::begin;
    REQUIRE(j->append(b).ok());
    JournalRecord i;
    i.type = RecordType::intent;
    i.knob = "sysctl:net.core.somaxconn";
    i.before = "4096";
    i.after = "8192";
    REQUIRE(j->append(i).ok());
  }
  std::string path = t.path + "/state/runs/" + id + ".journal";
  {
    std::ofstream f(path, std::ios::app);
    f << "{\"type\":\"done\",\"knob\":\"sysctl:net.co";  // crash mid-write
  }
  auto text = read_journal(*dir, id);
  REQUIRE(text.ok());
  CHECK(text->torn);
  REQUIRE(text->records.size() == 2);
  CHECK(text->records[1].type == RecordType::intent);

  auto j = Journal::open(*dir, id);
  REQUIRE(j.ok());
  JournalRecord e;
  e.type = RecordType::end;
  e.end_status = RunStatus::finished;
  REQUIRE(j->append(e).ok());
  auto again = read_journal(*dir, id);
  REQUIRE(again.ok());
  CHECK_FALSE(again->torn);
  REQUIRE(again->records.size() == 3);
  CHECK(again->records[2].type == RecordType::end);
  auto runs = list_runs(*dir);
  REQUIRE(runs.ok());
  CHECK(*runs == std::vector<std::string>{id});
}

TEST_CASE("journal: run ids sort by time and keep paths out") {
  CHECK(valid_run_id("20261129T173000Z-00ff"));
  CHECK_FALSE(valid_run_id("../../etc/passwd"));
  CHECK_FALSE(valid_run_id("20261129T173000Z-00FF"));
  CHECK_FALSE(valid_run_id("20261129T173000Z-00f"));
  CHECK(std::string("20261129T173000Z-ffff") < std::string("20261129T173001Z-0000"));
}

TEST_CASE("journal: ids of runs in the same second still sort in creation order") {
  testing::TempDir t;
  auto dir = StateDir::open(t.path + "/state", true);
  REQUIRE(dir.ok());
  std::vector<std::string> made;
  for (int i = 0; i < 5; ++i) {
    std::string id = new_run_id(*dir);
    CHECK(valid_run_id(id));
    REQUIRE(Journal::create(*dir, id).ok());
    made.push_back(id);
  }
  auto runs = list_runs(*dir);
  REQUIRE(runs.ok());
  CHECK(*runs == made);
}

TEST_CASE("journal: a state directory without runs/ is a clear error, not EBADF") {
  testing::TempDir t;
  REQUIRE(::mkdir((t.path + "/state").c_str(), 0700) == 0);
  auto dir = StateDir::open(t.path + "/state", false);  // as restore and rollback open it
  REQUIRE(dir.ok());
  auto j = Journal::create(*dir, "20261129T173000Z-0001");
  REQUIRE_FALSE(j.ok());
  CHECK(j.error().message().find("no runs directory") != std::string::npos);
  CHECK(j.error().message().find("/state/runs") != std::string::npos);
}

TEST_CASE("journal: a FIFO or an oversized file in runs/ is an error, not a hang") {
  testing::HangGuard guard;
  testing::TempDir t;
  auto dir = StateDir::open(t.path + "/state", true);
  REQUIRE(dir.ok());
  const std::string fifo_id = "20261129T173000Z-0001", big_id = "20261129T173000Z-0002";
  REQUIRE(::mkfifo((t.path + "/state/runs/" + fifo_id + ".journal").c_str(), 0600) == 0);
  auto fifo = read_journal(*dir, fifo_id);
  REQUIRE_FALSE(fifo.ok());
  CHECK(fifo.error().is(ErrorKind::invalid));
  CHECK(fifo.error().message().find("not a regular file (a FIFO)") != std::string::npos);
  CHECK(fifo.error().message().find(fifo_id) != std::string::npos);
  // A journal larger than the reader's bound is refused before it is read.
  std::filesystem::resize_file(
      testing::write_file(t.path + "/state/runs/" + big_id + ".journal", ""), kMaxFileBytes + 1);
  auto big = read_journal(*dir, big_id);
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().is(ErrorKind::invalid));
  CHECK(big.error().message().find("larger than") != std::string::npos);
}
