#include "tuner/verify/interference.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/strings.h"
#include "tuner/verify/count_tests.h"
#include "tuner/verify/stats.h"

namespace tuner::verify {

namespace {

LoadReading read_load(const Root& root, const InterferenceConfig& cfg, bool processes_first) {
  LoadReading r;
  if (!cfg.enabled) return r;
  auto processes = [&] {
    auto p = bench::sample_processes(root);
    // Without it the report names nobody; the test itself does not need it.
    if (p.ok()) r.processes = std::move(p).value();
  };
  if (processes_first) processes();
  auto load = bench::sample_load(root);
  if (load.ok()) r.load = std::move(load).value();
  else r.error = load.error().message();
  if (!processes_first) processes();
  return r;
}

LoadTest load_test(const std::vector<double>& b, const std::vector<double>& c, double floor,
                   double level) {
  LoadTest t;
  t.floor = floor;
  t.trials_baseline = static_cast<unsigned>(b.size());
  t.trials_candidate = static_cast<unsigned>(c.size());
  if (b.size() < 2 || c.size() < 2) {
    t.note = "fewer than 2 measured trials in an arm";
    return t;
  }
  t.judged = true;
  t.baseline = median(b);
  t.candidate = median(c);
  t.p = rank_two_sided_p(b, c);
  t.proven = t.p <= level && std::fabs(t.candidate - t.baseline) >= floor;
  return t;
}

/// Beside a command (TrialLoad::commands), a candidate whose trials the rest of the node
/// was busier in is no sign of a steer: the servers the command drives work harder when
/// it runs faster.
bool one_way_excused(const OtherLoad& b, const OtherLoad& c, const LoadTest& cpu) {
  return (b.command_trials || c.command_trials) && cpu.judged && cpu.candidate > cpu.baseline;
}

std::string rate(double bytes_per_s) { return fmt::format("{:.3g} MB/s", bytes_per_s / 1e6); }

std::string test_text(const char* what, const LoadTest& t, const std::string& baseline,
                      const std::string& candidate, const std::string& floor) {
  return fmt::format("other {} {} in baseline trials, {} in candidate trials (medians; p = {:.2g}, "
                     "a difference of {} or more needed)",
                     what, baseline, candidate, t.p, floor);
}

std::string consumer_text(const LoadConsumer& c) {
  std::string who = c.uid ? fmt::format("uid {}", *c.uid) : "uid unknown";
  if (c.kernel_thread) who += ", kernel thread";
  return fmt::format("pid {} {} ({}): {:.2f} -> {:.2f} CPUs", c.pid, escape_controls(c.comm), who,
                     c.baseline, c.candidate);
}

/// The n processes whose CPU differed most between the arms; with `toward` +1 (the
/// baseline's trials proven the busier) or -1, those that differ that way first: a
/// shell that happened to reap a long job in one trial is asymmetric too.
std::vector<LoadConsumer> consumers(const OtherLoad& b, const OtherLoad& c, std::size_t n,
                                    int toward) {
  std::map<std::pair<int, uint64_t>, LoadConsumer> all;
  for (const auto* arm : {&b, &c})
    for (const auto& [key, p] : arm->processes) {
      LoadConsumer& x = all[key];
      x.pid = key.first;
      x.comm = p.comm;
      if (p.uid) x.uid = p.uid;
      x.kernel_thread = p.kernel_thread;
      double share = arm->seconds > 0 ? p.demand_s / arm->seconds : 0;
      (arm == &b ? x.baseline : x.candidate) = share;
    }
  std::vector<LoadConsumer> out;
  for (auto& [key, x] : all)
    if (x.baseline != x.candidate) out.push_back(std::move(x));
  auto key = [toward](const LoadConsumer& x) {
    double d = x.baseline - x.candidate;
    return toward == 0 ? std::fabs(d) : toward * d;
  };
  std::sort(out.begin(), out.end(), [&](const LoadConsumer& x, const LoadConsumer& y) {
    double kx = key(x), ky = key(y);
    return kx != ky ? kx > ky : x.pid < y.pid;
  });
  if (out.size() > n) out.resize(n);
  return out;
}

}  // namespace

LoadReading read_load_before(const Root& root, const InterferenceConfig& cfg) {
  return read_load(root, cfg, true);
}

LoadReading read_load_after(const Root& root, const InterferenceConfig& cfg) {
  return read_load(root, cfg, false);
}

bool runs_a_command(const bench::Benchmark& b) {
  return dynamic_cast<const bench::ExecBenchmark*>(&b) != nullptr;
}

void OtherLoad::add(const LoadReading& before, const LoadReading& after,
                    const bench::Measurement& m, bool commands, const Root& root,
                    const InterferenceConfig& cfg) {
  if (!cfg.enabled) return;
  if (!before.load || !after.load) {
    ++unmeasured;
    if (error.empty()) error = !before.error.empty() ? before.error : after.error;
    return;
  }
  TrialLoad t;
  t.commands = commands;
  if (before.processes && after.processes) {
    t.uses = bench::process_use(*before.processes, *after.processes, cfg.per_trial);
    t.waits = before.processes->waits && after.processes->waits;
    if (t.waits) t.wait_s = bench::others_wait_s(*before.processes, *after.processes);
    // A uid once per process (its status read while it still runs).
    std::vector<bench::ProcessUse> unnamed;
    for (const bench::ProcessUse& u : t.uses)
      if (auto it = processes.find({u.pid, u.starttime}); it == processes.end() || !it->second.uid)
        unnamed.push_back(u);
    bench::read_uids(root, unnamed);
    for (bench::ProcessUse& u : t.uses)
      for (const bench::ProcessUse& n : unnamed)
        if (n.pid == u.pid && n.starttime == u.starttime) u.uid = n.uid;
  }
  t.load = bench::load_delta(*before.load, *after.load, m);
  add(t, cfg);
}

void OtherLoad::add(const TrialLoad& t, const InterferenceConfig& cfg) {
  const bench::LoadDelta& d = t.load;
  if (!(d.seconds > 0)) {
    ++unmeasured;
    if (error.empty()) error = "no time passed between the readings";
    return;
  }
  seconds += d.seconds;
  command_trials += t.commands ? 1 : 0;
  cpu.push_back(d.other_cpu_s / d.seconds);
  if (t.waits) demand.push_back((d.other_cpu_s + t.wait_s) / d.seconds);
  if (d.traffic_is_others) traffic.push_back(static_cast<double>(d.interface_bytes) / d.seconds);
  else ++traffic_unknown;
  for (const bench::ProcessUse& u : t.uses) {
    Process& p = processes[{u.pid, u.starttime}];
    p.comm = u.comm;
    if (u.uid) p.uid = u.uid;
    p.kernel_thread = u.kernel_thread;
    p.demand_s += u.demand_s();
  }
  // Bounded: the smallest go first (they cannot be among the most asymmetric unless
  // both arms' largest are smaller still).
  while (processes.size() > cfg.tracked) {
    auto least = std::min_element(
        processes.begin(), processes.end(),
        [](const auto& a, const auto& b) { return a.second.demand_s < b.second.demand_s; });
    processes.erase(least);
  }
}

Interference judge_interference(const OtherLoad& b, const OtherLoad& c,
                                const InterferenceConfig& cfg) {
  Interference out;
  out.level = cfg.level;
  // CPU: the others' use and their demand (use and run queue waits), each tested; a
  // steer raises both on its arm. The benchmark's own share of a busy node moves the
  // use of an always-runnable neighbour (a build) one way and its waits the other, and
  // the waits of one that sleeps in between (a daemon) alone: one of the two stays.
  out.cpu = load_test(b.cpu, c.cpu, cfg.cpu_floor, cfg.level);
  out.demand = load_test(b.demand, c.demand, cfg.cpu_floor, cfg.level);
  for (LoadTest* t : {&out.cpu, &out.demand})
    if (one_way_excused(b, c, *t)) {
      // The servers an exec benchmark drives work harder when it runs faster.
      t->proven = false;
      t->note = "busier in the candidate's trials, beside a command: not judged that way (the "
                "processes an exec benchmark drives use more CPU when it runs faster)";
    }
  if (!out.demand.judged && out.cpu.judged)
    out.demand.note = "run queue waits not read (no schedstat): CPU use alone decides";
  bool same_way = (out.cpu.candidate > out.cpu.baseline) ==
                  (out.demand.candidate > out.demand.baseline);
  if (out.cpu.proven && out.demand.judged && !(out.demand.proven && same_way)) {
    out.cpu.proven = false;
    if (out.cpu.note.empty())
      out.cpu.note = "the others' use differs, their demand (use and waits) does not: the "
                     "benchmark's own share of a busy node";
  }
  if (!out.cpu.judged && (b.unmeasured || c.unmeasured))
    out.cpu.note = "the node's load could not be read: " + (b.error.empty() ? c.error : b.error);
  if (b.traffic_unknown || c.traffic_unknown) {
    // The benchmark's own traffic may cross the interfaces (peer, netns, exec, or one
    // that reports no connections): it cannot be told from the rest of the node's.
    out.traffic.floor = cfg.traffic_floor;
    out.traffic.note = "not judged: the benchmark does not say that its own traffic stays on lo";
  } else {
    out.traffic = load_test(b.traffic, c.traffic, cfg.traffic_floor, cfg.level);
    if (!out.traffic.judged && !out.cpu.note.empty()) out.traffic.note = out.cpu.note;
  }
  int toward = !out.cpu.proven ? 0 : out.cpu.baseline > out.cpu.candidate ? 1 : -1;
  out.consumers = consumers(b, c, cfg.consumers, toward);
  out.flagged = out.cpu.proven || out.traffic.proven;
  if (!out.flagged) return out;
  std::vector<std::string> parts;
  if (out.cpu.proven) {
    parts.push_back(test_text("CPU use", out.cpu, fmt::format("{:.2f} CPUs", out.cpu.baseline),
                              fmt::format("{:.2f}", out.cpu.candidate),
                              fmt::format("{:g} CPU", cfg.cpu_floor)));
    if (out.demand.judged)
      parts.push_back(fmt::format("used or waited for {:.2f} and {:.2f} (p = {:.2g})",
                                  out.demand.baseline, out.demand.candidate, out.demand.p));
  }
  if (out.traffic.proven)
    parts.push_back(test_text("traffic", out.traffic, rate(out.traffic.baseline),
                              rate(out.traffic.candidate), rate(cfg.traffic_floor)));
  std::vector<std::string> who;
  for (const LoadConsumer& x : out.consumers) who.push_back(consumer_text(x));
  out.text = fmt::format(
      "{}{}", fmt::join(parts, "; "),
      who.empty() ? std::string() : fmt::format("; most asymmetric: {}", fmt::join(who, ", ")));
  return out;
}

bool interference_pending(const OtherLoad& b, const OtherLoad& c, const InterferenceConfig& cfg) {
  if (!cfg.enabled) return false;
  auto open = [&](const LoadTest& t) {
    return t.judged && !t.proven && !one_way_excused(b, c, t) &&
           std::fabs(t.candidate - t.baseline) >= t.floor;
  };
  Interference in = judge_interference(b, c, cfg);
  // CPU needs both its tests: it waits while each is proven or open.
  bool cpu_open = (open(in.cpu) || in.cpu.proven) &&
                  (!in.demand.judged || open(in.demand) || in.demand.proven) &&
                  !(in.cpu.proven && in.demand.proven);
  return !in.flagged && (cpu_open || open(in.traffic));
}

}  // namespace tuner::verify
