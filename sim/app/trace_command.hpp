#pragma once
// `gpusim trace inspect` (what a workload holds: arrivals over time, GPUs and run times per job,
// the demand it offers against the cluster's GPUs) and `gpusim trace synth` (a synthetic job log
// fitted to one, traces/synth.hpp, written as a gpusim output directory), and `gpusim trace convert`
// (any workload in gpusim's native JSON Lines format, traces/FORMAT.md).
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "sim/io/output_dir.hpp"

namespace gpusim::app {

struct TraceOptions {
  std::string workload = "philly";
  std::string cluster;  // "": the workload's default cluster
  std::string catalog;
  int bins = 20;
  std::int64_t jobs = 0;
  double load = 1.0;
  std::int64_t seed = 42;
  std::string out;
};

struct TraceCommands {
  CLI::App* inspect = nullptr;
  CLI::App* synth = nullptr;
  CLI::App* convert = nullptr;
};

TraceCommands add_trace_commands(CLI::App& app, TraceOptions& options);
int run_trace_inspect(const TraceOptions& options);
int run_trace_synth(const TraceOptions& options, io::AbandonList& abandon);
// Writes the workload in gpusim's native format (traces/FORMAT.md) as DIR/workload.jsonl.
int run_trace_convert(const TraceOptions& options, io::AbandonList& abandon);

}  // namespace gpusim::app
