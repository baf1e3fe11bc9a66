// The portable binary's glibc floor (cmake/Portable.cmake): built on Debian 11 (glibc
// 2.31), it must run on EL8's 2.28. Four symbols would ask for newer: exp, log and pow
// at GLIBC_2.29 (the same functions without the SVID error-handling wrapper; the old
// versions are still exported) and pthread_cond_clockwait at GLIBC_2.30 (the static
// libstdc++'s steady-clock wait: std::condition_variable::wait_until). The portable link
// wraps them (-Wl,--wrap=NAME: tuner/cli/CMakeLists.txt), and these wrappers call what
// EL8 has: the GLIBC_2.2.5 math functions, and pthread_cond_clockwait where the running
// glibc has it, else pthread_cond_timedwait on the same deadline moved to CLOCK_REALTIME
// (the condition variable's clock; a wall-clock step during the wait shifts it).
// packaging/portable_check.sh asserts the floor. Other builds compile nothing here.
#ifdef TUNER_GLIBC_COMPAT
#include <dlfcn.h>
#include <pthread.h>
#include <time.h>

__asm__(".symver tuner_exp_2_2_5,exp@GLIBC_2.2.5");
__asm__(".symver tuner_log_2_2_5,log@GLIBC_2.2.5");
__asm__(".symver tuner_pow_2_2_5,pow@GLIBC_2.2.5");

// NOLINTBEGIN(bugprone-reserved-identifier): the names ld's --wrap gives them.
extern "C" {
double tuner_exp_2_2_5(double);
double tuner_log_2_2_5(double);
double tuner_pow_2_2_5(double, double);

double __wrap_exp(double x) { return tuner_exp_2_2_5(x); }
double __wrap_log(double x) { return tuner_log_2_2_5(x); }
double __wrap_pow(double x, double y) { return tuner_pow_2_2_5(x, y); }

int __wrap_pthread_cond_clockwait(pthread_cond_t* cond, pthread_mutex_t* mutex, clockid_t clock,
                                  const struct timespec* abstime) {
  using ClockWait = int (*)(pthread_cond_t*, pthread_mutex_t*, clockid_t, const struct timespec*);
  static const ClockWait real =
      reinterpret_cast<ClockWait>(dlsym(RTLD_DEFAULT, "pthread_cond_clockwait"));
  if (real) return real(cond, mutex, clock, abstime);
  struct timespec now {};
  struct timespec wall {};
  clock_gettime(clock, &now);
  clock_gettime(CLOCK_REALTIME, &wall);
  long long ns = (static_cast<long long>(abstime->tv_sec) - now.tv_sec) * 1000000000LL +
                 (abstime->tv_nsec - now.tv_nsec);
  if (ns < 0) ns = 0;
  ns += wall.tv_nsec;
  wall.tv_sec += static_cast<time_t>(ns / 1000000000LL);
  wall.tv_nsec = static_cast<long>(ns % 1000000000LL);
  return pthread_cond_timedwait(cond, mutex, &wall);
}
}
// NOLINTEND(bugprone-reserved-identifier)
#endif
