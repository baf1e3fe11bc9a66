// irqbalance:service (is the daemon running) and irqbalance:banned (IRQs it must leave
// alone, so that tuner's IRQ affinity survives its rebalancing). The ban list names
// each IRQ as irq:...:affinity ids do: by owner (PCI function and MSI vector) where it
// has one, else by number; the drop-in holds the numbers irqbalance understands.
//
// Debian 12's irqbalance.service reads EnvironmentFile=-/etc/default/irqbalance and
// runs `irqbalance --foreground $IRQBALANCE_ARGS`; --banirq=N is additive. Variables
// from an EnvironmentFile override Environment= lines, so a drop-in that set
// IRQBALANCE_ARGS would be silently ignored wherever the admin set it in
// /etc/default/irqbalance. The drop-in therefore sets a variable of its own and
// re-states the unit's effective ExecStart with that variable appended.
#include <algorithm>
#include <map>
#include <optional>

#include "base/strings.h"
#include "probes/host.h"
#include "probes/irq_vector.h"
#include "tuner/knobs/dropin_knob.h"
#include "tuner/knobs/knob.h"
#include "tuner/knobs/knob_files.h"

namespace tuner {

namespace {

const char* const kUnit = "irqbalance.service";
const char* const kDropinDir = "irqbalance.service.d";
const char* const kDropin = "tuner-ban.conf";
const char* const kVar = "TUNER_IRQBALANCE_BANNED";

class IrqbalanceServiceKnob : public MachineKnob {
 public:
  using MachineKnob::MachineKnob;

  /// Without systemd, or in a capture, the daemon's own process says.
  Result<std::string> read() override {
    Systemctl& sc = *ctx_.systemctl;
    if (!ctx_.root.is_live() || !sc.running()) {
      // A root whose processes cannot be seen has none running.
      auto running = irqbalance_process_running(ctx_.root);
      return std::string(running.ok() && running->value_or(false) ? "active" : "inactive");
    }
    auto state = sc.is_active(kUnit);
    if (!state.ok()) return state.error().context(id_str_);
    return std::string(unit_state_active(*state) ? "active" : "inactive");
  }

  Result<std::string> canonical(const std::string& desired) override {
    std::string v(trim(desired));
    if (v != "active" && v != "inactive")
      return Error::invalid("expected active or inactive, got '" + v + "'", id_str_);
    return v;
  }

 protected:
  Status set(const std::string& value) override {
    Systemctl& sc = *ctx_.systemctl;
    if (!sc.running())
      return Error::unsupported("irqbalance is not managed by systemd here", id_str_);
    if (auto st = sc.run({value == "active" ? "start" : "stop", kUnit}); !st.ok())
      return st.error().context(id_str_);
    return Ok{};
  }

  std::string mismatch(const std::string& now, const std::string& want) override {
    return "irqbalance is " + now + " after asking for " + want;
  }
};

/// The IRQ numbers of the drop-in's Environment line, as written.
Result<std::vector<unsigned>> parse_ban_dropin(const std::string& text, const std::string& path) {
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
      auto n = starts_with(a, "--banirq=") ? parse_irq_number(a.substr(9))
                                           : Result<unsigned>(Error::invalid("not --banirq=N"));
      if (!n.ok())
        return Error::invalid("unexpected argument '" + std::string(a) + "'",
                              path + ":" + std::to_string(line_no));
      irqs.push_back(*n);
    }
  }
  if (!found) return Error::invalid(std::string("no ") + kVar + " setting", path);
  return irqs;
}

/// IRQ `irq` as the ban list names it: by its owner (msi_owners()) when a PCI function's
/// vector, so the value read says whom the drop-in's numbers ban now.
KnobId irq_as_owned(const std::map<unsigned, MsiVector>& owners, unsigned irq) {
  if (auto it = owners.find(irq); it != owners.end())
    if (auto id = KnobId::irq_vector(it->second.pci, it->second.index); id.ok()) return *id;
  return KnobId::irq_affinity(irq).value_or(KnobId{KnobKind::irq_affinity, "", irq, 0});
}

class IrqbalanceBannedKnob : public DropinKnob {
 public:
  using DropinKnob::DropinKnob;

  /// The banned IRQs, each by what it serves now: after the numbers change, the same
  /// drop-in reads as a different list, and `status` and `restore` see the drift.
  Result<std::string> value_of(const std::string& text, const std::string& shown) override {
    auto numbers = parse_ban_dropin(text, shown);
    if (!numbers.ok()) return numbers.error();
    auto owners = msi_owners(ctx_.root);
    std::vector<KnobId> irqs;
    for (unsigned n : *numbers) irqs.push_back(irq_as_owned(owners, n));
    return irq_ref_list(std::move(irqs));
  }

