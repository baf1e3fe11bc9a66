#include "tuner/cli/run_glue.h"

#include <cmath>

#include "tuner/cli/report/progress.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include <fmt/core.h>

#include "base/strings.h"
#include "probes/netlink.h"

namespace tuner {

LiveKnobs::LiveKnobs() : ctx_{Root::live()} {}
LiveKnobs::~LiveKnobs() = default;

Result<std::unique_ptr<Knob>> LiveKnobs::make(const std::string& id) {
  if (starts_with(id, "nic:") && !ctx_.netlink) {
    auto nl = open_ethtool_netlink();
    if (!nl.ok()) return Error::invalid(nl.error().message(), id);
    netlink_ = std::move(nl).value();
    ctx_.netlink = netlink_.get();
  }
  return make_knob(id, ctx_);
}

Status LiveKnobs::restore(const std::string& id, const std::string& value) {
  auto k = make(id);
  if (!k.ok()) return k.error();
  return (*k)->write(value);
}

void require_root(const std::string& command) {
  if (::geteuid() == 0) return;
  fail_runtime(fmt::format(
      "{} changes kernel settings (/proc/sys, /proc/irq, NICs) and must run as root "
      "(uid {} is not); nothing was changed",
      command, ::geteuid()));
}

StateDir open_state_dir(const GlobalOptions& g, bool create) {
  auto dir = StateDir::open(g.state_dir, create);
  if (!dir.ok()) fail_runtime(dir.error().message() + " (--state-dir)");
  return std::move(dir).value();
}

Lock take_lock(const StateDir& dir) {
  auto lock = Lock::acquire(dir);
  if (!lock.ok()) fail_runtime(lock.error().message());
  return std::move(lock).value();
}

std::string format_group_stats(const nlohmann::json& s, const Term& term) {
  if (!s.is_object()) return "";
  std::string out;
  auto num = [](const nlohmann::json& v) {
    return v.is_number() ? fmt::format("{:.4g}", v.get<double>()) : std::string("-");
  };
  if (s.contains("bench")) {
    auto ci = s.value("ci", nlohmann::json::array());
    auto at = [&](std::size_t i) {
      return ci.is_array() && ci.size() > i && ci[i].is_number() ? ci[i].get<double>() : NAN;
    };
    double effect = s["effect"].is_number() ? s["effect"].get<double>() : NAN;
    out += fmt::format("    {}: baseline {} -> candidate {} {}, effect {}, p {}, trials {}+{}\n",
                       s.value("bench", ""), num(s["baseline"]), num(s["candidate"]),
                       s.value("unit", ""), format_effect(effect, at(0), at(1)), num(s["p"]),
                       s["trials"].value("baseline", 0u), s["trials"].value("candidate", 0u));
  }
  if (s.contains("guards"))
    for (const auto& gd : s["guards"])
      if (gd.value("tripped", false))
        out += "    " + term.red("guard ") + gd.value("text", std::string()) + "\n";
  if (s.contains("error")) out += "    " + s.value("error", std::string()) + "\n";
  if (s.contains("reason")) out += "    " + s.value("reason", std::string()) + "\n";
  return out;
}

std::string format_run_report(const RunReport& r, const Term& term) {
  std::string out;
  if (r.run_id.empty()) return "nothing to change\n";
  out += fmt::format("run {}\n", term.bold(r.run_id));
  for (const auto& g : r.groups) {
    std::string outcome = g.stats.value("outcome", std::string());
    out += fmt::format("  group {} ({}{})\n", g.name, group_decision_name(g.decision),
                       outcome.empty() ? "" : ": " + outcome);
    out += format_group_stats(g.stats, term);
    for (const auto& c : g.changes) {
      std::string before = c.before ? *c.before : "?";
      std::string name = change_status_name(c.status);
      std::string mark;
      switch (c.status) {
        case ChangeStatus::applied:
        case ChangeStatus::restored: mark = term.green(name); break;
        case ChangeStatus::skipped: mark = term.yellow(name); break;
        case ChangeStatus::failed:
        case ChangeStatus::restore_failed: mark = term.red(name); break;
        case ChangeStatus::rolled_back:
        case ChangeStatus::not_applied: mark = name; break;
      }
      out += fmt::format("    {}: {} -> {}  {}\n", c.knob, before, c.after, mark);
      if (!c.error.empty())
        out += fmt::format("      {}\n",
                           c.status == ChangeStatus::skipped ? c.error + ": skipped" : c.error);
    }
  }
  for (const auto& e : r.errors) out += term.red("error: ") + e + "\n";
  return out;
}

void print_run_report(const RunReport& r, bool json, const std::string& report_file,
                      const GlobalOptions& g) {
  nlohmann::json doc = run_report_json(r);
  if (json) {
    std::cout << doc.dump(2) << "\n";
  } else {
    Term term(g.color, 1);
    std::cout << format_run_report(r, term);
  }
  std::cout.flush();
  if (!report_file.empty()) {
    std::FILE* f = std::fopen(report_file.c_str(), "w");
    if (!f) {
      fmt::print(stderr, "tuner: {}\n", errno_error("cannot write report", report_file).message());
      return;
    }
    std::string text = doc.dump(2) + "\n";
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
}

}  // namespace tuner
