// numa:pid:PID@STARTTIME: binds a running process. The start time (field 22 of
// /proc/PID/stat) makes the id name one process: a pid reused by another is refused.
//
// CPUs: sched_setaffinity on every thread. Memory: numa_migrate_pages moves the pages
// it already has to the target nodes. Its memory policy cannot be set from outside
// (set_mempolicy acts on the caller only), so new allocations follow the target nodes
// only where the process's cpuset says so; bind a unit or a cgroup for that. So
// "mems" reads as the nodes that hold the process's pages (/proc/PID/numa_maps), and a
// write is right when all its pages are on the target nodes.
#include <algorithm>

#include <numa.h>
#include <sched.h>

#include "base/strings.h"
#include "tuner/knobs/numa_knobs.h"
#include "tuner/knobs/numa_value.h"

namespace tuner {

Result<unsigned long long> parse_stat_starttime(const std::string& stat, const std::string& where) {
  auto paren = stat.rfind(')');
  if (paren == std::string::npos) return Error::invalid("no ')' after the command name", where);
  // After ") " come fields 3 (state) onwards; starttime is field 22.
  auto fields = split_ws(std::string_view(stat).substr(paren + 1));
  if (fields.size() < 20) return Error::invalid("too few fields", where);
  auto v = parse_u64(fields[19]);
  if (!v) return Error::invalid("field 22 is not a number: '" + std::string(fields[19]) + "'", where);
  return *v;
}

std::string numa_maps_nodes(const std::string& numa_maps) {
  CpuSet nodes;
  for (std::string_view w : split_ws(numa_maps)) {
    if (w.size() < 4 || w[0] != 'N') continue;
    auto eq = w.find('=');
    if (eq == std::string_view::npos) continue;
    auto node = parse_u64(w.substr(1, eq - 1));
    auto pages = parse_u64(w.substr(eq + 1));
    if (node && pages && *pages > 0) nodes.add(static_cast<unsigned>(*node));
  }
  return nodes.to_string();
}

namespace {

class NumaProcessKnob : public Knob {
 public:
  NumaProcessKnob(std::string id, unsigned pid, unsigned long long start, KnobContext& ctx)
      : id_(std::move(id)), pid_(pid), start_(start), ctx_(ctx) {}

  const std::string& id() const override { return id_; }

  Result<std::string> read() override {
    if (auto st = same_process(); !st.ok()) return st.error();
    auto cpus = thread_cpus(std::to_string(pid_));
    if (!cpus.ok()) return cpus.error();
    auto maps = ctx_.root.read(proc() + "/numa_maps");
    if (!maps.ok()) return errno_error(maps.error().message(), id_, maps.error().err);
    return "cpus=" + cpus->to_string() + ",mems=" + numa_maps_nodes(*maps);
  }

  Result<std::string> canonical(const std::string& desired) override {
    return canonical_numa_binding(desired, /*allow_empty=*/false, ctx_.root, id_,
                                  [this] { return read(); });
  }

  Status write(const std::string& value) override {
    if (!ctx_.root.is_live())
      return Error::invalid("refusing to write under --root " + ctx_.root.dir(), id_);
    auto want_text = canonical(value);
    if (!want_text.ok()) return want_text.error();
    auto before_text = read();
    if (!before_text.ok()) return before_text.error();
    auto want = *parse_numa_binding(*want_text, id_, true);
    auto before = *parse_numa_binding(*before_text, id_, true);

    if (auto st = apply(want, before); !st.ok()) {
      Error e = st.error();
      if (auto r = apply(before, want); !r.ok()) e.what += "; reverting failed: " + r.error().what;
      else e.what += "; reverted";
      return e;
    }
    return Ok{};
  }

 private:
  std::string proc() const { return "proc/" + std::to_string(pid_); }

  Status same_process() {
    auto stat = ctx_.root.read(proc() + "/stat");
    if (!stat.ok()) return errno_error("process " + std::to_string(pid_) + " is gone", id_, stat.error().err);
    auto start = parse_stat_starttime(*stat, "/" + proc() + "/stat");
    if (!start.ok()) return Error::invalid(start.error().message(), id_);
    if (*start != start_)
      return Error::invalid("pid " + std::to_string(pid_) + " now belongs to another process (start time " +
                       std::to_string(*start) + ", not " + std::to_string(start_) + ")",
                   id_);
    return Ok{};
  }

  Result<CpuSet> thread_cpus(const std::string& tid) {
    std::string path = proc() + "/task/" + tid + "/status";
    auto status = ctx_.root.read(path);
    if (!status.ok()) return errno_error(status.error().message(), id_, status.error().err);
    for (std::string_view line : split(*status, '\n'))
      if (starts_with(line, "Cpus_allowed_list:")) {
        auto set = CpuSet::parse(trim(line.substr(18)));
        if (!set.ok()) return Error::invalid(set.error().what, "/" + path);
        return set;
      }
    return Error::invalid("no Cpus_allowed_list", "/" + path);
  }

