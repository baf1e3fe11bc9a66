#include "probes/bench/bench_bind.h"

#include <numaif.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <utility>
#include <vector>

#include "probes/numa.h"
#include "probes/root.h"

namespace tuner::bench {

CpuSet allowed_cpus() {
  CpuSet out;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (unsigned c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.add(c);
  return out;
}

Status bind_this_thread(const CpuSet& cpus) {
  if (cpus.empty())
    return Error{ErrorKind::invalid, "no CPU to bind to", "sched_setaffinity", EINVAL};
  const unsigned max = cpus.cpus().back() + 1;
  cpu_set_t* mask = CPU_ALLOC(max);
  if (!mask) return errno_error("CPU_ALLOC", "sched_setaffinity");
  const std::size_t size = CPU_ALLOC_SIZE(max);
  CPU_ZERO_S(size, mask);
  for (unsigned c : cpus.cpus()) CPU_SET_S(c, size, mask);
  // pid 0 is the calling thread: the other threads of tuner keep their affinity.
  int rc = ::sched_setaffinity(0, size, mask);
  int err = errno;
  CPU_FREE(mask);
  if (rc != 0) return errno_error("sched_setaffinity", "CPUs " + cpus.to_string(), err);
  return Ok{};
}

bool numa_policy_available() {
  int mode = 0;
  return ::get_mempolicy(&mode, nullptr, 0, nullptr, 0) == 0;
}

Result<uint64_t> node_free_bytes(unsigned node) {
  const std::string path = "sys/devices/system/node/node" + std::to_string(node) + "/meminfo";
  auto text = Root::live().read(path);
  if (!text.ok()) return text.error();
  auto info = parse_node_meminfo(*text);
  if (!info.ok())
    return Error{info.error().kind, info.error().what, "/" + path + ":" + info.error().where};
  if (!info->free_bytes) return Error::invalid("no MemFree line", "/" + path);
  return *info->free_bytes;
}

Result<int> node_of_page(const void* addr) {
  void* pages[1] = {const_cast<void*>(addr)};
  int status[1] = {-1};
  if (::move_pages(0, 1, pages, nullptr, status, 0) != 0)
    return errno_error("move_pages", "page query");
  if (status[0] < 0) return errno_error("page not present", "move_pages", -status[0]);
  return status[0];
}

namespace {

std::size_t page_rounded(std::size_t bytes) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

}  // namespace

Result<NodeMemory> NodeMemory::unbound(std::size_t bytes) {
  bytes = page_rounded(bytes);
  void* addr = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (addr == MAP_FAILED) return errno_error("mmap " + std::to_string(bytes) + " bytes", "memory");
  NodeMemory m;
  m.addr_ = addr;
  m.bytes_ = bytes;
  return m;
}

Result<NodeMemory> NodeMemory::map(std::size_t bytes, unsigned node) {
  const std::string where = "node " + std::to_string(node);
  auto m = unbound(bytes);
  if (!m.ok()) return Error{m.error().kind, m.error().what, where, m.error().err};
  constexpr unsigned bits = 8 * sizeof(unsigned long);
  std::vector<unsigned long> mask(node / bits + 1, 0);
  mask[node / bits] |= 1UL << (node % bits);
  // maxnode counts bits; the kernel reads one fewer than given.
  if (::mbind(m->addr_, m->bytes_, MPOL_BIND, mask.data(), mask.size() * bits + 1, 0) != 0)
    return errno_error("mbind(MPOL_BIND)", where);  // m unmaps on return
  return m;
}

NodeMemory::NodeMemory(NodeMemory&& other) noexcept
    : addr_(std::exchange(other.addr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

NodeMemory& NodeMemory::operator=(NodeMemory&& other) noexcept {
  if (this != &other) {
    if (addr_) ::munmap(addr_, bytes_);
    addr_ = std::exchange(other.addr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

NodeMemory::~NodeMemory() {
  if (addr_) ::munmap(addr_, bytes_);
}

}  // namespace tuner::bench
