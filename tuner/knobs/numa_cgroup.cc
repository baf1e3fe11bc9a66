// numa:cgroup:PATH: cpuset.cpus and cpuset.mems of a cgroup, v2 or v1. PATH is relative
// to ctx.cgroup_root and is walked one component at a time with O_NOFOLLOW, so neither
// ".." nor a symlink can lead a write outside the cgroup tree.
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "base/strings.h"
#include "tuner/knobs/numa_knobs.h"
#include "tuner/knobs/numa_value.h"

namespace tuner {

namespace {

struct Fd {
  int fd = -1;
  explicit Fd(int f = -1) : fd(f) {}
  Fd(Fd&& o) noexcept : fd(o.fd) { o.fd = -1; }
  Fd& operator=(Fd&& o) noexcept {
    std::swap(fd, o.fd);
    return *this;
  }
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

Status validate_cgroup_path(const std::string& path, const std::string& id) {
  if (path.empty()) return Error::invalid("empty cgroup path", id);
  if (path[0] == '/')
    return Error::invalid("cgroup path must be relative to the cgroup root, not '" + path + "'", id);
  for (std::string_view part : split(path, '/')) {
    if (part.empty() || part == "." || part == "..")
      return Error::invalid("cgroup path '" + path + "' has an empty, '.' or '..' component", id);
    for (char c : part)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        return Error::invalid("cgroup path '" + path + "' has a control character", id);
  }
  return Ok{};
}

class NumaCgroupKnob : public Knob {
 public:
  NumaCgroupKnob(std::string id, std::string path, KnobContext& ctx, Fd dir)
      : id_(std::move(id)), path_(std::move(path)), ctx_(ctx), dir_(std::move(dir)) {}

  const std::string& id() const override { return id_; }

  Result<std::string> read() override {
    auto cpus = read_list("cpuset.cpus");
    if (!cpus.ok()) return cpus.error();
    auto mems = read_list("cpuset.mems");
    if (!mems.ok()) return mems.error();
    return format_numa_binding(NumaBinding{*cpus, *mems});
  }

  /// A part left out keeps its current value.
  Result<std::string> canonical(const std::string& desired) override {
    // Empty lists are real states (v2: inherit; v1: a new cgroup without tasks), so a
    // before value can be put back; the kernel refuses them where tasks need CPUs.
    return canonical_numa_binding(desired, /*allow_empty=*/true, ctx_.root, id_,
                                  [this] { return read(); });
  }

  Status write(const std::string& value) override {
    if (!ctx_.root.is_live())
      return Error::invalid("refusing to write under --root " + ctx_.root.dir(), id_);
    auto want = canonical(value);
    if (!want.ok()) return want.error();
    auto before = read();
    if (!before.ok()) return before.error();
    auto w = parse_numa_binding(*want, id_, true);
    auto b = parse_numa_binding(*before, id_, true);
    // Growing: mems first is never narrower than the tasks need; the order matters only
    // when one write fails, and then the other is put back.
    if (auto st = write_list("cpuset.cpus", *w->cpus); !st.ok()) return st;
    if (auto st = write_list("cpuset.mems", *w->mems); !st.ok()) {
      Error e = st.error();
      if (auto r = write_list("cpuset.cpus", *b->cpus); !r.ok())
        e.what += "; restoring cpuset.cpus failed too: " + r.error().message();
      return e;
    }
    auto now = read();
    if (!now.ok()) return now.error();
    if (*now != *want) {
      (void)write_list("cpuset.cpus", *b->cpus);
      (void)write_list("cpuset.mems", *b->mems);
      return Error::invalid("read back '" + *now + "' after writing '" + *want + "'; reverted", id_);
    }
    return Ok{};
  }

 private:
  std::string file_path(const char* name) const {
    return ctx_.cgroup_root + "/" + path_ + "/" + name;
  }

  Result<CpuSet> read_list(const char* name) {
    Fd f(::openat(dir_.fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (f.fd < 0) return errno_error("cannot open", file_path(name));
    char buf[4096];
    ssize_t n = ::read(f.fd, buf, sizeof buf - 1);
    if (n < 0) return errno_error("cannot read", file_path(name));
    auto set = CpuSet::parse(std::string_view(buf, static_cast<std::size_t>(n)));
    if (!set.ok()) return Error::invalid(set.error().what, file_path(name));
    return set;
  }

  Status write_list(const char* name, const CpuSet& set) {
    Fd f(::openat(dir_.fd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC));
    if (f.fd < 0) return errno_error("cannot open", id_ + ": " + file_path(name));
    // A newline, so that an empty list is still a write the kernel sees.
    std::string text = set.to_string() + "\n";
    if (::write(f.fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
      return errno_error("cannot write '" + set.to_string() + "'", id_ + ": " + file_path(name));
    return Ok{};
  }

  std::string id_, path_;
  KnobContext& ctx_;
  Fd dir_;
};

}  // namespace

Result<std::unique_ptr<Knob>> make_numa_cgroup_knob(const std::string& id,
                                                    const std::string& given, KnobContext& ctx) {
  // DESIGN.md's table writes the id with the absolute path; below the cgroup root that
  // names the same relative path, which is then checked like any other.
  std::string path = given;
  std::string prefix = ctx.cgroup_root + (ctx.cgroup_root.ends_with('/') ? "" : "/");
  if (starts_with(path, prefix)) path = path.substr(prefix.size());
  if (auto st = validate_cgroup_path(path, id); !st.ok()) return st.error();
  Fd dir(::open(ctx.cgroup_root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.fd < 0) return errno_error("cannot open cgroup root", id + ": " + ctx.cgroup_root);
  std::string walked = ctx.cgroup_root;
  for (std::string_view part : split(path, '/')) {
    std::string name(part);
    walked += "/" + name;
    Fd next(::openat(dir.fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (next.fd < 0) {
      if (errno == ELOOP || errno == ENOTDIR)
        return errno_error(walked + " is not a directory (symlinks are not followed)", id, errno);
      return errno_error("cannot open cgroup", id + ": " + walked);
    }
    dir = std::move(next);
  }
  struct statfs fs {};
  if (::fstatfs(dir.fd, &fs) != 0) return errno_error("cannot statfs", id + ": " + walked);
  bool v2 = fs.f_type == CGROUP2_SUPER_MAGIC;
  if (!v2 && fs.f_type != CGROUP_SUPER_MAGIC)
    return Error::invalid(walked + " is not a cgroup", id);
  if (::faccessat(dir.fd, "cpuset.cpus", F_OK, AT_SYMLINK_NOFOLLOW) != 0) {
    if (v2)
      return Error::invalid("the cpuset controller is not enabled for " + walked +
                       " (add +cpuset to its parent's cgroup.subtree_control)",
                   id);
    return Error::invalid(walked + " is not in the cgroup v1 cpuset hierarchy", id);
  }
  return std::unique_ptr<Knob>(new NumaCgroupKnob(id, path, ctx, std::move(dir)));
}

}  // namespace tuner
