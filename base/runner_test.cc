#include "base/runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>

#include <doctest/doctest.h>

#include "tests/support/temp_dir.h"

using namespace tuner;
using namespace std::chrono_literals;

namespace {

RunResult must_run(const RunSpec& spec) {
  ProcessRunner runner;
  auto r = runner.run(spec);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message()));
  return *r;
}

RunSpec sh(std::string script, std::chrono::milliseconds timeout = 10s) {
  // The test drives sh as the program under test; the Runner itself never uses a shell.
  RunSpec s;
  s.argv = {"/bin/sh", "-c", std::move(script)};
  s.timeout = timeout;
  return s;
}

}  // namespace

TEST_CASE("runner: captures stdout, stderr and the exit status apart") {
  RunResult r = must_run(sh("echo out; echo err >&2; exit 3"));
  CHECK(r.out == "out\n");
  CHECK(r.err == "err\n");
  CHECK(r.exit_code == 3);
  CHECK(r.signal == 0);
  CHECK_FALSE(r.timed_out);
  CHECK_FALSE(r.success());
  CHECK(r.describe(sh("")) == "exited with status 3");
}

TEST_CASE("runner: an argument vector reaches the program verbatim, no shell between") {
  RunSpec s;
  s.argv = {"printf", "%s|", "a b", "$HOME", "*", "'q'"};
  RunResult r = must_run(s);
  CHECK(r.success());
  CHECK(r.out == "a b|$HOME|*|'q'|");
}

TEST_CASE("runner: stdin is /dev/null, so a command reading it does not hang") {
  RunResult r = must_run(sh("cat; echo done", 5s));
  CHECK(r.success());
  CHECK(r.out == "done\n");
}

TEST_CASE("runner: a command past its timeout is terminated, with its children") {
  testing::TempDir dir("tuner-runner");
  std::string mark = dir / "grandchild-survived";
  // The background child would create `mark` after 2 s unless killed with the group.
  auto t0 = std::chrono::steady_clock::now();
  RunResult r = must_run(sh("(sleep 2; touch " + mark + ") & sleep 30", 300ms));
  auto took = std::chrono::steady_clock::now() - t0;
  CHECK(r.timed_out);
  CHECK(r.signal == SIGTERM);
  CHECK_FALSE(r.success());
  CHECK(took < 3s);
  CHECK(r.describe(sh("", 300ms)) == "timed out after 300 ms and was killed");
  ::sleep(3);
  CHECK_MESSAGE(::access(mark.c_str(), F_OK) != 0, "a child of the timed-out command lived on");
}

TEST_CASE("runner: a command ignoring SIGTERM gets SIGKILL after the grace period") {
  RunSpec s = sh("trap '' TERM; echo ready; while :; do sleep 0.05; done", 200ms);
  s.kill_grace = 300ms;
  auto t0 = std::chrono::steady_clock::now();
  RunResult r = must_run(s);
  CHECK(r.timed_out);
  CHECK(r.signal == SIGKILL);
  CHECK(r.out == "ready\n");
  CHECK(std::chrono::steady_clock::now() - t0 < 3s);
}

TEST_CASE("runner: output past the limit is dropped and flagged, and the child still ends") {
  RunSpec s;
  s.argv = {"head", "-c", "3000000", "/dev/zero"};
  s.max_output = 1000;
  RunResult r = must_run(s);
  CHECK(r.success());
  CHECK(r.out.size() == 1000);
  CHECK(r.out_truncated);
  CHECK_FALSE(r.err_truncated);
}

TEST_CASE("runner: Keep::tail keeps the last bytes, where a benchmark prints its summary") {
  // 3 MB of progress, then the summary: the head would keep only progress.
  RunSpec s = sh("head -c 3000000 /dev/zero | tr '\\0' p; echo; echo 'total: 42 ops/s'");
  s.max_output = 1000;
  s.keep = RunSpec::Keep::tail;
  RunResult r = must_run(s);
  CHECK(r.success());
  CHECK(r.out.size() == 1000);
  CHECK(r.out.ends_with("p\ntotal: 42 ops/s\n"));
  CHECK(r.out_truncated);
  // Under the limit nothing is cut or flagged.
  s = sh("echo short");
  s.keep = RunSpec::Keep::tail;
  RunResult small = must_run(s);
  CHECK(small.out == "short\n");
  CHECK_FALSE(small.out_truncated);
}

