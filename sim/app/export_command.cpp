#include "sim/app/export_command.hpp"

#include <fmt/format.h>

#include <iostream>
#include <sstream>

#include "sim/core/status.hpp"

namespace gpusim::app {

CLI::App* add_export_command(CLI::App& app, report::OpenMetricsOptions& o) {
  auto* exporter = app.add_subcommand("export", "Export a run's time series (openmetrics: for Prometheus and Grafana)");
  exporter->require_subcommand(1);
  auto* om = exporter->add_subcommand(
      "openmetrics", "Write a run's series in OpenMetrics text to stdout (DCGM and kube-state-metrics names where they exist); "
                     "load with `promtool tsdb create-blocks-from openmetrics FILE DIR`");
  om->add_option("DIR", o.dir, "A gpusim run or compare output (it needs nothing else: the run wrote its nodes.csv)")->required();
  om->add_option("--policy", o.policy, "compare outputs: the run's policy (default: the first)");
  om->add_option("--seed", o.seed, "compare outputs: the run's seed (default: the first)")->check(CLI::Range(std::int64_t{0}, INT64_MAX));
  om->add_option("--epoch", o.epoch_s, "Unix time of simulated time 0, in seconds")->check(CLI::Range(std::int64_t{0}, std::int64_t{4102444800}))->capture_default_str();
  om->add_option("--step", o.step_s, "Sample period in seconds (default: about a million samples in all, at least 15 s apart)")->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  return om;
}

int run_export(const report::OpenMetricsOptions& o) {
  // Built in memory first: an error leaves stdout empty rather than half a file.
  std::ostringstream text;
  report::export_openmetrics(o, text);
  std::cout << text.str();
  std::cout.flush();
  if (!std::cout) throw core::InputError("cannot write the exposition to stdout");
  return 0;
}

}  // namespace gpusim::app
