// Clock: the seam for time (STYLE.md "One seam per OS surface"). Code that waits or
// measures elapsed time takes a Clock&, so tests run it on a FakeClock that advances
// only when slept on, and nothing in a unit test really sleeps.
#pragma once

#include <chrono>
#include <thread>

#include "base/interrupt.h"

namespace tuner {

class Clock {
 public:
  using duration = std::chrono::nanoseconds;
  using time_point = std::chrono::steady_clock::time_point;

  virtual ~Clock() = default;
  /// Monotonic now.
  virtual time_point now() = 0;
  virtual void sleep_for(duration d) = 0;
  /// sleep_for, but a signal ends it early (base/interrupt.h): for the verify loop's
  /// long waits (a soak window), never for a knob that waits for a link to settle,
  /// which a rollback after the signal still needs.
  virtual void wait_for(duration d) { sleep_for(d); }
};

/// The machine's monotonic clock.
class SteadyClock final : public Clock {
 public:
  time_point now() override { return std::chrono::steady_clock::now(); }
  void sleep_for(duration d) override { std::this_thread::sleep_for(d); }
  void wait_for(duration d) override { sleep_unless_interrupted(d); }
  /// One process-wide instance for code that has no other.
  static SteadyClock& instance() {
    static SteadyClock clock;
    return clock;
  }
};

/// A clock for tests: sleeping advances it at once; advance() moves it by hand.
class FakeClock final : public Clock {
 public:
  time_point now() override { return now_; }
  void sleep_for(duration d) override {
    now_ += d;
    slept_ += d;
  }
  void advance(duration d) { now_ += d; }
  /// Total time slept on this clock.
  duration slept() const { return slept_; }

 private:
  time_point now_{};
  duration slept_{0};
};

}  // namespace tuner
