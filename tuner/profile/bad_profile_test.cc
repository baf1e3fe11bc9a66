// Bad profiles: each fixture in tests/fixtures/profiles/bad must fail with an error at
// the right file:line:col whose message names the problem. Nothing is half-loaded.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "probes/sysctl.h"
#include "tests/support/temp_dir.h"
#include "tuner/profile/profile.h"

using namespace tuner;

namespace {

const std::string kBad = TUNER_TEST_DATA "/profiles/bad";

struct BadCase {
  const char* file;       // under bad/
  const char* where;      // "FILE:line:col" relative to bad/
  const char* substring;  // in what
};

// clang-format off
const BadCase kCases[] = {
  {"syntax_unterminated_string.toml", "syntax_unterminated_string.toml:2:28", "TOML syntax error"},
  {"syntax_duplicate_key.toml", "syntax_duplicate_key.toml:3:24", "cannot redefine existing"},
  {"syntax_bad_header.toml", "syntax_bad_header.toml:1:9", "expected ']'"},
  {"unknown_top_key.toml", "unknown_top_key.toml:4:2", "unknown key 'sysctls' in the top level; did you mean 'sysctl'?"},
  {"unknown_top_name.toml", "unknown_top_name.toml:1:1", "unknown key 'name' in the top level; it belongs in [profile]"},
  {"unknown_profile_key.toml", "unknown_profile_key.toml:2:1", "unknown key 'descripton' in [profile]; did you mean 'description'?"},
  {"unknown_match_key.toml", "unknown_match_key.toml:2:1", "unknown key 'gpus' in [match]; did you mean 'gpu'?"},
  {"unknown_irq_key.toml", "unknown_irq_key.toml:2:1", "unknown key 'polcy' in [irq.\"mlx5*\"]; did you mean 'policy'?"},
  {"unknown_nic_key.toml", "unknown_nic_key.toml:3:1", "unknown key 'sped' in [nic.\"eth*\"]; did you mean 'speed'?"},
  {"unknown_channels_key.toml", "unknown_channels_key.toml:2:14", "unknown key 'combind' in 'channels' in [nic.\"eth*\"]; did you mean 'combined'?"},
  {"unknown_bind_key.toml", "unknown_bind_key.toml:3:1", "unknown key 'nodes' in [[numa.bind]] #1; did you mean 'node'?"},
  {"unknown_numa_key.toml", "unknown_numa_key.toml:2:1", "unknown key 'balance' in [numa] (allowed: bind, balancing, zone_reclaim)"},
  {"unknown_verify_key.toml", "unknown_verify_key.toml:3:1", "unknown key 'min_efect' in [verify]; did you mean 'min_effect'?"},
  {"unknown_guard_key.toml", "unknown_guard_key.toml:2:41", "unknown key 'max_increse' in a guard in [verify]"},
  {"unknown_group_key.toml", "unknown_group_key.toml:2:1", "unknown key 'keep_if_netural' in [group.rings]; did you mean 'keep_if_neutral'?"},
  {"sysctl_bool.toml", "sysctl_bool.toml:2:27", "sysctl 'kernel.numa_balancing' must be an integer or a string, not a boolean"},
  {"sysctl_float.toml", "sysctl_float.toml:2:19", "sysctl 'vm.swappiness' must be an integer or a string, not a float"},
  {"sysctl_array.toml", "sysctl_array.toml:2:23", "write several values as one string"},
  {"sysctl_bad_bound.toml", "sysctl_bad_bound.toml:2:24", "'>=lots' is not a bound"},
  {"sysctl_empty_value.toml", "sysctl_empty_value.toml:2:24", "empty sysctl value"},
  {"sysctl_twice.toml", "sysctl_twice.toml:2:27", "sysctl 'kernel.numa_balancing' is set twice (also at "},
  {"irq_bad_policy.toml", "irq_bad_policy.toml:2:10", "'policy' in [irq.\"eth*\"] is 'round-robin'"},
  {"irq_no_policy.toml", "irq_no_policy.toml:1:1", "[irq.\"eth*\"] has no 'policy'"},
  {"irq_pin_without_cpus.toml", "irq_pin_without_cpus.toml:1:1", "policy \"pin\" but no 'cpus'"},
  {"irq_cpus_reversed.toml", "irq_cpus_reversed.toml:3:8", "invalid cpulist item '9-3'"},
  {"irq_cpus_without_pin.toml", "irq_cpus_without_pin.toml:3:8", "'cpus' in [irq.\"eth*\"] is only for policy \"pin\""},
  {"irq_bad_irqbalance.toml", "irq_bad_irqbalance.toml:3:14", "'irqbalance' in [irq.\"eth*\"] is 'kill'"},
  {"irq_glob_slash.toml", "irq_glob_slash.toml:1:6", "interface name glob '../eth*' may not contain '/'"},
  {"irq_glob_unterminated.toml", "irq_glob_unterminated.toml:1:6", "interface name glob 'eth[0-3' has a '[' without its ']'"},
  {"nic_glob_empty_range.toml", "nic_glob_empty_range.toml:1:6", "interface name glob 'eth[3-0]' has the range '3-0', which matches nothing"},
  {"nic_negative_speed.toml", "nic_negative_speed.toml:2:9", "= -1000: a link speed is a positive number of Mb/s"},
  {"nic_speed_word.toml", "nic_speed_word.toml:2:9", "'speed' in [nic.\"eth*\"] is 'fast'"},
  {"nic_duplex_sideways.toml", "nic_duplex_sideways.toml:2:10", "'duplex' in [nic.\"eth*\"] is 'sideways': expected \"full\" or \"half\""},
  {"nic_autoneg_string.toml", "nic_autoneg_string.toml:2:11", "'autoneg' in [nic.\"eth*\"] must be true or false, not a string"},
  {"nic_half_duplex_25g.toml", "nic_half_duplex_25g.toml:3:10", "half duplex is only defined up to 1000 Mb/s"},
  {"search_coalesce_two.toml", "search_coalesce_two.toml:2:58", "'coalesce' in [nic.\"eth*\"] searches two fields"},
  {"search_coalesce_word.toml", "search_coalesce_word.toml:2:46", "candidate 2 of the search of 'adaptive_rx' in 'coalesce' in [nic.\"eth*\"]: 'adaptive_rx' in 'coalesce' in [nic.\"eth*\"] must be true or false"},
  {"search_bad_scale.toml", "search_bad_scale.toml:2:71", "'scale' in the search of sysctl 'net.core.netdev_budget' is 'cubic'"},
  {"search_bound.toml", "search_bound.toml:2:45", "candidate 2 of the search of sysctl 'net.core.netdev_budget': a search tries exact values"},
  {"search_extra_key.toml", "search_extra_key.toml:2:51", "unknown key 'pick' in the search of sysctl"},
  {"search_log_zero.toml", "search_log_zero.toml:2:48", "a log2 range cannot start at 0"},
  {"search_one_candidate.toml", "search_one_candidate.toml:2:39", "has 1 candidates: a search needs 2 to 16"},
  {"search_ring_max.toml", "search_ring_max.toml:2:33", "candidate 2 of the search of 'rx' in 'rings' in [nic.\"eth*\"]: 'rx' in 'rings' in [nic.\"eth*\"] must be an integer"},
  {"search_thp_bool.toml", "search_thp_bool.toml:2:30", "candidate 2 of the search of 'thp' in [mm]: 'thp' in [mm] must be a string, not a boolean"},
  {"search_too_many.toml", "search_too_many.toml:2:39", "the range gives more than 16 candidates"},
  {"search_twice.toml", "search_twice.toml:2:39", "lists '300' twice"},
  {"search_two_in_group.toml", "search_two_in_group.toml:3:1", "group 'sysctl' searches two settings"},
  {"nic_ring_word.toml", "nic_ring_word.toml:2:16", "'rx' in 'rings' in [nic.\"eth*\"] must be a number or \"max\""},
  {"nic_coalesce_unknown_key.toml", "nic_coalesce_unknown_key.toml:2:14", "unknown key 'rx_usec' in 'coalesce' in [nic.\"eth*\"]; did you mean 'rx_usecs'?"},
  {"nic_coalesce_negative.toml", "nic_coalesce_negative.toml:2:25", "'rx_usecs' in 'coalesce' in [nic.\"eth*\"] (microseconds) = -8 is out of range: it must be 0 to 4294967295"},
  {"nic_coalesce_float.toml", "nic_coalesce_float.toml:2:26", "'tx_frames' in 'coalesce' in [nic.\"eth*\"] (frames) must be an integer, not a float"},
  {"nic_coalesce_adaptive_word.toml", "nic_coalesce_adaptive_word.toml:2:28", "'adaptive_rx' in 'coalesce' in [nic.\"eth*\"] must be true or false, not a string"},
  {"nic_coalesce_not_table.toml", "nic_coalesce_not_table.toml:2:12", "'coalesce' in [nic.\"eth*\"] must be a table, not an integer"},
  {"nic_coalesce_empty.toml", "nic_coalesce_empty.toml:2:12", "'coalesce' in [nic.\"eth*\"] is empty"},
  {"nic_empty_rule.toml", "nic_empty_rule.toml:1:1", "[nic.\"eth*\"] sets nothing"},
  {"nic_mtu_small.toml", "nic_mtu_small.toml:2:7", "'mtu' in [nic.\"eth*\"] (bytes; IPv6 needs 1280 at least) = 576 is out of range: it must be 1280 to 65536"},
  {"nic_mtu_word.toml", "nic_mtu_word.toml:2:7", "'mtu' in [nic.\"eth*\"] (bytes; IPv6 needs 1280 at least) must be an integer, not a string"},
  {"nic_rps_word.toml", "nic_rps_word.toml:2:7", "'rps' in [nic.\"eth*\"] is 'all-cpus': expected \"numa-local\" or \"off\""},
  {"nic_xps_cpulist.toml", "nic_xps_cpulist.toml:2:7", "'xps' in [nic.\"eth*\"] is '0-3': expected \"follow-irq\" or \"off\""},
  {"nic_xps_bool.toml", "nic_xps_bool.toml:2:7", "'xps' in [nic.\"eth*\"] must be a string, not a boolean"},
  {"nic_rfs_negative.toml", "nic_rfs_negative.toml:2:7", "'rfs' in [nic.\"eth*\"] (the socket flow table's entries, or \"off\") = -32768 is out of range: it must be 1 to 536870912"},
  {"nic_rfs_too_large.toml", "nic_rfs_too_large.toml:2:7", "'rfs' in [nic.\"eth*\"] (the socket flow table's entries, or \"off\") = 1073741824 is out of range: it must be 1 to 536870912"},
  {"nic_rfs_word.toml", "nic_rfs_word.toml:2:7", "'rfs' in [nic.\"eth*\"] is 'on': give the flow table's entries (32768) or \"off\""},
  {"nic_rfs_zero.toml", "nic_rfs_zero.toml:2:7", "'rfs' in [nic.\"eth*\"] = 0: write \"off\" to turn RFS off"},
  {"nic_combined_twice.toml", "nic_combined_twice.toml:3:12", "'combined' is given twice"},
  {"nic_combined_zero.toml", "nic_combined_zero.toml:2:25", "'combined' in 'channels' in [nic.\"eth*\"] (a count or \"local-cores\") = 0 is out of range: it must be 1 to 65535"},
  {"nic_combined_word.toml", "nic_combined_word.toml:2:12", "'combined' in [nic.\"eth*\"] is 'all': give a count or \"local-cores\""},
  {"bind_node_negative.toml", "bind_node_negative.toml:3:8", "'node' in [[numa.bind]] #1 = -1 is out of range"},
  {"bind_unit_slash.toml", "bind_unit_slash.toml:2:8", "unit name '../../etc/evil.service' has '/'"},
  {"bind_unit_suffix.toml", "bind_unit_suffix.toml:2:8", "must end in .service, .scope or .slice"},
  {"bind_cgroup_dotdot.toml", "bind_cgroup_dotdot.toml:2:10", "may not contain '..'"},
  {"bind_cgroup_absolute.toml", "bind_cgroup_absolute.toml:2:10", "must be relative to /sys/fs/cgroup"},
  {"bind_two_targets.toml", "bind_two_targets.toml:1:1", "needs exactly one of 'unit'"},
  {"bind_no_placement.toml", "bind_no_placement.toml:1:1", "needs exactly one of 'near'"},
  {"bind_near_and_node.toml", "bind_near_and_node.toml:1:1", "needs exactly one of 'near'"},
  {"bind_duplicate.toml", "bind_duplicate.toml:5:1", "binds unit trainer.service again (first bound at "},
  {"bind_not_array.toml", "bind_not_array.toml:1:1", "must be written [[numa.bind]]"},
  {"sysctl_leave_false.toml", "sysctl_leave_false.toml:2:30", "sysctl 'vm.dirty_ratio': leave = true is the only form"},
  {"sysctl_leave_extra.toml", "sysctl_leave_extra.toml:2:36", "unknown key 'value' in sysctl 'vm.dirty_ratio'"},
  {"verify_min_effect_5.toml", "verify_min_effect_5.toml:2:14", "'min_effect' in [verify] = 5 is a fraction"},
  {"verify_watch_margin.toml", "verify_watch_margin.toml:2:16", "'watch_margin' in [verify] = 1.5 is a fraction"},
  {"verify_false_keep_rate.toml", "verify_false_keep_rate.toml:2:19", "must be above 0 and below 0.5"},
  {"verify_bisect_string.toml", "verify_bisect_string.toml:2:10", "'bisect' in [verify] must be true or false, not a string"},
  {"verify_max_trials.toml", "verify_max_trials.toml:2:14", "'max_trials' in [verify] = 2 is out of range: it must be 5 to 1000"},
  {"bench_kind.toml", "bench_kind.toml:2:8", "'kind' in [bench.x] = \"fio\": expected \"exec\", \"tcp\""},
  {"bench_exec_no_command.toml", "bench_exec_no_command.toml:1:1", "'command' must name a program"},
  {"bench_regex_no_group.toml", "bench_regex_no_group.toml:5:20", "has no capture group"},
  {"bench_regex_not_re2.toml", "bench_regex_not_re2.toml:5:20", "regex '([0-9.]+)(?= ops/s)' is not valid RE2 syntax: invalid perl operator: (?="},
  {"bench_duration.toml", "bench_duration.toml:3:12", "expected a duration such as"},
  {"bench_streams.toml", "bench_streams.toml:3:11", "'streams' in [bench.x] = 0 is out of range"},
  {"bench_direction.toml", "bench_direction.toml:6:13", "must be \"higher\" or \"lower\""},
  {"bench_tcp_direction.toml", "bench_tcp_direction.toml:3:13", "'direction' in [bench.x] = \"sideways\": expected \"out\" (this node sends) or \"in\" (this node receives)"},
  {"bench_unknown_key.toml", "bench_unknown_key.toml:3:1", "unknown key 'threads' in [bench.x]"},
  {"verify_guard_unknown_metric.toml", "verify_guard_unknown_metric.toml:2:22", "expected one of tcp_retrans_pct"},
  {"verify_bench_unknown.toml", "verify_bench_unknown.toml:2:9", "benchmark 'nope' is neither built in (tcp, membw, latency) nor defined by a [bench.nope] table"},
  {"verify_bench_not_array.toml", "verify_bench_not_array.toml:2:9", "must be an array of strings, not a string"},
  {"verify_guard_incomplete.toml", "verify_guard_incomplete.toml:2:11", "needs both 'metric' and 'max_increase'"},
  {"match_numa_nodes_bad.toml", "match_numa_nodes_bad.toml:2:14", "'>>2' is not a condition"},
  {"match_gpu_string.toml", "match_gpu_string.toml:2:7", "'gpu' in [match] must be true or false"},
  {"include_not_array.toml", "include_not_array.toml:2:11", "must be an array of profile names or paths, not a string"},
  {"include_missing.toml", "include_missing.toml:3:12", "include 'no-such-profile': no profile named 'no-such-profile' (searched: "},
  {"include_missing_path.toml", "include_missing_path.toml:2:12", "No such file or directory"},
  {"include_cycle_a.toml", "include_cycle_b.toml:2:12", "include cycle: include_cycle_a.toml -> include_cycle_b.toml -> include_cycle_a.toml (included from "},
  {"include_cycle_b.toml", "include_cycle_a.toml:2:12", "include cycle: include_cycle_b.toml -> include_cycle_a.toml -> include_cycle_b.toml"},
  {"include_self_path.toml", "include_self_path.toml:2:12", "include cycle: include_self_path.toml -> include_self_path.toml"},
  {"include_broken_parent.toml", "parents/broken.toml:2:23", "not a boolean (the kernel wants 0 or 1) (included from "},
  {"include_bad_word.toml", "include_bad_word.toml:2:12", "neither a profile name"},
  {"name_mismatch.toml", "name_mismatch.toml:2:8", "profile name 'something-else' differs from its file name 'name_mismatch.toml'"},
  {"group_member_unknown.toml", "group_member_unknown.toml:5:41", "lists 'sysctl:net.core.netdev_max_backlog', but the profile has no such setting"},
  {"group_member_bad_prefix.toml", "group_member_bad_prefix.toml:2:12", "member 'eth0' of 'members' in [group.queues]"},
  {"group_chosen_bench.toml", "group_chosen_bench.toml:3:9", "'bench' in [group.busypoll] contradicts chosen = true"},
  {"group_chosen_neutral.toml", "group_chosen_neutral.toml:2:19", "'keep_if_neutral' in [group.busypoll] contradicts chosen = true"},
  {"group_chosen_string.toml", "group_chosen_string.toml:2:10", "'chosen' in [group.x] must be true or false"},
  {"group_two_groups.toml", "group_two_groups.toml:8:12", "is put in group 'b' and also in group 'a'"},
  {"group_bad_name.toml", "group_bad_name.toml:3:9", "group name 'my group' has ' '"},
  {"cpu_unknown_key.toml", "cpu_unknown_key.toml:2:1", "unknown key 'governr' in [cpu]; did you mean 'governor'?"},
  {"cpu_not_table.toml", "cpu_not_table.toml:1:7", "[cpu] must be a table, not a string"},
  {"cpu_governor_number.toml", "cpu_governor_number.toml:2:12", "'governor' in [cpu] must be a string, not an integer"},
  {"cpu_epp_two_words.toml", "cpu_epp_two_words.toml:2:7", "'epp' in [cpu]: 'balance performance' has ' ': a value is one word"},
  {"cpu_resume_latency_negative.toml", "cpu_resume_latency_negative.toml:2:21", "'resume_latency_us' in [cpu] = -1 is out of range: it must be 0 to 2147483646"},
  {"cpu_resume_latency_word.toml", "cpu_resume_latency_word.toml:2:21", "'none' is not a resume latency: give microseconds"},
  {"cpu_resume_latency_bool.toml", "cpu_resume_latency_bool.toml:2:21", "must be microseconds (an integer, 0 = no constraint) or \"n/a\", not a boolean"},
  {"cpu_cpus_empty.toml", "cpu_cpus_empty.toml:3:8", "'cpus' in [cpu] is an empty cpulist"},
  {"cpu_group_bad_name.toml", "cpu_group_bad_name.toml:3:9", "[cpu]: group name 'my group' has ' '"},
  {"mm_unknown_key.toml", "mm_unknown_key.toml:2:1", "unknown key 'thp_defrg' in [mm]; did you mean 'thp_defrag'?"},
  {"irq_ports_empty.toml", "irq_ports_empty.toml:3:9", "'ports' in [irq.\"*\"] is empty: name at least one interface"},
  {"nic_ports_twice.toml", "nic_ports_twice.toml:3:18", "'ports' in [nic.\"*\"] names 'ens1' twice"},
  {"nic_ports_bad_name.toml", "nic_ports_bad_name.toml:3:10", "'ports' in [nic.\"*\"]: "},
  {"nic_ports_glob.toml", "nic_ports_glob.toml:3:10", "'ports' in [nic.\"*\"] names 'ens*', a glob: ports are exact interface names"},
  {"irq_link_type_word.toml", "irq_link_type_word.toml:3:13", "'link_type' in [irq.\"ib*\"] is 'ib': expected \"ethernet\" or \"infiniband\" (IPoIB)"},
  {"verify_budget_short.toml", "verify_budget_short.toml:2:10", "'budget' in [verify] = \"30s\": expected a duration from \"1m\" to \"24h\", such as \"30m\""},
  {"irq_default_route_word.toml", "irq_default_route_word.toml:3:17", "'default_route' in [irq.\"*\"] must be true or false, not a string"},
  {"nic_accept_filter_loss_number.toml", "nic_accept_filter_loss_number.toml:3:22", "'accept_filter_loss' in [nic.\"*\"] must be true or false, not an integer"},
  {"nic_link_type_number.toml", "nic_link_type_number.toml:2:13", "'link_type' in [nic.\"*\"] must be a string, not an integer"},
  {"mm_thp_bool.toml", "mm_thp_bool.toml:2:7", "'thp' in [mm] must be a string, not a boolean"},
  {"mm_dirty_max_small.toml", "mm_dirty_max_small.toml:2:19", "'dirty_max_bytes' in [mm] (bytes) = 4096 is out of range"},
  {"mm_dirty_max_string.toml", "mm_dirty_max_string.toml:2:19", "'dirty_max_bytes' in [mm] (bytes) must be"},
  {"group_member_cpu_typo.toml", "group_member_cpu_typo.toml:2:12", "member 'cpu:governer' of 'members' in [group.power]: write"},
  {"group_member_cpu_unset.toml", "group_member_cpu_unset.toml:5:28", "group 'power' lists 'cpu:epp', but the profile has no such setting"},
};

// These need the real sysctl key check from probes/sysctl.cc (check_sysctl_key_syntax).
const BadCase kHostileKeys[] = {
  {"sysctl_path_escape.toml", "sysctl_path_escape.toml:2:1", "bad sysctl key '../../etc/passwd'"},
  {"sysctl_slash.toml", "sysctl_slash.toml:2:1", "bad sysctl key 'kernel/../../x'"},
  {"sysctl_double_dot.toml", "sysctl_double_dot.toml:2:1", "bad sysctl key 'a..b'"},
  {"sysctl_empty_key.toml", "sysctl_empty_key.toml:2:1", "bad sysctl key ''"},
  {"sysctl_nested_escape.toml", "sysctl_nested_escape.toml:2:1", "bad sysctl key '../../etc.passwd'"},
  {"member_path_escape.toml", "member_path_escape.toml:5:12", "member 'sysctl:../../etc/passwd'"},
};
// clang-format on

std::vector<std::string> toml_files(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  REQUIRE(d != nullptr);
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n.ends_with(".toml")) out.push_back(n);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

void check_case(const std::string& dir, const BadCase& c) {
  CAPTURE(c.file);
  auto p = load_profile(dir + "/" + c.file, {});
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().where == kBad + "/" + c.where);
  CHECK_MESSAGE(p.error().what.find(c.substring) != std::string::npos, p.error().what);
}

