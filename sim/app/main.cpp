// gpusim command line: `run` one policy, `compare` several over many seeds, `sweep` a grid of runs, `policies` lists
// the built-in profiles, `calibrate` and `validate` handle GPU calibrations. Every failure ends
// in one of the exit codes of sim/app/exit_codes.hpp with a message on stderr; no exception
// reaches std::terminate.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "sim/app/calibrate_command.hpp"
#include "sim/app/config_command.hpp"
#include "sim/app/error_exit.hpp"
#include "sim/app/exit_codes.hpp"
#include "sim/app/export_command.hpp"
#include "sim/app/report_command.hpp"
#include "sim/app/trace_command.hpp"
#include "sim/app/usage_error.hpp"
#include "sim/app/simulate_command.hpp"
#include "sim/app/sweep_command.hpp"
#include "policies/register_builtin.hpp"
#include "sim/core/check.hpp"
#include "sim/core/status.hpp"
#include "sim/io/interrupt.hpp"

namespace {

using namespace gpusim;

// This executable's path (gpusim-calib is built beside it).
std::string self_path(const char* argv0) {
  std::error_code error;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string(argv0) : path.string();
}

int run_cli(int argc, char** argv) {
  // Under mpirun the whole sweep command, its parsing included, is gpusim-sweep-mpi's.
  if (argc > 1 && std::string_view(argv[1]) == "sweep") app::exec_sweep_under_mpi(argv, self_path(argv[0]));
  app::CalibrateOptions calibrate_options;
  CLI::App cli{"gpusim: a discrete-event simulator of Kubernetes GPU clusters and a benchmark for GPU scheduling policies"};
  cli.footer(app::kExitCodeHelp);
  // Before the subcommands, which copy it: CLI11's errors read as gpusim's other usage errors.
  cli.failure_message([](const CLI::App*, const CLI::Error& e) { return app::usage_error_text(e.what()); });
  cli.set_version_flag("--version", GPUSIM_VERSION);
  cli.require_subcommand(1);

  app::SimulateOptions run_options;
  app::SimulateOptions compare_options;
  CLI::App* run = app::add_run_command(cli, run_options);
  CLI::App* compare = app::add_compare_command(cli, compare_options);
  app::SweepOptions sweep_options;
  const app::SweepCommands sweep = app::add_sweep_commands(cli, sweep_options);
  report::OpenMetricsOptions export_options;
  CLI::App* openmetrics = app::add_export_command(cli, export_options);
  app::ReportOptions report_options;
  CLI::App* report = app::add_report_command(cli, report_options);
  app::TraceOptions trace_options;
  const app::TraceCommands trace = app::add_trace_commands(cli, trace_options);
  app::ConfigOptions config_options;
  const app::ConfigCommands config_commands = app::add_config_commands(cli, config_options);
  app::add_calibrate_commands(cli, calibrate_options);

  // CLI11 would only say "A subcommand is required" for a mistyped command.
  std::vector<std::string> names;
  for (const CLI::App* sub : cli.get_subcommands({})) names.push_back(sub->get_name());
  if (argc > 1 && argv[1][0] != '-' && std::find(names.begin(), names.end(), argv[1]) == names.end()) {
    fmt::print(stderr, "{}", app::usage_error_text(fmt::format("unknown command '{}' (commands: {})", argv[1], fmt::join(names, ", "))));
    return app::kExitUsage;
  }
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every other CLI11 error is a usage error.
    return cli.exit(e) == 0 ? app::kExitOk : app::kExitUsage;
  }
  if (*run || *compare) {
    io::AbandonList abandon;
    const io::InterruptGuard interrupts(abandon);  // before any worker thread starts
    return app::run_simulate(*run ? run_options : compare_options, abandon, policy::builtin_registry());
  }
  if (*report) {
    io::AbandonList abandon;
    const io::InterruptGuard interrupts(abandon);
    return app::run_report(report_options, abandon);
  }
  if (*sweep.sweep) {
    io::AbandonList abandon;
    const io::InterruptGuard interrupts(abandon);
    return app::run_sweep_commands(sweep, sweep_options, self_path(argv[0]), abandon);
  }
  if (*openmetrics) return app::run_export(export_options);
  if (*trace.inspect) return app::run_trace_inspect(trace_options);
  if (*trace.synth) {
    io::AbandonList abandon;
    const io::InterruptGuard interrupts(abandon);
    return app::run_trace_synth(trace_options, abandon);
  }
  if (*trace.convert) {
    io::AbandonList abandon;
    const io::InterruptGuard interrupts(abandon);
    return app::run_trace_convert(trace_options, abandon);
  }
  if (const int code = app::run_config_commands(config_commands, config_options); code >= 0) return code;
  return app::run_calibrate_commands(cli, calibrate_options, self_path(argv[0]));
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_cli(argc, argv);
  } catch (...) {
    return app::report_error(std::current_exception());
  }
}
