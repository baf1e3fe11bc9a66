// irqbalance:service (is the daemon running) and irqbalance:banned (IRQs it must leave
// alone, so that tuner's IRQ affinity survives its rebalancing).
//
// Debian 12's irqbalance.service reads EnvironmentFile=-/etc/default/irqbalance and
// runs `irqbalance --foreground $IRQBALANCE_ARGS`; --banirq=N is additive. Variables
// from an EnvironmentFile override Environment= lines, so a drop-in that set
// IRQBALANCE_ARGS would be silently ignored wherever the admin set it in
// /etc/default/irqbalance. The drop-in therefore sets a variable of its own and
// re-states the unit's effective ExecStart with that variable appended.
#include <algorithm>

#include "base/strings.h"
#include "tuner/knobs/knob.h"
#include "tuner/knobs/systemd.h"

namespace tuner {

namespace {

const char* const kUnit = "irqbalance.service";
const char* const kDropinDir = "irqbalance.service.d";
const char* const kDropin = "tuner-ban.conf";
const char* const kVar = "TUNER_IRQBALANCE_BANNED";

bool state_is_active(const std::string& s) {
  return s == "active" || s == "activating" || s == "reloading";
}

/// Without systemd, look for the daemon itself.
bool irqbalance_process_running(const Root& root) {
  auto pids = root.list("proc");
  if (!pids.ok()) return false;
  for (const std::string& p : *pids) {
    if (p.find_first_not_of("0123456789") != std::string::npos) continue;
    auto comm = root.read("proc/" + p + "/comm");
    if (comm.ok() && trim(*comm) == "irqbalance") return true;
  }
  return false;
}

class IrqbalanceServiceKnob : public Knob {
 public:
  explicit IrqbalanceServiceKnob(KnobContext& ctx) : ctx_(ctx) {}
  const std::string& id() const override { return id_; }

  Result<std::string> read() override {
    Systemctl& sc = systemctl();
    if (!ctx_.root.is_live() || !sc.running())
      return std::string(irqbalance_process_running(ctx_.root) ? "active" : "inactive");
    auto state = sc.is_active(kUnit);
    if (!state.ok()) return Error::invalid(state.error().message(), id_);
    return std::string(state_is_active(*state) ? "active" : "inactive");
  }

  Result<std::string> canonical(const std::string& desired) override {
    std::string v(trim(desired));
    if (v != "active" && v != "inactive")
      return Error::invalid("expected active or inactive, got '" + v + "'", id_);
    return v;
  }

  Status write(const std::string& value) override {
    auto want = canonical(value);
    if (!want.ok()) return want.error();
    if (!ctx_.root.is_live())
      return Error::invalid("refusing to write under --root " + ctx_.root.dir(), id_);
    Systemctl& sc = systemctl();
    if (!sc.running()) return Error::invalid("irqbalance is not managed by systemd here", id_);
    if (auto st = sc.run({*want == "active" ? "start" : "stop", kUnit}); !st.ok())
      return Error::invalid(st.error().message(), id_);
    auto now = read();
    if (!now.ok()) return now.error();
    if (*now != *want)
      return Error::invalid("irqbalance is " + *now + " after asking for " + *want, id_);
    return Ok{};
  }

 private:
  std::string id_ = "irqbalance:service";
  KnobContext& ctx_;
};

/// "57,58" from the drop-in's Environment line.
Result<std::string> parse_ban_dropin(const std::string& text, const std::string& path) {
  std::vector<unsigned> irqs;
  int line_no = 0;
  bool found = false;
  for (std::string_view line : split(text, '\n')) {
    ++line_no;
    line = trim(line);
    std::string prefix = std::string("Environment=\"") + kVar + "=";
    if (!starts_with(line, prefix)) continue;
    found = true;
    std::string_view args = line.substr(prefix.size());
    if (args.empty() || args.back() != '"')
      return Error::invalid("unterminated quote", path + ":" + std::to_string(line_no));
    args.remove_suffix(1);
    for (std::string_view a : split_ws(args)) {
      auto n = starts_with(a, "--banirq=") ? parse_u64(a.substr(9)) : std::nullopt;
      if (!n) return Error::invalid("unexpected argument '" + std::string(a) + "'",
                           path + ":" + std::to_string(line_no));
      irqs.push_back(static_cast<unsigned>(*n));
    }
  }
  if (!found) return Error::invalid(std::string("no ") + kVar + " setting", path);
  std::sort(irqs.begin(), irqs.end());
  std::string out;
  for (unsigned i : irqs) out += (out.empty() ? "" : ",") + std::to_string(i);
  return out.empty() ? std::string("none") : out;
}

class IrqbalanceBannedKnob : public Knob {
 public:
  explicit IrqbalanceBannedKnob(KnobContext& ctx) : ctx_(ctx) {}
  const std::string& id() const override { return id_; }

  Result<std::string> read() override {
    auto text = read_optional_file(ctx_.systemd_dir, kDropinDir, kDropin);
    if (!text.ok()) return errno_error(text.error().message(), id_, text.error().err);
    if (!*text) return std::string("none");
    return parse_ban_dropin(**text, path());
  }

