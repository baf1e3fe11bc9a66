#include "base/runner.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include <fmt/core.h>

#include "base/interrupt.h"
#include "base/strings.h"
#include "base/unique_fd.h"

namespace tuner {

namespace {

using Clock = std::chrono::steady_clock;

/// Owns a descriptor; closes it once.

/// One captured stream: keeps the first or the last `limit` bytes, drops the rest and
/// flags it.
struct Capture {
  UniqueFd fd;
  std::string* text;
  bool* truncated;
  std::size_t limit;
  RunSpec::Keep keep;

  /// Reads what is there now. Returns false at end of file or on a read error.
  bool read_some() {
    char buf[65536];
    for (int round = 0; round < 16; ++round) {
      ssize_t n = ::read(fd.get(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
      if (n <= 0) {
        fd.reset();
        return false;
      }
      if (keep == RunSpec::Keep::tail) append_tail(buf, static_cast<std::size_t>(n));
      else append_head(buf, static_cast<std::size_t>(n));
      if (static_cast<std::size_t>(n) < sizeof buf) return true;
    }
    return true;  // a fast writer: let the caller check its clock
  }

  void append_head(const char* data, std::size_t n) const {
    std::size_t room = limit > text->size() ? limit - text->size() : 0;
    std::size_t keep_n = std::min(room, n);
    text->append(data, keep_n);
    if (keep_n < n) *truncated = true;
  }

  /// Appends, and cuts the front once the text is twice the limit: memory stays under
  /// 2 x limit and each byte is moved at most once or twice. finish() cuts to the limit.
  void append_tail(const char* data, std::size_t n) const {
    text->append(data, n);
    if (text->size() >= 2 * std::max<std::size_t>(limit, 1)) finish();
  }

  void finish() const {
    if (keep != RunSpec::Keep::tail || text->size() <= limit) return;
    text->erase(0, text->size() - limit);
    *truncated = true;
  }
};

std::string format_duration(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return fmt::format("{} s", d.count() / 1000);
  return fmt::format("{} ms", d.count());
}

int pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
}

}  // namespace

void mark_inherited_cloexec() {
  DIR* d = ::opendir("/proc/self/fd");
  if (!d) return;
  const int own = ::dirfd(d);
  while (const dirent* e = ::readdir(d)) {
    auto fd = parse_i64(e->d_name);
    if (!fd || *fd < 3 || *fd == own || *fd > INT_MAX) continue;
    int flags = ::fcntl(static_cast<int>(*fd), F_GETFD);
    if (flags >= 0 && !(flags & FD_CLOEXEC))
      ::fcntl(static_cast<int>(*fd), F_SETFD, flags | FD_CLOEXEC);
  }
  ::closedir(d);
}

namespace {

/// Starts argv with stdout/stderr on the given pipe ends, in its own process group.
Result<pid_t> spawn(const std::string& path, const std::vector<std::string>& argv, int out_w,
                    int err_w) {
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out_w, 1);
  posix_spawn_file_actions_adddup2(&fa, err_w, 2);
  // Only the three streams reach the program, whatever tuner inherited without
  // FD_CLOEXEC (Ansible's, a shell's). glibc before 2.34 (Debian 11, RHEL 8 and 9 but
  // 9's later minors) has no closefrom action: there every such descriptor is marked
  // close-on-exec first (tuner's own are opened O_CLOEXEC).
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#else
  mark_inherited_cloexec();
#endif
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  sigdelset(&all, SIGKILL);
  sigdelset(&all, SIGSTOP);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, path.c_str(), &fa, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return errno_error("cannot run", path, rc);
  return pid;
}

}  // namespace

std::string RunResult::describe(const RunSpec& spec) const {
  if (interrupted) return "was stopped: tuner was interrupted";
  if (timed_out)
    return fmt::format("timed out after {} and was killed", format_duration(spec.timeout));
  if (signal != 0) return fmt::format("was killed by signal {} ({})", signal, ::strsignal(signal));
  return fmt::format("exited with status {}", exit_code);
}

std::string RunResult::stderr_tail(std::size_t lines) const {
  std::vector<std::string_view> kept;
  for (std::string_view line : split(err, '\n'))
    if (!trim(line).empty()) kept.push_back(trim(line));
  std::size_t from = kept.size() > lines ? kept.size() - lines : 0;
  std::string out;
  for (std::size_t i = from; i < kept.size(); ++i) {
    if (!out.empty()) out += " | ";
    out += kept[i];
  }
  if (out.size() > 1024) out = "..." + out.substr(out.size() - 1021);
  return out;
}

Result<std::string> find_executable(std::string_view name) {
  auto executable = [](const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
  };
  if (name.empty()) return Error::invalid("empty command");
  if (name.find('/') != std::string_view::npos) {
    std::string p(name);
    if (::access(p.c_str(), F_OK) != 0) return errno_error("cannot run", p);
    if (!executable(p)) return Error::denied("is not an executable file", p);
    return p;
  }
  const char* env = std::getenv("PATH");
  std::string path = env ? env : "/usr/local/bin:/usr/bin:/bin";
  for (std::string_view dir : split(path, ':')) {
    std::string p = std::string(dir.empty() ? "." : dir) + "/" + std::string(name);
    if (executable(p)) return p;
  }
  return Error::missing(fmt::format("'{}' not found in PATH ({})", name, path), std::string(name));
}

Result<RunResult> ProcessRunner::run(const RunSpec& spec) {
  if (spec.argv.empty()) return Error::invalid("empty command");
  auto path = find_executable(spec.argv[0]);
  if (!path.ok()) return path.error();
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return errno_error("cannot create pipe", *path);
  UniqueFd out_r(out_pipe[0]), out_w(out_pipe[1]);
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return errno_error("cannot create pipe", *path);
  UniqueFd err_r(err_pipe[0]), err_w(err_pipe[1]);

  RunResult r;
  const auto start = Clock::now();
  auto pid = spawn(*path, spec.argv, out_w.get(), err_w.get());
  if (!pid.ok()) return pid.error();
  out_w.reset();
  err_w.reset();
  Capture caps[2] = {{std::move(out_r), &r.out, &r.out_truncated, spec.max_output, spec.keep},
                     {std::move(err_r), &r.err, &r.err_truncated, spec.max_output, spec.keep}};
  for (Capture& c : caps) ::fcntl(c.fd.get(), F_SETFL, O_NONBLOCK);
  UniqueFd pidfd(pidfd_open(*pid));

  const auto deadline = start + spec.timeout;
  auto kill_at = Clock::time_point::max();
  bool killed = false;
  int status = 0;
  // Stopping: timed out or interrupted; SIGTERM sent, SIGKILL at kill_at.
  auto stop = [&](bool* why) {
    *why = true;
    ::kill(-*pid, SIGTERM);
    kill_at = Clock::now() + spec.kill_grace;
  };
  const int intr = spec.stop_on_interrupt ? interrupt_fd() : -1;
  for (bool exited = false; !exited;) {
    const bool stopping = r.timed_out || r.interrupted;
    pollfd fds[4];
    nfds_t n = 0;
    for (Capture& c : caps)
      if (c.fd.get() >= 0) fds[n++] = {c.fd.get(), POLLIN, 0};
    if (pidfd.get() >= 0) fds[n++] = {pidfd.get(), POLLIN, 0};
    if (intr >= 0 && !stopping) fds[n++] = {intr, POLLIN, 0};  // readable for good once set
    auto until = stopping ? kill_at : deadline;
    auto wait = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now()).count();
    wait = std::min<long>(wait, pidfd.get() < 0 ? 20 : 60'000);  // no pidfd: poll for the exit
    ::poll(fds, n, static_cast<int>(std::max<long>(wait, 0)));
    for (Capture& c : caps)
      if (c.fd.get() >= 0) c.read_some();
    // WNOWAIT: the zombie keeps its process group alive until the group is killed.
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(*pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0) {
      exited = info.si_pid == *pid;
    } else if (errno != EINTR) {
      return errno_error("cannot wait for", *path);
    }
    auto now = Clock::now();
    if (!exited && !stopping && spec.stop_on_interrupt && interrupt_signal() != 0) {
      stop(&r.interrupted);
    } else if (!exited && !stopping && now >= deadline) {
      stop(&r.timed_out);
    } else if (!exited && stopping && !killed && now >= kill_at) {
      ::kill(-*pid, SIGKILL);
      killed = true;
      kill_at = now + std::chrono::seconds(5);
    } else if (!exited && killed && now >= kill_at) {
      // Stuck in the kernel (uninterruptible sleep): do not hang with it.
      return Error::io(fmt::format("did not exit within 5 s of SIGKILL (pid {})", *pid), *path);
    }
  }
  // What the child wrote before exiting is in the pipes; a grandchild that kept them
  // open (a daemon) may write on, so read only what is there now, for a bounded time.
  const auto drain_until = Clock::now() + std::chrono::milliseconds(200);
  for (Capture& c : caps) {
    while (c.fd.get() >= 0 && Clock::now() < drain_until) {
      pollfd p{c.fd.get(), POLLIN, 0};
      if (::poll(&p, 1, 0) <= 0 || !c.read_some()) break;
    }
  }
  for (Capture& c : caps) c.finish();
  // A timed-out or interrupted command's helpers die with it.
  if (r.timed_out || r.interrupted) ::kill(-*pid, SIGKILL);
  while (::waitpid(*pid, &status, 0) < 0)
    if (errno != EINTR) return errno_error("cannot wait for", *path);
  r.elapsed = Clock::now() - start;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

}  // namespace tuner
