// linux/tcp.h, not netinet/tcp.h: glibc's struct tcp_info stops before tcpi_segs_out.
// The two headers cannot meet in one file, hence this one.
#include "probes/bench/tcp_info.h"

#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>

namespace tuner::bench::tcp {

Result<ConnectionCounters> connection_counters(int fd) {
  struct tcp_info info {};
  socklen_t len = sizeof info;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0)
    return errno_error("getsockopt(TCP_INFO)", "tcp");
  if (len < offsetof(struct tcp_info, tcpi_segs_out) + sizeof info.tcpi_segs_out)
    return Error::unsupported("this kernel's TCP_INFO has no tcpi_segs_out (needs Linux 4.2)",
                              "tcp");
  return ConnectionCounters{info.tcpi_segs_out, info.tcpi_total_retrans};
}

}  // namespace tuner::bench::tcp
