// tuner bench: runs benchmarks alone, changing nothing: how an operator records a
// baseline before a change, and how a profile's [bench.NAME] tables are tried out.
// `tuner bench --serve` is the peer end of a `tcp` benchmark with `peer = ADDR`.
// Exit: 0 every benchmark ran; 1 a benchmark failed; 2 bad input (an unknown name, a
// benchmark that cannot run here); --serve: 4 its address and port are taken.
#include <cerrno>
#include <csignal>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "base/interrupt.h"
#include "probes/bench/tcp.h"
#include "probes/bench/tcp_server.h"
#include "tuner/cli/cli.h"
#include "tuner/cli/plan_for.h"
#include "tuner/cli/report/bench_report.h"
#include "tuner/plan/target.h"
#include "tuner/profile/profile.h"
#include "tuner/verify/benches.h"

namespace po = boost::program_options;

namespace tuner {

namespace {

/// --serve's exit status when its address and port are taken (another server, or another
/// user's program on the port): the playbook that started it reads it.
constexpr auto kAddressInUse = static_cast<ExitCode>(4);

/// The longest --serve --lifetime, as tcp::serve() bounds it (tcp_server.h).
constexpr long long kMaxLifetime = 24LL * 3600;

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int /*signal*/) { g_stop = 1; }

/// --peer-key FILE, else $TUNER_PEER_KEY; exit 2 on a key that cannot be trusted.
bench::tcp::PeerKey peer_key(const po::variables_map& vm) {
  auto key = bench::tcp::peer_key_from(vm.count("peer-key") ? vm["peer-key"].as<std::string>()
                                                            : std::string());
  if (!key.ok()) fail_input("bench: --peer-key: " + key.error().message());
  return *key;
}

int serve(const po::variables_map& vm) {
  bench::tcp::ServeOptions o;
  // Read as signed 64-bit: an unsigned option takes "-1" as its largest value.
  long long port = vm.count("port") ? vm["port"].as<long long>() : bench::kServePort;
  if (port < 1 || port > 65535)
    fail_input(fmt::format("bench: --port must be 1 to 65535, not {}", port));
  long long lifetime = vm["lifetime"].as<long long>();
  if (lifetime < 1 || lifetime > kMaxLifetime)
    fail_input(fmt::format("bench: --lifetime must be 1 to {} seconds (24 h), not {}", kMaxLifetime,
                           lifetime));
  // Numbers first, then what is missing. No default address: a wildcard would serve every
  // interface, the management network too. The operator names the one the canaries share.
  if (!vm.count("address"))
    fail_input("bench --serve: --address ADDR is required: the address of this node that the "
               "applying node reaches (a wildcard would serve every interface)");
  std::string host = vm["address"].as<std::string>();
  auto at = bench::tcp::parse_endpoint(host, static_cast<uint16_t>(port));
  if (!at.ok()) fail_input(at.error().message());
  if (bench::tcp::is_wildcard(*at))
    fail_input(fmt::format("bench --serve: --address {} is a wildcard, which would serve every "
                           "interface: name this node's address on the canaries' network",
                           host));
  o.server.at = *at;
  o.server.key = peer_key(vm);
  if (o.server.key.empty())
    fail_input(fmt::format("bench --serve needs the rollout's key, which every client must prove: "
                           "--peer-key FILE or {} (the same on both nodes)",
                           bench::tcp::kPeerKeyEnv));
  o.lifetime = std::chrono::seconds(lifetime);
  std::string where = at->text();
  o.on_listening = [&](uint16_t) {
    fmt::print(stderr,
               "tuner bench --serve: listening on {} for {} s; clients must prove the peer key\n",
               where, lifetime);
  };
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  o.should_stop = [] { return g_stop != 0; };
  Status s = bench::tcp::serve(o);
  if (!s.ok() && s.error().err == EADDRINUSE)
    throw FatalError(kAddressInUse,
                     fmt::format("bench --serve: {} is already in use (another server, or another "
                                 "user's program on the port): nothing served",
                                 where));
  if (!s.ok()) fail_runtime(s.error().message());
  return 0;
}

}  // namespace

