#include "probes/bench/membw.h"

#include <algorithm>
#include <cerrno>
#include <limits>
#include <string>
#include <tuple>

#include <fmt/core.h>

#include "probes/bench/bench_bind.h"
#include "probes/bench/membw_triad.h"

namespace tuner::bench {

namespace {

using std::chrono::nanoseconds;

constexpr unsigned kMaxReps = 1000;
// The arrays sit in one mapping; their starts differ by 1088 bytes modulo 4 KiB so
// that a[i], b[i] and c[i] never alias in the L1 (4K aliasing stalls loads behind
// stores on x86), as STREAM's OFFSET and likwid-bench's offsets avoid too.
constexpr uint64_t kArrayGap = 1088;

std::string node_name(unsigned n) { return "node" + std::to_string(n); }

Error invalid(const std::string& what) { return Error{ErrorKind::invalid, what, "membw", EINVAL}; }

// Each array's start in the mapping: a page-rounded array plus kArrayGap.
uint64_t array_stride(uint64_t elements) {
  return (elements * sizeof(double) + 4095) / 4096 * 4096 + kArrayGap;
}

// Memory the run maps on each node, and the most it may: half of what is free, so a
// benchmark never pushes a node into reclaim (MPOL_BIND cannot spill to another node).
Status check_free_memory(const MembwPlan& plan) {
  const uint64_t need = 3 * array_stride(plan.elements);
  for (const NodeCpus& n : plan.nodes) {
    auto free_bytes = node_free_bytes(n.node);
    if (!free_bytes.ok()) return free_bytes.error();
    if (2 * need > *free_bytes)
      return Error{ErrorKind::invalid,
                   fmt::format("needs {} MiB (3 arrays), more than half of the {} MiB free "
                               "(a benchmark may use at most half of a node's free memory); "
                               "lower array_bytes or cache_multiple",
                               need >> 20, *free_bytes >> 20),
                   "membw: " + node_name(n.node), ENOMEM};
  }
  return Ok{};
}

class Membw final : public Benchmark {
 public:
  Membw(Topology topo, MembwOptions opts) : topo_(std::move(topo)), opts_(std::move(opts)) {}

  const std::string& name() const override { return name_; }

  Status check() override {
    auto plan = plan_membw(topo_, allowed_cpus(), opts_);
    if (!plan.ok()) return plan.error();
    if (plan->nodes.size() > 1 && !numa_policy_available())
      return errno_error("NUMA memory policy unavailable (mbind refused)", "membw", ENOSYS);
    return check_free_memory(*plan);
  }

  Result<Measurement> run() override {
    const auto start = std::chrono::steady_clock::now();
    auto plan = plan_membw(topo_, allowed_cpus(), opts_);
    if (!plan.ok()) return plan.error();
    if (auto st = check_free_memory(*plan); !st.ok()) return st.error();
    // Without memory policy (a kernel without NUMA, or a container whose seccomp
    // profile refuses mbind) a single node still works: first touch places the pages.
    const bool bind = numa_policy_available();
    if (!bind && plan->nodes.size() > 1)
      return errno_error("NUMA memory policy unavailable (mbind refused)", "membw", ENOSYS);

    std::vector<MembwCell> cells;
    for (const NodeCpus& mem : plan->nodes) {
      auto cells_here = measure_memory_node(*plan, mem, bind);
      if (!cells_here.ok()) return cells_here.error();
      cells.insert(cells.end(), cells_here->begin(), cells_here->end());
    }
    Measurement m;
    m.metrics = membw_metrics(cells);
    m.elapsed = std::chrono::steady_clock::now() - start;
    return m;
  }

 private:
  // Maps the arrays on mem.node, touches them from that node's CPUs, then times the
  // triad from each thread node: the local one first, the others when matrix is set.
  static Result<std::vector<MembwCell>> measure_memory_node(const MembwPlan& plan,
                                                            const NodeCpus& mem, bool bind) {
    const uint64_t stride = array_stride(plan.elements);
    auto memory = bind ? NodeMemory::map(3 * stride, mem.node) : NodeMemory::unbound(3 * stride);
    if (!memory.ok()) return memory.error();
    char* base = reinterpret_cast<char*>(memory->doubles());
    TriadArrays arrays{reinterpret_cast<double*>(base), reinterpret_cast<double*>(base + stride),
                       reinterpret_cast<double*>(base + 2 * stride), plan.elements};
    if (auto st = fill_arrays(arrays, mem.cpus); !st.ok()) return st.error();

    std::vector<const NodeCpus*> rows = {&mem};
    if (plan.matrix)
      for (const NodeCpus& n : plan.nodes)
        if (n.node != mem.node) rows.push_back(&n);
    std::vector<MembwCell> out;
    for (const NodeCpus* row : rows) {
      const bool local = row->node == mem.node;
      TriadRun run{local ? plan.local_budget : plan.remote_budget, plan.min_reps, kMaxReps};
      auto times = time_triad(arrays, row->cpus, run);
      if (!times.ok()) return times.error();
      out.push_back({row->node, mem.node,
                     gigabytes_per_second(triad_bytes(plan.elements), best_time(*times))});
    }
    return out;
  }