  /// "57,0000:3b:00.0/msi5": numbers and owners. A number whose IRQ has an owner now
  /// becomes that owner; an owner that is gone is left out (irqbalance cannot ban what
  /// is not there; its irq:...:affinity knob is reported gone on its own).
  Result<std::string> canonical(const std::string& desired) override {
    std::string v(trim(desired));
    if (v == "none" || v.empty()) return std::string("none");
    std::optional<std::map<unsigned, MsiVector>> owners;  // read once, when a number needs it
    std::vector<KnobId> irqs;
    for (std::string_view part : split(v, ',')) {
      auto id = parse_irq_ref(trim(part));
      if (!id.ok()) return Error::invalid(id.error().what + " in a list like 57,58", id_str_);
      if (id->by_owner()) {
        auto irq = find_msi_irq(ctx_.root, id->name, id->number);
        if (!irq.ok() && irq.error().is(ErrorKind::missing)) {
          note(irq.error().message() + ": not banned");
          continue;
        }
        if (!irq.ok()) return irq.error().context(id_str_);
        irqs.push_back(*id);
        continue;
      }
      unsigned irq = id->number;
      if (ctx_.root.exists("proc/irq") && !ctx_.root.exists("proc/irq/" + std::to_string(irq)))
        return Error::missing("IRQ " + std::to_string(irq) + " does not exist (no /proc/irq/" +
                                  std::to_string(irq) + ")",
                              id_str_);
      if (!owners) owners = msi_owners(ctx_.root);
      irqs.push_back(irq_as_owned(*owners, irq));
    }
    return irq_ref_list(std::move(irqs));
  }

 protected:
  /// "none" removes the drop-in.
  Status set(const std::string& value) override {
    if (value == "none") {
      if (Status st = remove_dropin(ctx_.root, dropin()); !st.ok())
        return st.error().context(id_str_);
      return Ok{};
    }
    auto exec = effective_exec_start();
    if (!exec.ok()) return exec.error();
    // irqbalance bans by number: each owner's number now (`restore` writes them again
    // when they change).
    std::string args;
    for (std::string_view ref : split(value, ',')) {
      auto id = parse_irq_ref(ref);
      if (!id.ok()) return id.error().context(id_str_);
      unsigned irq = id->number;
      if (id->by_owner()) {
        auto n = find_msi_irq(ctx_.root, id->name, id->number);
        if (!n.ok()) return n.error().context(id_str_);
        irq = *n;
      }
      args += (args.empty() ? "" : " ") + std::string("--banirq=") + std::to_string(irq);
    }
    std::string text =
        "# Written by tuner (irqbalance:banned); `tuner rollback` removes it.\n"
        "# A variable of its own: /etc/default/irqbalance (an EnvironmentFile) would\n"
        "# override IRQBALANCE_ARGS set by Environment=.\n"
        "[Service]\n"
        "Environment=\"" +
        std::string(kVar) + "=" + args +
        "\"\n"
        "ExecStart=\n"
        "ExecStart=" +
        *exec + " $" + kVar + "\n";
    if (Status st = write_dropin(ctx_.root, dropin(), text); !st.ok())
      return st.error().context(id_str_);
    return Ok{};
  }

  /// systemd reads the drop-in at daemon-reload; a running irqbalance at its restart.
  Status finish(const std::string& /*value*/) override {
    auto r = reload("systemd is not running here; the drop-in applies once systemd runs "
                    "irqbalance",
                    kUnit);
    if (!r.ok()) return r.error();
    return Ok{};
  }

  Dropin dropin() const override { return {ctx_.systemd_dir, kDropinDir, kDropin}; }

 private:
  /// The ExecStart systemd would use without our drop-in: the unit file's, as changed
  /// by the other drop-ins in name order ("ExecStart=" empties the list).
  Result<std::string> effective_exec_start() {
    const Root& root = ctx_.root;
    std::optional<std::string> unit_text;
    std::string unit_path, looked;
    for (const std::string& dir :
         {ctx_.systemd_dir, std::string("run/systemd/system"),
          std::string("usr/local/lib/systemd/system"), std::string("usr/lib/systemd/system"),
          std::string("lib/systemd/system")}) {
      looked += (looked.empty() ? "" : ", ") + shown_path(root, dir);
      if (auto text = root.read(dir + "/" + kUnit); text.ok()) {
        unit_text = *text;
        unit_path = shown_path(root, dir + "/" + kUnit);
        break;
      }
    }
    if (!unit_text)
      return Error::missing(std::string(kUnit) + " is not installed (looked in " + looked + ")",
                            id_str_);
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
    std::string dir = ctx_.systemd_dir + "/" + kDropinDir;
    if (auto names = root.list(dir); names.ok())
      for (const std::string& n : *names) {
        if (n == kDropin || n.size() < 5 || n.compare(n.size() - 5, 5, ".conf") != 0) continue;
        if (auto t = root.read(dir + "/" + n); t.ok()) apply(*t);
      }
    if (!exec) return Error::invalid("no ExecStart= in " + unit_path, id_str_);
    return *exec;
  }
};

}  // namespace

Result<std::unique_ptr<Knob>> make_irqbalance_knob(const KnobId& id, KnobContext& ctx) {
  if (id.kind == KnobKind::irqbalance_service)
    return std::unique_ptr<Knob>(new IrqbalanceServiceKnob(id, ctx));
  return std::unique_ptr<Knob>(new IrqbalanceBannedKnob(id, ctx));
}

}  // namespace tuner
