#include "probes/bench/membw_triad.h"

#include <doctest/doctest.h>

#include <vector>

#include "probes/bench/bench_bind.h"

namespace tuner::bench {

using namespace std::chrono_literals;

TEST_CASE("triad: the kernel computes a = b + s*c, tail included") {
  for (std::size_t n : {0u, 1u, 7u, 8u, 37u}) {
    std::vector<double> a(n, -1), b(n), c(n);
    for (std::size_t i = 0; i < n; ++i) b[i] = double(i), c[i] = 0.5 * double(i);
    triad(a.data(), b.data(), c.data(), 2.0, n);
    for (std::size_t i = 0; i < n; ++i) CHECK(a[i] == doctest::Approx(2.0 * double(i)));
  }
}

TEST_CASE("triad: slices cover the array once, on cache-line boundaries") {
  for (std::size_t n : {8u, 64u, 1000u, 12345u, 1u << 20}) {
    for (unsigned threads : {1u, 2u, 3u, 7u}) {
      std::size_t expect = 0;
      for (unsigned t = 0; t < threads; ++t) {
        auto [lo, hi] = slice(n, t, threads);
        CAPTURE(n);
        CAPTURE(t);
        CHECK(lo == expect);
        CHECK(lo % 8 == 0);
        CHECK(hi >= lo);
        expect = hi;
      }
      CHECK(expect == n);
    }
  }
}

TEST_CASE("triad live: every thread's slice is computed, and repetitions are timed") {
  const std::size_t n = 100'003;
  std::vector<double> a(n), b(n), c(n);
  TriadArrays arr{a.data(), b.data(), c.data(), n};
  CpuSet cpus = allowed_cpus();
  REQUIRE(fill_arrays(arr, cpus).ok());
  CHECK(b[n - 1] == kTriadB);
  auto times = time_triad(arr, cpus, {20ms, 3, 1000});
  REQUIRE_MESSAGE(times.ok(), times.error().message());
  CHECK(times->size() >= 3);
  CHECK(times->size() <= 1000);
  for (auto t : *times) CHECK(t > 0ns);
  std::size_t wrong = 0;
  for (double v : a) wrong += v != kTriadB + kTriadScalar * kTriadC;
  CHECK(wrong == 0);

  // A minimum beats the budget; the cap beats both.
  auto three = time_triad(arr, cpus, {0ns, 3, 1000});
  REQUIRE(three.ok());
  CHECK(three->size() == 3);
  auto capped = time_triad(arr, cpus, {10s, 2, 4});
  REQUIRE(capped.ok());
  CHECK(capped->size() == 4);
}

TEST_CASE("triad live: a CPU that cannot be used is an error, not a hang") {
  std::vector<double> a(64), b(64), c(64);
  TriadArrays arr{a.data(), b.data(), c.data(), 64};
  CpuSet cpus = allowed_cpus();
  cpus.add(4000);
  auto times = time_triad(arr, cpus, {1ms, 3, 10});
  REQUIRE(!times.ok());
  CHECK(times.error().message().find("4000") != std::string::npos);
  CHECK(!fill_arrays(arr, cpus).ok());
}

}  // namespace tuner::bench
