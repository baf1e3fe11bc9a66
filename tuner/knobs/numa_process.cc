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
#include "tuner/knobs/knob.h"
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
  if (!v)
    return Error::invalid("field 22 is not a number: '" + std::string(fields[19]) + "'", where);
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

class NumaProcessKnob : public MachineKnob {
 public:
  using MachineKnob::MachineKnob;

  Result<std::string> read() override {
    if (auto st = same_process(); !st.ok()) return st.error();
    auto cpus = thread_cpus(std::to_string(id_.number));
    if (!cpus.ok()) return cpus.error();
    auto maps = ctx_.root.read(proc() + "/numa_maps");
    if (!maps.ok()) return maps.error().context(id_str_);
    return "cpus=" + cpus->to_string() + ",mems=" + numa_maps_nodes(*maps);
  }

  Result<std::string> canonical(const std::string& desired) override {
    return canonical_numa_binding(desired, /*allow_empty=*/false, ctx_.root, id_str_,
                                  [this] { return read(); });
  }

 protected:
  /// Moves every thread to the CPUs and the pages to the nodes, and checks every
  /// thread (read() sees only the main one).
  Status set(const std::string& value) override {
    auto b = parse_numa_binding(value, id_str_, true);
    if (!b.ok()) return b.error();
    if (auto st = same_process(); !st.ok()) return st;
    if (b->cpus)
      if (auto st = move_threads(*b->cpus); !st.ok()) return st;
    if (b->mems)
      if (auto st = migrate_pages(*b->mems); !st.ok()) return st;
    return Ok{};
  }

  /// "mems" reads as the nodes holding pages: right when they are all on the target.
  bool matches(const std::string& now, const std::string& want) override {
    auto n = parse_numa_binding(now, id_str_, true);
    auto w = parse_numa_binding(want, id_str_, true);
    if (!n.ok() || !w.ok()) return now == want;
    if (n->cpus != w->cpus) return false;
    if (!w->mems || !n->mems) return true;
    return n->mems->is_subset_of(*w->mems);
  }

  std::string mismatch(const std::string& now, const std::string& want) override {
    return "reads '" + now + "' after setting '" + want + "'";
  }

 private:
  std::string proc() const { return "proc/" + std::to_string(id_.number); }

  Status same_process() {
    auto stat = ctx_.root.read(proc() + "/stat");
    if (!stat.ok())
      return Error::missing("process " + std::to_string(id_.number) + " is gone", id_str_,
                            stat.error().err);
    auto start = parse_stat_starttime(*stat, "/" + proc() + "/stat");
    if (!start.ok()) return Error::invalid(start.error().message(), id_str_);
    if (*start != id_.start)
      return Error::missing("pid " + std::to_string(id_.number) +
                                " now belongs to another process (start time " +
                                std::to_string(*start) + ", not " + std::to_string(id_.start) + ")",
                            id_str_);
    return Ok{};
  }

  Result<CpuSet> thread_cpus(const std::string& tid) {
    std::string path = proc() + "/task/" + tid + "/status";
    auto status = ctx_.root.read(path);
    if (!status.ok()) return status.error().context(id_str_);
    for (std::string_view line : split(*status, '\n'))
      if (starts_with(line, "Cpus_allowed_list:")) {
        auto set = CpuSet::parse(trim(line.substr(18)));
        if (!set.ok()) return Error::invalid(set.error().what, "/" + path);
        return set;
      }
    return Error::invalid("no Cpus_allowed_list", "/" + path);
  }

  /// sched_setaffinity on every thread, then reads each back. Threads may start while
  /// we go; later passes catch them.
  Status move_threads(const CpuSet& cpus) {
    std::size_t n = cpus.cpus().empty() ? 1 : cpus.cpus().back() + 1;
    cpu_set_t* mask = CPU_ALLOC(n);
    std::size_t size = CPU_ALLOC_SIZE(n);
    CPU_ZERO_S(size, mask);
    for (unsigned c : cpus.cpus()) CPU_SET_S(c, size, mask);
    std::vector<std::string> done;
    Status result = Ok{};
    for (int pass = 0; pass < 3 && result.ok(); ++pass) {
      auto tids = ctx_.root.list(proc() + "/task");
      if (!tids.ok()) {
        result = tids.error().context(id_str_);
        break;
      }
      bool fresh = false;
      for (const std::string& tid : *tids) {
        if (std::find(done.begin(), done.end(), tid) != done.end()) continue;
        fresh = true;
        auto t = parse_u64(tid);
        if (!t) continue;
        if (::sched_setaffinity(static_cast<pid_t>(*t), size, mask) != 0 && errno != ESRCH) {
          result = errno_error("sched_setaffinity(" + tid + ", " + cpus.to_string() + ")", id_str_);
          break;
        }
        done.push_back(tid);
      }
      if (!fresh) break;
    }
    CPU_FREE(mask);
    if (!result.ok()) return result;
    auto tids = ctx_.root.list(proc() + "/task");
    if (!tids.ok()) return tids.error().context(id_str_);
    for (const std::string& tid : *tids) {
      auto now = thread_cpus(tid);
      if (!now.ok()) continue;  // the thread exited
      if (*now != cpus)
        return Error::io(
            "thread " + tid + " runs on " + now->to_string() + " after setting " + cpus.to_string(),
            id_str_);
    }
    return Ok{};
  }

  /// numa_migrate_pages from every node to mems, unless the pages are there already.
  Status migrate_pages(const CpuSet& mems) {
    auto maps = ctx_.root.read(proc() + "/numa_maps");
    if (!maps.ok()) return maps.error().context(id_str_);
    auto nodes = CpuSet::parse(numa_maps_nodes(*maps));
    if (nodes.ok() && nodes->is_subset_of(mems)) return Ok{};
    if (numa_available() < 0) return Error::unsupported("libnuma: NUMA is not available", id_str_);
    struct bitmask* all = numa_allocate_nodemask();
    struct bitmask* to = numa_allocate_nodemask();
    for (int n = 0; n <= numa_max_node(); ++n) numa_bitmask_setbit(all, static_cast<unsigned>(n));
    for (unsigned n : mems.cpus()) numa_bitmask_setbit(to, n);
    int rc = numa_migrate_pages(static_cast<int>(id_.number), all, to);
    int e = errno;
    numa_bitmask_free(all);
    numa_bitmask_free(to);
    if (rc < 0) return errno_error("migrate_pages to nodes " + mems.to_string(), id_str_, e);
    return Ok{};
  }
};

}  // namespace

Result<std::unique_ptr<Knob>> make_numa_process_knob(const KnobId& id, KnobContext& ctx) {
  auto knob = std::make_unique<NumaProcessKnob>(id, ctx);
  // Refuse at once an id whose process is gone or was replaced.
  if (auto r = knob->read(); !r.ok()) return r.error();
  return std::unique_ptr<Knob>(std::move(knob));
}

}  // namespace tuner
