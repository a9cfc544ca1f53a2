#pragma once
// `gpusim report DIR`: redraws report.md and its plots from a finished gpusim output, without
// re-simulating; the directory is replaced atomically like any output (sim/io/output_dir.hpp).
#include <CLI/CLI.hpp>
#include <string>

#include "sim/io/output_dir.hpp"

namespace gpusim::app {

struct ReportOptions {
  std::string dir;
};

CLI::App* add_report_command(CLI::App& app, ReportOptions& options);
int run_report(const ReportOptions& options, io::AbandonList& abandon);

}  // namespace gpusim::app
