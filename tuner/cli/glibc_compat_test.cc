// The portable binary's wrappers (glibc_compat.cc), compiled here as the portable build
// compiles them, with dlsym made to find nothing: what EL8's glibc 2.28, which has no
// pthread_cond_clockwait, gets. The portable link itself (the --wrap options, the
// GLIBC_2.2.5 math versions, the highest version asked) is packaging/portable_check.sh's.
#include <dlfcn.h>
#include <pthread.h>
#include <time.h>

#include <doctest/doctest.h>

#include <cerrno>
#include <cmath>
#include <initializer_list>

#define TUNER_GLIBC_COMPAT
#define dlsym(handle, name) static_cast<void*>(nullptr)  // NOLINT: EL8 has no clockwait
#include "tuner/cli/glibc_compat.cc"  // NOLINT(bugprone-suspicious-include): compiled as the portable build does
#undef dlsym

namespace tuner {
namespace {

double ms_between(const timespec& a, const timespec& b) {
  return static_cast<double>(b.tv_sec - a.tv_sec) * 1e3 +
         static_cast<double>(b.tv_nsec - a.tv_nsec) / 1e6;
}

}  // namespace

TEST_CASE("glibc compat: a steady-clock wait without pthread_cond_clockwait keeps its deadline") {
  pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
  pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
  timespec start{}, deadline{}, end{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  deadline = start;
  deadline.tv_nsec += 200000000;
  if (deadline.tv_nsec >= 1000000000) deadline.tv_sec += 1, deadline.tv_nsec -= 1000000000;
  pthread_mutex_lock(&mutex);
  int rc = __wrap_pthread_cond_clockwait(&cond, &mutex, CLOCK_MONOTONIC, &deadline);
  pthread_mutex_unlock(&mutex);
  clock_gettime(CLOCK_MONOTONIC, &end);
  CHECK(rc == ETIMEDOUT);
  CHECK(ms_between(start, end) >= 195);  // not before the deadline (clock rounding aside)
  CHECK(ms_between(start, end) < 5000);  // and it ends
  // A deadline already past returns at once.
  pthread_mutex_lock(&mutex);
  rc = __wrap_pthread_cond_clockwait(&cond, &mutex, CLOCK_MONOTONIC, &start);
  pthread_mutex_unlock(&mutex);
  CHECK(rc == ETIMEDOUT);
}

TEST_CASE("glibc compat: the GLIBC_2.2.5 math functions give the same results") {
  for (double x : {-3.5, 0.0, 1.0, 2.5, 700.0}) CHECK(__wrap_exp(x) == std::exp(x));
  for (double x : {1e-300, 0.5, 1.0, 10.0, 1e300}) CHECK(__wrap_log(x) == std::log(x));
  CHECK(__wrap_pow(2.0, 0.5) == std::pow(2.0, 0.5));
  CHECK(__wrap_pow(10.0, -3.0) == std::pow(10.0, -3.0));
}

}  // namespace tuner