  Result<std::string> canonical(const std::string& desired) override {
    std::string v(trim(desired));
    if (v == "none" || v.empty()) return std::string("none");
    std::vector<unsigned> irqs;
    for (std::string_view part : split(v, ',')) {
      auto n = parse_u64(part);
      if (!n || trim(part).find_first_not_of("0123456789") != std::string_view::npos || *n > 1u << 20)
        return Error::invalid("'" + std::string(part) + "' is not an IRQ number (expected a list like 57,58)",
                     id_);
      unsigned irq = static_cast<unsigned>(*n);
      if (ctx_.root.exists("proc/irq") && !ctx_.root.exists("proc/irq/" + std::to_string(irq)))
        return Error::missing("IRQ " + std::to_string(irq) + " does not exist (no /proc/irq/" +
                         std::to_string(irq) + ")",
                     id_);
      if (std::find(irqs.begin(), irqs.end(), irq) == irqs.end()) irqs.push_back(irq);
    }
    std::sort(irqs.begin(), irqs.end());
    std::string out;
    for (unsigned i : irqs) out += (out.empty() ? "" : ",") + std::to_string(i);
    return out;
  }

  Status write(const std::string& value) override {
    if (!ctx_.root.is_live())
      return Error::invalid("refusing to write under --root " + ctx_.root.dir(), id_);
    auto want = canonical(value);
    if (!want.ok()) return want.error();
    std::optional<std::string> text;  // nullopt: "none" removes the drop-in
    if (*want != "none") {
      auto exec = effective_exec_start();
      if (!exec.ok()) return exec.error();
      std::string args;
      for (std::string_view irq : split(*want, ','))
        args += (args.empty() ? "" : " ") + std::string("--banirq=") + std::string(irq);
      text =
          "# Written by tuner (irqbalance:banned); `tuner rollback` removes it.\n"
          "# A variable of its own: /etc/default/irqbalance (an EnvironmentFile) would\n"
          "# override IRQBALANCE_ARGS set by Environment=.\n"
          "[Service]\n"
          "Environment=\"" + std::string(kVar) + "=" + args + "\"\n"
          "ExecStart=\n"
          "ExecStart=" + *exec + " $" + kVar + "\n";
    }
    if (auto st = write_dropin_checked(id_, ctx_.systemd_dir, kDropinDir, kDropin, text, *want,
                                       [this] { return read(); });
        !st.ok())
      return st;
    Systemctl& sc = systemctl();
    if (!sc.running()) {
      knob_note(id_, "systemd is not running here; the drop-in applies once systemd runs irqbalance");
      return Ok{};
    }
    auto state = sc.is_active(kUnit);
    bool was_active = state.ok() && state_is_active(*state);
    if (auto r = sc.run({"daemon-reload"}); !r.ok())
      return Error::invalid("wrote " + path() + " but " + r.error().message(), id_);
    if (was_active) {
      if (auto r = sc.run({"restart", kUnit}); !r.ok())
        return Error::invalid("wrote " + path() + " but " + r.error().message(), id_);
    }
    return Ok{};
  }

 private:
  std::string path() const { return ctx_.systemd_dir + "/" + kDropinDir + "/" + kDropin; }

  /// The ExecStart systemd would use without our drop-in: the unit file's, as changed
  /// by the other drop-ins in name order ("ExecStart=" empties the list).
  Result<std::string> effective_exec_start() {
    std::optional<std::string> unit_text;
    std::string unit_path;
    for (const std::string& dir : {ctx_.systemd_dir, std::string("/run/systemd/system"),
                                   std::string("/usr/local/lib/systemd/system"),
                                   std::string("/usr/lib/systemd/system"),
                                   std::string("/lib/systemd/system")}) {
      auto r = Root::open(dir);
      if (!r.ok()) continue;
      auto text = r->read(kUnit);
      if (text.ok()) {
        unit_text = *text;
        unit_path = dir + "/" + kUnit;
        break;
      }
    }
    if (!unit_text)
      return Error::invalid(std::string(kUnit) + " is not installed (looked in " + ctx_.systemd_dir +
                       ", /run/systemd/system, /usr/local/lib/systemd/system, "
                       "/usr/lib/systemd/system, /lib/systemd/system)",
                   id_);
    std::optional<std::string> exec;
    auto apply = [&](const std::string& text) {
      for (std::string_view line : split(text, '\n')) {
        line = trim(line);
        if (!starts_with(line, "ExecStart=")) continue;
        std::string v(trim(line.substr(10)));
        if (v.empty()) exec.reset();
        else exec = v;
      }
    };
    apply(*unit_text);
    auto dir = Root::open(ctx_.systemd_dir + "/" + kDropinDir);
    if (dir.ok()) {
      auto names = dir->list(".");
      if (names.ok())
        for (const std::string& n : *names) {
          if (n == kDropin || n.size() < 5 || n.compare(n.size() - 5, 5, ".conf") != 0) continue;
          if (auto t = dir->read(n); t.ok()) apply(*t);
        }
    }
    if (!exec) return Error::invalid("no ExecStart= in " + unit_path, id_);
    return *exec;
  }

  std::string id_ = "irqbalance:banned";
  KnobContext& ctx_;
};

}  // namespace

Result<std::unique_ptr<Knob>> make_irqbalance_knob(const std::string& id, KnobContext& ctx) {
  if (id == "irqbalance:service") return std::unique_ptr<Knob>(new IrqbalanceServiceKnob(ctx));
  if (id == "irqbalance:banned") return std::unique_ptr<Knob>(new IrqbalanceBannedKnob(ctx));
  return Error::invalid("unknown irqbalance knob (expected irqbalance:service or irqbalance:banned)", id);
}

}  // namespace tuner
