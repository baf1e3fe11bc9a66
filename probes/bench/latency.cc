#include "probes/bench/latency.h"

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "probes/bench/bench_bind.h"
#include "probes/bench/bench_cpus.h"

namespace tuner::bench {

namespace {

constexpr int64_t kNsPerSec = 1'000'000'000;

int64_t to_ns(const timespec& t) { return t.tv_sec * kNsPerSec + t.tv_nsec; }
timespec from_ns(int64_t ns) {
  return {static_cast<time_t>(ns / kNsPerSec), static_cast<long>(ns % kNsPerSec)};
}

double us(int64_t ns) { return static_cast<double>(ns) / 1000.0; }

Metric lower(std::string name, double value, std::string unit = "us") {
  return {std::move(name), value, std::move(unit), Direction::lower};
}

// What one measuring thread found, and what it was refused.
struct ThreadResult {
  Status bound = Ok{};
  int fifo_error = 0;  // errno of pthread_setschedparam, 0 when granted or not asked
  std::vector<int64_t> samples;
  uint64_t overruns = 0;
};

// cyclictest's loop: sleep to an absolute deadline, read the clock, record how late.
// A wake-up later than the next deadline skips the deadlines already passed (counted
// as overruns) rather than firing a burst of late wake-ups.
void measure_on(unsigned cpu, const LatencyOptions& opts, std::size_t loops, ThreadResult& out) {
  out.bound = bind_this_thread(CpuSet({cpu}));
  if (!out.bound.ok()) return;
  if (opts.priority > 0) {
    sched_param sp{};
    sp.sched_priority = opts.priority;
    out.fifo_error = ::pthread_setschedparam(::pthread_self(), SCHED_FIFO, &sp);
  }
  out.samples.reserve(loops);
  const int64_t interval = std::chrono::nanoseconds(opts.interval).count();
  timespec now;
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  int64_t next = to_ns(now) + interval;
  for (std::size_t i = 0; i < loops; ++i) {
    const timespec deadline = from_ns(next);
    while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nullptr) == EINTR) {
    }
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    const int64_t woke = to_ns(now);
    out.samples.push_back(woke - next);
    next += interval;
    while (woke > next) {
      next += interval;
      ++out.overruns;
    }
  }
}

}  // namespace

std::vector<Metric> latency_metrics(const std::vector<CpuLatency>& cpus, int priority_used,
                                    LatencyOptions::Main main) {
  int64_t p50 = 0, p99 = 0, p9999 = 0, max = 0;
  uint64_t overruns = 0;
  for (const CpuLatency& c : cpus) {
    p50 = std::max(p50, c.ns.p50);
    p99 = std::max(p99, c.ns.p99);
    p9999 = std::max(p9999, c.ns.p9999);
    max = std::max(max, c.ns.max);
    overruns += c.overruns;
  }
  std::vector<Metric> out = {lower("wakeup_p99", us(p99)), lower("wakeup_p50", us(p50)),
                             lower("wakeup_max", us(max)), lower("wakeup_p9999", us(p9999)),
                             lower("wakeup_overruns", static_cast<double>(overruns), "count")};
  if (main == LatencyOptions::Main::max) std::rotate(out.begin(), out.begin() + 2, out.begin() + 3);
  if (main == LatencyOptions::Main::p9999)
    std::rotate(out.begin(), out.begin() + 3, out.begin() + 4);
  if (cpus.size() > 1) {
    for (const CpuLatency& c : cpus) {
      const std::string cpu = "_cpu" + std::to_string(c.cpu);
      out.push_back(lower("wakeup_p50" + cpu, us(c.ns.p50)));
      out.push_back(lower("wakeup_p99" + cpu, us(c.ns.p99)));
      out.push_back(lower("wakeup_max" + cpu, us(c.ns.max)));
    }
  }
  out.push_back(
      {"sched_priority", static_cast<double>(priority_used), "priority", Direction::higher});
  return out;
}

Result<CpuSet> latency_cpus(const Topology& topo, const CpuSet& allowed,
                            const LatencyOptions& opts) {
  if (!opts.cpus.empty()) {
    CpuSet outside = opts.cpus.minus(allowed);
    if (!outside.empty())
      return Error{ErrorKind::invalid,
                   "CPUs " + outside.to_string() + " are not allowed to this process (" +
                       allowed.to_string() + ")",
                   "latency", EINVAL};
    return opts.cpus;
  }
  CpuSet chosen = last_cpu_per_node(topo, allowed);
  if (chosen.empty())
    return Error::missing(
        "no NUMA node has a CPU this process may run on (" + allowed.to_string() + ")", "latency",
        ENOENT);
  return chosen;
}

LatencyBench::LatencyBench(Topology topo, LatencyOptions opts)
    : topo_(std::move(topo)), opts_(std::move(opts)) {}

Status LatencyBench::check() {
  if (opts_.interval.count() <= 0)
    return Error{ErrorKind::invalid, "interval must be positive", "latency", EINVAL};
  if (opts_.duration < opts_.interval)
    return Error{ErrorKind::invalid, "duration is shorter than one interval", "latency", EINVAL};
  if (opts_.priority < 0 || opts_.priority > ::sched_get_priority_max(SCHED_FIFO))
    return Error{ErrorKind::invalid,
                 "priority must be 0 (SCHED_OTHER) or a SCHED_FIFO priority 1-" +
                     std::to_string(::sched_get_priority_max(SCHED_FIFO)),
                 "latency", EINVAL};
  auto cpus = latency_cpus(topo_, allowed_cpus(), opts_);
  if (!cpus.ok()) return cpus.error();
  return Ok{};
}

Result<Measurement> LatencyBench::run() {
  const auto start = std::chrono::steady_clock::now();
  if (auto st = check(); !st.ok()) return st.error();
  CpuSet cpus = *latency_cpus(topo_, allowed_cpus(), opts_);
  notes_.clear();
  const std::size_t loops = static_cast<std::size_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(opts_.duration) / opts_.interval);

  bool locked = false;
  if (opts_.lock_memory) {
    locked = ::mlockall(MCL_CURRENT | MCL_FUTURE) == 0;
    if (!locked) notes_.push_back(std::string("mlockall refused: ") + std::strerror(errno));
  }
  std::vector<ThreadResult> results(cpus.size());
  {
    std::vector<std::thread> threads;
    threads.reserve(cpus.size());
    for (std::size_t i = 0; i < cpus.size(); ++i)
      threads.emplace_back(measure_on, cpus.cpus()[i], std::cref(opts_), loops,
                           std::ref(results[i]));
    for (auto& t : threads) t.join();
  }
  if (locked) ::munlockall();

  int priority_used = opts_.priority;
  std::vector<CpuLatency> per_cpu;
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    ThreadResult& r = results[i];
    if (!r.bound.ok()) return r.bound.error();
    if (r.fifo_error != 0 && priority_used != 0) {
      priority_used = 0;
      notes_.push_back("SCHED_FIFO " + std::to_string(opts_.priority) +
                       " refused, measured under SCHED_OTHER: " + std::strerror(r.fifo_error));
    }
    per_cpu.push_back({cpus.cpus()[i], summarize(std::move(r.samples)), r.overruns});
  }
  Measurement m;
  m.metrics = latency_metrics(per_cpu, priority_used, opts_.main);
  m.elapsed = std::chrono::steady_clock::now() - start;
  return m;
}

std::unique_ptr<Benchmark> make_latency(Topology topo, LatencyOptions opts) {
  return std::make_unique<LatencyBench>(std::move(topo), std::move(opts));
}

}  // namespace tuner::bench
