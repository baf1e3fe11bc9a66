// mm:thp and mm:thp_defrag on a fake machine whose kernel brackets the current word
// (tests/support/fake_sysfs.h), and reads of the live one.
#include <doctest/doctest.h>

#include "tests/support/fake_sysfs.h"
#include "tests/support/temp_dir.h"
#include "tuner/knobs/knob.h"

using namespace tuner;

TEST_CASE("thp knobs: the bracketed word is the value; only offered words are written") {
  testing::TempDir dir("tuner-thp");
  testing::FakeSysfs sysfs(dir);
  sysfs.thp();
  KnobContext ctx{Root::open(dir.path).value()};
  ctx.fake_machine = true;
  ctx.fake_kernel = sysfs.kernel();
  auto thp = make_knob("mm:thp", ctx);
  auto defrag = make_knob("mm:thp_defrag", ctx);
  REQUIRE(thp.ok());
  REQUIRE(defrag.ok());
  CHECK((*thp)->read().value() == "madvise");
  CHECK((*defrag)->read().value() == "madvise");
  CHECK((*defrag)->canonical("defer+madvise").value() == "defer+madvise");
  auto bad = (*thp)->canonical("defer");  // a defrag word, not an enabled one
  REQUIRE(!bad.ok());
  CHECK(bad.error().what ==
        "THP mode 'defer' is not offered here (this machine offers: always, madvise, never)");
  CHECK(bad.error().where == "mm:thp");

  REQUIRE((*thp)->write("never").ok());
  CHECK(testing::sysfs_value(dir / "sys/kernel/mm/transparent_hugepage/enabled") ==
        "always madvise [never]");
  CHECK((*thp)->read().value() == "never");
  REQUIRE((*defrag)->write("defer+madvise").ok());
  CHECK((*defrag)->read().value() == "defer+madvise");
  CHECK(!(*thp)->write("sometimes").ok());
  CHECK((*thp)->read().value() == "never");

  // A file that has lost its brackets is an error naming the knob and the path.
  dir.write("sys/kernel/mm/transparent_hugepage/enabled", "never\n");
  auto broken = (*thp)->read();
  REQUIRE(!broken.ok());
  CHECK(broken.error().is(ErrorKind::invalid));
  CHECK(broken.error().where.find("mm:thp (") == 0);
}

TEST_CASE("thp knobs: a kernel without THP is missing; a capture without sys/kernel unknown") {
  testing::TempDir dir("tuner-thp");
  KnobContext ctx{Root::open(dir.path).value()};
  auto k = make_knob("mm:thp", ctx);
  REQUIRE(!k.ok());
  CHECK(k.error().is(ErrorKind::unsupported));
  dir.write("sys/kernel/mm/ksm/run", "0\n");
  k = make_knob("mm:thp_defrag", ctx);
  REQUIRE(!k.ok());
  CHECK(k.error().is(ErrorKind::missing));
  CHECK(k.error().where == "mm:thp_defrag");
}

TEST_CASE("thp knobs: the live kernel's files read as offered words (read only)") {
  KnobContext ctx{Root::live()};
  for (const char* id : {"mm:thp", "mm:thp_defrag"}) {
    auto k = make_knob(id, ctx);
    if (!k.ok()) {
      CHECK(k.error().is(ErrorKind::missing));  // a kernel without THP
      continue;
    }
    auto v = (*k)->read();
    REQUIRE_MESSAGE(v.ok(), v.error().message());
    CHECK((*k)->canonical(*v).value() == *v);
  }
}
