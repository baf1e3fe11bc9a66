// Knob: one setting tuner can read and write, named by a stable id (DESIGN.md "Knobs",
// tuner/knobs/knob_id.h). A knob is rebuilt from its id alone, so rollback needs
// nothing but the journal.
//
// Who owns what (STYLE.md 11): each kind is named and validated in knob_id, and read,
// made canonical and written in exactly one file here (sysctl.cc, irq_affinity.cc,
// nic_*.cc (nic_queue_cpus.cc: RPS and XPS; nic_rfs.cc: RFS), numa_*.cc, irqbalance*.cc, cpu_policy.cc, cpu_latency.cc, thp.cc). The planner, `status` and rollback ask the
// knob (make_knob(id, ctx)->read()); nobody else parses a drop-in, a cpuset file or a
// sysctl. Every knob reads through ctx.root, so it reads a captured tree (--root) as
// it reads the machine, and only Knob::write writes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "probes/ethtool.h"
#include "probes/root.h"
#include "tuner/knobs/knob_files.h"
#include "tuner/knobs/knob_id.h"
#include "tuner/knobs/systemd.h"

namespace tuner {

/// What knobs need from the machine: one seam per OS surface. Paths are under root.
/// A note for the person running tuner: something done or left undone on purpose that
/// is not an error ("takes effect when trainer.service next starts").
struct KnobNote {
  std::string knob;
  std::string text;
  bool operator==(const KnobNote&) const = default;
};

/// Where knobs' notes go: each once, in the order first given. The commands that change
/// the machine put them in the run report (tuner.run/1 "notes", and a note line each in
/// the text), so that --json carries them and a person reads each once.
class KnobNotes {
 public:
  void add(KnobNote note);
  const std::vector<KnobNote>& all() const { return notes_; }

 private:
  std::vector<KnobNote> notes_;
};

/// How long a NIC knob waits, by default, for a link to come back after a change that
/// resets it (KnobContext::link_timeout_ms); the plan's time bound counts it too.
inline constexpr unsigned kLinkTimeoutMs = 10000;

struct KnobContext {
  Root root;  // every read and write goes through it
  /// The ethtool backend of the nic knobs that need one (link, channels, rings,
  /// coalesce): a test's fake, or null until the first of them opens one (open_ethtool:
  /// netlink, else the ioctl), kept in opened_ethtool for the rest. The sysfs ones (mtu,
  /// rps, xps, rfs) never open it.
  Ethtool* ethtool = nullptr;
  std::shared_ptr<Ethtool> opened_ethtool = nullptr;
  Systemctl* systemctl = &real_systemctl();        // numa:unit and irqbalance knobs
  Clock* clock = &SteadyClock::instance();         // the link wait, and any other sleep
  std::string systemd_dir = "etc/systemd/system";  // numa:unit and irqbalance drop-ins
  std::string cgroup_root = "sys/fs/cgroup";       // numa:cgroup paths are below it
  unsigned link_timeout_ms = kLinkTimeoutMs;       // wait for a link to come back after a change
  /// A test's fake machine: root is a temporary directory laid out like one, and knobs
  /// may write to it. Any other root that is not the live machine (a --root capture)
  /// is read-only. Never set outside tests.
  bool fake_machine = false;
  /// With fake_machine only: answers for the fake machine's kernel where a file does not
  /// read back what was written to it (knob_files.h). Unset, files are plain.
  FakeKernel fake_kernel = nullptr;
  /// Where the knobs' notes go; null: each to stderr at once ("tuner: note: ...").
  KnobNotes* notes = nullptr;

  /// Only the live machine, or a test's fake one, may be written.
  bool may_write() const { return root.is_live() || fake_machine; }
};

/// What apply, rollback and status see of a knob. Every real kind derives from
/// MachineKnob below; a test of apply can fake a whole machine with this interface.
class Knob {
 public:
  virtual ~Knob() = default;
  /// The stable id: "sysctl:net.core.rmem_max", "irq:57:affinity", ...
  virtual const std::string& id() const = 0;
  /// Current value in canonical text ("none" and other forms as the kind defines).
  /// Errors: kind missing when the thing does not exist (no such key, cgroup,
  /// interface, IRQ, process); any other kind when it exists but cannot be read here.
  virtual Result<std::string> read() = 0;
  /// Canonical form of a desired value, or an Error saying why it is impossible.
  virtual Result<std::string> canonical(const std::string& desired) = 0;
  /// Writes value, reads back and compares; an Error names the knob.
  virtual Status write(const std::string& value) = 0;
};

/// The base of every knob kind: one write path for all of them, with hooks for what
/// differs between kinds.
class MachineKnob : public Knob {
 public:
  MachineKnob(KnobId id, KnobContext& ctx);
  MachineKnob(const MachineKnob&) = delete;
  MachineKnob& operator=(const MachineKnob&) = delete;