  Topology topo_;
  MembwOptions opts_;
  std::string name_ = "membw";
};

}  // namespace

Result<MembwPlan> plan_membw(const Topology& topo, const CpuSet& allowed,
                             const MembwOptions& opts) {
  if (opts.duration.count() <= 0) return invalid("duration must be positive");
  if (opts.min_reps < 2) return invalid("min_reps must be at least 2 (one is a warm-up)");
  if (opts.array_bytes == 0 && opts.cache_multiple == 0)
    return invalid("cache_multiple must be at least 1");
  if (opts.min_array_bytes > opts.max_array_bytes)
    return invalid("min_array_bytes is above max_array_bytes");

  std::vector<NodeCpus> all = cpus_per_node(topo, allowed, opts.threads_per_node);
  MembwPlan plan;
  if (opts.nodes.empty()) {
    plan.nodes = std::move(all);
  } else {
    for (unsigned want : opts.nodes) {
      auto it =
          std::find_if(all.begin(), all.end(), [&](const NodeCpus& n) { return n.node == want; });
      if (it == all.end())
        return Error::missing(
            "no such NUMA node, or none of its CPUs is allowed to this process (" +
                allowed.to_string() + ")",
            "membw: " + node_name(want), ENOENT);
      if (std::none_of(plan.nodes.begin(), plan.nodes.end(),
                       [&](const NodeCpus& n) { return n.node == want; }))
        plan.nodes.push_back(*it);
    }
  }
  if (plan.nodes.empty())
    return Error::missing(
        "no NUMA node has a CPU this process may run on (" + allowed.to_string() + ")", "membw",
        ENOENT);

  uint64_t bytes = opts.array_bytes;
  unsigned max_threads = 0;
  for (const NodeCpus& n : plan.nodes) max_threads = std::max<unsigned>(max_threads, n.cpus.size());
  if (bytes == 0) {
    uint64_t llc = 0;
    for (const NodeCpus& n : plan.nodes) llc = std::max(llc, last_level_cache_bytes(topo, n.cpus));
    bytes = std::clamp(opts.cache_multiple * llc, opts.min_array_bytes, opts.max_array_bytes);
  }
  // Whole cache lines for every thread's slice.
  plan.elements = bytes / sizeof(double) / 8 * 8;
  if (plan.elements < 8ull * max_threads)
    return invalid("array_bytes " + std::to_string(bytes) +
                   " leaves a thread less than a cache line");

  const auto cells = static_cast<int64_t>(plan.nodes.size());
  plan.matrix = opts.matrix && cells > 1;
  const nanoseconds total = opts.duration;
  if (plan.matrix) {
    plan.local_budget = total / 2 / cells;
    plan.remote_budget = total / 2 / (cells * (cells - 1));
  } else {
    plan.local_budget = total / cells;
  }
  plan.min_reps = opts.min_reps;
  return plan;
}

double gigabytes_per_second(uint64_t bytes, std::chrono::nanoseconds t) {
  if (t.count() <= 0) return 0;
  return static_cast<double>(bytes) / static_cast<double>(t.count());  // bytes/ns = GB/s
}

std::chrono::nanoseconds best_time(const std::vector<std::chrono::nanoseconds>& reps) {
  if (reps.empty()) return nanoseconds{0};
  if (reps.size() == 1) return reps[0];
  return *std::min_element(reps.begin() + 1, reps.end());
}

std::vector<Metric> membw_metrics(const std::vector<MembwCell>& cells) {
  std::vector<MembwCell> sorted = cells;  // node order, node10 after node9
  std::sort(sorted.begin(), sorted.end(), [](const MembwCell& a, const MembwCell& b) {
    return std::tie(a.cpu_node, a.mem_node) < std::tie(b.cpu_node, b.mem_node);
  });
  std::vector<Metric> local, remote;
  double sum = 0, min = std::numeric_limits<double>::infinity();
  for (const MembwCell& c : sorted) {
    if (c.cpu_node == c.mem_node) {
      local.push_back({"triad_local_" + node_name(c.cpu_node), c.gbps, "GB/s", Direction::higher});
      sum += c.gbps;
      min = std::min(min, c.gbps);
    } else {
      remote.push_back({"triad_" + node_name(c.cpu_node) + "_mem_" + node_name(c.mem_node), c.gbps,
                        "GB/s", Direction::higher});
    }
  }
  std::vector<Metric> out;
  out.push_back({"triad_local_sum", sum, "GB/s", Direction::higher});
  out.push_back({"triad_local_min", local.empty() ? 0 : min, "GB/s", Direction::higher});
  out.insert(out.end(), local.begin(), local.end());
  out.insert(out.end(), remote.begin(), remote.end());
  return out;
}

std::unique_ptr<Benchmark> make_membw(Topology topo, MembwOptions opts) {
  return std::make_unique<Membw>(std::move(topo), std::move(opts));
}

}  // namespace tuner::bench
