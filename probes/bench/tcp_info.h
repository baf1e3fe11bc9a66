// TCP_INFO of one of the benchmark's own sockets: what it sent and retransmitted, so
// the retransmit guard judges the connections the benchmark drives rather than the
// whole namespace's /proc/net/snmp counter (probes/bench/README.md "Guards").
#pragma once

#include "base/result.h"
#include "probes/bench/bench.h"

namespace tuner::bench::tcp {

/// tcpi_segs_out and tcpi_total_retrans of a connected TCP socket. A kernel whose
/// tcp_info has no tcpi_segs_out (before 4.2) is an Error.
Result<ConnectionCounters> connection_counters(int fd);

}  // namespace tuner::bench::tcp
