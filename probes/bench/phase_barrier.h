// std::barrier with a completion step, or the same in a mutex and a condition variable
// where the C++ library has none (libstdc++ before 11: Debian 11's GCC 10).
#pragma once

#include <version>

#ifdef __cpp_lib_barrier
#include <barrier>
#else
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <utility>
#endif

namespace tuner::bench {

#ifdef __cpp_lib_barrier
template <typename OnPhase>
using PhaseBarrier = std::barrier<OnPhase>;
#else
/// n threads meet at arrive_and_wait(); the last to arrive runs on_phase() before any
/// is let go, as std::barrier's completion function runs.
template <typename OnPhase>
class PhaseBarrier {
 public:
  PhaseBarrier(std::ptrdiff_t n, OnPhase on_phase) : n_(n), on_phase_(std::move(on_phase)) {}

  void arrive_and_wait() {
    std::unique_lock lock(mu_);
    const unsigned long gen = generation_;
    if (++arrived_ == n_) {
      on_phase_();
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [&] { return generation_ != gen; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::ptrdiff_t n_;
  std::ptrdiff_t arrived_ = 0;
  unsigned long generation_ = 0;
  OnPhase on_phase_;
};
#endif

}  // namespace tuner::bench
