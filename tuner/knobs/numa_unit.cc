// numa:unit:NAME: binds a systemd unit with a drop-in. systemd applies it the next time
// the unit starts; tuner never restarts a workload by itself.
#include "base/strings.h"
#include "tuner/knobs/dropin_knob.h"
#include "tuner/knobs/knob.h"
#include "tuner/knobs/knob_files.h"
#include "tuner/knobs/numa_knobs.h"
#include "tuner/knobs/numa_value.h"

namespace tuner {

namespace {

const char* const kDropin = "tuner-numa.conf";

bool is_service(const std::string& unit) {
  return unit.size() > 8 && unit.compare(unit.size() - 8, 8, ".service") == 0;
}

}  // namespace

std::string numa_dropin_text(const std::string& id, const std::string& unit,
                             const std::string& cpus, const std::string& mems) {
  std::string out = "# Written by tuner (" + id + "); `tuner rollback` removes it.\n";
  if (is_service(unit)) {
    out += "[Service]\n";
    if (!cpus.empty()) out += "CPUAffinity=" + cpus + "\n";
    if (!mems.empty()) out += "NUMAPolicy=bind\nNUMAMask=" + mems + "\n";
  } else {
    std::string kind = unit.substr(unit.rfind('.') + 1);
    kind[0] = static_cast<char>(kind[0] - 'a' + 'A');
    out += "[" + kind + "]\n";
    if (!cpus.empty()) out += "AllowedCPUs=" + cpus + "\n";
    if (!mems.empty()) out += "AllowedMemoryNodes=" + mems + "\n";
  }
  return out;
}

Result<std::string> parse_numa_dropin(const std::string& text, const std::string& path,
                                      const std::string& id) {
  NumaBinding b;
  std::string policy;
  int line_no = 0;
  for (std::string_view line : split(text, '\n')) {
    ++line_no;
    line = trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';' || line[0] == '[') continue;
    auto eq = line.find('=');
    std::string where = id + ": " + path + ":" + std::to_string(line_no);
    if (eq == std::string_view::npos) return Error::invalid("expected KEY=VALUE", where);
    std::string key(trim(line.substr(0, eq)));
    std::string_view value = trim(line.substr(eq + 1));
    if (key == "NUMAPolicy") {
      policy = value;
      continue;
    }
    std::optional<CpuSet>* dst = nullptr;
    if (key == "CPUAffinity" || key == "AllowedCPUs") dst = &b.cpus;
    else if (key == "NUMAMask" || key == "AllowedMemoryNodes") dst = &b.mems;
    else return Error::invalid("unexpected setting " + key + " in tuner's drop-in", where);
    // systemd accepts blanks as well as commas between entries.
    std::string list;
    for (std::string_view w : split_ws(value)) list += (list.empty() ? "" : ",") + std::string(w);
    auto set = CpuSet::parse(list);
    if (!set.ok()) return Error::invalid(key + ": " + set.error().what, where);
    *dst = *set;
  }
  if (b.mems && !policy.empty() && policy != "bind")
    return Error::invalid("NUMAPolicy=" + policy + " is not the bind policy tuner writes",
                          id + ": " + path);
  if (!b.cpus && !b.mems)
    return Error::invalid("drop-in sets neither CPUs nor memory nodes", id + ": " + path);
  return format_numa_binding(b);
}

namespace {

class NumaUnitKnob : public DropinKnob {
 public:
  using DropinKnob::DropinKnob;

  Result<std::string> value_of(const std::string& text, const std::string& shown) override {
    return parse_numa_dropin(text, shown, id_str_);
  }

  Result<std::string> canonical(const std::string& desired) override {
    if (trim(desired) == "none") return std::string("none");
    auto b = parse_numa_binding(desired, id_str_);
    if (!b.ok()) return b.error();
    if (auto st = check_numa_binding(*b, ctx_.root, id_str_); !st.ok()) return st.error();
    return format_numa_binding(*b);
  }

 protected:
  /// "none" removes the drop-in.
  Status set(const std::string& value) override {
    Status st = Ok{};
    if (value == "none") {
      st = remove_dropin(ctx_.root, dropin());
    } else {
      auto b = parse_numa_binding(value, id_str_);
      if (!b.ok()) return b.error();
      std::string cpus = b->cpus ? b->cpus->to_string() : "";
      std::string mems = b->mems ? b->mems->to_string() : "";
      st = write_dropin(ctx_.root, dropin(), numa_dropin_text(id_str_, id_.name, cpus, mems));
    }
    if (!st.ok()) return st.error().context(id_str_);
    return Ok{};
  }

  Status finish(const std::string& /*value*/) override {
    auto reloaded = reload("systemd is not running here; skipped daemon-reload");
    if (!reloaded.ok()) return reloaded.error();
    if (*reloaded)
      note("takes effect when " + id_.name + " next starts; tuner does not restart it");
    return Ok{};
  }

  Dropin dropin() const override { return {ctx_.systemd_dir, id_.name + ".d", kDropin}; }

 private:
};

}  // namespace

Result<std::unique_ptr<Knob>> make_numa_unit_knob(const KnobId& id, KnobContext& ctx) {
  return std::unique_ptr<Knob>(new NumaUnitKnob(id, ctx));
}

}  // namespace tuner
