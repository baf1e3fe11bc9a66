// The numa knobs: where a systemd unit, a cgroup or a running process may run and take
// memory from. make_numa_knob (numa_binding.cc) dispatches on the second id part.
#pragma once

#include <memory>
#include <string>

#include "tuner/knobs/knob.h"

namespace tuner {

/// numa:unit:NAME (numa_unit.cc): a drop-in NAME.d/tuner-numa.conf under ctx.systemd_dir.
Result<std::unique_ptr<Knob>> make_numa_unit_knob(const std::string& id, const std::string& unit,
                                                  KnobContext& ctx);
/// numa:cgroup:PATH (numa_cgroup.cc): cpuset.cpus / cpuset.mems of ctx.cgroup_root/PATH.
Result<std::unique_ptr<Knob>> make_numa_cgroup_knob(const std::string& id,
                                                    const std::string& path, KnobContext& ctx);
/// numa:pid:PID@STARTTIME (numa_process.cc): a running process's CPU affinity and pages.
Result<std::unique_ptr<Knob>> make_numa_process_knob(const std::string& id,
                                                     const std::string& spec, KnobContext& ctx);

/// The drop-in's text for a binding; empty binding parts are left out.
/// .service units get CPUAffinity=/NUMAPolicy=bind/NUMAMask=; .slice and .scope units
/// (which run no process of their own) get the cgroup's AllowedCPUs=/AllowedMemoryNodes=.
std::string numa_dropin_text(const std::string& id, const std::string& unit,
                             const std::string& cpus, const std::string& mems);
/// Parses a drop-in written by numa_dropin_text back into "cpus=..,mems=..".
Result<std::string> parse_numa_dropin(const std::string& text, const std::string& path,
                                      const std::string& id);

/// Field 22 of /proc/PID/stat (start time in clock ticks after boot), parsed after the
/// last ')' so a command name with spaces or parentheses cannot shift the fields.
Result<unsigned long long> parse_stat_starttime(const std::string& stat, const std::string& where);
/// The nodes named in /proc/PID/numa_maps ("N0=12 N1=3"): where the process's pages are.
std::string numa_maps_nodes(const std::string& numa_maps);

}  // namespace tuner