  /// Moves every thread to b.cpus and the pages to b.mems, then checks both.
  Status apply(const NumaBinding& b, const NumaBinding& from) {
    if (auto st = same_process(); !st.ok()) return st;
    cpu_set_t* mask = CPU_ALLOC(b.cpus->cpus().empty() ? 1 : b.cpus->cpus().back() + 1);
    std::size_t size = CPU_ALLOC_SIZE(b.cpus->cpus().empty() ? 1 : b.cpus->cpus().back() + 1);
    CPU_ZERO_S(size, mask);
    for (unsigned c : b.cpus->cpus()) CPU_SET_S(c, size, mask);
    // Threads may start while we go; a second pass catches them.
    std::vector<std::string> done;
    Status result = Ok{};
    for (int pass = 0; pass < 3 && result.ok(); ++pass) {
      auto tids = ctx_.root.list(proc() + "/task");
      if (!tids.ok()) {
        result = errno_error(tids.error().message(), id_, tids.error().err);
        break;
      }
      bool fresh = false;
      for (const std::string& tid : *tids) {
        if (std::find(done.begin(), done.end(), tid) != done.end()) continue;
        fresh = true;
        auto t = parse_u64(tid);
        if (!t) continue;
        if (::sched_setaffinity(static_cast<pid_t>(*t), size, mask) != 0 && errno != ESRCH) {
          result = errno_error("sched_setaffinity(" + tid + ", " + b.cpus->to_string() + ")", id_);
          break;
        }
        done.push_back(tid);
      }
      if (!fresh) break;
    }
    CPU_FREE(mask);
    if (!result.ok()) return result;

    if (b.mems && b.mems != from.mems) {
      if (numa_available() < 0) return Error::invalid("libnuma: NUMA is not available", id_);
      struct bitmask* all = numa_allocate_nodemask();
      struct bitmask* to = numa_allocate_nodemask();
      for (int n = 0; n <= numa_max_node(); ++n) numa_bitmask_setbit(all, static_cast<unsigned>(n));
      for (unsigned n : b.mems->cpus()) numa_bitmask_setbit(to, n);
      int rc = numa_migrate_pages(static_cast<int>(pid_), all, to);
      int e = errno;
      numa_bitmask_free(all);
      numa_bitmask_free(to);
      if (rc < 0) return errno_error("migrate_pages to nodes " + b.mems->to_string(), id_, e);
    }

    // Read back: every thread, and where the pages are now.
    auto tids = ctx_.root.list(proc() + "/task");
    if (!tids.ok()) return errno_error(tids.error().message(), id_, tids.error().err);
    for (const std::string& tid : *tids) {
      auto cpus = thread_cpus(tid);
      if (!cpus.ok()) continue;  // the thread exited
      if (*cpus != *b.cpus)
        return Error::invalid("thread " + tid + " runs on " + cpus->to_string() + " after setting " +
                         b.cpus->to_string(),
                     id_);
    }
    if (b.mems) {
      auto maps = ctx_.root.read(proc() + "/numa_maps");
      if (!maps.ok()) return errno_error(maps.error().message(), id_, maps.error().err);
      auto nodes = CpuSet::parse(numa_maps_nodes(*maps));
      if (nodes.ok() && !nodes->is_subset_of(*b.mems))
        return Error::invalid("pages remain on nodes " + nodes->minus(*b.mems).to_string() +
                         " after migrating to " + b.mems->to_string(),
                     id_);
    }
    return Ok{};
  }

  std::string id_;
  unsigned pid_;
  unsigned long long start_;
  KnobContext& ctx_;
};

}  // namespace

Result<std::unique_ptr<Knob>> make_numa_process_knob(const std::string& id,
                                                     const std::string& spec, KnobContext& ctx) {
  auto at = spec.find('@');
  if (at == std::string::npos)
    return Error::invalid("expected numa:pid:PID@STARTTIME (STARTTIME: field 22 of /proc/PID/stat)", id);
  auto pid = parse_u64(spec.substr(0, at));
  auto start = parse_u64(spec.substr(at + 1));
  if (!pid || *pid == 0 || *pid > 4194304 || spec.substr(0, at).find_first_not_of("0123456789") != std::string::npos)
    return Error::invalid("'" + spec.substr(0, at) + "' is not a process id", id);
  if (!start || spec.substr(at + 1).find_first_not_of("0123456789") != std::string::npos)
    return Error::invalid("'" + spec.substr(at + 1) + "' is not a start time", id);
  auto knob = std::make_unique<NumaProcessKnob>(id, static_cast<unsigned>(*pid), *start, ctx);
  // Refuse at once an id whose process is gone or was replaced.
  if (auto r = knob->read(); !r.ok()) return r.error();
  return std::unique_ptr<Knob>(std::move(knob));
}

}  // namespace tuner
