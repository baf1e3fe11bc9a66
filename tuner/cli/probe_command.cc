// tuner probe: describe the node. Read-only, works without root.
#include <cstdio>
#include <iostream>

#include <fmt/core.h>

#include "probes/inventory_json.h"
#include "tuner/cli/cli.h"
#include "tuner/cli/report/probe_text.h"
#include "tuner/cli/report/prometheus.h"
#include "tuner/cli/run_glue.h"
#include "tuner/cli/target_options.h"

namespace po = boost::program_options;

namespace tuner {

int probe_command(GlobalOptions& g, const std::vector<std::string>& args) {
  po::options_description desc("tuner probe");
  std::string prometheus_file;
  desc.add_options()("json", "print the tuner.probe/1 JSON document")(
      "prometheus", po::value(&prometheus_file)->value_name("FILE"),
      "also write the node's facts as Prometheus metrics to FILE (node_exporter textfile)");
  add_target_options(desc);
  add_class_label_option(desc);
  po::variables_map vm;
  if (!parse_options("probe", args, desc, {}, vm, g)) return 0;
  check_output_option(vm, "prometheus");
  Target target = open_target(vm);
  Inventory inv = probe_target(target);
  if (vm.count("json")) {
    print_document(to_json(inv));
  } else {
    Term term(g.color, 1);
    std::cout << term.printable(format_probe_report(inv, term));
  }
  // In JSON the warnings are the document's "errors"; on a terminal they go to stderr.
  if (!vm.count("json")) {
    Term err(g.color, 2);
    std::cerr << err.printable(format_probe_warnings(inv, err));
  }
  if (!prometheus_file.empty())
    write_prometheus(prometheus_file, prometheus_probe(inv, unix_now()));
  return 0;
}

}  // namespace tuner
