// sysctl:KEY reads and writes /proc/sys/KEY-as-a-path through the root fd, never
// through a symlink. Values compare whitespace-normalised ("4096\t131072\t6291456\n"
// is "4096 131072 6291456"). canonical() refuses what the kernel would refuse
// (sysctl_value.h), so that plan and apply's preparation say so before any write.
#include "probes/sysctl.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <array>
#include <set>

#include <fmt/core.h>

#include "base/strings.h"
#include "tuner/knobs/file_knob.h"
#include "tuner/knobs/sysctl_value.h"

namespace tuner {

namespace {

/// The congestion controls Linux builds as tcp_NAME modules (net/ipv4/tcp_*.c, 6.1),
/// with cubic and reno, which are built in.
constexpr std::array<std::string_view, 17> kLinuxCongestionControls = {
    "bbr", "bic", "cdg",  "cubic",    "dctcp", "highspeed", "htcp",     "hybla", "illinois",
    "lp",  "nv",  "reno", "scalable", "vegas", "veno",      "westwood", "yeah"};

class SysctlKnob : public FileKnob {
 public:
  using FileKnob::FileKnob;

  Result<std::string> read() override {
    auto text = read_text(path_);
    if (!text.ok()) return text.error();
    std::string v = normalize_ws(*text);
    // Of a writeback pair, the one in force: a 0 here while the partner holds a value.
    auto partner = writeback_partner(id_.name);
    if (!partner || v != "0") return v;
    auto other = read_sysctl(ctx_.root, *partner);
    if (!other.ok() || *other == "0") return v;
    return std::string(*partner) + "=" + *other;
  }

  Result<std::string> canonical(const std::string& desired) override {
    std::string v = normalize_ws(desired);
    if (v.empty()) return Error::invalid("empty value", id_str_);
    if (auto number = partner_value(v)) {  // a pair's other key, as read() gives it
      auto n = parse_u64(*number);
      if (!n || *n == 0 || number->front() == '0')
        return Error{ErrorKind::invalid,
                     "'" + v + "': expected the partner's value as a positive decimal number",
                     id_str_, EINVAL};
      return v;
    }
    auto now = read();
    if (!now.ok() || *now == v) return v;  // nothing to compare against, or nothing to write
    if (Status s = writable(); !s.ok()) return s.error();
    // EINVAL: what the kernel's handler answers, or would have to.
    if (Status s = check_sysctl_value(id_.name, *now, v); !s.ok())
      return Error{ErrorKind::invalid, s.error().what, id_str_, EINVAL};
    if (id_.name == "net.ipv4.tcp_congestion_control") {
      std::set<std::string> offered = congestion_controls();
      if (!offered.empty())
        if (Status s = check_sysctl_choice(id_.name, v, offered); !s.ok())
          return Error{ErrorKind::invalid, s.error().what, id_str_, ENOENT};
    }
    return v;
  }

 protected:
  Status set(const std::string& value) override {
    auto number = partner_value(value);
    if (!number) return FileKnob::set(value);
    // Writing the partner puts it in force; the kernel zeroes this key.
    auto rel = sysctl_path(ctx_.root, *writeback_partner(id_.name));
    if (!rel.ok()) return labelled(rel.error());
    if (Status s = write_file(*rel, *number); !s.ok()) return labelled(s.error());
    return Ok{};
  }

 private:
  /// "N" of "PARTNER=N" for a writeback pair key; nullopt otherwise.
  std::optional<std::string> partner_value(const std::string& v) const {
    auto partner = writeback_partner(id_.name);
    if (!partner) return std::nullopt;
    std::string prefix = std::string(*partner) + "=";
    if (!starts_with(v, prefix)) return std::nullopt;
    return v.substr(prefix.size());
  }

  /// A key whose file has no write permission (0444) refuses root too (proc's
  /// sysctl permission check reads the mode).
  Status writable() const {
    auto fd = open_sysctl(ctx_.root, id_.name, O_RDONLY);
    if (!fd.ok()) return Ok{};  // read() worked: leave the verdict to the write
    struct stat st {};
    if (::fstat(fd->get(), &st) == 0 && (st.st_mode & 0222) == 0)
      return Error{
          ErrorKind::invalid,
          fmt::format("read-only on this kernel (mode {:04o}): it refuses every write, root's too",
                      st.st_mode & 07777),
          id_str_, EACCES};
    return Ok{};
  }

  /// What tcp_congestion_control can be set to: the kernel's available list and the
  /// tcp_NAME modules it would load on the write (lib/modules/RELEASE/modules.dep, or
  /// when that is not there the names Linux has modules for). Empty when the available
  /// list cannot be read: nothing to check against.
  std::set<std::string> congestion_controls() const {
    std::set<std::string> out;
    auto available = read_sysctl(ctx_.root, "net.ipv4.tcp_available_congestion_control");
    if (!available.ok()) return out;
    for (std::string_view n : split_ws(*available)) out.emplace(n);
    auto release = read_sysctl(ctx_.root, "kernel.osrelease");
    // A release from a --root tree is anyone's text: one plain path component only.
    bool plain = release.ok() && !release->empty() && release->find('/') == std::string::npos &&
                 *release != "." && *release != "..";
    auto deps = plain ? ctx_.root.read("lib/modules/" + *release + "/modules.dep")
                      : Result<std::string>(Error::missing("no kernel release", "lib/modules"));
    if (!deps.ok()) {
      // Modules unknown (a container, a --root tree): the kernel's own congestion
      // controls are loadable as far as tuner can tell, any other name is not one.
      for (std::string_view n : kLinuxCongestionControls) out.emplace(n);
      return out;
    }
    for (std::string_view line : split(*deps, '\n')) {
      std::string_view path = line.substr(0, line.find(':'));
      std::string_view file = path.substr(path.rfind('/') + 1);
      if (!starts_with(file, "tcp_")) continue;
      std::string_view name = file.substr(4, file.find(".ko") - 4);
      if (!name.empty() && file.find(".ko") != std::string_view::npos) out.emplace(name);
    }
    return out;
  }
};

}  // namespace

Result<std::unique_ptr<Knob>> make_sysctl_knob(const KnobId& id, KnobContext& ctx) {
  const Root& root = ctx.root;
  // A capture of /sys and /proc without proc/sys (hwloc's test trees) cannot say
  // whether a key exists: its value is unknown, not missing.
  if (!root.is_live() && !root.exists("proc/sys"))
    return Error::unsupported(root.dir() + " has no proc/sys", id.str());
  // The id is all rollback has, so the file is checked here on its own, whatever the
  // profile loader checked: a regular file under proc/sys reached without a symlink.
  auto path = sysctl_path(root, id.name);
  if (!path.ok()) {
    const Error& e = path.error();
    bool absent = e.err == ENOENT;
    std::string what = absent ? "sysctl key '" + id.name + "' does not exist on this machine"
                              : (e.where.empty() ? e.what : e.where + ": " + e.what);
    // A directory, a symlink or a special file is not a sysctl either.
    bool not_one = absent || e.err == EISDIR || e.err == ELOOP || e.err == ENOTDIR;
    return Error{not_one ? ErrorKind::missing : e.kind, what, id.str(), e.err};
  }
  return std::unique_ptr<Knob>(new SysctlKnob(id, ctx, std::move(path).value()));
}

}  // namespace tuner