  const std::string& id() const final { return id_str_; }
  const KnobId& knob_id() const { return id_; }

  /// The one write path of every kind (no kind overrides it): refuses unless
  /// ctx.may_write(); makes value canonical; reads the value before; set(); settle();
  /// reads back and compares. When the set fails after changing something, or the
  /// change does not settle or read back as asked, the before value is put back and
  /// the Error ends in "; reverted" (or says why it could not be). A kernel refusal
  /// keeps its kind (Error::refused), so apply skips the change.
  Status write(const std::string& value) final;

 protected:
  /// Before the set (the NIC knob notes whether the link is up).
  virtual void prepare() {}
  /// The kind-specific write of a canonical value: no waiting, no read-back.
  virtual Status set(const std::string& value) = 0;
  /// After the set: wait until it has taken effect (a link coming back up).
  virtual Status settle(const std::string& /*value*/) { return Ok{}; }
  /// Whether what read() gives after the write is what was asked.
  virtual bool matches(const std::string& now, const std::string& want) { return now == want; }
  /// The error text for a read-back that does not match.
  virtual std::string mismatch(const std::string& now, const std::string& want);
  /// After a good read-back (a daemon-reload); an Error is returned as it is.
  virtual Status finish(const std::string& /*value*/) { return Ok{}; }
  /// Names the knob in errors; the IRQ knob adds the handler names.
  virtual std::string label() const { return id_str_; }

  /// A note about this knob (KnobContext::notes).
  void note(const std::string& text) const;

  /// Writes one kernel file under ctx.root (knob_files.h's write_proc_file), through the
  /// fake kernel of a test's fake machine when it has one.
  Status write_file(const std::string& rel, const std::string& text);

  KnobId id_;
  std::string id_str_;
  KnobContext& ctx_;

 private:
  /// Writes before back; returns what to append to the error ("; reverted").
  std::string revert(const std::string& before);
};

/// Rebuilds a knob from its id. Validates every part of the id (knob_id.h) before
/// touching anything; a thing that does not exist is Error kind missing.
Result<std::unique_ptr<Knob>> make_knob(const std::string& id, KnobContext& ctx);
Result<std::unique_ptr<Knob>> make_knob(const KnobId& id, KnobContext& ctx);

// Per-kind factories (tuner/knobs/<kind>.cc); make_knob dispatches on the kind.
Result<std::unique_ptr<Knob>> make_sysctl_knob(const KnobId& id, KnobContext& ctx);
Result<std::unique_ptr<Knob>> make_irq_knob(const KnobId& id, KnobContext& ctx);
Result<std::unique_ptr<Knob>> make_nic_knob(const KnobId& id, KnobContext& ctx);
Result<std::unique_ptr<Knob>> make_nic_queue_knob(const KnobId& id, KnobContext& ctx);
Result<std::unique_ptr<Knob>> make_numa_unit_knob(const KnobId& id, KnobContext& ctx);
Result<std::unique_ptr<Knob>> make_numa_cgroup_knob(const KnobId& id, KnobContext& ctx);
Result<std::unique_ptr<Knob>> make_numa_process_knob(const KnobId& id, KnobContext& ctx);
Result<std::unique_ptr<Knob>> make_irqbalance_knob(const KnobId& id, KnobContext& ctx);
Result<std::unique_ptr<Knob>> make_cpu_policy_knob(const KnobId& id, KnobContext& ctx);
Result<std::unique_ptr<Knob>> make_cpu_latency_knob(const KnobId& id, KnobContext& ctx);
Result<std::unique_ptr<Knob>> make_thp_knob(const KnobId& id, KnobContext& ctx);

}  // namespace tuner
