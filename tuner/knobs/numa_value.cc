#include "tuner/knobs/numa_value.h"

#include <algorithm>

#include "base/strings.h"
#include "tuner/knobs/nic_value.h"

namespace tuner {

Result<NumaBinding> parse_numa_binding(std::string_view text, const std::string& id,
                                       bool allow_empty) {
  // Cpulists have commas of their own: a part without '=' continues the list before it.
  if (text.find(';') != std::string_view::npos)
    return Error::invalid("unexpected ';' in '" + std::string(text) + "'", id);
  std::string joined;
  bool first = true;
  for (std::string_view part : split(trim(text), ',')) {
    part = trim(part);
    if (!first) joined += part.find('=') == std::string_view::npos ? ";" : ",";
    joined += part;
    first = false;
  }
  auto kvs = parse_key_values(joined, {"cpus", "mems"}, id);
  if (!kvs.ok()) return kvs.error();
  NumaBinding b;
  for (KeyValue& kv : *kvs) {
    std::replace(kv.value.begin(), kv.value.end(), ';', ',');
    auto set = CpuSet::parse(kv.value);
    if (!set.ok()) return Error::invalid(kv.key + "=" + kv.value + ": " + set.error().what, id);
    if (set->empty() && !allow_empty)
      return Error::invalid(kv.key + "= needs at least one " + (kv.key == "cpus" ? "CPU" : "node"),
                            id);
    (kv.key == "cpus" ? b.cpus : b.mems) = *set;
  }
  return b;
}

std::string format_numa_binding(const NumaBinding& b) {
  std::string out;
  if (b.cpus) out = "cpus=" + b.cpus->to_string();
  if (b.mems) out += (out.empty() ? "" : ",") + std::string("mems=") + b.mems->to_string();
  return out;
}

namespace {

Status check_subset(const std::optional<CpuSet>& want, const Root& root, const char* file,
                    const char* what, const std::string& id) {
  if (!want) return Ok{};
  auto text = root.read(file);
  if (!text.ok()) return Ok{};
  auto online = CpuSet::parse(*text);
  if (!online.ok()) return Ok{};
  CpuSet missing = want->minus(*online);
  if (!missing.empty())
    return Error::invalid(std::string(what) + " " + missing.to_string() +
                              " not online here (online: " + online->to_string() + ")",
                          id);
  return Ok{};
}

}  // namespace

Status check_numa_binding(const NumaBinding& b, const Root& root, const std::string& id) {
  if (auto st = check_subset(b.cpus, root, "sys/devices/system/cpu/online", "CPUs", id); !st.ok())
    return st;
  return check_subset(b.mems, root, "sys/devices/system/node/online", "NUMA nodes", id);
}

Result<std::string> canonical_numa_binding(const std::string& desired, bool allow_empty,
                                           const Root& root, const std::string& id,
                                           const std::function<Result<std::string>()>& current) {
  auto b = parse_numa_binding(desired, id, allow_empty);
  if (!b.ok()) return b.error();
  if (auto st = check_numa_binding(*b, root, id); !st.ok()) return st.error();
  if (!b->cpus || !b->mems) {
    auto cur = current();
    if (!cur.ok()) return cur.error();
    auto c = parse_numa_binding(*cur, id, true);
    if (!c.ok()) return c.error();
    if (!b->cpus) b->cpus = c->cpus;
    if (!b->mems) b->mems = c->mems;
  }
  return format_numa_binding(*b);
}

}  // namespace tuner
