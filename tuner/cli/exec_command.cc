// tuner exec --near DEVICE -- CMD [ARG]...: runs CMD on the CPUs of the NUMA node
// nearest DEVICE, with its memory bound to that node (MPOL_BIND). tuner binds itself
// and then execs CMD, so CMD keeps tuner's pid (what a systemd unit or a batch system
// expects) and the exit status is CMD's. Both bindings survive execve.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <numaif.h>
#include <sched.h>
#include <unistd.h>

#include <fmt/core.h>

#include "base/strings.h"
#include "tuner/cli/cli.h"
#include "tuner/plan/near.h"
#include "tuner/plan/target.h"

namespace po = boost::program_options;

namespace tuner {

namespace {

CpuSet allowed_cpus() {
  CpuSet out;
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (unsigned c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.add(c);
  return out;
}

void bind_cpus(const CpuSet& cpus) {
  unsigned max = cpus.cpus().back() + 1;
  cpu_set_t* mask = CPU_ALLOC(max);
  std::size_t size = CPU_ALLOC_SIZE(max);
  CPU_ZERO_S(size, mask);
  for (unsigned c : cpus.cpus()) CPU_SET_S(c, size, mask);
  int rc = ::sched_setaffinity(0, size, mask);
  int e = errno;
  CPU_FREE(mask);
  if (rc != 0)
    fail_runtime(errno_error("sched_setaffinity", "exec: CPUs " + cpus.to_string(), e).message());
}

void bind_memory(unsigned node) {
  constexpr unsigned bits = 8 * sizeof(unsigned long);
  std::vector<unsigned long> mask(node / bits + 1, 0);
  mask[node / bits] |= 1UL << (node % bits);
  // maxnode counts bits; the kernel reads one fewer than given.
  if (::set_mempolicy(MPOL_BIND, mask.data(), mask.size() * bits + 1) != 0)
    fail_runtime(
        errno_error("set_mempolicy(MPOL_BIND)", "exec: node " + std::to_string(node)).message());
}

}  // namespace

int exec_command(GlobalOptions& g, const std::vector<std::string>& args) {
  // Everything after "--" is the command, options included.
  auto dashes = std::find(args.begin(), args.end(), "--");
  std::vector<std::string> ours(args.begin(), dashes);
  std::vector<std::string> command(dashes == args.end() ? dashes : dashes + 1, args.end());

  po::options_description desc("tuner exec --near DEVICE -- CMD [ARG]...");
  std::string device;
  desc.add_options()("near", po::value<std::string>(&device)->value_name("DEVICE"),
                     "netdev, PCI address, gpuN, another device name (mlx5_0), or node:N")(
      "allow-unbound", "run unbound when the device has no NUMA locality");
  po::variables_map vm;
  if (!parse_options("exec", ours, desc, {}, vm, g)) return 0;
  if (device.empty()) fail_input("exec: --near DEVICE is required");
  if (command.empty())
    fail_input("exec: no command (usage: tuner exec --near DEVICE -- CMD [ARG]...)");

  Target target{Root::live(), std::nullopt};
  Inventory inv = probe_target(target);
  if (fill_nodes_from_sysfs(target.root, inv) && g.verbose)
    fmt::print(stderr, "tuner: exec: NUMA nodes read from /sys (the topology probe had none)\n");
  auto near = resolve_near(inv, device);
  if (!near.ok()) fail_input("exec --near: " + near.error().message());

  if (!near->node) {
    if (!vm.count("allow-unbound"))
      fail_input("exec --near " + device + ": " + near->how +
                 "; nothing to bind to (--allow-unbound runs it unbound)");
    fmt::print(stderr, "tuner: exec: warning: {}; running unbound\n",
               escape_controls(device + ": " + near->how));
  } else {
    CpuSet allowed = allowed_cpus();
    CpuSet cpus = near->cpus.intersect(allowed);
    if (cpus.empty())
      fail_runtime("exec --near " + device + ": node " + std::to_string(*near->node) + "'s CPUs " +
                   near->cpus.to_string() + " are all outside this process's allowed CPUs " +
                   allowed.to_string());
    if (cpus != near->cpus)
      fmt::print(stderr, "tuner: exec: warning: only CPUs {} of node {} are allowed here\n",
                 cpus.to_string(), *near->node);
    bind_cpus(cpus);
    bind_memory(*near->node);
    if (g.verbose)
      fmt::print(stderr, "tuner: exec: {}: CPUs {}, memory on node {}\n",
                 escape_controls(near->how), cpus.to_string(), *near->node);
  }

  std::vector<char*> argv;
  argv.reserve(command.size() + 1);
  for (std::string& a : command) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  ::execvp(argv[0], argv.data());
  int e = errno;
  fmt::print(stderr, "tuner: exec: cannot run '{}': {}\n", escape_controls(command[0]),
             std::strerror(e));
  return e == ENOENT ? 127 : 126;
}

}  // namespace tuner
