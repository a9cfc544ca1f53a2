#pragma once
// `gpusim export openmetrics DIR > file`: a run's time series for Prometheus and Grafana
// (sim/report/openmetrics.hpp).
#include <CLI/CLI.hpp>

#include "sim/report/openmetrics.hpp"

namespace gpusim::app {

CLI::App* add_export_command(CLI::App& app, report::OpenMetricsOptions& options);
int run_export(const report::OpenMetricsOptions& options);

}  // namespace gpusim::app
