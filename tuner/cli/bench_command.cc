// tuner bench: runs benchmarks alone, changing nothing: how an operator records a
// baseline before a change, and how a profile's [bench.NAME] tables are tried out.
// `tuner bench --serve` is the peer end of a `tcp` benchmark with `peer = ADDR`.
// Exit: 0 every benchmark ran; 1 a benchmark failed; 2 bad input (an unknown name, a
// benchmark that cannot run here).
#include <csignal>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

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

/// The longest --serve --lifetime, as tcp::serve() bounds it (tcp_server.h).
constexpr long long kMaxLifetime = 24LL * 3600;

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int /*signal*/) { g_stop = 1; }

int serve(const po::variables_map& vm) {
  bench::tcp::ServeOptions o;
  std::string host = vm.count("address") ? vm["address"].as<std::string>() : "0.0.0.0";
  // Read as signed 64-bit: an unsigned option takes "-1" as its largest value.
  long long port = vm.count("port") ? vm["port"].as<long long>() : bench::kServePort;
  if (port < 1 || port > 65535)
    fail_input(fmt::format("bench: --port must be 1 to 65535, not {}", port));
  long long lifetime = vm["lifetime"].as<long long>();
  if (lifetime < 1 || lifetime > kMaxLifetime)
    fail_input(fmt::format("bench: --lifetime must be 1 to {} seconds (24 h), not {}", kMaxLifetime,
                           lifetime));
  auto at = bench::tcp::parse_endpoint(host, static_cast<uint16_t>(port));
  if (!at.ok()) fail_input(at.error().message());
  o.server.at = *at;
  o.lifetime = std::chrono::seconds(lifetime);
  o.on_listening = [](uint16_t port) {
    fmt::print(stderr, "tuner bench --serve: listening on port {}\n", port);
  };
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  o.should_stop = [] { return g_stop != 0; };
  Status s = bench::tcp::serve(o);
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
      "with --serve: address to listen on")("port", po::value<long long>()->value_name("PORT"),
                                            "with --serve: port 1-65535 (default 5301)")(
      "lifetime", po::value<long long>()->default_value(600)->value_name("SECONDS"),
      "with --serve: stop after this long (1 s to 24 h)");
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
  if (names.empty()) names = planned.profile.verify.bench;
  if (names.empty())
    fail_input("no benchmark named, and profile " + planned.profile.name +
               " has no [verify] bench; name one: " + builtin_bench_list());

  std::vector<BenchRun> runs;
  for (const std::string& name : names) {
    auto b = verify::make_benchmark(name, planned.profile, planned.inventory.topology);
    if (!b.ok()) fail_input(b.error().message());
    if (Status s = (*b)->check(); !s.ok())
      fail_input(fmt::format("benchmark '{}' cannot run here: {}", name, s.error().message()));
    BenchRun run{name, {}, {}};
    for (long long i = 0; i < trials; ++i) {
      auto m = (*b)->run();
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
