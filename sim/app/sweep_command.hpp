#pragma once
// `gpusim sweep FILE.yaml --out DIR`: every cell of a declarative sweep (sweeps/FORMAT.md) as its
// own `gpusim run`, on a pool of threads, resumable, then merged; `--dry-run` lists the cells;
// `--shards K` runs one Indexed Job pod's share (JOB_COMPLETION_INDEX), `--emit-job` writes that
// Job's manifest, and `gpusim sweep merge DIR` merges a sweep directory's cells.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/app/progress_options.hpp"
#include "sim/io/output_dir.hpp"
#include "sim/sweep/cells.hpp"
#include "sim/sweep/runner.hpp"

namespace gpusim::app {

struct SweepOptions {
  std::string file;
  std::string out;
  bool dry_run = false;
  int threads = 0;
  ProgressOptions progress;
  std::string merge_dir;  // sweep merge DIR
  // A Kubernetes Indexed Job's shard: this process runs cells i with i % shards == JOB_COMPLETION_INDEX.
  int shards = 0;
  // --emit-job: the Indexed Job manifest on stdout.
  bool emit_job = false;
  int parallelism = 0;  // 0: as many as shards
  std::string image = "gpusim:latest";
  std::string volume_claim = "gpusim-sweep";
  std::string workdir = "/opt/gpusim";
};

struct SweepCommands {
  CLI::App* sweep = nullptr;
  CLI::App* merge = nullptr;
};

SweepCommands add_sweep_commands(CLI::App& app, SweepOptions& options);

// The steps of a sweep, shared with gpusim-sweep-mpi (sim/app/sweep_mpi_main.cpp).
struct LoadedSweep {
  sweep::SweepSpec spec;
  std::vector<sweep::Cell> cells;
  std::filesystem::path working_dir;  // where each cell runs: the sweep file's directory
  std::vector<sweep::DerivedConfig> configs;  // the cells' copies of the configuration files their field axes edit
};
LoadedSweep load_sweep(const SweepOptions& options);
// Prints --dry-run's cells or --emit-job's manifest; false when neither is asked for.
bool print_sweep_plan(const SweepOptions& options, const LoadedSweep& loaded);
// --out, absolute; a UsageError when it is missing.
std::filesystem::path sweep_out_dir(const SweepOptions& options);
sweep::RunnerOptions sweep_runner_options(const SweepOptions& options, const LoadedSweep& loaded, const std::filesystem::path& out,
                                          const std::string& gpusim, io::AbandonList& abandon);
// On stderr: the staging directories of killed cells removed; a failed first-cell check; the failed
// cells, how many, and the first one's exit code and log tail.
void print_cell_failures(const sweep::RunnerOutcome& outcome, const std::filesystem::path& out);

// When an MPI launcher started this process, replaces it with gpusim-sweep-mpi (beside `gpusim`)
// and the same arguments; returns when none did. Throws UsageError when that binary is missing.
void exec_sweep_under_mpi(char** argv, const std::string& gpusim);

// `gpusim` is this executable (each cell runs it). Returns the exit code; throws
// core::InputError, UsageError.
int run_sweep_commands(const SweepCommands& commands, const SweepOptions& options, const std::string& gpusim,
                       io::AbandonList& abandon);

}  // namespace gpusim::app
