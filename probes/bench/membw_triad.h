// The STREAM triad kernel and the threads that run it: one thread per CPU of a set,
// each bound to its CPU and working on its own contiguous slice, with every
// repetition timed between two barriers as STREAM times its parallel loop.
#pragma once

#include <chrono>
#include <cstddef>
#include <vector>

#include "base/cpuset.h"
#include "base/result.h"

namespace tuner::bench {

/// a[i] = b[i] + s * c[i] for i < n. The body runs over a multiple of 8 elements so
/// that g++ -O2 (whose cheap cost model rejects loops needing a scalar epilogue)
/// vectorises it; the tail, if any, follows.
void triad(double* __restrict a, const double* __restrict b, const double* __restrict c, double s,
           std::size_t n);

/// Three arrays of n doubles; they must not overlap.
struct TriadArrays {
  double* a = nullptr;
  double* b = nullptr;
  double* c = nullptr;
  std::size_t n = 0;
};

/// The values fill_arrays writes and the triad scalar: after any number of
/// repetitions every a[i] is kTriadB + kTriadScalar * kTriadC.
inline constexpr double kTriadB = 1.0, kTriadC = 2.0, kTriadScalar = 3.0;

/// [begin, end) of thread t's slice among `threads`: contiguous, starting on a
/// multiple of 8 elements (a 64-byte cache line), covering [0, n) exactly once.
std::pair<std::size_t, std::size_t> slice(std::size_t n, unsigned t, unsigned threads);

/// Writes a = 0, b = kTriadB, c = kTriadC from one thread bound to each CPU of `cpus`:
/// the first touch, which faults the pages in (on the node their memory policy says).
Status fill_arrays(const TriadArrays& arrays, const CpuSet& cpus);

/// How long to repeat the triad.
struct TriadRun {
  std::chrono::nanoseconds budget{0};  // stop starting repetitions after this much...
  unsigned min_reps = 3;               // ...but only once this many have run
  unsigned max_reps = 1000;
};

/// Runs the triad from one thread bound to each CPU of `cpus` and returns the time of
/// each repetition (barrier to barrier, all threads). An Error when a thread cannot be
/// bound; no thread is left running.
Result<std::vector<std::chrono::nanoseconds>> time_triad(const TriadArrays& arrays,
                                                         const CpuSet& cpus, const TriadRun& run);

}  // namespace tuner::bench