bool sysctl_key_check_is_stub() { return check_sysctl_key_syntax("../../etc/passwd").ok(); }

}  // namespace

TEST_CASE("profile bad: every fixture fails at its file:line:col with a clear message") {
  std::set<std::string> listed;
  for (const BadCase& c : kCases) {
    listed.insert(c.file);
    check_case(kBad, c);
  }
  // No fixture goes untested, and no case names a missing fixture.
  for (const std::string& f : toml_files(kBad))
    CHECK_MESSAGE(listed.count(f), f << " is not in kCases");
  CHECK(listed.size() == toml_files(kBad).size());
  CHECK(listed.size() >= 25);
}

TEST_CASE("profile bad: hostile sysctl keys never reach the file system" *
          doctest::skip(sysctl_key_check_is_stub())) {
  std::set<std::string> listed;
  for (const BadCase& c : kHostileKeys) {
    listed.insert(c.file);
    BadCase rel{c.file, "", c.substring};
    std::string where = std::string("hostile/") + c.where;
    rel.where = where.c_str();
    check_case(kBad + "/hostile", rel);
  }
  for (const std::string& f : toml_files(kBad + "/hostile")) CHECK(listed.count(f));
}

TEST_CASE("profile bad: a file over 1 MiB is refused before parsing") {
  testing::TempDir tmp("tuner-profile-big");
  std::string path = tmp.write(
      "big.toml", "[profile]\ndescription = \"" + std::string((1 << 20) + 10, 'x') + "\"\n");
  auto p = load_profile(path, {});
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().where == path);
  CHECK(p.error().what.find("limit") != std::string::npos);
}

