// sysctl:KEY reads and writes /proc/sys/KEY-as-a-path through the root fd, never
// through a symlink. Values compare whitespace-normalised ("4096\t131072\t6291456\n"
// is "4096 131072 6291456").
#include "probes/sysctl.h"
#include "base/strings.h"
#include "tuner/knobs/file_knob.h"

namespace tuner {

namespace {

class SysctlKnob : public FileKnob {
 public:
  using FileKnob::FileKnob;

  Result<std::string> read() override {
    auto text = read_text(path_);
    if (!text.ok()) return text.error();
    return normalize_ws(*text);
  }

  Result<std::string> canonical(const std::string& desired) override {
    std::string v = normalize_ws(desired);
    if (v.empty()) return Error::invalid("empty value", id_str_);
    return v;
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
    return Error{what, id.str(), e.err, not_one ? ErrorKind::missing : e.kind};
  }
  return std::unique_ptr<Knob>(new SysctlKnob(id, ctx, std::move(path).value()));
}

}  // namespace tuner
