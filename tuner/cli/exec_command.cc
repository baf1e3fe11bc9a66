// tuner exec --near DEVICE -- CMD [ARG]...: runs CMD on the CPUs of the NUMA node
// nearest DEVICE, with its memory bound to that node (MPOL_BIND), or preferred there
// (--memory preferred: MPOL_PREFERRED, other nodes when it is full), or not bound
// (--memory none). tuner binds itself and then execs CMD, so CMD keeps tuner's pid (what
// a systemd unit or a batch system expects) and the exit status is CMD's. Both
// bindings survive execve. Under NVIDIA_VISIBLE_DEVICES (a container's GPUs) and
// CUDA_VISIBLE_DEVICES, gpuN is the N-th GPU the process sees (a rank's LOCAL_RANK),
// not the machine's N-th (tuner/plan/visible_gpus.h).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numaif.h>
#include <sched.h>
#include <unistd.h>

#include <fmt/core.h>

#include "base/strings.h"
#include "tuner/cli/cli.h"
#include "tuner/plan/near.h"
#include "tuner/plan/target.h"
#include "tuner/plan/visible_gpus.h"

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

void bind_memory(unsigned node, int mode) {
  constexpr unsigned bits = 8 * sizeof(unsigned long);
  std::vector<unsigned long> mask(node / bits + 1, 0);
  mask[node / bits] |= 1UL << (node % bits);
  // maxnode counts bits; the kernel reads one fewer than given.
  if (::set_mempolicy(mode, mask.data(), mask.size() * bits + 1) != 0)
    fail_runtime(errno_error(mode == MPOL_BIND ? "set_mempolicy(MPOL_BIND)"
                                               : "set_mempolicy(MPOL_PREFERRED)",
                             "exec: node " + std::to_string(node))
                     .message());
}

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::optional<std::string>(v) : std::nullopt;
}

/// gpuN under NVIDIA_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES: the PCI address of the GPU
/// the process sees as N.
std::string visible_gpu_pci(const Inventory& inv, const Root& root, const std::string& device,
                            bool verbose) {
  VisibleDevices visible{env("NVIDIA_VISIBLE_DEVICES"), env("CUDA_VISIBLE_DEVICES")};
  bool gpu_n = starts_with(device, "gpu") && device.size() > 3 &&
               device.find_first_not_of("0123456789", 3) == std::string::npos;
  if (!gpu_n || (!visible.nvidia && !visible.cuda)) return device;
  auto n = parse_u64(device.substr(3));
  if (!n || *n > 65535) fail_input("exec --near " + device + ": not a GPU number");
  auto gpu = visible_gpu(inv, root, visible, static_cast<unsigned>(*n));
  if (!gpu.ok())
    fail_input("exec --near " + device + ": " + gpu.error().message() +
               " (--ignore-visible-devices counts the machine's GPUs instead)");
  if (!*gpu) return device;
  const char* order = std::getenv("CUDA_DEVICE_ORDER");
  if (verbose)
    fmt::print(stderr, "tuner: exec: {} {} is PCI {}{}\n", device, escape_controls((*gpu)->how),
               (*gpu)->pci,
               order && std::string_view(order) == "PCI_BUS_ID"
                   ? ""
                   : " (indexes in PCI order; CUDA's own order is the same on identical GPUs, "
                     "and always with CUDA_DEVICE_ORDER=PCI_BUS_ID)");
  return (*gpu)->pci;
}

}  // namespace

int exec_command(GlobalOptions& g, const std::vector<std::string>& args) {
  // Everything after "--" is the command, options included.
  auto dashes = std::find(args.begin(), args.end(), "--");
  std::vector<std::string> ours(args.begin(), dashes);
  std::vector<std::string> command(dashes == args.end() ? dashes : dashes + 1, args.end());

  po::options_description desc("tuner exec --near DEVICE -- CMD [ARG]...");
  std::string device;
  std::string memory = "bind";
  desc.add_options()("near", po::value<std::string>(&device)->value_name("DEVICE"),
                     "netdev, PCI address, gpuN, another device name (mlx5_0), or node:N")(
      "memory", po::value<std::string>(&memory)->value_name("POLICY"),
      "bind (default: only the node's memory), preferred (the node's first, others when "
      "it is full) or none")(
      "ignore-visible-devices",
      "gpuN is the machine's N-th GPU even under NVIDIA_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES")(
      "ignore-cuda-visible-devices", "the same as --ignore-visible-devices (its older name)")(
      "allow-unbound", "run unbound when the device has no NUMA locality");
  po::variables_map vm;
  if (!parse_options("exec", ours, desc, {}, vm, g)) return 0;
  if (device.empty()) fail_input("exec: --near DEVICE is required");
  if (command.empty())
    fail_input("exec: no command (usage: tuner exec --near DEVICE -- CMD [ARG]...)");
  if (memory != "bind" && memory != "preferred" && memory != "none")
    fail_input("exec: --memory " + escape_controls(memory) + ": expected bind, preferred or none");

  Target target{Root::live(), std::nullopt};
  Inventory inv = probe_target(target);
  if (fill_nodes_from_sysfs(target.root, inv) && g.verbose)
    fmt::print(stderr, "tuner: exec: NUMA nodes read from /sys (the topology probe had none)\n");
  bool ignore_visible = vm.count("ignore-visible-devices") ||
                        vm.count("ignore-cuda-visible-devices");
  std::string resolved = ignore_visible ? device
                                        : visible_gpu_pci(inv, target.root, device, g.verbose);
  auto near = resolve_near(inv, resolved);
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
    if (memory != "none") bind_memory(*near->node, memory == "bind" ? MPOL_BIND : MPOL_PREFERRED);
    if (g.verbose)
      fmt::print(stderr, "tuner: exec: {}: CPUs {}, memory {} node {}\n",
                 escape_controls(near->how), cpus.to_string(),
                 memory == "bind"        ? "on"
                 : memory == "preferred" ? "preferred on"
                                         : "not bound to",
                 *near->node);
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
