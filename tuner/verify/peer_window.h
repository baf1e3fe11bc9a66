// Whether a peer benchmark can load what a group changes (profiles/REVIEW.md W-2). With
// direction "in" the peer sends, and a sender's bytes in flight are bounded by its own
// send buffer, autotuned only up to the peer's net.ipv4.tcp_wmem maximum. A group that
// raises this node's tcp_rmem maximum past that is not measured by the benchmark: the
// window is the peer's. Such a group is decided by the guard soak instead, as a peer
// group without `apply --peer` is (with_peer), and the run says why.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "probes/bench/tcp.h"
#include "tuner/plan/plan.h"
#include "tuner/profile/profile.h"

namespace tuner::verify {

/// A group whose changes raise this node's net.ipv4.tcp_rmem maximum and whose deciding
/// benchmark is a tcp one with direction "in" against a peer (`peer = true`, or a
/// [bench.NAME] with placement peer).
struct PeerWindowNeed {
  std::string group;
  std::string bench;      ///< the deciding benchmark's name in `profile` ("wan" or "wan@peer")
  uint64_t rmem_max = 0;  ///< the candidate's tcp_rmem maximum (a search's largest)
};

/// The need of `group`, or nullopt when it has none (it does not raise tcp_rmem's
/// maximum, or nothing loads it from a peer that sends). `profile` as written or as
/// with_peer() made it.
std::optional<PeerWindowNeed> peer_window_need(const Profile& profile, const Plan& plan,
                                               const std::string& group);

enum class PeerWindowFit {
  fits,       ///< the peer's tcp_wmem maximum is at least the need: measured as planned
  too_small,  ///< below it: the group is soaked instead
  unknown,    ///< the peer did not say (an older tuner): measured as planned, with a warning
};
PeerWindowFit peer_window_fit(const PeerWindowNeed& need, std::optional<uint64_t> peer_wmem_max);

/// The line the run shows and reports for a too_small or unknown fit; "" for fits.
std::string peer_window_note(const PeerWindowNeed& need, std::optional<uint64_t> peer_wmem_max,
                             PeerWindowFit fit);

/// Asks the server of a tcp benchmark for its facts (bench::TcpBenchmark::server_facts).
using ServerFactsFn = std::function<Result<bench::tcp::ServerFacts>(const bench::TcpConfig&)>;
ServerFactsFn live_server_facts();

/// One group's verdict.
struct PeerWindowCheck {
  PeerWindowNeed need;
  std::optional<uint64_t> peer_wmem_max;
  PeerWindowFit fit = PeerWindowFit::fits;
  std::string note;  ///< peer_window_note
};

/// For each of `groups` with a need: asks its benchmark's server (once per benchmark)
/// and, where the peer's tcp_wmem maximum is too small, makes `profile` decide the
/// group by the guard soak (soak_instead). An Error when a server cannot be asked (not
/// reached, or it does not prove the key): nothing has changed yet.
Result<std::vector<PeerWindowCheck>> check_peer_windows(Profile& profile, const Plan& plan,
                                                        const std::vector<std::string>& groups,
                                                        const ServerFactsFn& facts);

/// Makes `group` of `profile` a bench = [] group kept unless harmed: the guard soak
/// decides it, as any such group (tuner/verify/soak.h).
void soak_instead(Profile& profile, const std::string& group);

}  // namespace tuner::verify