TEST_CASE("runner: a daemon left holding the pipes does not hold up the run") {
  auto t0 = std::chrono::steady_clock::now();
  RunResult r = must_run(sh("sleep 3 & echo parent-done", 10s));
  CHECK(r.success());
  CHECK(r.out == "parent-done\n");
  CHECK(std::chrono::steady_clock::now() - t0 < 2s);
}

TEST_CASE("runner: a command killed by a signal says so") {
  RunResult r = must_run(sh("kill -SEGV $$"));
  CHECK(r.signal == SIGSEGV);
  CHECK(r.exit_code == -1);
  CHECK(r.describe(sh("")).find("killed by signal 11") != std::string::npos);
}

TEST_CASE("runner: a missing or non-executable program is an Error naming it") {
  ProcessRunner runner;
  RunSpec s;
  s.argv = {"/nonexistent/tuner-bench"};
  auto r = runner.run(s);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message() == "/nonexistent/tuner-bench: cannot run: No such file or directory");

  s.argv = {"tuner-no-such-program-xyz"};
  r = runner.run(s);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message().find("'tuner-no-such-program-xyz' not found in PATH") !=
        std::string::npos);

  char file[] = "/tmp/tuner-runner-XXXXXX";
  int fd = ::mkstemp(file);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, "no shebang\n", 11) == 11);
  ::close(fd);
  ::chmod(file, 0644);
  s.argv = {file};
  r = runner.run(s);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message() == std::string(file) + ": is not an executable file");
  // Executable but not a program: the kernel's refusal, not a shell's guess.
  ::chmod(file, 0755);
  r = runner.run(s);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message() == std::string(file) + ": cannot run: Exec format error");
  std::remove(file);
}

TEST_CASE("find_executable: searches PATH for a bare name, takes a path as is") {
  auto sh_path = find_executable("sh");
  REQUIRE(sh_path.ok());
  CHECK(sh_path->find('/') != std::string::npos);
  CHECK(::access(sh_path->c_str(), X_OK) == 0);
  CHECK(find_executable("/bin/sh").value_or("") == "/bin/sh");
  CHECK_FALSE(find_executable("").ok());
  CHECK_FALSE(find_executable("/tmp").ok());  // a directory is not a program
}

TEST_CASE("stderr_tail: the last non-empty lines, joined for one-line messages") {
  RunResult r;
  r.err = "warming up\n\nline 2\nline 3\nfatal: no route to host\n\n";
  CHECK(r.stderr_tail(2) == "line 3 | fatal: no route to host");
  CHECK(r.stderr_tail() == "warming up | line 2 | line 3 | fatal: no route to host");
  r.err = std::string(5000, 'x');
  CHECK(r.stderr_tail().size() == 1024);
}

TEST_CASE("runner: the program gets no descriptor tuner inherited without FD_CLOEXEC") {
  int leaked = ::dup(STDERR_FILENO);  // dup clears FD_CLOEXEC
  REQUIRE(leaked >= 3);
  RunResult r = must_run(sh("test -e /proc/self/fd/" + std::to_string(leaked) + " && echo seen"));
  ::close(leaked);
  CHECK(r.out.empty());

  // Where glibc has no closefrom action (before 2.34), every such descriptor is marked
  // close-on-exec first: in a child, as it changes the whole process.
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int fd = ::dup(STDERR_FILENO);
    if (fd < 3 || (::fcntl(fd, F_GETFD) & FD_CLOEXEC)) ::_exit(2);
    mark_inherited_cloexec();
    ::_exit((::fcntl(fd, F_GETFD) & FD_CLOEXEC) && !(::fcntl(STDERR_FILENO, F_GETFD) & FD_CLOEXEC)
                ? 0
                : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
}
