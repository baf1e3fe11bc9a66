// Parsing a [bench.NAME] table of kind "tcp": the keys the shipped profiles' peer
// benchmarks use (rr_duration = "0s", direction).
#include <chrono>
#include <string>

#include <doctest/doctest.h>

#include "tuner/profile/parse.h"
#include "tuner/profile/profile.h"

using namespace tuner;

TEST_CASE("parse_bench: a tcp benchmark's rr_duration may be 0 (no request/response phase)") {
  auto f = parse_profile_file(
      "[bench.bulk]\nkind = \"tcp\"\nstreams = 8\nduration = \"4s\"\nrr_duration = \"0s\"\n",
      "b.toml");
  REQUIRE_MESSAGE(f.ok(), f.error().message());
  const BenchSpec& b = f->profile.benches.at("bulk");
  CHECK(b.tcp.streams == 8);
  CHECK(b.tcp.duration == std::chrono::seconds{4});
  CHECK(b.tcp.rr_duration == std::chrono::milliseconds{0});
  // The stream phase still needs a duration.
  auto zero = parse_profile_file("[bench.x]\nkind = \"tcp\"\nduration = \"0s\"\n", "z.toml");
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.error().message().find("'duration' in [bench.x] = \"0s\": expected a duration") !=
        std::string::npos);
}

TEST_CASE("parse_bench: a tcp benchmark's direction: out by default, in when asked") {
  auto f = parse_profile_file("[bench.rx]\nkind = \"tcp\"\nstreams = 8\ndirection = \"in\"\n"
                              "[bench.tx]\nkind = \"tcp\"\n",
                              "d.toml");
  REQUIRE_MESSAGE(f.ok(), f.error().message());
  CHECK(f->profile.benches.at("rx").tcp.direction == bench::StreamDirection::in);
  CHECK(f->profile.benches.at("tx").tcp.direction == bench::StreamDirection::out);
  auto bad = parse_profile_file("[bench.x]\nkind = \"tcp\"\ndirection = \"sideways\"\n", "s.toml");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message().find("s.toml:3:13") != std::string::npos);
  CHECK(bad.error().message().find("'direction' in [bench.x] = \"sideways\"") != std::string::npos);
}
