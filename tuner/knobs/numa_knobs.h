// The numa knobs: where a systemd unit (numa_unit.cc), a cgroup (numa_cgroup.cc) or a
// running process (numa_process.cc) may run and take memory from. Their values are
// numa_value.h's "cpus=..,mems=.."; these are the parsers of what they read.
#pragma once

#include <string>

#include "base/result.h"

namespace tuner {

/// The drop-in's text for a binding; empty binding parts are left out.
/// .service units get CPUAffinity=/NUMAPolicy=bind/NUMAMask=; .slice and .scope units
/// (which run no process of their own) get the cgroup's AllowedCPUs=/AllowedMemoryNodes=.
std::string numa_dropin_text(const std::string& id, const std::string& unit,
                             const std::string& cpus, const std::string& mems);
/// Parses a drop-in written by numa_dropin_text back into "cpus=..,mems=..": the one
/// reader of both forms.
Result<std::string> parse_numa_dropin(const std::string& text, const std::string& path,
                                      const std::string& id);

/// Field 22 of /proc/PID/stat (start time in clock ticks after boot), parsed after the
/// last ')' so a command name with spaces or parentheses cannot shift the fields.
Result<unsigned long long> parse_stat_starttime(const std::string& stat, const std::string& where);
/// The nodes named in /proc/PID/numa_maps ("N0=12 N1=3"): where the process's pages are.
std::string numa_maps_nodes(const std::string& numa_maps);

}  // namespace tuner
