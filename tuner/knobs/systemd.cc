#include "tuner/knobs/systemd.h"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/core.h>

#include "base/strings.h"

extern char** environ;

namespace tuner {

Status validate_unit_name(const std::string& unit, const std::string& id) {
  if (unit.empty() || unit.size() > 255)
    return Error::invalid("unit name must be 1 to 255 characters", id);
  for (char c : unit) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == ':' || c == '_' || c == '.' || c == '@' || c == '-';
    if (!ok)
      return Error::invalid("unit name '" + unit + "' may only contain letters, digits and : _ . @ -",
                   id);
  }
  auto dot = unit.rfind('.');
  std::string suffix = dot == std::string::npos ? "" : unit.substr(dot);
  if (dot == 0 || (suffix != ".service" && suffix != ".scope" && suffix != ".slice"))
    return Error::invalid("unit name '" + unit + "' must end in .service, .scope or .slice", id);
  return Ok{};
}

namespace {

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

Status write_all(int fd, const std::string& data, const std::string& where) {
  std::size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("cannot write", where);
    off += static_cast<std::size_t>(n);
  }
  return Ok{};
}

}  // namespace

Status write_file_atomic(const std::string& dir, const std::string& subdir,
                         const std::string& name, const std::string& content) {
  Fd top{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (top.fd < 0) return errno_error("cannot open directory", dir);
  std::string sub_path = dir + "/" + subdir;
  bool created = false;
  if (::mkdirat(top.fd, subdir.c_str(), 0755) == 0) created = true;
  else if (errno != EEXIST) return errno_error("cannot create directory", sub_path);
  Fd sub{::openat(top.fd, subdir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)};
  if (sub.fd < 0) return errno_error("cannot open directory", sub_path);
  std::string path = sub_path + "/" + name;
  std::string tmp = "." + name + ".tmp";
  Fd f{::openat(sub.fd, tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644)};
  if (f.fd < 0) return errno_error("cannot create", sub_path + "/" + tmp);
  if (auto st = write_all(f.fd, content, path); !st.ok()) {
    ::unlinkat(sub.fd, tmp.c_str(), 0);
    return st;
  }
  if (::fsync(f.fd) != 0) {
    int e = errno;
    ::unlinkat(sub.fd, tmp.c_str(), 0);
    return errno_error("cannot fsync", path, e);
  }
  if (::renameat(sub.fd, tmp.c_str(), sub.fd, name.c_str()) != 0) {
    int e = errno;
    ::unlinkat(sub.fd, tmp.c_str(), 0);
    return errno_error("cannot rename into place", path, e);
  }
  if (::fsync(sub.fd) != 0) return errno_error("cannot fsync directory", sub_path);
  if (created && ::fsync(top.fd) != 0) return errno_error("cannot fsync directory", dir);
  return Ok{};
}

Result<std::optional<std::string>> read_optional_file(const std::string& dir,
                                                      const std::string& subdir,
                                                      const std::string& name) {
  std::string path = dir + "/" + subdir + "/" + name;
  Fd top{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (top.fd < 0) return errno_error("cannot open directory", dir);
  Fd sub{::openat(top.fd, subdir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)};
  if (sub.fd < 0) {
    if (errno == ENOENT) return std::optional<std::string>();
    return errno_error("cannot open directory", dir + "/" + subdir);
  }
  Fd f{::openat(sub.fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)};
  if (f.fd < 0) {
    if (errno == ENOENT) return std::optional<std::string>();
    return errno_error("cannot open", path);
  }
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("cannot read", path);
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return std::optional<std::string>(out);
}

Status remove_file_and_empty_dir(const std::string& dir, const std::string& subdir,
                                 const std::string& name) {
  Fd top{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (top.fd < 0) return errno_error("cannot open directory", dir);
  std::string sub_path = dir + "/" + subdir;
  Fd sub{::openat(top.fd, subdir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)};
  if (sub.fd < 0) {
    if (errno == ENOENT) return Ok{};
    return errno_error("cannot open directory", sub_path);
  }
  if (::unlinkat(sub.fd, name.c_str(), 0) != 0 && errno != ENOENT)
    return errno_error("cannot remove", sub_path + "/" + name);
  if (::fsync(sub.fd) != 0) return errno_error("cannot fsync directory", sub_path);
  // Only an empty directory goes; one holding the admin's own drop-ins stays.
  if (::unlinkat(top.fd, subdir.c_str(), AT_REMOVEDIR) == 0) ::fsync(top.fd);
  else if (errno != ENOTEMPTY && errno != EEXIST)
    return errno_error("cannot remove directory", sub_path);
  return Ok{};
}

namespace {

/// Runs argv[0] from PATH; collects stdout and stderr; returns the exit status.
Result<int> run_process(const std::vector<std::string>& argv, std::string& out, std::string& err) {
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return errno_error("cannot create pipe", argv[0]);
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    int e = errno;
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return errno_error("cannot create pipe", argv[0], e);
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int rc = ::posix_spawnp(&pid, argv[0].c_str(), &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (rc != 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    return errno_error("cannot run", argv[0], rc);
  }
  // systemctl writes little; drain stdout then stderr.
  for (auto [fd, dst] : {std::pair{out_pipe[0], &out}, std::pair{err_pipe[0], &err}}) {
    char buf[4096];
    for (;;) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      dst->append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return errno_error("cannot wait for", argv[0]);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

class RealSystemctl : public Systemctl {
 public:
  bool running() override { return ::access("/run/systemd/system", F_OK) == 0; }

  Status run(const std::vector<std::string>& args) override {
    std::vector<std::string> argv{"systemctl"};
    argv.insert(argv.end(), args.begin(), args.end());
    std::string out, err;
    auto rc = run_process(argv, out, err);
    if (!rc.ok()) return rc.error();
    if (*rc != 0)
      return Error::invalid("systemctl " + join(args) + " exited with status " + std::to_string(*rc) +
                       (err.empty() ? "" : ": " + normalize_ws(err)),
                   "systemctl");
    return Ok{};
  }

  Result<std::string> is_active(const std::string& unit) override {
    std::string out, err;
    auto rc = run_process({"systemctl", "is-active", unit}, out, err);
    if (!rc.ok()) return rc.error();
    // Non-zero status just means "not active"; the word says which.
    std::string state = normalize_ws(out);
    if (state.empty())
      return Error::invalid("systemctl is-active " + unit + " said nothing" +
                       (err.empty() ? "" : ": " + normalize_ws(err)),
                   "systemctl");
    return state;
  }

 private:
  static std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& a : v) s += (s.empty() ? "" : " ") + a;
    return s;
  }
};

Systemctl* g_override = nullptr;

}  // namespace

Systemctl& systemctl() {
  static RealSystemctl real;
  return g_override ? *g_override : real;
}

void set_systemctl(Systemctl* s) { g_override = s; }

void knob_note(const std::string& id, const std::string& text) {
  fmt::print(stderr, "tuner: note: {}: {}\n", id, text);
}

Status write_dropin_checked(const std::string& id, const std::string& dir,
                            const std::string& subdir, const std::string& name,
                            const std::optional<std::string>& content, const std::string& want,
                            const std::function<Result<std::string>()>& read_back) {
  Status st = content ? write_file_atomic(dir, subdir, name, *content)
                      : remove_file_and_empty_dir(dir, subdir, name);
  if (!st.ok()) return errno_error(st.error().message(), id, st.error().err);
  auto now = read_back();
  if (!now.ok()) return now.error();
  if (*now != want)
    return Error::invalid("read back '" + *now + "' from " + dir + "/" + subdir + "/" + name +
                     " after writing '" + want + "'",
                 id);
  return Ok{};
}

}  // namespace tuner