TEST_CASE("profile bad: includes nested deeper than 16 files are refused") {
  testing::TempDir tmp("tuner-profile-deep");
  const std::string& dir = tmp.path;
  const int n = 20;
  for (int i = 0; i < n; ++i) {
    std::string text = "[profile]\n";
    if (i + 1 < n) text += "include = [\"p" + std::to_string(i + 1) + "\"]\n";
    text += "[sysctl]\n\"vm.swappiness\" = " + std::to_string(i) + "\n";
    tmp.write("p" + std::to_string(i) + ".toml", text);
  }
  auto deep = load_profile(dir + "/p0.toml", {});
  REQUIRE_FALSE(deep.ok());
  CHECK(deep.error().what.find("deeper than 16") != std::string::npos);
  CHECK(deep.error().where == dir + "/p15.toml:2:12");  // the 17th file's include
  auto ok = load_profile(dir + "/p4.toml", {});         // 16 files: the limit itself is fine
  REQUIRE_MESSAGE(ok.ok(), ok.error().message());
  CHECK(ok->chain.size() == 16);
  CHECK(ok->sysctls.at(0).value == "4");
}

TEST_CASE("profile bad: a directory or a missing file is an error naming the path") {
  auto dir = load_profile(kBad + "/parents", {});
  REQUIRE_FALSE(dir.ok());
  CHECK(dir.error().message().find("parents") != std::string::npos);
  auto missing = load_profile(kBad + "/nope.toml", {});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message().find("No such file") != std::string::npos);
  auto bad_name = load_profile("no/such", {kBad});
  REQUIRE_FALSE(bad_name.ok());
}
