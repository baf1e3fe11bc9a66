#include "probes/bench/percentile.h"

#include <doctest/doctest.h>

#include <numeric>

namespace tuner::bench {

TEST_CASE("percentile: nearest rank on 1..100 is the rank itself") {
  std::vector<int64_t> v(100);
  std::iota(v.begin(), v.end(), 1);
  CHECK(percentile_sorted(v, 50) == 50);
  CHECK(percentile_sorted(v, 99) == 99);
  CHECK(percentile_sorted(v, 100) == 100);
  CHECK(percentile_sorted(v, 0.5) == 1);
}

TEST_CASE("percentile: a few samples round up, never interpolate") {
  // 10 samples: p99 is rank ceil(9.9) = 10, the maximum; p50 is rank 5.
  std::vector<int64_t> v = {5, 1, 9, 3, 7, 2, 8, 4, 6, 1000};
  Percentiles s = summarize(v);
  CHECK(s.count == 10);
  CHECK(s.min == 1);
  CHECK(s.p50 == 5);
  CHECK(s.p99 == 1000);
  CHECK(s.max == 1000);
  // One sample: every percentile is that sample.
  Percentiles one = summarize({42});
  CHECK(one.p50 == 42);
  CHECK(one.p99 == 42);
  CHECK(one.max == 42);
}

TEST_CASE("percentile: one outlier in a thousand moves the max, not the p99") {
  std::vector<int64_t> v(1000, 10);
  v[123] = 5000;
  for (int i = 0; i < 5; ++i) v[i] = 20;  // 0.5% at 20
  Percentiles s = summarize(v);
  CHECK(s.p50 == 10);
  CHECK(s.p99 == 10);  // 0.6% above 10: the 990th value is still 10
  CHECK(s.max == 5000);
  for (int i = 5; i < 15; ++i) v[i] = 20;  // now 1.5% above 10
  CHECK(summarize(v).p99 == 20);
}

TEST_CASE("percentile: ranks stay exact for large sample counts") {
  for (std::size_t n : {100u, 1000u, 1'000'000u, 30'000'000u}) {
    std::vector<int64_t> v(n);
    std::iota(v.begin(), v.end(), 1);
    CAPTURE(n);
    CHECK(percentile_sorted(v, 99) == static_cast<int64_t>(n / 100 * 99));
    CHECK(percentile_sorted(v, 50) == static_cast<int64_t>(n / 2));
  }
  // Percentages whose p/100*n lands a hair above a whole rank in floating point.
  std::vector<int64_t> v(1000);
  std::iota(v.begin(), v.end(), 1);
  CHECK(percentile_sorted(v, 99.9) == 999);
  CHECK(percentile_sorted(v, 7) == 70);
  CHECK(percentile_sorted(v, 56) == 560);
}

TEST_CASE("percentile: empty input summarises to count 0") {
  Percentiles s = summarize({});
  CHECK(s.count == 0);
  CHECK(s.max == 0);
}

TEST_CASE("percentile: p99.99 of 10 000 wake-ups sees two in ten thousand, p99 does not") {
  // 10 s of 1 ms wake-ups with two once-a-few-seconds disturbances (vmstat's update).
  std::vector<int64_t> v(10000, 10);
  v[1000] = 300;
  v[6000] = 250;
  Percentiles s = summarize(v);
  CHECK(s.p99 == 10);
  CHECK(s.p9999 == 250);  // rank 9999 of 10 000: the second worst
  CHECK(s.max == 300);
  v[6000] = 10;
  CHECK(summarize(v).p9999 == 10);  // one in ten thousand: only the max shows it
}

}  // namespace tuner::bench
