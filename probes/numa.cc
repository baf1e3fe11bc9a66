#include "probes/numa.h"

#include <numa.h>

#include <algorithm>
#include <string>

#include "base/strings.h"

namespace tuner {

Result<NodeMeminfo> parse_node_meminfo(std::string_view text) {
  NodeMeminfo out;
  bool have_total = false;
  unsigned line_no = 0;
  for (std::string_view line : split(text, '\n')) {
    ++line_no;
    std::vector<std::string_view> f = split_ws(line);
    if (f.empty()) continue;
    // "Node N Key: value [kB]"
    if (f.size() < 4 || f[0] != "Node" || !parse_u64(f[1]) || f[2].back() != ':')
      return Error::invalid("not a node meminfo line: \"" + std::string(trim(line)) + "\"",
                            "line " + std::to_string(line_no));
    std::string_view key = f[2].substr(0, f[2].size() - 1);
    if (key != "MemTotal" && key != "MemFree") continue;
    std::optional<uint64_t> kb = parse_u64(f[3]);
    if (!kb || f.size() != 5 || f[4] != "kB" || *kb > UINT64_MAX / 1024)
      return Error::invalid(
          "bad " + std::string(key) + " value \"" + std::string(trim(line)) + "\"",
          "line " + std::to_string(line_no));
    if (key == "MemTotal") {
      out.total_bytes = *kb * 1024;
      have_total = true;
    } else {
      out.free_bytes = *kb * 1024;
    }
  }
  if (!have_total) return Error::invalid("no MemTotal line", "");
  return out;
}

Result<std::vector<unsigned>> parse_node_distance(std::string_view text) {
  std::vector<unsigned> out;
  for (std::string_view w : split_ws(text)) {
    std::optional<uint64_t> v = parse_u64(w);
    if (!v || *v > 255)  // ACPI SLIT entries are one byte
      return Error::invalid("bad distance \"" + std::string(w) + "\"", "");
    out.push_back(static_cast<unsigned>(*v));
  }
  if (out.empty()) return Error::invalid("no distances", "");
  return out;
}

namespace {

// Some captured trees (hwloc-gather-topology) end files with a NUL byte.
std::string_view without_nul(const std::string& text) {
  std::string_view v(text);
  while (!v.empty() && v.back() == '\0') v.remove_suffix(1);
  return v;
}

std::string node_dir(unsigned os_index) {
  return "sys/devices/system/node/node" + std::to_string(os_index);
}

// Prefixes a parser error with the file it came from: "PATH:line 3: what".
std::string in_file(const std::string& path, const Error& e) {
  return path + (e.where.empty() ? "" : ":" + e.where) + ": " + e.what;
}

void sysfs_memory(const Root& root, NumaNode& node, std::vector<ProbeError>& errors) {
  std::string path = node_dir(node.os_index) + "/meminfo";
  auto text = root.read(path);
  if (!text.ok()) return errors.push_back({"numa", text.error().message()});
  auto info = parse_node_meminfo(without_nul(*text));
  if (!info.ok()) return errors.push_back({"numa", in_file(path, info.error())});
  node.memory_bytes = info->total_bytes;
  node.free_bytes = info->free_bytes;
}

// Each nodeN/distance row has one column per online node, in node order.
void sysfs_distances(const Root& root, Topology& topo, std::vector<ProbeError>& errors) {
  const std::string online_path = "sys/devices/system/node/online";
  auto online_text = root.read(online_path);
  if (!online_text.ok()) return errors.push_back({"numa", online_text.error().message()});
  auto online = CpuSet::parse(without_nul(*online_text));
  if (!online.ok()) return errors.push_back({"numa", in_file(online_path, online.error())});
  const std::vector<unsigned>& columns = online->cpus();

  std::vector<std::vector<unsigned>> matrix;
  for (const NumaNode& from : topo.numa_nodes) {
    std::string path = node_dir(from.os_index) + "/distance";
    auto text = root.read(path);
    if (!text.ok()) return errors.push_back({"numa", text.error().message()});
    auto row = parse_node_distance(without_nul(*text));
    if (!row.ok()) return errors.push_back({"numa", in_file(path, row.error())});
    if (row->size() != columns.size())
      return errors.push_back({"numa", path + ": " + std::to_string(row->size()) +
                                           " distances for " + std::to_string(columns.size()) +
                                           " online nodes (" + online->to_string() + ")"});
    std::vector<unsigned> out;
    for (const NumaNode& to : topo.numa_nodes) {
      auto it = std::find(columns.begin(), columns.end(), to.os_index);
      if (it == columns.end())
        return errors.push_back(
            {"numa", online_path + ": node " + std::to_string(to.os_index) + " is not online"});
      out.push_back((*row)[static_cast<size_t>(it - columns.begin())]);
    }
    matrix.push_back(std::move(out));
  }
  topo.distances = std::move(matrix);
}

void libnuma_probe(Topology& topo, std::vector<ProbeError>& errors) {
  for (NumaNode& node : topo.numa_nodes) {
    long long free = 0;
    long long total = numa_node_size64(static_cast<int>(node.os_index), &free);
    if (total < 0) {
      errors.push_back(
          {"numa", "libnuma: numa_node_size64(" + std::to_string(node.os_index) + ") failed"});
      continue;
    }
    node.memory_bytes = static_cast<uint64_t>(total);
    node.free_bytes = static_cast<uint64_t>(free);
  }
  std::vector<std::vector<unsigned>> matrix;
  for (const NumaNode& from : topo.numa_nodes) {
    std::vector<unsigned> row;
    for (const NumaNode& to : topo.numa_nodes) {
      int d = numa_distance(static_cast<int>(from.os_index), static_cast<int>(to.os_index));
      if (d <= 0)  // 0: libnuma could not read the distance table
        return errors.push_back({"numa", "libnuma: no distance from node " +
                                             std::to_string(from.os_index) + " to node " +
                                             std::to_string(to.os_index)});
      row.push_back(static_cast<unsigned>(d));
    }
    matrix.push_back(std::move(row));
  }
  topo.distances = std::move(matrix);
}

}  // namespace

void probe_numa(const Root& root, Topology& topo, std::vector<ProbeError>& errors) {
  if (topo.numa_nodes.empty()) return;
  // numa_available() fails where the kernel has no NUMA syscalls (or a seccomp
  // filter denies them); sysfs may still describe the nodes then.
  if (root.is_live() && numa_available() >= 0) return libnuma_probe(topo, errors);
  for (NumaNode& node : topo.numa_nodes) sysfs_memory(root, node, errors);
  sysfs_distances(root, topo, errors);
}

}  // namespace tuner