int bench_command(GlobalOptions& g, const std::vector<std::string>& args) {
  po::options_description desc(
      fmt::format("tuner bench [NAME]...: run benchmarks ({}, or a profile's\n"
                  "[bench.NAME]) and print their metrics; changes nothing. Without NAME: the\n"
                  "profile's [verify] bench. Exit: 0 ran, 1 a benchmark failed, 2 bad input",
                  builtin_bench_list()));
  std::vector<std::string> names, profiles;
  desc.add_options()("name", po::value(&names)->value_name("NAME"),
                     "benchmark to run (repeatable)")(
      "profile", po::value(&profiles)->value_name("P"), "profile whose [bench.*] tables to use")(
      "trials", po::value<long long>()->default_value(1)->value_name("N"),
      "runs of each benchmark (1-1000)")("json", "print the tuner.bench/1 JSON document")(
      "serve", "serve tcp benchmark clients of another node (peer = ADDR)")(
      "address", po::value<std::string>()->value_name("ADDR"),
      "with --serve: this node's address to listen on (required; no wildcard)")(
      "port", po::value<long long>()->value_name("PORT"),
      "with --serve: port 1-65535 (default 5301)")(
      "lifetime", po::value<long long>()->default_value(600)->value_name("SECONDS"),
      "with --serve: stop after this long (1 s to 24 h)")(
      "peer-key", po::value<std::string>()->value_name("FILE"),
      "the rollout's key (a file only root can read; default: $TUNER_PEER_KEY): --serve "
      "requires it of every client, and peer benchmarks require it of the server");
  po::positional_options_description pos;
  pos.add("name", -1);
  po::variables_map vm;
  if (!parse_options("bench", args, desc, pos, vm, g)) return 0;
  if (vm.count("serve")) return serve(vm);
  long long trials = vm["trials"].as<long long>();
  if (trials < 1 || trials > 1000)
    fail_input(fmt::format("bench: --trials must be 1 to 1000, not {}", trials));

  // The profile gives [bench.*] tables and the default names; the probe the topology.
  Target target{Root::live(), std::nullopt};
  Planned planned = plan_with_context(g, profiles, target, false);
  bench::tcp::PeerKey key = peer_key(vm);
  for (auto& [bench_name, spec] : planned.profile.benches)
    if (spec.kind == BenchSpec::Kind::tcp &&
        spec.tcp.placement == bench::TcpConfig::Placement::peer)
      spec.tcp.key = key;
  if (names.empty()) names = planned.profile.verify.bench;
  if (names.empty())
    fail_input("no benchmark named, and profile " + planned.profile.name +
               " has no [verify] bench; name one: " + builtin_bench_list());

  // Ctrl-C, SIGTERM or SIGHUP: an exec benchmark's process group is stopped (the
  // runner's stop_on_interrupt), no further trial starts, and tuner exits 128 + signal.
  catch_interrupts("stopping the benchmark");
  auto stop_if_interrupted = [] {
    if (int sig = interrupt_signal())
      throw FatalError(static_cast<ExitCode>(128 + sig),
                       "bench: interrupted by " + signal_name(sig) + "; the benchmark was stopped");
  };
  std::vector<BenchRun> runs;
  for (const std::string& name : names) {
    auto b = verify::make_benchmark(name, planned.profile, planned.inventory.topology);
    if (!b.ok()) fail_input(b.error().message());
    if (Status s = (*b)->check(); !s.ok())
      fail_input(fmt::format("benchmark '{}' cannot run here: {}", name, s.error().message()));
    BenchRun run{name, {}, {}};
    for (long long i = 0; i < trials; ++i) {
      stop_if_interrupted();
      auto m = (*b)->run();
      stop_if_interrupted();
      if (!m.ok()) {
        run.error = m.error().message();
        break;
      }
      run.runs.push_back(std::move(m).value());
    }
    runs.push_back(std::move(run));
  }
  if (vm.count("json")) {
    print_document(bench_report_json(runs));
  } else {
    Term term(g.color, 1);
    fmt::print("{}", term.printable(format_bench_report(runs, term)));
  }
  for (const BenchRun& r : runs)
    if (!r.error.empty()) return 1;
  return 0;
}

}  // namespace tuner
