#include "probes/bench/membw_triad.h"

#include <atomic>
#include <mutex>
#include <thread>

#include "probes/bench/bench_bind.h"
#include "probes/bench/phase_barrier.h"

namespace tuner::bench {

namespace {

using Clock = std::chrono::steady_clock;

// Runs body(t) on one thread per CPU, thread t bound to the t-th CPU, and returns the
// first binding error. A thread that cannot be bound sets `failed` and still runs
// body, so that barriers inside it are complete; body decides what to skip.
template <typename Body>
Status on_each_cpu(const CpuSet& cpus, std::atomic<bool>& failed, Body&& body) {
  const auto& list = cpus.cpus();
  std::mutex m;
  Status first = Ok{};
  std::vector<std::thread> threads;
  threads.reserve(list.size());
  for (unsigned t = 0; t < list.size(); ++t) {
    threads.emplace_back([&, t] {
      Status st = bind_this_thread(CpuSet({list[t]}));
      if (!st.ok()) {
        std::lock_guard lock(m);
        if (first.ok()) first = st.error();
        failed = true;
      }
      body(t);
    });
  }
  for (auto& th : threads) th.join();
  return first;
}

}  // namespace

void triad(double* __restrict a, const double* __restrict b, const double* __restrict c, double s,
           std::size_t n) {
  const std::size_t body = n & ~std::size_t{7};
  for (std::size_t i = 0; i < body; ++i) a[i] = b[i] + s * c[i];
  for (std::size_t i = body; i < n; ++i) a[i] = b[i] + s * c[i];
}

std::pair<std::size_t, std::size_t> slice(std::size_t n, unsigned t, unsigned threads) {
  auto edge = [&](unsigned k) {
    if (k >= threads) return n;
    return (n / threads * k + n % threads * k / threads) & ~std::size_t{7};
  };
  return {edge(t), edge(t + 1)};
}

Status fill_arrays(const TriadArrays& arr, const CpuSet& cpus) {
  const auto threads = static_cast<unsigned>(cpus.size());
  std::atomic<bool> failed{false};
  return on_each_cpu(cpus, failed, [&](unsigned t) {
    auto [lo, hi] = slice(arr.n, t, threads);
    for (std::size_t i = lo; i < hi; ++i) {
      arr.a[i] = 0.0;
      arr.b[i] = kTriadB;
      arr.c[i] = kTriadC;
    }
  });
}

Result<std::vector<std::chrono::nanoseconds>> time_triad(const TriadArrays& arr, const CpuSet& cpus,
                                                         const TriadRun& run) {
  const auto threads = static_cast<unsigned>(cpus.size());
  std::vector<std::chrono::nanoseconds> times;
  times.reserve(run.max_reps);
  // Phases: 0 = all threads bound; then odd = a repetition starts, even = it ended.
  // The completion step runs once per phase, on one thread, before any is released,
  // so `stop` and the clock readings need no further synchronisation.
  unsigned phase = 0;
  bool stop = false;
  std::atomic<bool> bind_failed{false};
  Clock::time_point begin, rep_start;
  auto on_phase = [&]() noexcept {
    Clock::time_point now = Clock::now();
    if (phase == 0) {
      stop = bind_failed.load();
      begin = now;
    } else if (phase % 2 == 1) {
      rep_start = now;
    } else {
      times.push_back(now - rep_start);
      const auto reps = times.size();
      stop = reps >= run.max_reps || (reps >= run.min_reps && now - begin >= run.budget);
    }
    ++phase;
  };
  PhaseBarrier<decltype(on_phase)> sync(static_cast<std::ptrdiff_t>(threads), on_phase);
  Status st = on_each_cpu(cpus, bind_failed, [&](unsigned t) {
    auto [lo, hi] = slice(arr.n, t, threads);
    sync.arrive_and_wait();
    while (!stop) {
      sync.arrive_and_wait();
      triad(arr.a + lo, arr.b + lo, arr.c + lo, kTriadScalar, hi - lo);
      sync.arrive_and_wait();
    }
  });
  if (!st.ok()) return st.error();
  return times;
}

}  // namespace tuner::bench
