// proc/swaps: the header as this build machine's kernel prints it (no swap), and device
// lines in the kernel's format (mm/swapfile.c swap_show: the name padded to 40
// columns, then tabs), with a zram device, a partition, a file, and garbage.
#include "probes/swap.h"

#include <doctest/doctest.h>

#include "tests/support/temp_dir.h"

namespace tuner {
namespace {

constexpr const char* kHeader = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n";

std::vector<SwapDevice> parsed(const std::string& lines) {
  auto swaps = parse_swaps(kHeader + lines);
  REQUIRE_MESSAGE(swaps.ok(), swaps.error().message());
  return *swaps;
}

}  // namespace

TEST_CASE("swap: proc/swaps lines") {
  CHECK(parsed("").empty());  // no swap: the header alone

  auto zram = parsed("/dev/zram0                              partition\t8388604\t\t1024\t\t100\n");
  REQUIRE(zram.size() == 1);
  CHECK(zram[0].name == "/dev/zram0");
  CHECK(zram[0].type == "partition");
  CHECK(zram[0].size_kib == 8388604);
  CHECK(zram[0].used_kib == 1024);
  CHECK(zram[0].priority == 100);
  CHECK(is_zram(zram[0]));
  CHECK(zram_only(zram));

  auto mixed = parsed("/dev/zram0                              partition\t8388604\t\t0\t\t100\n"
                      "/dev/nvme0n1p3                          partition\t16777212\t0\t\t-2\n"
                      "/swap\\040file.img                       file\t\t2097148\t\t0\t\t-3\n");
  REQUIRE(mixed.size() == 3);
  CHECK_FALSE(is_zram(mixed[1]));
  CHECK(mixed[1].priority == -2);
  CHECK(mixed[2].type == "file");
  CHECK(mixed[2].name == "/swap\\040file.img");       // as the kernel shows it
  CHECK_FALSE(zram_only(mixed));                      // a disk is there too
  CHECK_FALSE(zram_only(std::vector<SwapDevice>{}));  // no swap at all
  CHECK_FALSE(zram_only(std::nullopt));               // unknown

  auto two = parsed("/dev/zram0                              partition\t4194300\t\t0\t\t100\n"
                    "/dev/block/zram1                        partition\t4194300\t\t0\t\t100\n");
  CHECK(zram_only(two));
  // Names that only look alike: a file called zram0, a zram-backed partition's name.
  CHECK_FALSE(is_zram({"/var/zram0", "file", 1, 0, -2}));
  CHECK_FALSE(is_zram({"/dev/zramx", "partition", 1, 0, -2}));
  CHECK_FALSE(is_zram({"/dev/zram", "partition", 1, 0, -2}));
}

TEST_CASE("swap: garbage is an error, never a guess") {
  // A line that cannot be read might be a disk: the caller must not conclude zram only.
  for (const char* bad :
       {"/dev/zram0 partition 8388604 0\n", "/dev/sda2 disk 1 0 -2\n",
        "/dev/sda2 partition lots 0 -2\n", "/dev/sda2 partition 1 0 -2 extra\n"}) {
    CAPTURE(bad);
    auto swaps = parse_swaps(std::string(kHeader) + "/dev/zram0 partition 1 0 100\n" + bad);
    REQUIRE_FALSE(swaps.ok());
    CHECK(swaps.error().kind == ErrorKind::invalid);
    CHECK(swaps.error().where == "proc/swaps:3");
  }
  CHECK_FALSE(parse_swaps("/dev/zram0 partition 1 0 100\n").ok());  // no header
  CHECK(parse_swaps("").ok());                                      // an empty file: nothing swaps
}

TEST_CASE("swap: probed through the root") {
  std::vector<ProbeError> errors;
  testing::TempDir none;
  CHECK_FALSE(probe_swaps(Root::open(none.path).value(), errors).has_value());
  CHECK(errors.empty());  // a capture without proc/swaps cannot say

  testing::TempDir zram;
  zram.write("proc/swaps", std::string(kHeader) + "/dev/zram0 partition 8388604 0 100\n");
  auto swaps = probe_swaps(Root::open(zram.path).value(), errors);
  REQUIRE(swaps.has_value());
  CHECK(zram_only(swaps));
  CHECK(errors.empty());

  testing::TempDir garbage;
  garbage.write("proc/swaps", "<html>not swaps</html>\n");
  CHECK_FALSE(probe_swaps(Root::open(garbage.path).value(), errors).has_value());
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].probe == "swap");
  CHECK(errors[0].message.find("proc/swaps:1") != std::string::npos);
}

}  // namespace tuner
