// numa:cgroup:/sys/fs/cgroup/PATH: cpuset.cpus and cpuset.mems of a cgroup, v2 or v1.
// PATH is below ctx.cgroup_root (v1 keeps cpusets below its cpuset/ hierarchy, so
// cpuset/PATH is tried next) and is walked one component at a time with O_NOFOLLOW
// through the root fd, so neither ".." nor a symlink can lead a write outside the
// cgroup tree, and a captured tree (--root) is read the same way.
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "base/fd_io.h"
#include "base/strings.h"
#include "base/unique_fd.h"
#include "tuner/knobs/knob.h"
#include "tuner/knobs/knob_files.h"
#include "tuner/knobs/numa_value.h"

namespace tuner {

namespace {

std::string_view relative(std::string_view p) {
  while (!p.empty() && p.front() == '/') p.remove_prefix(1);
  return p;
}

class NumaCgroupKnob : public MachineKnob {
 public:
  NumaCgroupKnob(KnobId id, KnobContext& ctx, UniqueFd dir, std::string rel)
      : MachineKnob(std::move(id), ctx), dir_(std::move(dir)), rel_(std::move(rel)) {}

  Result<std::string> read() override {
    auto cpus = read_list("cpuset.cpus");
    if (!cpus.ok()) return cpus.error();
    auto mems = read_list("cpuset.mems");
    if (!mems.ok()) return mems.error();
    return format_numa_binding(NumaBinding{*cpus, *mems});
  }

  /// A part left out keeps its current value. Empty lists are real states (v2:
  /// inherit; v1: a new cgroup without tasks), so a before value can be put back; the
  /// kernel refuses them where tasks need CPUs.
  Result<std::string> canonical(const std::string& desired) override {
    return canonical_numa_binding(desired, /*allow_empty=*/true, ctx_.root, id_str_,
                                  [this] { return read(); });
  }

 protected:
  Status set(const std::string& value) override {
    auto b = parse_numa_binding(value, id_str_, true);
    if (!b.ok()) return b.error();
    // When the second write fails, Knob::write puts both back.
    if (b->cpus)
      if (Status st = write_list("cpuset.cpus", *b->cpus); !st.ok()) return st;
    if (b->mems)
      if (Status st = write_list("cpuset.mems", *b->mems); !st.ok()) return st;
    return Ok{};
  }

  std::string mismatch(const std::string& now, const std::string& want) override {
    return "read back '" + now + "' after writing '" + want + "'";
  }

 private:
  std::string file(const char* name) const {
    return shown_path(ctx_.root, std::string(relative(ctx_.cgroup_root)) + "/" + rel_ + "/" + name);
  }

  Result<CpuSet> read_list(const char* name) {
    auto text = read_file_at(dir_.get(), name, id_str_ + ": " + file(name), {}, O_NOFOLLOW);
    if (!text.ok()) return text.error();
    auto set = CpuSet::parse(*text);
    if (!set.ok()) return Error::invalid(set.error().what, id_str_ + ": " + file(name));
    return set;
  }

  Status write_list(const char* name, const CpuSet& set) {
    UniqueFd f(::openat(dir_.get(), name, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC));
    if (!f) return errno_error("cannot open", id_str_ + ": " + file(name));
    // A newline, so that an empty list is still a write the kernel sees.
    std::string text = set.to_string() + "\n";
    if (::write(f.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
      return errno_error("cannot write '" + set.to_string() + "'", id_str_ + ": " + file(name));
    return Ok{};
  }

  UniqueFd dir_;
  std::string rel_;  // below ctx.cgroup_root: PATH, or cpuset/PATH on cgroup v1
};

/// top/rel, one component at a time, never through a symlink.
Result<UniqueFd> walk(int top, const std::string& rel, const std::string& shown) {
  UniqueFd dir(::dup(top));
  if (!dir) return errno_error("dup", shown);
  std::string walked = shown;
  for (std::string_view part : split(rel, '/')) {
    std::string name(part);
    walked += "/" + name;
    UniqueFd next(
        ::openat(dir.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next) {
      if (errno == ELOOP || errno == ENOTDIR)
        return errno_error(walked + " is not a directory (symlinks are not followed)", "", errno);
      return errno_error("cannot open cgroup", walked);
    }
    dir = std::move(next);
  }
  return dir;
}

/// Why dir cannot be bound, or "" when it can: on the live machine it must be a cgroup
/// with the cpuset files; in a capture or a fake machine, have the files.
std::string unusable(int dir, bool live, const std::string& shown) {
  bool has_cpuset = ::faccessat(dir, "cpuset.cpus", F_OK, AT_SYMLINK_NOFOLLOW) == 0;
  if (!live) return has_cpuset ? "" : shown + " has no cpuset.cpus";
  struct statfs fs {};
  if (::fstatfs(dir, &fs) != 0) return "cannot statfs " + shown;
  bool v2 = fs.f_type == CGROUP2_SUPER_MAGIC;
  if (!v2 && fs.f_type != CGROUP_SUPER_MAGIC) return shown + " is not a cgroup";
  if (has_cpuset) return "";
  if (v2)
    return "the cpuset controller is not enabled for " + shown +
           " (add +cpuset to its parent's cgroup.subtree_control)";
  return shown + " is not in the cgroup v1 cpuset hierarchy";
}

}  // namespace

Result<std::unique_ptr<Knob>> make_numa_cgroup_knob(const KnobId& id, KnobContext& ctx) {
  const Root& root = ctx.root;
  const std::string ids = id.str();
  std::string base(relative(ctx.cgroup_root));
  std::string on_machine = "/" + base;  // how the machine itself names it
  auto top = root.open_fd(base, O_DIRECTORY);
  if (!top.ok()) {
    if (top.error().err == ENOENT && !root.is_live())
      return Error::unsupported(root.dir() + " has no " + base, ids);
    return top.error().context(ids);
  }
  UniqueFd top_fd = std::move(top).value();
  bool live = root.is_live();
  // cgroup v2 (or v1 named in full: "cpuset/x"), then v1's cpuset hierarchy.
  auto primary = walk(top_fd.get(), id.name, on_machine);
  std::string why;
  if (primary.ok()) {
    why = unusable(primary->get(), live, on_machine + "/" + id.name);
    if (why.empty())
      return std::unique_ptr<Knob>(
          new NumaCgroupKnob(id, ctx, std::move(primary).value(), id.name));
  }
  std::string v1 = "cpuset/" + id.name;
  if (auto alt = walk(top_fd.get(), v1, on_machine); alt.ok()) {
    if (unusable(alt->get(), live, on_machine + "/" + v1).empty())
      return std::unique_ptr<Knob>(new NumaCgroupKnob(id, ctx, std::move(alt).value(), v1));
  }
  if (primary.ok()) return Error::invalid(why, ids);
  const Error& e = primary.error();
  if (e.err == ENOENT)
    return Error::missing("cgroup '" + id.name + "' does not exist on this machine (no " +
                              on_machine + "/" + id.name + " or " + on_machine + "/" + v1 + ")",
                          ids, ENOENT);
  return e.context(ids);
}

}  // namespace tuner
